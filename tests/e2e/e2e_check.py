"""The assertions of ``make e2e`` (tests/e2e/e2e.sh), one subcommand per step.  Not a pytest module.

Runs with the project's virtualenv, from the repository root (``python -m tests.e2e.e2e_check CMD ...``); the
``AWS_*`` variables of the run point boto3 at the emulator.  Every subcommand prints what it saw and exits 1 when
that differs from the expectation, so the e2e asserts outcomes, not exit codes.  Template values are resolved
against the emulator with verify's own :class:`~landing_zone.verify.live.Resolver`, and documents are compared as
IAM reads them with :func:`landing_zone.verify.compare.same_document`.

  config VARIANT OUT                 write the e2e configuration (imported-VPC variants: create the VPC first)
  stacks ASSEMBLY                    every stack of the assembly is CREATE_COMPLETE / UPDATE_COMPLETE
  pretended ASSEMBLY EXPECTED        what the emulator only pretended to create, or a stand-in answered for, is
                                     exactly EXPECTED (stack, type, logical ID, pretended|stand-in)
  readback ASSEMBLY VARIANT          the deployed resources' real properties, read back and compared
  no-changes LOG ASSEMBLY            a deploy printed "(no changes)" for every stack
  verify-counts JSON VARIANT         verify's PASS/DRIFT/MISSING/ERROR counts are EXPECTED_VERIFY_COUNTS[VARIANT]
  snapshot ASSEMBLY STATE            before destroy: the retained resources (keys, log groups)
  unprotect ASSEMBLY                 turn termination protection off (as one must on a real account)
  retained STATE                     after destroy: no stack left, the retained resources still there
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3

from landing_zone.assembly import Assembly, Resource, Stack
from landing_zone.verify.compare import canonical, document_diff, same_document, same_number, unresolved_in
from landing_zone.verify.live import Live, Resolver

HERE = Path(__file__).resolve().parent
REGION = "us-east-1"
ACCOUNT = "000000000000"  # the emulator's default account
STANDIN_MARK = "standin"  # every stand-in's physical ID contains it (tests/e2e/standins)
LIVE_STATUSES = ("CREATE_COMPLETE", "UPDATE_COMPLETE")

# -------------------------------------------------------------------------------------------------------------
# verify's counts against the emulator, per variant: THE one place to change when verify changes (a failing run
# prints the line to put here).  Why not all PASS (docs/E2E.md): the emulator has no Bedrock, Budgets, Cost
# Explorer or Organizations API, so those checks are ERROR (could not ask).
# -------------------------------------------------------------------------------------------------------------
EXPECTED_VERIFY_COUNTS: dict[str, dict[str, int]] = {
    # organization variants: 12 ERROR since the guardrails take 3 SCPs (content + attachment each, no Organizations)
    "full": {"PASS": 57, "DRIFT": 0, "MISSING": 0, "ERROR": 12},
    "organization": {"PASS": 52, "DRIFT": 0, "MISSING": 0, "ERROR": 12},
    "single": {"PASS": 50, "DRIFT": 0, "MISSING": 0, "ERROR": 6},
    "new-vpc": {"PASS": 55, "DRIFT": 0, "MISSING": 0, "ERROR": 6},
}

VARIANTS = {  # variant -> (organization, new VPC)
    "full": (True, True),
    "organization": (True, False),
    "single": (False, False),
    "new-vpc": (False, True),
}


def _client(service: str) -> Any:
    return boto3.client(service, region_name=REGION)


def _stack_names(assembly: str) -> list[str]:
    manifest = json.loads((Path(assembly) / "manifest.json").read_text())
    return sorted(k for k, v in manifest["artifacts"].items() if v.get("type") == "aws:cloudformation:stack")


def _report(failures: list[str]) -> int:
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


# ---------------------------------------------------------------- config ------------------------------------------
def cmd_config(variant: str, out: str) -> int:
    """The e2e configuration over the cdk.json defaults: what the emulator can hold (invocation logging and model
    agreements need a Lambda-backed custom resource, so both are off; the content guardrail and self-hosting are
    off).  The cdk.json default is an organization: the one-account variants set ``organization: null``."""
    organization, new_vpc = VARIANTS[variant]
    if new_vpc:  # the CDK creates the VPC (2 AZs from Fn::GetAZs); its default-SG custom resource is a stand-in
        network = "network:\n  vpc_cidr: 10.40.0.0/16\n"
    else:  # an existing VPC: created in the emulator, its IDs go into the configuration
        ec2 = _client("ec2")
        vpc = ec2.create_vpc(CidrBlock="10.40.0.0/16")["Vpc"]["VpcId"]
        ec2.get_waiter("vpc_available").wait(VpcIds=[vpc])
        subnets = [
            ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.40.{i}.0/24", AvailabilityZone=f"{REGION}{az}")["Subnet"][
                "SubnetId"
            ]
            for i, az in enumerate("ab")
        ]
        network = (
            f"network:\n  vpc_id: {vpc}\n  vpc_cidr: 10.40.0.0/16\n  subnet_ids: [{', '.join(subnets)}]\n"
            f"  availability_zones: [{REGION}a, {REGION}b]\n"
        )
    org = (
        f'organization: {{management_account_id: "{ACCOUNT}", organization_id: o-e2etest0001, target_ids: []}}\n'
        if organization
        else "organization: null\n"
    )
    Path(out).write_text(
        f"# written by tests/e2e/e2e_check.py config {variant}: the landing zone in the local emulator\n"
        f"name: lz-e2e\nhome_region: {REGION}\ncompliant_regions: [us-east-1, us-east-2, us-west-2]\n"
        f'accounts:\n  - {{id: "{ACCOUNT}", name: e2e}}\n{org}{network}'
        "invocation_logging: {enabled: false}\nmodel_access: {accept_agreements: false}\n"
        "content_guardrail: {enabled: false}\nself_hosting: {enabled: false}\n"
    )
    print(Path(out).read_text(), end="")
    return 0


# ---------------------------------------------------------------- stacks and pretended ---------------------------
def cmd_stacks(assembly: str) -> int:
    cfn = _client("cloudformation")
    failures = []
    for name in _stack_names(assembly):
        stack = cfn.describe_stacks(StackName=name)["Stacks"][0]
        print(f"{name}\t{stack['StackStatus']}\ttermination protection {stack.get('EnableTerminationProtection')}")
        if stack["StackStatus"] not in LIVE_STATUSES:
            failures.append(f"{name}: {stack['StackStatus']} {stack.get('StackStatusReason', '')}")
    return _report(failures)


def pretended(assembly: str) -> list[str]:
    """Resources CloudFormation recorded as created without creating anything: the emulator has no provider for
    the type (physical ID "unknown", every Ref/GetAtt of it is "unknown") or a stand-in answered for it."""
    cfn = _client("cloudformation")
    rows = []
    for name in _stack_names(assembly):
        for res in cfn.describe_stack_resources(StackName=name)["StackResources"]:
            physical = res.get("PhysicalResourceId") or ""
            kind = "pretended" if physical == "unknown" else "stand-in" if STANDIN_MARK in physical else None
            if kind:
                rows.append(f"{name}\t{res['ResourceType']}\t{res['LogicalResourceId']}\t{kind}")
    return sorted(rows)


def cmd_pretended(assembly: str, expected_file: str) -> int:
    got = pretended(assembly)
    print("\n".join(got))
    lines = Path(expected_file).read_text().splitlines()
    want = sorted(line for line in lines if line.strip() and not line.startswith("#"))
    failures = [f"not expected to be pretended: {g}" for g in got if g not in want]
    failures += [
        f"expected to be pretended, but really created (update {expected_file}): {w}" for w in want if w not in got
    ]
    return _report(failures)


# ---------------------------------------------------------------- read-back -------------------------------------
class EmulatorResolver(Resolver):
    """verify's resolver, plus what only the deployed stack knows: the stand-in profile's ARN (there is no Bedrock
    API to list it by name) and the EC2 attributes the templates use."""

    def application_profile_arn(self, res: Resource) -> Any:
        return self.cloudformation_physical_id(res)

    def get_att(self, logical_id: str, attr: str, stack: Stack) -> Any:
        res = stack.resource(logical_id)
        if res is not None and (res.type, attr) == ("AWS::EC2::SecurityGroup", "GroupId"):
            return self.physical_id(res)
        if res is not None and res.type == "AWS::EC2::VPC" and attr in ("CidrBlock", "DefaultSecurityGroup"):
            vpc = _client("ec2").describe_vpcs(VpcIds=[self.physical_id(res)])["Vpcs"][0]
            if attr == "CidrBlock":
                return vpc["CidrBlock"]
            return _default_sg(vpc["VpcId"])["GroupId"]
        return super().get_att(logical_id, attr, stack)


def _default_sg(vpc_id: str) -> dict[str, Any]:
    filters = [{"Name": "vpc-id", "Values": [vpc_id]}, {"Name": "group-name", "Values": ["default"]}]
    return dict(_client("ec2").describe_security_groups(Filters=filters)["SecurityGroups"][0])


class Readback:
    def __init__(self, assembly_path: str) -> None:
        self.assembly = Assembly.load(assembly_path)
        live = Live(profile=None, management_profile=None, region=REGION)
        self.resolver = EmulatorResolver(self.assembly, live, region_of=lambda s: s.region or REGION)
        self.failures: list[str] = []
        self.checked = 0

    # -- helpers ---------------------------------------------------------------------------------------------
    def value(self, res: Resource, value: Any) -> Any:
        resolved = self.resolver.value(value, res.stack)
        missing = unresolved_in(resolved)
        if missing:
            raise AssertionError(f"{res.path}: cannot resolve {missing[0].why}")
        return resolved

    def physical(self, res: Resource) -> str:
        found = self.resolver.physical_id(res)
        if not isinstance(found, str):
            raise AssertionError(f"{res.path}: no physical ID ({found})")
        return found

    def expect(self, what: str, ok: bool, shown: str, detail: str = "") -> None:
        self.checked += 1
        print(f"{'ok  ' if ok else 'FAIL'} {what}: {shown}")
        if not ok:
            self.failures.append(f"{what}: {shown}")
            if detail:
                print("     " + detail.replace("\n", "\n     "))

    def document(self, what: str, expected: Any, actual: Any) -> None:
        if actual in (None, ""):
            self.expect(what, False, "no document")
            return
        same = same_document(expected, actual)
        self.expect(what, same, "identical" if same else "differs", "" if same else document_diff(expected, actual))

    def tags(self, what: str, res: Resource, live: list[dict[str, str]]) -> None:
        """The template's tags are on the resource (CloudFormation's own aws:* tags may be there too)."""
        want = {t["Key"]: t["Value"] for t in self.value(res, res.prop("Tags", []))}
        got = {t["Key"]: t["Value"] for t in live if not t["Key"].startswith("aws:")}
        self.expect(what, got == want, f"{len(got)} tag(s)" + ("" if got == want else f" {got}"), f"synthesized {want}")

    # -- resource types --------------------------------------------------------------------------------------
    def kms_key(self, res: Resource) -> None:
        kms = _client("kms")
        key_id = self.physical(res)
        rotation = kms.get_key_rotation_status(KeyId=key_id)["KeyRotationEnabled"]
        self.expect(f"kms-rotation {res.path}", rotation == bool(res.prop("EnableKeyRotation")), f"rotation {rotation}")
        state = kms.describe_key(KeyId=key_id)["KeyMetadata"]["KeyState"]
        self.expect(f"kms-state {res.path}", state == "Enabled", state)
        live = kms.get_key_policy(KeyId=key_id, PolicyName="default")["Policy"]
        self.document(f"kms-policy {res.path}", self.value(res, res.prop("KeyPolicy")), live)

    def security_group(self, res: Resource) -> None:
        group = _client("ec2").describe_security_groups(GroupIds=[self.physical(res)])["SecurityGroups"][0]
        want_in = _rules(self.value(res, res.prop("SecurityGroupIngress", [])))
        egress = res.prop("SecurityGroupEgress")
        allow_all = [{"IpProtocol": "-1", "CidrIp": "0.0.0.0/0"}]  # CloudFormation's default egress rule
        want_out = _rules(self.value(res, egress) if egress is not None else allow_all)
        got_in, got_out = _live_rules(group["IpPermissions"]), _live_rules(group["IpPermissionsEgress"])
        self.expect(f"sg-ingress {res.path}", got_in == want_in, f"{got_in}", f"synthesized {want_in}")
        self.expect(f"sg-egress {res.path}", got_out == want_out, f"{got_out}", f"synthesized {want_out}")
        self.expect(f"sg-vpc {res.path}", group["VpcId"] == self.value(res, res.prop("VpcId")), group["VpcId"])
        self.tags(f"sg-tags {res.path}", res, group.get("Tags", []))

    def vpc(self, res: Resource, variant: str) -> None:
        ec2 = _client("ec2")
        vpc = ec2.describe_vpcs(VpcIds=[self.physical(res)])["Vpcs"][0]
        self.expect(f"vpc-cidr {res.path}", vpc["CidrBlock"] == res.prop("CidrBlock"), vpc["CidrBlock"])
        self.tags(f"vpc-tags {res.path}", res, vpc.get("Tags", []))
        subnets = ec2.describe_subnets(Filters=[{"Name": "vpc-id", "Values": [vpc["VpcId"]]}])["Subnets"]
        zones = sorted({s["AvailabilityZone"] for s in subnets})
        self.expect(f"vpc-subnets {res.path}", len(subnets) == 2 and len(zones) == 2, f"{len(subnets)} in {zones}")
        if res.stack.resources("Custom::VpcRestrictDefaultSG"):
            group = _default_sg(vpc["VpcId"])
            rules = (len(group["IpPermissions"]), len(group["IpPermissionsEgress"]))
            self.expect(f"vpc-default-sg-empty {res.path}", rules == (0, 0), f"{rules[0]} in / {rules[1]} out rules")

    def vpc_endpoint(self, res: Resource) -> None:
        endpoint = _client("ec2").describe_vpc_endpoints(VpcEndpointIds=[self.physical(res)])["VpcEndpoints"][0]
        want = {
            "ServiceName": self.value(res, res.prop("ServiceName")),
            "VpcId": self.value(res, res.prop("VpcId")),
            "VpcEndpointType": res.prop("VpcEndpointType", "Gateway"),
            "PrivateDnsEnabled": bool(res.prop("PrivateDnsEnabled", False)),
            "SubnetIds": sorted(self.value(res, res.prop("SubnetIds", []))),
            "SecurityGroupIds": sorted(self.value(res, res.prop("SecurityGroupIds", []))),
        }
        got = {
            "ServiceName": endpoint["ServiceName"],
            "VpcId": endpoint["VpcId"],
            "VpcEndpointType": endpoint["VpcEndpointType"],
            "PrivateDnsEnabled": bool(endpoint.get("PrivateDnsEnabled")),
            "SubnetIds": sorted(endpoint.get("SubnetIds", [])),
            "SecurityGroupIds": sorted(g["GroupId"] for g in endpoint.get("Groups", [])),
        }
        diff = {k: (want[k], got[k]) for k in want if want[k] != got[k]}
        self.expect(f"vpce-properties {res.path}", not diff, "as synthesized" if not diff else f"{diff}")
        self.tags(f"vpce-tags {res.path}", res, endpoint.get("Tags", []))
        expected = self.value(res, res.prop("PolicyDocument"))
        live = json.loads(endpoint["PolicyDocument"])
        # Emulator gap (docs/E2E.md): its DescribeVpcEndpoints removes "Version" from the policy.  Everything
        # else must be identical (verify's semantic comparison accepts a Version present on one side only).
        if "Version" not in live and "Version" in expected:
            print(f"gap  vpce-policy {res.path}: no Version in the live policy (the emulator's API removes it)")
            live = {**live, "Version": expected["Version"]}
        self.document(f"vpce-policy {res.path}", expected, live)

    def flow_log(self, res: Resource) -> None:
        flow = _client("ec2").describe_flow_logs(FlowLogIds=[self.physical(res)])["FlowLogs"][0]
        want = {
            "ResourceId": self.value(res, res.prop("ResourceId")),
            "TrafficType": res.prop("TrafficType"),
            "LogDestinationType": res.prop("LogDestinationType", "cloud-watch-logs"),
            "LogGroupName": self.value(res, res.prop("LogGroupName")),
            "DeliverLogsPermissionArn": self.value(res, res.prop("DeliverLogsPermissionArn")),
        }
        diff = {k: (v, flow.get(k)) for k, v in want.items() if flow.get(k) != v}
        self.expect(f"flow-log {res.path}", not diff, "as synthesized" if not diff else f"{diff}")
        self.tags(f"flow-log-tags {res.path}", res, flow.get("Tags", []))

    def log_group(self, res: Resource) -> None:
        name = self.physical(res)
        found = _client("logs").describe_log_groups(logGroupNamePrefix=name)["logGroups"]
        group = next((g for g in found if g["logGroupName"] == name), None)
        if group is None:
            self.expect(f"log-group {res.path}", False, f"{name} not found")
            return
        self.expect(
            f"log-group-retention {res.path}",
            group.get("retentionInDays") == res.prop("RetentionInDays"),
            f"{group.get('retentionInDays')} days",
        )
        key = self.value(res, res.prop("KmsKeyId")) if res.prop("KmsKeyId") else None
        self.expect(f"log-group-kms {res.path}", group.get("kmsKeyId") == key, f"{group.get('kmsKeyId')}")
        tags = _client("logs").list_tags_for_resource(resourceArn=group["arn"].removesuffix(":*"))["tags"]
        want_tags = {t["Key"]: t["Value"] for t in res.prop("Tags", [])}
        self.expect(f"log-group-tags {res.path}", tags == want_tags, f"{tags}")

    def topic(self, res: Resource) -> None:
        arn = self.value(res, {"Ref": res.logical_id})
        attrs = _client("sns").get_topic_attributes(TopicArn=arn)["Attributes"]
        key = self.value(res, res.prop("KmsMasterKeyId"))
        self.expect(f"sns-topic-kms {res.path}", attrs.get("KmsMasterKeyId") == key, f"{attrs.get('KmsMasterKeyId')}")

    def topic_policy(self, res: Resource) -> None:
        expected = self.value(res, res.prop("PolicyDocument"))
        for arn in self.value(res, res.prop("Topics")):
            live = _client("sns").get_topic_attributes(TopicArn=arn)["Attributes"].get("Policy")
            self.document(f"sns-topic-policy {res.path} ({arn.rsplit(':', 1)[-1]})", expected, live)

    def alarm(self, res: Resource) -> None:
        name = self.physical(res)
        found = _client("cloudwatch").describe_alarms(AlarmNames=[name])["MetricAlarms"]
        if not found:
            self.expect(f"alarm {res.path}", False, f"{name} not found")
            return
        live = found[0]
        plain = ("ComparisonOperator", "EvaluationPeriods", "DatapointsToAlarm", "TreatMissingData", "AlarmDescription")
        diff = {k: (res.prop(k), live.get(k)) for k in plain if res.prop(k) is not None and res.prop(k) != live.get(k)}
        if not same_number(res.prop("Threshold"), live.get("Threshold")):
            diff["Threshold"] = (res.prop("Threshold"), live.get("Threshold"))
        for key in ("AlarmActions", "OKActions", "InsufficientDataActions"):
            want = sorted(self.value(res, res.prop(key, [])))
            if want != sorted(live.get(key, [])):
                diff[key] = (want, live.get(key))
        self.expect(
            f"alarm {res.path}",
            not diff,
            f"{live['ComparisonOperator']} {live['Threshold']}" + (f" {diff}" if diff else ""),
        )
        want_metrics = self.value(res, res.prop("Metrics", []))
        got_metrics = [_metric_query(m) for m in live.get("Metrics", [])]
        same = canonical(want_metrics) == canonical(got_metrics)
        self.expect(
            f"alarm-metrics {res.path}",
            same,
            f"{len(got_metrics)} metric queries " + ("identical" if same else "differ"),
            "" if same else document_diff(want_metrics, got_metrics),
        )

    def role(self, res: Resource) -> None:
        iam = _client("iam")
        name = self.physical(res)
        role = iam.get_role(RoleName=name)["Role"]
        self.document(
            f"role-trust {res.path}",
            self.value(res, res.prop("AssumeRolePolicyDocument")),
            role["AssumeRolePolicyDocument"],
        )
        boundary = self.value(res, res.prop("PermissionsBoundary")) if res.prop("PermissionsBoundary") else None
        live_boundary = (role.get("PermissionsBoundary") or {}).get("PermissionsBoundaryArn")
        self.expect(f"role-boundary {res.path}", live_boundary == boundary, f"{live_boundary}")
        attached = sorted(p["PolicyArn"] for p in iam.list_attached_role_policies(RoleName=name)["AttachedPolicies"])
        want = sorted(self.value(res, res.prop("ManagedPolicyArns", [])))
        self.expect(
            f"role-managed-policies {res.path}", attached == want, f"{len(attached)} attached", f"synthesized {want}"
        )
        for inline in self.value(res, res.prop("Policies", [])):
            live = iam.get_role_policy(RoleName=name, PolicyName=inline["PolicyName"])["PolicyDocument"]
            self.document(f"role-inline-policy {res.path} ({inline['PolicyName']})", inline["PolicyDocument"], live)

    def managed_policy(self, res: Resource) -> None:
        iam = _client("iam")
        arn = self.value(res, {"Ref": res.logical_id})
        policy = iam.get_policy(PolicyArn=arn)["Policy"]
        live = iam.get_policy_version(PolicyArn=arn, VersionId=policy["DefaultVersionId"])["PolicyVersion"]["Document"]
        self.document(f"managed-policy {res.path}", self.value(res, res.prop("PolicyDocument")), live)

    def run(self, variant: str) -> int:
        handlers: dict[str, Callable[[Resource], None]] = {
            "AWS::KMS::Key": self.kms_key,
            "AWS::EC2::VPC": lambda r: self.vpc(r, variant),
            "AWS::EC2::SecurityGroup": self.security_group,
            "AWS::EC2::VPCEndpoint": self.vpc_endpoint,
            "AWS::Logs::LogGroup": self.log_group,
            "AWS::EC2::FlowLog": self.flow_log,
            "AWS::SNS::Topic": self.topic,
            "AWS::SNS::TopicPolicy": self.topic_policy,
            "AWS::CloudWatch::Alarm": self.alarm,
            "AWS::IAM::Role": self.role,
            "AWS::IAM::ManagedPolicy": self.managed_policy,
        }
        for res in self.assembly.resources(*handlers):
            try:
                handlers[res.type](res)
            except Exception as exc:  # noqa: BLE001 - one resource that cannot be read fails the step, not the run
                self.expect(f"read {res.path}", False, f"{type(exc).__name__}: {exc}")
        required = {"AWS::KMS::Key", "AWS::EC2::VPCEndpoint", "AWS::EC2::SecurityGroup", "AWS::SNS::TopicPolicy"}
        required |= {"AWS::CloudWatch::Alarm", "AWS::Logs::LogGroup", "AWS::EC2::FlowLog"}
        absent = sorted(t for t in required if not self.assembly.resources(t))
        if absent:
            self.failures.append(f"nothing of {absent} in the assembly to read back")
        print(f"read back: {self.checked} properties, {len(self.failures)} failure(s)")
        return _report(self.failures)


def _rules(rules: list[dict[str, Any]]) -> list[tuple[str, Any, Any, str]]:
    return sorted(
        (str(r["IpProtocol"]), r.get("FromPort"), r.get("ToPort"), r.get("CidrIp") or r.get("CidrIpv6") or "")
        for r in rules
    )


def _live_rules(permissions: list[dict[str, Any]]) -> list[tuple[str, Any, Any, str]]:
    return sorted(
        (p["IpProtocol"], p.get("FromPort"), p.get("ToPort"), peer)
        for p in permissions
        for peer in [r["CidrIp"] for r in p.get("IpRanges", [])] + [r["CidrIpv6"] for r in p.get("Ipv6Ranges", [])]
    )


def _metric_query(query: dict[str, Any]) -> dict[str, Any]:
    """A live MetricDataQuery in the template's shape (the API fills in ReturnData and may add nothing else)."""
    return {k: v for k, v in query.items() if k in ("Id", "Expression", "Label", "ReturnData", "MetricStat", "Period")}


def cmd_readback(assembly: str, variant: str) -> int:
    return Readback(assembly).run(variant)


# ---------------------------------------------------------------- redeploy, verify ------------------------------
def cmd_no_changes(log: str, assembly: str) -> int:
    text = Path(log).read_text()
    stacks = _stack_names(assembly)
    failures = [f"{s}: the deploy did not report (no changes)" for s in stacks if f"{s} (no changes)" not in text]
    print(f"(no changes): {len(stacks) - len(failures)} of {len(stacks)} stacks")
    return _report(failures)


def cmd_verify_counts(report: str, variant: str) -> int:
    data = json.loads(Path(report).read_text())
    rows = data["checks"]
    got = {status: sum(1 for r in rows if r["status"] == status) for status in ("PASS", "DRIFT", "MISSING", "ERROR")}
    want = EXPECTED_VERIFY_COUNTS[variant]
    print("verify: " + ", ".join(f"{k}={v}" for k, v in got.items()) + f" ({len(rows)} checks)")
    for r in rows:
        if r["status"] != "PASS":
            print(f"  {r['status']:7} {r['check']} {r['resource']}: {r['actual']}")
    if got != want:
        where = Path(__file__).relative_to(HERE.parents[1])
        print(f"expected {want}; if verify changed on purpose, put this line into EXPECTED_VERIFY_COUNTS ({where}):")
        print(f'    "{variant}": {json.dumps(got)},')
    return _report([f"verify {k}: {got[k]}, expected {want[k]}" for k in want if got[k] != want[k]])


# ---------------------------------------------------------------- destroy and what is retained ------------------
def cmd_snapshot(assembly: str, state: str) -> int:
    cfn = _client("cloudformation")
    keep: dict[str, list[str]] = {"keys": [], "log_groups": []}
    for res in Assembly.load(assembly).resources("AWS::KMS::Key", "AWS::Logs::LogGroup"):
        if res.stack.resource_map[res.logical_id].get("DeletionPolicy") != "Retain":
            continue
        detail = cfn.describe_stack_resource(StackName=res.stack.name, LogicalResourceId=res.logical_id)
        physical = detail["StackResourceDetail"]["PhysicalResourceId"]
        keep["keys" if res.type == "AWS::KMS::Key" else "log_groups"].append(physical)
    Path(state).write_text(json.dumps(keep, indent=1))
    print(f"to be retained: {keep}")
    return _report([] if keep["keys"] and keep["log_groups"] else ["no retained key or log group in the assembly"])


def cmd_unprotect(assembly: str) -> int:
    cfn = _client("cloudformation")
    for name in _stack_names(assembly):
        cfn.update_termination_protection(StackName=name, EnableTerminationProtection=False)
    print(f"termination protection off: {', '.join(_stack_names(assembly))}")
    return 0


def cmd_retained(state: str) -> int:
    keep = json.loads(Path(state).read_text())
    kms, logs, cfn = _client("kms"), _client("logs"), _client("cloudformation")
    failures = []
    for key_id in keep["keys"]:
        key_state = kms.describe_key(KeyId=key_id)["KeyMetadata"]["KeyState"]
        print(f"key {key_id}: {key_state}")
        if key_state != "Enabled":
            failures.append(f"retained key {key_id} is {key_state}")
    for name in keep["log_groups"]:
        groups = logs.describe_log_groups(logGroupNamePrefix=name)["logGroups"]
        present = any(g["logGroupName"] == name for g in groups)
        print(f"log group {name}: {'present' if present else 'GONE'}")
        if not present:
            failures.append(f"retained log group {name} is gone")
    left = [
        s["StackName"]
        for s in cfn.list_stacks()["StackSummaries"]
        if s["StackStatus"] != "DELETE_COMPLETE" and s["StackName"] != "CDKToolkit"
    ]
    print(f"stacks left besides CDKToolkit: {left or 'none'}")
    if left:
        failures.append(f"stacks left after destroy: {left}")
    return _report(failures)


COMMANDS: dict[str, Callable[..., int]] = {
    "config": cmd_config,
    "stacks": cmd_stacks,
    "pretended": cmd_pretended,
    "readback": cmd_readback,
    "no-changes": cmd_no_changes,
    "verify-counts": cmd_verify_counts,
    "snapshot": cmd_snapshot,
    "unprotect": cmd_unprotect,
    "retained": cmd_retained,
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        print(__doc__)
        return 2
    if not os.environ.get("AWS_ENDPOINT_URL", "").startswith("http://127.0.0.1:"):
        print("refusing to run: AWS_ENDPOINT_URL does not point at a local emulator (run through make e2e)")
        return 2
    return COMMANDS[argv[0]](*argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
