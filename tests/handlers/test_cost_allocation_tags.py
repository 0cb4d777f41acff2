"""handlers/cost_allocation_tags: botocore Stubber against the installed ce model (moto implements no cost allocation
tag API); ``expected_params`` pins each request exactly."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

HANDLER = Path(__file__).resolve().parents[2] / "handlers" / "cost_allocation_tags" / "index.py"
_spec = importlib.util.spec_from_file_location("cost_allocation_tags_index", HANDLER)
assert _spec and _spec.loader
index = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(index)

KEYS = "landing-zone,application,cost-center"


def event(request_type: str, **props: str) -> dict[str, Any]:
    ev: dict[str, Any] = {
        "RequestType": request_type,
        "ResourceProperties": {"ServiceToken": "arn:aws:lambda:us-west-2:123456789012:function:p", **props},
    }
    if request_type != "Create":
        ev["PhysicalResourceId"] = "cost-allocation-tags"
    return ev


def request(*keys: str) -> dict[str, Any]:
    return {"CostAllocationTagsStatus": [{"TagKey": k, "Status": "Active"} for k in keys]}


@pytest.fixture
def stubber(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stubber]:
    ce = boto3.client("ce", region_name="us-east-1")
    stub = Stubber(ce)
    services: list[str] = []
    waits: list[float] = []
    monkeypatch.setattr(index, "client", lambda service: services.append(service) or ce)
    monkeypatch.setattr(index, "sleep", waits.append)
    stub.waits = waits  # type: ignore[attr-defined]
    with stub:
        yield stub
    stub.assert_no_pending_responses()
    assert set(services) <= {"ce"}


def test_cost_explorer_is_called_in_us_east_1_whatever_the_lambda_region(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    # botocore names the Region 'aws-global' (Cost Explorer is a partition-global endpoint) and signs for us-east-1
    assert index.client("ce").meta.endpoint_url == "https://ce.us-east-1.amazonaws.com"


def test_create_activates_every_key_in_one_call(stubber: Stubber) -> None:
    stubber.add_response(
        "update_cost_allocation_tags_status", {"Errors": []}, request("application", "cost-center", "landing-zone")
    )
    out = index.on_event(event("Create", TagKeys=KEYS))
    assert out == {
        "PhysicalResourceId": "cost-allocation-tags",
        "Data": {"Active": "application,cost-center,landing-zone", "Pending": ""},
    }
    assert stubber.waits == []  # type: ignore[attr-defined]


def test_a_key_not_yet_seen_is_retried_then_left_pending_without_failing(stubber: Stubber) -> None:
    error = {"TagKey": "cost-center", "Code": "TagKeysNotFoundException", "Message": "not found"}
    stubber.add_response(
        "update_cost_allocation_tags_status", {"Errors": [error]}, request("application", "cost-center", "landing-zone")
    )
    stubber.add_response("update_cost_allocation_tags_status", {"Errors": []}, request("cost-center"))
    out = index.on_event(event("Update", TagKeys=KEYS, Attempts="3", RetrySeconds="5"))
    assert out["Data"] == {"Active": "application,cost-center,landing-zone", "Pending": ""}
    assert stubber.waits == [5]  # type: ignore[attr-defined]


def test_after_the_last_attempt_the_pending_keys_are_reported(
    stubber: Stubber, caplog: pytest.LogCaptureFixture
) -> None:
    error = {"TagKey": "application", "Code": "TagKeysNotFoundException", "Message": "not found"}
    stubber.add_response(
        "update_cost_allocation_tags_status", {"Errors": [error]}, request("application", "cost-center", "landing-zone")
    )
    stubber.add_response("update_cost_allocation_tags_status", {"Errors": [error]}, request("application"))
    out = index.on_event(event("Create", TagKeys=KEYS, Attempts="2", RetrySeconds="0"))
    assert out["Data"] == {"Active": "cost-center,landing-zone", "Pending": "application"}
    assert "up to 24 hours" in caplog.text and "application" in caplog.text


def test_access_denied_fails_the_resource_with_the_api_message(stubber: Stubber) -> None:
    stubber.add_client_error(
        "update_cost_allocation_tags_status",
        "AccessDeniedException",
        "not authorized to perform ce:UpdateCostAllocationTagsStatus",
        400,
        expected_params=request("application"),
    )
    with pytest.raises(Exception, match="AccessDeniedException"):
        index.on_event(event("Create", TagKeys="application"))


def test_delete_makes_no_call(stubber: Stubber) -> None:
    assert index.on_event(event("Delete", TagKeys=KEYS)) == {"PhysicalResourceId": "cost-allocation-tags", "Data": {}}


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({}, "TagKeys is required"),
        ({"TagKeys": " , "}, "must name 1 to 20"),
        ({"TagKeys": ",".join(f"k{i}" for i in range(21))}, "must name 1 to 20"),
        ({"TagKeys": "a", "Attempts": "0"}, "Attempts must be an integer from 1 to 10"),
        ({"TagKeys": "a", "RetrySeconds": "x"}, "RetrySeconds must be an integer from 0 to 60"),
    ],
)
def test_bad_properties_name_the_property_and_the_allowed_values(props: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        index.activate(props)


def test_bad_request_type() -> None:
    with pytest.raises(ValueError, match="Create, Update or Delete"):
        index.on_event({"RequestType": "Poke"})


def test_required_actions_are_the_plans() -> None:
    from landing_zone.plan.policies import COST_ALLOCATION_HANDLER_ACTIONS

    assert index.REQUIRED_IAM_ACTIONS == COST_ALLOCATION_HANDLER_ACTIONS == ("ce:UpdateCostAllocationTagsStatus",)
