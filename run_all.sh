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
#   --rounds N                   samples of every size of every job, spread over the run
#                                (tools/interleave.py), before the sizes whose samples
#                                disagree get more; default 2, 5 with --docs
#   --settle MINUTES             then sample the sizes that disagree until every size settles
#                                or MINUTES (1 to 1440) have passed since the sampling began,
#                                with a progress line; 40 with --docs
#   --docs                       the writer's mode: also copy the figures, summary.md and
#                                index.html to docs/figures/<cpu>/ (<cpu>: the microarchitecture,
#                                e.g. zen4); the whole sweep, so not with --steps or --quick
# The run ends with results/index.html, the whole run on one page (its path is the last line).
# Ctrl-C (or SIGTERM) ends the run at once, its stage named. While the run writes results/,
# results/PARTIAL says so; a run cut short leaves it, naming the stage and how to draw the
# figures from the samples kept.
# Exit status: 0 done, 1 a run, the build or the set-up failed, 2 usage error, 3 results/ cannot be
# written or another run_all.sh is writing it (both found before building), 130 cut short by
# Ctrl-C (SIGTERM: ended by SIGTERM).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/tools/args.sh"
begin "$0" "$@"
cd "$root"
quick=0 test=0 docs=0 no_install=0 steps="" threads="" build=build rounds="" settle=""
parse_options "quick test docs no-install" "steps threads rounds settle build" 0 "$@"
steps_wanted=$steps
say() { printf '\n== %s\n' "$*"; }

check_options() {   # every refusal before the lock and the build
  [ -z "$threads" ] || check_count --threads "$threads" "$(harness_max_threads)"
  [ -z "$rounds" ] || check_count --rounds "$rounds" 1000
  [ -n "$rounds" ] || rounds=$(( docs == 1 ? 5 : 2 ))
  [ "$docs" = 0 ] || [ -z "$steps_wanted" ] ||
    usage_error "--docs redraws the tutorial's whole figure set, so it runs every step: drop --steps"
  [ "$docs" = 0 ] || [ "$quick" = 0 ] ||
    usage_error "--docs redraws the tutorial's whole figure set from the whole sweep: drop --quick"
  if [ -n "$settle" ]; then
    [[ $settle =~ ^[0-9]{1,4}$ ]] && (( 10#$settle >= 1 && 10#$settle <= 1440 )) ||
      usage_error "--settle '$settle': minutes from 1 to 1440"
    settle=$((10#$settle))
  fi
  [ -n "$settle" ] || [ "$docs" = 0 ] || settle=40
  [ -z "$steps_wanted" ] || [[ "$steps_wanted" =~ ^[0-9]+(,[0-9]+)*$ ]] ||
    usage_error "--steps '$steps_wanted': not a list of step numbers such as 5,7"
  [ ! -e "$build" ] || [ -d "$build" ] || usage_error "--build '$build': not a folder"
  local number numbers=""
  for number in ${steps_wanted//,/ }; do
    # Four digits at most, so that $((10#...)) cannot wrap; then as cpuinfo --steps says it (05 is 5).
    [[ ${#number} -le 4 ]] && compgen -G "$root/steps/$(printf '%02d' "$((10#$number))")_*/CMakeLists.txt" > /dev/null ||
      usage_error "--steps $steps_wanted: there is no step $number (steps/NN_slug/)"
    numbers+=",$((10#$number))"
  done
  steps_wanted=${numbers#,}
}

stage="the set-up" marked=0 results="$root/results"
mark_partial() {   # TEXT: results/PARTIAL, through the writer; a run cut short leaves it
  printf 'results/ is not one whole run: %s.\n%s\n' "$1" \
    "Files older than machine.txt are an earlier run's; run ./run_all.sh again for a whole set." |
    write_out "$results/PARTIAL"
  marked=1
}
on_cut() {   # SIGINT | SIGTERM
  [ "$marked" = 1 ] || return 0
  mark_partial "run_all.sh was cut short by $1 during $stage ($(date '+%Y-%m-%d %H:%M %Z')); nothing after it ran"
  cut_note="; results/PARTIAL says so${cut_note-}"
}
ran() {   # STATUS: a program of the run failed; one that was interrupted (130) ends the run
  stop_if_interrupted "$1"
  failed=1
}

# One run at a time writes results/: flock(1) on descriptor 9, held by this script and its
# programs, so the kernel drops it however the run ends.
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

# --- 1. What this needs, installed where we can ------------------------------------------
install_debian() {
  local missing
  mapfile -t missing < <(missing_debs g++ cmake make catch2 libopenblas-dev libblis-dev python3-matplotlib)
  [ ${#missing[@]} -gt 0 ] || return 0
  [ "$no_install" = 0 ] ||
    { echo "run_all.sh: missing packages: ${missing[*]} (--no-install given, going on without them)"; return; }
  say "installing ${missing[*]}"
  apt_install "${missing[@]}"
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
    if [ ${#missing[@]} -gt 0 ] && [ "$no_install" = 1 ]; then
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
  cmake --build "$dir" -j "$cores" > "$dir/build.log" 2>&1 ||
    { tail -n 40 "$dir/build.log"; echo "run_all.sh: build failed (log above, whole log: $dir/build.log)" >&2; exit 1; }
}
run_tests() {
  stage="the test suite"
  say "test suite, Release build"
  (cd "$build" && ctest --output-on-failure -j "$cores")
  say "test suite, Debug build with AddressSanitizer and UndefinedBehaviorSanitizer ($build-asan/)"
  mkdir -p "$build-asan"
  configure_and_build "$build-asan" -DCMAKE_BUILD_TYPE=Debug -DGEMM_SANITIZE=ON
  (cd "$build-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
     ctest --output-on-failure -j "$cores" -LE "slow|python")
  say "all tests passed"
}

# --- 3. Measure ----------------------------------------------------------------------------
# Steps from the registry (cpuinfo --steps), never a stale executable. A parallel lesson (09)
# runs on --threads only; a parallel step from 10 on also on one thread (stepNN_slug_mt.csv).
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

# machine.json (cpuinfo --json) and machine.txt: its cpu and uarch lines, then the build's.
describe_machine() {
  local plan_threads=1
  [ "$mt_threads" -gt 1 ] && plan_threads="1,$mt_threads"
  # Each step's plan at the figures' size: what the roofline's model reads (step 10 may skip packing).
  "$bin/cpuinfo" --json --sizes "$figure_size" --threads "$plan_threads" | write_out "$results/machine.json"
  local json_python=${python:-$(command -v python3 || true)}
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

# The peak (every figure's line), then the bandwidth from L1 to DRAM (the roofline's roofs).
measure_meters() {
  local on="1 thread$([ "$meter_threads" -gt 1 ] && echo " and $meter_threads threads")" opts
  if [ -x "$bin/peak" ]; then
    say "measuring the peak ($on)"
    "$bin/peak" ${quick_peak[@]+"${quick_peak[@]}"} --threads "$meter_threads" --csv "$results/peak.csv" || ran $?
    "$bin/cpuinfo" | write_out "$results/cpuinfo.txt" && sed -n '/^Steps built/,$p' "$results/cpuinfo.txt"
  fi
  if [ -x "$bin/bandwidth" ]; then
    say "measuring the memory bandwidth, L1 to DRAM ($on)"
    opts=(--sweep); [ "$quick" = 1 ] && opts=(--seconds 0.02)
    "$bin/bandwidth" "${opts[@]}" --threads "$meter_threads" --csv "$results/bandwidth.csv" || ran $?
  fi
}

# Every step and library sampled side by side (tools/interleave.py). One-thread runs are pinned
# to the last CPU; parallel runs are left to OpenMP and the libraries.
sample_all() {
  local exe ref pin="" jobs_args=() sample_opts=(--rounds "$rounds") more="more samples where they disagree"
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
  if [ -n "$settle" ]; then
    sample_opts+=(--settle "$((settle * 60))")
    more="then the sizes that disagree until they settle (at most $settle min in all)"
  fi
  rm -rf "$results/rounds"   # the sweeps of older versions
  say "sampling every step and library side by side: $rounds rounds, $more"
  stage="the sampling"
  cut_note="; the samples taken are in results/ (draw them: ${python:-python3} plots/make_figures.py --results $(q "$results") --at $figure_size)"
  "${python:-python3}" tools/interleave.py --out "$results" "${sample_opts[@]}" "${jobs_args[@]}" || ran $?
  cut_note="" skipped=" "
  for exe in "${selected[@]}"; do [ -f "$results/$exe.csv" ] || skipped+="$exe "; done
}

# The peak once more, minutes later (a spell during the first would draw the lines low).
peak_again() {
  stage="the peak's second measurement"
  [ -x "$bin/peak" ] && [ -f "$results/peak.csv" ] || return 0
  say "measuring the peak again (the figures take the better of the two)"
  local again="$results/.peak-again.csv" opts=(--seconds 0.1 --reps 2) rc=0
  [ "$quick" = 1 ] && opts=("${quick_peak[@]}")
  "$bin/peak" "${opts[@]}" --threads "$meter_threads" --csv "$again" > /dev/null || rc=$?
  if [ "$rc" = 0 ]; then
    { cat "$results/peak.csv"; tail -n +2 "$again"; } | write_out "$results/peak.csv" || failed=1
  fi
  rm -f "$again"
  [ "$rc" = 0 ] || ran "$rc"
}

# Thread scaling (scaling.png): the parallel steps and libraries at 1, 2, 4 .. and all threads.
scaling() {
  stage="the scaling run"
  rm -rf "$results/scaling"
  [ "$mt_threads" -gt 1 ] || return 0
  local counts=() t scaled=() exe ref
  for ((t = 1; t < mt_threads; t *= 2)); do counts+=("$t"); done
  counts+=("$mt_threads")
  for exe in "${selected[@]}"; do [[ "$parallel" == *" $exe "* && "$skipped" != *" $exe "* ]] && scaled+=("$exe"); done
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

# Block-size maps of steps 06, 08 and 10: each cell the best of 2 rounds (3 with --docs).
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

# --- 4. Figures, summary.md, the concept pictures and the page; --docs copies them --------------
figures() {
  local figure_opts=(--results "$results") dir concept_dirs=("$results/concepts")
  [ -n "$steps_wanted" ] && figure_opts+=(--steps "$steps_wanted")
  docs_dir="$root/docs/figures/$("$build/bin/cpuinfo" --uarch | tr 'A-Z' 'a-z' | sed -E 's/ ([0-9])/\1/g; s/[^a-z0-9]+/-/g; s/^-|-$//g')"
  stage="the figures"
  if [ -z "$python" ]; then
    python3 plots/summary.py "${figure_opts[@]}" > /dev/null || ran $?   # standard library only
    [ "$docs" = 1 ] && echo "run_all.sh: --docs: no figures to copy (no matplotlib)" >&2
  else
    say "figures"
    [ "$docs" = 1 ] && figure_opts+=(--docs "$docs_dir") concept_dirs+=("$docs_dir/concepts")
    "$python" plots/make_figures.py "${figure_opts[@]}" --at "$figure_size" || ran $?
    [ "$docs" = 1 ] && [ -f "$results/summary.md" ] && write_out "$docs_dir/summary.md" < "$results/summary.md"
    stage="the concept pictures"
    say "concept pictures"
    for dir in "${concept_dirs[@]}"; do
      "$python" plots/concepts.py --out "$dir" --cpuinfo-bin "$bin/cpuinfo" --data "$results" \
        --threads "$mt_threads" > /dev/null || ran $?
    done
  fi
  stage="the page"
  page_said=$("${python:-python3}" plots/index_page.py --results "$results") || ran $?
  if [ "$docs" = 1 ] && [ -n "$python" ]; then
    "$python" plots/index_page.py --results "$results" --output "$docs_dir/index.html" > /dev/null || ran $?
  fi
}

# --- The run -----------------------------------------------------------------------------------
check_options
catch_signals
cores=$(usable_cpus)
if [ -n "$settle" ] && [ "$test" = 0 ]; then
  echo "run_all.sh: sampling until every size settles, for at most $settle min ($rounds rounds included$(
    [ "$docs" = 1 ] && echo "; --settle M to change")); building, the meters, the scaling run and the figures come on top"
fi
[ "$test" = 1 ] || lock_results
install_needed
stage="the build"
say "configuring and building in $build/ (Release)"
mkdir -p "$build"
configure_and_build "$build" -DCMAKE_BUILD_TYPE=Release ${mac_args[@]+"${mac_args[@]}"}
if [ "$test" = 1 ]; then run_tests; exit 0; fi

cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
python=$(cache_value GEMM_PYTHON)
if [ -z "$python" ]; then
  echo "run_all.sh: no Python interpreter here can import matplotlib: CSVs are written, figures are not" \
       "(Debian/Ubuntu: apt-get install python3-matplotlib)" >&2
fi
bin="$build/bin"
find_writer "$build"   # run_all.sh's own files go through the project's writer
mt_threads=${threads:-$cores}
# The meters pin one thread to each CPU, no more.
meter_threads=$((mt_threads < cores ? mt_threads : cores))
select_steps
failed=0
figure_size=1000 quick_peak=()   # the figures' one size (staircase, roofline, scaling, block maps)
[ "$quick" = 1 ] && figure_size=384 quick_peak=(--seconds 0.05 --reps 1)

stage="the peak"
mark_partial "run_all.sh has been replacing it since $(date '+%Y-%m-%d %H:%M %Z'); if that run has ended, it was cut short"
describe_machine
measure_meters
sample_all
peak_again
scaling
block_maps
figures
[ ! -f "$results/summary.md" ] || { say "summary (results/summary.md)"; cat "$results/summary.md"; }
rm -f "$results/PARTIAL"   # every stage ran: results/ is this run's
[ "$failed" = 0 ] || { printf '%s\n' "$page_said"; echo "run_all.sh: some run failed verification or exited with an error (see above)" >&2; exit 1; }
say "done: results in results/"
printf '%s\n' "$page_said"
