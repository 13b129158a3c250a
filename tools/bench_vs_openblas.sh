#!/usr/bin/env bash
# Step 10 (the tuned step) side by side with OpenBLAS and BLIS, each running its best kernels
# for this CPU (`build/bin/ref_openblas --kernels`), and the lessons beside it.
#
#   tools/bench_vs_openblas.sh [--build DIR] [--reps N] [--rounds N] [--sizes LIST] [--peak CSV] [--rt] [--busy]
#
# Table 1, one thread: OpenBLAS, BLIS, step 10 --threads 1, the ratios, % of the one-core
# peak, and step 08 (the lesson); then step 10 --kernel avx2 against OpenBLAS's and BLIS's own
# AVX2 kernels (OPENBLAS_CORETYPE=Haswell, BLIS_ARCH_TYPE=haswell). Table 2, all usable CPUs:
# the same with step 09 as the lesson, and the ceiling: one one-thread copy of step 10 pinned
# to each CPU, all at once, their GFLOPS summed (tools/side_by_side.sh).
# --busy adds table 3: a spin loop holds CPU 0 while step 10 runs 20 times on every thread and
# each library 5 times, at n = 100, 200, 400, 1000 (3 reps each, never real-time): step 10's
# worst run over each library's median run.
# Every contender is sampled side by side by tools/interleave.py (docs/contracts.md, "Sampled
# runs"): --rounds rounds (default 3), more samples where they disagree, the sizes still
# unsettled named above the tables. A sample is up to --reps calls (20 x --reps below 512)
# within 0.05 x --reps seconds; a figure is a contender's best sample, "median of rounds" the
# median of each round's own ratio. % of peak: the fp32 peak of the widest ISA build/bin/peak
# measures before and after (--peak CSV: a file peak --csv wrote). Default sizes:
# 128,256,512,1024,1536,2048. --rt runs every contender at real-time priority (chrt -f 1).
# Exit 2 on a bad option, 1 when a run fails, 130 when Ctrl-C (or a run that exited 130) cut it
# short: at once, one line naming the stage (SIGTERM: the same, then it ends by SIGTERM).
set -euo pipefail

source "$(dirname "$0")/args.sh"
begin "$0" "$@"
build="$root/build" reps=5 rounds=3 peak="" sizes="128,256,512,1024,1536,2048" rt="" busy=0
parse_options "rt busy" "build reps rounds sizes peak" 0 "$@"
if [[ $rt == 1 ]]; then rt=(chrt -f 1); else rt=(); fi
check_sizes --sizes "$sizes"
# Checked before any arithmetic: $((reps * 20)) would run a command substitution in --reps.
check_count --reps "$reps" 999999
check_count --rounds "$rounds" 999999
if [[ -n $peak ]]; then
  [[ -f $peak && -r $peak ]] || usage_error "--peak '$peak': no such file"
  head -n 1 -- "$peak" | grep -q '^isa,precision,threads,gflops' ||
    usage_error "--peak '$peak': not a peak CSV (isa,precision,threads,gflops)"
fi
if [[ ${#rt[@]} -gt 0 ]] && ! chrt -f 1 true 2>/dev/null; then
  usage_error "--rt: chrt -f 1 is not allowed here (real-time priority needs root or CAP_SYS_NICE)"
fi
bin="$build/bin"
for exe in ref_openblas step08_avx512_14x32 step09_openmp step10_tuned peak cpuinfo; do
  [[ -x "$bin/$exe" ]] || usage_error "$bin/$exe not built (cmake --build $build)"
done
have_blis=0; [[ -x "$bin/ref_blis" ]] && have_blis=1
ncpu=$(usable_cpus)
cpu1=$((ncpu - 1)) cpuall=0-$((ncpu - 1))   # one thread: the last CPU; all threads: every CPU
tmp=$(mktemp -d)
spinner=""
trap '[[ -n $spinner ]] && kill "$spinner" 2>/dev/null; rm -rf "$tmp"' EXIT
stage="the set-up"
catch_signals

clean_env=(env -u OMP_PROC_BIND -u OMP_PLACES -u OPENBLAS_CORETYPE -u BLIS_ARCH_TYPE)
# wrap THREADS BIND [ENV=VALUE ...] -- CMD...: $wrapped, CMD in the clean environment with ENV,
# OpenMP bound one per core when BIND is 1 (not the libraries' pools), --rt, taskset.
wrap() {
  local threads=$1 bind=() envs=() cpus=$cpu1
  [[ $2 == 1 ]] && bind=(OMP_PROC_BIND=close OMP_PLACES=cores)
  shift 2
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done; shift
  [[ $threads -gt 1 ]] && cpus=$cpuall
  wrapped=("${clean_env[@]}" "${bind[@]}" "${envs[@]}" OMP_NUM_THREADS="$threads" "${rt[@]}" taskset -c "$cpus" "$@")
}
# run LABEL THREADS SIZE [ENV=VALUE ...] -- CMD...: a run of the busy table (busy/LABEL.SIZE.ROUND.csv),
# never real-time (wrap sees this empty rt)
run() {
  local label=$1 threads=$2 size=$3 rt=()
  wrap "$threads" 0 "${@:4}"
  "${wrapped[@]}" --sizes "$size" --reps 3 --threads "$threads" --csv "$tmp/busy/$label.$size.$r.csv" >/dev/null 2>"$tmp/stderr" ||
    run_failed $? "$label at $size failed:" "$tmp/stderr"
}
# job LABEL THREADS [ENV=VALUE ...] -- CMD...: a contender for tools/interleave.py (libraries: --ref).
jobs=()
job() {   # (BLIS's jobs only where it is built)
  local label=$1 bind=1 kind=--job
  [[ $label != blis* || $have_blis == 1 ]] || return 0
  [[ $label == openblas* || $label == blis* ]] && bind=0 kind=--ref
  wrap "$2" "$bind" "${@:3}"
  jobs+=("$kind" "$label=$(printf '%q ' "${wrapped[@]}")--threads $2")
}
# ceiling LABEL -- CMD...: one one-thread copy of CMD on each CPU, all at once (tools/side_by_side.sh).
ceiling() {
  local label=$1; shift 2
  jobs+=(--job "$label=$(printf '%q ' "${clean_env[@]}" "${rt[@]}" "$root/tools/side_by_side.sh" --build "$build" "$ncpu" "$@")")
}

job openblas1 1 -- "$bin/ref_openblas"
job blis1 1 -- "$bin/ref_blis"
job step10 1 -- "$bin/step10_tuned"
job step08 1 -- "$bin/step08_avx512_14x32"
job openblas_avx2 1 OPENBLAS_CORETYPE=Haswell -- "$bin/ref_openblas"
job step10_avx2 1 -- "$bin/step10_tuned" --kernel avx2
job blis_avx2 1 BLIS_ARCH_TYPE=haswell -- "$bin/ref_blis"
if [[ $ncpu -ge 2 ]]; then
  job openblasN "$ncpu" -- "$bin/ref_openblas"
  job blisN "$ncpu" -- "$bin/ref_blis"
  job step10N "$ncpu" -- "$bin/step10_tuned"
  job step09 "$ncpu" -- "$bin/step09_openmp"
  job openblas_avx2N "$ncpu" OPENBLAS_CORETYPE=Haswell -- "$bin/ref_openblas"
  job blis_avx2N "$ncpu" BLIS_ARCH_TYPE=haswell -- "$bin/ref_blis"
  job step10_avx2N "$ncpu" -- "$bin/step10_tuned" --kernel avx2
  ceiling step10_ceiling -- "$bin/step10_tuned"
  ceiling step10_avx2_ceiling -- "$bin/step10_tuned" --kernel avx2
fi

measure_peak() {   # before and after the sampling (the tables take the best), unless given
  "${rt[@]}" "$bin/peak" --seconds 0.1 --reps 3 --csv "$tmp/peak.$1.csv" >/dev/null 2>"$tmp/stderr" ||
    run_failed $? "peak failed:" "$tmp/stderr"
}
stage="the peak"
[[ -n $peak ]] || measure_peak before
stage="the sampling"
python=$(command -v python3) || usage_error "needs python3 (the sampler, tools/interleave.py)"
"$python" "$root/tools/interleave.py" --out "$tmp/sampled" --sizes "$sizes" --rounds "$rounds" \
  --max-reps $((reps * 20)) --sample-time "$(awk -v r="$reps" 'BEGIN { print 0.05 * r }')" "${jobs[@]}" \
  > "$tmp/sampled.log" 2> "$tmp/sampled.err" || run_failed $? "a run failed:" "$tmp/sampled.err"
stage="the peak's second measurement"
[[ -n $peak ]] || measure_peak after
stage="the tables"
unsettled=$(sed -n '/^   unsettled/,$p' "$tmp/sampled.log")

# Table 3 (--busy): each run one result, under the same spin loop on CPU 0.
if [[ $busy = 1 && $ncpu -ge 2 ]]; then
  stage="the busy table"
  taskset -c 0 bash -c 'while :; do :; done' & spinner=$!
  mkdir "$tmp/busy"
  for size in 100 200 400 1000; do
    for ((r = 0; r < 20; ++r)); do
      if ((r % 4 == 0)); then
        run openblasN "$ncpu" "$size" -- "$bin/ref_openblas"
        if [[ $have_blis = 1 ]]; then run blisN "$ncpu" "$size" -- "$bin/ref_blis"; fi
      fi
      run step10N "$ncpu" "$size" -- "$bin/step10_tuned"
    done
  done
  kill "$spinner"; wait "$spinner" 2>/dev/null || true; spinner=""
  stage="the tables"
fi

echo "$(sed -n 's/^microarch *//p' < <("$bin/cpuinfo")): $ncpu CPUs; sampled side by side, $rounds round(s) and more where samples disagree, each sample up to $reps calls (x20 below 512)${rt:+, at real-time priority}; GFLOPS, the best sample"
[[ -z $unsettled ]] || printf '%s\n' "$unsettled"
# The tables (tools/tables.py; the ratios paired as summary.md takes them, plots/samples.py).
peak_files=("$tmp"/peak.*.csv)
[[ -n $peak ]] && peak_files=("$peak")
[[ -f ${peak_files[0]} ]] || peak_files=()
busy_dir=(); [[ -d $tmp/busy ]] && busy_dir=(--busy "$tmp/busy")
"$python" "$root/tools/tables.py" bench "$tmp/sampled/samples" "$ncpu" "$sizes" "$have_blis" "${busy_dir[@]}" "${peak_files[@]}" ||
  run_failed $? "cannot read the samples"
