#!/usr/bin/env bash
# The labs' reference solutions still work with this harness: in a scratch copy of the
# checkout, every folder of docs/labs/instructor/solutions/ is copied into steps/ with its one
# add_subdirectory line, exactly as an instructor would, and tools/grade.sh must say PASS for
# each and print its ratio to the step it started from. One build serves all of them.
#   test_lab_solutions.sh SOURCE_DIR SCRATCH_DIR
set -uo pipefail
src=$1 work=$2
fail() { echo "FAIL: $*"; exit 1; }

. "$(dirname "$0")/lab_copy.sh"
lab_copy "$src" "$work"

solutions=(docs/labs/instructor/solutions/*/)
[ -d "${solutions[0]}" ] || fail "no solutions under docs/labs/instructor/solutions/"
numbers=()
for dir in "${solutions[@]}"; do
  slug=$(basename "$dir")
  [[ "$slug" =~ ^([0-9]+)_[a-z0-9_]+$ ]] && [ "$((10#${BASH_REMATCH[1]}))" -ge 11 ] ||
    fail "solutions/$slug: not named like a lab step (NN_slug, NN from 11; 10 is the tuned step)"
  ls -d steps/"${BASH_REMATCH[1]}"_* > /dev/null 2>&1 && fail "solutions/$slug: steps/ has a step ${BASH_REMATCH[1]} already"
  grep -q '^# from: ' "$dir/CMakeLists.txt" || fail "solutions/$slug: no '# from:' line in its CMakeLists.txt"
  # The step it was made from must still be there: grade.sh compares with it.
  base=$(sed -n 's/^# from: *\([0-9a-z_]*\).*/\1/p' "$dir/CMakeLists.txt")
  [ -f "steps/$base/CMakeLists.txt" ] || fail "solutions/$slug: made from steps/$base, which is gone (renamed?)"
  cp -R "$dir" "steps/$slug" && echo "add_subdirectory($slug)" >> steps/CMakeLists.txt || fail "cannot install $slug"
  numbers+=("${BASH_REMATCH[1]}")
done

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
rm -rf "$work/src"   # the build stays for the other lab test
echo "lab solutions: $passed passed, 0 failed"
