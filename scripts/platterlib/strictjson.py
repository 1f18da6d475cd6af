"""JSON as platter reads it: every spec, report, manifest and child's
output goes through loads(), which refuses what Python's json module lets
through but no platter file can hold: a key given twice (the last one would
silently win), NaN and Infinity, numbers out of range (an integer of
thousands of digits converts slowly or not at all, 1e400 becomes inf) and
nesting deep enough to exhaust the parser's recursion.  Every refusal is an
Invalid (a ValueError) whose message names what is wrong."""
import json
import math

# 2**64 has 20 digits: no count, size or nanosecond figure platter reads is
# longer
INT_DIGITS_MAX = 20


class Invalid(ValueError):
    pass


def _int(text):
    digits = len(text.lstrip("-"))
    if digits > INT_DIGITS_MAX:
        raise Invalid(f"an integer of {digits} digits ({text[:12]}...) is out of range "
                      f"(at most {INT_DIGITS_MAX} digits)")
    return int(text)


def _float(text):
    v = float(text)
    if not math.isfinite(v):
        raise Invalid(f"the number {text[:30]} is out of range")
    return v


def _constant(name):
    raise Invalid(f"{name} is not a JSON number")


def _object(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise Invalid(f"the key {k!r:.60} appears twice in one object")
        obj[k] = v
    return obj


def loads(text):
    """The document in text (str or UTF-8 bytes), or Invalid."""
    try:
        return json.loads(text, parse_int=_int, parse_float=_float,
                          parse_constant=_constant, object_pairs_hook=_object)
    except RecursionError:
        raise Invalid("nested too deeply") from None
    except json.JSONDecodeError as e:
        raise Invalid(str(e)) from None
    except UnicodeDecodeError as e:
        raise Invalid(f"not UTF-8 text ({e.reason} at byte {e.start})") from None
