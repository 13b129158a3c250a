#!/usr/bin/env bash
# tools/new_step.sh NN slug [--from SLUG]
#
# Starts a lab step: copies steps/<SLUG>/ (default: the highest-numbered step) to
# steps/NN_slug/ and registers it in steps/CMakeLists.txt. Re-run CMake and build, and you
# have build/bin/stepNN_slug, a `make step-NN` target, and the test suite checking it on
# every awkward shape like every other step.
#
# A step's names with external linkage live in `namespace stepNN` (e.g. step07::pack_a);
# the copy renames that namespace so two steps never define the same symbol. The copy's
# CMakeLists.txt names the step it came from on a "# from:" line: tools/grade.sh times the
# new step against that one.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage="usage: tools/new_step.sh NN slug [--from SLUG]   (NN: 10 or more; slug: a-z, 0-9, _)"

[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
nn=$1 name=$2; shift 2
from=""
while [ $# -gt 0 ]; do
  case "$1" in
    --from) from=${2:-}; [ -n "$from" ] || { echo "new_step.sh: --from needs a step slug" >&2; exit 2; }; shift ;;
    *) echo "new_step.sh: unknown argument '$1'. $usage" >&2; exit 2 ;;
  esac
  shift
done
[[ "$nn" =~ ^[0-9]+$ ]] && [ "$((10#$nn))" -ge 10 ] ||
  { echo "new_step.sh: step number '$nn': lab steps are numbered 10 and up" >&2; exit 2; }
[[ "$name" =~ ^[a-z0-9_]+$ ]] ||
  { echo "new_step.sh: slug '$name': use lower-case letters, digits and _" >&2; exit 2; }
number=$((10#$nn))
slug=$(printf '%02d_%s' "$number" "$name")

steps="$root/steps"
if ls -d "$steps"/*/ >/dev/null 2>&1; then
  for d in "$steps"/*/; do
    [ "$(basename "$d" | sed -E 's/^0*([0-9]+)_.*/\1/')" = "$number" ] &&
      { echo "new_step.sh: step $number exists already: steps/$(basename "$d")" >&2; exit 2; }
  done
fi
if [ -z "$from" ]; then
  from=$(ls "$steps" | grep -E '^[0-9]+_' | sort -V | tail -n 1)
fi
[ -d "$steps/$from" ] || { echo "new_step.sh: --from '$from': no such folder under steps/" >&2; exit 2; }
from_number=$((10#$(echo "$from" | sed -E 's/^0*([0-9]+)_.*/\1/')))

cp -R "$steps/$from" "$steps/$slug"
old_ns=$(printf 'step%02d' "$from_number") new_ns=$(printf 'step%02d' "$number")
find "$steps/$slug" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) \
  -exec sed -i "s/\b$old_ns\b/$new_ns/g" {} +
# The step it started from, which tools/grade.sh times it against (a copy of a lab step
# replaces that step's line).
sed -i '/^# from: /d' "$steps/$slug/CMakeLists.txt"
sed -i "1i # from: $from (tools/grade.sh compares this step with it)" "$steps/$slug/CMakeLists.txt"
cat > "$steps/$slug/README.md" <<TXT
# Step $number: $name

Started from [$from](../$from/) by \`tools/new_step.sh\`. Describe here the one idea this step
adds, why it should help (registers, caches, instructions), and the figure you measured:

    cd build && make step-$number     # results/step$slug.csv and .png, beside step $from_number
TXT
echo "add_subdirectory($slug)" >> "$steps/CMakeLists.txt"

echo "created steps/$slug/ (a copy of steps/$from/) and registered it in steps/CMakeLists.txt"
echo "next:  cmake -S . -B build && cmake --build build -j && (cd build && make step-$number)"
echo "check: (cd build && ctest)   checks it on every awkward shape with every other step"
