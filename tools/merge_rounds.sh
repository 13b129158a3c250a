#!/usr/bin/env bash
# Merge the harness CSVs of several rounds of the same sweep into one:
#
#   tools/merge_rounds.sh OUT ROUND.csv...
#
# One row per size (m, n, k, threads), in the order the sizes first appear: the row of the
# round with the highest gflops_best, except that a failed verification (verified=0 with a
# number in max_rel_err) is kept over any round that passed, so a merge never hides a wrong
# result. run_all.sh --rounds N uses it: a noisy spell of a shared machine then spoils a few
# sizes of one round rather than the figure. Exit 2 when an input is missing, empty or is not
# a harness CSV.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: merge_rounds.sh OUT ROUND.csv..." >&2; exit 2
fi
out=$1; shift
for csv in "$@"; do
  [[ -r $csv && -f $csv ]] || { echo "merge_rounds.sh: $csv: cannot read it" >&2; exit 2; }
  # Every round has at least the header line; an empty file is a round that never ran.
  [[ -s $csv ]] || { echo "merge_rounds.sh: $csv: empty file, not a harness CSV" >&2; exit 2; }
done

awk -F, '
  FNR == 1 {
    if (header == "") header = $0
    else if ($0 != header) { print "merge_rounds.sh: " FILENAME ": not the same columns as the first file" > "/dev/stderr"; exit 2 }
    delete col
    for (i = 1; i <= NF; ++i) col[$i] = i
    split("m n k threads gflops_best verified max_rel_err", needed, " ")
    for (i in needed) if (!(needed[i] in col)) {
      print "merge_rounds.sh: " FILENAME ": no " needed[i] " column: not a harness CSV" > "/dev/stderr"; exit 2 }
    next
  }
  {
    key = $col["m"] "," $col["n"] "," $col["k"] "," $col["threads"]
    failed = $col["verified"] == "0" && $col["max_rel_err"] != "nan"
    if (!(key in row)) order[++count] = key
    else if (bad[key] || (!failed && $col["gflops_best"] + 0 <= best[key])) next
    row[key] = $0; best[key] = $col["gflops_best"] + 0; bad[key] = failed
  }
  END { print header; for (i = 1; i <= count; ++i) print row[order[i]] }' "$@" > "$out.tmp" ||
  { rm -f "$out.tmp"; exit 2; }
mv "$out.tmp" "$out"
