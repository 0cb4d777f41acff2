"""The custom AWS Config rule for the account settings AWS Config does not record (docs/DETECTION.md, "Continuous
checks"), as synthesized for the EU example (detection.config_rules: true; invocation logging, data retention mode
none, guardrail enforced account-wide): it expects exactly what the access stack's resources set, its function may
only read those settings and put evaluations, and its non-compliance alerts like the managed rules'."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import ROOT, derived_config

IMPORTED_VPC = ROOT / "examples" / "imported-vpc.yaml"

EU = ROOT / "examples" / "eu-sovereign.yaml"
US_ORG = ROOT / "examples" / "us-organization.yaml"
SELF_HOSTING = ROOT / "examples" / "self-hosting.yaml"
RULE_NAME = "kimi-eu-config-account-settings"


@pytest.fixture(scope="module")
def eu(synth: Callable) -> Any:
    return synth(EU)


def _of_type(template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in template["Resources"].items() if v["Type"] == kind}


def _the(template: dict[str, Any], kind: str) -> dict[str, Any]:
    (found,) = _of_type(template, kind).values()
    return found["Properties"]


def _rule(eu: Any, name: str = RULE_NAME) -> dict[str, Any]:
    rules = _of_type(eu.template("detection").to_json(), "AWS::Config::ConfigRule").values()
    (rule,) = [r["Properties"] for r in rules if r["Properties"]["ConfigRuleName"] == name]
    return rule


def _exported(template: dict[str, Any], value: Any) -> Any:
    """``value`` as the access stack sees it: an Fn::ImportValue replaced by the value of the output it exports."""
    if not (isinstance(value, dict) and "Fn::ImportValue" in value):
        return value
    exports = {o["Export"]["Name"]: o["Value"] for o in template.get("Outputs", {}).values() if "Export" in o}
    return exports[value["Fn::ImportValue"]]


def test_the_rule_expects_what_the_access_stack_sets(eu: Any) -> None:
    """The parameters are the values the custom resources and the enforcement are given (cross-stack references to
    the same resources), not a second copy: redirect the logging construct and this fails."""
    access = eu.template("access").to_json()
    params = {k: _exported(access, v) for k, v in _rule(eu)["InputParameters"].items() if k != "vpcId"}
    logging = _the(access, "Custom::BedrockInvocationLogging")
    assert params["logBucket"] == logging["BucketName"]
    assert params["logKeyPrefix"] == logging["KeyPrefix"]
    assert params["logGroup"] == logging["LogGroupName"]
    assert params["logRoleArn"] == logging["RoleArn"]
    delivered = {"text", "image", "embedding", "video"}
    assert params["logDataTypes"].split(",") == sorted(
        t for t in delivered if logging[f"{t.capitalize()}DataDeliveryEnabled"] == "true"
    )
    assert params["retentionMode"] == _the(access, "Custom::BedrockDataRetention")["Mode"]
    enforcement = _the(access, "AWS::Bedrock::EnforcedGuardrailConfiguration")
    assert params["guardrailId"] == enforcement["GuardrailIdentifier"]
    assert params["guardrailVersion"] == enforcement["GuardrailVersion"]


def _handler() -> Any:
    import importlib.util

    path = ROOT / "handlers" / "account_settings_check" / "index.py"
    spec = importlib.util.spec_from_file_location("account_settings_check_index_cdk", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_rule_expects_the_policies_the_stacks_deploy(eu: Any) -> None:
    """The digests are those of the endpoint and key policies as synthesized (computed by the handler's own copy of
    the digest, so the handler and the plan agree on the deployed documents), the aliases the keys stack creates, and
    the VPC the network stack creates: change a document in one place only and this fails."""
    index = _handler()
    params = _rule(eu)["InputParameters"]
    network = eu.template("network").to_json()
    endpoints = {
        next(t["Value"] for t in e["Properties"]["Tags"] if t["Key"].endswith("-endpoint-service")): e["Properties"]
        for e in _of_type(network, "AWS::EC2::VPCEndpoint").values()
        if e["Properties"].get("VpcEndpointType") == "Interface"
    }
    for service, endpoint in endpoints.items():  # how the handler finds them: service name and landing-zone tag
        assert endpoint["ServiceName"] == f"com.amazonaws.eu-central-1.{service}"
        assert {"Key": "landing-zone", "Value": "kimi-eu"} in endpoint["Tags"]
    assert params["endpointPolicies"] == ",".join(
        f"{s}={index.policy_digest(endpoints[s]['PolicyDocument'])}" for s in sorted(endpoints)
    )
    keys = eu.template("keys").to_json()
    aliases = {
        a["Properties"]["AliasName"]: a["Properties"]["TargetKeyId"] for a in _of_type(keys, "AWS::KMS::Alias").values()
    }
    policies = {}
    for purpose in ("alerts", "logs"):
        (key_id,) = [
            k
            for k in _of_type(keys, "AWS::KMS::Key")
            if {"Fn::GetAtt": [k, "Arn"]} == aliases[f"alias/kimi-eu/{purpose}"]
            or {"Ref": k} == aliases[f"alias/kimi-eu/{purpose}"]
        ]
        policies[purpose] = keys["Resources"][key_id]["Properties"]["KeyPolicy"]
    assert params["keyPolicies"] == ",".join(f"{p}={index.policy_digest(policies[p])}" for p in sorted(policies))
    assert params["landingZone"] == "kimi-eu"
    (vpc_id,) = _of_type(network, "AWS::EC2::VPC")
    assert _exported(network, params["vpcId"]) == {"Ref": vpc_id}


def test_with_self_hosting_the_s3_gateway_endpoint_policy_is_checked(synth: Callable) -> None:
    """The self-hosting stack's S3 gateway endpoint (new VPC): its synthesized policy's digest is the rule's ``s3``
    entry, and it carries what the handler finds it by (the landing-zone tag, the S3 service)."""
    config = derived_config(
        "self-hosting-config-rules.yaml", SELF_HOSTING.read_text() + "detection: {enabled: true, config_rules: true}\n"
    )
    selfhost = synth(config)
    template = selfhost.template("self-hosting").to_json()
    (gateway,) = [
        e["Properties"]
        for e in _of_type(template, "AWS::EC2::VPCEndpoint").values()
        if e["Properties"].get("VpcEndpointType", "Gateway") == "Gateway"
    ]
    assert "s3" in str(gateway["ServiceName"])
    assert {"Key": "landing-zone", "Value": "kimi-selfhost"} in gateway["Tags"]
    params = _rule(selfhost, "kimi-selfhost-config-account-settings")["InputParameters"]
    digests = dict(pair.split("=") for pair in params["endpointPolicies"].split(","))
    assert digests["s3"] == _handler().policy_digest(gateway["PolicyDocument"])


def test_the_function_description_names_every_check_uncut(eu: Any) -> None:
    detection = eu.template("detection").to_json()
    (function,) = [
        f["Properties"]
        for f in _of_type(detection, "AWS::Lambda::Function").values()
        if f["Properties"]["FunctionName"] == "kimi-eu-account-settings-check"
    ]
    assert len(function["Description"]) < 256 and function["Description"].endswith("default network ACL")


def test_a_periodic_lambda_rule_on_its_own_function(eu: Any) -> None:
    detection = eu.template("detection").to_json()
    rule = _rule(eu)
    (function_id,) = [
        k
        for k, v in _of_type(detection, "AWS::Lambda::Function").items()
        if v["Properties"]["FunctionName"] == "kimi-eu-account-settings-check"
    ]
    assert rule["Source"] == {
        "Owner": "CUSTOM_LAMBDA",
        "SourceIdentifier": {"Fn::GetAtt": [function_id, "Arn"]},
        "SourceDetails": [
            {
                "EventSource": "aws.config",
                "MessageType": "ScheduledNotification",
                "MaximumExecutionFrequency": "One_Hour",
            }
        ],
    }
    (permission,) = [
        p["Properties"]
        for p in _of_type(detection, "AWS::Lambda::Permission").values()
        if p["Properties"]["FunctionName"] == {"Fn::GetAtt": [function_id, "Arn"]}
    ]
    assert permission["Principal"] == "config.amazonaws.com" and permission["SourceAccount"] == "222222222222"
    assert "Scope" not in rule  # the account itself (AWS::::Account), no resource type to scope by


def test_its_function_only_reads_the_settings_and_puts_evaluations(eu: Any) -> None:
    detection = eu.template("detection").to_json()
    (policy,) = [
        p["Properties"]["PolicyDocument"]
        for p in _of_type(detection, "AWS::IAM::ManagedPolicy").values()
        if p["Properties"]["ManagedPolicyName"] == "kimi-eu-account-settings-check"
    ]
    granted = {}
    for s in policy["Statement"]:
        assert s["Effect"] == "Allow"
        assert "Condition" not in s or s["Sid"] == "ReadKeyPolicies"
        for action in [s["Action"]] if isinstance(s["Action"], str) else s["Action"]:
            granted[action] = s["Resource"]
    key_arns = "arn:aws:kms:eu-central-1:222222222222:key/*"  # the deployment account's keys, by alias below
    assert {a: r for a, r in granted.items() if not a.startswith("logs:")} == {
        "bedrock:GetModelInvocationLoggingConfiguration": "*",
        "bedrock:GetAccountDataRetention": "*",
        "bedrock:ListEnforcedGuardrailsConfiguration": "*",
        "ec2:DescribeVpcEndpoints": "*",
        "ec2:DescribeNetworkAcls": "*",
        "kms:DescribeKey": key_arns,
        "kms:GetKeyPolicy": key_arns,
        "config:PutEvaluations": "*",
    }
    (keys,) = [s for s in policy["Statement"] if s["Sid"] == "ReadKeyPolicies"]
    assert keys["Condition"] == {
        "ForAnyValue:StringEquals": {"kms:ResourceAliases": ["alias/kimi-eu/alerts", "alias/kimi-eu/logs"]}
    }
    assert {a for a in granted if a.startswith("logs:")} == {"logs:CreateLogStream", "logs:PutLogEvents"}
    assert "/kimi-eu/config/account-settings-" in str(granted["logs:PutLogEvents"])
    (role,) = [
        r["Properties"]
        for r in _of_type(detection, "AWS::IAM::Role").values()
        if r["Properties"]["RoleName"] == "kimi-eu-account-settings-check"
    ]
    assert "Policies" not in role and len(role["ManagedPolicyArns"]) == 1


def test_its_log_group_is_encrypted_kept_and_expires(eu: Any) -> None:
    detection = eu.template("detection").to_json()
    (group,) = [
        g
        for g in _of_type(detection, "AWS::Logs::LogGroup").values()
        if "/kimi-eu/config/account-settings-" in str(g["Properties"]["LogGroupName"])
    ]
    assert group["DeletionPolicy"] == "Retain"
    assert "LogsKey" in str(group["Properties"]["KmsKeyId"])
    assert group["Properties"]["RetentionInDays"] == eu.plan.config.invocation_logging.log_retention_days


def test_its_non_compliance_alerts_the_alerts_topic(eu: Any) -> None:
    alerts = [
        r["Properties"]["EventPattern"]
        for r in _of_type(eu.template("detection").to_json(), "AWS::Events::Rule").values()
        if r["Properties"]["Name"] == "kimi-eu-detect-config-compliance"
    ]
    assert [RULE_NAME in a["detail"]["configRuleName"] for a in alerts] == [True]


def test_not_deployed_without_config_rules(synth: Callable) -> None:
    """The US organization example has detection on and config_rules omitted: no Config rule, no function."""
    us = synth(US_ORG)
    detection = us.template("detection").to_json()
    assert us.plan.policies.detection.account_settings_rule is None
    assert not _of_type(detection, "AWS::Config::ConfigRule")
    assert not _of_type(detection, "AWS::Lambda::Function")


def _managed(template: dict[str, Any], rule_id: str, name: str) -> dict[str, Any]:
    (rule,) = [
        r["Properties"]
        for r in _of_type(template, "AWS::Config::ConfigRule").values()
        if r["Properties"]["ConfigRuleName"] == f"{name}-config-{rule_id}"
    ]
    return rule


def test_default_sg_rule_evaluates_only_the_landing_zone_vpc_default_group(eu: Any) -> None:
    """New-VPC mode (the EU example gives vpc_cidr): Scope.ComplianceResourceId is the DefaultSecurityGroup of the VPC
    the network stack creates (exported by the network stack, imported by the detection stack)."""
    scope = _managed(eu.template("detection").to_json(), "default-sg-closed", "kimi-eu")["Scope"]
    assert scope["ComplianceResourceTypes"] == ["AWS::EC2::SecurityGroup"]
    network = eu.template("network").to_json()
    (vpc_id,) = _of_type(network, "AWS::EC2::VPC")
    assert _exported(network, scope["ComplianceResourceId"]) == {"Fn::GetAtt": [vpc_id, "DefaultSecurityGroup"]}
    # the tags rule stays scoped by type (REQUIRED_TAGS has several types; a resource ID allows one)
    tags = _managed(eu.template("detection").to_json(), "tags", "kimi-eu")["Scope"]
    assert "ComplianceResourceId" not in tags


def test_with_an_imported_vpc_the_default_sg_rule_stays_scoped_by_type(synth: Callable) -> None:
    """The landing zone does not create the imported VPC, so it has no default group of its own to name."""
    config = derived_config(
        "imported-vpc-config-rules.yaml", IMPORTED_VPC.read_text() + "detection: {enabled: true, config_rules: true}\n"
    )
    imported = synth(config)
    scope = _managed(imported.template("detection").to_json(), "default-sg-closed", "kimi-shared-vpc")["Scope"]
    assert scope == {"ComplianceResourceTypes": ["AWS::EC2::SecurityGroup"]}
