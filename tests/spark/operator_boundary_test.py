"""No file outside the operators' folders names an operator.

Each Spark operator is a plug-in: its folder under spark/ (builder, states, status mapping,
projection, backend) and one line of the registry (spark/operators.cc). The layers above it ask
the backend and never name an operator, so a third one is a folder and a registry line. This
test reads the layers that must stay neutral and fails on any of: an operator's API group, its
own kinds, the compound spellings of its states (read from its folder, so a new state is
covered), an include of an operator's folder, or its C++ namespace.
"""

import os
import re
import sys
import unittest

SOURCE = os.environ.get("KJE_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))

# The layers that must name no operator.
NEUTRAL = ["server", "executor", "cache", "k8s", "base", "async", "app", "grpc_util"]
# spark/'s own files are the neutral domain too, but for the registry, which names each operator
# once; its subfolders are the operators.
REGISTRY = ["operators.h", "operators.cc"]

# A state worth banning is a compound spelling (RunningHealthy, SUBMISSION_FAILED): a single word
# such as Failed or RUNNING is also plain English and a neutral status.
COMPOUND = re.compile(r"^(?:[A-Z][a-z]+(?:[A-Z][a-z]*)+|[A-Z]+(?:_[A-Z]+)+)$")


def state_files():
    """The files that spell each operator's states."""
    found = []
    for root, _, files in os.walk(os.path.join(SOURCE, "spark")):
        for name in files:
            if name == "app_state.cc":
                found.append(os.path.join(root, name))
    return found


def operator_states():
    states = set()
    for path in state_files():
        with open(path, encoding="utf-8") as f:
            for literal in re.findall(r'"([A-Za-z_]+)"', f.read()):
                if COMPOUND.match(literal):
                    states.add(literal)
    return states


def operator_folders():
    spark = os.path.join(SOURCE, "spark")
    return sorted(d for d in os.listdir(spark) if os.path.isdir(os.path.join(spark, d)))


def forbidden_patterns():
    patterns = {
        "an operator's API group": re.compile(r"spark\.apache\.org|sparkoperator\.k8s\.io"),
        "an operator's own kind": re.compile(r"ScheduledSparkApplication"),
    }
    for folder in operator_folders():
        patterns["an include of spark/%s/" % folder] = re.compile(
            r'#include "spark/%s/' % re.escape(folder))
        patterns["the namespace spark::%s" % folder] = re.compile(
            r"\bspark::%s\b|namespace %s\b" % (re.escape(folder), re.escape(folder)))
    states = operator_states()
    if states:
        patterns["an operator's state"] = re.compile(
            r"\b(?:%s)\b" % "|".join(sorted(map(re.escape, states))))
    return patterns


def neutral_files():
    spark = os.path.join(SOURCE, "spark")
    for name in sorted(os.listdir(spark)):
        if name.endswith((".cc", ".h")) and name not in REGISTRY:
            yield os.path.join(spark, name)
    for layer in NEUTRAL:
        top = os.path.join(SOURCE, layer)
        for root, _, files in os.walk(top):
            for name in files:
                if name.endswith((".cc", ".h")):
                    yield os.path.join(root, name)


class OperatorBoundaryTest(unittest.TestCase):
    def test_the_states_are_read(self):
        # Both operators' folders spell states the check looks for; an empty list would make
        # the check below pass vacuously.
        states = operator_states()
        self.assertIn("RunningHealthy", states)
        self.assertIn("SUBMISSION_FAILED", states)

    def test_the_patterns_catch_what_they_mean(self):
        patterns = forbidden_patterns()
        samples = ['#include "spark/kubeflow/backend.h"', "spark::kubeflow::MapStatus",
                   'kGroup = "sparkoperator.k8s.io"', "state == \"RunningHealthy\"",
                   "a ScheduledSparkApplication"]
        for sample in samples:
            self.assertTrue(any(p.search(sample) for p in patterns.values()), sample)
        self.assertFalse(any(p.search("the job FAILED; it was RUNNING")
                             for p in patterns.values()))

    def test_no_neutral_file_names_an_operator(self):
        patterns = forbidden_patterns()
        found = []
        for path in neutral_files():
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    for what, pattern in patterns.items():
                        if pattern.search(line):
                            found.append("%s:%d names %s: %s" % (
                                os.path.relpath(path, SOURCE), number, what, line.strip()))
        self.assertEqual(found, [], "\n" + "\n".join(found))


if __name__ == "__main__":
    sys.exit(unittest.main())
