"""The scanner cache (LZ_SCANNER_CACHE): a scan of the same templates with the same scanner version and command is
read back instead of run again, and any change to a template runs it again.  The scanners are replaced by a
stand-in process that counts its runs (the real ones take 15-25 s; tests/review/test_gates.py runs them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from landing_zone.assembly import load_assembly
from landing_zone.review import scanners


class _Process:
    runs: list[str] = []

    def __init__(self, command, **_kwargs) -> None:
        self.name = "checkov" if any("checkov" in str(c) for c in command) else "cfn-lint"
        self.returncode = 0
        _Process.runs.append(self.name)

    def communicate(self, timeout=None):
        return (json.dumps([] if self.name == "cfn-lint" else {"summary": {"passed": 1}}), "")

    def kill(self) -> None:  # pragma: no cover - never times out
        pass


@pytest.fixture
def assembly(tmp_path: Path):
    (tmp_path / "manifest.json").write_text(
        json.dumps(
            {
                "version": "48.0.0",
                "artifacts": {
                    "s": {
                        "type": "aws:cloudformation:stack",
                        "environment": "aws://111111111111/us-east-1",
                        "properties": {"templateFile": "s.template.json", "stackName": "s"},
                    }
                },
            }
        )
    )
    (tmp_path / "s.template.json").write_text(json.dumps({"Resources": {}}))
    return tmp_path


def test_the_same_scan_is_read_back_and_a_changed_template_is_scanned_again(assembly, tmp_path, monkeypatch):
    monkeypatch.setenv(scanners.SCANNER_CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(scanners, "scanner_versions", lambda python: {"cfn-lint": "1.0", "checkov": "3.0"})
    monkeypatch.setattr(scanners.subprocess, "Popen", _Process)
    _Process.runs = []
    first = scanners.run_scanners(load_assembly(assembly))
    assert sorted(_Process.runs) == ["cfn-lint", "checkov"] and not first["checkov"].extra.get("cached")
    second = scanners.run_scanners(load_assembly(assembly))
    assert sorted(_Process.runs) == ["cfn-lint", "checkov"]  # nothing ran again
    assert second["checkov"].extra["cached"] and second["checkov"].output == first["checkov"].output
    (assembly / "s.template.json").write_text(json.dumps({"Resources": {"B": {"Type": "AWS::S3::Bucket"}}}))
    scanners.run_scanners(load_assembly(assembly))
    assert sorted(_Process.runs) == ["cfn-lint", "cfn-lint", "checkov", "checkov"]


def test_without_the_variable_every_scan_runs(assembly, monkeypatch):
    monkeypatch.delenv(scanners.SCANNER_CACHE_ENV, raising=False)
    monkeypatch.setattr(scanners, "scanner_versions", lambda python: {"cfn-lint": "1.0", "checkov": "3.0"})
    monkeypatch.setattr(scanners.subprocess, "Popen", _Process)
    _Process.runs = []
    scanners.run_scanners(load_assembly(assembly))
    scanners.run_scanners(load_assembly(assembly))
    assert len(_Process.runs) == 4
