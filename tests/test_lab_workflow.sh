#!/usr/bin/env bash
# The course-lab workflow end to end, in a scratch copy of the checkout:
#   tools/new_step.sh makes a step that builds, registers and passes tools/grade.sh;
#   a bug planted in it makes tools/grade.sh say FAIL with exit 1; bad arguments exit 2.
#   test_lab_workflow.sh SOURCE_DIR SCRATCH_DIR
set -uo pipefail
src=$1 work=$2
fail() { echo "FAIL: $*"; exit 1; }

rm -rf "$work" && mkdir -p "$work" || fail "cannot make $work"
tar -C "$src" --exclude='./build*' --exclude='./results' --exclude='./.git' -cf - . | tar -C "$work" -xf - ||
  fail "cannot copy the checkout"
cd "$work"

tools/new_step.sh 10 lab_test --from 04_unroll_4x4 > /dev/null || fail "new_step.sh failed"
[ -f steps/10_lab_test/CMakeLists.txt ] || fail "no steps/10_lab_test/"
grep -qx "add_subdirectory(10_lab_test)" steps/CMakeLists.txt || fail "not registered in steps/CMakeLists.txt"
tools/new_step.sh 10 again > /dev/null 2>&1; [ $? -eq 2 ] || fail "a second step 10 was not refused with exit 2"
tools/new_step.sh 7 low > /dev/null 2>&1; [ $? -eq 2 ] || fail "step number 7 was not refused with exit 2"
tools/new_step.sh 11 Bad-Slug > /dev/null 2>&1; [ $? -eq 2 ] || fail "a bad slug was not refused with exit 2"

verdict=$(tools/grade.sh 10 --sizes 37,64 --build "$work/build"); rc=$?
echo "$verdict"
[ $rc -eq 0 ] && [[ "$verdict" == "PASS step10_lab_test:"* ]] || fail "the new step did not pass (exit $rc)"
cmake --build "$work/build" --target cpuinfo > /dev/null || fail "cpuinfo does not build"
"$work/build/bin/cpuinfo" --steps | grep -q "^10 10_lab_test " || fail "the registry does not list step 10"

# The same edge bug a student might write: the last row of the m % 4 leftover is skipped.
sed -i 's/for (int i = m4; i < m; ++i)/for (int i = m4; i + 1 < m; ++i)/' steps/10_lab_test/kernel.cpp
grep -q "i + 1 < m" steps/10_lab_test/kernel.cpp || fail "could not plant the bug"
verdict=$(tools/grade.sh 10 --sizes 37,64 --build "$work/build"); rc=$?
echo "$verdict"
[ $rc -eq 1 ] && [[ "$verdict" == *"FAIL step10_lab_test:"* ]] || fail "the planted bug was not caught (exit $rc)"

tools/grade.sh 99 > /dev/null 2>&1; [ $? -eq 2 ] || fail "grading a missing step did not exit 2"
rm -rf "$work"
echo "lab workflow: 1 passed, 0 failed"
