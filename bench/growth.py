"""How a scale curve of bench/run.py grows against how bench/README.md says it should.

Pure functions over result rows (python3's standard library only), so tests/bench/growth_test.py
checks them without a build. A curve is the rows that share a `curve` name, each with a `size`;
the row of its smallest size carries the law it should follow (`growth`), which way is better
(`better`) and the noise floor of its unit (`noise_floor`).
"""

import math

# How much faster than stated a curve may grow before it is flagged. Two runs of the curves on the
# shared 2-core machine, a compile beside them, differed at one size by up to 1.8x (a value under
# its noise floor counted as the floor; bench/README.md, "The growth check"). A power of n more
# than stated is 30x over 10k-300k apps and 100x over 100-10,000 streams, far past it; a log
# factor (n log n read as linear, 1.4x) is within it.
TOLERANCE = 2.0

# The expected cost at size n, up to a constant factor.
LAWS = {
    "constant": lambda n: 1.0,
    "linear": lambda n: float(n),
    "n log n": lambda n: n * math.log(n),
}


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check(points, law, better="lower", floor=0.0, tolerance=TOLERANCE):
    """Judges [(size, value), ...] against `law` from its smallest to its largest size.

    Values below `floor` count as the floor: under it a figure is within the machine's noise,
    and a ratio of two noise readings says nothing. `better` is "lower" for a cost (time, bytes,
    latency) and "higher" for a ratio where more is better (its cost is the inverse). Points whose
    value isn't a number (a size that could not be measured) are left out. Returns None for fewer
    than two measured sizes, else a dict: small, large (the sizes), grew (the cost's factor from
    small to large), expected (the law's factor), normalised (grew / expected), pass (normalised <=
    tolerance, or None when a value is not positive and no ratio can be taken).
    """
    if law not in LAWS:
        raise ValueError("unknown growth law %r (one of %s)" % (law, ", ".join(LAWS)))
    if better not in ("lower", "higher"):
        raise ValueError("better must be 'lower' or 'higher', not %r" % better)
    measured = sorted((s, v) for s, v in points if is_number(v))
    if len(measured) < 2 or measured[0][0] == measured[-1][0]:
        return None
    (small, a), (large, b) = measured[0], measured[-1]
    a, b = max(a, floor), max(b, floor)
    expected = LAWS[law](large) / LAWS[law](small)
    out = {"small": small, "large": large, "expected": expected, "grew": None,
           "normalised": None, "pass": None}
    if a <= 0 or b <= 0:
        return out
    out["grew"] = b / a if better == "lower" else a / b
    out["normalised"] = out["grew"] / expected
    out["pass"] = out["normalised"] <= tolerance
    return out


def curves(rows):
    """{curve name: [rows in size order]} for the rows that belong to a curve."""
    out = {}
    for r in rows:
        if r.get("curve") and is_number(r.get("size")):
            out.setdefault(r["curve"], []).append(r)
    for points in out.values():
        points.sort(key=lambda r: r["size"])
    return out


def size_label(n, unit):
    """10000 apps -> "10k apps"; streams are counted in full (rows say "1000 streams")."""
    if unit == "apps" and n >= 1000 and n % 1000 == 0:
        return "%dk %s" % (n // 1000, unit)
    return "%d %s" % (n, unit)


def growth_rows(rows, tolerance=TOLERANCE):
    """One row per curve with two or more measured sizes: its cost's growth from the smallest to
    the largest size divided by the stated law's, FAIL above `tolerance`."""
    out = []
    for name, points in curves(rows).items():
        first = points[0]
        law = first.get("growth", "constant")
        got = check([(r["size"], r["value"]) for r in points], law, first.get("better", "lower"),
                    first.get("noise_floor") or 0.0, tolerance)
        if got is None:
            continue
        unit = first.get("size_unit", "")
        value = None if got["normalised"] is None else round(got["normalised"], 2)
        out.append({
            "metric": "Growth of %s, %s / %s" % (name, size_label(got["large"], unit),
                                                size_label(got["small"], unit)),
            "value": value, "unit": "x stated", "goal": "<= %g (%s)" % (tolerance, law),
            "pass": got["pass"], "growth_of": name, "plot": first.get("plot"),
            "law": law, "cost_grew": None if got["grew"] is None else round(got["grew"], 3),
            "law_grew": round(got["expected"], 3), "small": got["small"], "large": got["large"],
            "noise_floor": first.get("noise_floor") or 0.0,
            "note": "cost at the largest size / at the smallest, divided by the stated law's "
                    "factor; values under the noise floor count as the floor"})
    return out
