#!/usr/bin/env bash
# tools/ablation.sh end to end on tiny sizes: every run of every study verifies (a run that
# exits non-zero fails the script), the CSV has one well-formed row per run and size (lowest
# round <= median <= best), the AVX-512 studies are there exactly when step 10's avx512 kernel
# runs and the AVX2 studies always, with only the switches that apply to the AVX2 kernel, the
# tables are printed (and again by --report), the figure is drawn when matplotlib is there,
# and bad options and malformed CSVs are refused with exit 2. Skips (77) on a CPU that runs
# neither kernel.
#   test_ablation.sh CHECKOUT BUILD_DIR
set -euo pipefail
root=${1:?usage: test_ablation.sh CHECKOUT BUILD_DIR} build=${2:?usage: test_ablation.sh CHECKOUT BUILD_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

rc=0
"$root/tools/ablation.sh" --build "$build" --sizes 16,45 --rounds 2 --reps 1 --out "$tmp" > "$tmp/out.txt" 2>&1 || rc=$?
[[ $rc == 77 ]] && { echo "skipped: $(cat "$tmp/out.txt")"; exit 77; }
[[ $rc == 0 ]] || fail "ablation.sh exited $rc: $(cat "$tmp/out.txt")"

csv="$tmp/ablation.csv"
[[ $(head -n 1 "$csv") == "study,order,config,switches,n,gflops,gflops_median,gflops_min,gflops_wall" ]] || fail "header: $(head -n 1 "$csv")"
runs=$(sed -n 's/^ablation.sh: \([0-9]*\) runs x .*/\1/p' "$tmp/out.txt")
[[ -n $runs ]] || fail "no 'N runs' line: $(head -n 3 "$tmp/out.txt")"
[[ $(($(wc -l < "$csv") - 1)) == $((runs * 2)) ]] || fail "$(($(wc -l < "$csv") - 1)) rows for $runs runs x 2 sizes"
[[ $(cut -d, -f1,2 "$csv" | sort -u | wc -l) == $((runs + 1)) ]] || fail "runs share an order number"
awk -F, 'NR > 1 && NF != 9 { print "line " NR " has " NF " fields: " $0; bad = 1 }
         NR > 1 && !($8 + 0 <= $7 + 0 && $7 + 0 <= $6 + 0 && $8 + 0 > 0) { print "line " NR ": not lowest <= median <= best round: " $0; bad = 1 }
         END { exit bad }' "$csv" || fail "malformed rows"
avx512=0
"$build/bin/step10_tuned" --threads 1 --kernel avx512 --sizes 16 --reps 1 > /dev/null 2>&1 && avx512=1
studies="off_avx2 added_avx2"
if [[ $avx512 == 1 ]]; then
  studies="off added $studies"
  grep -q "^| step 10 (avx512) with one idea off" "$tmp/out.txt" || fail "no 'off' table printed"
  grep -q "^| + unpacked small matrices = step 10 |" "$tmp/out.txt" || fail "no 'added' table ending in step 10"
  grep -q "^off,.*,--kernel avx512 --no-fma 1," "$csv" || fail "no run of the AVX-512 kernel with --no-fma"
else
  ! grep -q "^\(off\|added\)," "$csv" || fail "AVX-512 studies on a CPU whose avx512 kernel does not run"
fi
for study in $studies; do
  [[ $(grep -c "^$study," "$csv") -gt 0 ]] || fail "no rows for the study $study"
done
grep -q "^| + unpacked small matrices = step 10 (avx2) |" "$tmp/out.txt" || fail "no 'added' avx2 table ending in step 10"
# The AVX2 studies run the AVX2 kernel, and only the switches that change it.
awk -F, '$1 ~ /_avx2$/ && $4 != "" && ($4 !~ /--kernel avx2/ || $4 ~ /no-narrow|no-prefetch|no-strips|no-fma|--fold|tile-/) { print; bad = 1 }
         END { exit bad }' "$csv" || fail "an AVX2 run with another kernel or a switch of the AVX-512 kernel"
grep -q "^off_avx2,.*,--kernel avx2 --no-copy-b 1," "$csv" || fail "no run of the AVX2 kernel with --no-copy-b"
[[ $(grep -c "^off_avx2," "$csv") -ge 10 ]] || fail "the avx2 'off' study has fewer than 5 runs"
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null || python3 -c "import matplotlib" 2>/dev/null; then
  [[ -s "$tmp/ablation.png" ]] || fail "no figure drawn"
fi

# --report: the same tables from the CSV alone, without running anything.
"$root/tools/ablation.sh" --build "$build" --report "$csv" --out "$tmp/report" > "$tmp/report.txt" 2>&1 ||
  fail "--report: $(cat "$tmp/report.txt")"
diff <(grep '^|' "$tmp/out.txt") <(grep '^|' "$tmp/report.txt") > /dev/null || fail "--report printed other tables"
rc=0; "$root/tools/ablation.sh" --report "$root/README.md" --out "$tmp/report" > /dev/null 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "--report on a file that is not an ablation CSV: exit $rc, not 2"

# --report FILE whose name awk would take for an assignment (n=1.csv): the same tables.
cp "$csv" "$tmp/n=1.csv"
(cd "$tmp" && "$root/tools/ablation.sh" --build "$build" --report n=1.csv --out "$tmp/report" < /dev/null) > "$tmp/report_eq.txt" 2>&1 ||
  fail "--report n=1.csv: $(cat "$tmp/report_eq.txt")"
diff <(grep '^|' "$tmp/out.txt") <(grep '^|' "$tmp/report_eq.txt") > /dev/null || fail "--report n=1.csv printed other tables"

# OUT/ablation.csv is checked before any run and written whole by bin/write_file: a folder
# there is exit 3 and one line before anything runs; a write that fails (a file size limit
# standing in for a full disk) is exit 3 and one line, leaving the old CSV whole and no
# temporary behind.
mkdir -p "$tmp/dirout/ablation.csv"
rc=0; "$root/tools/ablation.sh" --build "$build" --sizes 16 --rounds 1 --reps 1 --out "$tmp/dirout" > "$tmp/dir.txt" 2> "$tmp/dir.err" || rc=$?
[[ $rc == 3 && $(wc -l < "$tmp/dir.err") == 1 ]] && ! grep -q "round 1 of" "$tmp/dir.txt" ||
  fail "a folder named ablation.csv: exit $rc, want 3 and one line before any run: $(cat "$tmp/dir.err")"
cp "$csv" "$tmp/old.csv"
rc=0
# Four sizes: the CSV must outgrow the 2 KiB limit on every CPU (one size's is 1.3 KiB where
# only the AVX2 kernel runs, and then the write that failed was the figure's, not the CSV's).
(trap '' XFSZ; ulimit -f 2; "$root/tools/ablation.sh" --build "$build" --sizes 16,17,18,19 --rounds 1 --reps 1 --out "$tmp") \
  > "$tmp/full.txt" 2> "$tmp/full.err" || rc=$?
[[ $rc == 3 && $(wc -l < "$tmp/full.err") == 1 ]] || fail "a failed write of ablation.csv: exit $rc, want 3 and one line: $(cat "$tmp/full.err")"
cmp -s "$csv" "$tmp/old.csv" || fail "a failed write of ablation.csv changed the old one"
! ls -A "$tmp" | grep -q '^\.ablation\.csv\.' || fail "a failed write left a temporary: $(ls -A "$tmp")"

rc=0; "$root/tools/ablation.sh" --build "$build" --rounds 0 > /dev/null 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "--rounds 0: exit $rc, not 2"
rc=0; "$root/tools/ablation.sh" --build "$build" --sizes 10,x > /dev/null 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "--sizes 10,x: exit $rc, not 2"
rc=0; "$root/tools/ablation.sh" --build "$tmp/nowhere" > /dev/null 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "--build without step10_tuned: exit $rc, not 2"
for python in /usr/bin/python3 python3; do
  if "$python" -c "import matplotlib" 2>/dev/null; then
    printf 'study,order,config,n,gflops\noff,1,a,100,not-a-number\n' > "$tmp/bad.csv"
    rc=0; "$python" "$root/plots/plot_ablation.py" "$tmp/bad.csv" -o "$tmp/bad.png" 2>/dev/null || rc=$?
    [[ $rc == 2 ]] || fail "plot_ablation.py on a malformed CSV: exit $rc, not 2"
    break
  fi
done
echo "ablation.sh: studies $studies, $runs runs, well-formed CSV and tables"
