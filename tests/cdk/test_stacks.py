"""Template assertions for the keys and network stacks (synthesized once per session per config)."""

from __future__ import annotations

import json
import re

import pytest
from aws_cdk.assertions import Match

from landing_zone.assembly.intrinsics import SAMPLE_STACK_UUID, STACK_SUFFIX, resolve_document, template_resolver
from landing_zone.core import naming
from landing_zone.policies.endpoints import endpoint_policy
from landing_zone.policies.evaluator import Request, evaluate
from landing_zone.policies.kms import key_policy
from tests.conftest import EXAMPLES, ROOT


def resources(template, type_):
    return template.find_resources(type_)


def test_three_bedrock_endpoints_with_private_dns(default_lz):
    t = default_lz.template("network")
    t.resource_count_is("AWS::EC2::VPCEndpoint", 3)
    names = set()
    for ep in resources(t, "AWS::EC2::VPCEndpoint").values():
        props = ep["Properties"]
        assert props["PrivateDnsEnabled"] is True
        assert props["VpcEndpointType"] == "Interface"
        names.add(json.dumps(props["ServiceName"]))
    assert names == {
        json.dumps(f"com.amazonaws.us-east-1.{s}") for s in ("bedrock-runtime", "bedrock-mantle", "bedrock")
    }


def test_endpoint_policies_are_exactly_the_builder_output(default_lz):
    plan = default_lz.plan
    t = default_lz.template("network")
    by_service = {
        ep["Properties"]["ServiceName"].rsplit(".", 1)[-1]: ep["Properties"]["PolicyDocument"]
        for ep in resources(t, "AWS::EC2::VPCEndpoint").values()
    }
    for service, doc in by_service.items():
        expected = endpoint_policy(
            service,
            plan.routing,
            region="us-east-1",
            accounts=plan.config.account_ids,
            # network.endpoint_principals omitted: the governed accounts, never the whole organization
            organization_id=None,
        )
        assert doc == expected, service


def test_endpoint_security_group_allows_only_https_from_the_vpc(default_lz):
    t = default_lz.template("network")
    sgs = resources(t, "AWS::EC2::SecurityGroup")
    (sg,) = [s for s in sgs.values() if "Bedrock interface endpoints" in s["Properties"]["GroupDescription"]]
    ingress = sg["Properties"]["SecurityGroupIngress"]
    assert ingress == [
        {
            "CidrIp": "10.40.0.0/16",
            "Description": "HTTPS from the VPC",
            "FromPort": 443,
            "IpProtocol": "tcp",
            "ToPort": 443,
        }
    ]
    # no egress except CDK's placeholder that disallows all traffic
    (egress,) = sg["Properties"]["SecurityGroupEgress"]
    assert egress["CidrIp"] == "255.255.255.255/32"


def test_vpc_is_isolated_with_no_internet_path(default_lz):
    t = default_lz.template("network")
    for type_ in ("AWS::EC2::InternetGateway", "AWS::EC2::NatGateway", "AWS::EC2::EIP"):
        t.resource_count_is(type_, 0)
    t.resource_count_is("AWS::EC2::Subnet", 2)
    for subnet in resources(t, "AWS::EC2::Subnet").values():
        assert subnet["Properties"]["MapPublicIpOnLaunch"] is False
    t.has_resource_properties("AWS::EC2::VPC", {"CidrBlock": "10.40.0.0/16"})


def test_flow_logs_go_to_a_kms_encrypted_retained_log_group(default_lz):
    t = default_lz.template("network")
    t.has_resource_properties("AWS::EC2::FlowLog", {"TrafficType": "ALL", "LogDestinationType": "cloud-watch-logs"})
    t.has_resource(
        "AWS::Logs::LogGroup",
        {
            "Properties": {
                "LogGroupName": {"Fn::Join": ["", ["/kimi-lz/vpc-flow-logs-", STACK_SUFFIX]]},
                "RetentionInDays": 365,
                "KmsKeyId": Match.any_value(),
            },
            "DeletionPolicy": "Retain",
            "UpdateReplacePolicy": "Retain",
        },
    )


def test_keys_rotate_are_retained_and_carry_the_builder_policies(default_lz):
    t = default_lz.template("keys")
    keys = resources(t, "AWS::KMS::Key")
    assert len(keys) == 2  # logs + alerts; no EKS secrets key while self-hosting is off
    cfg = default_lz.plan.config
    # detection on (organization mode): the alerts key admits the landing zone's own EventBridge rules
    rules = naming.detection_rule_prefix(cfg.name) if default_lz.plan.policies.detection is not None else None
    assert rules is not None
    expected = {
        f"{cfg.name}: " + d: key_policy(
            p, account=cfg.deployment_account, region=cfg.home_region, name=cfg.name, event_rule_prefix=rules
        )
        for p, d in (
            ("logs", "VPC flow logs and Bedrock model invocation logs (S3 + CloudWatch Logs)"),
            ("alerts", "Budget, anomaly and alarm notification topics"),
        )
    }
    for key in keys.values():
        assert key["DeletionPolicy"] == "Retain" and key["UpdateReplacePolicy"] == "Retain"
        props = key["Properties"]
        assert props["EnableKeyRotation"] is True
        assert props["PendingWindowInDays"] == 30
        assert props["KeyPolicy"] == expected[props["Description"]]
    aliases = {a["Properties"]["AliasName"] for a in resources(t, "AWS::KMS::Alias").values()}
    assert aliases == {"alias/kimi-lz/logs", "alias/kimi-lz/alerts"}


@pytest.mark.parametrize("example", [None, *EXAMPLES], ids=lambda p: p.name if p else "cdk.json")
def test_every_key_policy_names_only_its_own_stacks_account(synth, example):
    """KMS refuses a key whose policy locks its creator out (CreateKey, BypassPolicyLockoutSafetyCheck), and
    CloudWatch Logs cannot use a key that does not trust its own log groups: every key policy, the management
    account's logs key included, names its own stack's account and no other (issue 32)."""
    lz = synth(example)
    manifest = json.loads((lz.outdir / "manifest.json").read_text())
    stacks = {
        a["properties"].get("stackName") or a["displayName"]: a["environment"].split("/")[2]
        for a in manifest["artifacts"].values()
        if a.get("type") == "aws:cloudformation:stack"
    }
    for name, account in stacks.items():
        keys = resources(lz.templates[name], "AWS::KMS::Key")
        body = json.dumps([k["Properties"]["KeyPolicy"] for k in keys.values()])
        named = set(re.findall(r"(?<![0-9])[0-9]{12}(?![0-9])", body))
        assert named <= {account}, f"{name} (account {account}): its key policies name {sorted(named)}"
        assert not keys or account == "unknown-account" or f"arn:aws:iam::{account}:root" in body


def test_the_management_logs_key_admits_its_account_and_the_logs_of_its_two_log_groups_only(default_lz):
    """The cost-allocation activation's key in the management account (organization mode): its account's root and
    CloudWatch Logs for exactly the activation's log groups (named with the guardrails stack's suffix); not the
    workload logs key's policy, so no Bedrock statement (the management account has no invocation logging)."""
    cfg = default_lz.plan.config
    management = cfg.organization.management_account_id
    template = default_lz.template("guardrails").to_json()
    (key,) = (r for r in template["Resources"].values() if r["Type"] == "AWS::KMS::Key")
    resolve = template_resolver(template, account=management, region=cfg.home_region)
    policy = resolve_document(key["Properties"]["KeyPolicy"], resolve)
    root, logs = policy["Statement"]
    assert root["Principal"] == {"AWS": f"arn:aws:iam::{management}:root"} and root["Action"] == "kms:*"
    assert logs["Principal"] == {"Service": f"logs.{cfg.home_region}.amazonaws.com"}
    suffix = SAMPLE_STACK_UUID.split("-")[0]
    group = f"arn:aws:logs:{cfg.home_region}:{management}:log-group:/{cfg.name}/automation/cost-allocation-tags"
    unprincipled = [{k: v for k, v in logs.items() if k != "Principal"}]

    def allowed(log_group_arn: str) -> bool:
        context = {"kms:EncryptionContext:aws:logs:arn": log_group_arn}
        return evaluate([("key", {"Statement": unprincipled})], Request("kms:GenerateDataKey", "*", context)).allowed

    assert allowed(f"{group}-{suffix}") and allowed(f"{group}-provider-{suffix}")
    workload = f"arn:aws:logs:{cfg.home_region}:{cfg.deployment_account}:log-group:/{cfg.name}/bedrock/invocations"
    assert not allowed(f"{workload}-{suffix}") and not allowed(f"{group}-{suffix}-other")
    assert not allowed(group.replace(management, cfg.deployment_account) + f"-{suffix}")


def test_stateful_logical_ids_are_pinned(default_lz):
    """Renaming these replaces data-bearing resources: change this list only on purpose."""
    keys = set(resources(default_lz.template("keys"), "AWS::KMS::Key"))
    assert keys == {"LogsKeyFE4C4A83", "AlertsKey9DF6A94D"}
    log_groups = set(resources(default_lz.template("network"), "AWS::Logs::LogGroup"))
    assert log_groups == {"NetworkFlowLogs2BEC3212"}


def test_every_resource_is_tagged_with_the_landing_zone_name(default_lz):
    t = default_lz.template("network")
    vpc = next(iter(resources(t, "AWS::EC2::VPC").values()))
    assert {"Key": "landing-zone", "Value": "kimi-lz"} in vpc["Properties"]["Tags"]


def test_stacks_target_the_configured_account_and_region(default_lz):
    """The workload stacks go to the workload account, the guardrails and the Organizations events' forwarder to the
    management account; the global services' forwarder to us-east-1 (here the home Region too, so there is none)."""
    management = {default_lz.stack("guardrails"), default_lz.stack("detection-management")}
    assert None not in management and default_lz.stack("detection-global") is None
    for stack in default_lz.stacks:
        assert stack.account == ("999999999999" if stack in management else "111111111111")
        assert stack.region == "us-east-1"
    assert default_lz.stack("keys").termination_protection is True


def test_organization_example_admits_the_governed_accounts_not_the_organization(synth):
    """An organization ID is given (for the member baseline, the Bedrock policy), but network.endpoint_principals is
    omitted: the endpoints admit the governed accounts only (issue 35, deliverable 1)."""
    lz = synth(ROOT / "examples" / "eu-sovereign.yaml")
    t = lz.template("network")
    for ep in resources(t, "AWS::EC2::VPCEndpoint").values():
        for stmt in ep["Properties"]["PolicyDocument"]["Statement"]:
            assert stmt["Condition"]["StringEquals"]["aws:PrincipalAccount"] == list(lz.plan.config.account_ids)
            assert "aws:PrincipalOrgID" not in stmt["Condition"]["StringEquals"]
    t.resource_count_is("AWS::EC2::Subnet", 3)
    # the endpoint subnets carry the explicit, tagged network ACL (not the untagged default one)
    (acl,) = resources(t, "AWS::EC2::NetworkAcl").values()
    assert {"Key": "landing-zone", "Value": lz.plan.config.name} in acl["Properties"]["Tags"]
    t.resource_count_is("AWS::EC2::SubnetNetworkAclAssociation", 3)


def test_imported_vpc_creates_no_vpc_but_endpoints_in_the_given_subnets(synth):
    lz = synth(ROOT / "examples" / "imported-vpc.yaml")
    t = lz.template("network")
    t.resource_count_is("AWS::EC2::VPC", 0)
    t.resource_count_is("AWS::EC2::Subnet", 0)
    for ep in resources(t, "AWS::EC2::VPCEndpoint").values():
        assert ep["Properties"]["VpcId"] == "vpc-0a1b2c3d4e5f60718"
        assert ep["Properties"]["SubnetIds"] == ["subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002"]
    t.has_resource_properties("AWS::EC2::FlowLog", {"ResourceId": "vpc-0a1b2c3d4e5f60718"})


def test_endpoint_list_is_configurable(synth):
    lz = synth(ROOT / "examples" / "us-single-account.yaml")
    t = lz.template("network")
    t.resource_count_is("AWS::EC2::VPCEndpoint", 2)
    t.has_resource_properties("AWS::Logs::LogGroup", {"RetentionInDays": 90})


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_every_example_synthesizes(synth, example):
    lz = synth(example)
    assert lz.stacks  # the manifest's stacks, as `cdk deploy` reads them
    for stack in lz.stacks:
        assert stack.template_file == f"{stack.stack_name}.template.json"
        assert (lz.outdir / stack.template_file).is_file()


def test_config_retention_periods_match_the_construct_mapping():
    from constructs_lib.network import RETENTION_DAYS
    from landing_zone.core.config import LOG_RETENTION_DAYS

    assert set(RETENTION_DAYS) == set(LOG_RETENTION_DAYS)


def test_guardrails_stack_attaches_size_checked_scps_where_the_layout_says(synth):
    """The EU example's OU is shared (other teams' accounts may sit there): the guardrails attach to the two governed
    accounts, the perimeter SCP to the OU; the template carries exactly the plan's names, targets and contents."""
    lz = synth(ROOT / "examples" / "eu-sovereign.yaml")
    stack = lz.stack("guardrails")
    assert stack is not None and stack.account == "444444444444"
    scps = lz.plan.policies.scps  # what the guardrails stack renders (test_policy_markers: the same object)
    policies = resources(lz.template("guardrails"), "AWS::Organizations::Policy")
    assert len(policies) == len(scps.documents) >= 1
    planned = {p.name: p for p in scps.policies}
    for res in policies.values():
        props = res["Properties"]
        assert props["Type"] == "SERVICE_CONTROL_POLICY"
        scp = planned[props["Name"]]
        assert props["TargetIds"] == list(scp.targets) and props["Content"] == scp.content
        expected = ["ou-abcd-11111111"] if props["Name"].endswith("-perimeter") else ["222222222222", "333333333333"]
        assert props["TargetIds"] == expected
        assert isinstance(props["Content"], str) and " " not in props["Content"].split('"Sid"')[0]
        assert len(props["Content"]) <= 10240
        assert json.loads(props["Content"])["Statement"][0]["Effect"] == "Deny"


def test_the_default_shows_every_layer_and_single_account_mode_has_no_guardrails_stack(default_lz, synth):
    """The default configuration is an organization (placeholder IDs): the first synth and review show the SCPs.
    A single-account configuration (organization: null) has no guardrails stack: the boundary is the guardrail."""
    assert default_lz.stack("guardrails") is not None
    single = synth(ROOT / "examples" / "us-single-account.yaml")
    assert single.stack("guardrails") is None
    assert all("guardrails" not in s.stack_name for s in single.stacks)


def test_flow_log_role_trust_is_confined_to_this_account_and_region(default_lz):
    roles = default_lz.template("network").find_resources("AWS::IAM::Role")
    (trust,) = [
        r["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]
        for r in roles.values()
        if r["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]["Principal"].get("Service")
        == "vpc-flow-logs.amazonaws.com"
    ]
    assert trust["Condition"]["StringEquals"] == {"aws:SourceAccount": "111111111111"}
    assert trust["Condition"]["ArnLike"]["aws:SourceArn"] == "arn:aws:ec2:us-east-1:111111111111:vpc-flow-log/*"


def test_the_stacks_are_synthesized_for_the_landing_zones_own_bootstrap(default_lz):
    q = default_lz.plan.config.policy_guardrails.cdk_bootstrap_qualifier
    assert q != "hnb659fds"
    for template in default_lz.templates.values():
        version = template.to_json()["Parameters"]["BootstrapVersion"]["Default"]
        assert version == f"/cdk-bootstrap/{q}/version"
