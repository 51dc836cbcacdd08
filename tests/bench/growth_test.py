"""bench/growth.py: a scale curve judged against the growth bench/README.md states for it."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import growth  # noqa: E402


def curve_rows(name, points, law, better="lower", floor=0.0, unit="apps"):
    return [{"metric": "%s, %d" % (name, s), "value": v, "curve": name, "size": s,
             "size_unit": unit, "growth": law, "better": better, "noise_floor": floor,
             "plot": "p-" + name} for s, v in points]


class CheckTest(unittest.TestCase):
    def test_constant_within_noise_passes(self):
        got = growth.check([(10000, 1100), (100000, 1125), (300000, 1300)], "constant")
        self.assertAlmostEqual(got["grew"], 1300 / 1100)
        self.assertEqual(got["expected"], 1.0)
        self.assertTrue(got["pass"])
        self.assertEqual((got["small"], got["large"]), (10000, 300000))

    def test_constant_that_grows_linearly_fails(self):
        got = growth.check([(10000, 1.0), (300000, 30.0)], "constant")
        self.assertAlmostEqual(got["normalised"], 30.0)
        self.assertFalse(got["pass"])

    def test_linear_total_passes_and_quadratic_fails(self):
        self.assertTrue(growth.check([(10000, 0.4), (300000, 11.0)], "linear")["pass"])
        quadratic = growth.check([(10000, 0.4), (300000, 0.4 * 900)], "linear")
        self.assertAlmostEqual(quadratic["normalised"], 30.0)
        self.assertFalse(quadratic["pass"])

    def test_n_log_n(self):
        got = growth.check([(1000, 1.0), (1000000, 2000.0)], "n log n")
        self.assertAlmostEqual(got["expected"], 2000.0)
        self.assertAlmostEqual(got["normalised"], 1.0)
        self.assertTrue(got["pass"])

    def test_tolerance_is_the_boundary(self):
        self.assertTrue(growth.check([(1, 1.0), (10, 2.0)], "constant", tolerance=2.0)["pass"])
        self.assertFalse(growth.check([(1, 1.0), (10, 2.01)], "constant", tolerance=2.0)["pass"])

    def test_higher_is_better_inverts_the_cost(self):
        # A throughput ratio that halves is a cost that doubles.
        self.assertAlmostEqual(growth.check([(1000, 1.0), (300000, 0.5)], "constant",
                                            better="higher")["grew"], 2.0)
        self.assertFalse(growth.check([(1000, 1.0), (300000, 0.4)], "constant",
                                      better="higher")["pass"])
        self.assertTrue(growth.check([(1000, 1.0), (300000, 3.0)], "constant",
                                     better="higher")["pass"])

    def test_values_under_the_floor_count_as_the_floor(self):
        # 1 ms to 4 ms is four times, but both are scheduling noise under a 5 ms floor.
        got = growth.check([(100, 1.0), (10000, 4.0)], "constant", floor=5.0)
        self.assertEqual(got["grew"], 1.0)
        self.assertTrue(got["pass"])
        self.assertFalse(growth.check([(100, 1.0), (10000, 12.0)], "constant", floor=5.0)["pass"])

    def test_middle_sizes_and_order_do_not_matter(self):
        got = growth.check([(300000, 2.0), (100000, 99.0), (10000, 1.0)], "constant")
        self.assertEqual((got["small"], got["large"], got["grew"]), (10000, 300000, 2.0))

    def test_unmeasured_points_are_left_out(self):
        got = growth.check([(100, 1.0), (1000, 1.5), (10000, None)], "constant")
        self.assertEqual(got["large"], 1000)
        self.assertIsNone(growth.check([(100, 1.0), (10000, "n/a")], "constant"))
        self.assertIsNone(growth.check([(100, 1.0), (10000, True)], "constant"))

    def test_fewer_than_two_sizes_is_no_verdict(self):
        self.assertIsNone(growth.check([], "linear"))
        self.assertIsNone(growth.check([(100, 1.0)], "linear"))
        self.assertIsNone(growth.check([(100, 1.0), (100, 2.0)], "linear"))

    def test_a_value_that_is_not_positive_gives_no_ratio(self):
        got = growth.check([(100, -3.0), (10000, 20.0)], "constant")
        self.assertIsNone(got["pass"])
        self.assertIsNone(got["normalised"])

    def test_unknown_law_or_direction_is_an_error(self):
        with self.assertRaises(ValueError):
            growth.check([(1, 1.0), (2, 1.0)], "quadratic")
        with self.assertRaises(ValueError):
            growth.check([(1, 1.0), (2, 1.0)], "constant", better="sideways")


class GrowthRowsTest(unittest.TestCase):
    def test_one_row_per_curve_with_its_verdict(self):
        rows = (curve_rows("P8 relist", [(10000, 0.2), (100000, 2.0), (300000, 6.5)], "linear") +
                curve_rows("P4 bytes per cached app", [(10000, 1000), (300000, 3100)], "constant")
                + [{"metric": "P5 Submit overhead", "value": 0.3}])
        out = {r["growth_of"]: r for r in growth.growth_rows(rows)}
        self.assertEqual(set(out), {"P8 relist", "P4 bytes per cached app"})
        relist = out["P8 relist"]
        self.assertTrue(relist["pass"])
        self.assertEqual(relist["metric"], "Growth of P8 relist, 300k apps / 10k apps")
        self.assertEqual(relist["value"], round(6.5 / 0.2 / 30, 2))
        self.assertEqual(relist["goal"], "<= 2 (linear)")
        self.assertEqual(relist["plot"], "p-P8 relist")
        self.assertFalse(out["P4 bytes per cached app"]["pass"])

    def test_streams_are_named_in_full(self):
        rows = curve_rows("P9 p99", [(100, 2.0), (10000, 3.0)], "constant", unit="streams")
        self.assertEqual(growth.growth_rows(rows)[0]["metric"],
                         "Growth of P9 p99, 10000 streams / 100 streams")

    def test_a_curve_with_one_measured_size_has_no_row(self):
        rows = curve_rows("P9 p99", [(100, 2.0), (10000, None)], "constant", unit="streams")
        self.assertEqual(growth.growth_rows(rows), [])

    def test_rows_without_a_size_are_not_a_curve(self):
        rows = [{"metric": "x", "value": 1.0, "curve": "x"}, {"metric": "x", "value": 9.0,
                                                               "curve": "x", "size": None}]
        self.assertEqual(growth.growth_rows(rows), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
