# Checks that files are harness CSVs as docs/contracts.md ("The CSV") describes them, the shell
# tools' twin of plots/harness_csv.py, so that a truncated or garbled row is refused.
#
#   awk -F, -f tools/harness_csv.awk [-v sizes=200,500] [-v verified=1] [-v positive=1] FILE...
#
# Options: sizes, a row with m = n = k for each of these sizes; verified=1, every row
# verified; positive=1, gflops_best above 0. Prints nothing and exits 0 when all is well; else
# FILE:LINE: PROBLEM (the first problem, one line) on stdout and exit 2.

function problem(text) { problem_in(FILENAME ":" FNR, text) }
function problem_in(where, text) { printf "%s: %s\n", where, text; failed = 1; exit 2 }
function shown(text) {   # a field in a message: at most 40 characters, control characters as '?'
  gsub(/[\001-\037\177]/, "?", text)
  return length(text) > 40 ? substr(text, 1, 40) "..." : text
}
function whole(name,   v) {
  v = $col[name]
  if (v !~ /^[0-9]+$/ || v + 0 < 1) problem("column " name " is '" shown(v) "', not a whole number from 1")
}
function is_real(v) {   # a finite number from 0, as %g and %f write them
  return v ~ /^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ && v + 0 < 1e308
}
function real(name,   v) {
  v = $col[name]
  if (!is_real(v)) problem("column " name " is '" shown(v) "', not a finite number from 0")
}
function sizes_done(file,   s) {   # at the end of each file
  if (file == "") return
  for (s in want)
    if (!((file, s) in have)) problem_in(file, "no row for size " s " (m = n = k = " s ")")
}

BEGIN {
  nrequired = split("step m n k threads gflops_best gflops_median seconds_best max_rel_err verified", required, " ")
  if (sizes != "") { count = split(sizes, list, ","); for (i = 1; i <= count; ++i) want[list[i] + 0] = 1 }
}

FNR == 1 {
  sizes_done(current)   # the file before this one
  current = FILENAME
  seen[FILENAME] = 1
  delete col
  width = NF
  for (i = 1; i <= NF; ++i) col[$i] = i
  for (i = 1; i <= nrequired; ++i)
    if (!(required[i] in col)) problem("no " required[i] " column: not a harness CSV")
  next
}

{
  if (NF != width) problem(NF " fields, the header has " width)
  if ($col["step"] == "") problem("empty step column")
  whole("m"); whole("n"); whole("k"); whole("threads")
  if ("reps" in col) whole("reps")
  real("gflops_best"); real("gflops_median"); real("seconds_best")
  v = $col["verified"]
  if (v != "0" && v != "1") problem("column verified is '" shown(v) "', not 0 or 1")
  # max_rel_err: nan (not checked) or inf (a NaN or Inf in the result) only when not verified.
  e = $col["max_rel_err"]
  if (!is_real(e) && !(v == "0" && (e == "nan" || e == "inf")))
    problem("column max_rel_err is '" shown(e) "', not a finite number from 0" (v == "0" ? ", nan or inf" : " (verified=1)"))
  if (verified && v != "1") problem("not verified (verified=" v ", max_rel_err=" shown(e) ")")
  if (positive && $col["gflops_best"] + 0 <= 0) problem("column gflops_best is '" shown($col["gflops_best"]) "', not above 0")
  if ($col["m"] == $col["n"] && $col["n"] == $col["k"]) have[FILENAME, $col["m"] + 0] = 1
}

END {
  if (failed) exit 2
  sizes_done(current)
  # An empty file has no first line, so the rules above never saw it.
  for (i = 1; i < ARGC; ++i)
    if (ARGV[i] != "" && !(ARGV[i] in seen)) problem_in(ARGV[i], "empty file, not a harness CSV")
}
