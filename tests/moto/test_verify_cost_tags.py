"""verify's ``cost-allocation-tag`` family against a botocore Stubber (moto implements no cost allocation tag API).

The expected request, pinned by ``expected_params``: ``ce:ListCostAllocationTags`` in us-east-1 with the keys of the
synthesized ``Custom::CostAllocationTags`` (sorted), ``Type: UserDefined`` and ``MaxResults`` the number of keys."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from landing_zone import aws
from landing_zone.assembly import Assembly
from landing_zone.verify.checks import CHECK_FAMILIES
from landing_zone.verify.checks.common import DRIFT, ERROR, PASS, Context
from landing_zone.verify.checks.cost_tags import check_cost_allocation_tags
from landing_zone.verify.live import Live
from tests.conftest import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "per-application-budgets.yaml"
KEYS = ["application", "cost-center", "landing-zone"]
EXPECTED_REQUEST = {"TagKeys": KEYS, "Type": "UserDefined", "MaxResults": 3}


@pytest.fixture(scope="module")
def assembly(synth) -> Assembly:
    return Assembly.load(synth(FIXTURE).outdir)


def run(assembly: Assembly, respond: Any) -> tuple[list[Any], list[tuple[str, str | None]]]:
    ce = boto3.client("ce", region_name="us-east-1")
    asked: list[tuple[str, str | None]] = []
    with Stubber(ce) as stub:
        respond(stub)

        def factory(service: str, *, region: str | None = None, profile: str | None = None) -> Any:
            asked.append((service, region))
            assert service == "ce"
            return ce

        with aws.use_client_factory(factory):
            ctx = Context(
                assembly=assembly,
                live=Live(profile=None, management_profile=None, region="us-west-2"),
                name="kimi-apps",
                home_region="us-west-2",
                deployment_account="555555555555",
            )
            rows = check_cost_allocation_tags(ctx)
        stub.assert_no_pending_responses()
    return rows, asked


def tag(key: str, status: str) -> dict[str, str]:
    return {"TagKey": key, "Type": "UserDefined", "Status": status}


def test_pass_when_every_key_is_active(assembly: Assembly) -> None:
    rows, asked = run(
        assembly,
        lambda s: s.add_response(
            "list_cost_allocation_tags", {"CostAllocationTags": [tag(k, "Active") for k in KEYS]}, EXPECTED_REQUEST
        ),
    )
    assert [(r.check, r.resource, r.status) for r in rows] == [("cost-allocation-tag", k, PASS) for k in KEYS]
    assert asked == [("ce", "us-east-1")]


def test_drift_when_a_key_is_inactive_or_not_listed_yet(assembly: Assembly) -> None:
    answer = {"CostAllocationTags": [tag("application", "Active"), tag("cost-center", "Inactive")]}
    rows, _ = run(assembly, lambda s: s.add_response("list_cost_allocation_tags", answer, EXPECTED_REQUEST))
    by_key = {r.resource: r for r in rows}
    assert by_key["application"].status is PASS
    assert by_key["cost-center"].status is DRIFT and by_key["cost-center"].actual == "Inactive"
    assert "TagKey=cost-center,Status=Active" in by_key["cost-center"].detail
    missing = by_key["landing-zone"]
    assert missing.status is DRIFT and missing.actual == "not listed"
    assert "24 hours" in missing.detail and "--region us-east-1" in missing.detail


def test_access_denied_is_an_error_row_not_a_pass(assembly: Assembly) -> None:
    rows, _ = run(
        assembly,
        lambda s: s.add_client_error(
            "list_cost_allocation_tags", "AccessDeniedException", "no", 400, expected_params=EXPECTED_REQUEST
        ),
    )
    assert rows and all(r.status is ERROR for r in rows)


def test_the_family_is_registered() -> None:
    (family,) = [f for f in CHECK_FAMILIES if f.name == "cost-allocation-tag"]
    assert family.checks == ("cost-allocation-tag",) and family.check is check_cost_allocation_tags


def test_organization_mode_asks_the_management_account(synth) -> None:
    """us-organization: the tags are activated by the management account's guardrails stack (only the management
    account of an organization may manage cost allocation tags), so verify asks with --management-profile."""
    org = Assembly.load(synth(ROOT / "examples" / "us-organization.yaml").outdir)
    [res] = org.resources("Custom::CostAllocationTags")
    assert res.stack.account == "888888888888"  # organization.management_account_id
    ce = boto3.client("ce", region_name="us-east-1")
    profiles: list[str | None] = []
    with Stubber(ce) as stub:
        stub.add_response(
            "list_cost_allocation_tags",
            {"CostAllocationTags": [tag(k, "Active") for k in KEYS]},
            {"TagKeys": KEYS, "Type": "UserDefined", "MaxResults": 3},
        )

        def factory(service: str, *, region: str | None = None, profile: str | None = None) -> Any:
            profiles.append(profile)
            return ce

        with aws.use_client_factory(factory):
            ctx = Context(
                assembly=org,
                live=Live(profile="workload", management_profile="management", region="us-east-1"),
                name="kimi-us-org",
                home_region="us-east-1",
                deployment_account="777777777777",
            )
            rows = check_cost_allocation_tags(ctx)
    assert profiles == ["management"]
    assert [r.status for r in rows] == [PASS] * 3
