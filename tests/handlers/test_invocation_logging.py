"""handlers/invocation_logging: against moto's Bedrock logging-config API (put/get/delete all implemented
in moto 5.2.5); the read-back-mismatch case uses a botocore Stubber because moto always echoes the put."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws

HANDLER = Path(__file__).resolve().parents[2] / "handlers" / "invocation_logging" / "index.py"
_spec = importlib.util.spec_from_file_location("invocation_logging_index", HANDLER)
assert _spec and _spec.loader
index = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(index)

ROLE = "arn:aws:iam::123456789012:role/bedrock-invocation-logging"
PROPS = {
    "ServiceToken": "arn:aws:lambda:us-east-1:123456789012:function:provider",
    "LogGroupName": "/landing-zone/bedrock/invocations",
    "RoleArn": ROLE,
    "BucketName": "lz-invocation-logs",
}


def event(request_type: str, **props: str) -> dict[str, Any]:
    ev: dict[str, Any] = {"RequestType": request_type, "ResourceProperties": {**PROPS, **props}}
    if request_type != "Create":
        ev["PhysicalResourceId"] = "invocation-logging-us-east-1"
    return ev


@pytest.fixture
def bedrock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.delenv("AWS_REGION", raising=False)
    with mock_aws():
        yield boto3.client("bedrock", region_name="us-east-1")


def current(bedrock: Any) -> dict[str, Any]:
    return bedrock.get_model_invocation_logging_configuration().get("loggingConfig") or {}


def test_create_sets_exact_configuration(bedrock: Any) -> None:
    result = index.on_event(event("Create"), None)

    assert current(bedrock) == {
        "cloudWatchConfig": {"logGroupName": "/landing-zone/bedrock/invocations", "roleArn": ROLE},
        "s3Config": {"bucketName": "lz-invocation-logs", "keyPrefix": "bedrock-invocation-logs/"},
        "textDataDeliveryEnabled": True,
        "imageDataDeliveryEnabled": True,
        "embeddingDataDeliveryEnabled": True,
        "videoDataDeliveryEnabled": False,
    }
    assert result == {
        "PhysicalResourceId": "invocation-logging-us-east-1",
        "Data": {"BucketName": "lz-invocation-logs", "LogGroupName": "/landing-zone/bedrock/invocations"},
    }


def test_physical_id_uses_lambda_region(bedrock: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    assert index.on_event(event("Create"), None)["PhysicalResourceId"] == "invocation-logging-us-east-1"


def test_optional_properties_are_applied(bedrock: Any) -> None:
    index.on_event(
        event(
            "Create",
            KeyPrefix="custom/",
            LargeDataKeyPrefix="large/",
            VideoDataDeliveryEnabled="true",
            ImageDataDeliveryEnabled="FALSE",
        ),
        None,
    )

    config = current(bedrock)
    assert config["s3Config"] == {"bucketName": "lz-invocation-logs", "keyPrefix": "custom/"}
    assert config["cloudWatchConfig"]["largeDataDeliveryS3Config"] == {
        "bucketName": "lz-invocation-logs",
        "keyPrefix": "large/",
    }
    assert config["videoDataDeliveryEnabled"] is True
    assert config["imageDataDeliveryEnabled"] is False


def test_string_false_really_disables_text_delivery(bedrock: Any) -> None:
    index.on_event(event("Create", TextDataDeliveryEnabled="false", EmbeddingDataDeliveryEnabled="false"), None)

    config = current(bedrock)
    assert config["textDataDeliveryEnabled"] is False
    assert config["embeddingDataDeliveryEnabled"] is False
    assert config["imageDataDeliveryEnabled"] is True


def test_update_changes_bucket_with_stable_physical_id(bedrock: Any) -> None:
    created = index.on_event(event("Create"), None)
    updated = index.on_event(event("Update", BucketName="lz-invocation-logs-v2"), None)

    assert current(bedrock)["s3Config"]["bucketName"] == "lz-invocation-logs-v2"
    assert updated["PhysicalResourceId"] == created["PhysicalResourceId"]
    assert updated["Data"]["BucketName"] == "lz-invocation-logs-v2"


def test_delete_removes_own_configuration(bedrock: Any) -> None:
    index.on_event(event("Create"), None)
    assert current(bedrock)

    result = index.on_event(event("Delete"), None)

    assert current(bedrock) == {}
    assert result["PhysicalResourceId"] == "invocation-logging-us-east-1"


def test_delete_leaves_configuration_owned_by_another_bucket(bedrock: Any) -> None:
    index.on_event(event("Create", BucketName="someone-elses-bucket"), None)
    before = current(bedrock)

    index.on_event(event("Delete"), None)  # this resource's BucketName is lz-invocation-logs

    assert current(bedrock) == before
    assert before["s3Config"]["bucketName"] == "someone-elses-bucket"


def test_delete_leaves_configuration_with_another_log_group(bedrock: Any) -> None:
    index.on_event(event("Create", LogGroupName="/other/group"), None)

    index.on_event(event("Delete"), None)

    assert current(bedrock)["cloudWatchConfig"]["logGroupName"] == "/other/group"


def test_delete_without_configuration_succeeds(bedrock: Any) -> None:
    assert current(bedrock) == {}
    assert index.on_event(event("Delete"), None)["PhysicalResourceId"] == "invocation-logging-us-east-1"
    assert current(bedrock) == {}


@pytest.mark.parametrize("missing", ["LogGroupName", "RoleArn", "BucketName"])
def test_missing_required_property_is_named(bedrock: Any, missing: str) -> None:
    ev = event("Create")
    del ev["ResourceProperties"][missing]
    with pytest.raises(ValueError, match=f"Property {missing} is required"):
        index.on_event(ev, None)
    assert current(bedrock) == {}


def test_bad_boolean_string_is_named(bedrock: Any) -> None:
    with pytest.raises(ValueError, match=r"Property TextDataDeliveryEnabled must be 'true' or 'false', got 'yes'"):
        index.on_event(event("Create", TextDataDeliveryEnabled="yes"), None)
    assert current(bedrock) == {}


def test_bad_role_arn_is_named(bedrock: Any) -> None:
    with pytest.raises(ValueError, match=r"Property RoleArn must be an IAM role ARN.*'not-an-arn'"):
        index.on_event(event("Create", RoleArn="not-an-arn"), None)


def test_unknown_request_type_fails(bedrock: Any) -> None:
    with pytest.raises(ValueError, match="RequestType"):
        index.on_event({"RequestType": "Replace", "ResourceProperties": PROPS}, None)


def test_read_back_mismatch_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bedrock reports a different configuration than was put -> the resource fails (Stubber: moto echoes the put)."""
    stubbed = boto3.client("bedrock", region_name="us-east-1")
    stubber = Stubber(stubbed)
    expected = index.build_logging_config(PROPS)
    stubber.add_response("put_model_invocation_logging_configuration", {}, {"loggingConfig": expected})
    drifted = {**expected, "s3Config": {"bucketName": "other-bucket", "keyPrefix": "bedrock-invocation-logs/"}}
    stubber.add_response("get_model_invocation_logging_configuration", {"loggingConfig": drifted}, {})
    monkeypatch.setattr(index, "client", lambda service: stubbed)

    with (
        stubber,
        pytest.raises(RuntimeError, match=r"s3Config\.bucketName: expected 'lz-invocation-logs', found 'other-bucket'"),
    ):
        index.on_event(event("Create"), None)
    stubber.assert_no_pending_responses()


def test_required_iam_actions() -> None:
    assert index.REQUIRED_IAM_ACTIONS == (
        "bedrock:PutModelInvocationLoggingConfiguration",
        "bedrock:GetModelInvocationLoggingConfiguration",
        "bedrock:DeleteModelInvocationLoggingConfiguration",
        "iam:PassRole",
    )
