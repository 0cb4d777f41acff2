"""Fixtures of the prover tests: the us-organization assembly and its mutation table (kept in $LZ_PROOF_CACHE)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from landing_zone.prove.mutations import mutation_table
from landing_zone.prove.proofs import inputs_from_assembly
from tests.conftest import ROOT

US_ORGANIZATION = ROOT / "examples" / "us-organization.yaml"


@pytest.fixture(scope="session")
def organization(synth: Callable[..., Any]) -> Any:
    return synth(US_ORGANIZATION)


@pytest.fixture(scope="session")
def table(organization: Any) -> list[dict[str, Any]]:
    return mutation_table(inputs_from_assembly(organization.outdir, organization.plan), timeout_ms=10_000)
