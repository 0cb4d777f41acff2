"""How many calls one verify run makes (collect once, evaluate many): what a service can list in one call is listed
once per run and every item is looked up in the listing, so a run against a real account asks less and is throttled
less.  One run of the EU example against its deployment in moto, every botocore call counted; the rows themselves are
pinned by the other tests of verify (the answers do not change, only how often AWS is asked)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
import botocore.client
import pytest
from botocore.exceptions import ClientError

from landing_zone.assembly import Assembly, Stack
from landing_zone.verify.checks.tags import EC2_TYPES
from landing_zone.verify.compare import Unresolved
from landing_zone.verify.live import Live, Resolver
from tests.moto.conftest import Calls
from tests.moto.harness import Deployed

pytestmark = pytest.mark.moto


def fail_operation(
    monkeypatch: pytest.MonkeyPatch, operation: str, when: Callable[[Any, dict[str, Any]], bool]
) -> list[dict[str, Any]]:
    """``operation`` answers InternalFailure (no answer) when ``when(client, params)`` holds; the parameters of each
    call so refused are appended to the list returned."""
    make = botocore.client.BaseClient._make_api_call
    refused: list[dict[str, Any]] = []

    def failing(self: Any, name: str, params: dict[str, Any]) -> Any:
        if name == operation and when(self, params):
            refused.append(params)
            error: Any = {
                "Error": {"Code": "InternalFailure", "Message": "injected"},
                "ResponseMetadata": {"HTTPStatusCode": 500},
            }
            raise ClientError(error, name)
        return make(self, name, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", failing)
    return refused


def _run(cli: Callable, verify_args: Callable) -> list[dict[str, Any]]:
    code, stdout, _ = cli(verify_args("--json"))
    assert code == 0
    return list(json.loads(stdout)["checks"])


def test_event_rules_are_listed_once_per_account_region_and_bus(
    deployed: Deployed, cli, verify_args, counted: Calls
) -> None:
    rules = deployed.assembly.resources("AWS::Events::Rule")
    buses = {(r.stack.account, r.stack.region, json.dumps(r.prop("EventBusName", "default"))) for r in rules}
    assert len(rules) > len(buses) > 1  # several rules share a bus; the rules are in more than one account/Region
    _run(cli, verify_args)
    assert counted[("events", "DescribeRule")] == 0
    assert counted[("events", "ListRules")] == len(buses)
    assert counted[("events", "ListTargetsByRule")] == len(rules)  # no bulk API for targets


def test_a_stacks_physical_ids_are_listed_once_per_stack(deployed: Deployed, cli, verify_args, counted: Calls) -> None:
    _run(cli, verify_args)
    assert counted[("cloudformation", "DescribeStackResource")] == 0
    assert 0 < counted[("cloudformation", "ListStackResources")] <= len(deployed.assembly.stacks)


def test_a_resource_or_stack_cloudformation_does_not_know_is_unresolved_as_before(
    aws_mock: None, counted: Calls
) -> None:
    """One ListStackResources answers every resource of a stack; a resource it does not list, and every resource of a
    stack that does not exist, is unresolved with the message DescribeStackResource gave (the stack is asked once)."""
    region = "eu-central-1"
    resources = {"Topic": {"Type": "AWS::SNS::Topic"}, "Queue": {"Type": "AWS::SQS::Queue"}}
    boto3.client("cloudformation", region_name=region).create_stack(
        StackName="calls", TemplateBody=json.dumps({"Resources": resources})
    )
    intent = {"Resources": {**resources, "Gone": {"Type": "AWS::SNS::Topic"}}}
    deployed, absent = (Stack(name, f"{name}.template.json", None, region, intent) for name in ("calls", "absent"))
    live = Live(profile=None, management_profile=None, region=region)
    resolver = Resolver(Assembly(Path("."), (deployed, absent)), live, region_of=lambda _stack: region)
    counted.clear()

    def physical(stack: Stack, logical_id: str) -> str | Unresolved:
        res = stack.resource(logical_id)
        assert res is not None
        return resolver.cloudformation_physical_id(res)

    topic, queue = physical(deployed, "Topic"), physical(deployed, "Queue")
    assert isinstance(topic, str) and topic.startswith(f"arn:aws:sns:{region}:") and isinstance(queue, str)
    gone = physical(deployed, "Gone")
    assert isinstance(gone, Unresolved)
    assert gone.why == "calls/Gone: CloudFormation: Resource Gone does not exist for stack calls"
    for logical_id in resources:
        missing = physical(absent, logical_id)
        assert isinstance(missing, Unresolved)
        assert missing.why == f"absent/{logical_id}: CloudFormation: Stack with id absent does not exist"
    assert counted == {("cloudformation", "ListStackResources"): 2}


def test_a_roles_tags_come_from_the_get_role_the_iam_family_made(
    deployed: Deployed, cli, verify_args, counted: Calls
) -> None:
    rows = _run(cli, verify_args)
    roles = [r["source"] for r in rows if r["check"] == "iam-role"]  # one row per role (in its own account)
    assert roles and {r["source"] for r in rows if r["check"] == "tags"} >= set(roles)
    assert counted[("iam", "ListRoleTags")] == 0
    assert counted[("iam", "GetRole")] == len(roles)  # once per role, for the iam and the tags families


def test_a_role_that_lost_its_landing_zone_tag_is_drift(deployed: Deployed, cli, verify_args) -> None:
    """The tags read from the one GetRole per role are the live ones: a tag removed after deployment shows."""
    name = next(
        res.prop("RoleName")
        for res in deployed.assembly.resources("AWS::IAM::Role")
        if isinstance(res.prop("RoleName"), str)
        and res.stack.account != "444444444444"  # examples/eu-sovereign.yaml's management account
        and {"Key": "landing-zone", "Value": "kimi-eu"} in (res.prop("Tags") or [])
    )
    deployed.client("iam").untag_role(RoleName=name, TagKeys=["landing-zone"])
    code, stdout, _ = cli(verify_args("--json"))
    bad = [r for r in json.loads(stdout)["checks"] if r["status"] != "PASS"]
    assert code == 1
    assert [(r["check"], r["status"], r["resource"], r["actual"]) for r in bad] == [
        ("tags", "DRIFT", f"{name} (Role)", "no landing-zone")
    ]
    assert f"aws iam tag-role --role-name {name} --tags Key=landing-zone,Value=kimi-eu" in bad[0]["detail"]


def test_ec2_tags_are_described_once_per_account_and_region(
    deployed: Deployed, cli, verify_args, counted: Calls
) -> None:
    rows = _run(cli, verify_args)
    ec2 = [r for r in rows if r["check"] == "tags" and r["resource"].startswith(("vpc-", "subnet-", "rtb-", "sg-"))]
    places = {(r.stack.account, r.stack.region) for r in deployed.assembly.resources(*EC2_TYPES)}
    assert len(ec2) > len(places) == 1
    assert counted[("ec2", "DescribeTags")] == len(places)


def test_ec2_tags_that_cannot_be_described_are_an_error_for_each_ec2_resource(
    deployed: Deployed, cli, verify_args, monkeypatch: pytest.MonkeyPatch
) -> None:
    refused = fail_operation(monkeypatch, "DescribeTags", lambda _client, _params: True)
    code, stdout, _ = cli(verify_args("--json"))
    tags = [r for r in json.loads(stdout)["checks"] if r["check"] == "tags"]
    errors = [r for r in tags if r["status"] == "ERROR"]
    assert code == 1 and len(refused) == 1
    assert {r["source"] for r in errors} == {r.path for r in deployed.assembly.resources(*EC2_TYPES) if r.prop("Tags")}
    assert {r["actual"] for r in errors} == {"no answer: InternalFailure"}
    assert all(r["status"] == "PASS" for r in tags if r not in errors)
