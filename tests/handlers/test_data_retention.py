"""handlers/data_retention: botocore Stubber for Bedrock (moto 5.2.5 implements neither Get- nor PutAccountDataRetention)
and moto's SSM for the saved mode.

Stubber validates every request and response against the installed bedrock service model (botocore 1.44.8), and
``expected_params`` pins each request exactly: ``PUT /data-retention`` with ``{"mode": ...}``; a call the test did not
queue fails the test (so "nothing written" is checked by queuing no put).

The contract (issue 33): read before writing; a mode someone else set is refused unless TakeOverExisting; the mode
found is saved and put back on delete (``inherit`` when the Region was never configured)."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws

HANDLER = Path(__file__).resolve().parents[2] / "handlers" / "data_retention" / "index.py"
_spec = importlib.util.spec_from_file_location("data_retention_index", HANDLER)
assert _spec and _spec.loader
index = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(index)

UPDATED = datetime(2026, 12, 2, 4, 0, tzinfo=UTC)
SAVED = "lz-automation-data-retention-saved"


def event(request_type: str, old: dict[str, str] | None = None, **props: str) -> dict[str, Any]:
    ev: dict[str, Any] = {
        "RequestType": request_type,
        "ResourceProperties": {
            "ServiceToken": "arn:aws:lambda:us-east-1:123456789012:function:p",
            "SavedParameterName": SAVED,
            **props,
        },
    }
    if request_type != "Create":
        ev["PhysicalResourceId"] = "bedrock-data-retention"
    if request_type == "Update":
        ev["OldResourceProperties"] = {"SavedParameterName": SAVED, **(old or props)}
    return ev


@pytest.fixture
def stubber(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stubber]:
    bedrock = boto3.client("bedrock", region_name="us-east-1")
    stub = Stubber(bedrock)
    services: list[str] = []
    with mock_aws():
        ssm = boto3.client("ssm", region_name="us-east-1")
        clients = {"bedrock": bedrock, "ssm": ssm}
        monkeypatch.setattr(index, "client", lambda service: services.append(service) or clients[service])
        with stub:
            yield stub
    stub.assert_no_pending_responses()
    assert set(services) <= {"bedrock", "ssm"}


def found(stubber: Stubber, mode: str) -> None:
    """The next GetAccountDataRetention answers ``mode`` (the service model requires it in the answer)."""
    stubber.add_response("get_account_data_retention", {"mode": mode}, {})


def put(stubber: Stubber, mode: str) -> None:
    stubber.add_response("put_account_data_retention", {"mode": mode, "updatedAt": UPDATED}, {"mode": mode})


def saved() -> Any:
    ssm = boto3.client("ssm", region_name="us-east-1")
    try:
        return json.loads(ssm.get_parameter(Name=SAVED)["Parameter"]["Value"])
    except ssm.exceptions.ParameterNotFound:
        return None


def test_the_pinned_botocore_has_the_operation() -> None:
    assert "put_account_data_retention" in dir(boto3.client("bedrock", region_name="us-east-1"))


def test_an_unconfigured_region_is_set_and_handed_back_as_inherit(stubber: Stubber) -> None:
    found(stubber, "inherit")
    put(stubber, "none")
    answer = index.on_event(event("Create", Mode="none"))
    assert answer == {
        "PhysicalResourceId": "bedrock-data-retention",
        "Data": {"Mode": "none", "UpdatedAt": UPDATED.isoformat(), "Previous": "inherit", "TakenOver": ""},
    }
    assert saved() == {"mode": "inherit"}

    found(stubber, "none")
    put(stubber, "inherit")
    assert index.on_event(event("Delete", Mode="none")) == {"PhysicalResourceId": "bedrock-data-retention", "Data": {}}
    assert saved() is None


def test_a_mode_already_in_place_is_not_written_back_on_delete(stubber: Stubber) -> None:
    found(stubber, "none")
    put(stubber, "none")
    index.on_event(event("Create", Mode="none"))
    assert saved() == {"mode": "none"}

    found(stubber, "none")  # and no put queued: handing back the same mode makes no call
    index.on_event(event("Delete", Mode="none"))
    assert saved() is None


def test_a_mode_someone_else_set_is_refused_by_name_and_nothing_is_written(stubber: Stubber) -> None:
    found(stubber, "provider_data_share")  # no put queued: a put would fail the test
    with pytest.raises(RuntimeError) as failure:
        index.on_event(event("Create", Mode="none"))
    message = str(failure.value)
    assert "'provider_data_share'" in message and "data_retention.take_over_existing: true" in message
    assert saved() is None

    # CloudFormation's rollback Delete of the refused Create: nothing saved, nothing handed back, no Bedrock call
    index.on_event(event("Delete", Mode="none"))


def test_take_over_saves_the_mode_and_delete_puts_it_back(stubber: Stubber) -> None:
    found(stubber, "default")
    put(stubber, "none")
    assert index.on_event(event("Create", Mode="none", TakeOverExisting="true"))["Data"]["TakenOver"] == "default"
    assert saved() == {"mode": "default"}

    found(stubber, "none")
    put(stubber, "default")
    index.on_event(event("Delete", Mode="none", TakeOverExisting="true"))
    assert saved() is None


def test_update_of_its_own_mode_is_idempotent_and_keeps_what_was_there_before(stubber: Stubber) -> None:
    found(stubber, "default")
    put(stubber, "none")
    index.on_event(event("Create", Mode="none", TakeOverExisting="true"))
    for _ in range(2):
        found(stubber, "none")
        put(stubber, "none")
        assert index.on_event(event("Update", Mode="none", TakeOverExisting="true"))["Data"]["TakenOver"] == ""
        assert saved() == {"mode": "default"}  # not overwritten with the landing zone's own mode


def test_update_to_another_mode_is_its_own_change_not_a_take_over(stubber: Stubber) -> None:
    found(stubber, "inherit")
    put(stubber, "none")
    index.on_event(event("Create", Mode="none"))
    found(stubber, "none")  # the previous properties' mode: the landing zone's own
    put(stubber, "default")
    index.on_event(event("Update", {"Mode": "none"}, Mode="default"))
    assert saved() == {"mode": "inherit"}

    found(stubber, "default")
    put(stubber, "inherit")
    index.on_event(event("Delete", Mode="default"))


def test_a_mode_changed_by_someone_else_since_is_refused_on_update(stubber: Stubber) -> None:
    found(stubber, "inherit")
    put(stubber, "none")
    index.on_event(event("Create", Mode="none"))
    found(stubber, "provider_data_share")
    with pytest.raises(RuntimeError, match="'provider_data_share'"):
        index.on_event(event("Update", Mode="none"))
    assert saved() == {"mode": "inherit"}


def test_delete_leaves_a_mode_someone_else_set_since(stubber: Stubber) -> None:
    found(stubber, "inherit")
    put(stubber, "none")
    index.on_event(event("Create", Mode="none"))
    found(stubber, "default")  # and no put queued
    index.on_event(event("Delete", Mode="none"))
    assert saved() is None


def test_a_stack_from_before_the_saved_mode_leaves_the_mode_on_delete(stubber: Stubber) -> None:
    """Upgrade: the resource was created by the handler that saved nothing; its Update saves nothing either (the mode
    before it is unknown), and its Delete leaves the mode as the old handler did."""
    found(stubber, "none")
    put(stubber, "none")
    index.on_event(event("Update", Mode="none"))
    assert saved() is None
    index.on_event(event("Delete", Mode="none"))  # no Bedrock call queued


def test_every_mode_of_the_service_model_is_accepted(stubber: Stubber) -> None:
    model = boto3.client("bedrock", region_name="us-east-1").meta.service_model
    enum = model.operation_model("PutAccountDataRetention").input_shape.members["mode"].enum
    assert sorted(index.MODES) == sorted(enum)
    assert index.UNSET in enum
    for mode in index.MODES:
        found(stubber, "inherit")
        put(stubber, mode)
        assert index.on_event(event("Create", Mode=mode))["Data"]["Mode"] == mode


@pytest.mark.parametrize("mode", [None, "", "NONE", "zero", 1])
def test_an_unknown_mode_is_refused_before_any_call(stubber: Stubber, mode: Any) -> None:
    props = {} if mode is None else {"Mode": mode}
    with pytest.raises(ValueError, match="Property Mode must be one of default, none, aws_review"):
        index.on_event(event("Create", **props))


def test_an_access_denied_answer_fails_the_deployment(stubber: Stubber) -> None:
    found(stubber, "default")
    stubber.add_client_error(
        "put_account_data_retention", "AccessDeniedException", "explicit deny in an SCP", 403, {"mode": "default"}
    )
    with pytest.raises(Exception, match="AccessDeniedException"):
        index.on_event(event("Update", Mode="default"))


def test_an_unknown_request_type_is_refused(stubber: Stubber) -> None:
    with pytest.raises(ValueError, match="RequestType"):
        index.on_event(event("Replace", Mode="none"))


def test_the_role_needs_exactly_the_documented_actions() -> None:
    from landing_zone.plan.policies import RETENTION_HANDLER_ACTIONS, SAVED_STATE_ACTIONS

    assert (*RETENTION_HANDLER_ACTIONS, *SAVED_STATE_ACTIONS) == index.REQUIRED_IAM_ACTIONS
    assert RETENTION_HANDLER_ACTIONS == ("bedrock:PutAccountDataRetention", "bedrock:GetAccountDataRetention")
