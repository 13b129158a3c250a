#!/usr/bin/env bash
# tools/ablation.sh end to end on tiny sizes: every run of both studies verifies (probe exits
# 0 or the script fails), the CSV has one well-formed row per run and size (lowest round <=
# median <= best), the tables are printed (and again by --report), the figure is drawn when
# matplotlib is there, and bad options and malformed CSVs are refused with exit 2. Skips (77)
# on a CPU without AVX-512.
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
runs=$(grep -c '^  "\(off\|added\)|' "$root/tools/ablation.sh")
[[ $(($(wc -l < "$csv") - 1)) == $((runs * 2)) ]] || fail "$(($(wc -l < "$csv") - 1)) rows for $runs runs x 2 sizes"
awk -F, 'NR > 1 && NF != 9 { print "line " NR " has " NF " fields: " $0; bad = 1 }
         NR > 1 && !($8 + 0 <= $7 + 0 && $7 + 0 <= $6 + 0 && $8 + 0 > 0) { print "line " NR ": not lowest <= median <= best round: " $0; bad = 1 }
         END { exit bad }' "$csv" || fail "malformed rows"
for study in off added; do
  [[ $(grep -c "^$study," "$csv") -gt 0 ]] || fail "no rows for the study $study"
done
grep -q "^| step 08 with one idea off" "$tmp/out.txt" || fail "no 'off' table printed"
grep -q "^| + unpacked small matrices = step 08 |" "$tmp/out.txt" || fail "no 'added' table ending in step 08"
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null || python3 -c "import matplotlib" 2>/dev/null; then
  [[ -s "$tmp/ablation.png" ]] || fail "no figure drawn"
fi

# --report: the same tables from the CSV alone, without running anything.
"$root/tools/ablation.sh" --build "$build" --report "$csv" --out "$tmp/report" > "$tmp/report.txt" 2>&1 ||
  fail "--report: $(cat "$tmp/report.txt")"
diff <(grep '^|' "$tmp/out.txt") <(grep '^|' "$tmp/report.txt") > /dev/null || fail "--report printed other tables"
rc=0; "$root/tools/ablation.sh" --report "$root/README.md" --out "$tmp/report" > /dev/null 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "--report on a file that is not an ablation CSV: exit $rc, not 2"

rc=0; "$root/tools/ablation.sh" --build "$build" --rounds 0 > /dev/null 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "--rounds 0: exit $rc, not 2"
rc=0; "$root/tools/ablation.sh" --build "$build" --sizes 10,x > /dev/null 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "--sizes 10,x: exit $rc, not 2"
rc=0; "$root/tools/ablation.sh" --build "$tmp/nowhere" > /dev/null 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "--build without probe: exit $rc, not 2"
for python in /usr/bin/python3 python3; do
  if "$python" -c "import matplotlib" 2>/dev/null; then
    printf 'study,order,config,n,gflops\noff,1,a,100,not-a-number\n' > "$tmp/bad.csv"
    rc=0; "$python" "$root/plots/plot_ablation.py" "$tmp/bad.csv" -o "$tmp/bad.png" 2>/dev/null || rc=$?
    [[ $rc == 2 ]] || fail "plot_ablation.py on a malformed CSV: exit $rc, not 2"
    break
  fi
done
echo "ablation.sh: both studies, $runs runs, well-formed CSV and tables"
