"""The ``data-retention`` check: botocore Stubber for bedrock GetAccountDataRetention (moto 5.2.5 does not implement
it), against a one-resource assembly as the access stack synthesizes it (``Custom::BedrockDataRetention``)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from landing_zone.assembly import Assembly, Stack
from landing_zone.verify.checks import CHECK_FAMILIES, Context
from landing_zone.verify.checks.retention import check_data_retention
from landing_zone.verify.live import Live
from landing_zone.verify.report import Status

REGION = "eu-central-1"


def context(mode: Any, answer: dict[str, Any] | None, *, error: str | None = None) -> tuple[Context, Stubber]:
    stack = Stack(
        "lz-access",
        "lz-access.template.json",
        "111111111111",
        REGION,
        {"Resources": {"DataRetentionMode": {"Type": "Custom::BedrockDataRetention", "Properties": {"Mode": mode}}}},
    )
    live = Live(profile=None, management_profile=None, region=REGION)
    bedrock = boto3.client("bedrock", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="y")
    stub = Stubber(bedrock)
    if answer is not None:
        stub.add_response("get_account_data_retention", answer, {})
    if error is not None:
        stub.add_client_error("get_account_data_retention", error, "denied", 403, {})
    live._clients[("bedrock", REGION, None)] = bedrock
    ctx = Context(Assembly(Path("."), (stack,)), live, "lz", REGION, deployment_account="111111111111")
    return ctx, stub


def test_the_family_is_registered() -> None:
    assert [f.checks for f in CHECK_FAMILIES if f.name == "data-retention"] == [("data-retention",)]


def test_pass_when_the_live_mode_is_the_configured_one() -> None:
    ctx, stub = context("none", {"mode": "none", "updatedAt": datetime(2026, 12, 2, tzinfo=UTC)})
    with stub:
        rows = check_data_retention(ctx)
    stub.assert_no_pending_responses()
    assert [(r.check, r.resource, r.expected, r.actual, r.status) for r in rows] == [
        ("data-retention", f"account data retention in {REGION}", "mode none", "mode none", Status.PASS)
    ]
    assert rows[0].source == "lz-access/DataRetentionMode"


@pytest.mark.parametrize("live", ["inherit", "provider_data_share", "default"])
def test_drift_when_the_live_mode_differs(live: str) -> None:
    ctx, stub = context("none", {"mode": live, "updatedAt": datetime(2026, 12, 2, tzinfo=UTC)})
    with stub:
        rows = check_data_retention(ctx)
    assert [(r.expected, r.actual, r.status) for r in rows] == [("mode none", f"mode {live}", Status.DRIFT)]
    assert "PutAccountDataRetention" in rows[0].detail and "not the configured none" in rows[0].detail


def test_an_error_answer_is_an_error_row_not_a_pass() -> None:
    ctx, stub = context("none", None, error="AccessDeniedException")
    with stub:
        rows = check_data_retention(ctx)
    assert [(r.check, r.status) for r in rows] == [("data-retention", Status.ERROR)]


def test_an_unresolvable_mode_is_an_error_row() -> None:
    ctx, stub = context({"Ref": "NoSuchParameter"}, None)
    with stub:
        rows = check_data_retention(ctx)
    assert [(r.check, r.status) for r in rows] == [("data-retention", Status.ERROR)]
