"""The defaults the package ships (landing_zone/core/config/defaults.json) are the repository's cdk.json context, and
the CLI reads them where there is no cdk.json (an installed wheel, run from a project of its own)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from landing_zone.cli.common import default_cdk_json
from landing_zone.core.config import packaged_defaults
from tests.support.digest import ROOT


def test_the_packaged_defaults_are_the_cdk_json_context() -> None:
    assert packaged_defaults() == json.loads((ROOT / "cdk.json").read_text())["context"]["landing_zone"]


def test_without_a_cdk_json_the_cli_reads_the_packaged_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert default_cdk_json() is None
    (tmp_path / "cdk.json").write_text("{}")
    assert default_cdk_json() == Path("cdk.json")
