"""The catalog's data_retention_modes and the validate warning under data_retention.mode none (issue 25 item 1)."""

from __future__ import annotations

from typing import Any

import pytest

from landing_zone.core.catalog import DataRetentionModes, load_catalog
from tests.conftest import ROOT

US = ROOT / "examples" / "us-single-account.yaml"


def test_no_kimi_model_has_known_allowed_modes() -> None:
    """The research found no allowed_modes for any Kimi / Moonshot model: unknown, unverified, with the search."""
    catalog = load_catalog()
    for model in catalog.models.values():
        if model.provider == "Moonshot AI":
            assert model.data_retention_modes is not None and model.retention_modes is None
            assert model.data_retention_modes.verified is False and "not found" in model.data_retention_modes.source


def test_blocks_only_when_the_modes_are_known_and_leave_the_mode_out() -> None:
    known = DataRetentionModes(allowed=("provider_data_share",), source="hypothetical", verified=False)
    assert known.blocks("none") and not known.blocks("provider_data_share") and not known.blocks("inherit")
    assert not DataRetentionModes(source="not found", verified=False).blocks("none")


def test_an_empty_allowed_list_is_refused() -> None:
    with pytest.raises(ValueError):
        DataRetentionModes(allowed=(), source="xyz", verified=False)


def retention_warnings(plan: Any) -> list[str]:
    return [w for w in plan.warnings if "allowed data retention modes unknown" in w]


def test_validate_warns_once_under_mode_none(plan_for: Any) -> None:
    (warning,) = retention_warnings(plan_for(US, data_retention={"mode": "none"}))
    assert "moonshotai.kimi-k3.1-pro" in warning and "moonshot.kimi-k2-thinking" in warning
    assert "\n" not in warning


@pytest.mark.parametrize("mode", [None, "provider_data_share", "inherit"])
def test_no_warning_under_other_modes(plan_for: Any, mode: str | None) -> None:
    assert retention_warnings(plan_for(US, data_retention={"mode": mode})) == []


# A mode that blocks every allowed model is a contradiction caught at synth (issue 25, "Bad input").
EU = ROOT / "examples" / "eu-sovereign.yaml"  # one model, Kimi K3.1 Pro
OVERLAY = str(ROOT / "tests" / "review" / "fixtures" / "retention-overlay.yaml")  # Kimi K3.1 Pro: [provider_data_share]


def test_a_mode_that_blocks_every_model_exits_2_naming_the_field(tmp_path: Any) -> None:
    import subprocess
    import sys

    import yaml

    config = yaml.safe_load(EU.read_text())
    config["catalog_overlays"] = [OVERLAY]
    config["data_retention"] = {"mode": "none"}
    path = tmp_path / "zdr.yaml"
    path.write_text(yaml.safe_dump(config))
    run = subprocess.run(
        [sys.executable, "-m", "landing_zone", "validate", "--config", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert run.returncode == 2, run.stderr
    assert "data_retention.mode" in run.stderr and "none" in run.stderr
    assert "blocks every allowed model" in run.stderr and "provider_data_share" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("mode", ["provider_data_share", "inherit"])
def test_a_mode_the_model_allows_passes(plan_for: Any, mode: str) -> None:
    plan = plan_for(EU, catalog_overlays=[OVERLAY], data_retention={"mode": mode})
    assert plan.config.data_retention.mode == mode


def test_one_blocked_model_of_two_is_not_refused(plan_for: Any) -> None:
    """us-single-account: K2 Thinking's modes are unknown, so the mode may still serve it (the review's advisory)."""
    plan = plan_for(US, catalog_overlays=[OVERLAY], data_retention={"mode": "none"})
    assert plan.config.data_retention.mode == "none"
