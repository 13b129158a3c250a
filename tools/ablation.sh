#!/usr/bin/env bash
# Step 10 (the tuned step) taken apart: what each of its ideas is worth on this machine.
#
#   tools/ablation.sh [--build DIR] [--sizes LIST] [--rounds N] [--reps N] [--out DIR]
#   tools/ablation.sh --report CSV [--out DIR]      the tables and figure of an earlier run
#
# Two studies per kernel of step 10 this CPU runs, one-thread runs of step 10 with some of its
# switches (`build/bin/step10_tuned --help`), pinned to the last CPU: off, step 10 with each
# idea switched off in turn; added, step 07, then step 10 with every idea off and the ideas
# switched on one by one. AVX-512 (off, added): every switch, from a 4 x 16 tile of 512-bit
# vectors; AVX2 (off_avx2, added_avx2): the 6 x 16 kernel and the switches of the loop nest
# and the packing. Each round runs the whole list (a noisy spell hurts one round of every run);
# a run's figure is its best round, from the thread's CPU time when build/bin/probe runs step
# 10, else from the wall clock. Writes OUT/ablation.csv (study,order,config,switches,n,gflops,
# gflops_median,gflops_min,gflops_wall; checked before any run, written whole by
# build/bin/write_file), prints the tables (tools/tables.py) and draws OUT/ablation.png
# (plots/plot_ablation.py). Defaults: sizes 500,1000,1500 (up to 46340, kMaxSize), 3 rounds,
# 3 repetitions, OUT = results/.
# Exit 77 on a CPU that runs neither the AVX-512 nor the AVX2 kernel, 2 on a bad option or
# without python3, 3 when OUT or OUT/ablation.csv cannot be written (one line), 1 when a run
# fails, 130 when Ctrl-C (or a run that exited 130) cut it short: at once, one line naming the
# stage, no CSV written (SIGTERM: the same, then it ends by SIGTERM).
set -euo pipefail

source "$(dirname "$0")/args.sh"
begin "$0" "$@"
build="$root/build" sizes="500,1000,1500" rounds=3 reps=3 out="$root/results" report=""
parse_options "" "build sizes rounds reps out report" 0 "$@"
[[ -z $report || ( -r $report && -f $report ) ]] || usage_error "--report '$report': no such readable file"
check_sizes --sizes "$sizes"
check_count --rounds "$rounds" 9999
check_count --reps "$reps" 9999
# A name that begins with a dash would be an option to mkdir, awk and the plot script.
[[ $out == -* ]] && out=./$out
[[ $report == -* ]] && report=./$report
writable_folder "$out"
stage="the set-up"
catch_signals
python=$(command -v python3) || usage_error "needs python3 (the statistics and tables, tools/tables.py)"

# report CSV: both tables (tools/tables.py checks the whole CSV first) and the figure.
report() {
  TABLES_PROG=$prog "$python" "$root/tools/tables.py" ablation-report "$1" || { stop_if_interrupted $?; exit 2; }
  local drawer="" candidate
  for candidate in /usr/bin/python3 python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c "import matplotlib" 2>/dev/null; then drawer=$candidate; break; fi
  done
  if [[ -z $drawer ]]; then
    echo "ablation.sh: no python3 with matplotlib here: no figure (the CSV and the tables are complete)" >&2
    return 0
  fi
  stage="the figure"
  "$drawer" "$root/plots/plot_ablation.py" "$1" --title "Step 10 taken apart on $(
    "$build/bin/cpuinfo" --uarch 2>/dev/null || echo "this CPU")" -o "$out/ablation.png" && echo "figure: $out/ablation.png" ||
    { rc=$?; stop_if_interrupted "$rc"; return "$rc"; }
}
[[ -z $report ]] || { report "$report"; exit; }

# The runner: build/bin/probe (the thread's CPU time) when it runs step 10, else the steps.
probe="$build/bin/probe" exe10="$build/bin/step10_tuned"
[[ -x $exe10 ]] || usage_error "$exe10 not built (cmake --build $build)"
find_writer "$build"
check_out "$out/ablation.csv"   # before any run, not at the end
clock="wall clock" runner=exe rc=0
stage="the check of the runners"
OMP_NUM_THREADS=1 "$probe" 10 --sizes 16 --reps 1 >/dev/null 2>&1 || rc=$?
stop_if_interrupted "$rc"
[[ -x $probe && $rc == 0 ]] && { clock="CPU time"; runner=probe; }
command_of() {   # the command line of a run of step $1 (7 or 10) on one thread
  if [[ $runner == probe ]]; then echo "$probe $1"
  elif [[ $1 == 7 ]]; then echo "$build/bin/step07_packing --threads 1"
  else echo "$exe10 --threads 1"; fi
}
kernels=()
for kernel in avx512 avx2; do
  rc=0
  "$exe10" --threads 1 --kernel "$kernel" --sizes 16 --reps 1 >/dev/null 2>&1 || rc=$?
  stop_if_interrupted "$rc"
  case $rc in
    0) kernels+=("$kernel") ;;
    77) ;;
    *) echo "ablation.sh: $exe10 --kernel $kernel failed (exit $rc)" >&2; exit 1 ;;
  esac
done
[[ ${#kernels[@]} -gt 0 ]] || { echo "ablation.sh: skipped: neither of step 10's x86 kernels (avx512, avx2) runs on this CPU" >&2; exit 77; }
[[ " ${kernels[*]} " == *" avx512 "* ]] || echo "ablation.sh: no AVX-512 here: the AVX2 kernel's switches only"
drop() {   # the switches of $1 without the ones named in $2 (space separated)
  local s=$1 name
  for name in $2; do s=$(sed -E "s/--$name [0-9]+ ?//" <<< "$s"); done
  echo "${s% }"
}
# Runs as study|label|step and options. off STUDY KERNEL IDEA...: step 10, then each IDEA
# (label|switches) off alone. added STUDY KERNEL ALL_OFF IDEA...: step 07, step 10 with
# ALL_OFF, then each IDEA (label|the switch names it drops) on in turn.
runs=()
off() {
  local study=$1 k=$2 idea; shift 2
  runs+=("$study|step 10${k:+ (avx2)}|10 --kernel ${k:-avx512}")
  for idea; do runs+=("$study|${idea%%|*}|10 --kernel ${k:-avx512} ${idea#*|}"); done
}
added() {
  local study=$1 k="--kernel $2" now=$3 idea last; shift 3
  runs+=("$study|step 07 (SSE 4 x 4)|7" "$study|${1%%|*}|10 $k $now"); shift
  for idea; do
    now=$(drop "$now" "${idea#*|}") last=${idea%%|*}
    runs+=("$study|$last|10 $k${now:+ $now}")
  done
}
if [[ " ${kernels[*]} " == *" avx512 "* ]]; then
  off off "" "no unpacked small matrices|--no-direct 1" "plain packing loops|--no-vector-pack 1" \
    "k slices not equal|--no-even-k 1" "step 07's block rules|--old-blocks 1" "no prefetch (C, next B)|--no-prefetch 1" \
    "B packed in its own pass|--no-copy-b 1" "masked zmm edge strips|--no-strips 1" \
    "narrow last columns in tiles|--no-narrow 1" "mul + add (no FMA)|--no-fma 1" "broadcast not folded|--fold 2" \
    "4 x 16 register tile|--tile-rows 4 --tile-cols 16"
  runs+=("off|AVX2 6 x 16 kernel|10 --kernel avx2")
  added added avx512 "--no-direct 1 --no-vector-pack 1 --no-copy-b 1 --no-even-k 1 --old-blocks 1 --no-prefetch 1 --no-strips 1 --no-fma 1 --fold 2 --tile-rows 4 --tile-cols 16" \
    "everything off: 4 x 16 zmm tile|" "+ FMA|no-fma" "+ folded broadcast|fold" "+ 14 x 32 tile|tile-rows tile-cols" \
    "+ step 10's block rules|old-blocks" "+ equal k slices|no-even-k" "+ prefetch (C, next B)|no-prefetch" \
    "+ vector packing|no-vector-pack" "+ B packed in the kernel calls|no-copy-b" "+ ymm edge strips|no-strips" \
    "+ unpacked small matrices = step 10|no-direct"
fi
if [[ " ${kernels[*]} " == *" avx2 "* ]]; then   # the switches of the loop nest and the packing
  off off_avx2 avx2 "no unpacked small matrices|--no-direct 1" "plain packing loops|--no-vector-pack 1" \
    "k slices not equal|--no-even-k 1" "step 07's block rules|--old-blocks 1" "B packed in its own pass|--no-copy-b 1"
  added added_avx2 avx2 "--no-direct 1 --no-vector-pack 1 --no-copy-b 1 --no-even-k 1 --old-blocks 1" \
    "everything off: AVX2 6 x 16 tile|" "+ step 10's block rules|old-blocks" "+ equal k slices|no-even-k" \
    "+ vector packing|no-vector-pack" "+ B packed in the kernel calls|no-copy-b" \
    "+ unpacked small matrices = step 10 (avx2)|no-direct"
fi

cpu=$(($(usable_cpus) - 1))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "ablation.sh: ${#runs[@]} runs x $rounds rounds at n = $sizes, kernels ${kernels[*]}, one thread pinned to CPU $cpu ($(
  "$build/bin/cpuinfo" --uarch)), GFLOPS from the $clock"
stage="the runs"
for ((r = 1; r <= rounds; ++r)); do
  for i in "${!runs[@]}"; do
    IFS='|' read -r study label args <<< "${runs[$i]}"
    command=$(command_of "${args%% *}")
    # shellcheck disable=SC2086  # command and args are lists of words
    OMP_NUM_THREADS=1 taskset -c "$cpu" $command ${args#"${args%% *}"} --sizes "$sizes" --reps "$reps" \
      --csv "$tmp/$i.$r.csv" >/dev/null 2>"$tmp/stderr" ||
      run_failed $? "'$label' failed ($command${args#"${args%% *}"}):" "$tmp/stderr"
  done
  echo "  round $r of $rounds done"
done

# One row per run and size (tools/tables.py), made whole, then written.
table=$(printf '%s\n' "${runs[@]}" | "$python" "$root/tools/tables.py" ablation-csv "$tmp") ||
  run_failed $? "the runs' CSVs cannot be read"
stage="the tables"
printf '%s\n' "$table" | write_out "$out/ablation.csv"

report "$out/ablation.csv"
echo "(best of $rounds rounds of the best of $reps repetitions, $clock; medians in $out/ablation.csv)"
nc=$("$exe10" --help | sed -n 's/.*--nc N.*(here: \([0-9]*\);.*/\1/p')
echo "The NC loop has no switch: with nc = $nc here, every size up to $nc is one B panel, so it changes nothing above."
