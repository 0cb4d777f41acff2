"""handlers/account_settings_check: botocore Stubber for Bedrock (moto 5.2.5 implements none of the three reads) and
for AWS Config (``expected_params`` pins the PutEvaluations request exactly: resource type, account, compliance,
annotation, timestamp, result token).

Stubber validates every request and answer against the installed service models, and a call the test did not queue
fails the test (so "the data retention mode is not read when the rule has no retentionMode" is checked by queuing
no such answer)."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

HANDLER = Path(__file__).resolve().parents[2] / "handlers" / "account_settings_check" / "index.py"
_spec = importlib.util.spec_from_file_location("account_settings_check_index", HANDLER)
assert _spec and _spec.loader
index = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(index)

ACCOUNT = "222222222222"
WHEN = "2026-12-06T03:00:00.000Z"
TOKEN = "result-token"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/kimi-eu-bedrock-invocation-logging"
EXPECTED = {
    "logBucket": "kimi-eu-invocation-logs-0a1b2c3d",
    "logKeyPrefix": "bedrock-invocation-logs/",
    "logGroup": "/kimi-eu/bedrock/invocations-0a1b2c3d",
    "logRoleArn": ROLE,
    "logDataTypes": "embedding,image,text",
    "retentionMode": "none",
    "guardrailId": "abcdefghijkl",
    "guardrailVersion": "1",
}
LOGGING = {
    "s3Config": {"bucketName": "kimi-eu-invocation-logs-0a1b2c3d", "keyPrefix": "bedrock-invocation-logs/"},
    "cloudWatchConfig": {"logGroupName": "/kimi-eu/bedrock/invocations-0a1b2c3d", "roleArn": ROLE},
    "textDataDeliveryEnabled": True,
    "imageDataDeliveryEnabled": True,
    "embeddingDataDeliveryEnabled": True,
    "videoDataDeliveryEnabled": False,
}
GUARDRAIL = {
    "configId": "config-1",
    "guardrailArn": f"arn:aws:bedrock:eu-central-1:{ACCOUNT}:guardrail/abcdefghijkl",
    "guardrailId": "abcdefghijkl",
    "guardrailVersion": "1",
    "createdAt": "2026-12-01T00:00:00Z",
    "createdBy": "deployer",
    "updatedAt": "2026-12-01T00:00:00Z",
    "updatedBy": "deployer",
    "owner": "ACCOUNT",
}


def event(parameters: dict[str, str]) -> dict[str, Any]:
    invoking = {"awsAccountId": ACCOUNT, "notificationCreationTime": WHEN, "messageType": "ScheduledNotification"}
    return {
        "invokingEvent": json.dumps(invoking),
        "ruleParameters": json.dumps(parameters),
        "resultToken": TOKEN,
        "eventLeftScope": False,
        "configRuleName": "kimi-eu-config-account-settings",
        "accountId": ACCOUNT,
    }


@pytest.fixture
def stubs(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Stubber]]:
    clients = {s: boto3.client(s, region_name="eu-central-1") for s in ("bedrock", "config")}
    stubbers = {s: Stubber(c) for s, c in clients.items()}
    monkeypatch.setattr(index, "client", lambda service: clients[service])
    for stub in stubbers.values():
        stub.activate()
    yield stubbers
    for stub in stubbers.values():
        stub.assert_no_pending_responses()
        stub.deactivate()


def live(stubs: dict[str, Stubber], *, logging: dict | None = None, mode: str = "none", enforced: list | None = None):
    """The account as Bedrock answers, in the order the handler reads: logging, retention, enforced guardrails."""
    bedrock = stubs["bedrock"]
    bedrock.add_response(
        "get_model_invocation_logging_configuration", {"loggingConfig": LOGGING if logging is None else logging}, {}
    )
    bedrock.add_response("get_account_data_retention", {"mode": mode}, {})
    bedrock.add_response(
        "list_enforced_guardrails_configuration", {"guardrailsConfig": [GUARDRAIL] if enforced is None else enforced}
    )


def reported(stubs: dict[str, Stubber], compliance: str, annotation: str | None = None) -> None:
    """The one PutEvaluations the handler must send (Stubber fails the test on any other request)."""
    evaluation: dict[str, Any] = {
        "ComplianceResourceType": "AWS::::Account",
        "ComplianceResourceId": ACCOUNT,
        "ComplianceType": compliance,
        "OrderingTimestamp": WHEN,
    }
    if annotation is not None:
        evaluation["Annotation"] = annotation
    stubs["config"].add_response("put_evaluations", {}, {"Evaluations": [evaluation], "ResultToken": TOKEN})


def test_the_landing_zone_settings_are_compliant(stubs: dict[str, Stubber]) -> None:
    live(stubs)
    reported(stubs, "COMPLIANT")
    assert index.handler(event(EXPECTED))["ComplianceType"] == "COMPLIANT"


def test_logs_redirected_to_another_bucket_are_non_compliant_and_named(stubs: dict[str, Stubber]) -> None:
    live(stubs, logging={**LOGGING, "s3Config": {"bucketName": "someone-elses", "keyPrefix": ""}})
    reported(
        stubs,
        "NON_COMPLIANT",
        "invocation logs go to s3://someone-elses/, not s3://kimi-eu-invocation-logs-0a1b2c3d/bedrock-invocation-logs/",
    )
    index.handler(event(EXPECTED))


def test_logging_removed_is_non_compliant(stubs: dict[str, Stubber]) -> None:
    live(stubs, logging={})
    reported(stubs, "NON_COMPLIANT", "invocation logging is not configured")
    index.handler(event(EXPECTED))


def test_log_group_role_and_data_types_each_named(stubs: dict[str, Stubber]) -> None:
    other = f"arn:aws:iam::{ACCOUNT}:role/other"
    live(
        stubs,
        logging={
            **LOGGING,
            "cloudWatchConfig": {"logGroupName": "/other", "roleArn": other},
            "imageDataDeliveryEnabled": False,
        },
    )
    reported(
        stubs,
        "NON_COMPLIANT",
        "invocation log group is /other, not /kimi-eu/bedrock/invocations-0a1b2c3d; invocation logging role is "
        f"{other}, not the landing zone's; invocation logging delivers embedding,text, not embedding,image,text",
    )
    index.handler(event(EXPECTED))


def test_another_retention_mode_is_non_compliant(stubs: dict[str, Stubber]) -> None:
    live(stubs, mode="inherit")
    reported(stubs, "NON_COMPLIANT", "data retention mode is inherit, not none")
    index.handler(event(EXPECTED))


def test_guardrail_not_enforced_or_at_another_version(stubs: dict[str, Stubber]) -> None:
    live(stubs, enforced=[{**GUARDRAIL, "guardrailId": "zzzzzzzzzzzz"}])
    reported(stubs, "NON_COMPLIANT", "guardrail abcdefghijkl is not enforced")
    index.handler(event(EXPECTED))
    live(stubs, enforced=[{**GUARDRAIL, "guardrailVersion": "2"}])
    reported(stubs, "NON_COMPLIANT", "guardrail abcdefghijkl is enforced at version 2, not 1")
    index.handler(event(EXPECTED))


def test_enforced_configurations_are_read_past_the_first_page(stubs: dict[str, Stubber]) -> None:
    bedrock = stubs["bedrock"]
    bedrock.add_response("list_enforced_guardrails_configuration", {"guardrailsConfig": [], "nextToken": "p2"}, {})
    bedrock.add_response(
        "list_enforced_guardrails_configuration", {"guardrailsConfig": [GUARDRAIL]}, {"nextToken": "p2"}
    )
    reported(stubs, "COMPLIANT")
    index.handler(event({"guardrailId": "abcdefghijkl", "guardrailVersion": "1"}))


def test_only_the_settings_the_rule_names_are_read(stubs: dict[str, Stubber]) -> None:
    """Only retentionMode: no logging or guardrail read is queued, so a read of either fails the test."""
    stubs["bedrock"].add_response("get_account_data_retention", {"mode": "none"}, {})
    reported(stubs, "COMPLIANT")
    index.handler(event({"retentionMode": "none"}))


def test_an_unreadable_setting_is_non_compliant(stubs: dict[str, Stubber]) -> None:
    """A read the role or an SCP refuses does not pass silently."""
    stubs["bedrock"].add_client_error("get_account_data_retention", "AccessDeniedException", http_status_code=403)
    reported(stubs, "NON_COMPLIANT", "data retention cannot be read (AccessDeniedException)")
    index.handler(event({"retentionMode": "none"}))


def test_the_annotation_fits_aws_config_limit(stubs: dict[str, Stubber]) -> None:
    long = {**EXPECTED, "logBucket": "b" * 63, "logGroup": "/" + "g" * 200}
    live(stubs, enforced=[])
    found = index.differences(long, stubs["bedrock"].client)
    assert len(found) == 3  # the S3 destination, the log group, the guardrail
    text = index.annotation(found)
    assert len(text) == index.ANNOTATION_LIMIT and text.endswith("...")


def test_required_iam_actions_are_the_plans() -> None:
    """The handler's documented actions are exactly what the plan's policy grants it (besides its own logs)."""
    from landing_zone.policies.config_checks import ACCOUNT_SETTINGS_READ_ACTIONS, PUT_EVALUATIONS

    assert set(index.REQUIRED_IAM_ACTIONS) == {*ACCOUNT_SETTINGS_READ_ACTIONS, PUT_EVALUATIONS}
