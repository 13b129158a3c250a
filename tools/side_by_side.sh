#!/usr/bin/env bash
# One one-thread copy of a harness executable pinned to each CPU, all started together: the
# ceiling of tools/bench_vs_openblas.sh's all-core tables, sampled like any other job.
#
#   tools/side_by_side.sh [--build DIR] NCPU EXE [ARGS...]
#
# With --csv FILE among ARGS, FILE gets one harness row per size: gflops_best and
# gflops_median summed over the copies, threads the copy count, seconds_best the slowest
# copy's best (tools/tables.py side-by-side). Exit: 0; the first copy's failing status (with its
# own stderr); 2 usage error, or --csv without python3.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/args.sh"
prog=side_by_side.sh build="$root/build"
if wants_help "$@"; then print_help "$0"; exit 0; fi
if [[ ${1-} == --build ]]; then
  [[ -n ${2-} && $2 != --* ]] || usage_error "$1: needs a value"
  build=$2; shift 2
fi
[[ $# -ge 2 ]] || usage_error "usage: side_by_side.sh [--build DIR] NCPU EXE [ARGS...]"
check_count NCPU "$1" "$(usable_cpus)"
ncpu=$1; shift
args=("$@") csv=""
for ((i = 0; i < ${#args[@]}; ++i)); do [[ ${args[i]} == --csv ]] && csv=${args[i + 1]-}; done
find_writer "$build"
[[ -z $csv ]] || python=$(command -v python3) || usage_error "--csv needs python3 (tools/tables.py sums the copies' CSVs)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pids=()
cpus=$(taskset -cp $$ 2> /dev/null | sed 's/.*: //') || cpus=""
mapfile -t list < <(awk -v s="${cpus:-0-$((ncpu - 1))}" 'BEGIN { n = split(s, p, ","); for (i = 1; i <= n; ++i) {
  if (split(p[i], r, "-") == 2) for (c = r[1]; c <= r[2]; ++c) print c; else print p[i] } }')
for ((c = 0; c < ncpu; ++c)); do
  copy=("${args[@]}")
  for ((i = 0; i < ${#copy[@]}; ++i)); do [[ ${copy[i]} == --csv ]] && copy[i + 1]="$tmp/copy$c.csv"; done
  [[ -n $csv ]] || copy+=(--csv "$tmp/copy$c.csv")
  OMP_NUM_THREADS=1 taskset -c "${list[c]:-$c}" "${copy[@]}" --threads 1 > /dev/null 2> "$tmp/err$c" &
  pids+=($!)
done
status=0
for ((c = 0; c < ncpu; ++c)); do
  rc=0; wait "${pids[c]}" || rc=$?
  if [[ $rc != 0 && $status == 0 ]]; then status=$rc; cat "$tmp/err$c" >&2; fi
done
[[ $status == 0 ]] || exit "$status"
[[ -n $csv ]] || exit 0   # no --csv: only whether the copies run
"$python" "$root/tools/tables.py" side-by-side "$ncpu" "$tmp"/copy*.csv > "$tmp/sum.csv"
write_out "$csv" < "$tmp/sum.csv"
