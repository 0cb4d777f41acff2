"""The proof cache keeps what the policies decide, never what the machine's load decided: a report with an
obligation the solver could not decide in its budget (timeout, gave-up) is not stored, so the next run proves again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from landing_zone.prove.proofs import PROOF_CACHE_ENV, cache_path, inputs_from_assembly, proofs_section


def test_an_undecided_obligation_is_not_cached_and_a_decided_report_is(
    organization: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PROOF_CACHE_ENV, str(tmp_path))
    inputs = inputs_from_assembly(organization.outdir, organization.plan)
    # a 1 ms budget: the real solver cannot decide P1's obligations in it (P1: about a second with its budget;
    # P2 would take 15 s here)
    starved = proofs_section(inputs, timeout_ms=1, properties=["P1"])
    verdicts = {i["status"] for p in starved["properties"] for i in p["not_holding"]}
    assert verdicts & {"timeout", "gave-up"}, verdicts
    starved_file = cache_path(inputs, 1, ["P1"])
    assert starved_file is not None and not starved_file.exists()
    # the same property with its budget: decided, and kept
    decided = proofs_section(inputs, timeout_ms=60_000, properties=["P1"])
    assert [p["status"] for p in decided["properties"]] == ["holds"]
    kept = cache_path(inputs, 60_000, ["P1"])
    assert kept is not None and kept.is_file()
