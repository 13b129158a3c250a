#!/usr/bin/env bash
# Step 08 taken apart: what each of its ideas is worth on this machine.
#
#   tools/ablation.sh [--build DIR] [--sizes LIST] [--rounds N] [--reps N] [--out DIR]
#   tools/ablation.sh --report CSV [--out DIR]      the tables and figure of an earlier run
#
# Two studies, each a list of runs of build/bin/probe (step 08 with some of its switches,
# see `build/bin/step08_avx512_14x32 --help`), pinned to the last CPU:
#   off:    step 08 as it is, then with each idea switched off in turn (the others on);
#   added:  step 07, then step 08 with every idea off (a 4 x 16 tile of 512-bit vectors in
#           step 07's loops), then the ideas switched on one by one until it is step 08.
# The rounds run the whole list one after the other (a noisy spell hurts one round of every
# run, not one run). GFLOPS come from the thread's CPU time, so that time the core spent on
# other work does not count; a run's figure is its best round (other work sharing the core
# can only slow a run down, as with run_all.sh --rounds), and the CSV keeps the median and
# the lowest round too. Writes OUT/ablation.csv
# (study,order,config,switches,n,gflops,gflops_median,gflops_min,gflops_wall), prints both
# tables in markdown and draws OUT/ablation.png (plots/plot_ablation.py).
# Defaults: sizes 500,1000,1500, 3 rounds, 3 repetitions, OUT = results/. About 3 minutes on
# the 2-core reference machine. Needs AVX-512 (the switches are the AVX-512 kernel's); exit
# 77 without it, 2 on a bad option, 1 when a run fails.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build" sizes="500,1000,1500" rounds=3 reps=3 out="$root/results" report=""
usage() { echo "ablation.sh: $*" >&2; exit 2; }
whole() { [[ $2 =~ ^[1-9][0-9]{0,3}$ ]] || usage "$1 '$2': not a whole number from 1 to 9999"; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build|--sizes|--rounds|--reps|--out|--report) [[ $# -ge 2 && $2 != --* ]] || usage "$1 needs a value" ;;&
    --report) [[ -r $2 ]] || usage "--report '$2': no such readable file"; report=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --sizes) [[ $2 =~ ^[1-9][0-9]{0,4}(,[1-9][0-9]{0,4})*$ ]] || usage "--sizes '$2': not a list of sizes such as 500,1000"
             sizes=$2; shift 2 ;;
    --rounds) whole "$1" "$2"; rounds=$2; shift 2 ;;
    --reps) whole "$1" "$2"; reps=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage "unknown option '$1' (see --help)" ;;
  esac
done

mkdir -p "$out" || usage "--out '$out': cannot create it"
[[ -w $out ]] || usage "--out '$out': not writable"

# report CSV: both tables and the figure.
report() {
  local csv=$1
  awk -F, '
    NR == 1 { if ($6 != "gflops") { print "ablation.sh: " FILENAME ": not an ablation CSV" > "/dev/stderr"; exit 2 }; next }
    { if (!($5 in seen_n)) { seen_n[$5] = 1; ns[++nn] = $5 }
      if (!(($1, $2) in seen)) { seen[$1, $2] = 1; order[$1, ++count[$1]] = $2; label[$1, $2] = $3 }
      g[$1, $2, $5] = $6 }
    function table(study, title, against,   i, s, o, p, line, head, rule) {
      head = "| " title " |"; rule = "|---|"
      for (s = 1; s <= nn; ++s) { head = head " n = " ns[s] " |"; rule = rule "---|" }
      print head; print rule
      for (i = 1; i <= count[study]; ++i) {
        o = order[study, i]; p = against == "first" ? order[study, 1] : order[study, i > 1 ? i - 1 : 1]
        line = "| " label[study, o] " |"
        for (s = 1; s <= nn; ++s) {
          line = line sprintf(" %.1f", g[study, o, ns[s]])
          if (i > 1 && g[study, p, ns[s]] > 0) line = line sprintf(" (%+.0f %%)", 100 * (g[study, o, ns[s]] / g[study, p, ns[s]] - 1))
          line = line " |" }
        print line }
      print "" }
    END { table("off", "step 08 with one idea off (GFLOPS, vs step 08)", "first")
          table("added", "ideas added one by one (GFLOPS, vs the row above)", "previous") }' "$csv" || exit 2
  local python=""
  for candidate in /usr/bin/python3 python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c "import matplotlib" 2>/dev/null; then python=$candidate; break; fi
  done
  if [[ -n $python ]]; then
    "$python" "$root/plots/plot_ablation.py" "$csv" --title "Step 08 taken apart on $(
      "$build/bin/cpuinfo" --uarch 2>/dev/null || echo "this CPU")" -o "$out/ablation.png" && echo "figure: $out/ablation.png"
  else
    echo "ablation.sh: no python3 with matplotlib here: no figure (the CSV and the tables are complete)" >&2
  fi
}
if [[ -n $report ]]; then
  report "$report"
  exit
fi

probe="$build/bin/probe"
[[ -x $probe ]] || usage "$probe not built (cmake --build $build)"
rc=0
"$probe" 8 --kernel avx512 --sizes 16 --reps 1 >/dev/null 2>&1 || rc=$?
[[ $rc == 77 ]] && { echo "ablation.sh: skipped: step 08's avx512 kernel does not run on this CPU" >&2; exit 77; }
[[ $rc == 0 ]] || { echo "ablation.sh: $probe 8 failed (exit $rc)" >&2; exit 1; }
# study|label|arguments to probe (after the step number)
all_off="--no-direct 1 --no-vector-pack 1 --no-copy-b 1 --no-even-k 1 --old-blocks 1 --no-prefetch 1 --no-strips 1 --no-fma 1 --no-fold 1 --tile-rows 4 --tile-cols 16"
drop() {   # the switches of $1 without the ones named in $2 (space separated)
  local s=$1 name
  for name in $2; do s=$(sed -E "s/--$name [0-9]+ ?//" <<< "$s"); done
  echo "$s"
}
runs=(
  "off|step 08|8"
  "off|no unpacked small matrices|8 --no-direct 1"
  "off|plain packing loops|8 --no-vector-pack 1"
  "off|k slices not equal|8 --no-even-k 1"
  "off|step 07's block rules|8 --old-blocks 1"
  "off|no prefetch (C, next B)|8 --no-prefetch 1"
  "off|B packed in its own pass|8 --no-copy-b 1"
  "off|masked zmm edge strips|8 --no-strips 1"
  "off|narrow last columns in tiles|8 --no-narrow 1"
  "off|mul + add (no FMA)|8 --no-fma 1"
  "off|broadcast not folded|8 --no-fold 1"
  "off|4 x 16 register tile|8 --tile-rows 4 --tile-cols 16"
  "off|AVX2 6 x 16 kernel|8 --kernel avx2"
  "added|step 07 (SSE 4 x 4)|7"
  "added|everything off: 4 x 16 zmm tile|8 $all_off"
  "added|+ FMA|8 $(drop "$all_off" "no-fma")"
  "added|+ folded broadcast|8 $(drop "$all_off" "no-fma no-fold")"
  "added|+ 14 x 32 tile|8 $(drop "$all_off" "no-fma no-fold tile-rows tile-cols")"
  "added|+ step 08's block rules|8 $(drop "$all_off" "no-fma no-fold tile-rows tile-cols old-blocks")"
  "added|+ equal k slices|8 $(drop "$all_off" "no-fma no-fold tile-rows tile-cols old-blocks no-even-k")"
  "added|+ prefetch (C, next B)|8 $(drop "$all_off" "no-fma no-fold tile-rows tile-cols old-blocks no-even-k no-prefetch")"
  "added|+ vector packing|8 $(drop "$all_off" "no-fma no-fold tile-rows tile-cols old-blocks no-even-k no-prefetch no-vector-pack")"
  "added|+ B packed in the kernel calls|8 $(drop "$all_off" "no-fma no-fold tile-rows tile-cols old-blocks no-even-k no-prefetch no-vector-pack no-copy-b")"
  "added|+ ymm edge strips|8 --no-direct 1"
  "added|+ unpacked small matrices = step 08|8"
)

cpu=$(($(nproc) - 1))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "ablation.sh: ${#runs[@]} runs x $rounds rounds at n = $sizes, pinned to CPU $cpu ($(
  "$build/bin/cpuinfo" --uarch))"
for ((r = 1; r <= rounds; ++r)); do
  for i in "${!runs[@]}"; do
    IFS='|' read -r study label args <<< "${runs[$i]}"
    # shellcheck disable=SC2086  # args is a list of options
    taskset -c "$cpu" "$probe" $args --sizes "$sizes" --reps "$reps" --csv "$tmp/$i.$r.csv" \
      >/dev/null 2>"$tmp/stderr" || { echo "ablation.sh: '$label' failed (probe $args):" >&2
                                       cat "$tmp/stderr" >&2; exit 1; }
  done
  echo "  round $r of $rounds done"
done

# One row per run and size: the best, median and lowest round of the CPU-time best
# repetition, and the best round of the wall clock.
{
  echo "study,order,config,switches,n,gflops,gflops_median,gflops_min,gflops_wall"
  for i in "${!runs[@]}"; do
    IFS='|' read -r study label args <<< "${runs[$i]}"
    cat "$tmp/$i".*.csv | awk -F, -v study="$study" -v order="$i" -v label="$label" -v args="${args#* }" '
      $1 == "step" { next }
      { key = $2; cpu[key] = cpu[key] " " $7; wall[key] = wall[key] " " $9; if (!(key in seen)) { seen[key] = 1; keys[++n] = key } }
      function sorted(list, a,   c, i, j, t) { c = split(list, a, " ")
        for (i = 2; i <= c; ++i) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; --j) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return c }
      function median(a, c) { return c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2 }
      END { for (s = 1; s <= n; ++s) { k = keys[s]; c = sorted(cpu[k], a); w = sorted(wall[k], b)
              sw = args == "8" || args == "7" ? "" : args
              gsub(/,/, ";", label); gsub(/,/, ";", sw)   # one field each, whatever they say
              printf "%s,%d,%s,%s,%s,%.1f,%.1f,%.1f,%.1f\n", study, order, label, sw, k, a[c], median(a, c), a[1], b[w] } }'
  done
} > "$out/ablation.csv"

report "$out/ablation.csv"
echo "(best of $rounds rounds of the best of $reps repetitions, CPU time; medians in $out/ablation.csv)"
nc=$("$build/bin/step08_avx512_14x32" --help | sed -n 's/.*--nc N.*(here: \([0-9]*\);.*/\1/p')
echo "The NC loop has no switch: with nc = $nc here, every size up to $nc is one B panel, so it changes nothing above."

