#!/usr/bin/env bash
# tools/grade.sh NN [--build DIR] [--sizes LIST]
#
# Grades step NN (a student's lab step or any other): builds it, checks it on every awkward
# shape of the test suite (every variant this CPU supports, tiny block sizes, 1-3 threads for
# parallel steps), then runs its sweep with verification, and prints ONE verdict line:
#   PASS step10_mine: right on every test shape and every sweep size; best 41.2 GFLOPS at n=1000
# Exit status: 0 pass, 1 wrong results, 2 usage or build error, 77 this CPU cannot run it.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prog=grade.sh
source "$root/tools/args.sh"
if wants_help "$@"; then sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
build="$root/build" sizes="200,500,1000"
[ $# -ge 1 ] || usage_error "usage: tools/grade.sh NN [--build DIR] [--sizes LIST]"
nn=$1; shift
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$(value_of "$1" "${2-}") || exit 2; shift ;;
    --sizes) sizes=$(value_of "$1" "${2-}") || exit 2; shift ;;
    *) usage_error "unknown argument '$1'" ;;
  esac
  shift
done
[[ "$nn" =~ ^[0-9]{1,4}$ ]] || usage_error "'$nn' is not a step number"
number=$((10#$nn))
folder=$(ls "$root/steps" | grep -E "^0*${number}_" | head -n 1)
[ -n "$folder" ] || { echo "FAIL step $number: no folder steps/${nn}_*" >&2; exit 2; }
exe="step$folder"

mkdir -p "$build"
cmake -S "$root" -B "$build" -DGEMM_BUILD_TESTS=ON > "$build/grade.log" 2>&1 &&
  cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target "$exe" gemm_tests >> "$build/grade.log" 2>&1 ||
  { tail -n 30 "$build/grade.log"; echo "FAIL $exe: does not build (log: $build/grade.log)"; exit 2; }

# 1. Correctness on the test suite's shapes, for this step only.
GEMM_TEST_STEPS=$number "$build/tests/gemm_tests" "[steps]" > "$build/grade.tests.log" 2>&1
if [ $? -ne 0 ]; then
  grep -m 3 -A 3 "FAILED" "$build/grade.tests.log"
  echo "FAIL $exe: wrong on the test shapes (details: $build/grade.tests.log)"
  exit 1
fi
if ! grep -q "All tests passed" "$build/grade.tests.log"; then
  echo "FAIL $exe: the test suite did not run (details: $build/grade.tests.log)"; exit 2
fi

# 2. The sweep, verified at every size.
csv="$root/results/grade_$exe.csv"
mkdir -p "$root/results"
"$build/bin/$exe" --sizes "$sizes" --reps 3 --csv "$csv" > "$build/grade.sweep.log" 2>&1
rc=$?
case $rc in
  0) ;;
  77) echo "SKIP $exe: $(tail -n 1 "$build/grade.sweep.log")"; exit 77 ;;
  1) echo "FAIL $exe: a sweep size failed verification ($(grep -m1 'first wrong' "$build/grade.sweep.log" | sed 's/^ *//'))"; exit 1 ;;
  *) echo "FAIL $exe: the sweep exited with $rc ($(tail -n 1 "$build/grade.sweep.log"))"; exit 2 ;;
esac
best=$(awk -F, 'NR > 1 && $6 > b { b = $6; n = $2 } END { printf "%.1f GFLOPS at n=%d", b, n }' "$csv")
echo "PASS $exe: right on every test shape and every sweep size; best $best (CSV: ${csv#$root/})"
