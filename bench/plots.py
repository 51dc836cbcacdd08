#!/usr/bin/python3
"""The scale curves of a results.json as plots: one SVG per figure (cost against size, log-log,
the goal as a horizontal line where there is a numeric one), drawn by gnuplot (Debian's
gnuplot-nox), and an index.html showing each plot beside its table of points.

usage: bench/plots.py [RESULTS_JSON] [--publish DIR]

RESULTS_JSON defaults to <repo>/build/bench/results.json; the SVGs and index.html go beside it.
--publish copies them into DIR as well (`make bench-publish`: docs/bench, which the README
shows). bench/run.py calls write_all() after every run. Exit status 1 when gnuplot is missing or
fails (index.html is written all the same).
"""

import argparse
import html
import json
import math
import os
import re
import shutil
import subprocess
import sys

import growth

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(REPO, "build", "bench", "results.json")
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd")


def figures(rows):
    """{plot stem: {"title", "unit", "size_unit", "curves": {name: [rows]}, "growth": [rows]}},
    in the order the rows came."""
    out = {}
    for name, points in growth.curves(rows).items():
        first = points[0]
        fig = out.setdefault(first["plot"], {"title": first.get("plot_title", name),
                                             "unit": first["unit"],
                                             "size_unit": first.get("size_unit", ""),
                                             "curves": {}, "growth": []})
        fig["curves"][name] = points
    for r in rows:
        if r.get("growth_of") and r.get("plot") in out:
            out[r["plot"]]["growth"].append(r)
    return out


def goal_value(goal):
    """The number of a goal such as "<= 100" or ">= 0.9"; None for "report only", "-"."""
    m = re.match(r"\s*(<=|>=|<|>)\s*([0-9.]+)", str(goal or ""))
    return float(m.group(2)) if m else None


def common_goal(fig):
    """The one numeric goal every point of the figure shares, if any (with its text)."""
    goals = {r.get("goal") for points in fig["curves"].values() for r in points}
    if len(goals) != 1:
        return None, None
    text = goals.pop()
    value = goal_value(text)
    return (value, text) if value is not None else (None, None)


def size_tic(n):
    if n >= 1000 and n % 1000 == 0:
        return "%dk" % (n // 1000)
    return str(n)


# What a unit measures, for the value axis's label.
UNIT_NAMES = {"ms": "milliseconds", "s": "seconds", "us": "microseconds", "B": "bytes",
              "KiB": "kibibytes", "MiB": "mebibytes", "x": "ratio"}


def axis_label(quantity, unit):
    """"milliseconds (ms), log scale": the unit spelt out and as the points give it."""
    name = UNIT_NAMES.get(unit)
    text = "%s (%s)" % (name, unit) if name else (unit or quantity)
    return "%s, log scale" % text


def log_ticks(lo, hi):
    """Tick values from lo to hi on a log axis, labelled every 1, 2 and 5 of each decade (and
    more within a narrow range), so that a reader can read a point's value off the axis."""
    if lo <= 0 or hi <= lo:
        return []
    for steps in ((1, 2, 5), (1, 1.5, 2, 3, 5, 7), (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9)):
        ticks = []
        decade = 10.0 ** math.floor(math.log10(lo))
        while decade <= hi:
            ticks += [float("%.6g" % (m * decade)) for m in steps if lo <= m * decade <= hi]
            decade *= 10
        if len(ticks) >= 4:
            return ticks
    return ticks


def tick_label(v):
    if v >= 10000 and v % 1000 == 0:
        return size_tic(int(v))
    return "%g" % v


def gnuplot_script(fig, svg_path):
    """A gnuplot program drawing `fig` into svg_path; the points are inline data blocks."""
    goal, goal_text = common_goal(fig)
    series = {name: [(r["size"], r["value"]) for r in points
                     if growth.is_number(r["value"]) and r["value"] > 0]
              for name, points in fig["curves"].items()}
    sizes = sorted({s for pts in series.values() for s, _ in pts})
    values = [v for pts in series.values() for _, v in pts] + ([goal] if goal else [])
    lines = ['set terminal svg size 720,440 noenhanced font "sans,12" background rgb "white"',
             "set output %s" % quote(svg_path),
             "set title %s" % quote(fig["title"]),
             "set logscale xy", "set grid", "set key below spacing 1.3", "set bmargin 7",
             "set xlabel %s" % quote("%s, log scale" % (fig["size_unit"] or "size")),
             "set ylabel %s" % quote(axis_label("value", fig["unit"])), 'set format y "%g"',
             "set mxtics 10", "set mytics 10"]
    if sizes:
        lines.append("set xrange [%g:%g]" % (sizes[0] / 1.6, sizes[-1] * 1.6))
        lines.append("set xtics (%s)" % ", ".join('"%s" %d' % (size_tic(s), s) for s in sizes))
    if values:
        lo, hi = min(values), max(values)
        lines.append("set yrange [%g:%g]" % (lo / 2, hi * 2))
        # gnuplot labels powers of ten only, often one or two in range: every 1-2-5 of each
        # decade gets a label, and the goal one of its own.
        ticks = log_ticks(lo / 2, hi * 2)
        marks = sorted(set(ticks) | ({goal} if goal else set()))
        if marks:
            lines.append("set ytics (%s)" % ", ".join('"%s" %r' % (tick_label(m), m)
                                                        for m in marks))
    plot = []
    for i, (name, pts) in enumerate(series.items()):
        block = "$s%d" % i
        lines.append("%s << EOD" % block)
        lines += ["%d %r" % (s, float(v)) for s, v in pts] or ["1 NaN"]
        lines.append("EOD")
        plot.append('%s using 1:2 with linespoints lw 2 pt 7 ps 1.2 lc rgb "%s" title %s'
                    % (block, COLOURS[i % len(COLOURS)], quote(name)))
    if goal:
        plot.append('%r with lines dt 2 lw 2 lc rgb "#c00000" title %s'
                    % (goal, quote("goal %s %s" % (goal_text, fig["unit"]))))
    lines.append("plot " + ", \\\n     ".join(plot))
    return "\n".join(lines) + "\n"


def quote(text):
    return '"%s"' % str(text).replace("\\", "\\\\").replace('"', '\\"')


def draw(script):
    """Runs gnuplot on `script`; returns None, or why it could not."""
    if shutil.which("gnuplot") is None:
        return "gnuplot is not installed (Debian: gnuplot-nox; scripts/install-deps.sh)"
    done = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True, timeout=60)
    if done.returncode != 0:
        return "gnuplot exited with %d: %s" % (done.returncode, done.stderr.strip()[-500:])
    return None


def cell(v):
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return "%.3g" % v if abs(v) < 100 else "%.0f" % v
    return str(v)


def verdict(passed):
    return {True: "PASS", False: "FAIL", None: "-"}[passed]


def table(fig):
    head = "<tr><th>metric</th><th>size</th><th>value</th><th>unit</th><th>goal</th>" \
           "<th>pass</th></tr>"
    body = []
    for points in fig["curves"].values():
        for r in points:
            body.append((r["metric"], "%d %s" % (r["size"], r.get("size_unit", "")),
                         cell(r["value"]), r["unit"], r.get("goal", "-"), r.get("pass")))
    for r in fig["growth"]:
        body.append((r["metric"], "-", cell(r["value"]), r["unit"], r["goal"], r["pass"]))
    css = {True: "pass", False: "fail", None: "none"}
    cells = "".join("<tr>%s<td class=\"%s\">%s</td></tr>" % (
        "".join("<td>%s</td>" % html.escape(str(c)) for c in b[:5]), css[b[5]], verdict(b[5]))
        for b in body)
    return "<table>%s%s</table>" % (head, cells)


def index_html(data, figs, drawn):
    """The page: the run's circumstances, then each figure's plot beside its points."""
    out = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>k8s-job-executor scale curves</title>",
           "<style>body{font-family:sans-serif;margin:1.5em}section{display:flex;gap:1.5em;"
           "align-items:flex-start;flex-wrap:wrap;margin-bottom:2em}img{width:720px;"
           "max-width:100%}table{border-collapse:collapse;font-size:0.9em}td,th{border:1px "
           "solid #ccc;padding:2px 6px;text-align:left}td.fail{color:#c00000;font-weight:bold}"
           "td.pass{color:#207020}</style></head><body>",
           "<h1>k8s-job-executor scale curves</h1>",
           "<p>%s</p>" % html.escape(
               "bench/run.py at %s, %s CPUs, load average %s, binaries from %s. Method and the "
               "growth each curve should follow: bench/README.md."
               % (data.get("generated_at", "?"), data.get("host_cpus", "?"),
                  " ".join("%.1f" % x for x in data.get("load_average", [])),
                  # The build directory's name, not the machine's path to it.
                  os.path.basename(os.path.normpath(data.get("build_dir", "?")))))]
    if not figs:
        out.append("<p>No scale curve in this run.</p>")
    for stem, fig in figs.items():
        out.append("<h2>%s</h2><section>" % html.escape(fig["title"]))
        if stem in drawn:
            out.append('<img src="%s.svg" alt="%s">' % (html.escape(stem),
                                                        html.escape(fig["title"])))
        out.append(table(fig) + "</section>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write_all(results_path, publish=None):
    """Writes every figure's SVG and index.html beside results_path (and copies them into
    `publish`). Returns (files written, problems)."""
    with open(results_path) as f:
        data = json.load(f)
    out_dir = os.path.dirname(os.path.abspath(results_path))
    figs = figures(data.get("results", []))
    drawn, problems, files = set(), [], []
    for stem, fig in figs.items():
        svg = os.path.join(out_dir, stem + ".svg")
        problem = draw(gnuplot_script(fig, svg))
        if problem:
            problems.append("%s: %s" % (stem, problem))
            continue
        drawn.add(stem)
        files.append(svg)
    page = os.path.join(out_dir, "index.html")
    with open(page, "w") as f:
        f.write(index_html(data, figs, drawn))
    files.append(page)
    if publish:
        os.makedirs(publish, exist_ok=True)
        files += [shutil.copy(path, publish) for path in list(files)]
    return files, problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", nargs="?", default=RESULTS)
    parser.add_argument("--publish", metavar="DIR",
                        help="copy the SVGs and index.html into DIR too (e.g. docs/bench)")
    args = parser.parse_args(argv)
    files, problems = write_all(args.results, args.publish)
    for path in files:
        print("plots: wrote %s" % os.path.relpath(path), file=sys.stderr)
    for p in problems:
        print("plots: %s" % p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
