#!/usr/bin/env bash
# tools/lab_solution.sh NN [--save]
#
# The labs' reference solutions are kept as what the student changes: for each, the patch
# docs/labs/instructor/solutions/NN_slug.patch against the step tools/new_step.sh makes from
# the step the lab starts from (named on its "from:" line).
#   tools/lab_solution.sh NN          makes steps/NN_slug/ as the student would: new_step.sh
#                                     NN slug --from BASE, then the patch (git apply); then
#                                     re-run CMake and grade it: tools/grade.sh NN
#   tools/lab_solution.sh NN --save   writes the patch again from steps/NN_slug/ (after a
#                                     change there, or for a new solution: its base is the
#                                     "# from:" line of its CMakeLists.txt)
# Use it in a clone of your own, not the students'. Exit status: 0 done; 1 the patch no
# longer applies to the base step as it is now (steps/ is left as it was: redo the
# solution from the base step, then --save); 2 usage error (no such solution, step NN exists
# already, the base step is gone, git missing).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/args.sh"
begin "$0" "$@"
usage="usage: tools/lab_solution.sh NN [--save]   (NN: a solution's step number, 11 to 9999)"
save=0
parse_options save "" 1 "$@"
[ ${#positional[@]} = 1 ] || usage_error "$usage"
number=$(lab_number "${positional[0]}") || exit 2
nn=$(printf '%02d' "$number")
command -v git > /dev/null || usage_error "git not found: the patches are applied and made with git"
solutions="$root/docs/labs/instructor/solutions" steps="$root/steps"

only() { [ $# = 1 ] && [ -e "$1" ] && echo "$1"; return 0; }   # the one path a glob names, or nothing
base_of() { sed -n "s/^$2 *\([0-9]\{2,4\}_[a-z0-9_]*\).*/\1/p" "$1" | head -n 1; }   # FILE LINE-START: the step named
# git apply as a plain patch tool: inside a repository it would take the patch's paths from
# the top of the work tree and skip them all, without an error.
apply() {   # DIR [--check]: the patch, applied in DIR
  (cd "$1" && env -u GIT_DIR -u GIT_WORK_TREE GIT_CEILING_DIRECTORIES="$(cd .. && pwd -P)" \
     git apply ${2:+"$2"} --whitespace=nowarn "$patch")
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" ${out:+"$out"}' EXIT
scaffold() {   # NUMBER NAME BASE: prints the folder of the step new_step.sh makes, in a copy of what it reads
  mkdir -p "$tmp/tree/tools" "$tmp/tree/plots" "$tmp/tree/steps"
  cp "$root/tools/new_step.sh" "$root/tools/args.sh" "$tmp/tree/tools/"
  cp "$root/plots/samples.py" "$tmp/tree/plots/"
  cp "$steps/CMakeLists.txt" "$tmp/tree/steps/" && cp -R "$steps/$3" "$tmp/tree/steps/"
  "$tmp/tree/tools/new_step.sh" "$1" "$2" --from "$3" > /dev/null
  echo "$tmp/tree/steps/$(printf '%02d_%s' "$1" "$2")"
}

if [ "$save" = 1 ]; then
  step=$(only "$steps/${nn}"_*/)
  [ -n "$step" ] || usage_error "no steps/${nn}_*/ to save"
  slug=$(basename "$step") base=$(base_of "$step/CMakeLists.txt" '# from:')
  [ -n "$base" ] && [ -d "$steps/$base" ] || usage_error "steps/$slug: no '# from:' line naming a step of steps/"
  made=$(scaffold "$number" "${slug#*_}" "$base")
  cp -R "$made" "$tmp/a" && cp -R "$step" "$tmp/b"
  # Plain paths a/FILE b/FILE, no blob names: a patch git apply and patch -p1 both read.
  rc=0
  (cd "$tmp" && LC_ALL=C git diff --no-index --no-prefix --no-renames --no-color --no-ext-diff a b) > "$tmp/diff" || rc=$?
  [ "$rc" = 1 ] || { echo "$prog: steps/$slug/ is new_step.sh's copy of steps/$base/ unchanged, or git diff failed: no patch written" >&2; exit 2; }
  out=$(mktemp "$solutions/.$slug.patch.XXXXXX")
  {
    echo "The lab solution $slug, as what the student changes in the step that"
    echo "\`tools/new_step.sh $number ${slug#*_} --from $base\` makes. Its files: \`tools/lab_solution.sh $number\`;"
    echo "after a change to them, \`tools/lab_solution.sh $number --save\` writes this file again."
    echo "from: $base"
    echo
    grep -v '^index [0-9a-f]*\.\.[0-9a-f]*' "$tmp/diff"
  } > "$out"
  chmod "$(printf '%o' $((0666 & ~0$(umask))))" "$out"   # mktemp's file is private
  mv -f "$out" "$solutions/$slug.patch"
  echo "wrote docs/labs/instructor/solutions/$slug.patch (steps/$slug/ against new_step.sh's copy of steps/$base/)"
  exit 0
fi

patch=$(only "$solutions/${nn}"_*.patch)
[ -n "$patch" ] || usage_error "no solution $number: docs/labs/instructor/solutions/ has no ${nn}_*.patch"
slug=$(basename "$patch" .patch) base=$(base_of "$patch" 'from:')
[ -n "$base" ] || usage_error "solutions/$slug.patch: no 'from:' line naming the step it starts from"
[ -f "$steps/$base/CMakeLists.txt" ] || usage_error "solutions/$slug.patch starts from steps/$base, which is gone (renamed?)"
# Tried on the scaffold first, so that a patch that no longer applies leaves steps/ untouched.
made=$(scaffold "$number" "${slug#*_}" "$base")
if ! apply "$made" --check; then
  echo "$prog: solutions/$slug.patch no longer applies to steps/$base as it is now: redo the solution from it (tools/new_step.sh $number ${slug#*_} --from $base, the change, then tools/lab_solution.sh $number --save)" >&2
  exit 1
fi
"$root/tools/new_step.sh" "$number" "${slug#*_}" --from "$base" > /dev/null
apply "$steps/$slug"
echo "created steps/$slug/ (lab solution: steps/$base/ with solutions/$slug.patch) and registered it in steps/CMakeLists.txt"
echo "next:  cmake -S . -B build && cmake --build build -j && tools/grade.sh $number"
