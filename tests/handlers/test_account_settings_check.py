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
    clients = {s: boto3.client(s, region_name="eu-central-1") for s in ("bedrock", "config", "ec2", "kms")}
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
    found = index.differences(long)
    assert len(found) == 3  # the S3 destination, the log group, the guardrail
    text = index.annotation(found)
    assert len(text) == index.ANNOTATION_LIMIT and text.endswith("...")


# The landing zone's policies as the plan writes them (digests: landing_zone.policies.config_checks.policy_digest)
ENDPOINT_POLICY = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Sid": "InvokeFromTheLandingZone",
            "Effect": "Allow",
            "Principal": "*",
            "Action": ["bedrock:InvokeModel", "bedrock:Converse"],
            "Resource": "*",
            "Condition": {"StringEquals": {"aws:PrincipalAccount": [ACCOUNT]}},
        }
    ],
}
KEY_POLICY = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Sid": "Root",
            "Effect": "Allow",
            "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
            "Action": "kms:*",
            "Resource": "*",
        },
        {
            "Sid": "Logs",
            "Effect": "Allow",
            "Principal": {"Service": "logs.eu-central-1.amazonaws.com"},
            "Action": ["kms:Encrypt", "kms:Decrypt", "kms:GenerateDataKey*"],
            "Resource": "*",
        },
    ],
}
KEY_ID = "1234abcd-12ab-34cd-56ef-1234567890ab"
VPC = "vpc-0a1b2c3d4e5f60718"


def _digest(policy: dict[str, Any]) -> str:
    from landing_zone.policies.config_checks import policy_digest

    return policy_digest(policy)


POLICIES = {
    "landingZone": "kimi-eu",
    "endpointPolicies": f"bedrock-runtime={_digest(ENDPOINT_POLICY)}",
    "keyPolicies": f"logs={_digest(KEY_POLICY)}",
    "vpcId": VPC,
}


def live_network(
    stubs: dict[str, Stubber],
    *,
    endpoint_policy: dict[str, Any] | None = None,
    endpoints: int = 1,
    key_policy: dict[str, Any] | None = None,
    on_default_acl: tuple[str, ...] = (),
) -> None:
    """The account as EC2 and KMS answer, in the order the handler reads: endpoints, keys, default network ACL.
    The live documents are formatted and ordered unlike the plan's (indented, statements and actions reversed)."""
    live_endpoint = ENDPOINT_POLICY if endpoint_policy is None else endpoint_policy
    reordered = {
        **live_endpoint,
        "Statement": [
            {**st, "Action": st["Action"][::-1]} if isinstance(st["Action"], list) else st
            for st in live_endpoint["Statement"]
        ],
    }
    stubs["ec2"].add_response(
        "describe_vpc_endpoints",
        {
            "VpcEndpoints": [
                {"VpcEndpointId": f"vpce-0{i}", "State": "available", "PolicyDocument": json.dumps(reordered, indent=2)}
                for i in range(endpoints)
            ]
        },
        {
            "Filters": [
                {"Name": "tag:landing-zone", "Values": ["kimi-eu"]},
                {"Name": "service-name", "Values": ["com.amazonaws.eu-central-1.bedrock-runtime"]},
            ]
        },
    )
    stubs["kms"].add_response("describe_key", {"KeyMetadata": {"KeyId": KEY_ID}}, {"KeyId": "alias/kimi-eu/logs"})
    live_key = KEY_POLICY if key_policy is None else key_policy
    stubs["kms"].add_response(
        "get_key_policy",
        {"Policy": json.dumps({**live_key, "Statement": live_key["Statement"][::-1]}, indent=4)},
        {"KeyId": KEY_ID, "PolicyName": "default"},
    )
    stubs["ec2"].add_response(
        "describe_network_acls",
        {
            "NetworkAcls": [
                {
                    "NetworkAclId": "acl-0default",
                    "IsDefault": True,
                    "VpcId": VPC,
                    "Associations": [
                        {"NetworkAclAssociationId": f"aclassoc-{s}", "NetworkAclId": "acl-0default", "SubnetId": s}
                        for s in on_default_acl
                    ],
                }
            ]
        },
        {"Filters": [{"Name": "vpc-id", "Values": [VPC]}, {"Name": "default", "Values": ["true"]}]},
    )


def test_the_landing_zone_policies_are_compliant_whatever_their_order_and_format(stubs: dict[str, Stubber]) -> None:
    live_network(stubs)
    reported(stubs, "COMPLIANT")
    assert index.handler(event(POLICIES))["ComplianceType"] == "COMPLIANT"


def test_a_changed_endpoint_policy_is_non_compliant_and_named(stubs: dict[str, Stubber]) -> None:
    statement = ENDPOINT_POLICY["Statement"][0]
    opened = {**ENDPOINT_POLICY, "Statement": [{**statement, "Condition": {}}]}  # any account's principals
    live_network(stubs, endpoint_policy=opened)
    reported(stubs, "NON_COMPLIANT", "endpoint policy of bedrock-runtime (vpce-00) is not the landing zone's")
    index.handler(event(POLICIES))


def test_a_missing_endpoint_is_non_compliant(stubs: dict[str, Stubber]) -> None:
    live_network(stubs, endpoints=0)
    reported(stubs, "NON_COMPLIANT", "endpoint bedrock-runtime not found")
    index.handler(event(POLICIES))


def test_a_changed_key_policy_is_non_compliant_and_named(stubs: dict[str, Stubber]) -> None:
    added = {
        "Sid": "Other",
        "Effect": "Allow",
        "Principal": {"AWS": "arn:aws:iam::999999999999:root"},
        "Action": "kms:Decrypt",
        "Resource": "*",
    }
    live_network(stubs, key_policy={**KEY_POLICY, "Statement": [*KEY_POLICY["Statement"], added]})
    reported(stubs, "NON_COMPLIANT", f"key policy of alias/kimi-eu/logs ({KEY_ID}) is not the landing zone's")
    index.handler(event(POLICIES))


def test_a_missing_key_alias_is_non_compliant(stubs: dict[str, Stubber]) -> None:
    stubs["kms"].add_client_error("describe_key", "NotFoundException", http_status_code=400)
    reported(stubs, "NON_COMPLIANT", "key alias/kimi-eu/logs not found")
    index.handler(event({"landingZone": "kimi-eu", "keyPolicies": POLICIES["keyPolicies"]}))


def test_a_subnet_on_the_default_network_acl_is_non_compliant_and_named(stubs: dict[str, Stubber]) -> None:
    live_network(stubs, on_default_acl=("subnet-0aaa",))
    reported(stubs, "NON_COMPLIANT", f"subnet subnet-0aaa is on the default network ACL acl-0default of {VPC}")
    index.handler(event(POLICIES))


def test_an_unreadable_key_policy_is_non_compliant(stubs: dict[str, Stubber]) -> None:
    stubs["kms"].add_response("describe_key", {"KeyMetadata": {"KeyId": KEY_ID}}, {"KeyId": "alias/kimi-eu/logs"})
    stubs["kms"].add_client_error("get_key_policy", "AccessDeniedException", http_status_code=400)
    reported(stubs, "NON_COMPLIANT", "key policies cannot be read (AccessDeniedException)")
    index.handler(event({"landingZone": "kimi-eu", "keyPolicies": POLICIES["keyPolicies"]}))


def test_the_handler_digest_is_the_plans() -> None:
    """The handler's copy of the digest agrees with the plan's (the rule's parameters are the plan's digests)."""
    for policy in (ENDPOINT_POLICY, KEY_POLICY):
        assert index.policy_digest(json.dumps(policy, indent=2)) == _digest(policy)
    assert index.policy_digest(KEY_POLICY) != _digest(ENDPOINT_POLICY)


def test_required_iam_actions_are_the_plans(plan_for: Any) -> None:
    """The handler's documented actions are exactly what the plan's policy grants it (besides its own logs), for a
    plan that checks everything (the EU example)."""
    from tests.conftest import ROOT

    rule = plan_for(ROOT / "examples" / "eu-sovereign.yaml").policies.detection.account_settings_rule
    granted = {
        a
        for s in rule.policy["Statement"]
        for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])
        if not a.startswith("logs:")
    }
    assert set(index.REQUIRED_IAM_ACTIONS) == granted
