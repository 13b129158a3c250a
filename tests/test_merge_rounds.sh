#!/usr/bin/env bash
# tools/merge_rounds.sh: each size's best round, a failed verification never hidden, sizes
# in first-seen order, exit 2 naming FILE:LINE on a row that is not the contract's, and OUT
# written by build/bin/write_file (a symbolic link kept, no fixed OUT.tmp, exit 3 when unwritable).
#   test_merge_rounds.sh PATH/TO/merge_rounds.sh BUILD_DIR
set -euo pipefail
merge_sh=${1:?usage: test_merge_rounds.sh merge_rounds.sh BUILD_DIR}
build=${2:?usage: test_merge_rounds.sh merge_rounds.sh BUILD_DIR}
merge() { "$merge_sh" --build "$build" "$@"; }
merge=merge
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

# Bad input: exit 2 with one line (naming FILE:LINE when a row is bad), and OUT is left alone.
echo keep > "$tmp/keep.csv"
expect_2() {   # [--says TEXT] ROUND...
  local rc=0 says=""
  [[ $1 == --says ]] && { says=$2; shift 2; }
  "$merge" "$tmp/keep.csv" "$@" 2>"$tmp/err" || rc=$?
  [[ $rc == 2 ]] || fail "exit $rc, not 2, for: $*"
  [[ $(wc -l < "$tmp/err") == 1 ]] || { cat "$tmp/err" >&2; fail "not one line of message for: $*"; }
  [[ -z $says ]] || grep -qF -- "$says" "$tmp/err" || { cat "$tmp/err" >&2; fail "the message does not say '$says' for: $*"; }
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
expect_2 --says "$tmp/nodir/r1.csv: cannot read it" "$tmp/r1.csv" "$tmp/nodir/r1.csv"

# Rows that are not the contract's, each in an otherwise good second round: refused with the
# file and line, never merged (a truncated row of a high gflops_best would win the merge).
bad_round() {   # NAME ROW: r1's rows, then ROW as line 5
  { cat "$tmp/r1.csv"; printf '%s\n' "$2"; } > "$tmp/$1.csv"
}
bad_round truncated '08_x,100,100,100,1,99'
expect_2 --says "truncated.csv:5: 6 fields, the header has 13" "$tmp/r2.csv" "$tmp/truncated.csv"
bad_round long '08_x,100,100,100,1,99.0,97,2e-04,1e-07,1,avx512,3,cpu,extra'
expect_2 --says "long.csv:5: 14 fields" "$tmp/long.csv"
bad_round abc '08_x,100,100,100,1,abc,97,2e-04,1e-07,1,avx512,3,cpu'
expect_2 --says "abc.csv:5: column gflops_best is 'abc'" "$tmp/abc.csv"
bad_round size '08_x,1x0,100,100,1,99.0,97,2e-04,1e-07,1,avx512,3,cpu'
expect_2 --says "size.csv:5: column m is '1x0'" "$tmp/size.csv"
bad_round verified2 '08_x,100,100,100,1,99.0,97,2e-04,1e-07,2,avx512,3,cpu'
expect_2 --says "verified2.csv:5: column verified is '2'" "$tmp/verified2.csv"
bad_round passed_nan '08_x,100,100,100,1,99.0,97,2e-04,nan,1,avx512,3,cpu'
expect_2 --says "passed_nan.csv:5: column max_rel_err is 'nan'" "$tmp/passed_nan.csv"
bad_round blank ''
expect_2 --says "blank.csv:5: 0 fields" "$tmp/blank.csv"
# ... while what the harness writes for a failure or an unchecked row is accepted.
bad_round inf '08_x,500,500,500,1,99.0,97,2e-04,inf,0,avx512,3,cpu'
bad_round unchecked '08_x,600,600,600,1,99.0,97,2e-04,nan,0,avx512,3,cpu'
"$merge" "$tmp/out4.csv" "$tmp/inf.csv" "$tmp/unchecked.csv" || fail "inf or nan with verified=0 refused"
grep -q '^08_x,500,.*,inf,0,' "$tmp/out4.csv" && grep -q '^08_x,600,.*,nan,0,' "$tmp/out4.csv" || fail "inf or nan row lost"

# OUT: a symbolic link stays one (its target gets the merge), a file named OUT.tmp is someone
# else's and stays as it was, and an OUT that cannot be written is exit 3 with one line.
echo old > "$tmp/target.csv"
ln -s target.csv "$tmp/link.csv"
echo theirs > "$tmp/link.csv.tmp"
"$merge" "$tmp/link.csv" "$tmp/r1.csv" || fail "merge into a symbolic link"
[[ -L $tmp/link.csv ]] || fail "the symbolic link OUT was replaced by a file"
cmp -s "$tmp/target.csv" "$tmp/r1.csv" || fail "the link's target does not hold the merge"
[[ $(cat "$tmp/link.csv.tmp") == theirs ]] || fail "OUT.tmp, not ours, was overwritten"
rc=0; "$merge" "$tmp/nodir/out.csv" "$tmp/r1.csv" 2>"$tmp/err" || rc=$?
[[ $rc == 3 && $(wc -l < "$tmp/err") == 1 ]] && grep -q '^merge_rounds.sh: ' "$tmp/err" ||
  { cat "$tmp/err" >&2; fail "OUT in a missing folder: exit $rc, want 3 and one line"; }

# File names are never options or awk assignments: a round named n=1.csv is read (awk took it
# for an assignment and read standard input: a hang on an open pipe), an unknown option is exit
# 2 with nothing written (--bogus was taken for OUT), and a name with a leading dash needs --.
cp "$tmp/r1.csv" "$tmp/n=1.csv"
mkfifo "$tmp/held"
exec 3<> "$tmp/held"   # standard input that stays open with nothing to read, as a terminal
rc=0; (cd "$tmp" && timeout 10 "$merge_sh" --build "$build" eq_out.csv n=1.csv) <&3 2>"$tmp/err" || rc=$?
exec 3>&-
[[ $rc == 0 ]] && cmp -s "$tmp/eq_out.csv" "$tmp/r1.csv" ||
  { cat "$tmp/err" >&2; fail "a round named n=1.csv: exit $rc (124: it waited on standard input)"; }
rc=0; (cd "$tmp" && "$merge_sh" --build "$build" --bogus r1.csv) 2>"$tmp/err" < /dev/null || rc=$?
[[ $rc == 2 && $(wc -l < "$tmp/err") == 1 && ! -e $tmp/--bogus ]] && grep -q -- "--bogus" "$tmp/err" ||
  { cat "$tmp/err" >&2; fail "--bogus: exit $rc, want 2, one line naming it and no file written"; }
cp "$tmp/r1.csv" "$tmp/-r1.csv"
rc=0; (cd "$tmp" && "$merge_sh" --build "$build" out5.csv -r1.csv) 2>"$tmp/err" < /dev/null || rc=$?
[[ $rc == 2 && ! -e $tmp/out5.csv ]] || fail "a round named -r1.csv without --: exit $rc, want 2"
rc=0; (cd "$tmp" && "$merge_sh" --build "$build" -- -out.csv -r1.csv -) 2>"$tmp/err" < /dev/null || rc=$?
[[ $rc == 2 ]] && grep -q -- "-: cannot read it" "$tmp/err" || { cat "$tmp/err" >&2; fail "a round named - (not there): exit $rc, want 2"; }
(cd "$tmp" && "$merge_sh" --build "$build" -- -out.csv -r1.csv) < /dev/null && cmp -s "$tmp/-out.csv" "$tmp/r1.csv" ||
  fail "-- -out.csv -r1.csv: the names after -- are files"
echo "merge_rounds: all checks passed"
