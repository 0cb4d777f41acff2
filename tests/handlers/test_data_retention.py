"""handlers/data_retention: botocore Stubber (moto 5.2.5 does not implement PutAccountDataRetention).

Stubber validates every request and response against the installed bedrock service model (botocore 1.44.8), and
``expected_params`` pins each request exactly: ``PUT /data-retention`` with ``{"mode": ...}``."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

HANDLER = Path(__file__).resolve().parents[2] / "handlers" / "data_retention" / "index.py"
_spec = importlib.util.spec_from_file_location("data_retention_index", HANDLER)
assert _spec and _spec.loader
index = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(index)

UPDATED = datetime(2026, 12, 2, 4, 0, tzinfo=UTC)


def event(request_type: str, **props: str) -> dict[str, Any]:
    ev: dict[str, Any] = {
        "RequestType": request_type,
        "ResourceProperties": {"ServiceToken": "arn:aws:lambda:us-east-1:123456789012:function:p", **props},
    }
    if request_type != "Create":
        ev["PhysicalResourceId"] = "bedrock-data-retention"
    return ev


@pytest.fixture
def stubber(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stubber]:
    bedrock = boto3.client("bedrock", region_name="us-east-1")
    stub = Stubber(bedrock)
    services: list[str] = []
    monkeypatch.setattr(index, "client", lambda service: services.append(service) or bedrock)
    with stub:
        yield stub
    stub.assert_no_pending_responses()
    assert set(services) <= {"bedrock"}


def test_the_pinned_botocore_has_the_operation() -> None:
    assert "put_account_data_retention" in dir(boto3.client("bedrock", region_name="us-east-1"))


@pytest.mark.parametrize("request_type", ["Create", "Update"])
def test_create_and_update_put_the_mode(stubber: Stubber, request_type: str) -> None:
    stubber.add_response("put_account_data_retention", {"mode": "none", "updatedAt": UPDATED}, {"mode": "none"})
    answer = index.on_event(event(request_type, Mode="none"))
    assert answer == {
        "PhysicalResourceId": "bedrock-data-retention",
        "Data": {"Mode": "none", "UpdatedAt": UPDATED.isoformat()},
    }


def test_every_mode_of_the_service_model_is_accepted(stubber: Stubber) -> None:
    model = boto3.client("bedrock", region_name="us-east-1").meta.service_model
    enum = model.operation_model("PutAccountDataRetention").input_shape.members["mode"].enum
    assert sorted(index.MODES) == sorted(enum)
    for mode in index.MODES:
        stubber.add_response("put_account_data_retention", {"mode": mode}, {"mode": mode})
        assert index.on_event(event("Create", Mode=mode))["Data"]["Mode"] == mode


def test_delete_leaves_the_mode_and_calls_nothing(stubber: Stubber) -> None:
    answer = index.on_event(event("Delete", Mode="none"))
    assert answer == {"PhysicalResourceId": "bedrock-data-retention", "Data": {}}


@pytest.mark.parametrize("mode", [None, "", "NONE", "zero", 1])
def test_an_unknown_mode_is_refused_before_any_call(stubber: Stubber, mode: Any) -> None:
    props = {} if mode is None else {"Mode": mode}
    with pytest.raises(ValueError, match="Property Mode must be one of default, none, aws_review"):
        index.on_event(event("Create", **props))


def test_an_access_denied_answer_fails_the_deployment(stubber: Stubber) -> None:
    stubber.add_client_error(
        "put_account_data_retention", "AccessDeniedException", "explicit deny in an SCP", 403, {"mode": "default"}
    )
    with pytest.raises(Exception, match="AccessDeniedException"):
        index.on_event(event("Update", Mode="default"))


def test_an_unknown_request_type_is_refused(stubber: Stubber) -> None:
    with pytest.raises(ValueError, match="RequestType"):
        index.on_event(event("Replace", Mode="none"))


def test_the_role_needs_exactly_the_documented_action() -> None:
    from landing_zone.plan.policies import RETENTION_HANDLER_ACTIONS

    assert index.REQUIRED_IAM_ACTIONS == RETENTION_HANDLER_ACTIONS == ("bedrock:PutAccountDataRetention",)
