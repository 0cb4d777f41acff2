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
