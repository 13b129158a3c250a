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
# --rt where real-time priority is not allowed (an unprivileged user): refused up front.
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
if [[ $(id -u) = 0 ]] && command -v setpriv >/dev/null && "${nobody[@]}" test -r "$src/tools/args.sh"; then
  expect 2 "${nobody[@]}" "$bench" --rt
fi

# new_step.sh in a scratch copy of steps/ and tools/: refusals change nothing.
work=$tmp/checkout
mkdir -p "$work"
cp -R "$src/steps" "$src/tools" "$work/"
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
[[ $(snapshot) == "$before" ]] || { echo "FAIL: a refused new_step.sh changed steps/" >&2; failed=$((failed + 1)); }
# A failure half-way (here: the copy) removes the half-made step and restores the build list.
mkdir -p "$tmp/fakebin"
printf '#!/bin/sh\n/bin/cp "$@"; exit 1\n' > "$tmp/fakebin/cp"
chmod +x "$tmp/fakebin/cp"
PATH="$tmp/fakebin:$PATH" expect 1 "$new_step" 12 half --from 04_unroll_4x4
[[ $(snapshot) == "$before" ]] || { echo "FAIL: a failed new_step.sh left steps/ changed" >&2; failed=$((failed + 1)); }
expect 0 "$new_step" 12 whole --from 04_unroll_4x4
[[ -f $work/steps/12_whole/CMakeLists.txt ]] && grep -qx "add_subdirectory(12_whole)" "$work/steps/CMakeLists.txt" ||
  { echo "FAIL: new_step.sh did not make steps/12_whole" >&2; failed=$((failed + 1)); }

echo "tools command lines: $passed passed, $failed failed"
[[ $failed == 0 ]]
