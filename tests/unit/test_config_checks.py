"""The account-settings Config rule as the plan builds it (landing_zone/policies/config_checks.py): it checks exactly
the settings the configuration has the landing zone set, with the values those settings get, and only under
``detection.config_rules``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from unittest.mock import ANY

import pytest

from landing_zone.core import markers
from landing_zone.errors import ConfigError
from landing_zone.plan.policies import INVOCATION_LOG_KEY_PREFIX
from landing_zone.policies.config_checks import policy_digest
from tests.conftest import ROOT

EU = ROOT / "examples" / "eu-sovereign.yaml"  # config_rules, invocation logging, retention none, guardrail account
US_ORG = ROOT / "examples" / "us-organization.yaml"  # detection on, config_rules omitted
US_SINGLE = ROOT / "examples" / "us-single-account.yaml"


def test_every_setting_the_eu_example_sets_is_checked(plan_for: Callable) -> None:
    rule = plan_for(EU).policies.detection.account_settings_rule
    assert rule.parameters == {
        "logBucket": markers.LOG_BUCKET_NAME,
        "logKeyPrefix": INVOCATION_LOG_KEY_PREFIX,
        "logGroup": markers.LOG_GROUP_NAME,
        "logRoleArn": markers.LOGGING_ROLE_ARN,
        "logDataTypes": "embedding,image,text",  # the invocation_logging defaults: video off
        "retentionMode": "none",
        "guardrailId": markers.GUARDRAIL_ID,
        "guardrailVersion": markers.GUARDRAIL_VERSION,
        "endpointPolicies": ANY,
        "keyPolicies": ANY,
        "landingZone": "kimi-eu",
        "vpcId": markers.VPC_ID,  # vpc_cidr: the network stack's VPC
    }


def test_the_policy_digests_are_the_plans_documents(plan_for: Callable) -> None:
    """One digest per endpoint policy and key policy of the plan, the key policies with the deployment account the
    keys stack gives them; a changed document changes its digest."""
    plan = plan_for(EU)
    parameters = plan.policies.detection.account_settings_rule.parameters
    account = plan.config.deployment_account
    assert parameters["endpointPolicies"] == ",".join(
        f"{s}={policy_digest(plan.policies.endpoints[s])}" for s in sorted(plan.policies.endpoints)
    )
    assert parameters["keyPolicies"] == ",".join(
        f"{p}={policy_digest(markers.resolve(plan.policies.keys[p], {markers.ACCOUNT: account}))}"
        for p in sorted(plan.policies.keys)
    )
    assert sorted(plan.policies.endpoints) == ["bedrock", "bedrock-mantle", "bedrock-runtime"]
    assert sorted(plan.policies.keys) == ["alerts", "logs"]
    logs = markers.resolve(plan.policies.keys["logs"], {markers.ACCOUNT: account})
    reordered = {**logs, "Statement": logs["Statement"][::-1]}
    assert policy_digest(reordered) == policy_digest(logs)
    widened = {**logs, "Statement": [*logs["Statement"], {**logs["Statement"][0], "Sid": "More"}]}
    assert policy_digest(widened) != policy_digest(logs)


def test_the_largest_parameters_fit_aws_config_limit(plan_for: Callable) -> None:
    """Everything checked (all three endpoint services, the self-hosting secrets key, every data type, the guardrail)
    and generous deploy-time values still fit ConfigRule.InputParameters (1,024 characters, botocore's model)."""
    import json

    import botocore.session

    rule_shape = botocore.session.get_session().get_service_model("config").shape_for("ConfigRule")
    limit = rule_shape.members["InputParameters"].metadata["max"]
    self_hosting = {
        "enabled": True,
        "instance_type": "p6-b300.48xlarge",
        "capacity": "capacity-block",
        "capacity_reservation_id": "cr-0a1b2c3d4e5f60718",
        "availability_zone": "eu-central-1a",
        "desired_size": 0,
        "max_size": 1,
        "vllm_image": "666666666666.dkr.ecr.eu-central-1.amazonaws.com/vllm/vllm-openai:kimi-k3",
    }
    plan = plan_for(EU, self_hosting=self_hosting, invocation_logging={"video": True})
    parameters = plan.policies.detection.account_settings_rule.parameters
    assert parameters["keyPolicies"].count("=") == 3 and parameters["endpointPolicies"].count("=") == 4
    gateway = plan.policies.self_hosting.s3_gateway  # the self-hosting stack's S3 gateway endpoint, new VPC
    assert f"s3={policy_digest(gateway)}" in parameters["endpointPolicies"].split(",")
    longest = {
        markers.LOG_BUCKET_NAME: "b" * 63,
        markers.LOG_GROUP_NAME: "/" + "g" * 127,
        markers.LOGGING_ROLE_ARN: "arn:aws-us-gov:iam::222222222222:role/" + "r" * 64,
        markers.GUARDRAIL_ID: "g" * 12,
        markers.GUARDRAIL_VERSION: "99",
        markers.VPC_ID: "vpc-0a1b2c3d4e5f60718",
    }
    assert limit == 1024 and len(json.dumps(markers.resolve(parameters, longest))) < limit


def test_an_imported_vpc_has_no_default_network_acl_check(plan_for: Callable) -> None:
    imported = plan_for(ROOT / "examples" / "imported-vpc.yaml", detection={"enabled": True, "config_rules": True})
    parameters = imported.policies.detection.account_settings_rule.parameters
    assert "vpcId" not in parameters and "keyPolicies" in parameters
    actions = {
        a
        for s in imported.policies.detection.account_settings_rule.policy["Statement"]
        for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])
    }
    assert "ec2:DescribeNetworkAcls" not in actions


def test_a_setting_the_configuration_leaves_alone_is_not_checked(plan_for: Callable) -> None:
    rule = plan_for(
        EU,
        data_retention={"mode": None},
        content_guardrail={"enabled": False},
        invocation_logging={"video": True},
    ).policies.detection.account_settings_rule
    assert "retentionMode" not in rule.parameters and "guardrailId" not in rule.parameters
    assert rule.parameters["logDataTypes"] == "embedding,image,text,video"
    assert "data retention" not in rule.what and "guardrail" not in rule.what


def test_without_account_settings_it_checks_the_policies_only(plan_for: Callable) -> None:
    detection = plan_for(
        EU, invocation_logging={"enabled": False}, data_retention={"mode": None}, content_guardrail={"enabled": False}
    ).policies.detection
    rule = detection.account_settings_rule
    assert set(rule.parameters) == {"endpointPolicies", "keyPolicies", "landingZone", "vpcId"}
    assert not any(a.startswith("bedrock:") for s in rule.policy["Statement"] for a in _actions(s))
    assert set(detection.config_rule_names) == {"default-sg-closed", "tags", "account-settings"}


def test_only_under_config_rules(plan_for: Callable) -> None:
    """Like the managed rules: CloudFormation cannot create a Config rule where no recorder records, and whether one
    does is not known at synth (docs/DETECTION.md)."""
    assert plan_for(US_ORG).policies.detection.account_settings_rule is None
    assert plan_for(EU, detection={"config_rules": False}).policies.detection.account_settings_rule is None
    single = plan_for(US_SINGLE, detection={"enabled": True, "config_rules": True}).policies.detection
    assert single.account_settings_rule is not None


def test_its_non_compliance_alerts_with_the_managed_rules(plan_for: Callable) -> None:
    detection = plan_for(EU).policies.detection
    assert detection.config_rule_names["account-settings"] == "kimi-eu-config-account-settings"
    pattern = detection.compliance_alert_pattern
    assert "kimi-eu-config-account-settings" in pattern["detail"]["configRuleName"]


def test_its_role_reads_and_reports_only(plan_for: Callable) -> None:
    policy = plan_for(EU).policies.detection.account_settings_rule.policy
    actions = {a for s in policy["Statement"] for a in _actions(s)}
    assert actions == {
        "bedrock:GetModelInvocationLoggingConfiguration",
        "bedrock:GetAccountDataRetention",
        "bedrock:ListEnforcedGuardrailsConfiguration",
        "ec2:DescribeVpcEndpoints",
        "ec2:DescribeNetworkAcls",
        "kms:DescribeKey",
        "kms:GetKeyPolicy",
        "config:PutEvaluations",
        "logs:CreateLogStream",
        "logs:PutLogEvents",
    }
    (keys,) = [s for s in policy["Statement"] if "kms:GetKeyPolicy" in _actions(s)]
    assert keys["Resource"] == f"arn:{markers.PARTITION}:kms:{markers.REGION}:{markers.ACCOUNT}:key/*"
    assert keys["Condition"] == {
        "ForAnyValue:StringEquals": {"kms:ResourceAliases": ["alias/kimi-eu/alerts", "alias/kimi-eu/logs"]}
    }


def _actions(statement: dict) -> list[str]:
    return [statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"]


def test_the_review_names_it_for_the_settings_it_checks_only(plan_for: Callable) -> None:
    from landing_zone.review.detection import ACCOUNT_SETTINGS_STATES, VERIFY_ONLY, detection_section

    def by_state(plan: object) -> dict[str, str]:
        return {v["state"]: v["config_rule"] for v in detection_section(plan)["verify_only"]}

    assert set(ACCOUNT_SETTINGS_STATES) <= {state for state, _ in VERIFY_ONLY}
    on = by_state(plan_for(EU))
    for state in ACCOUNT_SETTINGS_STATES:
        assert "kimi-eu-config-account-settings (" in on[state], state
    assert on["the VPC's default security group and network ACL admit nothing"] == (
        "kimi-eu-config-default-sg-closed (the security group); "
        "kimi-eu-config-account-settings (the network ACL: no subnet on the default one)"
    )
    partial = by_state(plan_for(EU, data_retention={"mode": None}))
    assert partial["the data retention mode in home_region is the configured one"] == ""
    assert partial["the enforced guardrail is the landing zone's, at its version"].startswith(
        "kimi-eu-config-account-settings ("
    )


def test_the_default_sg_rule_names_its_vpc_group_only_in_new_vpc_mode(plan_for: Callable) -> None:
    def default_sg(plan: object) -> object:
        (rule,) = [r for r in plan.policies.detection.config_rules if r.id == "default-sg-closed"]
        return rule

    assert default_sg(plan_for(EU)).resource_id == markers.DEFAULT_SECURITY_GROUP_ID  # vpc_cidr: a new VPC
    imported = plan_for(ROOT / "examples" / "imported-vpc.yaml", detection={"enabled": True, "config_rules": True})
    assert default_sg(imported).resource_id is None
    assert "every VPC" in default_sg(imported).what and "landing zone's VPC" in default_sg(plan_for(EU)).what


def test_the_rules_sources_are_dated_catalog_data(plan_for: Callable) -> None:
    """The managed rules' identifiers and the custom rule's frequency come from config_rules.yaml, each with its
    source and date, and the plan uses them."""
    from landing_zone.core.catalog import load_catalog

    catalog = load_catalog()
    assert set(catalog.config_rules) == {"default-sg-closed", "tags", "account-settings"}
    for entry in catalog.config_rules.values():
        assert "https://docs.aws.amazon.com/config/" in entry.source and entry.as_of.year >= 2026
    detection = plan_for(EU).policies.detection
    assert {r.id: r.identifier for r in detection.config_rules} == {
        "default-sg-closed": catalog.config_rule("default-sg-closed").identifier,
        "tags": catalog.config_rule("tags").identifier,
    }
    assert detection.account_settings_rule.frequency == catalog.config_rule("account-settings").frequency


def _overlay(tmp_path: Path, text: str) -> str:
    path = tmp_path / "overlay.yaml"
    path.write_text(text)
    return str(path)


def test_a_catalog_overlay_replaces_a_rule_entry(plan_for: Callable, tmp_path: Path) -> None:
    overlay = _overlay(
        tmp_path,
        "config_rules:\n"
        "  tags: {owner: AWS, identifier: REQUIRED_TAGS_V2, source: 'a renamed managed rule', as_of: '2027-01-01',"
        " verified: false}\n"
        "  account-settings: {owner: CUSTOM_LAMBDA, frequency: Six_Hours, source: 'fewer runs', as_of: '2027-01-01',"
        " verified: true}\n",
    )
    detection = plan_for(EU, catalog_overlays=[overlay]).policies.detection
    assert {r.id: r.identifier for r in detection.config_rules}["tags"] == "REQUIRED_TAGS_V2"
    assert detection.account_settings_rule.frequency == "Six_Hours"


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ("other: {owner: AWS, identifier: X_Y_Z, source: abc, as_of: '2027-01-01', verified: true}", "allowed: "),
        (
            "account-settings: {owner: CUSTOM_LAMBDA, frequency: Daily, source: abc, as_of: '2027-01-01', verified: true}",
            "One_Hour",
        ),
        (
            "tags: {owner: CUSTOM_LAMBDA, frequency: One_Hour, source: abc, as_of: '2027-01-01', verified: true}",
            "allowed: AWS",
        ),
        ("tags: {owner: AWS, source: abc, as_of: '2027-01-01', verified: true}", "needs identifier"),
    ],
)
def test_a_bad_overlay_entry_is_refused_naming_it(plan_for: Callable, tmp_path: Path, entry: str, said: str) -> None:
    with pytest.raises(ConfigError) as err:
        plan_for(EU, catalog_overlays=[_overlay(tmp_path, f"config_rules:\n  {entry}\n")])
    text = str(err.value)
    assert "catalog_overlays" in text and "config_rules." in text and said in text
