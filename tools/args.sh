# The command-line rules every program of gemm-steps follows, for the shell tools (sourced,
# after setting prog=name): a usage error is one line on stderr and exit 2, a value that is
# missing or starts with -- is a usage error, and --help anywhere prints the usage and exits 0.

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

# value_of OPTION "${2-}": prints the option's value; exit 2 (from the command substitution,
# so write: x=$(value_of "$1" "${2-}") || exit 2) when it is missing or is another option.
value_of() {
  if [[ -z $2 || $2 == --* ]]; then
    echo "$prog: $1: needs a value" >&2
    return 2
  fi
  printf '%s' "$2"
}

# check_count OPTION VALUE MAX: VALUE must be a whole number from 1 to MAX.
check_count() {
  [[ $2 =~ ^[1-9][0-9]{0,8}$ ]] || usage_error "$1 '$2': not a positive whole number"
  (( 10#$2 <= $3 )) || usage_error "$1 '$2': must be from 1 to $3"
}
