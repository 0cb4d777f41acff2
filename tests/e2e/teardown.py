"""Removal and what it leaves behind (``e2e_check inventory`` / ``snapshot`` / ``detached`` / ``retained``).

Each account is inventoried after its CDK bootstrap and before the first deployment (``inventory-before.json``),
the resources the templates retain (``DeletionPolicy: Retain``) are recorded with their physical IDs before the
removal (``retained.json``), and after the removal the account must hold exactly what it held before plus those
retained resources: a left-over that no template retains fails, and so does anything of the account's own that
the removal deleted.  docs/DEPLOY.md ("Remove the landing zone") lists the retained kinds; tests/unit/test_docs.py
checks that list against the templates.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from tests.e2e.accounts import ACCOUNTS, Run, client

Inventory = dict[str, list[str]]  # resource type -> sorted physical IDs


def _pages(call: Callable[..., Any], key: str, **kwargs: Any) -> Iterable[Any]:
    token_in, token_out = ("NextToken", "NextToken")
    while True:
        page = call(**kwargs)
        yield from page.get(key, [])
        token = page.get(token_out)
        if not token:
            return
        kwargs[token_in] = token


# The AWS managed key S3 creates for SSE-KMS without a key ID (the CDK bootstrap bucket's encryption) is
# KeyManager AWS on AWS; the emulator creates it as a customer key with AWS's description.  Emulator gap, docs/E2E.md.
AWS_MANAGED_DESCRIPTION = re.compile(r"^Default (master )?key that protects my .+ when no other key is defined$")


def _keys(account: str) -> list[str]:
    kms = client("kms", account)
    out = []
    for key in _pages(kms.list_keys, "Keys"):
        meta = kms.describe_key(KeyId=key["KeyId"])["KeyMetadata"]
        if meta.get("KeyManager") != "CUSTOMER" or AWS_MANAGED_DESCRIPTION.match(meta.get("Description") or ""):
            continue
        if meta["KeyState"] not in ("PendingDeletion", "PendingReplicaDeletion"):
            out.append(meta["KeyId"])
    return out


def inventory(account: str) -> Inventory:
    """What the account holds of every resource type the landing zone deploys and the emulator creates."""
    ec2, iam, cfn = client("ec2", account), client("iam", account), client("cloudformation", account)
    logs, s3, sns, cw = (client(s, account) for s in ("logs", "s3", "sns", "cloudwatch"))
    kms = client("kms", account)
    vpcs = [v for v in ec2.describe_vpcs()["Vpcs"] if not v.get("IsDefault")]
    own_vpcs = {v["VpcId"] for v in vpcs}
    found: dict[str, Iterable[str]] = {
        "AWS::KMS::Key": _keys(account),
        "AWS::KMS::Alias": (
            a["AliasName"] for a in kms.list_aliases()["Aliases"] if not a["AliasName"].startswith("alias/aws/")
        ),
        "AWS::Logs::LogGroup": (g["logGroupName"] for g in logs.describe_log_groups()["logGroups"]),
        "AWS::S3::Bucket": (b["Name"] for b in s3.list_buckets()["Buckets"]),
        "AWS::IAM::Role": (r["RoleName"] for r in iam.list_roles()["Roles"]),
        "AWS::IAM::ManagedPolicy": (p["PolicyName"] for p in iam.list_policies(Scope="Local")["Policies"]),
        "AWS::SNS::Topic": (t["TopicArn"] for t in sns.list_topics()["Topics"]),
        "AWS::CloudWatch::Alarm": (a["AlarmName"] for a in cw.describe_alarms()["MetricAlarms"]),
        "AWS::EC2::VPC": own_vpcs,
        "AWS::EC2::Subnet": (s["SubnetId"] for s in ec2.describe_subnets()["Subnets"] if s["VpcId"] in own_vpcs),
        "AWS::EC2::SecurityGroup": (
            g["GroupId"] for g in ec2.describe_security_groups()["SecurityGroups"] if g["GroupName"] != "default"
        ),
        "AWS::EC2::VPCEndpoint": (  # a deleted endpoint stays listed a while, in state "deleted" (as on AWS)
            e["VpcEndpointId"] for e in ec2.describe_vpc_endpoints()["VpcEndpoints"] if e["State"].lower() != "deleted"
        ),
        "AWS::EC2::FlowLog": (f["FlowLogId"] for f in ec2.describe_flow_logs()["FlowLogs"]),
        "AWS::CloudFormation::Stack": (
            s["StackName"] for s in cfn.list_stacks()["StackSummaries"] if s["StackStatus"] != "DELETE_COMPLETE"
        ),
        "AWS::CloudFormation::StackSet": (s["StackSetName"] for s in cfn.list_stack_sets()["Summaries"]),
    }
    return {kind: sorted(set(ids)) for kind, ids in found.items()}


def cmd_inventory(run_dir: str, out: str) -> int:
    run = Run(run_dir)
    data = {account: inventory(account) for account in sorted(set(run.accounts.values()))}
    Path(out).write_text(json.dumps(data, indent=1))
    failures = []
    for account, kinds in data.items():
        shown = ", ".join(f"{len(ids)} {kind.split('::')[-1]}" for kind, ids in kinds.items() if ids)
        print(f"{run.label(account)} {account}: {shown or 'nothing'}")
        # The bootstrap is the landing zone's own toolkit stack (cdk.json toolkitStackName, the deploy plan's
        # --toolkit-stack-name): the company's default CDKToolkit stack is never created nor re-parameterised.
        if "CDKToolkit" in kinds["AWS::CloudFormation::Stack"]:
            failures.append(
                f"{run.label(account)} {account}: a CDKToolkit stack exists after the deploy plan's bootstrap"
            )
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


def cmd_snapshot(run_dir: str) -> int:
    """Before the removal: every retained resource of every deployed template, by account, type and physical ID."""
    run = Run(run_dir)
    keep: dict[str, dict[str, list[str]]] = {}
    for where in run.deployments():
        for res in where.stack.resources():
            if where.stack.resource_map[res.logical_id].get("DeletionPolicy") != "Retain":
                continue
            physical = run.physical_id(res)
            keep.setdefault(where.account, {}).setdefault(res.type, []).append(physical)
            print(f"retained by {where.name} ({run.label(where.account)}): {res.type} {physical}")
    (run.dir / "retained.json").write_text(json.dumps(keep, indent=1, sort_keys=True))
    return 0 if keep else 1


def cmd_detached(run_dir: str) -> int:
    """After the removal's first step: the guardrails stack is updated and none of its Organizations policies has a
    target left (the template CloudFormation now holds, read back from the management account)."""
    run = Run(run_dir)
    failures = []
    for stack in run.assembly.stacks:
        if not stack.resources("AWS::Organizations::Policy"):
            continue
        cfn = client("cloudformation", ACCOUNTS["management"])
        status = cfn.describe_stacks(StackName=stack.name)["Stacks"][0]["StackStatus"]
        body = cfn.get_template(StackName=stack.name)["TemplateBody"]
        template = json.loads(body) if isinstance(body, str) else body
        for logical_id, res in template["Resources"].items():
            if res["Type"] != "AWS::Organizations::Policy":
                continue
            targets = res["Properties"].get("TargetIds")
            before = stack.resource_map[logical_id]["Properties"].get("TargetIds")
            print(f"{stack.name} {logical_id}: targets {before} -> {targets} ({status})")
            if targets != [] or status not in ("UPDATE_COMPLETE",):
                failures.append(f"{stack.name} {logical_id}: {targets} ({status})")
    for failure in failures:
        print(f"FAIL still attached: {failure}")
    return 1 if failures else 0


def _about(kind: str, physical: str, account: str) -> str:
    """What a left-over is, where the ID alone does not say."""
    if kind == "AWS::KMS::Key":
        meta = client("kms", account).describe_key(KeyId=physical)["KeyMetadata"]
        return f" ({meta.get('Description')!r}, created {meta.get('CreationDate')})"
    if kind == "AWS::EC2::VPCEndpoint":
        found = client("ec2", account).describe_vpc_endpoints(VpcEndpointIds=[physical])["VpcEndpoints"]
        return f" ({found[0].get('ServiceName')}, {found[0].get('State')})" if found else ""
    return ""


def cmd_retained(run_dir: str, before_file: str) -> int:
    """After the removal: each account holds what it held before the first deployment, plus exactly the retained
    resources (module docstring)."""
    run = Run(run_dir)
    before: dict[str, Inventory] = json.loads(Path(before_file).read_text())
    keep: dict[str, dict[str, list[str]]] = json.loads((run.dir / "retained.json").read_text())
    failures = []
    for account in sorted(before):
        after = inventory(account)
        label = run.label(account)
        for kind in sorted(after):
            was, now = set(before[account].get(kind, [])), set(after[kind])
            expected = set(keep.get(account, {}).get(kind, []))
            left = now - was
            for physical in sorted(left - expected):
                failures.append(
                    f"{label}: {kind} {physical} is left, and no template retains it{_about(kind, physical, account)}"
                )
            for physical in sorted(expected - now):
                failures.append(f"{label}: {kind} {physical} is retained by its template, but gone")
            for physical in sorted(was - now):
                failures.append(f"{label}: {kind} {physical} existed before the landing zone and is gone")
            if left & expected:
                print(f"{label} {account}: {kind.split('::')[-1]} retained: {', '.join(sorted(left & expected))}")
        for kind in sorted(set(keep.get(account, {})) - set(after)):
            failures.append(f"{label}: {kind} is retained by a template, but not inventoried (teardown.inventory)")
        stacks = [
            s for s in after["AWS::CloudFormation::Stack"] if s not in before[account]["AWS::CloudFormation::Stack"]
        ]
        print(f"{label} {account}: stacks left besides the bootstrap: {stacks or 'none'}")
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0
