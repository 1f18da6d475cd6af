# Command-line parsing for the bash scripts: getopt (util-linux), --help
# from the script's header comment, one-line errors.  Sourced, not executed.
#
#   . "$(dirname "$0")/lib/cli.sh"
#   cli_parse SHORT LONG "$@"; eval set -- "$cli_args"
#   while :; do case $1 in -h|--help) cli_help ;; --opt) x=$2; shift ;;
#       --) shift; break ;; esac; shift; done
#
# SHORT and LONG are getopt's -o and -l lists ('+' first in SHORT: options
# end at the first non-option).  A bad option or a missing value ends the
# script with status 2 (or $cli_status) and one line: "NAME: error: WHAT (see NAME --help)".

# The header comment (from line 2 to the first line that is not a comment).
cli_help() {
    awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
    exit 0
}

# cli_fail WHAT: a usage error.
cli_fail() {
    printf '%s: error: %s (see %s --help)\n' "${0##*/}" "$*" "${0##*/}" >&2
    exit "${cli_status:-2}"
}

cli_parse() {
    local short=$1 long=$2 err
    shift 2
    if ! cli_args=$(getopt -q -n "${0##*/}" -o "$short" -l "$long" -- "$@"); then
        err=$(getopt -n "${0##*/}" -o "$short" -l "$long" -- "$@" 2>&1 >/dev/null | head -1 || true)
        cli_fail "${err#"${0##*/}": }"
    fi
}

# cli_check OPTION VALUE ERE WHAT: VALUE must match ^(ERE)$ (bash only;
# the rest of this file is POSIX sh).
cli_check() {
    local re="^($3)\$"
    [[ $2 =~ $re ]] || cli_fail "$1 '$2': expected $4"
}

# cli_check_size OPTION VALUE SUFFIXES BARE MAX_BYTES WHAT MAX_WHAT: VALUE
# is a size above 0 of at most MAX_BYTES, as scripts/platterlib/cli.py's
# size_bytes reads one (the one size parser: digits, then one of SUFFIXES,
# K M G T binary, or none for BARE's unit, '' bytes); else one line:
# "expected WHAT" or "too large: at most MAX_WHAT".
cli_check_size() {
    local bytes
    bytes=$(PYTHONPATH="$(dirname "$(readlink -f "$0")")" /usr/bin/python3 -m platterlib.cli size "$2" "$3" "$4") &&
        [ "$bytes" != 0 ] || cli_fail "$1 '$2': expected $6"
    cli_check_max "$1" "$2" "$bytes" "$5" "$7"
}

# cli_check_max OPTION VALUE NUMBER MAX WHAT: NUMBER (decimal digits, any
# length: VALUE or its number part) is at most MAX, compared as text, so
# that no shell arithmetic can wrap (bash: 64-bit signed).
cli_check_max() {
    local n=$3 max=$4
    while [ "${n#0}" != "$n" ]; do n=${n#0}; done
    { [ ${#n} -lt ${#max} ] || { [ ${#n} -eq ${#max} ] && [[ ! $n > $max ]]; }; } ||
        cli_fail "$1 '$2': too large: at most $5"
}
