#!/usr/bin/env bash
# tools/new_step.sh NN slug [--from SLUG]
#
# Starts a lab step: copies steps/<SLUG>/ (default: the last lesson, 09_openmp) to
# steps/NN_slug/ and registers it in steps/CMakeLists.txt. Lab steps take 11 and up (1-9
# are the lessons, 10 the tuned step). Re-run CMake and build, and you have
# build/bin/stepNN_slug, a `make step-NN` target, and the test suite checking it on every
# awkward shape like every other step.
#
# A step's names with external linkage live in `namespace stepNN` (e.g. step07::pack_a);
# the copy renames that namespace so two steps never define the same symbol. A step that
# builds on another (step 09 on step 08: BUILDS_ON in its CMakeLists.txt) keeps using that
# step's names (step08::...) and library. The copy's CMakeLists.txt names the step it came
# from on a "# from:" line: tools/grade.sh times the new step against that one.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/args.sh"
begin "$0" "$@"
usage="usage: tools/new_step.sh NN slug [--from SLUG]   (NN: 11 to 9999; slug: a-z, 0-9, _)"
from=""
parse_options "" from 2 "$@"
[ ${#positional[@]} = 2 ] || usage_error "$usage"
nn=${positional[0]} name=${positional[1]}
# Everything is checked before anything is written.
number=$(lab_number "$nn") || exit 2
[[ "$name" =~ ^[a-z0-9_]+$ ]] || usage_error "slug '$name': use lower-case letters, digits and _"
slug=$(printf '%02d_%s' "$number" "$name")
steps="$root/steps"
name_max=$(step_name_max) || exit 2
(( ${#slug} <= name_max )) ||
  usage_error "slug '${name:0:24}...' (${#name} characters): too long: a step folder (steps/${number}_...) is at most $name_max characters; at most $((name_max - ${#slug} + ${#name})) characters here"
existing=$(ls "$steps" | grep -E "^0*${number}_" | head -n 1 || true)
[ -z "$existing" ] || usage_error "step $number exists already: steps/$existing"
# The default is the last lesson (1-9), not the tuned step 10 nor a lab step.
[ -n "$from" ] || from=$(ls "$steps" | grep -E '^0*[1-9]_[a-z0-9_]+$' | sort -V | tail -n 1)
# A step folder directly under steps/: not ".", "..", a path, or a folder without a step.
[[ "$from" =~ ^[0-9]{2,4}_[a-z0-9_]+$ ]] && [ -f "$steps/$from/CMakeLists.txt" ] ||
  usage_error "--from '$from': not a step folder under steps/ (such as 07_packing)"
from_number=$((10#${from%%_*}))

# From here on, a failure removes the half-made step; the build list is changed last.
finished=0
cleanup() {
  [ "$finished" = 1 ] && return
  rm -rf "${steps:?}/$slug" ${list_tmp:+"$list_tmp"}
  echo "$prog: failed; steps/ is as it was" >&2
}
trap cleanup EXIT
cp -R "$steps/$from" "$steps/$slug"
old_ns=$(printf 'step%02d' "$from_number") new_ns=$(printf 'step%02d' "$number")
find "$steps/$slug" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) \
  -exec sed -i "s/\b$old_ns\b/$new_ns/g" {} +
# The step it started from, for tools/grade.sh (a copy of a lab step replaces that step's line).
sed -i '/^# from: /d' "$steps/$slug/CMakeLists.txt"
sed -i "1i # from: $from (tools/grade.sh compares this step with it)" "$steps/$slug/CMakeLists.txt"
cat > "$steps/$slug/README.md" <<TXT
# Step $number: $name

Started from [$from](../$from/) by \`tools/new_step.sh\`. Describe here the one idea this step
adds, why it should help (registers, caches, instructions), and the figure you measured:

    cd build && make step-$number     # results/step$slug.csv and .png, beside step $from_number
TXT
# The build list is replaced whole (a new file renamed over it), never appended to in place.
list_tmp=$(mktemp "$steps/.CMakeLists.txt.XXXXXX")
{ cat "$steps/CMakeLists.txt"; echo "add_subdirectory($slug)"; } > "$list_tmp"
chmod --reference="$steps/CMakeLists.txt" "$list_tmp"
mv -f "$list_tmp" "$steps/CMakeLists.txt"
finished=1

echo "created steps/$slug/ (a copy of steps/$from/) and registered it in steps/CMakeLists.txt"
echo "next:  cmake -S . -B build && cmake --build build -j && (cd build && make step-$number)"
echo "check: (cd build && ctest)   checks it on every awkward shape with every other step"
