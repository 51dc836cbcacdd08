"""bench/plots.py: a results.json's curves as gnuplot programs, SVGs and index.html. Drawing needs
gnuplot (Debian's gnuplot-nox); without it those tests skip and the rest still run."""

import json
import os
import re
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import growth  # noqa: E402
import plots  # noqa: E402


def point(curve, size, value, goal="<= 100", plot="p3-freshness-p99", unit="ms"):
    return {"metric": "%s, %d apps" % (curve, size), "value": value, "unit": unit, "goal": goal,
            "pass": value is not None, "curve": curve, "plot": plot, "plot_title": "P3 <title>",
            "size": size, "size_unit": "apps", "growth": "constant", "better": "lower",
            "noise_floor": 10.0}


def results(rows):
    rows = rows + growth.growth_rows(rows)
    return {"generated_at": "2026-12-05T00:00:00Z", "host_cpus": 2, "load_average": [1, 2, 3],
            "build_dir": "/b", "results": rows}


ROWS = [point("P3 via Status", 100, 2.4), point("P3 via Status", 300000, 5.0),
        point("P3 via WatchStatus", 100, 15.0), point("P3 via WatchStatus", 300000, None),
        point("P8 synced", 10000, 0.3, goal="report only", plot="p8", unit="s"),
        point("P8 synced", 300000, 9.0, goal="report only", plot="p8", unit="s"),
        {"metric": "P5 Submit overhead", "value": 0.3, "unit": "ms", "goal": "<= 0.2",
         "pass": False}]


class ScriptTest(unittest.TestCase):
    def test_figures_group_curves_by_plot_with_their_growth_rows(self):
        figs = plots.figures(results(ROWS)["results"])
        self.assertEqual(list(figs), ["p3-freshness-p99", "p8"])
        self.assertEqual(list(figs["p3-freshness-p99"]["curves"]),
                         ["P3 via Status", "P3 via WatchStatus"])
        self.assertEqual([r["growth_of"] for r in figs["p8"]["growth"]], ["P8 synced"])

    def test_goal_values(self):
        self.assertEqual(plots.goal_value("<= 100"), 100.0)
        self.assertEqual(plots.goal_value(">= 0.9"), 0.9)
        self.assertEqual(plots.goal_value("< 200"), 200.0)
        self.assertIsNone(plots.goal_value("report only"))
        self.assertIsNone(plots.goal_value(None))

    def test_script_has_log_axes_the_points_and_the_goal_line(self):
        fig = plots.figures(results(ROWS)["results"])["p3-freshness-p99"]
        script = plots.gnuplot_script(fig, "/out/p3.svg")
        self.assertIn("set terminal svg", script)
        self.assertIn('set output "/out/p3.svg"', script)
        self.assertIn("set logscale xy", script)
        self.assertIn('"300k" 300000', script)
        self.assertIn("100 2.4\n300000 5.0\n", script)
        self.assertIn("goal <= 100 ms", script)
        # The unmeasured point is left out of the plot, not drawn as zero.
        self.assertNotIn("None", script)

    def test_axes_name_their_units_and_label_every_1_2_5_of_each_decade(self):
        fig = plots.figures(results(ROWS)["results"])["p3-freshness-p99"]
        script = plots.gnuplot_script(fig, "/out/p3.svg")
        self.assertIn('set ylabel "milliseconds (ms), log scale"', script)
        self.assertIn('set xlabel "apps, log scale"', script)
        ytics = re.search(r"^set ytics \((.*)\)$", script, re.M).group(1)
        labelled = [float(v) for v in re.findall(r'"[^"]*" ([0-9.e+-]+)', ytics)]
        lo, hi = [float(v) for v in re.search(r"set yrange \[([^:]+):([^\]]+)\]",
                                               script).groups()]
        # 2.4 to 100 ms (the goal) on the axis: 2, 5, 10, 20, 50, 100 and 200 are labelled.
        self.assertEqual([2, 5, 10, 20, 50, 100, 200], labelled)
        self.assertTrue(all(lo <= v <= hi for v in labelled))
        # A narrow range still gets four labels or more.
        narrow = plots.figures(results([point("P3 via Status", 100, 5.0),
                                        point("P3 via Status", 1000, 5.5, goal="report only")])
                               ["results"])["p3-freshness-p99"]
        ytics = re.search(r"^set ytics \((.*)\)$", plots.gnuplot_script(narrow, "/o.svg"),
                          re.M).group(1)
        self.assertGreaterEqual(len(re.findall(r'"[^"]*" [0-9.]+', ytics)), 4)
        self.assertEqual(["10k", "25"], [plots.tick_label(10000.0), plots.tick_label(25.0)])

    def test_no_goal_line_without_a_numeric_goal(self):
        fig = plots.figures(results(ROWS)["results"])["p8"]
        self.assertNotIn("goal", plots.gnuplot_script(fig, "/out/p8.svg"))

    def test_index_escapes_and_lists_every_point_and_verdict(self):
        data = results(ROWS)
        page = plots.index_html(data, plots.figures(data["results"]), {"p8"})
        self.assertIn("P3 &lt;title&gt;", page)
        self.assertIn('<img src="p8.svg"', page)
        self.assertNotIn('<img src="p3-freshness-p99.svg"', page)
        self.assertIn("<td>P3 via WatchStatus, 300000 apps</td><td>300000 apps</td><td>n/a</td>",
                      page)
        self.assertIn("Growth of P8 synced, 300k apps / 10k apps", page)
        self.assertNotIn("P5 Submit overhead", page)


@unittest.skipUnless(shutil.which("gnuplot"), "gnuplot is not installed (gnuplot-nox)")
class DrawTest(unittest.TestCase):
    def test_write_all_draws_svgs_and_publishes_them(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "results.json")
            with open(path, "w") as f:
                json.dump(results(ROWS), f)
            files, problems = plots.write_all(path, publish=os.path.join(d, "pub"))
            self.assertEqual(problems, [])
            for name in ("p3-freshness-p99.svg", "p8.svg", "index.html"):
                self.assertIn(os.path.join(d, name), files)
                self.assertTrue(os.path.exists(os.path.join(d, "pub", name)), name)
            with open(os.path.join(d, "p8.svg")) as f:
                self.assertIn("<svg", f.read())
            # The value axis's labels are drawn: 1-2-5 of each decade, not a lone power of ten.
            with open(os.path.join(d, "p3-freshness-p99.svg")) as f:
                svg = f.read()
            for label in ("2", "5", "20", "50", "milliseconds (ms), log scale"):
                self.assertRegex(svg, r">\s*%s\s*<" % re.escape(label))


if __name__ == "__main__":
    unittest.main(verbosity=2)
