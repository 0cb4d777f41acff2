"""verify checks everything the landing zone deploys (issue 16): the stacks themselves, IAM roles and
customer-managed policies, the S3 buckets, the VPC flow log, the content guardrail (version, enforcement), the
model agreements and the topic policy.  As in test_verify: deploy the intent into moto (Stubbers for what moto
lacks), change one thing, see exactly the owning check catch it; plus the rows of a stack that did not deploy,
policies compared as IAM reads them, and per-item errors when a service gives no answer."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from landing_zone.aws import use_client_factory
from tests.moto.harness import Deployed, stack_suffix
from tests.moto.test_verify import STACKS, cloudformation_unreachable, failing, rows

pytestmark = pytest.mark.moto

KIMI = "moonshotai.kimi-k3.1-pro"
ACCOUNT = "222222222222"
# retained: named with the access stack's suffix (the deployer's stack ID)
ACCESS_SUFFIX = stack_suffix(ACCOUNT, "eu-central-1", "kimi-eu-access")
INVOCATION_BUCKET = f"kimi-eu-invocation-logs-{ACCESS_SUFFIX}"
ACCESS_LOG_BUCKET = f"kimi-eu-access-logs-{ACCESS_SUFFIX}"
GUARDRAIL = "kimi-eu-content"


def _run(cli: Callable, verify_args: Callable) -> tuple[int, str]:
    code, stdout, _ = cli(verify_args("--json"))
    return code, stdout


def _policy_arn(name: str) -> str:
    return f"arn:aws:iam::{ACCOUNT}:policy/{name}"


def _vpc(d: Deployed) -> str:
    return str(d.ids[d.first("AWS::EC2::VPC").path])


# --------------------------------------------------------------------------------------------------
# Everything in place
# --------------------------------------------------------------------------------------------------


def test_every_deployed_thing_passes(deployed: Deployed, cli, verify_args) -> None:
    code, stdout = _run(cli, verify_args)
    assert code == 0, failing(stdout)
    status = {r["resource"]: r["actual"] for r in rows(stdout, "stack-status")}
    assert status == {f"kimi-eu-{s}": "CREATE_COMPLETE" for s in STACKS}
    assert {r["actual"] for r in rows(stdout, "stack-drift")} == {"NOT_CHECKED"}  # read, never started by verify
    encryption = next(r for r in rows(stdout, "s3-encryption") if r["resource"] == INVOCATION_BUCKET)
    assert encryption["actual"] == "aws:kms, alias/kimi-eu/logs, bucket key"  # the logs key, by its alias
    (flow,) = rows(stdout, "flow-log")
    assert flow["resource"] == f"VPC {_vpc(deployed)}" and flow["expected"].startswith(
        f"ALL to /kimi-eu/vpc-flow-logs-{stack_suffix(ACCOUNT, 'eu-central-1', 'kimi-eu-network')}"
    )
    (version,) = rows(stdout, "guardrail-version")
    assert version["actual"] == "v1 READY, identical"
    assert [r["resource"] for r in rows(stdout, "model-agreement")] == [f"{KIMI} in eu-central-1"]
    deployed.accounts.assert_stubs_consumed()


# --------------------------------------------------------------------------------------------------
# Drift, one item at a time: exit 1 and exactly the owning check fails
# --------------------------------------------------------------------------------------------------


def stack_drifted(d: Deployed) -> None:
    d.set_stack_drift("kimi-eu-cost", "DRIFTED")


def trust_widened(d: Deployed) -> None:
    iam = d.client("iam")
    doc = iam.get_role(RoleName="kimi-eu-invoker-support-bot")["Role"]["AssumeRolePolicyDocument"]
    doc["Statement"].append(
        {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::999999999999:root"}, "Action": "sts:AssumeRole"}
    )
    iam.update_assume_role_policy(RoleName="kimi-eu-invoker-support-bot", PolicyDocument=json.dumps(doc))


def boundary_removed(d: Deployed) -> None:
    d.client("iam").delete_role_permissions_boundary(RoleName="kimi-eu-invoker-code-review")


def extra_policy_attached(d: Deployed) -> None:
    iam = d.client("iam")
    everything = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
    arn = iam.create_policy(PolicyName="backdoor", PolicyDocument=json.dumps(everything))["Policy"]["Arn"]
    iam.attach_role_policy(RoleName="kimi-eu-automation-budget-action", PolicyArn=arn)


def inline_policy_added(d: Deployed) -> None:
    doc = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "bedrock:*", "Resource": "*"}]}
    d.client("iam").put_role_policy(
        RoleName="kimi-eu-invoker-support-bot", PolicyName="extra", PolicyDocument=json.dumps(doc)
    )


def role_deleted(d: Deployed) -> None:
    iam, name = d.client("iam"), "kimi-eu-automation-model-agreement"
    for policy in iam.list_attached_role_policies(RoleName=name)["AttachedPolicies"]:
        iam.detach_role_policy(RoleName=name, PolicyArn=policy["PolicyArn"])
    iam.delete_role(RoleName=name)


def boundary_new_default_version(d: Deployed) -> None:
    """iam:CreatePolicyVersion --set-as-default: the boundary changed without touching the stack."""
    iam, arn = d.client("iam"), _policy_arn("kimi-eu-invoker-boundary")
    document = iam.get_policy_version(PolicyArn=arn, VersionId="v1")["PolicyVersion"]["Document"]
    document["Statement"] = [s for s in document["Statement"] if s["Effect"] == "Allow"]  # the denies are gone
    iam.create_policy_version(PolicyArn=arn, PolicyDocument=json.dumps(document), SetAsDefault=True)


def kill_switch_policy_deleted(d: Deployed) -> None:
    d.client("iam").delete_policy(PolicyArn=_policy_arn("kimi-eu-kill-switch"))


def bucket_encrypted_with_s3_keys(d: Deployed) -> None:
    d.client("s3").put_bucket_encryption(
        Bucket=INVOCATION_BUCKET,
        ServerSideEncryptionConfiguration={
            "Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]
        },
    )


def versioning_suspended(d: Deployed) -> None:
    d.client("s3").put_bucket_versioning(Bucket=INVOCATION_BUCKET, VersioningConfiguration={"Status": "Suspended"})


def public_access_block_removed(d: Deployed) -> None:
    d.client("s3").delete_public_access_block(Bucket=INVOCATION_BUCKET)


def acls_enabled(d: Deployed) -> None:
    d.client("s3").put_bucket_ownership_controls(
        Bucket=INVOCATION_BUCKET, OwnershipControls={"Rules": [{"ObjectOwnership": "ObjectWriter"}]}
    )


def bucket_policy_without_tls_deny(d: Deployed) -> None:
    s3 = d.client("s3")
    policy = json.loads(s3.get_bucket_policy(Bucket=INVOCATION_BUCKET)["Policy"])
    policy["Statement"] = [s for s in policy["Statement"] if s.get("Sid") != "DenyInsecureTransport"]
    s3.put_bucket_policy(Bucket=INVOCATION_BUCKET, Policy=json.dumps(policy))


def lifecycle_removed(d: Deployed) -> None:
    d.client("s3").delete_bucket_lifecycle(Bucket=INVOCATION_BUCKET)


def access_logging_off(d: Deployed) -> None:
    d.client("s3").put_bucket_logging(Bucket=INVOCATION_BUCKET, BucketLoggingStatus={})


def access_log_bucket_deleted(d: Deployed) -> None:
    d.client("s3").delete_bucket(Bucket=ACCESS_LOG_BUCKET)


def flow_log_deleted(d: Deployed) -> None:
    ec2 = d.client("ec2")
    flows = ec2.describe_flow_logs(Filters=[{"Name": "resource-id", "Values": [_vpc(d)]}])["FlowLogs"]
    ec2.delete_flow_logs(FlowLogIds=[f["FlowLogId"] for f in flows])


def flow_log_rejects_only(d: Deployed) -> None:
    ec2 = d.client("ec2")
    (flow,) = ec2.describe_flow_logs(Filters=[{"Name": "resource-id", "Values": [_vpc(d)]}])["FlowLogs"]
    ec2.delete_flow_logs(FlowLogIds=[flow["FlowLogId"]])
    ec2.create_flow_logs(
        ResourceIds=[_vpc(d)],
        ResourceType="VPC",
        TrafficType="REJECT",
        LogDestinationType="cloud-watch-logs",
        LogGroupName=flow["LogGroupName"],
        DeliverLogsPermissionArn=flow["DeliverLogsPermissionArn"],
    )


def guardrail_weakened(d: Deployed) -> None:  # Bedrock guardrails are stubbed: change what the Stubber answers
    guardrail = d.fake.guardrail(GUARDRAIL)
    hate = next(f for f in guardrail["draft"]["contentPolicy"]["filters"] if f["type"] == "HATE")
    hate["inputStrength"] = "LOW"


def guardrail_detects_only(d: Deployed) -> None:
    """Prompt attacks detected but no longer blocked: a field the template never names (Bedrock's default)."""
    guardrail = d.fake.guardrail(GUARDRAIL)
    attack = next(f for f in guardrail["draft"]["contentPolicy"]["filters"] if f["type"] == "PROMPT_ATTACK")
    attack["inputAction"] = "NONE"


def guardrail_deleted(d: Deployed) -> None:
    d.fake.guardrails.clear()
    d.fake.enforced_guardrails.clear()


def version_from_a_weakened_draft(d: Deployed) -> None:
    """A new version taken from a weakened draft, and account enforcement moved to it."""
    guardrail = d.fake.guardrail(GUARDRAIL)
    weak = copy.deepcopy(guardrail["versions"]["1"])
    weak["contentPolicy"]["filters"] = [f for f in weak["contentPolicy"]["filters"] if f["type"] != "PROMPT_ATTACK"]
    guardrail["versions"]["2"] = weak
    d.fake.enforced_guardrails["eu-central-1"][0]["guardrailVersion"] = "2"


def enforcement_removed(d: Deployed) -> None:
    d.fake.enforced_guardrails.clear()


def agreement_pending(d: Deployed) -> None:
    d.fake.agreements[("eu-central-1", KIMI)] = "PENDING"


def agreement_missing(d: Deployed) -> None:
    del d.fake.agreements[("eu-central-1", KIMI)]


def topic_policy_opened(d: Deployed) -> None:
    sns = d.client("sns")
    arn = f"arn:aws:sns:eu-central-1:{ACCOUNT}:kimi-eu-cost-alerts"
    anyone = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "sns:*", "Resource": arn}],
    }
    sns.set_topic_attributes(TopicArn=arn, AttributeName="Policy", AttributeValue=json.dumps(anyone))


ROLE_CHECKS = (
    "iam-role",
    "iam-role-trust",
    "iam-role-boundary",
    "iam-role-managed-policies",
    "iam-role-inline-policies",
)
BUCKET_CHECKS = (
    "s3-bucket",
    "s3-encryption",
    "s3-versioning",
    "s3-public-access-block",
    "s3-ownership",
    "s3-bucket-policy",
    "s3-lifecycle",
)

DRIFTS: list[tuple[Callable[[Deployed], None], dict[str, set[str]], Any]] = [
    (stack_drifted, {"stack-drift": {"DRIFT"}}, "kimi-eu-cost"),
    (trust_widened, {"iam-role-trust": {"DRIFT"}}, "kimi-eu-invoker-support-bot"),
    (boundary_removed, {"iam-role-boundary": {"DRIFT"}}, "kimi-eu-invoker-code-review"),
    (extra_policy_attached, {"iam-role-managed-policies": {"DRIFT"}}, "kimi-eu-automation-budget-action"),
    (inline_policy_added, {"iam-role-inline-policies": {"DRIFT"}}, "kimi-eu-invoker-support-bot"),
    (
        role_deleted,
        {**{c: {"MISSING"} for c in ROLE_CHECKS}, "tags": {"MISSING"}},
        {"kimi-eu-automation-model-agreement", "kimi-eu-automation-model-agreement (Role)"},
    ),
    (boundary_new_default_version, {"iam-policy": {"DRIFT"}}, "kimi-eu-invoker-boundary"),
    (kill_switch_policy_deleted, {"iam-policy": {"MISSING"}}, "kimi-eu-kill-switch"),
    (bucket_encrypted_with_s3_keys, {"s3-encryption": {"DRIFT"}}, INVOCATION_BUCKET),
    (versioning_suspended, {"s3-versioning": {"DRIFT"}}, INVOCATION_BUCKET),
    (public_access_block_removed, {"s3-public-access-block": {"DRIFT"}}, INVOCATION_BUCKET),
    (acls_enabled, {"s3-ownership": {"DRIFT"}}, INVOCATION_BUCKET),
    (bucket_policy_without_tls_deny, {"s3-bucket-policy": {"DRIFT"}}, INVOCATION_BUCKET),
    (lifecycle_removed, {"s3-lifecycle": {"DRIFT"}}, INVOCATION_BUCKET),
    (access_logging_off, {"s3-access-logging": {"DRIFT"}}, INVOCATION_BUCKET),
    (
        access_log_bucket_deleted,
        {**{c: {"MISSING"} for c in BUCKET_CHECKS}, "tags": {"MISSING"}},
        {ACCESS_LOG_BUCKET, f"{ACCESS_LOG_BUCKET} (Bucket)"},
    ),
    (flow_log_deleted, {"flow-log": {"MISSING"}}, lambda d: f"VPC {_vpc(d)}"),
    (flow_log_rejects_only, {"flow-log": {"DRIFT"}}, lambda d: f"VPC {_vpc(d)}"),
    (guardrail_weakened, {"guardrail": {"DRIFT"}}, GUARDRAIL),
    (guardrail_detects_only, {"guardrail": {"DRIFT"}}, GUARDRAIL),
    (
        guardrail_deleted,
        {"guardrail": {"MISSING"}, "guardrail-version": {"MISSING"}, "guardrail-enforcement": {"MISSING"}},
        {GUARDRAIL, f"{GUARDRAIL} version", f"{GUARDRAIL} (account)"},
    ),
    (version_from_a_weakened_draft, {"guardrail-version": {"DRIFT"}}, f"{GUARDRAIL} version"),
    (enforcement_removed, {"guardrail-enforcement": {"MISSING"}}, f"{GUARDRAIL} (account)"),
    (agreement_pending, {"model-agreement": {"DRIFT"}}, f"{KIMI} in eu-central-1"),
    (agreement_missing, {"model-agreement": {"MISSING"}}, f"{KIMI} in eu-central-1"),
    (topic_policy_opened, {"sns-topic-policy": {"DRIFT"}}, "kimi-eu-cost-alerts"),
]


@pytest.mark.parametrize("drift, expected, resource", DRIFTS, ids=[d[0].__name__ for d in DRIFTS])
def test_drift_is_caught_by_its_check(deployed: Deployed, cli, verify_args, drift, expected, resource) -> None:
    drift(deployed)
    code, stdout = _run(cli, verify_args)
    assert code == 1
    assert failing(stdout) == expected
    bad = [r for r in json.loads(stdout)["checks"] if r["status"] != "PASS"]
    want = resource(deployed) if callable(resource) else resource
    assert {r["resource"] for r in bad} == (want if isinstance(want, set) else {want})


def test_a_new_default_policy_version_shows_the_statements_it_dropped(deployed: Deployed, cli, verify_args) -> None:
    boundary_new_default_version(deployed)
    _, stdout = _run(cli, verify_args)
    (row,) = [r for r in rows(stdout, "iam-policy") if r["status"] != "PASS"]
    assert row["actual"].startswith("v2: differs")
    assert "the default version v2 of" in row["detail"]
    assert "- DenyGlobalInferenceProfiles:" in row["detail"]  # the statement diff, synthesized only


# --------------------------------------------------------------------------------------------------
# A stack that did not deploy: its resources never pass
# --------------------------------------------------------------------------------------------------

NETWORK = "kimi-eu-network"


@pytest.mark.parametrize(
    "status", ["ROLLBACK_COMPLETE", "UPDATE_ROLLBACK_COMPLETE", "UPDATE_ROLLBACK_FAILED", "CREATE_FAILED", None]
)
def test_resources_of_a_stack_that_did_not_deploy_do_not_pass(deployed: Deployed, cli, verify_args, status) -> None:
    """The endpoints, flow log, log group and roles of the network stack are all there and as synthesized, but the
    stack rolled back, failed or is gone (None): they are left-overs, not a deployment."""
    if status is None:
        deployed.forget_stack(NETWORK)
    else:
        deployed.set_stack_status(NETWORK, status)
    code, stdout = _run(cli, verify_args)
    assert code == 1
    checks = json.loads(stdout)["checks"]
    (stack_row,) = [r for r in checks if r["check"] == "stack-status" and r["resource"] == NETWORK]
    assert (stack_row["status"], stack_row["actual"]) == (
        ("MISSING", "not found") if status is None else ("DRIFT", status)
    )
    network = [r for r in checks if r["source"].startswith(f"{NETWORK}/")]
    assert {"vpc-endpoint", "vpc-endpoint-policy", "flow-log", "log-group", "iam-role", "iam-policy"} <= {
        r["check"] for r in network
    }
    drift = [r for r in network if r["status"] == "DRIFT"]
    assert all(f"its stack {NETWORK} is" in r["detail"] for r in drift)
    # nothing of it passes; without the stack, what only the stack knows (a generated role name, the security group's
    # and subnets' IDs) cannot be checked, and the retained flow-log group, whose name ends with the stack's suffix,
    # is the deployment's no more: missing, with its stack named
    missing = [r for r in network if r["status"] == "MISSING"]
    assert {r["check"] for r in missing} == ({"log-group"} if status is None else set())
    assert all(f"its stack {NETWORK} is not deployed" in r["detail"] for r in missing)
    unknown = [r for r in network if r["status"] not in ("DRIFT", "MISSING")]
    assert {r["status"] for r in network} == ({"DRIFT", "ERROR", "MISSING"} if status is None else {"DRIFT"})
    assert all(r["actual"] == "not checked" and "cannot be resolved" in r["detail"] for r in unknown)
    assert any(r["resource"].startswith("CustomVpcRestrictDefaultSG") for r in unknown) == (status is None)
    others = [r for r in checks if r["status"] != "PASS" and not r["source"].startswith(NETWORK)]
    assert others == []


def test_a_stack_in_the_management_account_is_asked_with_the_management_profile(
    deployed: Deployed, cli, verify_args
) -> None:
    deployed.set_stack_status("kimi-eu-guardrails", "UPDATE_ROLLBACK_COMPLETE", "Resource handler returned message")
    _, stdout = _run(cli, verify_args)
    found = failing(stdout)
    assert {"stack-status": {"DRIFT"}, "scp-content": {"DRIFT"}, "scp-attachment": {"DRIFT"}}.items() <= found.items()
    assert set().union(*found.values()) == {"DRIFT"}
    # every other failing row is a resource of that stack (the cost-allocation activation lives there too)
    others = [r for r in json.loads(stdout)["checks"] if r["status"] != "PASS" and r["check"] != "stack-status"]
    assert others and all(r["source"].startswith("kimi-eu-guardrails/") for r in others), others
    (row,) = [r for r in rows(stdout, "stack-status") if r["status"] != "PASS"]
    assert row["resource"] == "kimi-eu-guardrails" and "UPDATE_ROLLBACK_COMPLETE" in row["detail"]


# --------------------------------------------------------------------------------------------------
# Policies compare as IAM reads them
# --------------------------------------------------------------------------------------------------


def _rewritten(policy: dict, *, version: bool = False, upper: bool = True) -> dict:
    """The same policy as an emulator or another tool may return it: no Version (IAM itself requires one:
    ``version``), statements in reverse order, action names in upper case, one-element lists as single values and
    single values as one-element lists, lists in reverse order."""
    statements = []
    for statement in reversed(policy["Statement"]):
        out = {}
        for key, value in statement.items():
            if key == "Action" and upper:
                value = [v.upper() for v in value] if isinstance(value, list) else value.upper()
            if isinstance(value, list) and len(value) == 1:
                value = value[0]
            elif isinstance(value, str) and key in ("Resource", "Action"):
                value = [value]
            out[key] = list(reversed(value)) if isinstance(value, list) else value
        statements.append(out)
    return {"Statement": statements, **({"Version": policy["Version"]} if version else {})}


def test_an_endpoint_policy_without_version_passes(deployed: Deployed, cli, verify_args) -> None:
    """The LocalStack emulator drops "Version" from VPC endpoint policies; that is the same policy."""
    ec2 = deployed.client("ec2")
    for endpoint in ec2.describe_vpc_endpoints()["VpcEndpoints"]:
        policy = json.loads(endpoint["PolicyDocument"])
        policy.pop("Version")
        ec2.modify_vpc_endpoint(VpcEndpointId=endpoint["VpcEndpointId"], PolicyDocument=json.dumps(policy))
    code, stdout = _run(cli, verify_args)
    assert code == 0, failing(stdout)
    assert {r["actual"] for r in rows(stdout, "vpc-endpoint-policy")} == {"identical"}


def test_equivalent_policies_pass_everywhere(deployed: Deployed, cli, verify_args) -> None:
    """Endpoint, bucket, topic, trust and managed policies rewritten in an equivalent form all pass."""
    ec2, s3, sns, iam = (deployed.client(s) for s in ("ec2", "s3", "sns", "iam"))
    for endpoint in ec2.describe_vpc_endpoints()["VpcEndpoints"]:
        policy = _rewritten(json.loads(endpoint["PolicyDocument"]))
        ec2.modify_vpc_endpoint(VpcEndpointId=endpoint["VpcEndpointId"], PolicyDocument=json.dumps(policy))
    policy = _rewritten(json.loads(s3.get_bucket_policy(Bucket=INVOCATION_BUCKET)["Policy"]))
    s3.put_bucket_policy(Bucket=INVOCATION_BUCKET, Policy=json.dumps(policy))
    topic = f"arn:aws:sns:eu-central-1:{ACCOUNT}:kimi-eu-cost-alerts"
    policy = _rewritten(json.loads(sns.get_topic_attributes(TopicArn=topic)["Attributes"]["Policy"]))
    sns.set_topic_attributes(TopicArn=topic, AttributeName="Policy", AttributeValue=json.dumps(policy))
    role = "kimi-eu-invoker-support-bot"
    # moto checks trust-policy action names case-sensitively (IAM does not): their case stays
    trust = _rewritten(iam.get_role(RoleName=role)["Role"]["AssumeRolePolicyDocument"], version=True, upper=False)
    iam.update_assume_role_policy(RoleName=role, PolicyDocument=json.dumps(trust))
    arn = _policy_arn("kimi-eu-invoker-boundary")
    boundary = _rewritten(
        iam.get_policy_version(PolicyArn=arn, VersionId="v1")["PolicyVersion"]["Document"], version=True
    )
    iam.create_policy_version(PolicyArn=arn, PolicyDocument=json.dumps(boundary), SetAsDefault=True)
    code, stdout = _run(cli, verify_args)
    assert code == 0, failing(stdout)
    boundary_row = next(r for r in rows(stdout, "iam-policy") if r["resource"] == "kimi-eu-invoker-boundary")
    assert boundary_row["actual"] == "v2: identical"  # a new default version with the same meaning is no drift


# --------------------------------------------------------------------------------------------------
# The kill switch working is not drift
# --------------------------------------------------------------------------------------------------


def test_an_engaged_kill_switch_passes_with_a_note(deployed: Deployed, cli, verify_args) -> None:
    """The budget action attached the kill switch to the invoker roles: the landing zone working, not drift."""
    iam = deployed.client("iam")
    for role in ("kimi-eu-invoker-support-bot", "kimi-eu-invoker-code-review"):
        iam.attach_role_policy(RoleName=role, PolicyArn=_policy_arn("kimi-eu-kill-switch"))
    code, stdout = _run(cli, verify_args)
    assert code == 0, failing(stdout)
    engaged = [r for r in rows(stdout, "iam-role-managed-policies") if "kill switch" in r["actual"]]
    assert {r["resource"] for r in engaged} == {"kimi-eu-invoker-support-bot", "kimi-eu-invoker-code-review"}
    assert all("the kill switch is engaged" in r["detail"] for r in engaged)
    # ... but on any other role it is an attachment the template does not make
    iam.attach_role_policy(RoleName="kimi-eu-flow-logs", PolicyArn=_policy_arn("kimi-eu-kill-switch"))
    _, stdout = _run(cli, verify_args)
    assert failing(stdout) == {"iam-role-managed-policies": {"DRIFT"}}


# --------------------------------------------------------------------------------------------------
# A service that gives no answer: ERROR for that item, never a whole family as one row
# --------------------------------------------------------------------------------------------------


def test_profile_arns_come_from_the_stack_when_bedrock_cannot_list_them(deployed: Deployed, cli, verify_args) -> None:
    """ListInferenceProfiles answers InternalFailure (as an emulator does): the alarms and the invoke policies still
    resolve the application-profile ARNs from the access stack's outputs; only the profile rows are ERROR."""
    deployed.fake.errors["list_inference_profiles"] = ("InternalFailure", 500)
    code, stdout = _run(cli, verify_args)
    assert code == 1
    assert failing(stdout) == {
        "inference-profile": {"ERROR"},
        "inference-profile-tags": {"ERROR"},
        "inference-profile-regions": {"ERROR"},
    }
    assert {r["actual"] for r in rows(stdout, "inference-profile")} == {"no answer: InternalFailure"}
    assert {r["resource"] for r in rows(stdout, "inference-profile")} == {"kimi-eu-support-bot", "kimi-eu-code-review"}
    assert {r["status"] for r in rows(stdout, "alarm")} == {"PASS"}
    deployed.accounts.assert_stubs_consumed()


def test_an_unresolvable_alarm_dimension_is_an_error_of_that_alarm_only(deployed: Deployed, cli, verify_args) -> None:
    """Neither the stack (CloudFormation unreachable) nor Bedrock (InternalFailure) gives the profile ARNs: each
    alarm whose metrics name a profile is ERROR on its own row; the alarms without one (Mantle usage, the detection
    stack's legacy-model alarms on a literal ModelId) still pass."""
    deployed.fake.errors["list_inference_profiles"] = ("InternalFailure", 500)
    with use_client_factory(cloudformation_unreachable(deployed)):
        code, stdout = _run(cli, verify_args)
    assert code == 1
    alarms = {r["resource"]: r for r in rows(stdout, "alarm")}
    without_profile = {"kimi-eu-mantle-usage"} | {f"kimi-eu-legacy-model-{m}" for m in (KIMI, f"eu.{KIMI}")}
    assert set(alarms) == {"kimi-eu-spend-1-of-2", "kimi-eu-spend-2-of-2"} | without_profile  # no "(all)"
    assert {alarms[name]["status"] for name in without_profile} == {"PASS"}
    for name in ("kimi-eu-spend-1-of-2", "kimi-eu-spend-2-of-2"):
        assert alarms[name]["status"] == "ERROR"
        assert "InternalFailure" in alarms[name]["detail"]
    assert not [r for r in json.loads(stdout)["checks"] if r["resource"] == "(all)"]


def test_an_operation_the_service_does_not_implement_is_could_not_ask(deployed: Deployed, cli, verify_args) -> None:
    deployed.fake.errors["get_guardrail"] = ("NotImplemented", 501)
    code, stdout = _run(cli, verify_args)
    assert code == 1
    assert failing(stdout) == {"guardrail": {"ERROR"}, "guardrail-version": {"ERROR"}}
    assert rows(stdout, "guardrail")[0]["actual"] == "no answer: NotImplemented"
    assert rows(stdout, "guardrail-enforcement")[0]["status"] == "PASS"
