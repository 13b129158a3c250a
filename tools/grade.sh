#!/usr/bin/env bash
# tools/grade.sh NN [options]
#
# Grades step NN (a lab step or any other) with the figures of the labs' rubric
# (docs/labs/rubric.md):
#   1. builds it and checks it on every awkward shape of the test suite (every variant this
#      CPU supports, tiny block sizes, 1-3 threads for parallel steps);
#   2. runs its sweep with verification (results/grade_stepNN_slug.csv) and checks the CSV as
#      docs/contracts.md describes it (plots/harness_csv.py check): a verified row for every size,
#      GFLOPS above 0;
#   3. times it against the step it started from and the library reference, sampled side by
#      side by tools/interleave.py, so that a noisy neighbour slows all three alike. A ratio
#      is the median over the rounds of each round's ratio of best times; the summary their
#      geometric mean over the sizes (results/grade_stepNN_slug.ratios.csv).
# The last line is the verdict, for scripts:
#   PASS step13_unroll_4x8: right on every test shape and every sweep size; 0.990x step04_unroll_4x4, 0.0412x ref_openblas (...)
#   FAIL step13_unroll_4x8: the sweep crashed with SIGSEGV
# Exit status: 0 pass; 1 the step fails: a wrong result, a crash, a run still going after
# --timeout, or an exit 0 without the CSV the contract describes; 2 usage or build error;
# 3 results/ cannot be written, or a run was out of memory; 77 this CPU cannot run it;
# 130 cut short by Ctrl-C, or a run that exited 130 (one line naming the stage, no verdict).
# Every argument is checked before anything is built. Speed is graded from the ratios, by a
# person. A previous step or reference that fails is left out of the ratios, with a note.
#
#   --build DIR     build folder (default: build)
#   --sizes LIST    sizes to sweep and time (default: 200,500,1000; each at most 46340)
#   --rounds N      timing rounds (default: 3), before more samples where they disagree
#   --against N     the step to compare with (default: the "# from:" line of the step's
#                   CMakeLists.txt, which tools/new_step.sh writes; steps 2-10: the step before)
#   --ref NAME      the library reference: openblas (default), blis, or none
#   --cpu N         pin every timed run to CPU N (taskset); default: not pinned
#   --threads N     threads for parallel steps and the reference (default: 1; at most 4 per
#                   usable CPU, as the executables allow)
#   --timeout S     seconds each run may take: the test suite, the sweep, each timed run
#                   (default: 600); a run still going is stopped: "did not finish in S s"
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/args.sh"
begin "$0" "$@"
stage="the set-up"
catch_signals   # Ctrl-C, SIGTERM or a run's exit 130 ends it here, naming $stage
usage="usage: tools/grade.sh NN [--build DIR] [--sizes LIST] [--rounds N] [--against N] [--ref openblas|blis|none] [--cpu N] [--threads N] [--timeout S]"
build="$root/build" sizes="200,500,1000" rounds=3 against="" ref=openblas cpu="" threads=1 timeout=600
parse_options "" "build sizes rounds against ref cpu threads timeout" 1 "$@"
[ ${#positional[@]} = 1 ] || usage_error "$usage"
nn=${positional[0]} limit=$timeout
[[ "$nn" =~ ^[0-9]{1,4}$ ]] || usage_error "'$nn' is not a step number"
check_sizes --sizes "$sizes"
check_count --rounds "$rounds" 1000
check_count --threads "$threads" "$(harness_max_threads)"
check_count --timeout "$limit" 604800
command -v timeout > /dev/null || usage_error "needs timeout (GNU coreutils), which stops a run that hangs"
[[ -z $against || $against =~ ^[0-9]+$ ]] || usage_error "--against '$against': not a step number"
[[ -z $cpu || $cpu =~ ^[0-9]+$ ]] || usage_error "--cpu '$cpu': not a CPU number"
case "$ref" in openblas|blis|none) ;; *) usage_error "--ref '$ref': openblas, blis or none" ;; esac
pin=() pin_words=""
if [ -n "$cpu" ]; then
  command -v taskset > /dev/null || usage_error "--cpu needs taskset (util-linux)"
  taskset -c "$cpu" true 2> /dev/null || usage_error "--cpu $cpu: not a CPU this process may use"
  pin=(taskset -c "$cpu") pin_words="taskset -c $cpu "
fi

step_folder() { ls "$root/steps" | grep -E "^0*$((10#$1))_[a-z0-9_]+$" | head -n 1; }   # NN_slug, or nothing
number=$((10#$nn))
folder=$(step_folder "$number")
[ -n "$folder" ] || { echo "FAIL step $number: no folder steps/${nn}_*" >&2; exit 2; }
name_max=$(step_name_max) || exit 2   # past it the build and the scheduler refuse the name
(( ${#folder} <= name_max )) ||
  usage_error "steps/${folder:0:24}...: a ${#folder}-character name, over the limit of $name_max (rename the folder)"
exe="step$folder"
if [ -n "$against" ]; then
  prev=$(step_folder "$against")
  [ -n "$prev" ] || usage_error "--against $against: no folder steps/${against}_*"
else
  prev=$(sed -n 's/^# from: *\([0-9][0-9]*_[a-z0-9_]*\).*/\1/p' "$root/steps/$folder/CMakeLists.txt" | head -n 1)
  [ -z "$prev" ] && [ "$number" -ge 2 ] && [ "$number" -le 10 ] && prev=$(step_folder $((number - 1)))
  [ -n "$prev" ] && [ ! -d "$root/steps/$prev" ] && prev=""
fi
[ "$prev" = "$folder" ] && prev=""
refexe="ref_$ref"
[ "$ref" = none ] && refexe=""

results="$root/results"
writable_folder "$results"   # before the build, not after the sweep
mkdir -p -- "$build" && build=$(cd -- "$build" && pwd)
targets=("$exe" gemm_tests cpuinfo write_file)
[ -n "$prev" ] && targets+=("step$prev")
stage="the build"
cmake -S "$root" -B "$build" -DGEMM_BUILD_TESTS=ON > "$build/grade.log" 2>&1 &&
  cmake --build "$build" -j "$(usable_cpus)" --target "${targets[@]}" >> "$build/grade.log" 2>&1 ||
  { stop_if_interrupted $?; tail -n 30 "$build/grade.log"; echo "FAIL $exe: does not build (log: $build/grade.log)"; exit 2; }
bin="$build/bin"
find_writer "$build"
if [ -n "$refexe" ]; then   # built only when the library was found at configure time
  cmake --build "$build" --target "$refexe" >> "$build/grade.log" 2>&1 && [ -x "$bin/$refexe" ] ||
    { stop_if_interrupted $?; refexe=""; }
fi
runs="$build/grade.runs"   # every run's output, CSV and log, before anything goes to results/
rm -rf "$runs" && mkdir -p "$runs" || { echo "grade.sh: $runs: cannot make it" >&2; exit 3; }

# limited OUT ERR COMMAND...: COMMAND for at most --timeout s, in this process group (Ctrl-C
# stops it); sets rc and why. The subshell takes bash's "Segmentation fault" line to /dev/null.
limited() {
  local out=$1 err=$2 start=$SECONDS last; shift 2
  rc=0
  ( timeout --foreground -k 10 "$limit" "$@" > "$out" 2> "$err" || exit $? ) 2> /dev/null || rc=$?
  stop_if_interrupted "$rc"   # Ctrl-C (timeout exits 130) is no verdict on the step
  last=$(grep -v '^[[:space:]]*$' "$err" 2> /dev/null | tail -n 1 | cut -c 1-300)
  if (( (rc == 124 || rc == 137) && SECONDS - start >= limit )); then
    why="did not finish in $limit s (--timeout $limit)"
  elif (( rc > 128 && rc < 160 )); then
    why="crashed with SIG$(kill -l $((rc - 128)) 2> /dev/null || echo $((rc - 128)))${last:+ ($last)}"
  else
    why="exited with $rc${last:+ ($last)}"
  fi
}
# csv_problem CSV: false, with $why, when the sweep's CSV (exit 0) is not the contract's (plots/harness_csv.py).
csv_problem() {
  why="exited 0 but wrote no CSV"
  [ -f "$1" ] || return 1
  local problem rc=0
  problem=$("$python" "$root/plots/harness_csv.py" check --sizes "$sizes" --verified "$1" 2> "$runs/check.err") || rc=$?
  stop_if_interrupted "$rc"
  [[ $rc == 0 || ( $rc == 2 && -n $problem ) ]] ||
    { echo "FAIL $exe: not graded: the CSV check failed: $(tail -n 1 "$runs/check.err")"; exit 2; }
  why="exited 0 but its CSV is not the contract's: ${problem#"$runs"/}"
  [ -z "$problem" ]
}
fail_run() {   # WHAT: the verdict on a run of the step that went wrong ($rc, $why), and its status
  case $rc in
    77) echo "SKIP $exe: $(tail -n 1 "$runs/$exe.err")"; exit 77 ;;
    2) echo "FAIL $exe: $1 refused its command line: $why"; exit 2 ;;
    3) echo "FAIL $exe: not graded, the machine could not run $1: $why"; exit 3 ;;
    *) echo "FAIL $exe: $1 $why"; exit 1 ;;
  esac
}

# 1. Correctness on the test suite's shapes, for this step only.
stage="the test suite" log="$build/grade.tests.log"
limited "$log" "$build/grade.tests.err" env GEMM_TEST_STEPS="$number" "$build/tests/gemm_tests" "[steps]"
if [ "$rc" != 0 ] || ! grep -q "All tests passed" "$log"; then
  grep -m 3 -A 3 "FAILED" "$log"
  # Catch2 exits with the number of failed checks, or dies of a "fatal error condition".
  if [ "$rc" != 0 ] && [[ $why != "did not finish"* ]] && grep -q "FAILED" "$log" && ! grep -q "fatal error condition" "$log"; then
    echo "FAIL $exe: wrong on the test shapes (details: $log)"; exit 1
  elif [[ $why == crashed* || $why == "did not finish"* ]]; then
    echo "FAIL $exe: the test suite $why (details: $log)"; exit 1
  fi
  echo "FAIL $exe: the test suite did not run: $why (details: $log)"; exit 2
fi

# Threads: parallel steps and the reference get --threads; serial steps run on one.
parallel=" "
while read -r _ slug mode _; do [ "$mode" = parallel ] && parallel+="$slug "; done < <("$bin/cpuinfo" --steps)
thread_opts() { if [ "$1" = ref ] || [[ "$parallel" == *" $1 "* ]]; then echo "--threads $threads"; fi; }

# 2. The sweep, verified at every size; its CSV goes to results/ once it is checked.
csv="$results/grade_$exe.csv"
stage="the sweep"
python=$(command -v python3) || { echo "FAIL $exe: not graded: the CSV check and the timing need python3" >&2; exit 2; }
# shellcheck disable=SC2046
limited "$build/grade.sweep.log" "$runs/$exe.err" "${pin[@]}" "$bin/$exe" --sizes "$sizes" --reps 3 $(thread_opts "$folder") --csv "$runs/sweep.csv"
case $rc in
  0) csv_problem "$runs/sweep.csv" || { echo "FAIL $exe: the sweep $why"; exit 1; } ;;
  1) echo "FAIL $exe: a sweep size failed verification ($(grep -m1 'first wrong' "$build/grade.sweep.log" | sed 's/^ *//'))"; exit 1 ;;
  *) fail_run "the sweep" ;;
esac
write_out "$csv" < "$runs/sweep.csv"

# 3. Side by side with the previous step and the reference (tools/interleave.py).
jobs=(--job "$exe=$pin_words$(q "$bin/$exe") $(thread_opts "$folder")")
[ -n "$prev" ] && jobs+=(--job "step$prev=$pin_words$(q "$bin/step$prev") $(thread_opts "$prev")")
[ -n "$refexe" ] && jobs+=(--ref "$refexe=$pin_words$(q "$bin/$refexe") $(thread_opts ref)")
stage="the timing" rc=0
"$python" "$root/tools/interleave.py" --out "$runs/timed" --sizes "$sizes" --rounds "$rounds" --no-verify \
  --timeout "$limit" "${jobs[@]}" > "$runs/interleave.log" 2> "$runs/interleave.err" || rc=$?
stop_if_interrupted "$rc"
# The verdict on the timing, then per size the medians of the rounds' ratios and their means (tools/tables.py).
timing=$rc rc=0
"$python" "$root/tools/tables.py" grade "$runs" "$sizes" "$rounds" "$exe" "${prev:+step$prev}" "$refexe" "$timing" \
  "${csv#"$root"/}" > "$runs/report.txt" || rc=$?
stop_if_interrupted "$rc"
verdict=$(tail -n 1 "$runs/report.txt")   # what a failed or stand-in python3 cannot print by accident
[[ $rc == 0 && $verdict == "PASS $exe:"* || $rc != 0 && ( $verdict == "FAIL $exe:"* || $verdict == "SKIP $exe:"* ) ]] ||
  { echo "FAIL $exe: not graded: no verdict from tools/tables.py (exit $rc)"; exit 2; }
[ "$rc" != 0 ] || write_out "$results/grade_$exe.ratios.csv" < "$runs/ratios.csv"
cat "$runs/report.txt"
exit "$rc"
