#!/usr/bin/env bash
# bin/noise's refusals: one line on stderr and the documented exit code, before any spell.
# A buffer larger than the memory that is free (or than ulimit -v leaves) is exit 3, not a
# std::bad_alloc that aborts nor a touch of every page that wakes the OOM killer.
#   test_noise.sh BIN_DIR
set -uo pipefail
noise=${1:?usage: test_noise.sh BIN_DIR}/noise
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0

# expect RC PATTERN ARGS...: noise ARGS exits RC within seconds, one line matching PATTERN.
expect() {
  local want=$1 pattern=$2; shift 2
  local rc=0
  timeout 20 "$noise" "$@" > /dev/null 2> "$tmp/err" || rc=$?
  if [[ $rc == "$want" ]] && [[ $(wc -l < "$tmp/err") == 1 ]] && grep -q -- "$pattern" "$tmp/err"; then
    passed=$((passed + 1))
  else
    echo "FAIL: noise $*: exit $rc (want $want and one line matching '$pattern'):" >&2
    cat "$tmp/err" >&2
    failed=$((failed + 1))
  fi
}

expect 2 "'--bogus': unknown option" --bogus
expect 2 "'--bogus': unknown option" --bogus 3
expect 2 "--on '-1-2': " --on -1-2
expect 2 "--off '3-x': " --off 3-x
expect 2 "--on '1-2-3': " --on 1-2-3
expect 2 "--on '5-2': the first number is above the second" --on 5-2
expect 2 "--mib: needs a value" --mib
# 64 GiB: past what most test machines have free; where it is not, under a limit of 1 GiB.
expect 3 "--mib 65536: " --mode memory --mib 65536 --seconds 2
expect 3 "--mib 65536: " --mode both --mib 65536 --seconds 2
rc=0
(ulimit -v 1048576 && exec timeout 20 "$noise" --mode memory --mib 2048 --seconds 1) > /dev/null 2> "$tmp/err" || rc=$?
if grep -q "AddressSanitizer" "$tmp/err"; then
  # A sanitizer build maps terabytes of shadow memory at start: no ulimit -v lets it begin.
  echo "skipped: noise --mib 2048 under ulimit -v (a sanitizer build cannot start under a limit)"
elif [[ $rc == 3 ]] && [[ $(wc -l < "$tmp/err") == 1 ]] && grep -q -- "--mib 2048: " "$tmp/err"; then
  passed=$((passed + 1))
else
  echo "FAIL: noise --mib 2048 under ulimit -v 1 GiB: exit $rc (want 3 and one line):" >&2
  cat "$tmp/err" >&2
  failed=$((failed + 1))
fi
# The share neighbour needs no buffer: --mib is not checked against memory there.
rc=0
timeout 20 "$noise" --mode share --mib 65536 --seconds 0.2 --on 0.1 --off 0.1 > /dev/null 2> "$tmp/err" || rc=$?
if [[ $rc == 0 ]] && [[ ! -s $tmp/err ]]; then
  passed=$((passed + 1))
else
  echo "FAIL: noise --mode share --mib 65536: exit $rc (want 0, nothing on stderr):" >&2
  cat "$tmp/err" >&2
  failed=$((failed + 1))
fi
echo "test_noise: $passed passed, $failed failed"
[[ $failed == 0 ]]
