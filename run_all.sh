#!/usr/bin/env bash
# Regenerate every figure of the tutorial on this machine, or run the test suite.
#
#   ./run_all.sh                 install what is missing, build, measure the peak, run every
#                                step and the references, draw the figures and summary.md
#                                (results/: the CSVs and every figure of docs/reading-plots.md)
#   ./run_all.sh --quick         the same on a small sweep (about a minute once built)
#   ./run_all.sh --test          the same set-up, then the test suite in the normal build
#                                and in a Debug build with AddressSanitizer and UBSan
#   --steps 5,7                  only these steps        --threads N   threads of parallel runs
#                                                        (at most 4 per CPU)
#   --no-install                 never call apt-get      --build DIR   build folder (default build)
#   --rounds N                   samples of every size of every step and library, spread over
#                                the run (tools/interleave.py), before the sizes whose samples
#                                disagree get more; default 2, 5 with --docs
#   --settle MINUTES             then keep sampling the sizes whose samples disagree until every
#                                size settles or MINUTES (1 to 1440) have passed since the
#                                sampling began, the rounds included; a progress line says how
#                                many sizes settled and how long is left; 40 with --docs
#   --docs                       the writer's mode: also copy the figures, summary.md and
#                                index.html to docs/figures/<cpu>/ (the tutorial's; <cpu>: the
#                                microarchitecture, e.g. zen4); the whole sweep, so not with
#                                --steps or --quick
# The run ends with results/index.html, the whole run on one page (its path is the last line).
# Ctrl-C (or SIGTERM) at any stage ends the run at once, its stage named. From the first file
# the run writes into results/ until its end, results/PARTIAL says the folder is being
# replaced; a run cut short leaves it there, naming the stage (the samples taken are kept,
# and the line says how to draw the figures from them); a run that ends removes it.
# Exit status: 0 done, 1 a run, the build or the set-up failed, 2 usage error, 3 results/ cannot be
# written or another run_all.sh is writing it (both found before building), 130 cut short by
# Ctrl-C (SIGTERM: ended by SIGTERM).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$root"
source "$root/tools/args.sh"
begin "$0" "$@"
quick=0 test=0 docs=0 no_install=0 steps="" threads="" build=build rounds="" settle=""
parse_options "quick test docs no-install" "steps threads rounds settle build" 0 "$@"
mode=figures install=$((1 - no_install)) steps_wanted=$steps
[ "$test" = 0 ] || mode=test
say() { printf '\n== %s\n' "$*"; }

check_options() {   # every refusal before the lock and the build
  # The executables refuse more than 4 threads per usable CPU.
  [ -z "$threads" ] || check_count --threads "$threads" "$(harness_max_threads)"
  [ -z "$rounds" ] || check_count --rounds "$rounds" 1000
  [ -n "$rounds" ] || { [ "$docs" = 1 ] && rounds=5 || rounds=2; }
  [ "$docs" = 0 ] || [ -z "$steps_wanted" ] ||
    usage_error "--docs redraws the tutorial's whole figure set, so it runs every step: drop --steps"
  [ "$docs" = 0 ] || [ "$quick" = 0 ] ||
    usage_error "--docs redraws the tutorial's whole figure set from the whole sweep: drop --quick"
  if [ -n "$settle" ]; then
    [[ $settle =~ ^[0-9]+$ ]] || usage_error "--settle '$settle': not a whole number of minutes"
    [[ ${#settle} -le 4 ]] && (( 10#$settle >= 1 && 10#$settle <= 1440 )) ||
      usage_error "--settle '$settle': minutes from 1 to 1440"
    settle=$((10#$settle))
  elif [ "$docs" = 1 ]; then
    settle=40
  fi
  [ -z "$steps_wanted" ] || [[ "$steps_wanted" =~ ^[0-9]+(,[0-9]+)*$ ]] ||
    usage_error "--steps '$steps_wanted': not a list of step numbers such as 5,7"
  [ ! -e "$build" ] || [ -d "$build" ] || usage_error "--build '$build': not a folder"
  [ -n "$steps_wanted" ] || return 0
  local number numbers=() wanted_list
  IFS=, read -r -a wanted_list <<< "$steps_wanted"
  for number in "${wanted_list[@]}"; do
    # Four digits at most, so that $((10#...)) cannot wrap; then as cpuinfo --steps says it (05 is 5).
    [[ ${#number} -le 4 ]] && compgen -G "$root/steps/$(printf '%02d' "$((10#$number))")_*/CMakeLists.txt" > /dev/null ||
      usage_error "--steps $steps_wanted: there is no step $number (steps/NN_slug/)"
    numbers+=("$((10#$number))")
  done
  steps_wanted=$(IFS=,; echo "${numbers[*]}")
}

# Ctrl-C (which a terminal sends to every program of the run) or SIGTERM: the program under
# way ends (the Python tools kill their children's process groups), then this trap ends the
# run. From the first file written into results/ until the run's end, results/PARTIAL says
# the folder is being replaced; a run cut short leaves it, naming the stage.
stage="the set-up" marked=0 results="$root/results"
mark_partial() {   # TEXT: results/PARTIAL, through the writer
  printf 'results/ is not one whole run: %s.\n%s\n' "$1" \
    "Files older than machine.txt are an earlier run's; run ./run_all.sh again for a whole set." |
    write_out "$results/PARTIAL"
  marked=1
}
interrupted() {   # SIGINT | SIGTERM
  trap '' INT TERM   # a second Ctrl-C does not cut the mark short
  if [ "$marked" = 1 ]; then
    mark_partial "run_all.sh was cut short by $1 during $stage ($(date '+%Y-%m-%d %H:%M %Z')); nothing after it ran"
  fi
  echo "run_all.sh: cut short by $1 during $stage$([ "$marked" = 1 ] && echo "; results/PARTIAL says so")${after_cut:-}" >&2
  [ "$1" = SIGINT ] && exit 130
  trap - TERM
  kill -TERM $$
}
# ran STATUS: after a program of the run failed; one that was interrupted (130) ends the run.
ran() {
  [ "$1" != 130 ] || interrupted SIGINT
  failed=1
}

# results/ is written by one run at a time (two would remove each other's files), found out
# before building, exit 3: flock(1) on results/.run_all.lock, held on descriptor 9 by this
# script and its programs, so the kernel drops it however the run ends (no stale lock).
lock_results() {
  writable_folder "$results"
  if command -v flock > /dev/null; then
    { exec 9>> "$results/.run_all.lock"; } 2> /dev/null ||
      { echo "run_all.sh: $results/.run_all.lock: cannot open the lock file" >&2; exit 3; }
    flock -n 9 || { echo "run_all.sh: another run_all.sh is writing $results (it holds results/.run_all.lock): wait for it to end" >&2; exit 3; }
  else
    echo "run_all.sh: no flock (util-linux) here: nothing stops a second run in this checkout from mixing its results with this one's" >&2
  fi
}

# --- 1. What this needs, installed where we can -------------------------------------------
install_debian() {
  local p missing=() sudo=""
  for p in g++ cmake make catch2 libopenblas-dev libblis-dev python3-matplotlib; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  if [ "$install" = 0 ]; then
    echo "run_all.sh: missing packages: ${missing[*]} (--no-install given, going on without them)"
    return
  fi
  say "installing ${missing[*]}"
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null && sudo=sudo ||
      { echo "run_all.sh: not root and no sudo: please run  apt-get install ${missing[*]}" >&2; exit 1; }
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
install_macos() {   # Homebrew's packages (never apt-get); Apple's compiler
  command -v c++ >/dev/null || { echo "run_all.sh: no compiler: run  xcode-select --install" >&2; exit 1; }
  local b p brew missing=()
  brew=$(command -v brew || true)
  for b in /opt/homebrew/bin/brew /usr/local/bin/brew; do [ -n "$brew" ] || [ ! -x "$b" ] || brew=$b; done
  if [ -z "$brew" ]; then
    echo "run_all.sh: Homebrew not found (https://brew.sh); then: brew install cmake libomp openblas" >&2
    command -v cmake >/dev/null || exit 1
  else
    for p in cmake libomp openblas; do "$brew" list --formula "$p" >/dev/null 2>&1 || missing+=("$p"); done
    if [ ${#missing[@]} -gt 0 ] && [ "$install" = 0 ]; then
      echo "run_all.sh: missing: brew install ${missing[*]} (--no-install given, going on without them)"
    elif [ ${#missing[@]} -gt 0 ]; then
      say "brew install ${missing[*]}"
      "$brew" install "${missing[@]}"
    fi
    PATH="$("$brew" --prefix)/bin:$PATH"
    # libomp and openblas are keg-only: CMake is told where they are.
    mac_args=(-DOpenMP_ROOT="$("$brew" --prefix libomp)" -DCMAKE_PREFIX_PATH="$("$brew" --prefix openblas)")
  fi
  python3 -c "import matplotlib" 2>/dev/null ||
    echo "run_all.sh: $(command -v python3 || echo python3) has no matplotlib: figures need it" \
         "(python3 -m pip install matplotlib, in a venv if pip refuses)" >&2
}
install_needed() {
  if command -v dpkg-query >/dev/null && command -v apt-get >/dev/null; then
    install_debian
  elif [ "$(uname -s)" = Darwin ]; then
    install_macos
  else
    local tool
    for tool in cmake c++; do
      command -v "$tool" >/dev/null || { echo "run_all.sh: '$tool' not found; install a C++20 compiler and CMake >= 3.21" >&2; exit 1; }
    done
    echo "run_all.sh: not a Debian or Ubuntu system; if something is missing, install: a C++20 compiler," \
         "CMake >= 3.21, Catch2 v2, OpenBLAS and BLIS development files, and Python 3 with matplotlib"
  fi
}

# --- 2. Build and test ------------------------------------------------------------------------
configure_and_build() {   # folder, then extra cmake arguments
  local dir=$1; shift
  cmake -S . -B "$dir" -DGEMM_BUILD_TESTS=ON "$@" > "$dir/configure.log" 2>&1 ||
    { cat "$dir/configure.log"; echo "run_all.sh: cmake failed (log above)" >&2; exit 1; }
  grep -E "gemm-steps|Warning" "$dir/configure.log" || true
  cmake --build "$dir" -j "$jobs" > "$dir/build.log" 2>&1 ||
    { tail -n 40 "$dir/build.log"; echo "run_all.sh: build failed (log above, whole log: $dir/build.log)" >&2; exit 1; }
}
run_tests() {
  stage="the test suite"
  say "test suite, Release build"
  (cd "$build" && ctest --output-on-failure -j "$jobs")
  say "test suite, Debug build with AddressSanitizer and UndefinedBehaviorSanitizer ($build-asan/)"
  mkdir -p "$build-asan"
  configure_and_build "$build-asan" -DCMAKE_BUILD_TYPE=Debug -DGEMM_SANITIZE=ON
  # Not what a sanitizer cannot see: the Python tools and figures, the whole-project builds.
  (cd "$build-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
     ctest --output-on-failure -j "$jobs" -LE "slow|python")
  say "all tests passed"
}

# --- 3. Measure ----------------------------------------------------------------------------
# Steps in order, from the registry (cpuinfo --steps: NUMBER SLUG parallel|serial VARIANT), so
# a stale executable of a deleted step is never run. A parallel lesson (step 09) runs on
# --threads only, its one-thread case being the step before it; a parallel step from 10 on
# has no serial twin, so it runs on one thread (stepNN_slug.csv) and on --threads (_mt.csv).
select_steps() {
  local number slug kind
  selected=() parallel=" " both=" "
  while read -r number slug kind _; do
    [ -n "$number" ] || continue
    [ "$kind" = parallel ] && parallel+="step$slug "
    [ "$kind" = parallel ] && [ "$number" -ge 10 ] && both+="step$slug "
    if [ -z "$steps_wanted" ] || [[ ",$steps_wanted," == *",$number,"* ]]; then selected+=("step$slug"); fi
  done < <("$bin/cpuinfo" --steps)
  [ ${#selected[@]} -gt 0 ] || { echo "run_all.sh: --steps $steps_wanted matches no built step" >&2; exit 2; }
}

# machine.json as bin/cpuinfo --json describes it (plots/machine.py reads it), and for
# summary.md machine.txt: its cpu and uarch lines, then what the figures were built with.
describe_machine() {
  "$bin/cpuinfo" --json | write_out "$results/machine.json"
  cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
  local json_python=${python:-$(command -v python3 || true)}   # machine.py needs no matplotlib
  {
    if [ -n "$json_python" ]; then
      "$json_python" "$root/plots/machine.py" --txt "$results/machine.json"
    else
      echo "uarch: $("$bin/cpuinfo" --uarch 2>/dev/null)"
    fi
    echo "cores: $cores"
    echo "compiler: $("$(cache_value CMAKE_CXX_COMPILER)" --version 2>/dev/null | head -n 1)"
    echo "flags: $(cache_value CMAKE_CXX_FLAGS) $(cache_value CMAKE_CXX_FLAGS_RELEASE) (Release); kernel files add their ISA's flags (-mavx2 -mfma, -mavx512f ...)"
    echo "date: $(date '+%Y-%m-%d %H:%M %Z')"
    echo "rounds: $rounds"
  } | write_out "$results/machine.txt"
}

# The peak first (every figure draws its line from results/peak.csv), then the memory roofs
# of the roofline: bandwidth from L1 to DRAM, with --sweep for bandwidth.png.
measure_meters() {
  local on="1 thread$([ "$meter_threads" -gt 1 ] && echo " and $meter_threads threads")" opts
  if [ -x "$bin/peak" ]; then
    say "measuring the peak ($on)"
    opts=(); [ "$quick" = 1 ] && opts=(--seconds 0.05 --reps 1)
    "$bin/peak" "${opts[@]}" --threads "$meter_threads" --csv "$results/peak.csv" || ran $?
    "$bin/cpuinfo" | write_out "$results/cpuinfo.txt" && sed -n '/^Steps built/,$p' "$results/cpuinfo.txt"
  fi
  if [ -x "$bin/bandwidth" ]; then
    say "measuring the memory bandwidth, L1 to DRAM ($on)"
    opts=(--sweep); [ "$quick" = 1 ] && opts=(--seconds 0.02)
    "$bin/bandwidth" "${opts[@]}" --threads "$meter_threads" --csv "$results/bandwidth.csv" || ran $?
  fi
}

# Every step and library sampled side by side by one scheduler (tools/interleave.py; why:
# docs/harness.md, "How a run samples"): results/JOB.csv, results/samples/JOB.csv. One-thread
# runs are pinned to the last CPU (the scheduler cannot move them between cores mid-run);
# parallel runs are left to OpenMP and the libraries (binding OpenBLAS's threads from outside
# would squeeze them onto one core).
q() { printf '%q' "$1"; }
sample_all() {
  local exe ref pin="" jobs_args=() sample_opts=(--rounds "$rounds")
  if command -v taskset > /dev/null; then pin="taskset -c $((cores - 1)) "; fi
  for exe in "${selected[@]}"; do
    if [[ "$parallel" == *" $exe "* && "$both" != *" $exe "* ]]; then
      jobs_args+=(--job "$exe=$(q "$bin/$exe") --threads $mt_threads")
    else
      jobs_args+=(--job "$exe=$pin$(q "$bin/$exe") --threads 1")
      if [[ "$both" == *" $exe "* ]] && [ "$mt_threads" -gt 1 ]; then
        jobs_args+=(--job "${exe}_mt=$(q "$bin/$exe") --threads $mt_threads")
      fi
    fi
  done
  for ref in ref_openblas ref_blis ref_accelerate; do   # ref_accelerate: Apple's, macOS only
    if [ ! -x "$bin/$ref" ]; then
      [ "$ref" = ref_accelerate ] && [ "$(uname -s)" != Darwin ] ||
        echo "   $ref not built (library not found at configure time)"
      continue
    fi
    jobs_args+=(--ref "$ref=$pin$(q "$bin/$ref") --threads 1")
    [ "$mt_threads" -gt 1 ] && jobs_args+=(--ref "${ref}_mt=$(q "$bin/$ref") --threads $mt_threads")
  done
  [ "$quick" = 1 ] && sample_opts+=(--sizes 64,128,256,384)
  [ -n "$settle" ] && sample_opts+=(--settle "$((settle * 60))")
  rm -rf "$results/rounds"   # the sweeps of older versions
  if [ -n "$settle" ]; then
    say "sampling every step and library side by side: $rounds rounds, then the sizes that disagree until they settle (at most $settle min in all)"
  else
    say "sampling every step and library side by side: $rounds rounds, more samples where they disagree"
  fi
  # Ctrl-C reaches the scheduler too, which writes every sample taken and exits 130; the run
  # then ends, saying how to draw the figures from them.
  stage="the sampling"
  after_cut="; the samples taken are in results/ (draw them: ${python:-python3} plots/make_figures.py --results $(q "$results") --at $figure_size)"
  "${python:-python3}" tools/interleave.py --out "$results" "${sample_opts[@]}" "${jobs_args[@]}" || ran $?
  after_cut="" skipped=" "
  for exe in "${selected[@]}"; do [ -f "$results/$exe.csv" ] || skipped+="$exe "; done
}

# The peak once more, minutes later: a spell during the first measurement would draw every
# figure's line low. peak.csv keeps both; the figures take the best of each.
peak_again() {
  stage="the peak's second measurement"
  [ -x "$bin/peak" ] && [ -f "$results/peak.csv" ] || return 0
  say "measuring the peak again (the figures take the better of the two)"
  local again="$results/.peak-again.csv" opts=(--seconds 0.1 --reps 2) rc=0
  [ "$quick" = 1 ] && opts=(--seconds 0.05 --reps 1)
  "$bin/peak" "${opts[@]}" --threads "$meter_threads" --csv "$again" > /dev/null || rc=$?
  if [ "$rc" = 0 ]; then
    { cat "$results/peak.csv"; tail -n +2 "$again"; } | write_out "$results/peak.csv" || failed=1
  else
    rm -f "$again"
    ran "$rc"
  fi
  rm -f "$again"
}

# Thread scaling (scaling.png): the parallel steps and the libraries at 1, 2, 4 .. threads and
# at all of them, at the figures' one size only, so that the default run stays short.
scaling() {
  stage="the scaling run"
  rm -rf "$results/scaling"
  [ "$mt_threads" -gt 1 ] || return 0
  local counts=() t=1 scaled=() exe ref
  while [ "$t" -lt "$mt_threads" ]; do counts+=("$t"); t=$((t * 2)); done
  counts+=("$mt_threads")
  for exe in "${selected[@]}"; do
    [[ "$parallel" == *" $exe "* && "$skipped" != *" $exe "* ]] && scaled+=("$exe")
  done
  for ref in ref_openblas ref_blis ref_accelerate; do [ -x "$bin/$ref" ] && scaled+=("$ref"); done
  [ ${#scaled[@]} -gt 0 ] || return 0
  say "thread scaling at n = $figure_size: ${scaled[*]} on ${counts[*]} threads"
  mkdir -p "$results/scaling"
  for exe in "${scaled[@]}"; do
    for t in "${counts[@]}"; do
      "$bin/$exe" --sizes "$figure_size" --reps 5 --threads "$t" --csv "$results/scaling/$exe.t$t.csv" \
        > /dev/null || ran $?
    done
  done
}

# Block-size maps (blockmap_*.png) of steps 06, 08 and 10 on one thread: a coarse grid around
# each step's own choice, each cell the best of 2 rounds (3 with --docs), so that one noisy
# spell makes no false optimum.
block_maps() {
  stage="the block maps"
  local exe map_rounds=$(( docs == 1 ? 3 : 2 ))
  for exe in step06_blocking step08_avx512_14x32 step10_tuned; do
    [[ " ${selected[*]} " == *" $exe "* && "$skipped" != *" $exe "* ]] || continue
    say "block-size map of $exe (kc x mc at n = $figure_size, 1 thread, $map_rounds rounds)"
    "${python:-python3}" tools/block_map.py "$bin/$exe" --size "$figure_size" --rounds "$map_rounds" --threads 1 \
      --csv "$results/blockmap_$exe.csv" | tail -n 1 || ran $?
  done
}

# --- 4. Figures, summary.md and the page ------------------------------------------------------
# plots/make_figures.py draws every figure of docs/reading-plots.md and summary.md in one
# process; --docs copies them to docs/figures/<microarchitecture>/ ("Zen 4" -> zen4).
figures() {
  local figure_opts=(--results "$results") dir concept_dirs
  [ -n "$steps_wanted" ] && figure_opts+=(--steps "$steps_wanted")
  docs_dir="$root/docs/figures/$("$build/bin/cpuinfo" --uarch | tr 'A-Z' 'a-z' | sed -E 's/ ([0-9])/\1/g; s/[^a-z0-9]+/-/g; s/^-|-$//g')"
  stage="the figures"
  if [ -n "$python" ]; then
    say "figures"
    [ "$docs" = 1 ] && figure_opts+=(--docs "$docs_dir")
    "$python" plots/make_figures.py "${figure_opts[@]}" --at "$figure_size" || ran $?
    [ "$docs" = 1 ] && [ -f "$results/summary.md" ] && write_out "$docs_dir/summary.md" < "$results/summary.md"
  else
    python3 plots/summary.py "${figure_opts[@]}" > /dev/null || ran $?   # standard library only
    [ "$docs" = 1 ] && echo "run_all.sh: --docs: no figures to copy (no matplotlib)" >&2
  fi
  # The concept pictures (plots/concepts.py) from this machine's caches, tiles and blocks;
  # with --docs in $docs_dir/concepts/ too, where its page looks for them.
  stage="the concept pictures"
  if [ -n "$python" ]; then
    say "concept pictures"
    concept_dirs=("$results/concepts")
    [ "$docs" = 1 ] && concept_dirs+=("$docs_dir/concepts")
    for dir in "${concept_dirs[@]}"; do
      "$python" plots/concepts.py --out "$dir" --cpuinfo-bin "$bin/cpuinfo" --data "$results" \
        --threads "$mt_threads" > /dev/null || ran $?
    done
  fi
  # results/index.html: the whole run on one page (plots/index_page.py, standard library
  # only); with --docs one more in $docs_dir. Its lines (the sizes left unsettled, its path)
  # end the output.
  stage="the page"
  page_said=$("${python:-python3}" plots/index_page.py --results "$results") || ran $?
  if [ "$docs" = 1 ] && [ -n "$python" ]; then
    "$python" plots/index_page.py --results "$results" --output "$docs_dir/index.html" > /dev/null || ran $?
  fi
}

# --- The run -----------------------------------------------------------------------------------
check_options
trap 'interrupted SIGINT' INT
trap 'interrupted SIGTERM' TERM
jobs=$(usable_cpus)
if [ -n "$settle" ] && [ "$mode" = figures ]; then
  echo "run_all.sh: sampling until every size settles, for at most $settle min ($rounds rounds included$(
    [ "$docs" = 1 ] && echo "; --settle M to change")); building, the meters, the scaling run and the figures come on top"
fi
[ "$mode" = test ] || lock_results
install_needed
stage="the build"
say "configuring and building in $build/ (Release)"
mkdir -p "$build"
configure_and_build "$build" -DCMAKE_BUILD_TYPE=Release ${mac_args[@]+"${mac_args[@]}"}
if [ "$mode" = test ]; then run_tests; exit 0; fi

python=$(sed -n 's/^GEMM_PYTHON:FILEPATH=//p' "$build/CMakeCache.txt")
if [ -z "$python" ] || [ "$python" = "GEMM_PYTHON-NOTFOUND" ]; then
  python=""
  echo "run_all.sh: no Python interpreter here can import matplotlib: CSVs are written, figures are not" \
       "(Debian/Ubuntu: apt-get install python3-matplotlib)" >&2
fi
bin="$build/bin"
find_writer "$build"   # run_all.sh's own files go through the project's writer
cores=$(usable_cpus)
mt_threads=${threads:-$cores}
# The meters pin one thread to each CPU and allow no more (two on one CPU would count it twice).
meter_threads=$((mt_threads < cores ? mt_threads : cores))
select_steps
failed=0
figure_size=1000   # the figures' one size (staircase, roofline, scaling, block maps)
[ "$quick" = 1 ] && figure_size=384

stage="the peak"
mark_partial "run_all.sh has been replacing it since $(date '+%Y-%m-%d %H:%M %Z'); if that run has ended, it was cut short"
describe_machine
measure_meters
sample_all
peak_again
scaling
block_maps
figures
if [ -f "$results/summary.md" ]; then
  say "summary (results/summary.md)"
  cat "$results/summary.md"
fi
rm -f "$results/PARTIAL"   # every stage ran: results/ is this run's
[ "$failed" = 0 ] || { printf '%s\n' "$page_said"; echo "run_all.sh: some run failed verification or exited with an error (see above)" >&2; exit 1; }
say "done: results in results/"
printf '%s\n' "$page_said"
