# fio_runtime S: a runtime of S seconds (a decimal, at most 9 decimals) as
# fio reads it exactly, in whole microseconds: fio 3.33 reads a plain
# --runtime=0.3 as whole seconds, 0, which means no time limit (a
# time-based job then runs until its size is written).  A rest below a
# microsecond rounds up, so no runtime becomes 0.
fio_runtime() {
    case $1 in
    *.*) _int=${1%%.*} _frac=${1#*.} ;;
    *) _int=$1 _frac= ;;
    esac
    _frac=${_frac}000000000
    _rest=${_frac#??????}
    _frac=${_frac%"$_rest"}
    # leading zeros would make $(( )) read octal
    _int=$(echo "${_int:-0}" | sed 's/^0*//')
    _frac=$(echo "$_frac" | sed 's/^0*//')
    _us=$(( ${_int:-0} * 1000000 + ${_frac:-0} ))
    case $_rest in *[1-9]*) _us=$((_us + 1)) ;; esac
    echo "${_us}us"
}
