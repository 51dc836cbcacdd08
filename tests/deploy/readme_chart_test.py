"""What the READMEs say about the Helm chart, checked against the chart as helm renders it.

Each test reads a claim out of README.md or the chart's README (a table, a command, a sentence),
never a copy of it kept here, and renders the chart to see that it holds: the install commands
pull the image the build-and-push steps push; the RBAC table is the rendered Role, row by row and
condition by condition; the exec probes check the loopback health port and need nothing of the TLS
Secret but what `kubectl create secret tls` writes; the misspelt key the README names is refused
with the message it quotes; the dashboard option renders the ConfigMap it describes. A README
edited without the chart, or the chart without the README, fails here.
"""

import json
import os
import re
import shlex
import sys
import unittest

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import helm_test  # noqa: E402  (its helm, rendering and document helpers)
from helm_test import (CHART, MINIMAL, SOURCE_DIR, executor_container, merged,  # noqa: E402
                       of_kind, one, render, render_raw, rule_tuples)

ROOT_README = os.path.join(SOURCE_DIR, "README.md")
CHART_README = os.path.join(CHART, "README.md")


def setUpModule():
    helm_test.setUpModule()


def tearDownModule():
    helm_test.tearDownModule()


def read(path):
    with open(path) as f:
        return f.read()


def section(text, heading):
    """The text under a markdown heading (`## RBAC`), up to the next heading of its level."""
    level = heading.split(" ", 1)[0]
    start = text.index("\n" + heading + "\n") + len(heading) + 2
    end = re.compile(r"^%s " % re.escape(level), re.M).search(text, start)
    return text[start:end.start() if end else len(text)]


def table_rows(text):
    """The body rows of the first markdown table in `text`, as lists of stripped cells."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if all(re.fullmatch(r":?-+:?", c) for c in cells):
            continue
        rows.append(cells)
    return rows[1:]  # the header first


def code_blocks(text, lang):
    return re.findall(r"```%s\n(.*?)```" % lang, text, re.S)


def shell_commands(block):
    """The commands of a sh block: continuation lines joined, comments dropped."""
    joined = block.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines()
            if line.strip() and not line.strip().startswith("#")]


def nested(dotted, value):
    out = value
    for part in reversed(dotted.split(".")):
        out = {part: out}
    return out


def scalar(text):
    return {"true": True, "false": False}.get(text, text)


def deployment_pod(docs):
    """The pod spec of the one Deployment, whatever the release is called."""
    return one(docs, "Deployment")["spec"]["template"]["spec"]


def config_of(docs):
    """The server's config the chart renders (the ConfigMap with config.yaml)."""
    maps = [d for d in of_kind(docs, "ConfigMap") if "config.yaml" in d.get("data", {})]
    assert len(maps) == 1, "expected one config ConfigMap, got %d" % len(maps)
    return yaml.safe_load(maps[0]["data"]["config.yaml"]), maps[0]["data"]["config.yaml"]


def app_version():
    return yaml.safe_load(read(os.path.join(CHART, "Chart.yaml")))["appVersion"]


# ---- the RBAC table ------------------------------------------------------------------------------

def parse_condition(cell):
    """A row's "When": "always", or `key: value` items (each maybe "(the default)"), all of which
    must hold. Returns [(key, value, is_default)]."""
    if cell == "always":
        return []
    items = re.findall(r"`([\w.]+): ([^`]+)`( \(the default\))?", cell)
    assert items, "a When cell neither `always` nor `key: value` items: %r" % cell
    rest = re.sub(r"`[\w.]+: [^`]+`( \(the default\))?", "", cell)
    assert re.fullmatch(r"[\s,]*", rest), "unreadable When cell: %r" % cell
    return [(k, scalar(v), bool(d)) for k, v, d in items]


def parse_rbac_table(text):
    rows = []
    for cells in table_rows(section(text, "## RBAC")):
        group_cell, resource_cell, verbs_cell, when_cell = cells[:4]
        group = re.match(r"`([^`]*)`", group_cell).group(1)
        group = "" if group == '""' else group
        resource = re.fullmatch(r"`([^`]+)`", resource_cell).group(1)
        verbs = [v.strip() for v in verbs_cell.split(",")]
        assert all(re.fullmatch(r"[a-z]+", v) for v in verbs), verbs_cell
        rows.append((group, resource, verbs, parse_condition(when_cell)))
    assert rows, "no RBAC table in the chart's README"
    return rows


def holds(condition, values):
    """Whether a row's condition holds for the chart values `values` (its config's dotted keys)."""
    for key, wanted, is_default in condition:
        node = values
        for part in key.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if node is None:
            if not is_default:
                return False
        elif node != wanted:
            return False
    return True


class ReadmeChartTest(unittest.TestCase):

    def test_rbac_table_is_the_rendered_role_for_every_condition_it_names(self):
        rows = parse_rbac_table(read(CHART_README))
        # Every value a condition names, one at a time, and all of the non-default ones at once.
        settings = {}
        for _, _, _, condition in rows:
            for key, value, is_default in condition:
                if not is_default:
                    settings.setdefault(key, []).append(value)
        cases = [{}] + [nested(k, v) for k, vs in settings.items() for v in dict.fromkeys(vs)]
        combined = {}
        for k, vs in settings.items():
            combined = merged(combined, nested(k, vs[0]))
        cases.append(combined)
        self.assertGreater(len(cases), 4, settings)
        for case in cases:
            with self.subTest(values=case):
                values = merged(case, {"jobNamespaces": ["spark-a", "spark-b"]})
                docs = render(values)
                expected = set()
                for group, resource, verbs, condition in rows:
                    if holds(condition, values):
                        expected |= {(group, resource, v) for v in verbs}
                roles = of_kind(docs, "Role")
                self.assertEqual(["spark-a", "spark-b"],
                                 sorted(r["metadata"]["namespace"] for r in roles))
                for role in roles:
                    self.assertEqual(expected, rule_tuples(role["rules"]))
                # "Nothing cluster-wide".
                self.assertEqual([], of_kind(docs, "ClusterRole"))
                self.assertEqual([], of_kind(docs, "ClusterRoleBinding"))

    # ---- the image ------------------------------------------------------------------------------

    def install_commands(self, readme):
        """Each `helm install` of the README's sh blocks, with the `docker build -t` tags of the
        same block (what the steps before it push)."""
        out = []
        for block in code_blocks(read(readme), "sh"):
            commands = shell_commands(block)
            tags = [a[a.index("-t") + 1] for a in
                    (shlex.split(c) for c in commands if c.startswith("docker build"))
                    if "-t" in a]
            out.extend((shlex.split(c), tags) for c in commands if c.startswith("helm install"))
        return out

    def rendered_install(self, argv):
        """The README's `helm install` as `helm template`, run where the README runs it."""
        self.assertEqual(["helm", "install"], argv[:2])
        chart_arg = argv[3]
        self.assertEqual(CHART, os.path.normpath(os.path.join(SOURCE_DIR, chart_arg)))
        out = helm_test.helm("template", *argv[2:], chart=SOURCE_DIR)
        self.assertEqual(0, out.returncode, out.stderr)
        return [d for d in yaml.safe_load_all(out.stdout) if d]

    def test_every_install_command_pulls_the_image_its_readme_pushes(self):
        version = app_version()
        found = 0
        for readme in (ROOT_README, CHART_README):
            text = read(readme)
            # The root README names the tag in prose; the chart's in the install's own block.
            prose_tags = re.findall(r"docker build -t (\S+) \.", text)
            for argv, tags in self.install_commands(readme):
                found += 1
                with self.subTest(readme=os.path.relpath(readme, SOURCE_DIR), command=argv):
                    # "image.repository (the one value to set)": every install sets it.
                    sets = [argv[i + 1] for i, a in enumerate(argv) if a == "--set"]
                    self.assertTrue(any(s.startswith("image.repository=") for s in sets), sets)
                    docs = self.rendered_install(argv)
                    image = executor_container(deployment_pod(docs))["image"]
                    pushed = tags or prose_tags
                    self.assertTrue(pushed, "no `docker build -t` in " + readme)
                    self.assertIn(image, pushed)
                    # "The tag defaults to the chart's appVersion".
                    self.assertTrue(image.endswith(":" + version), image)
        self.assertGreaterEqual(found, 2)

    def test_the_default_image_is_the_one_the_readme_names(self):
        text = read(CHART_README)
        default = re.search(r"Left at\s+its default `([^`]+)`", text).group(1)
        image = executor_container(deployment_pod(render(MINIMAL)))["image"]
        self.assertEqual("%s:%s" % (default, app_version()), image)
        # "(set `image.tag` or `image.digest` otherwise)"
        overrides = re.search(r"set `(image\.tag)` or `(image\.digest)` otherwise", text).groups()
        digest = "sha256:" + "0" * 64
        for key, value, suffix in ((overrides[0], "9.9.9", ":9.9.9"),
                                   (overrides[1], digest, "@" + digest)):
            with self.subTest(key=key):
                docs = render(merged(nested(key, value)))
                self.assertEqual(default + suffix,
                                 executor_container(deployment_pod(docs))["image"])

    # ---- probes and TLS -------------------------------------------------------------------------

    def test_the_probes_are_the_readme_block_on_the_loopback_health_port(self):
        text = section(read(CHART_README), "## Probes")
        shown = yaml.safe_load(code_blocks(text, "yaml")[0])
        default_port = int(re.search(r"`127\.0\.0\.1:<probes\.healthPort>`, default (\d+)",
                                     text).group(1))
        # The root README's install turns TLS on: the case the exec probes are for.
        argv = [a for a, _ in self.install_commands(ROOT_README)
                if any(s == "tls.enabled=true" for s in a)][0]
        docs = self.rendered_install(argv)
        container = executor_container(deployment_pod(docs))
        for probe, spec in shown.items():
            with self.subTest(probe=probe):
                rendered = container[probe]
                for key, value in spec.items():
                    self.assertEqual(value, rendered[key], key)
        command = container["readinessProbe"]["exec"]["command"]
        config, _ = config_of(docs)
        # "the server's loopback health-only port (`server.healthListen`)"
        health = "127.0.0.1:%d" % default_port
        self.assertEqual(health, config["server"]["healthListen"])
        self.assertEqual(health, command[command.index("--server") + 1])
        # "need no CA, no certificate name and no client certificate"
        self.assertFalse([a for a in command if a.startswith("--tls")], command)

    def test_the_tls_secret_needs_only_what_kubectl_create_secret_tls_writes(self):
        text = section(read(CHART_README), "## TLS and caller authentication")
        mount = re.search(r"mounted at `([^`]+)` and set as `server\.tls\.certFile`", text).group(1)
        # The keys the values table documents for the Secret.
        defaults = {cells[0].strip("`"): cells[2].strip("`")
                    for cells in table_rows(section(read(CHART_README),
                                                    "### gRPC, metrics and security"))}
        cert_key, key_key = defaults["tls.certKey"], defaults["tls.keyKey"]
        # `kubectl create secret tls` writes exactly these two keys.
        self.assertEqual({"tls.crt", "tls.key"}, {cert_key, key_key})
        docs = render(merged({"tls": {"enabled": True, "existingSecret": "kje-tls"}}))
        pod = deployment_pod(docs)
        volume = [v for v in pod["volumes"] if v.get("secret", {}).get("secretName") == "kje-tls"]
        self.assertEqual(1, len(volume), pod["volumes"])
        self.assertEqual({cert_key, key_key}, {i["key"] for i in volume[0]["secret"]["items"]})
        mounts = [m for m in executor_container(pod)["volumeMounts"]
                  if m["name"] == volume[0]["name"]]
        self.assertEqual([mount.rstrip("/")], [m["mountPath"].rstrip("/") for m in mounts])
        config, _ = config_of(docs)
        self.assertTrue(config["server"]["tls"]["certFile"].startswith(mount))
        self.assertTrue(config["server"]["tls"]["keyFile"].startswith(mount))
        # "`tls.clientCa.enabled` adds mutual TLS with `ca.crt` of the same Secret"
        ca_key = re.search(r"adds mutual TLS with `([^`]+)` of the same Secret", text).group(1)
        self.assertEqual(ca_key, defaults["tls.clientCa.key"])
        docs = render(merged({"tls": {"enabled": True, "existingSecret": "kje-tls",
                                      "clientCa": {"enabled": True}}}))
        keys = {i["key"] for v in deployment_pod(docs)["volumes"]
                if v.get("secret", {}).get("secretName") == "kje-tls"
                for i in v["secret"]["items"]}
        self.assertIn(ca_key, keys)

    # ---- values.schema.json ---------------------------------------------------------------------

    def test_the_misspelt_key_the_readme_names_is_refused_as_it_says(self):
        text = read(CHART_README)
        key, message = re.search(r"`(config\.[\w.]+)` fails `helm install` with\s+\"([^\"]+)\"",
                                 text).groups()
        out = render_raw(merged(nested(key, "apache/spark:3.5.5")))
        self.assertNotEqual(0, out.returncode, out.stdout)
        self.assertIn(message, out.stderr)
        # The root README's "any configuration key" under `config.*` is the server's key table.
        schema = json.loads(read(os.path.join(CHART, "values.schema.json")))
        self.assertFalse(schema["properties"]["config"].get("additionalProperties", False))

    # ---- the dashboard --------------------------------------------------------------------------

    def test_the_dashboard_option_renders_the_config_map_it_describes(self):
        text = section(read(CHART_README), "## Metrics")
        option, path, other_dir, label, label_value = re.search(
            r"`([\w.]+)` adds a ConfigMap holding the chart's Grafana dashboard\s+\(`([^`]+)`, "
            r"also at `([^`]+)`\) with the label Grafana's dashboard\s+sidecar looks for "
            r"\(`(\w+): \"([^\"]*)\"` by default\)", text).groups()
        self.assertEqual([], [d for d in render(MINIMAL) if d["kind"] == "ConfigMap"
                              and label in d["metadata"].get("labels", {})])
        docs = render(merged(nested(option, True)))
        maps = [d for d in of_kind(docs, "ConfigMap")
                if d["metadata"].get("labels", {}).get(label) == label_value]
        self.assertEqual(1, len(maps))
        data = maps[0]["data"]
        self.assertEqual([os.path.basename(path)], list(data))
        shipped = json.loads(data[os.path.basename(path)])
        self.assertEqual(json.loads(read(os.path.join(CHART, path))), shipped)
        self.assertEqual(json.loads(read(os.path.join(SOURCE_DIR, other_dir,
                                                      os.path.basename(path)))), shipped)

    # ---- what the chart sets itself -------------------------------------------------------------

    def test_the_keys_the_chart_sets_itself_are_refused_in_config(self):
        text = section(read(CHART_README), "## Configuration")
        self.assertIn("The chart sets these itself and fails if `config` does", text)
        keys = []
        for cells in table_rows(text):
            names = re.findall(r"`([\w.]+)`", cells[0])
            if "(when empty)" in cells[0]:
                continue  # the chart fills it only when empty: config may set it
            base = names[0].rsplit(".", 1)[0]
            keys += [names[0]] + ["%s.%s" % (base, n) for n in names[1:]]
        self.assertIn("server.listen", keys)
        for key in keys:
            with self.subTest(key=key):
                out = render_raw(merged(nested("config." + key, "x")))
                self.assertNotEqual(0, out.returncode, out.stdout)
                # The error names the key, or the part of config it belongs to.
                parts = key.split(".")
                named = ["config." + ".".join(parts[:n]) for n in range(len(parts), 0, -1)]
                self.assertTrue([n for n in named if n + " " in out.stderr or
                                 n + "\n" in out.stderr or n + ":" in out.stderr], out.stderr)


if __name__ == "__main__":
    unittest.main()
