# The command-line rules every program of gemm-steps follows, for the shell tools (sourced,
# after setting prog=name): a usage error is one line on stderr and exit 2, a value that is
# missing or starts with -- is a usage error, and --help anywhere prints the usage and exits 0.

# begin SCRIPT ARGS...: every tool's start: $prog, --help anywhere (the usage, exit 0), and
# no option given twice.
begin() {
  prog=${1##*/}
  if wants_help "${@:2}"; then print_help "$1"; exit 0; fi
  refuse_repeats "${@:2}"
}

usage_error() {   # MESSAGE
  echo "$prog: $*" >&2
  exit 2
}

# wants_help ARGS...: true when -h or --help is among them.
wants_help() {
  local arg
  for arg in "$@"; do [[ $arg == -h || $arg == --help ]] && return 0; done
  return 1
}

# print_help SCRIPT: the comment block at the top of SCRIPT (after the #! line), which is its
# --help text; read to its end rather than to a line number, so it cannot fall out of step.
print_help() {
  sed -n '2,/^[^#]/p' "$1" | grep '^#' | sed 's/^# \{0,1\}//'
}

# value_of OPTION "${2-}": prints the option's value; exit 2 (from the command substitution,
# so write: x=$(value_of "$1" "${2-}") || exit 2) when it is missing or is another option.
value_of() {
  if [[ -z $2 || $2 == --* ]]; then
    echo "$prog: $1: needs a value" >&2
    return 2
  fi
  printf '%s' "$2"
}

# parse_options "FLAGS" "VALUED" NPOS ARGS...: each --NAME of FLAGS sets $NAME (dashes as
# underscores) to 1, each of VALUED to its value (value_of's rules); up to NPOS other words go,
# in order, to the array $positional. Anything else: "unknown argument", then $usage if set.
parse_options() {
  local flags=" $1 " valued=" $2 " npos=$3 name; shift 3
  positional=()
  while [[ $# -gt 0 ]]; do
    name=${1#--}; name=${name//-/_}
    if [[ $1 == --* && $valued == *" ${1#--} "* ]]; then
      [[ -n ${2-} && $2 != --* ]] || usage_error "$1: needs a value"
      printf -v "$name" '%s' "$2"; shift
    elif [[ $1 == --* && $flags == *" ${1#--} "* ]]; then
      printf -v "$name" 1
    elif [[ $1 != -* && ${#positional[@]} -lt $npos ]]; then
      positional+=("$1")
    else
      usage_error "unknown argument '$1'. ${usage:-See --help.}"
    fi
    shift
  done
}

# lab_number NN: prints the number of a lab step, from 11 to 9999 (two to four digits: the
# build sorts steps by number padded to four, and a longer one would overflow the shell's
# arithmetic); a usage error otherwise.
lab_number() {
  [[ $1 =~ ^[0-9]{2,4}$ ]] && (( 10#$1 >= 11 )) ||
    usage_error "step number '$1': lab steps are numbered 11 to 9999 (1-10 are the tutorial's)"
  echo $((10#$1))
}

# check_sizes OPTION LIST: LIST must be sizes such as 500,1000, each from 1 to kMaxSize.
check_sizes() {
  local max size
  [[ $2 =~ ^[1-9][0-9]{0,4}(,[1-9][0-9]{0,4})*$ ]] || usage_error "$1 '$2': not a list of sizes such as 500,1000"
  max=$(harness_max_size) || exit 2
  for size in ${2//,/ }; do check_count "$1" "$size" "$max"; done
}

# check_count OPTION VALUE MAX: VALUE must be a whole number from 1 to MAX.
check_count() {
  [[ $2 =~ ^[1-9][0-9]{0,8}$ ]] || usage_error "$1 '$2': not a positive whole number"
  (( 10#$2 <= $3 )) || usage_error "$1 '$2': must be from 1 to $3"
}

# find_writer BUILD_DIR: sets $writer to the project's one safe writer for the shell tools,
# BUILD_DIR/bin/write_file (gemm::OutputFile: `write_file PATH < text` replaces PATH atomically,
# following a symbolic link; exit 3 with one line when it cannot). Exit 2 when it is not built.
find_writer() {
  writer="$1/bin/write_file"
  [[ -x $writer ]] || usage_error "$writer: not built (cmake --build $1 --target write_file)"
}

# write_out FILE: stdin to FILE through $writer; check_out FILE: only whether it could be
# written, creating and opening nothing (a script calls it before any long work). When not:
# the writer's one line, naming this program, and its exit status (3: not writable).
write_out() { run_writer -- "$1"; }
check_out() { run_writer --check -- "$1"; }
run_writer() {
  local error rc=0
  error=$("$writer" "$@" 2>&1 > /dev/null) || rc=$?
  [[ $rc == 0 ]] && return 0
  error=${error%%$'\n'*}
  echo "$prog: ${error#write_file: }" >&2
  exit "$rc"
}

# writable_folder DIR: makes DIR when it is missing and checks that a file can be made in it;
# exit 3 with one line when not, so that a run finds out before building or measuring.
writable_folder() {
  local probe
  mkdir -p -- "$1" 2> /dev/null && probe=$(mktemp -- "$1/.writable.XXXXXX" 2> /dev/null) && rm -f -- "$probe" ||
    { echo "$prog: $1: cannot write there (read-only, or not a folder)" >&2; exit 3; }
}

# The harness's limits (common/src/cli.cpp), so that a script refuses before building what the
# programs would refuse after it: sizes up to kMaxSize, from the header that defines it; the
# longest step folder name (NN_slug), STEP_NAME_MAX in plots/samples.py (the scheduler's
# labels, step<NN_slug>_mt, must fit); threads up to 4 per CPU this process may use, counted
# as the harness counts them. tests/test_grade.sh checks them against a built step.
constant_of() {   # NAME FILE (from the top of the tree) SED-PATTERN
  local file max
  file="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/$2"
  max=$(sed -n "s/$3/\1/p" "$file" 2> /dev/null)
  [[ -n $max ]] || { echo "$prog: no $1 in $file" >&2; exit 2; }
  echo "$max"
}
harness_max_size() { constant_of kMaxSize common/include/gemm/harness.hpp '^constexpr int kMaxSize = \([0-9][0-9]*\);.*'; }
step_name_max() { constant_of STEP_NAME_MAX plots/samples.py '^STEP_NAME_MAX = \([0-9][0-9]*\)$'; }
harness_max_threads() {
  echo $((4 * $(usable_cpus)))
}
# usable_cpus: the CPUs this process may use, as the programs count them. Not plain nproc,
# which prints OMP_NUM_THREADS when it is set (OMP_NUM_THREADS=999 nproc says 999).
usable_cpus() {
  env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc 2> /dev/null || echo 1
}

# refuse_repeats ARGS...: a usage error when an option (a word starting with --, up to any =)
# is given twice, rather than one of the two silently winning (the rule of every program here).
refuse_repeats() {
  local arg seen=" "
  for arg in "$@"; do
    [[ $arg == --* ]] || continue
    arg=${arg%%=*}
    [[ $seen == *" $arg "* ]] && usage_error "$arg: given twice"
    seen+="$arg "
  done
  return 0
}

# Ctrl-C and SIGTERM in a script that runs programs (run_all.sh's rule, docs/contracts.md "Exit
# status"): catch_signals sets the traps; $stage names what is under way. Ctrl-C, or a program
# that exited 130 (stop_if_interrupted $?: it was interrupted), ends the script at once with one
# line, "PROG: cut short by SIGINT during STAGE", and exit 130; SIGTERM with the same line, then
# by SIGTERM. The EXIT trap (a scratch folder's removal) runs either way. Bash runs a trap once
# the program under way has ended: Ctrl-C and a group's SIGTERM reach that program too.
cut_short() {   # SIGINT | SIGTERM
  trap '' INT TERM   # one line, whatever else comes
  echo "$prog: cut short by $1${stage:+ during $stage}" >&2
  [[ $1 == SIGINT ]] && exit 130
  # The EXIT trap by hand: bash skips it on a signal's default action when it was set after
  # catch_signals. "trap -p EXIT" is "trap -- COMMAND EXIT".
  eval "set -- $(trap -p EXIT)"
  trap - EXIT TERM
  [[ $# -lt 3 ]] || eval "$3"
  kill -TERM $$
}
catch_signals() {
  trap 'cut_short SIGINT' INT
  trap 'cut_short SIGTERM' TERM
}
stop_if_interrupted() {   # STATUS
  [[ $1 != 130 ]] || cut_short SIGINT
}
