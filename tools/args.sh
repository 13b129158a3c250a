# The command-line rules every program of gemm-steps follows, for the shell tools (sourced):
# a usage error is one line on stderr and exit 2, a value that is missing or starts with -- is
# a usage error, and --help anywhere prints the usage and exits 0. Sets $root, the checkout.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

begin() {   # SCRIPT ARGS...: sets $prog; --help anywhere (the usage, exit 0); no option twice
  prog=${1##*/}
  if wants_help "${@:2}"; then print_help "$1"; exit 0; fi
  refuse_repeats "${@:2}"
}
usage_error() { echo "$prog: $*" >&2; exit 2; }   # MESSAGE
wants_help() {   # ARGS...: true when -h or --help is among them
  local arg
  for arg in "$@"; do [[ $arg == -h || $arg == --help ]] && return 0; done
  return 1
}
# print_help SCRIPT: the comment block at the top of SCRIPT (after the #! line), to its end.
print_help() { sed -n '2,/^[^#]/p' "$1" | grep '^#' | sed 's/^# \{0,1\}//'; }

# parse_options "FLAGS" "VALUED" NPOS ARGS...: each --NAME of FLAGS sets $NAME (dashes as
# underscores) to 1, each of VALUED to its value; up to NPOS other words go, in order, to the
# array $positional. Anything else: "unknown argument", then $usage if set.
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
refuse_repeats() {   # ARGS...: an option (a word from --, up to any =) given twice is a usage error
  local arg seen=" "
  for arg in "$@"; do
    [[ $arg == --* ]] || continue
    arg=${arg%%=*}
    [[ $seen == *" $arg "* ]] && usage_error "$arg: given twice"
    seen+="$arg "
  done
  return 0
}

# lab_number NN: prints the number of a lab step, 11 to 9999; a usage error otherwise.
lab_number() {
  [[ $1 =~ ^[0-9]{2,4}$ ]] && (( 10#$1 >= 11 )) ||
    usage_error "step number '$1': lab steps are numbered 11 to 9999 (1-10 are the tutorial's)"
  echo $((10#$1))
}
check_sizes() {   # OPTION LIST: sizes such as 500,1000, each from 1 to kMaxSize
  local max size
  [[ $2 =~ ^[1-9][0-9]{0,4}(,[1-9][0-9]{0,4})*$ ]] || usage_error "$1 '$2': not a list of sizes such as 500,1000"
  max=$(harness_max_size) || exit 2
  for size in ${2//,/ }; do check_count "$1" "$size" "$max"; done
}
check_count() {   # OPTION VALUE MAX: a whole number from 1 to MAX
  [[ $2 =~ ^[1-9][0-9]{0,8}$ ]] || usage_error "$1 '$2': not a positive whole number"
  (( 10#$2 <= $3 )) || usage_error "$1 '$2': must be from 1 to $3"
}

# The harness's limits (common/src/cli.cpp), so that a script refuses before building what the
# programs would refuse after it: kMaxSize, STEP_NAME_MAX (the longest step folder name), and 4
# threads per usable CPU. tests/test_grade.sh checks them against a built step.
constant_of() {   # NAME FILE (from the top of the tree) SED-PATTERN
  local max
  max=$(sed -n "s/$3/\1/p" "$root/$2" 2> /dev/null)
  [[ -n $max ]] || { echo "$prog: no $1 in $root/$2" >&2; exit 2; }
  echo "$max"
}
harness_max_size() { constant_of kMaxSize common/include/gemm/harness.hpp '^constexpr int kMaxSize = \([0-9][0-9]*\);.*'; }
step_name_max() { constant_of STEP_NAME_MAX plots/samples.py '^STEP_NAME_MAX = \([0-9][0-9]*\)$'; }
harness_max_threads() { echo $((4 * $(usable_cpus))); }
# The CPUs this process may use, as the programs count them: plain nproc prints OMP_NUM_THREADS.
usable_cpus() { env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc 2> /dev/null || echo 1; }
q() { printf '%q' "$1"; }   # a word as one word of a command line

missing_debs() {   # PACKAGE...: prints those dpkg does not have
  local p
  for p; do dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q "ok installed" || echo "$p"; done
}
apt_install() {   # PACKAGE...: as root, else through sudo
  local sudo=""
  if [[ $(id -u) != 0 ]]; then
    command -v sudo > /dev/null && sudo=sudo ||
      { echo "${prog:-apt_install}: not root and no sudo: please run  apt-get install $*" >&2; exit 1; }
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@"
}

# find_writer BUILD_DIR: $writer, BUILD_DIR/bin/write_file, the one safe writer (`write_file
# PATH < text` replaces PATH atomically, following a link; exit 3 with one line when it cannot).
find_writer() {
  writer="$1/bin/write_file"
  [[ -x $writer ]] || usage_error "$writer: not built (cmake --build $1 --target write_file)"
}
# write_out FILE: stdin to FILE through $writer; check_out FILE: only whether it could be
# written, opening nothing. When not: the writer's line, naming this program, and its status.
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
writable_folder() {   # DIR: made when missing; exit 3 with one line when no file can be made in it
  local probe
  mkdir -p -- "$1" 2> /dev/null && probe=$(mktemp -- "$1/.writable.XXXXXX" 2> /dev/null) && rm -f -- "$probe" ||
    { echo "$prog: $1: cannot write there (read-only, or not a folder)" >&2; exit 3; }
}

# Ctrl-C and SIGTERM (docs/contracts.md "Exit status"): catch_signals sets the traps; $stage
# names what is under way. Ctrl-C, or a program that exited 130 (stop_if_interrupted $?),
# ends the script at once with "PROG: cut short by SIGINT during STAGE" and exit 130; SIGTERM
# with the same line, then by SIGTERM. The EXIT trap runs either way. A script may define
# on_cut SIGNAL, called first, and $cut_note, added to the line.
cut_short() {   # SIGINT | SIGTERM
  trap '' INT TERM   # one line, whatever else comes
  [[ $(type -t on_cut) != function ]] || on_cut "$1"
  echo "$prog: cut short by $1${stage:+ during $stage}${cut_note-}" >&2
  [[ $1 == SIGINT ]] && exit 130
  # Bash skips an EXIT trap set after catch_signals on a signal's default action: run it here.
  eval "set -- $(trap -p EXIT)"   # "trap -- COMMAND EXIT"
  trap - EXIT TERM
  [[ $# -lt 3 ]] || eval "$3"
  kill -TERM $$
}
catch_signals() { trap 'cut_short SIGINT' INT; trap 'cut_short SIGTERM' TERM; }
stop_if_interrupted() { [[ $1 != 130 ]] || cut_short SIGINT; }   # STATUS
# run_failed STATUS MESSAGE [FILE]: after a program failed: cut short if it was interrupted,
# else MESSAGE (then FILE, its stderr) on stderr and exit 1.
run_failed() {
  stop_if_interrupted "$1"
  echo "$prog: $2" >&2
  [[ -z ${3-} ]] || cat "$3" >&2
  exit 1
}
