"""Fixtures of the review tests: each configuration is synthesized once (``synth``) and reviewed with the scanners
once per session (``reviewed``); the scanner timings are printed at the end of the run."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

SCANNER_TIMINGS: dict[str, dict[str, float]] = {}


def config_id(path: Path | None) -> str:
    return "default" if path is None else path.stem


@pytest.fixture(scope="session")
def reviewed(synth) -> Callable:
    """``reviewed(config_path=None)`` -> ReviewResult of the synthesized assembly, with cfn-lint and checkov."""
    from landing_zone.review.report import build_review

    cache: dict[str, object] = {}

    def _review(config_path: Path | None = None):
        key = config_id(config_path)
        if key not in cache:
            synthesized = synth(config_path)
            t0 = time.monotonic()
            result = build_review(synthesized.outdir, synthesized.plan, config_origin=key, scanners=True)
            SCANNER_TIMINGS[key] = {
                **{name: run.seconds for name, run in (result.scanner_runs or {}).items()},
                "review total": round(time.monotonic() - t0, 2),
            }
            cache[key] = result
        return cache[key]

    return _review


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if SCANNER_TIMINGS:
        terminalreporter.write_sep("-", "review scanners (seconds, cfn-lint and checkov run concurrently)")
        for key, timings in sorted(SCANNER_TIMINGS.items()):
            terminalreporter.write_line(f"{key:24s} " + "  ".join(f"{k} {v:.1f}" for k, v in timings.items()))


def run_cli(argv: list[str]) -> int:
    """``python -m landing_zone review ...`` in-process, through the same entry point."""
    from landing_zone.cli import main

    return main(argv)


@pytest.fixture()
def assembly_copy(tmp_path: Path) -> Callable[[Path], Path]:
    """Copy of a synthesized assembly (templates and manifests only) that a test may edit."""

    def _copy(outdir: Path) -> Path:
        target = tmp_path / "cdk.out"
        shutil.copytree(outdir, target, ignore=shutil.ignore_patterns("asset.*"))
        return target

    return _copy
