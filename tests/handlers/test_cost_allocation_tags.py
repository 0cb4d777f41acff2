"""handlers/cost_allocation_tags: botocore Stubber against the installed ce model (moto implements no cost allocation
tag API); ``expected_params`` pins each request exactly, and a call the test did not queue fails it.  moto's SSM holds
the keys the landing zone activated itself.

The contract (issue 33): read the keys' status first; activate only those not active; on delete deactivate only the
keys the landing zone activated itself, never one that was already active."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws

HANDLER = Path(__file__).resolve().parents[2] / "handlers" / "cost_allocation_tags" / "index.py"
_spec = importlib.util.spec_from_file_location("cost_allocation_tags_index", HANDLER)
assert _spec and _spec.loader
index = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(index)

KEYS = "landing-zone,application,cost-center"
ALL = ("application", "cost-center", "landing-zone")
SAVED = "lz-automation-cost-allocation-tags-saved"


def event(request_type: str, **props: str) -> dict[str, Any]:
    ev: dict[str, Any] = {
        "RequestType": request_type,
        "ResourceProperties": {
            "ServiceToken": "arn:aws:lambda:us-west-2:123456789012:function:p",
            "SavedParameterName": SAVED,
            **props,
        },
    }
    if request_type != "Create":
        ev["PhysicalResourceId"] = "cost-allocation-tags"
    return ev


def request(*keys: str, status: str = "Active") -> dict[str, Any]:
    return {"CostAllocationTagsStatus": [{"TagKey": k, "Status": status} for k in keys]}


def listed(stubber: Stubber, keys: tuple[str, ...] = ALL, **status: str) -> None:
    """The next ListCostAllocationTags for ``keys`` answers ``status`` (key -> Active/Inactive; absent: not listed)."""
    tags = [{"TagKey": k.replace("_", "-"), "Type": "UserDefined", "Status": v} for k, v in status.items()]
    stubber.add_response(
        "list_cost_allocation_tags",
        {"CostAllocationTags": tags},
        {"TagKeys": list(keys), "Type": "UserDefined", "MaxResults": 100},
    )


def saved() -> Any:
    ssm = boto3.client("ssm", region_name="us-east-1")
    try:
        return json.loads(ssm.get_parameter(Name=SAVED)["Parameter"]["Value"])
    except ssm.exceptions.ParameterNotFound:
        return None


@pytest.fixture
def stubber(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stubber]:
    ce = boto3.client("ce", region_name="us-east-1")
    stub = Stubber(ce)
    services: list[str] = []
    waits: list[float] = []
    with mock_aws():
        clients = {"ce": ce, "ssm": boto3.client("ssm", region_name="us-east-1")}
        monkeypatch.setattr(index, "client", lambda service: services.append(service) or clients[service])
        monkeypatch.setattr(index, "sleep", waits.append)
        stub.waits = waits  # type: ignore[attr-defined]
        with stub:
            yield stub
    stub.assert_no_pending_responses()
    assert set(services) <= {"ce", "ssm"}


def test_cost_explorer_is_called_in_us_east_1_whatever_the_lambda_region(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    # botocore names the Region 'aws-global' (Cost Explorer is a partition-global endpoint) and signs for us-east-1
    assert index.client("ce").meta.endpoint_url == "https://ce.us-east-1.amazonaws.com"


def test_create_activates_every_key_in_one_call_and_delete_deactivates_them(stubber: Stubber) -> None:
    listed(stubber, application="Inactive")  # the other two not listed yet
    stubber.add_response(
        "update_cost_allocation_tags_status", {"Errors": []}, request("application", "cost-center", "landing-zone")
    )
    out = index.on_event(event("Create", TagKeys=KEYS))
    assert out == {
        "PhysicalResourceId": "cost-allocation-tags",
        "Data": {
            "Active": "application,cost-center,landing-zone",
            "Pending": "",
            "AlreadyActive": "",
            "ActivatedHere": "application,cost-center,landing-zone",
        },
    }
    assert stubber.waits == []  # type: ignore[attr-defined]
    assert saved() == list(ALL)

    stubber.add_response("update_cost_allocation_tags_status", {"Errors": []}, request(*ALL, status="Inactive"))
    index.on_event(event("Delete", TagKeys=KEYS))
    assert saved() is None


def test_a_key_already_active_is_left_alone_and_never_deactivated(stubber: Stubber) -> None:
    """Another team activated 'application' and 'cost-center' before: only 'landing-zone' is the landing zone's."""
    listed(stubber, application="Active", cost_center="Active", landing_zone="Inactive")
    stubber.add_response("update_cost_allocation_tags_status", {"Errors": []}, request("landing-zone"))
    data = index.on_event(event("Create", TagKeys=KEYS))["Data"]
    assert data["AlreadyActive"] == "application,cost-center" and data["ActivatedHere"] == "landing-zone"
    assert saved() == ["landing-zone"]

    stubber.add_response(
        "update_cost_allocation_tags_status", {"Errors": []}, request("landing-zone", status="Inactive")
    )
    index.on_event(event("Delete", TagKeys=KEYS))


def test_every_key_already_active_means_no_write_and_nothing_to_hand_back(stubber: Stubber) -> None:
    listed(stubber, application="Active", cost_center="Active", landing_zone="Active")  # and no update queued
    assert index.on_event(event("Create", TagKeys=KEYS))["Data"]["ActivatedHere"] == ""
    assert saved() is None
    index.on_event(event("Delete", TagKeys=KEYS))  # no Billing call queued


def test_update_is_idempotent_and_keeps_the_keys_it_activated(stubber: Stubber) -> None:
    listed(stubber, application="Active")
    stubber.add_response("update_cost_allocation_tags_status", {"Errors": []}, request("cost-center", "landing-zone"))
    index.on_event(event("Create", TagKeys=KEYS))
    for _ in range(2):
        listed(stubber, application="Active", cost_center="Active", landing_zone="Active")  # no update queued
        data = index.on_event(event("Update", TagKeys=KEYS))["Data"]
        assert data["AlreadyActive"] == "application" and data["ActivatedHere"] == "cost-center,landing-zone"
        assert saved() == ["cost-center", "landing-zone"]


def test_a_key_that_cannot_be_deactivated_is_logged_not_failed(
    stubber: Stubber, caplog: pytest.LogCaptureFixture
) -> None:
    listed(stubber)
    stubber.add_response("update_cost_allocation_tags_status", {"Errors": []}, request(*ALL))
    index.on_event(event("Create", TagKeys=KEYS))
    error = {"TagKey": "cost-center", "Code": "TagKeysNotFoundException", "Message": "gone"}
    stubber.add_response("update_cost_allocation_tags_status", {"Errors": [error]}, request(*ALL, status="Inactive"))
    index.on_event(event("Delete", TagKeys=KEYS))
    assert "could not deactivate cost-center" in caplog.text
    assert saved() is None


def test_a_key_not_yet_seen_is_retried_then_left_pending_without_failing(stubber: Stubber) -> None:
    listed(stubber)
    error = {"TagKey": "cost-center", "Code": "TagKeysNotFoundException", "Message": "not found"}
    stubber.add_response(
        "update_cost_allocation_tags_status", {"Errors": [error]}, request("application", "cost-center", "landing-zone")
    )
    stubber.add_response("update_cost_allocation_tags_status", {"Errors": []}, request("cost-center"))
    out = index.on_event(event("Update", TagKeys=KEYS, Attempts="3", RetrySeconds="5"))
    assert out["Data"]["Active"] == "application,cost-center,landing-zone" and out["Data"]["Pending"] == ""
    assert stubber.waits == [5]  # type: ignore[attr-defined]


def test_after_the_last_attempt_the_pending_keys_are_reported(
    stubber: Stubber, caplog: pytest.LogCaptureFixture
) -> None:
    listed(stubber)
    error = {"TagKey": "application", "Code": "TagKeysNotFoundException", "Message": "not found"}
    stubber.add_response(
        "update_cost_allocation_tags_status", {"Errors": [error]}, request("application", "cost-center", "landing-zone")
    )
    stubber.add_response("update_cost_allocation_tags_status", {"Errors": [error]}, request("application"))
    out = index.on_event(event("Create", TagKeys=KEYS, Attempts="2", RetrySeconds="0"))
    assert out["Data"]["Active"] == "cost-center,landing-zone" and out["Data"]["Pending"] == "application"
    assert "up to 24 hours" in caplog.text and "application" in caplog.text
    assert saved() == ["cost-center", "landing-zone"]  # a pending key is not (yet) the landing zone's


def test_access_denied_fails_the_resource_with_the_api_message(stubber: Stubber) -> None:
    listed(stubber, ("application",))
    stubber.add_client_error(
        "update_cost_allocation_tags_status",
        "AccessDeniedException",
        "not authorized to perform ce:UpdateCostAllocationTagsStatus",
        400,
        expected_params=request("application"),
    )
    with pytest.raises(Exception, match="AccessDeniedException"):
        index.on_event(event("Create", TagKeys="application"))


def test_delete_without_keys_of_its_own_makes_no_billing_call(stubber: Stubber) -> None:
    assert index.on_event(event("Delete", TagKeys=KEYS)) == {"PhysicalResourceId": "cost-allocation-tags", "Data": {}}


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({}, "TagKeys is required"),
        ({"TagKeys": " , "}, "must name 1 to 20"),
        ({"TagKeys": ",".join(f"k{i}" for i in range(21))}, "must name 1 to 20"),
        ({"TagKeys": "a"}, "SavedParameterName is required"),
        ({"TagKeys": "a", "SavedParameterName": SAVED, "Attempts": "0"}, "Attempts must be an integer from 1 to 10"),
        ({"TagKeys": "a", "SavedParameterName": SAVED, "RetrySeconds": "x"}, "RetrySeconds must be an integer from 0"),
    ],
)
def test_bad_properties_name_the_property_and_the_allowed_values(props: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        index.activate(props)


def test_bad_request_type() -> None:
    with pytest.raises(ValueError, match="Create, Update or Delete"):
        index.on_event({"RequestType": "Poke"})


def test_required_actions_are_the_plans() -> None:
    from landing_zone.plan.policies import COST_ALLOCATION_HANDLER_ACTIONS, SAVED_STATE_ACTIONS

    assert (*COST_ALLOCATION_HANDLER_ACTIONS, *SAVED_STATE_ACTIONS) == index.REQUIRED_IAM_ACTIONS
    assert COST_ALLOCATION_HANDLER_ACTIONS == ("ce:UpdateCostAllocationTagsStatus", "ce:ListCostAllocationTags")
