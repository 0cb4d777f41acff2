"""The faults ``make e2e`` injects and ``verify`` must report (``e2e_check inject`` / ``detected``).

One fault per family, each through the emulator's API in the account of the resource's stack, as an attacker or a
careless operator would, each read back at once (physical IDs straight from CloudFormation, not verify's resolver).
With a member baseline the faults go into the member account (the StackSet's instance), where ``verify
--stackset-member`` must see them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from landing_zone.assembly import Assembly, Resource
from tests.e2e.accounts import NAME, Run

ALLOW_ALL = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*"}],
}


def _one(assembly: Assembly, what: str, resource_type: str, match: Callable[[Resource], bool]) -> Resource:
    found = [r for r in assembly.resources(resource_type) if match(r)]
    if len(found) != 1:
        raise AssertionError(f"{what}: {len(found)} {resource_type} in the assembly match")
    return found[0]


def _endpoint(assembly: Assembly, service: str) -> Resource:
    def is_it(r: Resource) -> bool:
        tags = {t["Key"]: t["Value"] for t in r.prop("Tags", []) if isinstance(t.get("Value"), str)}
        return tags.get("bedrock-endpoint-service") == service

    return _one(assembly, f"the {service} endpoint", "AWS::EC2::VPCEndpoint", is_it)


def _alias_target(assembly: Assembly, alias: str) -> Resource:
    found = _one(assembly, alias, "AWS::KMS::Alias", lambda r: r.prop("AliasName") == alias)
    target = found.prop("TargetKeyId")
    logical = target["Fn::GetAtt"][0] if "Fn::GetAtt" in target else target["Ref"]
    key = found.stack.resource(logical)
    assert key is not None, alias
    return key


def workload_view(run: Run) -> Assembly:
    """Where the workload lives: the member template (member baseline) or the assembly's own stacks."""
    return run.assembly.member_view() if run.assembly.members else run.assembly


def inject_faults(run: Run) -> list[dict[str, str]]:  # noqa: PLR0915 - eight faults, one after the other
    """Returns what verify must report: ``check`` and the start of the row's ``resource``."""
    assembly = workload_view(run)
    faults: list[dict[str, str]] = []

    def fault(what: str, check: str, resource: str, confirmed: bool, shown: str) -> None:
        print(f"{'ok  ' if confirmed else 'FAIL'} injected {what}: {shown}")
        faults.append({"fault": what, "check": check, "resource": resource, "confirmed": str(confirmed)})

    # 1. endpoint policy: the runtime endpoint opened to every principal and action
    res = _endpoint(assembly, "bedrock-runtime")
    ec2 = run.client("ec2", res.stack)
    runtime = run.physical_id(res)
    ec2.modify_vpc_endpoint(VpcEndpointId=runtime, PolicyDocument=json.dumps(ALLOW_ALL))
    live = ec2.describe_vpc_endpoints(VpcEndpointIds=[runtime])["VpcEndpoints"][0]["PolicyDocument"]
    fault("endpoint policy allow-all", "vpc-endpoint-policy", "bedrock-runtime", '"*"' in live, runtime)
    # 2. key policy: the logs key usable by anyone
    alias = f"alias/{NAME}/logs"
    key = _alias_target(assembly, alias)
    kms = run.client("kms", key.stack)
    key_id = run.physical_id(key)
    policy = json.loads(kms.get_key_policy(KeyId=key_id, PolicyName="default")["Policy"])
    policy["Statement"].append(
        {"Sid": "E2eFault", "Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "kms:Decrypt", "Resource": "*"}
    )
    kms.put_key_policy(KeyId=key_id, PolicyName="default", Policy=json.dumps(policy))
    live = kms.get_key_policy(KeyId=key_id, PolicyName="default")["Policy"]
    fault("key policy grants kms:Decrypt to *", "kms-policy", alias, "E2eFault" in live, key_id)
    # 3. permissions boundary removed from the invoker role
    role = _one(
        assembly,
        "the invoker role",
        "AWS::IAM::Role",
        lambda r: bool(r.prop("PermissionsBoundary")) and str(r.prop("RoleName", "")).startswith(f"{NAME}-invoker-"),
    )
    iam = run.client("iam", role.stack)
    role_name = str(role.prop("RoleName"))
    iam.delete_role_permissions_boundary(RoleName=role_name)
    live_role = iam.get_role(RoleName=role_name)["Role"]
    confirmed = "PermissionsBoundary" not in live_role
    fault("permissions boundary removed", "iam-role-boundary", role_name, confirmed, role_name)
    # 4. bucket policy: the invocation-log bucket readable by anyone
    res = _one(
        assembly,
        "the invocation-log bucket",
        "AWS::S3::Bucket",
        lambda r: "invocation-logs" in json.dumps(r.prop("BucketName", "")),
    )
    s3 = run.client("s3", res.stack)
    bucket = run.physical_id(res)
    bucket_policy = json.loads(s3.get_bucket_policy(Bucket=bucket)["Policy"])
    bucket_policy["Statement"].append(
        {
            "Sid": "E2eFault",
            "Effect": "Allow",
            "Principal": "*",
            "Action": "s3:GetObject",
            "Resource": f"arn:aws:s3:::{bucket}/*",
        }
    )
    s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps(bucket_policy))
    live = s3.get_bucket_policy(Bucket=bucket)["Policy"]
    fault("bucket policy allows s3:GetObject to *", "s3-bucket-policy", bucket, "E2eFault" in live, bucket)
    # 5. security-group rule: the endpoints' group open to the internet
    res = _one(assembly, "the endpoint security group", "AWS::EC2::SecurityGroup", lambda r: True)
    ec2 = run.client("ec2", res.stack)
    group = run.physical_id(res)
    ec2.authorize_security_group_ingress(
        GroupId=group,
        IpPermissions=[{"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}],
    )
    ranges = [
        r["CidrIp"]
        for p in ec2.describe_security_groups(GroupIds=[group])["SecurityGroups"][0]["IpPermissions"]
        for r in p.get("IpRanges", [])
    ]
    fault("ingress 443 from 0.0.0.0/0", "security-group-ingress", group, "0.0.0.0/0" in ranges, group)
    # 6. the landing-zone tag (the SCPs' key) removed from the bedrock endpoint
    res = _endpoint(assembly, "bedrock")
    ec2 = run.client("ec2", res.stack)
    endpoint = run.physical_id(res)
    ec2.delete_tags(Resources=[endpoint], Tags=[{"Key": "landing-zone"}])
    tags = ec2.describe_tags(Filters=[{"Name": "resource-id", "Values": [endpoint]}])["Tags"]
    fault("landing-zone tag removed", "tags", endpoint, all(t["Key"] != "landing-zone" for t in tags), endpoint)
    # 7. termination protection off on the keys stack (a StackSet's instance stack has none to turn off)
    if not key.stack.stack_set:
        cfn = run.client("cloudformation", key.stack)
        keys_stack = key.stack.name
        cfn.update_termination_protection(StackName=keys_stack, EnableTerminationProtection=False)
        protected = cfn.describe_stacks(StackName=keys_stack)["Stacks"][0].get("EnableTerminationProtection")
        fault("termination protection off", "stack-termination-protection", keys_stack, protected is False, keys_stack)
    # 8. a detection rule disabled (the variants with the detection stacks): it would alert nothing
    rules = [r for r in assembly.resources("AWS::Events::Rule") if r.stack.name == f"{NAME}-detection"]
    if rules:
        rule = rules[0]
        name = str(rule.prop("Name"))
        events = run.client("events", rule.stack)
        events.disable_rule(Name=name)
        state = events.describe_rule(Name=name)["State"]
        fault("detection rule disabled", "events-rule", f"rule {name}", state == "DISABLED", name)
    return faults


def cmd_inject(run_dir: str) -> int:
    run = Run(run_dir)
    faults = inject_faults(run)
    (run.dir / "faults.json").write_text(json.dumps(faults, indent=1))
    failures = [f"{f['fault']}: not confirmed by the read-back" for f in faults if f["confirmed"] != "True"]
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


def cmd_detected(clean: str, faulted: str, state: str) -> int:
    """Every injected fault is a DRIFT or MISSING row of its check, and nothing else changed: the rows that
    passed before the faults and fail after them are exactly the faults'."""
    before = {(r["check"], r["resource"]): r["status"] for r in json.loads(Path(clean).read_text())["checks"]}
    rows = json.loads(Path(faulted).read_text())["checks"]
    newly = [r for r in rows if r["status"] != "PASS" and before.get((r["check"], r["resource"])) == "PASS"]
    faults = json.loads(Path(state).read_text())
    failures = []
    claimed: set[int] = set()
    for f in faults:
        hits = [
            i
            for i, r in enumerate(newly)
            if r["check"] == f["check"]
            and r["resource"].startswith(f["resource"])
            and r["status"] in ("DRIFT", "MISSING")
        ]
        shown = (
            f"{newly[hits[0]]['status']} {newly[hits[0]]['check']} {newly[hits[0]]['resource']}"
            if hits
            else "NOT DETECTED"
        )
        print(f"{'ok  ' if hits else 'FAIL'} {f['fault']}: {shown}")
        if not hits:
            failures.append(f"{f['fault']}: no DRIFT/MISSING {f['check']} row for {f['resource']}")
        claimed.update(hits)
    for i, r in enumerate(newly):
        if i not in claimed:
            failures.append(
                f"a row no fault explains stopped passing: {r['status']} {r['check']} {r['resource']}: {r['actual']}"
            )
    print(f"detected {len(faults) - sum(1 for f in failures if 'no DRIFT' in f)} of {len(faults)} faults")
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0
