#!/usr/bin/env bash
# tools/merge_rounds.sh: each size's best round, a failed verification never hidden, sizes
# in first-seen order, and exit 2 on inputs that are not the same harness CSV.
#   test_merge_rounds.sh PATH/TO/merge_rounds.sh
set -euo pipefail
merge=${1:?usage: test_merge_rounds.sh merge_rounds.sh}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

header=step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,verified,kernel,reps,cpu
cat > "$tmp/r1.csv" <<CSV
$header
08_x,100,100,100,1,90.5,88,2e-05,1e-07,1,avx512,3,cpu
08_x,200,200,200,1,80.0,79,2e-04,1e-07,1,avx512,3,cpu
08_x,300,300,300,1,70.0,69,8e-04,2e-07,1,avx512,3,cpu
CSV
cat > "$tmp/r2.csv" <<CSV
$header
08_x,100,100,100,1,85.0,84,2e-05,1e-07,1,avx512,3,cpu
08_x,200,200,200,1,99.0,97,2e-04,1e-07,1,avx512,3,cpu
08_x,300,300,300,1,60.0,59,9e-04,0.5,0,avx512,3,cpu
08_x,400,400,400,1,75.0,74,2e-03,2e-07,1,avx512,3,cpu
CSV

"$merge" "$tmp/out.csv" "$tmp/r1.csv" "$tmp/r2.csv"
expected="$header
08_x,100,100,100,1,90.5,88,2e-05,1e-07,1,avx512,3,cpu
08_x,200,200,200,1,99.0,97,2e-04,1e-07,1,avx512,3,cpu
08_x,300,300,300,1,60.0,59,9e-04,0.5,0,avx512,3,cpu
08_x,400,400,400,1,75.0,74,2e-03,2e-07,1,avx512,3,cpu"
[[ "$(cat "$tmp/out.csv")" == "$expected" ]] || { diff <(echo "$expected") "$tmp/out.csv" >&2; fail "merged rows"; }

# The failure stays when the failing round comes first, too; a single round is copied as is.
"$merge" "$tmp/out2.csv" "$tmp/r2.csv" "$tmp/r1.csv"
grep -qx '08_x,300,300,300,1,60.0,59,9e-04,0.5,0,avx512,3,cpu' "$tmp/out2.csv" || fail "a failed round was hidden"
"$merge" "$tmp/one.csv" "$tmp/r1.csv"
cmp -s "$tmp/one.csv" "$tmp/r1.csv" || fail "one round is not copied unchanged"

# Same sizes at another thread count are other rows.
sed 's/,1,90.5,/,2,150.0,/' "$tmp/r1.csv" > "$tmp/r3.csv"
"$merge" "$tmp/out3.csv" "$tmp/r1.csv" "$tmp/r3.csv"
[[ $(grep -c '^08_x,100,' "$tmp/out3.csv") == 2 ]] || fail "threads not part of the key"

# Bad input: exit 2, and OUT is left alone.
echo keep > "$tmp/keep.csv"
expect_2() {
  local rc=0
  "$merge" "$tmp/keep.csv" "$@" 2>"$tmp/err" || rc=$?
  [[ $rc == 2 ]] || fail "exit $rc, not 2, for: $*"
  [[ -s "$tmp/err" ]] || fail "no message for: $*"
  [[ "$(cat "$tmp/keep.csv")" == keep ]] || fail "OUT changed for: $*"
}
expect_2 "$tmp/r1.csv" "$tmp/missing.csv"
printf 'a,b\n1,2\n' > "$tmp/other.csv"
expect_2 "$tmp/other.csv"
expect_2 "$tmp/r1.csv" "$tmp/other.csv"
: > "$tmp/empty.csv"   # a round that never ran: not a blank line in OUT
expect_2 "$tmp/empty.csv"
expect_2 "$tmp/r1.csv" "$tmp/empty.csv"
rc=0; "$merge" "$tmp/x.csv" 2>/dev/null || rc=$?
[[ $rc == 2 ]] || fail "no inputs: exit $rc, not 2"
echo "merge_rounds: all checks passed"
