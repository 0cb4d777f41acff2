"""The README's first commands on a fresh machine: CI runs them as printed, and the stated Python minimum is true.

The lock tests ask pip to resolve each lock for the minimum Python (``--python-version``), as it would install on a
machine that has only that: they need the package index (marker ``index``; pip's configured index, as `make` uses).
pip's answer is kept in ``.synth-cache/tools/`` by the digest of the two files, the minimum, pip's version and its
index settings, so a warm `make test` asserts on the answer pip gave for exactly those inputs (CI=true: pip runs).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

from tests.conftest import ROOT
from tests.support.runtime_only import pinned
from tests.support.tool_cache import cached_result


def readme_commands() -> list[str]:
    """The `make` commands of the README's "The commands, in order" block, in order."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## The commands, in order") :]
    block = section[section.index("```sh") :].split("```", 2)[1]
    return [m.group(1) for m in re.finditer(r"^(make \w[\w-]*)", block, re.MULTILINE)]


def python_minimum() -> str:
    """``PYTHON_MIN`` of the Makefile: the version its virtualenv rule checks."""
    found = re.search(r"^PYTHON_MIN := ([0-9.]+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert found, "the Makefile states no PYTHON_MIN"
    return found.group(1)


def test_ci_runs_the_readme_commands_in_the_readme_order():
    script = (ROOT / ".ci" / "run").read_text()
    assert "set -euo pipefail" in script
    # each command as a line of its own, bare or through `step` (which times it and exits on its failure: set -e)
    ci = [m.group(1) for m in re.finditer(r"^(?:step )?(make \w[\w-]*)", script, re.MULTILINE)]
    assert readme_commands()[:1] == ["make synth"]  # first, so that the runtime tier is tested alone
    assert ci == readme_commands()


def test_the_python_minimum_is_stated_alike_everywhere():
    minimum = python_minimum()
    for doc in ("README.md", "docs/DEVELOPMENT.md"):
        stated = re.search(r"Python ≥ ([0-9.]+)", (ROOT / doc).read_text())  # the first: the set-up's
        assert stated and stated.group(1) == minimum, f"{doc}: {stated and stated.group(0)}; the Makefile: {minimum}"
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert f'target-version = "py{minimum.replace(".", "")}"' in pyproject  # ruff
    assert f'python_version = "{minimum}"' in pyproject  # mypy
    assert f'requires-python = ">={minimum}"' in pyproject  # the distribution


def test_an_older_python_stops_before_the_virtualenv_with_the_minimum_named():
    """The check compares the interpreter's version with PYTHON_MIN: one minor version above this one refuses it."""
    above = f"{sys.version_info.major}.{sys.version_info.minor + 1}"
    venv = f".venv-test-{uuid.uuid4().hex[:8]}"  # relative: the Makefile puts it under the repository
    result = subprocess.run(
        ["make", "--no-print-directory", "setup", f"PYTHON={sys.executable}", f"PYTHON_MIN={above}", f"VENV={venv}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert f"is Python {sys.version.split()[0]}; the landing zone needs Python >= {above}" in result.stderr
    assert not (ROOT / venv).exists()


def pip_version() -> str:
    from importlib.metadata import version

    return version("pip")


def pip_index() -> str:
    """The index pip resolves against (its configuration and the environment): part of the kept answer's key."""
    shown = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, timeout=60, check=False
    ).stdout
    named = {k: v for k, v in os.environ.items() if k.startswith("PIP_") and "INDEX" in k}
    return json.dumps({"config": sorted(line for line in shown.splitlines() if "index" in line), "env": named})


LOCKS = [("requirements-dev.txt", "constraints.txt"), ("requirements-scanners.txt", "constraints-scanners.txt")]


@pytest.mark.index
@pytest.mark.parametrize(("requirements", "lock"), LOCKS, ids=[lock for _, lock in LOCKS])
def test_the_lock_installs_on_the_python_minimum(requirements: str, lock: str, tmp_path: Path):
    """Every tier of the lock resolves for Python PYTHON_MIN.0, to exactly the locked versions (soupsieve 3.0.2 and
    later need Python >= 3.11.5: pinned above that, `make setup-cli` ended in ResolutionImpossible on 3.11.2)."""
    report = tmp_path / "report.json"
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--dry-run",
        "--ignore-installed",
        "--quiet",
        "--target",
        str(tmp_path / "target"),  # pip takes --python-version only with --target; --dry-run writes nothing there
        "--python-version",
        python_minimum(),
        "--only-binary=:all:",
        "-r",
        requirements,
        "-c",
        lock,
        "--report",
        str(report),
    ]
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}

    def resolve() -> dict:
        result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
        installs = json.loads(report.read_text())["install"] if result.returncode == 0 else []
        names = [{"name": i["metadata"]["name"], "version": i["metadata"]["version"]} for i in installs]
        return {"returncode": result.returncode, "stderr": result.stderr, "install": names}

    # pip's answer for exactly these files, this pip and this index is kept (tests/support/tool_cache.py): the
    # assertions below run on it every time; with CI=true pip resolves every time
    inputs = {"python": python_minimum(), "pip": pip_version(), "index": pip_index()}
    answer = cached_result("lock-resolves", inputs, (requirements, lock), resolve, lambda r: r["returncode"] == 0)
    assert answer["returncode"] == 0, "\n".join(
        line for line in answer["stderr"].splitlines() if "is ignored" not in line
    )
    resolved = {canonicalize_name(item["name"]): item["version"] for item in answer["install"]}
    locked = {canonicalize_name(r.name): next(iter(r.specifier)).version for r in pinned(ROOT / lock)}
    assert {name: v for name, v in resolved.items() if locked.get(name) != v} == {}, "resolved outside the lock"
    assert not (tmp_path / "target").exists()
