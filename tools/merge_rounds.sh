#!/usr/bin/env bash
# Merge the harness CSVs of several rounds of the same sweep into one:
#
#   tools/merge_rounds.sh [--build DIR] [--] OUT ROUND.csv...
#
# Any other word that begins with - is an unknown option (exit 2): a file whose name begins
# with a dash goes after --.
# One row per size (m, n, k, threads), in the order the sizes first appear: the row of the
# round with the highest gflops_best, except that a failed verification (verified=0 with a
# number in max_rel_err) is kept over any round that passed, so a merge never hides a wrong
# result. run_all.sh --rounds N uses it: a noisy spell of a shared machine then spoils a few
# sizes of one round rather than the figure.
# Every row of every round is checked first (tools/harness_csv.awk: as many fields as the
# header, numbers where docs/contracts.md puts numbers, verified 0 or 1), so a truncated row
# cannot win the merge. Exit 2 with one line (FILE:LINE for a row) when an input is missing,
# empty, not a harness CSV, or not the same columns as the first; OUT is then left alone.
# OUT is written by DIR/bin/write_file (default DIR: build): replaced whole, a symbolic link
# followed and kept; exit 3 with one line when it cannot be written.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prog=merge_rounds.sh
source "$root/tools/args.sh"
if wants_help "$@"; then print_help "$0"; exit 0; fi
refuse_repeats "$@"

build="$root/build" files=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$(value_of "$1" "${2-}") || exit 2; shift 2 ;;
    --build=*) build=$(value_of --build "${1#--build=}") || exit 2; shift ;;
    --) shift; files+=("$@"); break ;;
    # Never a file: an unknown option written as OUT (--bogus) would be a file named --bogus.
    -?*) usage_error "unknown option '$1' (see --help; a file whose name begins with - goes after --)" ;;
    *) files+=("$1"); shift ;;
  esac
done
set -- "${files[@]}"
[[ $# -ge 2 ]] || usage_error "usage: merge_rounds.sh [--build DIR] [--] OUT ROUND.csv..."
out=$1; shift
rounds=()
for csv in "$@"; do
  [[ -r $csv && -f $csv ]] || usage_error "$csv: cannot read it"
  rounds+=("$(awk_operand "$csv")")   # n=1.csv is a file, not an awk assignment
done
set -- "${rounds[@]}"
find_writer "$build"
problem=$(awk -F, -f "$root/tools/harness_csv.awk" "$@") || usage_error "$problem"

merged=$(awk -F, '
  FNR == 1 {
    if (header == "") header = $0
    else if ($0 != header) { print "merge_rounds.sh: " FILENAME ": not the same columns as the first file" > "/dev/stderr"; exit 2 }
    delete col
    for (i = 1; i <= NF; ++i) col[$i] = i
    next
  }
  {
    key = $col["m"] "," $col["n"] "," $col["k"] "," $col["threads"]
    failed = $col["verified"] == "0" && $col["max_rel_err"] != "nan"
    if (!(key in row)) order[++count] = key
    else if (bad[key] || (!failed && $col["gflops_best"] + 0 <= best[key])) next
    row[key] = $0; best[key] = $col["gflops_best"] + 0; bad[key] = failed
  }
  END { print header; for (i = 1; i <= count; ++i) print row[order[i]] }' "$@") || exit 2
write_out "$out" <<< "$merged"
