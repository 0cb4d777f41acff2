"""handlers/invocation_logging: against moto's Bedrock logging-config API (put/get/delete all implemented
in moto 5.2.5) and moto's SSM (the saved configuration); the read-back-mismatch and failed-restore cases use a botocore
Stubber because moto always echoes the put.

The contract (issue 33): read before writing; a configuration that is not the landing zone's is refused unless
TakeOverExisting, in which case it is saved and put back on delete; one the landing zone created from nothing is
deleted on delete; an Update of its own configuration changes nothing else."""

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

HANDLER = Path(__file__).resolve().parents[2] / "handlers" / "invocation_logging" / "index.py"
_spec = importlib.util.spec_from_file_location("invocation_logging_index", HANDLER)
assert _spec and _spec.loader
index = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(index)

ROLE = "arn:aws:iam::123456789012:role/bedrock-invocation-logging"
SAVED = "lz-automation-invocation-logging-saved"
PROPS = {
    "ServiceToken": "arn:aws:lambda:us-east-1:123456789012:function:provider",
    "LogGroupName": "/landing-zone/bedrock/invocations",
    "RoleArn": ROLE,
    "BucketName": "lz-invocation-logs",
    "SavedParameterName": SAVED,
}
# Another team's configuration, as it was before the landing zone arrived.
THEIRS = {
    "cloudWatchConfig": {
        "logGroupName": "/platform/bedrock",
        "roleArn": "arn:aws:iam::123456789012:role/platform-bedrock-logging",
    },
    "s3Config": {"bucketName": "platform-bedrock-logs", "keyPrefix": "all-teams/"},
    "textDataDeliveryEnabled": True,
    "imageDataDeliveryEnabled": False,
    "embeddingDataDeliveryEnabled": False,
    "videoDataDeliveryEnabled": False,
}


def event(request_type: str, old: dict[str, str] | None = None, **props: str) -> dict[str, Any]:
    ev: dict[str, Any] = {"RequestType": request_type, "ResourceProperties": {**PROPS, **props}}
    if request_type != "Create":
        ev["PhysicalResourceId"] = "invocation-logging-us-east-1"
    if request_type == "Update":
        ev["OldResourceProperties"] = {**PROPS, **(old or {})}
    return ev


@pytest.fixture
def bedrock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.delenv("AWS_REGION", raising=False)
    with mock_aws():
        yield boto3.client("bedrock", region_name="us-east-1")


def current(bedrock: Any) -> dict[str, Any]:
    return bedrock.get_model_invocation_logging_configuration().get("loggingConfig") or {}


def saved() -> Any:
    """The saved configuration (None when the parameter does not exist)."""
    ssm = boto3.client("ssm", region_name="us-east-1")
    try:
        return json.loads(ssm.get_parameter(Name=SAVED)["Parameter"]["Value"])
    except ssm.exceptions.ParameterNotFound:
        return None


def another_team_configures(bedrock: Any) -> None:
    bedrock.put_model_invocation_logging_configuration(loggingConfig=THEIRS)


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
        "Data": {
            "BucketName": "lz-invocation-logs",
            "LogGroupName": "/landing-zone/bedrock/invocations",
            "TakenOver": "",
        },
    }
    assert saved() is None  # nothing was there: nothing to hand back


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
    # the configuration names the previous properties' bucket: still the landing zone's own, not refused
    updated = index.on_event(event("Update", BucketName="lz-invocation-logs-v2"), None)

    assert current(bedrock)["s3Config"]["bucketName"] == "lz-invocation-logs-v2"
    assert updated["PhysicalResourceId"] == created["PhysicalResourceId"]
    assert updated["Data"]["BucketName"] == "lz-invocation-logs-v2"


def test_delete_removes_own_configuration(bedrock: Any) -> None:
    """Nothing there -> created; the landing zone created it from nothing, so delete removes it."""
    index.on_event(event("Create"), None)
    assert current(bedrock)

    result = index.on_event(event("Delete"), None)

    assert current(bedrock) == {}
    assert result["PhysicalResourceId"] == "invocation-logging-us-east-1"


def test_a_foreign_configuration_is_refused_by_name_and_nothing_is_written(bedrock: Any) -> None:
    another_team_configures(bedrock)

    with pytest.raises(RuntimeError) as failure:
        index.on_event(event("Create"), None)

    message = str(failure.value)
    for name in ("platform-bedrock-logs", "/platform/bedrock", "role/platform-bedrock-logging"):
        assert name in message
    assert "invocation_logging.take_over_existing: true" in message
    assert current(bedrock) == THEIRS  # untouched
    assert saved() is None


def test_the_refusal_is_a_failed_response_and_its_rollback_delete_leaves_theirs(bedrock: Any) -> None:
    """CloudFormation rolls the failed Create back with a Delete: the other team's configuration stays."""
    another_team_configures(bedrock)
    with pytest.raises(RuntimeError, match="not this landing zone's"):
        index.on_event(event("Create"), None)

    index.on_event(event("Delete"), None)

    assert current(bedrock) == THEIRS


def test_take_over_saves_the_foreign_configuration_and_delete_restores_it(bedrock: Any) -> None:
    another_team_configures(bedrock)

    result = index.on_event(event("Create", TakeOverExisting="true"), None)

    assert current(bedrock)["s3Config"]["bucketName"] == "lz-invocation-logs"
    assert current(bedrock)["cloudWatchConfig"]["logGroupName"] == "/landing-zone/bedrock/invocations"
    assert saved() == THEIRS
    assert "platform-bedrock-logs" in result["Data"]["TakenOver"]

    index.on_event(event("Delete", TakeOverExisting="true"), None)

    assert current(bedrock) == THEIRS  # handed back exactly
    assert saved() is None


def test_update_of_its_own_configuration_is_idempotent_and_keeps_what_it_took_over(bedrock: Any) -> None:
    another_team_configures(bedrock)
    index.on_event(event("Create", TakeOverExisting="true"), None)
    ours = current(bedrock)

    for _ in range(2):
        index.on_event(event("Update", TakeOverExisting="true"), None)
        assert current(bedrock) == ours
        assert saved() == THEIRS  # not overwritten with the landing zone's own configuration

    # turning take-over off later changes nothing about what is handed back
    index.on_event(event("Update", {"TakeOverExisting": "true"}, TakeOverExisting="false"), None)
    index.on_event(event("Delete"), None)
    assert current(bedrock) == THEIRS


def test_a_configuration_replaced_after_take_over_is_left_on_delete(bedrock: Any) -> None:
    another_team_configures(bedrock)
    index.on_event(event("Create", TakeOverExisting="true"), None)
    newer = {**THEIRS, "s3Config": {"bucketName": "newer-owner-bucket", "keyPrefix": "x/"}}
    bedrock.put_model_invocation_logging_configuration(loggingConfig=newer)

    index.on_event(event("Delete"), None)

    assert current(bedrock) == newer  # neither deleted nor overwritten with the older one
    assert saved() is None


def test_a_leftover_saved_configuration_is_forgotten_when_create_finds_nothing(bedrock: Any) -> None:
    boto3.client("ssm", region_name="us-east-1").put_parameter(Name=SAVED, Value=json.dumps(THEIRS), Type="String")

    index.on_event(event("Create"), None)
    index.on_event(event("Delete"), None)

    assert current(bedrock) == {}  # not "restored" to a configuration that was gone before the landing zone came
    assert saved() is None


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
    stubber.add_response("get_model_invocation_logging_configuration", {}, {})  # nothing configured yet
    stubber.add_response("put_model_invocation_logging_configuration", {}, {"loggingConfig": expected})
    drifted = {**expected, "s3Config": {"bucketName": "other-bucket", "keyPrefix": "bedrock-invocation-logs/"}}
    stubber.add_response("get_model_invocation_logging_configuration", {"loggingConfig": drifted}, {})
    ssm = boto3.client("ssm", region_name="us-east-1")
    ssm_stubber = Stubber(ssm)
    ssm_stubber.add_response("delete_parameter", {}, {"Name": SAVED})
    monkeypatch.setattr(index, "client", lambda service: {"bedrock": stubbed, "ssm": ssm}[service])

    with (
        stubber,
        ssm_stubber,
        pytest.raises(RuntimeError, match=r"s3Config\.bucketName: expected 'lz-invocation-logs', found 'other-bucket'"),
    ):
        index.on_event(event("Create"), None)
    stubber.assert_no_pending_responses()


def test_a_failed_restore_fails_the_delete_and_keeps_the_saved_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    """The taken-over configuration's role can no longer be passed: the Delete fails, says how to restore by hand,
    and the saved copy stays (a Delete that succeeded would leave the account logging to the landing zone)."""
    bedrock = boto3.client("bedrock", region_name="us-east-1")
    ssm = boto3.client("ssm", region_name="us-east-1")
    stubbers = {"bedrock": Stubber(bedrock), "ssm": Stubber(ssm)}
    ours = index.build_logging_config(PROPS)
    stubbers["bedrock"].add_response("get_model_invocation_logging_configuration", {"loggingConfig": ours}, {})
    stubbers["ssm"].add_response(
        "get_parameter", {"Parameter": {"Name": SAVED, "Value": json.dumps(THEIRS)}}, {"Name": SAVED}
    )
    stubbers["bedrock"].add_client_error(
        "put_model_invocation_logging_configuration",
        "AccessDeniedException",
        "not authorized to perform iam:PassRole",
        403,
        expected_params={"loggingConfig": THEIRS},
    )
    monkeypatch.setattr(index, "client", lambda service: {"bedrock": bedrock, "ssm": ssm}[service])

    with stubbers["bedrock"], stubbers["ssm"], pytest.raises(RuntimeError) as failure:
        index.on_event(event("Delete"), None)

    message = str(failure.value)
    assert "Could not restore" in message and "platform-bedrock-logs" in message and SAVED in message
    assert "put-model-invocation-logging-configuration" in message
    for stubber in stubbers.values():
        stubber.assert_no_pending_responses()  # and no delete_parameter call was queued, so none was made


def test_required_iam_actions() -> None:
    from landing_zone.plan.policies import LOGGING_HANDLER_ACTIONS, SAVED_STATE_ACTIONS

    assert (*LOGGING_HANDLER_ACTIONS, "iam:PassRole", *SAVED_STATE_ACTIONS) == index.REQUIRED_IAM_ACTIONS
