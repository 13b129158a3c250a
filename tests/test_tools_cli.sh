#!/usr/bin/env bash
# The shell tools' command lines: a usage error is exit 2 (1 means "wrong results" to
# grade.sh), a value that is missing or is another option is a usage error, numbers are
# checked before use, --help anywhere wins, and tools/new_step.sh leaves nothing behind when it
# refuses or fails. Nothing here builds or measures: every case stops at the command line.
#   test_tools_cli.sh SOURCE_DIR
set -uo pipefail
src=${1:?usage: test_tools_cli.sh SOURCE_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0

# expect CODE TOOL ARGS...: TOOL ARGS exits CODE; a usage error says something on one line.
expect() {
  local code=$1; shift
  local rc=0
  "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null || rc=$?
  if [[ $rc != "$code" ]] || { [[ $code == 2 ]] && [[ $(wc -l < "$tmp/err") != 1 ]]; }; then
    echo "FAIL: exit $rc, want $code: ${*#$src/}" >&2
    cat "$tmp/err" >&2
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
}

run_all=$src/run_all.sh
for args in "--steps" "--threads" "--rounds" "--build" "--steps --quick" "--threads 5000" \
            "--threads 0" "--rounds abc" "--bogus"; do
  # shellcheck disable=SC2086
  expect 2 "$run_all" --no-install $args   # --no-install: were a check lost, no apt-get
done
expect 0 "$run_all" --bogus --help

grade=$src/tools/grade.sh
expect 2 "$grade" 5 --build
expect 2 "$grade" 5 --sizes
expect 2 "$grade" 12345
expect 0 "$grade" 5 --bogus --help

bench=$src/tools/bench_vs_openblas.sh
expect 2 "$bench" --reps abc
expect 2 "$bench" --reps
expect 2 "$bench" --rounds 0
expect 2 "$bench" --peak /nonexistent/peak.csv
expect 2 "$bench" --peak "$run_all"                   # a file, but not a peak CSV
expect 2 "$bench" --reps "\$(touch $tmp/ran)"         # never evaluated
[[ ! -e $tmp/ran ]] || { echo "FAIL: --reps ran a command substitution" >&2; failed=$((failed + 1)); }
expect 0 "$bench" --reps abc --help
# Sizes above the harness's kMaxSize (46340) are refused up front, not after the runs start.
says() {   # TEXT: the last expect's stderr says TEXT
  grep -qF -- "$1" "$tmp/err" || { echo "FAIL: stderr does not say '$1': $(cat "$tmp/err")" >&2; failed=$((failed + 1)); }
}
expect 2 "$bench" --build "$tmp/nowhere" --sizes 46341
says "46340"
expect 2 "$src/tools/ablation.sh" --build "$tmp/nowhere" --sizes 100,50000
says "46340"
# ablation.sh --out naming a regular file: one line (not mkdir's too), exit 3 (cannot write).
touch "$tmp/a_file"
expect 3 "$src/tools/ablation.sh" --build "$tmp/nowhere" --out "$tmp/a_file"
[[ $(wc -l < "$tmp/err") == 1 ]] || { echo "FAIL: ablation.sh --out FILE: not one line: $(cat "$tmp/err")" >&2; failed=$((failed + 1)); }

# --help prints each script's whole header comment and nothing past it (a fixed line range fell
# out of step as headers grew: bench_vs_openblas.sh lost its last lines, ablation.sh printed
# its `set -euo pipefail`).
for tool in "$run_all" "$grade" "$bench" "$src/tools/ablation.sh" "$src/tools/new_step.sh" "$src/tools/lab_solution.sh"; do
  header=$(awk 'NR > 1 && !/^#/ { exit } NR > 1 { print }' "$tool" | wc -l)
  shown=$("$tool" --help 2>/dev/null | wc -l)
  if [[ $header -lt 3 || $shown != "$header" ]] || "$tool" --help | grep -q '^set -'; then
    echo "FAIL: ${tool#$src/} --help: $shown lines, its header has $header" >&2
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
done
# --rt where real-time priority is not allowed (an unprivileged user): refused up front.
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
if [[ $(id -u) = 0 ]] && command -v setpriv >/dev/null && "${nobody[@]}" test -r "$src/tools/args.sh"; then
  expect 2 "${nobody[@]}" "$bench" --rt
fi

# new_step.sh in a scratch copy of steps/ and tools/: refusals change nothing.
work=$tmp/checkout
mkdir -p "$work"
cp -R "$src/steps" "$src/tools" "$src/plots" "$work/"   # plots/samples.py: the step name limit
snapshot() { (cd "$work/steps" && find . | sort && cat CMakeLists.txt) | md5sum; }
before=$(snapshot)
new_step=$work/tools/new_step.sh
expect 2 "$new_step" 12345 x
expect 2 "$new_step" 99999999999999999999 x
expect 2 "$new_step" 5 x
expect 2 "$new_step" 12 x --from .
expect 2 "$new_step" 12 x --from ../docs
expect 2 "$new_step" 12 x --from 99_nonexistent
expect 2 "$new_step" 12 x --from
expect 2 "$new_step" 12 Bad
expect 0 "$new_step" 12 x --bogus --help
# A slug past the one limit on a step folder's name (plots/samples.py, STEP_NAME_MAX, 93: the
# scheduler's labels step<NN_slug>_mt fit 100), or past NAME_MAX: one line, not cp's.
expect 2 "$new_step" 11 "$(printf 'a%.0s' {1..300})"
expect 2 "$new_step" 11 "$(printf 'b%.0s' {1..250})"
expect 2 "$new_step" 11 "$(printf 'c%.0s' {1..91})"
[[ $(snapshot) == "$before" ]] || { echo "FAIL: a refused new_step.sh changed steps/" >&2; failed=$((failed + 1)); }
# A failure half-way (here: the copy) removes the half-made step and restores the build list.
mkdir -p "$tmp/fakebin"
printf '#!/bin/sh\n/bin/cp "$@"; exit 1\n' > "$tmp/fakebin/cp"
chmod +x "$tmp/fakebin/cp"
PATH="$tmp/fakebin:$PATH" expect 1 "$new_step" 12 half --from 04_unroll_4x4
[[ $(snapshot) == "$before" ]] || { echo "FAIL: a failed new_step.sh left steps/ changed" >&2; failed=$((failed + 1)); }
# The build list is replaced whole, never appended to in place: a write that fails mid-line
# (a file size limit ending just past the list, as a full disk) leaves it as it was.
cp "$work/steps/CMakeLists.txt" "$tmp/list.saved"
{ cat "$tmp/list.saved"; head -c $((64 * 1024 - 5 - $(wc -c < "$tmp/list.saved"))) /dev/zero | tr '\0' '#'; } \
  > "$work/steps/CMakeLists.txt"
before_full=$(snapshot)
(trap '' XFSZ; ulimit -f 64; expect 1 "$new_step" 12 full --from 04_unroll_4x4)
[[ $(snapshot) == "$before_full" ]] || { echo "FAIL: a failed write of the build list left steps/ changed" >&2; failed=$((failed + 1)); }
cp "$tmp/list.saved" "$work/steps/CMakeLists.txt"
expect 0 "$new_step" 12 whole --from 04_unroll_4x4
[[ -f $work/steps/12_whole/CMakeLists.txt ]] && grep -qx "add_subdirectory(12_whole)" "$work/steps/CMakeLists.txt" ||
  { echo "FAIL: new_step.sh did not make steps/12_whole" >&2; failed=$((failed + 1)); }

# run_all.sh and results/, in a scratch copy with a stand-in cmake (nothing is built): a
# results/ it cannot write is exit 3 with one line, before building; so is a second run while
# one is going; the lock goes with the run that held it, whether it fails or is interrupted.
co=$tmp/run_all
mkdir -p "$co/fake" && cp -R "$src/tools" "$src/run_all.sh" "$co/"
# The stand-in: says it started (configuring is the first thing a build does), waits
# $FAKE_CMAKE_WAIT seconds, fails.
printf '#!/bin/sh\ntouch "%s/started.$FAKE_CMAKE_WAIT"\nsleep "$FAKE_CMAKE_WAIT"\nexit 1\n' "$co" > "$co/fake/cmake"
chmod +x "$co/fake/cmake"
run_all_co() { env PATH="$co/fake:$PATH" FAKE_CMAKE_WAIT="$1" "$co/run_all.sh" --no-install --build "$co/build"; }
expect_3() {   # TEXT COMMAND...: exit 3 and one line on stderr that says TEXT
  local says=$1 rc=0; shift
  "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null || rc=$?
  if [[ $rc != 3 || $(wc -l < "$tmp/err") != 1 ]] || ! grep -q "$says" "$tmp/err"; then
    echo "FAIL: exit $rc, want 3 and one line saying '$says': ${*#$src/}" >&2
    cat "$tmp/err" >&2
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
}
mkdir -p "$co/results" && chmod 555 "$co/results"
readonly_user=()   # root writes in a read-only folder: run as nobody there
if [[ $(id -u) = 0 ]] && command -v setpriv > /dev/null; then chmod 755 "$tmp"; readonly_user=("${nobody[@]}"); fi
if [[ $(id -u) != 0 || ${#readonly_user[@]} != 0 ]]; then
  expect_3 "results: cannot write there" "${readonly_user[@]}" env PATH="$co/fake:$PATH" FAKE_CMAKE_WAIT=0 \
    "$co/run_all.sh" --no-install --build "$tmp/build_ro"
  [[ ! -e $co/started.0 ]] || { echo "FAIL: run_all.sh built before finding results/ read-only" >&2; failed=$((failed + 1)); }
fi
chmod 755 "$co/results"
# A first run, building (for 30 s, unless interrupted), in a process group of its own as a
# terminal gives it: a second run is refused at once. A background job starts with SIGINT
# ignored; env --default-signal (coreutils 8.31+) gives it back, else SIGTERM stands in.
ctrl_c=(--default-signal=INT) signal=INT
env "${ctrl_c[@]}" true 2> /dev/null || ctrl_c=() signal=TERM
setsid env "${ctrl_c[@]}" PATH="$co/fake:$PATH" FAKE_CMAKE_WAIT=30 "$co/run_all.sh" --no-install --build "$co/build" \
  > "$tmp/first.out" 2>&1 < /dev/null &
first=$!
for ((i = 0; i < 100; ++i)); do [[ -e $co/started.30 ]] && break; sleep 0.1; done
if [[ -e $co/started.30 ]]; then
  expect_3 "another run_all.sh is writing" run_all_co 0
  [[ ! -e $co/started.0 ]] || { echo "FAIL: a second run_all.sh started building" >&2; failed=$((failed + 1)); }
  kill -"$signal" -- -"$first"   # Ctrl-C: to the whole group
  wait "$first"
  expect 1 run_all_co 0    # past the lock: the stand-in cmake fails ...
  expect 1 run_all_co 0    # ... and that failed run left no lock either
else
  echo "FAIL: the first run_all.sh never started building: $(cat "$tmp/first.out")" >&2
  failed=$((failed + 1))
  kill -- -"$first" 2> /dev/null
fi

# An option given twice: refused with one line naming it (tools/args.sh's refuse_repeats), as
# the executables refuse it; --help still wins.
for tool in "$src/run_all.sh --no-install" "$src/tools/grade.sh 5" "$src/tools/bench_vs_openblas.sh" \
            "$src/tools/ablation.sh" "$new_step 13 twice"; do
  # shellcheck disable=SC2086
  expect 2 $tool --build "$tmp/a" --build="$tmp/b"
  grep -q -- "--build: given twice" "$tmp/err" || { echo "FAIL: ${tool#$src/}: not 'given twice': $(cat "$tmp/err")" >&2; failed=$((failed + 1)); }
  # shellcheck disable=SC2086
  expect 0 $tool --build "$tmp/a" --build "$tmp/b" --help
done
[[ ! -d $work/steps/13_twice ]] || { echo "FAIL: new_step.sh made a step despite a repeated option" >&2; failed=$((failed + 1)); }

# ablation.sh --report checks the whole CSV before printing anything: a bad number on the last
# line is exit 2 and one line, with no table before it.
if command -v python3 > /dev/null; then
  printf 'study,order,config,switches,n,gflops,gflops_median,gflops_min,gflops_wall\n%s\n%s\n' \
    "off,0,step 10,--kernel avx512,500,80.0,79.0,78.0,80.0" "off,1,no FMA,--no-fma 1,500,fast,1,1,1" > "$tmp/ablation.csv"
  expect 2 "$src/tools/ablation.sh" --report "$tmp/ablation.csv" --out "$tmp/ablation_out"
  [[ ! -s $tmp/out ]] || { echo "FAIL: ablation.sh --report printed before refusing: $(cat "$tmp/out")" >&2; failed=$((failed + 1)); }
fi

# The build refuses a step folder past the same limit (cmake/GemmStep.cmake), at configure time.
limit=$(sed -n 's/^STEP_NAME_MAX = \([0-9][0-9]*\)$/\1/p' "$src/plots/samples.py")
long="11_$(printf 'd%.0s' $(seq $((limit - 2))))"
mkdir -p "$tmp/cm/$long"
printf 'cmake_minimum_required(VERSION 3.16)\nproject(names NONE)\nlist(APPEND CMAKE_MODULE_PATH "%s/cmake")\ninclude(GemmStep)\nadd_subdirectory(%s)\n' \
  "$src" "$long" > "$tmp/cm/CMakeLists.txt"
echo "gemm_add_step(SOURCES kernel.cpp)" > "$tmp/cm/$long/CMakeLists.txt"
rc=0; cmake -S "$tmp/cm" -B "$tmp/cm/build" > "$tmp/out" 2>&1 || rc=$?
if [[ $rc != 0 ]] && grep -q "over the limit of $limit" "$tmp/out"; then
  passed=$((passed + 1))
else
  echo "FAIL: CMake took a step folder of $((limit + 1)) characters (exit $rc)" >&2; failed=$((failed + 1))
fi

echo "tools command lines: $passed passed, $failed failed"
[[ $failed == 0 ]]
