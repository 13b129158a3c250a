#!/usr/bin/env bash
# The labs' reference solutions still work with this tree: in a scratch copy of the checkout,
# every patch of docs/labs/instructor/solutions/ is made into its step by tools/lab_solution.sh
# (tools/new_step.sh from the step the lab starts from, then the patch), exactly as an
# instructor would, and tools/grade.sh must say PASS for each and print its ratio to the step
# it started from. One build serves all of them.
#   test_lab_solutions.sh SOURCE_DIR SCRATCH_DIR [--apply-only]
# --apply-only stops before the build: each patch applies to its base step as the tree has it
# (a lesson step changed under a solution fails here, naming it), --save writes the same
# change back, and the links of the solution's README lead somewhere from where it lands.
set -uo pipefail
src=$1 work=$2 apply_only=${3:-}
fail() { echo "FAIL: $*"; exit 1; }
command -v git > /dev/null || fail "git not found: tools/lab_solution.sh applies the solutions with git apply"

. "$(dirname "$0")/lab_copy.sh"
lab_copy "$src" "$work"

patches=(docs/labs/instructor/solutions/*.patch)
[ -f "${patches[0]}" ] || fail "no solutions (*.patch) under docs/labs/instructor/solutions/"
numbers=()
for patch in "${patches[@]}"; do
  slug=$(basename "$patch" .patch)
  [[ "$slug" =~ ^([0-9]+)_[a-z0-9_]+$ ]] && [ "$((10#${BASH_REMATCH[1]}))" -ge 11 ] ||
    fail "solutions/$slug.patch: not named like a lab step (NN_slug, NN from 11; 10 is the tuned step)"
  nn=${BASH_REMATCH[1]}
  ls -d steps/"$nn"_* > /dev/null 2>&1 && fail "solutions/$slug.patch: steps/ has a step $nn already"
  base=$(sed -n 's/^from: *\([0-9a-z_]*\).*/\1/p' "$patch" | head -n 1)
  [ -n "$base" ] || fail "solutions/$slug.patch: no 'from:' line naming the step it starts from"
  # The step it was made from must still be there: grade.sh compares with it.
  [ -f "steps/$base/CMakeLists.txt" ] || fail "solutions/$slug.patch: made from steps/$base, which is gone (renamed?)"
  out=$(tools/lab_solution.sh "$nn" 2>&1); rc=$?
  [ $rc -eq 1 ] && fail "solution $slug: its patch no longer applies to steps/$base as the tree has it: $out"
  [ $rc -eq 0 ] || fail "cannot install $slug (tools/lab_solution.sh exit $rc): $out"
  grep -q "^# from: $base " "steps/$slug/CMakeLists.txt" || fail "solution $slug: no '# from: $base' line in its CMakeLists.txt"
  [ -z "$(find "steps/$slug" -name '*.rej' -o -name '*.orig')" ] || fail "solution $slug: the patch left .rej or .orig files"
  # --save of the step just made writes the same change (context and line numbers aside: a
  # lesson step may move under a solution and the patch still apply).
  changes() { grep -v -e '^@@ ' -e '^ ' "$1"; }
  cp "$patch" "$work/saved.patch"
  tools/lab_solution.sh "$nn" --save > /dev/null || fail "solution $slug: tools/lab_solution.sh $nn --save failed"
  diff <(changes "$work/saved.patch") <(changes "$patch") > /dev/null ||
    fail "solution $slug: --save of the step it made is not its patch: $(diff <(changes "$work/saved.patch") <(changes "$patch") | head -n 4)"
  echo "ok: solutions/$slug.patch applies to steps/$base"
  numbers+=("$nn")
done
# Refusals (exit 2) change nothing: a solution made already, one that does not exist.
snapshot() { (cd steps && find . | sort && cat CMakeLists.txt) | cksum; }
before=$(snapshot)
tools/lab_solution.sh "${numbers[0]}" 2> /dev/null; rc=$?
[ $rc -eq 2 ] || fail "tools/lab_solution.sh ${numbers[0]} with steps/${numbers[0]}_* there: exit $rc, not 2"
tools/lab_solution.sh 9999 2> /dev/null; rc=$?
[ $rc -eq 2 ] || fail "tools/lab_solution.sh 9999 (no such solution): exit $rc, not 2"
[ "$(snapshot)" = "$before" ] || fail "a refused tools/lab_solution.sh changed steps/"
if command -v python3 > /dev/null; then
  broken=$(python3 tests/test_doc_links.py . | grep -E '^FAIL  steps/[0-9]+_' | grep -E "steps/($(IFS='|'; echo "${numbers[*]}"))_")
  [ -z "$broken" ] || fail "a solution's page links nowhere from steps/: $broken"
fi
if [ "$apply_only" = --apply-only ]; then
  cd "$work" && rm -rf "$work/src" "$work/saved.patch"
  echo "lab solution patches: ${#numbers[@]} apply"
  exit 0
fi

passed=0
for nn in "${numbers[@]}"; do
  slug=$(basename steps/"$nn"_*)
  from=$(sed -n 's/^# from: *\([0-9a-z_]*\).*/\1/p' "steps/$slug/CMakeLists.txt")
  out=$(tools/grade.sh "$nn" --sizes 37,64 --build "$work/build"); rc=$?
  echo "$out"
  verdict=$(tail -n 1 <<< "$out")
  if [ $rc -eq 77 ]; then echo "(step $slug needs an instruction set this CPU lacks: not graded here)"; continue; fi
  [ $rc -eq 0 ] && [[ "$verdict" == "PASS step$slug:"* ]] || fail "solution $slug did not pass (exit $rc)"
  [[ "$verdict" == *"x step$from"* ]] || fail "solution $slug: no ratio to step $from in the verdict"
  passed=$((passed + 1))
done
rm -rf "$work/src" "$work/saved.patch"   # the build stays for the other lab test
echo "lab solutions: $passed passed, 0 failed"
