#!/usr/bin/env bash
# Builds gemm-steps as a compiler without OpenMP would (Apple's clang before `brew install
# libomp`): CMake is told not to find OpenMP. Then probe and step 10 must build; step 10 runs
# on one thread, verified, and refuses --threads 2 (exit 2, a line naming libomp); step 09
# is reported as not built. Only those targets are built (build-noomp/).
#
#   tools/test_no_openmp.sh [extra cmake arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${GEMM_NOOMP_DIR:-build-noomp} log=$dir/configure.log
jobs=$(nproc 2> /dev/null || echo 2)
fail() { echo "test_no_openmp.sh: FAIL: $*" >&2; exit 1; }
mkdir -p "$dir"
cmake -S . -B "$dir" -DCMAKE_DISABLE_FIND_PACKAGE_OpenMP=ON -DGEMM_BUILD_TESTS=OFF "$@" > "$log" 2>&1 ||
  { cat "$log"; fail "configure"; }
grep -q "step 09_openmp needs OpenMP: not built" "$log" || fail "step 09 not reported as not built"
grep -q "step 10_tuned without OpenMP: built for one thread" "$log" || fail "step 10 not reported"
cmake --build "$dir" -j "$jobs" --target step10_tuned probe
[ ! -e "$dir/bin/step09_openmp" ] || fail "step 09 was built without OpenMP"
# (cpu.cpp's weak references to the runtime's places, "w", stay unresolved without one.)
if nm "$dir/bin/step10_tuned" | grep -Eq " U (omp_|GOMP_|__kmpc_)"; then fail "step 10 calls an OpenMP runtime"; fi

# One thread: the serial nest, every element verified (exit 1 on a wrong one).
"$dir/bin/step10_tuned" --sizes 7,64,129,300 --reps 1 --threads 1 > "$dir/one.txt" || fail "step 10 --threads 1 (exit $?)"
grep -q "1 thread" "$dir/one.txt" || fail "step 10 did not say it ran on one thread"
"$dir/bin/step10_tuned" --sizes 64 --reps 1 > /dev/null || fail "step 10 without --threads"
# More threads: refused before anything runs, with what to install.
rc=0
"$dir/bin/step10_tuned" --sizes 64 --reps 1 --threads 2 > "$dir/two.out" 2> "$dir/two.err" || rc=$?
[ "$rc" = 2 ] || fail "step 10 --threads 2 exited $rc, not 2"
grep -q "libomp" "$dir/two.err" || fail "step 10 --threads 2 did not name libomp: $(cat "$dir/two.err")"
[ ! -s "$dir/two.out" ] || fail "step 10 --threads 2 printed to standard output"
# probe: a parallel step on one thread, without the OpenMP call it makes where there is one.
"$dir/bin/probe" 10 --sizes 96 --reps 1 > /dev/null || fail "probe 10 (exit $?)"
echo "test_no_openmp.sh: ok (probe and step 10 without OpenMP; step 09 not built)"
