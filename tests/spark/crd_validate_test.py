#!/usr/bin/python3
"""Validates the builder's SparkApplications against the operators' real CRDs.

Stricter than the API server's default: an unknown field is an error (as with
?fieldValidation=Strict) instead of being pruned silently. Usage:
  crd_validate_test.py <spark_builder_dump> [--kubeflow] <crd.yaml>...
(--kubeflow: kubeflow/spark-operator's v1beta2, else apache/spark-kubernetes-operator's v1).
Exits 77 (skipped) when no CRD file exists.
"""

import json
import os
import re
import subprocess
import sys

import yaml

LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def version_schema(path, wanted):
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(path) as f:
        for doc in yaml.load_all(f, Loader=loader):
            if doc and doc.get("kind") == "CustomResourceDefinition":
                for version in doc["spec"]["versions"]:
                    if version["name"] == wanted:
                        return version["schema"]["openAPIV3Schema"]
    raise SystemExit(f"{path}: no {wanted} version")


def validate(value, schema, path, errors):
    if schema.get("x-kubernetes-int-or-string"):
        if not (isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))):
            errors.append(f"{path}: expected int or string")
        return
    kind = schema.get("type")
    checks = {
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
    }
    if kind in checks and not checks[kind](value):
        errors.append(f"{path}: expected {kind}, got {type(value).__name__}")
        return
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} not in {schema['enum']}")
    if kind == "integer" and not -(2**63) <= value < 2**63:
        errors.append(f"{path}: out of int64 range")
    if kind == "object":
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for name in schema.get("required", []):
            if name not in value:
                errors.append(f"{path}: missing required {name}")
        for name, item in value.items():
            if name in props:
                validate(item, props[name], f"{path}.{name}", errors)
            elif isinstance(extra, dict):
                validate(item, extra, f"{path}[{name}]", errors)
            elif not schema.get("x-kubernetes-preserve-unknown-fields") and (props or extra is False):
                errors.append(f"{path}: unknown field {name}")
    if kind == "array":
        for i, item in enumerate(value):
            validate(item, schema.get("items", {}), f"{path}[{i}]", errors)


def check_app(app, schema, api_version):
    errors = []
    if app.get("apiVersion") != api_version or app.get("kind") != "SparkApplication":
        errors.append("apiVersion/kind")
    meta = app.get("metadata", {})
    if not DNS_LABEL.match(meta.get("name", "")) or len(meta["name"]) > 63:
        errors.append(f"metadata.name {meta.get('name')!r}")
    if not DNS_LABEL.match(meta.get("namespace", "")):
        errors.append(f"metadata.namespace {meta.get('namespace')!r}")
    for key, value in meta.get("labels", {}).items():
        if not isinstance(value, str) or len(value) > 63 or not LABEL_VALUE.match(value):
            errors.append(f"label {key}={value!r}")
    for key, value in meta.get("annotations", {}).items():
        if not isinstance(value, str):
            errors.append(f"annotation {key}")
    body = {k: v for k, v in app.items() if k not in ("apiVersion", "kind", "metadata")}
    validate(body, {"type": "object", "properties": {k: v for k, v in schema["properties"].items()
                                                      if k not in ("apiVersion", "kind", "metadata")}},
             "", errors)
    return errors


def main():
    args = sys.argv[2:]
    kubeflow = "--kubeflow" in args
    dump, crds = sys.argv[1], [p for p in args if p != "--kubeflow" and os.path.exists(p)]
    if not crds:
        print("no CRD file found: skipped")
        return 77
    version, api_version = (("v1beta2", "sparkoperator.k8s.io/v1beta2") if kubeflow
                            else ("v1", "spark.apache.org/v1"))
    apps = [json.loads(line) for line in subprocess.run(
        [dump] + (["kubeflow"] if kubeflow else []), check=True, capture_output=True,
        text=True).stdout.splitlines()]
    assert len(apps) >= 4, apps
    failed = False
    for crd in crds:
        schema = version_schema(crd, version)
        # The validator must be able to fail: a wrong type, an unknown field and a bad enum.
        broken = json.loads(json.dumps(apps[0]))
        broken["spec"]["bogus"] = 1
        if kubeflow:
            broken["spec"]["arguments"] = "100"
            broken["spec"]["restartPolicy"]["type"] = "Sometimes"
        else:
            broken["spec"]["driverArgs"] = "100"
            broken["spec"]["applicationTolerations"]["resourceRetainPolicy"] = "Sometimes"
        assert len(check_app(broken, schema, api_version)) == 3, check_app(
            broken, schema, api_version)
        if kubeflow:
            missing = json.loads(json.dumps(apps[0]))
            del missing["spec"]["driver"]
            assert check_app(missing, schema, api_version) == [".spec: missing required driver"]
        for app in apps:
            errors = check_app(app, schema, api_version)
            name = app["metadata"]["name"]
            print(f"{os.path.basename(os.path.dirname(crd))} {name}: {'OK' if not errors else errors}")
            failed = failed or bool(errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
