"""--explain's table read back, for the tests that check a picture or a
page against it."""


def us_ns(s):
    # --explain prints microseconds with 3 decimals: exactly the ns
    whole, _, frac = s.partition(".")
    return int(whole) * 1000 + int((frac + "000")[:3])


def explain_rows(text):
    lines = text.splitlines()
    header = next(l for l in lines if l.startswith("#")).split()
    return [dict(zip(header, l.split())) for l in lines if l[:1].isdigit()]
