#!/usr/bin/env bash
# The course-lab workflow end to end, in a scratch copy of the checkout:
#   tools/new_step.sh makes a step that builds, registers and passes tools/grade.sh;
#   a bug planted in it makes tools/grade.sh say FAIL with exit 1; bad arguments exit 2.
#   test_lab_workflow.sh SOURCE_DIR SCRATCH_DIR
set -uo pipefail
src=$1 work=$2
fail() { echo "FAIL: $*"; exit 1; }

. "$(dirname "$0")/lab_copy.sh"
lab_copy "$src" "$work"

tools/new_step.sh 11 lab_test --from 04_unroll_4x4 > /dev/null || fail "new_step.sh failed"
[ -f steps/11_lab_test/CMakeLists.txt ] || fail "no steps/11_lab_test/"
grep -qx "add_subdirectory(11_lab_test)" steps/CMakeLists.txt || fail "not registered in steps/CMakeLists.txt"
tools/new_step.sh 11 again > /dev/null 2>&1; [ $? -eq 2 ] || fail "a second step 11 was not refused with exit 2"
tools/new_step.sh 10 tuned_too > /dev/null 2>&1; [ $? -eq 2 ] || fail "step number 10 (the tuned step's) was not refused with exit 2"
tools/new_step.sh 7 low > /dev/null 2>&1; [ $? -eq 2 ] || fail "step number 7 was not refused with exit 2"
tools/new_step.sh 12 Bad-Slug > /dev/null 2>&1; [ $? -eq 2 ] || fail "a bad slug was not refused with exit 2"

grep -qx "# from: 04_unroll_4x4 (tools/grade.sh compares this step with it)" steps/11_lab_test/CMakeLists.txt ||
  fail "new_step.sh did not record the step it copied"

# Without --from: the last lesson, 09_openmp, not the tuned step 10 nor a lab step. Step 09
# builds on step 08's library: the copy renames its own namespace and keeps step 08's names.
tools/new_step.sh 31 from_default > /dev/null || fail "new_step.sh without --from failed"
grep -q "^# from: 09_openmp " steps/31_from_default/CMakeLists.txt || fail "the default --from is not 09_openmp"
grep -q "BUILDS_ON 08_avx512_14x32" steps/31_from_default/CMakeLists.txt || fail "the copy of step 09 lost BUILDS_ON"
grep -qw "namespace step31" steps/31_from_default/*.cpp && ! grep -qw step09 steps/31_from_default/*.cpp ||
  fail "the copy of step 09 kept namespace step09"
# Lab 3's start: every file of step 08 moves to namespace step32 (else the build below, which
# links every step into one test program, fails on symbols defined twice).
tools/new_step.sh 32 from_08 --from 08_avx512_14x32 > /dev/null || fail "new_step.sh --from 08_avx512_14x32 failed"
! grep -qw step08 steps/32_from_08/*.?pp || fail "the copy of step 08 still names step08"

out=$(tools/grade.sh 11 --sizes 37,64 --build "$work/build"); rc=$?
echo "$out"
verdict=$(tail -n 1 <<< "$out")
[ $rc -eq 0 ] && [[ "$verdict" == "PASS step11_lab_test:"* ]] || fail "the new step did not pass (exit $rc)"
[[ "$verdict" == *"x step04_unroll_4x4"* ]] || fail "no ratio to the step it was copied from"
grep -qE "^37,[0-9.]+,[0-9.]+," results/grade_step11_lab_test.ratios.csv || fail "no ratios CSV"
cmake --build "$work/build" --target cpuinfo > /dev/null || fail "cpuinfo does not build"
"$work/build/bin/cpuinfo" --steps | grep -q "^11 11_lab_test " || fail "the registry does not list step 11"

# The same edge bug a student might write: the last row of the m % 4 leftover is skipped.
sed -i 's/for (int i = m4; i < m; ++i)/for (int i = m4; i + 1 < m; ++i)/' steps/11_lab_test/kernel.cpp
grep -q "i + 1 < m" steps/11_lab_test/kernel.cpp || fail "could not plant the bug"
out=$(tools/grade.sh 11 --sizes 37,64 --build "$work/build"); rc=$?
echo "$out"
verdict=$(tail -n 1 <<< "$out")
[ $rc -eq 1 ] && [[ "$verdict" == *"FAIL step11_lab_test:"* ]] || fail "the planted bug was not caught (exit $rc)"

tools/grade.sh 99 > /dev/null 2>&1; [ $? -eq 2 ] || fail "grading a missing step did not exit 2"
for bad in "--sizes 0" "--sizes 5,x" "--rounds 0" "--ref mkl" "--against 98" "--threads" "--cpu one" "--cpu 99999"; do
  # shellcheck disable=SC2086
  tools/grade.sh 11 $bad > /dev/null 2>&1; [ $? -eq 2 ] || fail "grade.sh 11 $bad did not exit 2"
done
rm -rf "$work/src"   # the build stays for the other lab test
echo "lab workflow: 1 passed, 0 failed"
