"""daskflow's Dask configuration keys have their defaults in one file, ``daskflow/daskflow.yaml``."""

import ast
import os
import subprocess
import sys
from pathlib import Path

import yaml

# beside the clusters: no timings checked and no fixed port bound (free ports only)

ROOT = Path(__file__).resolve().parent.parent
YAML = ROOT / "daskflow" / "daskflow.yaml"


def _keys_read():
    """``{key: [file:line, ...]}`` of every ``"daskflow.<key>"`` string the package reads
    with ``dask.config.get`` or ``setting``, and the sites that pass a default."""
    read, with_default = {}, []
    for path in sorted((ROOT / "daskflow").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            first = node.args[0]
            if func not in ("get", "setting", "_seconds", "_bytes") or not isinstance(first, ast.Constant):
                continue
            if not (isinstance(first.value, str) and first.value.startswith("daskflow.")):
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            read.setdefault(first.value.removeprefix("daskflow."), []).append(where)
            if len(node.args) > 1 or node.keywords:
                with_default.append(where)
    return read, with_default


def test_every_key_the_runtime_reads_has_its_default_in_the_yaml_and_nowhere_else():
    defaults = yaml.safe_load(YAML.read_text())["daskflow"]
    read, with_default = _keys_read()
    assert read, "no daskflow key found: the scan is broken"
    assert not with_default, f"defaults passed where a key is read (daskflow.yaml holds them): {with_default}"
    missing = {key: sites for key, sites in read.items() if key not in defaults}
    assert not missing, f"keys read but not in daskflow/daskflow.yaml: {missing}"
    unused = set(defaults) - set(read)
    assert not unused, f"keys in daskflow/daskflow.yaml that nothing reads: {unused}"


def test_the_defaults_are_dasks_and_the_environment_still_overrides_them():
    code = (
        "import dask\n"
        "from daskflow.runtime.wire import bulk, mailbox\n"
        "print(bulk.max_bytes(), dask.config.get('daskflow.bulk-transfers'), mailbox.ttl(),"
        " dask.config.get('daskflow.bulk-in-place'))\n"
        "dask.config.refresh()\n"  # Dask's own reload keeps them
        "print(mailbox.ttl())\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("DASK_DASKFLOW__")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(8 * 2**30), "True", "600.0", "True", "600.0"], out.stdout
    env.update(DASK_DASKFLOW__MAILBOX_TTL="7s", DASK_DASKFLOW__BULK_TRANSFERS="False")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(8 * 2**30), "False", "7.0", "True", "7.0"], out.stdout


def test_the_yaml_ships_with_the_package_and_the_docs_point_to_it():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the TOML reader pip ships
        from pip._vendor import tomli as tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "daskflow.yaml" in data.get("daskflow", [])
    assert "daskflow/daskflow.yaml" in (ROOT / "docs" / "security.md").read_text()
