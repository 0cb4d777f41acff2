"""The stamped layers: slow tests that ``make test`` runs once per change to their inputs; CI runs them every time.

The cdk-nag packs (marker ``nag``), the template scanners cfn-lint and checkov (``scanners``), the prover's
mutation runs (``mutation``), the wheel built and installed into a fresh virtualenv (``package``), the app and
``make synth`` run as a user runs them, through the real cdk CLI (``synth``), the commands run in an interpreter
that sees the runtime tier alone (``runtime``), the HTML report rendered in a headless Chromium (``browser``) and the
third-party IAM simulator in Node.js (``simulator``) take most of a warm run while answering a question whose inputs
rarely change: the app's source, the examples, the locks.  A test
of such a layer that passes leaves a stamp keyed by its node ID and by the digest of everything it reads
(:func:`layer_digest`, and :data:`LAYER_EXTRA_INPUTS`); a later run with the same digest deselects it and says so
in the summary, with when it passed.  A failure, a skip or a changed input leaves no valid stamp, so the test runs.

``CI=true`` (the CI runner sets it) or ``LZ_LAYERS=all`` runs every test whatever the stamps say: nothing is hidden in
CI.  ``LZ_LAYERS=none`` leaves the stamped layers out of the run (deselected, said in the summary) without stamps.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.support.digest import ROOT, STAMP_DIR, files_digest, source_digest

STAMPED_LAYERS = ("nag", "scanners", "mutation", "package", "synth", "runtime", "browser", "simulator")
REPORT_ENV = "LZ_LAYERS_REPORT"
CUTOFF_ENV = "LZ_LAYERS_CUTOFF"
# What a stamped test reads beyond the app's source (source_digest): the configurations, the scanners' locks and
# skips, the locks of the test tools, pytest's settings, the Makefile, and every file under tests/ that is not a test module
# (conftest.py files, harnesses, tests/support/, fixture data).  The test module itself is added per test.
LAYER_INPUTS = (
    "examples",
    "checkov-skips.yaml",
    "requirements-scanners.txt",
    "constraints-scanners.txt",
    "requirements-dev.txt",
    "requirements-cli.txt",
    "requirements.txt",
    "pytest.ini",
    "pyproject.toml",
    "Makefile",
    "package.json",
)
# What one layer reads beyond those: the wheel's metadata carries the README (pyproject.toml, readme); the simulator's
# tests take their configurations and SCP levels from the red-team tests' module, the nag tests elsewhere run the
# packs with the gate's helpers.
LAYER_EXTRA_INPUTS = {
    "package": ("README.md",),
    "simulator": ("tests/cdk/test_redteam.py",),
    "nag": ("tests/nag/test_nag_gate.py",),
}


def forced() -> str | None:
    """Why every stamped test runs regardless of its stamp, or None."""
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        return "CI=true"
    if os.environ.get("LZ_LAYERS", "") == "all":
        return "LZ_LAYERS=all"
    return None


@functools.lru_cache(maxsize=1)
def layer_digest() -> str:
    tests = ROOT / "tests"
    helpers = [
        p
        for p in tests.rglob("*")
        if p.is_file() and not p.name.startswith("test_") and "__pycache__" not in p.parts and p.suffix != ".pyc"
    ]
    digest = hashlib.sha256()
    digest.update(source_digest().encode())
    digest.update(files_digest(LAYER_INPUTS, extra=helpers).encode())
    digest.update(f"{sys.version}|{platform.machine()}|{platform.system()}".encode())
    return digest.hexdigest()


@functools.cache
def _module_digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def layer_of(item: pytest.Item) -> str | None:
    return next((name for name in STAMPED_LAYERS if item.get_closest_marker(name)), None)


def stamp_path(nodeid: str, module: str, layer: str) -> Path:
    extra = files_digest(LAYER_EXTRA_INPUTS[layer]) if layer in LAYER_EXTRA_INPUTS else ""
    key = hashlib.sha256(f"{layer_digest()}|{_module_digest(module)}|{nodeid}{extra}".encode()).hexdigest()
    return STAMP_DIR / key[:40]


class StampedLayers:
    """The plugin: deselects the stamped tests at collection, writes a stamp when one passes."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.reason = forced()
        self.leave_out = os.environ.get("LZ_LAYERS", "") == "none"
        self.deselected: dict[str, list[float]] = {}
        self.ran: dict[str, int] = {}
        self.modules: dict[str, tuple[str, str]] = {}  # nodeid -> (layer, module path) of the stamped tests
        self.failed: set[str] = set()
        self.report_dir: str | None = None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        keep, drop = [], []
        for item in items:
            layer = layer_of(item)
            if layer is None:
                keep.append(item)
                continue
            module = str(item.path)
            stamp = stamp_path(item.nodeid, module, layer)
            if self.leave_out or (self.reason is None and self._stamped(stamp)):
                drop.append(item)
                self.deselected.setdefault(layer, []).append(stamp.stat().st_mtime if stamp.is_file() else 0.0)
            else:
                keep.append(item)
                self.modules[item.nodeid] = (layer, module)
                self.ran[layer] = self.ran.get(layer, 0) + 1
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
        if hasattr(config, "workerinput") and os.environ.get(REPORT_ENV):
            # Every xdist worker collects the whole suite; the controller prints the summary from one of them.
            worker = config.workerinput["workerid"]
            record = {"deselected": self.deselected, "ran": self.ran}
            (Path(os.environ[REPORT_ENV]) / f"{worker}.json").write_text(json.dumps(record))

    @staticmethod
    def _stamped(stamp: Path) -> bool:
        """A stamp written before this run started: every xdist worker must collect the same tests, and one that
        collects late must not see the stamps an early one wrote meanwhile."""
        try:
            return stamp.stat().st_mtime < float(os.environ[CUTOFF_ENV])
        except FileNotFoundError:
            return False

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.nodeid not in self.modules or self.leave_out:
            return
        if report.failed or report.skipped:
            self.failed.add(report.nodeid)
        elif report.when == "teardown" and report.nodeid not in self.failed:
            layer, module = self.modules[report.nodeid]
            stamp = stamp_path(report.nodeid, module, layer)
            stamp.parent.mkdir(parents=True, exist_ok=True)
            stamp.write_text(report.nodeid + "\n")

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if hasattr(self.config, "workerinput"):
            return
        reports = sorted(Path(self.report_dir).glob("*.json")) if self.report_dir else []
        if reports:
            record = json.loads(reports[0].read_text())
            self.deselected, self.ran = record["deselected"], record["ran"]
        if not (self.deselected or self.ran):
            return
        write = terminalreporter.write_line
        terminalreporter.write_sep("-", f"stamped layers ({', '.join(STAMPED_LAYERS)})")
        for layer in STAMPED_LAYERS:
            stamps = self.deselected.get(layer, [])
            if stamps and self.leave_out:
                write(f"{layer:9s} {len(stamps)} test(s) left out (LZ_LAYERS=none)")
            elif stamps:
                when = time.strftime("%Y-%m-%d %H:%M", time.localtime(min(stamps)))
                write(
                    f"{layer:9s} {len(stamps)} test(s) not rerun: each passed on these same inputs (since {when}); "
                    "CI=true or LZ_LAYERS=all runs them"
                )
            if self.ran.get(layer):
                why = f" ({self.reason})" if self.reason else ""
                write(f"{layer:9s} {self.ran[layer]} test(s) ran{why}")


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):
        os.environ[CUTOFF_ENV] = str(time.time())
    plugin = StampedLayers(config)
    if not hasattr(config, "workerinput") and getattr(config.option, "numprocesses", None):
        # The controller, before it starts its workers (they inherit the environment).
        plugin.report_dir = tempfile.mkdtemp(prefix="lz-layers-")
        os.environ[REPORT_ENV] = plugin.report_dir
    config.pluginmanager.register(plugin, "lz-stamped-layers")
