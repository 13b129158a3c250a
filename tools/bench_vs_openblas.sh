#!/usr/bin/env bash
# Steps 08 and 09 side by side with OpenBLAS on this machine: the ratios of issue 4 in one table.
#
#   tools/bench_vs_openblas.sh [--build DIR] [--reps N] [--rounds N] [--peak CSV]
#
# Every size is run by OpenBLAS and by our kernel one right after the other (so a noisy
# neighbour hurts both alike), pinned, best of --reps timed repetitions; --rounds repeats the
# whole thing and keeps the best of each. One thread runs on the last CPU (taskset), two
# threads on the last two, ours with OMP_PROC_BIND=close OMP_PLACES=cores. Sizes below 512
# run 20 x --reps: one product takes microseconds there, and a best of 5 is mostly noise.
# % of peak is against the fp32 peak that build/bin/peak measures in each round, in the
# same session (best of the rounds, like every other figure); --peak CSV uses a file
# written by peak --csv instead.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
prog=bench_vs_openblas.sh
source "$root/tools/args.sh"
if wants_help "$@"; then sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
build="$root/build"
reps=5
rounds=1
peak_csv=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) build=$(value_of "$1" "${2-}") || exit 2; shift 2 ;;
    --reps) reps=$(value_of "$1" "${2-}") || exit 2; shift 2 ;;
    --rounds) rounds=$(value_of "$1" "${2-}") || exit 2; shift 2 ;;
    --peak) peak_csv=$(value_of "$1" "${2-}") || exit 2; shift 2 ;;
    *) usage_error "unknown option '$1' (see --help)" ;;
  esac
done
# Checked before any arithmetic: $((reps * 20)) would run a command substitution in --reps.
check_count --reps "$reps" 10000
check_count --rounds "$rounds" 100
if [[ -n $peak_csv ]]; then
  [[ -f $peak_csv && -r $peak_csv ]] || usage_error "--peak '$peak_csv': no such file"
  head -n 1 "$peak_csv" | grep -q '^isa,precision,threads,gflops' ||
    usage_error "--peak '$peak_csv': not a peak CSV (isa,precision,threads,gflops)"
fi

bin="$build/bin"
for exe in ref_openblas step08_avx512_14x32 step09_openmp peak; do
  [[ -x "$bin/$exe" ]] || { echo "bench_vs_openblas.sh: $bin/$exe not built" >&2; exit 2; }
done

ncpu=$(nproc)
cpu1=$((ncpu - 1))                                  # one thread: the last CPU
cpu2=$((ncpu >= 2 ? ncpu - 2 : 0)),$cpu1            # two threads: the last two
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run LABEL THREADS SIZE CMD...: append "label size gflops_best" to $tmp/results
run() {
  local label=$1 threads=$2 size=$3; shift 3
  local cpus=$cpu1
  [[ $threads -gt 1 ]] && cpus=$cpu2
  local csv="$tmp/$label.$size.csv" size_reps=$reps
  [[ $size -lt 512 ]] && size_reps=$((reps * 20))
  # OMP_PROC_BIND pins OpenMP's threads, one per place. Not for OpenBLAS: its threads are
  # its own (pthreads) and would inherit the binding of the program's first OpenMP thread,
  # one core for all of them.
  local bind=(env OMP_PROC_BIND=close OMP_PLACES=cores)
  [[ $label == openblas* ]] && bind=(env -u OMP_PROC_BIND -u OMP_PLACES)
  "${bind[@]}" OMP_NUM_THREADS="$threads" \
    taskset -c "$cpus" "$@" --sizes "$size" --reps "$size_reps" --threads "$threads" --csv "$csv" \
    >/dev/null 2>"$tmp/stderr" || { echo "bench_vs_openblas.sh: $label at $size failed:" >&2
                                      cat "$tmp/stderr" >&2; exit 1; }
  awk -F, -v label="$label" -v size="$size" '
    NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
    { print label, size, $col["gflops_best"] }' "$csv" >>"$tmp/results"
}

for ((r = 0; r < rounds; ++r)); do
  if [[ -z $peak_csv ]]; then   # the ceiling, measured between the same neighbours
    "$bin/peak" --seconds 0.1 --reps 3 --csv "$tmp/peak.$r.csv" >/dev/null 2>"$tmp/stderr" ||
      { echo "bench_vs_openblas.sh: peak failed:" >&2; cat "$tmp/stderr" >&2; exit 1; }
  fi
  for size in 100 200 300 512 1024 1536; do
    run openblas1 1 "$size" "$bin/ref_openblas"
    run avx512 1 "$size" "$bin/step08_avx512_14x32" --kernel avx512
    run avx2 1 "$size" "$bin/step08_avx512_14x32" --kernel avx2
  done
  if [[ $ncpu -ge 2 ]]; then
    for size in 512 1024 1536; do
      run openblas2 2 "$size" "$bin/ref_openblas"
      run step09 2 "$size" "$bin/step09_openmp"
    done
  fi
done

peak1="" peak2=""
peak_files=("$tmp"/peak.*.csv)
[[ -n $peak_csv ]] && peak_files=("$peak_csv")
if [[ -f ${peak_files[0]} ]]; then
  # The AVX-512 fp32 peak when measured, else the best fp32 figure, per thread count.
  read -r peak1 peak2 < <(awk -F, '
    FNR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
    $col["precision"] == "fp32" {
      t = $col["threads"]; g = $col["gflops"]
      if ($col["isa"] == "avx512" && g > best512[t]) best512[t] = g
      if (g > best[t]) best[t] = g
    }
    END { for (t = 1; t <= 2; ++t) { p[t] = (t in best512) ? best512[t] : best[t]; if (p[t] == "") p[t] = "-" }
          print p[1], p[2] }' "${peak_files[@]}")
fi

awk -v cpus2="$cpu2" -v peak1="${peak1:--}" -v peak2="${peak2:--}" -v reps="$reps" -v rounds="$rounds" '
  { if (!(($1, $2) in g) || $3 > g[$1, $2]) g[$1, $2] = $3 }
  function pct(x, p) { return (p == "-" || p == 0) ? "-" : sprintf("%.0f%%", 100 * x / p) }
  END {
    printf "step 08, 1 thread, best of %d reps (%d below 512) x %d rounds (GFLOPS; ratio = ours / OpenBLAS)\n", reps, 20 * reps, rounds
    printf "%6s %10s %10s %7s %7s %10s %7s\n", "size", "OpenBLAS", "avx512", "ratio", "%peak", "avx2", "ratio"
    n = split("100 200 300 512 1024 1536", sizes, " ")
    for (i = 1; i <= n; ++i) {
      s = sizes[i]; o = g["openblas1", s]; a = g["avx512", s]; v = g["avx2", s]
      printf "%6d %10.1f %10.1f %6.2fx %7s %10.1f %6.2fx\n", s, o, a, a / o, pct(a, peak1), v, v / o
      if (s >= 512) { so += o; sa += a; sv += v; ra += a / o; rv += v / o; big++ }
      else if (a / o < small_min || small_min == "") small_min = a / o
      if (v / o < avx2_min || avx2_min == "") avx2_min = v / o
    }
    printf "%6s %10.1f %10.1f %6.2fx %7s %10.1f %6.2fx\n", "mean*", so / big, sa / big, ra / big,
           pct(sa / big, peak1), sv / big, rv / big
    printf "  * mean over 512, 1024, 1536 (ratio column: mean of the ratios)\n"
    printf "  avx512 at 100-300: worst ratio %.2fx (goal >= 0.85x); avx2 worst ratio %.2fx (goal >= 0.90x)\n",
           small_min, avx2_min
    printf "  avx512 mean ratio %.2fx (goal >= 1.00x, beyond 1.05x)", ra / big
    if (peak1 != "-") printf "; %% of the 1-thread fp32 peak (%.1f GFLOPS) at 1024 and 1536: %s, %s (goal >= 90%%)", peak1, pct(g["avx512", 1024], peak1), pct(g["avx512", 1536], peak1)
    printf "\n"
    if (("openblas2", 512) in g) {
      printf "\nstep 09, 2 threads (taskset -c %s; step 09 with OMP_PROC_BIND=close OMP_PLACES=cores)\n", cpus2
      printf "%6s %10s %10s %7s %7s\n", "size", "OpenBLAS", "step09", "ratio", "%peak"
      split("512 1024 1536", big_sizes, " ")
      for (i = 1; i <= 3; ++i) {
        s = big_sizes[i]; o = g["openblas2", s]; a = g["step09", s]
        printf "%6d %10.1f %10.1f %6.2fx %7s\n", s, o, a, a / o, pct(a, peak2)
      }
      printf "  goals: >= 1.00x at 1024 and 1536, >= 0.90x at 512\n"
    }
  }' "$tmp/results"
