"""No container engine runs here, so the Dockerfile is checked for what would break the image:
every shared library the binary needs must come from a package its runtime stage installs, the
user must be numeric and non-root, and the entrypoint must be exec form (the binary is PID 1 and
handles SIGTERM itself)."""

import os
import re
import subprocess
import unittest

BINARY = os.environ["KJE_BINARY"]
DOCKERFILE = os.path.join(os.environ["KJE_SOURCE_DIR"], "Dockerfile")
# In every debian:bookworm-slim image (essential packages).
BASE_IMAGE = {"libc6", "libgcc-s1"}


def runtime_stage(text):
    stages = re.split(r"(?m)^FROM ", text)
    runtime = [s for s in stages if s.split("\n", 1)[0].strip().endswith("AS runtime")]
    assert len(runtime) == 1, "no single runtime stage"
    return runtime[0]


def installed_packages(stage):
    joined = stage.replace("\\\n", " ")
    packages = set()
    for m in re.finditer(r"apt-get install ([^&\n]*)", joined):
        packages.update(w for w in m.group(1).split() if not w.startswith("-"))
    return packages


def with_dependencies(packages):
    """`packages` and everything apt installs with them (their Depends and PreDepends, through
    every level, as this machine's dpkg records them): a library that comes with libcurl4 is
    in the image without being named."""
    closure, todo = set(), list(packages)
    while todo:
        name = todo.pop()
        if name in closure:
            continue
        closure.add(name)
        out = subprocess.run(["dpkg-query", "-W", "-f=${Depends}, ${Pre-Depends}", name],
                             capture_output=True, text=True)
        if out.returncode != 0:
            continue  # not installed here: its own dependencies can't be read
        for alternative in out.stdout.split(","):
            first = alternative.split("|")[0].strip()
            if first:
                todo.append(first.split()[0].split(":")[0])
    return closure


def linked_packages(binary):
    out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    packages = {}
    for line in out.splitlines():
        m = re.search(r"=> (/\S+)", line)
        if not m:
            continue
        path = os.path.realpath(m.group(1))
        owner = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
        if owner.returncode != 0:
            owner = subprocess.run(["dpkg", "-S", m.group(1)], capture_output=True, text=True)
        if owner.returncode != 0:
            raise AssertionError("no Debian package owns %s" % m.group(1))
        packages[owner.stdout.split(":")[0]] = m.group(1)
    return packages


class DockerfileTest(unittest.TestCase):

    def setUp(self):
        with open(DOCKERFILE) as f:
            self.text = f.read()
        self.runtime = runtime_stage(self.text)

    @unittest.skipIf(os.environ.get("KJE_SANITIZER_BUILD"),
                     "a sanitizer build links its runtime; the image is built without one")
    def test_runtime_packages_cover_every_linked_library(self):
        linked = linked_packages(BINARY)
        self.assertIn("libgrpc++1.51", linked)  # the check sees real dependencies
        missing = {p: lib for p, lib in linked.items()
                   if p not in with_dependencies(installed_packages(self.runtime)) | BASE_IMAGE}
        self.assertEqual(missing, {}, "packages the runtime stage must install")

    def test_runtime_user_and_entrypoint(self):
        self.assertRegex(self.runtime, r"(?m)^USER 65532:65532$")
        self.assertRegex(self.runtime, r'(?m)^ENTRYPOINT \["/usr/local/bin/k8s-job-executor"\]$')
        self.assertIn("FROM debian:bookworm-slim AS runtime", "FROM " + self.runtime)
        self.assertRegex(self.text, r"(?m)^FROM debian:bookworm AS build$")


if __name__ == "__main__":
    unittest.main(verbosity=2)
