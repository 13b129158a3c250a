#!/usr/bin/env bash
# tools/bench_vs_openblas.sh end to end on tiny sizes (nothing here is a speed): it names the
# CPU, prints the one-thread tables with a number in every cell it measured, and on two or
# more CPUs the all-core tables with the ceiling, N one-thread copies side by side, and step
# 10's ratio to it.
#   test_bench_tables.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=${1:?usage: test_bench_tables.sh SOURCE_DIR BUILD_DIR} build=${2:?usage: test_bench_tables.sh SOURCE_DIR BUILD_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; echo "--- output:" >&2; cat "$tmp/out" "$tmp/err" >&2; exit 1; }
for exe in ref_openblas step08_avx512_14x32 step09_openmp step10_tuned cpuinfo; do
  [[ -x $build/bin/$exe ]] || { echo "skipped: $build/bin/$exe not built"; exit 0; }
done
"$build/bin/step10_tuned" --threads 1 --kernel avx2 --sizes 16 --reps 1 > /dev/null 2>&1 ||
  { echo "skipped: step 10's AVX2 kernel does not run here, and the script compares it"; exit 0; }

# A peak CSV of our own, so that no peak is measured: % of peak is then against 100 and 200.
printf 'isa,precision,threads,gflops\navx2,fp32,1,100\navx2,fp32,2,200\n' > "$tmp/peak.csv"
"$src/tools/bench_vs_openblas.sh" --build "$build" --sizes 48,64 --reps 1 --peak "$tmp/peak.csv" > "$tmp/out" 2> "$tmp/err" ||
  fail "exit $?"

uarch=$("$build/bin/cpuinfo" --uarch)
head -n 1 "$tmp/out" | grep -qF "$uarch:" || fail "the first line does not name the CPU ($uarch)"
grep -q '^kernels: OpenBLAS ' "$tmp/out" || fail "no line naming the kernels that ran"

# table TITLE_START: the rows of the table whose title line starts with TITLE_START.
table() { awk -v t="$1" 'index($0, t) == 1 { on = 1; next } on && /^\| [0-9]/ { print; next } on && !/^\|/ { on = 0 }' "$tmp/out"; }
# numbers ROWS FIELD...: every named field (1 = n) of every row is a number.
numbers() {
  local rows=$1; shift
  awk -F' *\\| *' -v fields="$*" 'BEGIN { n = split(fields, f, " ") }
    { for (i = 1; i <= n; ++i) if ($(f[i] + 1) !~ /^[0-9]+(\.[0-9]+)?$/) { print "field " f[i] ": " $0; bad = 1 } }
    END { exit bad }' <<< "$rows"
}
one=$(table "Step 10 --threads 1")
[[ $(wc -l <<< "$one") == 2 ]] || fail "the one-thread table has not 2 rows"
numbers "$one" 1 2 4 5 6 || fail "the one-thread table has a missing number"
one_avx2=$(table "Step 10 --kernel avx2 against OpenBLAS (Haswell) and BLIS (haswell) AVX2 kernels, 1 thread")
[[ $(wc -l <<< "$one_avx2") == 2 ]] || fail "the one-thread AVX2 table has not 2 rows"
numbers "$one_avx2" 1 2 4 5 || fail "the one-thread AVX2 table has a missing number"
grep -q 'side by side' <<< "$(grep -A1 '^Step 10 --threads 1' "$tmp/out")" && fail "a ceiling column in a one-thread table"

ncpu=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
if [[ $ncpu -ge 2 ]]; then
  for title in "Step 10, and step 09 (the lesson), $ncpu threads" \
               "Step 10 --kernel avx2 against OpenBLAS (Haswell) and BLIS (haswell) AVX2 kernels, $ncpu threads"; do
    grep -A1 -F "$title" "$tmp/out" | grep -qF "| $ncpu x 1 thread side by side |" || fail "no ceiling column in: $title"
    rows=$(table "$title")
    [[ $(wc -l <<< "$rows") == 2 ]] || fail "not 2 rows in: $title"
    # The ceiling and the ratio are the last two cells; the ratio is step 10 (column 4) over it,
    # within what printing both to one decimal allows (a sanitizer build makes 1.6 / 5.9).
    awk -F' *\\| *' '{ c = $(NF - 2); q = $(NF - 1); a = $5
      if (c !~ /^[0-9]+\.[0-9]$/ || c <= 0.1 || q !~ /^[0-9]+\.[0-9][0-9]$/) { print "not numbers: " $0; bad = 1; next }
      lo = (a - 0.05) / (c + 0.05) - 0.005; hi = (a + 0.05) / (c - 0.05) + 0.005
      if (q < lo || q > hi) { print "ratio " q " is not " a " / " c ": " $0; bad = 1 } }
      END { exit bad }' <<< "$rows" || fail "a wrong ceiling cell in: $title"
  done
fi
echo "bench_vs_openblas.sh tables: ok ($ncpu CPUs)"
