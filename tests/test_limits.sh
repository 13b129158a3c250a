#!/usr/bin/env bash
# Out of memory under a limit on address space (ulimit -v) is one line and exit 3 for every
# executable: step 10 whose packing buffers do not fit (a bad_alloc inside its OpenMP region),
# steps 09 and 10 with more threads than the limit leaves stacks for, OpenBLAS (which would
# spin in its allocator) and BLIS (which would abort).
#   test_limits.sh BIN_DIR
set -uo pipefail
bin=${1:?usage: test_limits.sh BIN_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
# The one line counted is the run's own: no note about a wisdom file that a tuner left in the
# build (step 10 would print it too; docs/contracts.md, "Wisdom (step 10)").
export GEMM_WISDOM=off

# expect_3 KIB WHAT PATTERN CMD...: under ulimit -v KIB, CMD exits 3 with PATTERN on stderr.
expect_3() {
  local kib=$1 what=$2 pattern=$3; shift 3
  local rc=0
  (ulimit -v "$kib" && exec timeout 120 "$@") > /dev/null 2> "$tmp/err" || rc=$?
  if [[ $rc == 3 ]] && grep -q -- "$pattern" "$tmp/err" && [[ $(wc -l < "$tmp/err") == 1 ]]; then
    passed=$((passed + 1))
  else
    echo "FAIL: $what: exit $rc (want 3 and one line with '$pattern'):" >&2
    cat "$tmp/err" >&2
    failed=$((failed + 1))
  fi
}

# Steps 09 and 10: the parallel nests (step 10's is the tuned one), each on 2 threads.
for exe in step09_openmp step10_tuned; do
  step=$bin/$exe
  [[ -x $step ]] && "$step" --sizes 8 --reps 1 > /dev/null 2>&1 || continue
  # n = 6000: the matrices (550 MiB) and the pre-check's budget fit in 900 MiB, the packing
  # buffers that --mc/--kc this large ask for (three more matrices' worth) do not. (Step 09
  # shrinks mc to share the rows among the threads, so its buffers fit: step 10 only.)
  [[ $exe == step10_tuned ]] && expect_3 921600 "$exe, huge blocks" "out of memory at size 6000" \
    "$step" --sizes 6000 --reps 1 --warmup 1 --no-verify --threads 2 --mc 60000 --kc 60000 --nc 60000
  # Thread stacks that do not fit: libgomp would exit(1), the "wrong result" status.
  threads=$(($(nproc) * 4 < 8 ? $(nproc) * 4 : 8))
  expect_3 60000 "$exe, $threads threads in 60 MB" "out of memory: size 100 on $threads threads" \
    "$step" --sizes 100 --reps 1 --threads "$threads"
done
if [[ -x $bin/ref_openblas ]]; then
  # 150 MB: below the 160 MiB of buffers and runtime even one thread needs, so on any CPU count.
  expect_3 150000 "OpenBLAS in 150 MB" "out of memory: size 100" "$bin/ref_openblas" --sizes 100 --reps 1
fi
if [[ -x $bin/ref_blis ]]; then
  expect_3 100000 "BLIS in 100 MB" "out of memory: size 2000" "$bin/ref_blis" --sizes 2000 --reps 1 --threads 2
fi
echo "limits: $passed passed, $failed failed"
[[ $failed == 0 ]]
