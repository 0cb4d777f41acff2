"""Where a run's time goes, printed at its end: the synthesis cache's hit rate (every worker's ``synth()`` calls) and,
with ``--file-durations=N``, the N test files that took longest (setup, call and teardown of their tests summed)."""

from __future__ import annotations

import json
import os
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

REPORT_ENV = "LZ_SYNTH_REPORT"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--file-durations",
        type=int,
        # CI (`.ci/run` sets CI=true) prints the 20 slowest, so that each run's log says where its time went
        default=20 if os.environ.get("CI") == "true" else 0,
        metavar="N",
        help="print the N slowest test files (time summed over their tests' setup, call and teardown; default 20 "
        "with CI=true, else 0)",
    )


def _worker_stats() -> dict[str, Any]:
    import sys

    from tests.conftest import STATS, SYNTHESIZED

    moto = sys.modules.get("tests.support.moto_state")  # imported by the moto tests only
    extra = {f"moto_{k}": v for k, v in moto.STATS.items()} if moto else {}
    return {**STATS, **extra, "synthesized_names": SYNTHESIZED}


class Timing:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.per_file: dict[str, float] = defaultdict(float)
        self.report_dir: str | None = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.per_file[report.nodeid.split("::")[0]] += report.duration

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(self.config, "workerinput") and os.environ.get(REPORT_ENV):
            worker = self.config.workerinput["workerid"]
            (Path(os.environ[REPORT_ENV]) / f"{worker}.json").write_text(json.dumps(_worker_stats()))

    def _stats(self) -> list[dict[str, Any]]:
        if self.report_dir:
            return [json.loads(p.read_text()) for p in sorted(Path(self.report_dir).glob("*.json"))]
        return [_worker_stats()]

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if hasattr(self.config, "workerinput"):
            return
        stats = self._stats()
        total = {k: sum(s.get(k, 0) for s in stats) for k in ("memory", "disk", "waited", "synthesized")}
        calls = sum(total.values())
        if calls:
            seconds = sum(s.get("synthesized_s", 0) for s in stats)
            waited = sum(s.get("waited_s", 0) for s in stats)
            terminalreporter.write_sep("-", "synthesis cache")
            terminalreporter.write_line(
                f"{calls} synth() calls over {len(stats)} worker(s): {total['memory']} from the worker's memory, "
                f"{total['disk']} from .synth-cache/, {total['waited']} after waiting {waited:.0f} s for another "
                f"worker's synthesis, {total['synthesized']} synthesized ({seconds:.0f} s); "
                f"hit rate {(calls - total['synthesized']) / calls:.0%}"
            )
            names = sorted(name for s in stats for name in s.get("synthesized_names", []))
            if names:
                terminalreporter.write_line(f"synthesized: {', '.join(names)}")
        deployed, restored = (sum(s.get(k, 0) for s in stats) for k in ("moto_deployed", "moto_restored"))
        if deployed or restored:
            terminalreporter.write_line(
                f"moto state: {deployed} deployment(s) of the intent made, {restored} restored from a worker's "
                "earlier identical deployment (tests/support/moto_state.py)"
            )
        top = self.config.getoption("file_durations")
        if top and self.per_file:
            terminalreporter.write_sep("-", f"slowest {top} test files (seconds, summed over their tests)")
            for path, seconds in sorted(self.per_file.items(), key=lambda kv: -kv[1])[:top]:
                terminalreporter.write_line(f"{seconds:8.1f}  {path}")


def pytest_configure(config: pytest.Config) -> None:
    plugin = Timing(config)
    if not hasattr(config, "workerinput") and getattr(config.option, "numprocesses", None):
        plugin.report_dir = tempfile.mkdtemp(prefix="lz-synth-")
        os.environ[REPORT_ENV] = plugin.report_dir
    config.pluginmanager.register(plugin, "lz-timing")
