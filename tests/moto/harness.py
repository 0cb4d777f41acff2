"""Deploy the landing zone's intent into moto, and the client factory that verify uses against it.

``deploy_intent(assembly, plan, accounts)`` creates, with plain boto3 calls against moto, what the stacks of a
synthesized assembly describe: Organizations (root/OUs/accounts with the configured IDs) + the SCPs exactly as
synthesized and attached; KMS keys (policy, rotation, aliases); the VPC, subnets, security groups and the
interface endpoints (policy, private DNS, tags) and the VPC flow log; log groups (KMS, retention); SNS topics,
their policies and subscriptions; one moto CloudFormation stack per stack of the assembly, named like it and in its
account (``CREATE_COMPLETE``; it creates the S3 buckets and the roles without a literal name, so their generated
names are on record as in a real deployment, and carries the template's outputs with their live values); IAM
customer-managed policies and roles (trust policy, permissions boundary, attached and inline policies); the
buckets' encryption, versioning, public access block, ownership, policy, lifecycle and access logging; model
invocation logging; budgets with notifications; CloudWatch alarms; EKS clusters/node groups with launch templates;
StackSets.  Template parameters take their defaults or the values given (a StackSet member's overrides); resources
whose template Condition is false are not created.

What moto does not implement is kept in :class:`FakeServices` and answered by botocore ``Stubber`` s with
exact request parameters (:class:`MotoAccounts.factory`, one Stubber per operation): Bedrock application inference
profiles (ListInferenceProfiles/GetInferenceProfile/ListTagsForResource), guardrails
(ListGuardrails/GetGuardrail/ListEnforcedGuardrailsConfiguration) and model agreements
(GetFoundationModelAvailability), Budgets subscribers and budget actions
(DescribeSubscribersForNotification/DescribeBudgetActionsForBudget), Cost Anomaly Detection
(GetAnomalyMonitors/GetAnomalySubscriptions), cost allocation tags (ListCostAllocationTags: every key Active),
the instances of a SERVICE_MANAGED StackSet (ListStackInstances:
moto keeps the stack set but never resolves its OU targets).
"""

from __future__ import annotations

import copy
import functools
import json
import os
import re
import uuid
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

import boto3
import moto.core.responses as moto_responses
from botocore.stub import Stubber

from landing_zone.assembly import Assembly, Resource, Stack
from landing_zone.verify.checks.stacks import synthesized_termination_protection

PROFILE_TYPE = "AWS::Bedrock::ApplicationInferenceProfile"
MANTLE_PROJECT_TYPE = "AWS::BedrockMantle::Project"
GUARDRAIL_TYPE = "AWS::Bedrock::Guardrail"
GUARDRAIL_VERSION_TYPE = "AWS::Bedrock::GuardrailVersion"
ENFORCEMENT_TYPE = "AWS::Bedrock::EnforcedGuardrailConfiguration"
AGREEMENTS_TYPE = "Custom::BedrockModelAgreements"
PROFILE_PREFIXES = ("us", "eu", "apac", "jp", "au", "ca", "us-gov", "global")

# Operations moto 5.2.5 lacks, per service: answered by a Stubber, everything else by moto.
STUBBED_OPERATIONS = {
    "bedrock": {
        "list_inference_profiles",
        "get_inference_profile",
        "list_tags_for_resource",
        "list_guardrails",
        "get_guardrail",
        "list_enforced_guardrails_configuration",
        "get_foundation_model_availability",
        "get_account_data_retention",
    },
    "budgets": {"describe_subscribers_for_notification", "describe_budget_actions_for_budget"},
    "ce": {"get_anomaly_monitors", "get_anomaly_subscriptions", "list_cost_allocation_tags"},
    # moto keeps SERVICE_MANAGED stack sets but never resolves their OU targets to instances
    "cloudformation": {"list_stack_instances"},
    # verify's network-path family (DNS Firewall associations, VPC Lattice resource gateways)
    "route53resolver": {"list_firewall_rule_group_associations"},
    "vpc-lattice": {"list_resource_gateways"},
}
MANAGEMENT_PROFILE = "management"

# One boto3 session for every test client: its loader keeps the parsed service models (mock_aws resets boto3's
# default session, which would reload them for every test).  Credentials are the fake ones from tests/conftest.
_SESSION = boto3.session.Session()

# Creating a botocore client costs milliseconds (ec2: ~15 ms: a class with a method per operation, the session's
# event handlers copied, a cold endpoint-rule cache), and a verify run asks for about fifty.  The clients are kept per
# worker and reused by every test: a moto client per (service, Region, account), whose requests moto answers from
# whatever state the current mock holds (moto's handler is one of the session's built-in ones, switched on and off
# by mock_aws); and a pool of clients for the Stubbers, leased to one test's MotoAccounts and returned, their
# Stubbers deactivated, when the test's mock ends (release_stub_clients, from the aws_mock fixture).  Nothing else is
# kept on a client.  A client reads its configuration from the environment when it is made (AWS_ENDPOINT_URL, ...):
# the AWS_ variables are part of the key, so a test that sets them gets clients of its own.
_MOTO_CLIENTS: dict[tuple, Any] = {}
_FREE_STUB_CLIENTS: dict[tuple, list[Any]] = {}
_LEASING: list[MotoAccounts] = []

# moto 5.2.5 lists a response class's methods (inspect.getmembers) on every request it answers, to tell whether the
# action is implemented: about a tenth of moto's time here.  A class's methods do not change during a run, so the
# answer is kept per class.
if hasattr(moto_responses, "method_names_from_class"):
    moto_responses.method_names_from_class = functools.cache(moto_responses.method_names_from_class)


def new_client(service: str, region: str) -> Any:
    return _SESSION.client(service, region_name=region)


def _aws_environment() -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("AWS_")))


def moto_client(service: str, region: str, account: str) -> Any:
    """The worker's moto client for ``service`` in ``region`` acting as ``account`` (``x-moto-account-id``)."""
    key = (service, region, account, _aws_environment())
    if key not in _MOTO_CLIENTS:
        client = new_client(service, region)

        def set_account(request: Any, **_: Any) -> None:
            request.headers["x-moto-account-id"] = account

        client.meta.events.register("before-sign.*.*", set_account)
        _MOTO_CLIENTS[key] = client
    return _MOTO_CLIENTS[key]


def release_stub_clients() -> None:
    """End of a test: every Stubber of its factories deactivated, their clients back in the worker's pool."""
    while _LEASING:
        _LEASING.pop().release()


# --------------------------------------------------------------------------------------------------
# Clients: one moto "account" per profile, and the Stubber-routed clients verify gets
# --------------------------------------------------------------------------------------------------


class Routed:
    """A moto client whose operations in ``stubbed`` are answered by a stubbed twin each (botocore Stubber)."""

    def __init__(self, moto_client: Any, stubbed: dict[str, Any]) -> None:
        self._moto, self._stubbed = moto_client, stubbed

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stubbed.get(name, self._moto), name)

    def get_paginator(self, operation: str) -> Any:
        return self._stubbed.get(operation, self._moto).get_paginator(operation)

    def can_paginate(self, operation: str) -> bool:
        return bool(self._stubbed.get(operation, self._moto).can_paginate(operation))


class OpStubbers:
    """One Stubber per operation, so that only the order of calls to the same operation matters (the families of
    verify call a service's operations interleaved)."""

    def __init__(self, stubbers: dict[str, Stubber], errors: dict[str, tuple[str, int]] | None = None) -> None:
        self.stubbers = stubbers
        self.errors = errors or {}

    def add_response(self, operation: str, response: dict, expected_params: dict | None = None) -> None:
        if operation in self.errors:  # FakeServices.errors: the service fails this operation
            code, status = self.errors[operation]
            self.stubbers[operation].add_client_error(operation, code, f"{code} (stubbed)", status, expected_params)
            return
        self.stubbers[operation].add_response(operation, response, expected_params)

    def add_client_error(self, operation: str, *args: Any, **kwargs: Any) -> None:
        self.stubbers[operation].add_client_error(operation, *args, **kwargs)


@dataclass
class FakeServices:
    """State of the APIs moto lacks, as the deployed landing zone would show it."""

    profiles: dict[str, list[dict]] = field(default_factory=dict)  # region -> profiles
    budget_subscribers: dict[tuple[str, tuple], list[dict]] = field(default_factory=dict)
    budget_actions: dict[str, list[dict]] = field(default_factory=dict)
    anomaly_monitors: list[dict] = field(default_factory=list)
    anomaly_subscriptions: list[dict] = field(default_factory=list)
    stack_instances: dict[str, list[dict]] = field(default_factory=dict)  # stack set -> instance summaries
    guardrails: dict[str, list[dict]] = field(default_factory=dict)  # region -> guardrails (see _guardrails)
    enforced_guardrails: dict[str, list[dict]] = field(default_factory=dict)  # region -> account enforcement
    agreements: dict[tuple[str, str], str] = field(default_factory=dict)  # (region, model ID) -> agreement status
    data_retention: dict[str, str] = field(default_factory=dict)  # region -> the account's data retention mode
    # operation -> (error code, HTTP status) every stubbed call of it answers with, e.g. an emulator's
    # ("InternalFailure", 500) or ("NotImplemented", 501)
    errors: dict[str, tuple[str, int]] = field(default_factory=dict)

    def profile(self, name: str) -> dict | None:
        return next((p for ps in self.profiles.values() for p in ps if p["inferenceProfileName"] == name), None)

    def guardrail(self, name: str) -> dict | None:
        return next((g for gs in self.guardrails.values() for g in gs if g["name"] == name), None)


def notification_key(n: dict) -> tuple:
    return (
        n.get("NotificationType"),
        n.get("ComparisonOperator"),
        float(n.get("Threshold")),
        n.get("ThresholdType", "PERCENTAGE"),
    )


class MotoAccounts:
    """boto3 clients against moto, one account per profile (``x-moto-account-id`` header)."""

    def __init__(self, accounts: dict[str | None, str], default_region: str) -> None:
        self.accounts = accounts
        self.default_region = default_region
        self.stubbers: list[Stubber] = []
        self._leased: list[tuple[tuple, Any]] = []

    def raw(self, service: str, region: str | None = None, profile: str | None = None) -> Any:
        """A moto-backed client acting as the profile's account (the worker's: creating botocore clients is slow)."""
        return moto_client(service, region or self.default_region, self.accounts.get(profile, self.accounts[None]))

    def _stub_client(self, service: str, region: str) -> Any:
        """A client for one Stubber, from the worker's pool (no Stubber active on it) or new; leased until
        :meth:`release`."""
        key = (service, region, _aws_environment())
        free = _FREE_STUB_CLIENTS.get(key)
        client = free.pop() if free else new_client(service, region)
        if not self._leased:
            _LEASING.append(self)
        self._leased.append((key, client))
        return client

    def release(self) -> None:
        """Deactivate this account set's Stubbers and return their clients to the worker's pool (at the end of the
        test: its Stubbers' queues are not read again)."""
        for stubber in self.stubbers:
            stubber.deactivate()
        self.stubbers.clear()
        for key, client in self._leased:
            _FREE_STUB_CLIENTS.setdefault(key, []).append(client)
        self._leased.clear()

    def factory(self, assembly: Assembly, fake: FakeServices) -> Callable[..., Any]:
        """The client factory for :func:`landing_zone.aws.use_client_factory`."""

        def make(service: str, *, region: str | None = None, profile: str | None = None) -> Any:
            moto_client = self.raw(service, region, profile)
            ops = STUBBED_OPERATIONS.get(service)
            if not ops:
                return moto_client
            stubbed = {op: self._stub_client(service, region or self.default_region) for op in sorted(ops)}
            stubbers = {op: Stubber(client) for op, client in stubbed.items()}
            queue = {
                "bedrock": _queue_bedrock,
                "budgets": _queue_budgets,
                "ce": _queue_ce,
                "cloudformation": _queue_cloudformation,
                "route53resolver": _queue_route53resolver,
                "vpc-lattice": _queue_vpc_lattice,
            }[service]
            queue(
                OpStubbers(stubbers, fake.errors),
                assembly,
                fake,
                moto_client,
                region or self.default_region,
                self.accounts.get(profile, self.accounts[None]),
            )
            for stubber in stubbers.values():
                stubber.activate()
                self.stubbers.append(stubber)
            return Routed(moto_client, stubbed)

        return make

    def assert_stubs_consumed(self) -> None:
        for stubber in self.stubbers:
            stubber.assert_no_pending_responses()

    def for_account(self, service: str, region: str | None, account: str | None) -> Any:
        """A moto client acting as ``account`` (the deployment account when None or unknown)."""
        profile = next((p for p, a in self.accounts.items() if a == account and p is not None), None)
        return self.raw(service, region, profile if account and account != self.accounts[None] else None)


# The queues mirror verify's call order (template order), with the exact parameters verify must send.


def _queue_bedrock(
    stubber: OpStubbers, assembly: Assembly, fake: FakeServices, moto_client: Any, region: str, account: str
) -> None:
    _queue_profiles(stubber, assembly, fake, region)
    _queue_guardrails(stubber, assembly, fake, region)
    for res in assembly.resources("Custom::BedrockDataRetention"):
        if (res.stack.region or region) == region:
            stubber.add_response("get_account_data_retention", {"mode": fake.data_retention.get(region, "inherit")}, {})
    for res in assembly.resources(AGREEMENTS_TYPE):
        if (res.stack.region or region) != region:
            continue
        for model in sorted({m.strip() for m in str(res.prop("ModelIds")).split(",") if m.strip()}):
            stubber.add_response(
                "get_foundation_model_availability",
                {
                    "modelId": model,
                    "agreementAvailability": {"status": fake.agreements.get((region, model), "NOT_AVAILABLE")},
                    "authorizationStatus": "AUTHORIZED",
                    "entitlementAvailability": "AVAILABLE",
                    "regionAvailability": "AVAILABLE",
                },
                {"modelId": model},
            )


def _queue_guardrails(stubber: OpStubbers, assembly: Assembly, fake: FakeServices, region: str) -> None:
    def here(kind: str) -> list[Resource]:
        return [r for r in assembly.resources(kind) if (r.stack.region or region) == region]

    guardrails, versions, enforcements = here(GUARDRAIL_TYPE), here(GUARDRAIL_VERSION_TYPE), here(ENFORCEMENT_TYPE)
    live = fake.guardrails.get(region, [])
    if guardrails:
        stubber.add_response("list_guardrails", {"guardrails": [_guardrail_summary(g, "DRAFT") for g in live]}, {})
        if "list_guardrails" in fake.errors:
            return
    found: dict[str, dict] = {}
    for res in guardrails:
        g = next((g for g in live if g["name"] == res.prop("Name")), None)
        if g is not None:
            found[res.path] = g
            stubber.add_response("get_guardrail", _guardrail_response(g, "DRAFT"), {"guardrailIdentifier": g["id"]})
    listed: list[bool] = []

    def list_enforced() -> list[dict]:
        if not listed:
            listed.append(True)
            stubber.add_response(
                "list_enforced_guardrails_configuration",
                {"guardrailsConfig": fake.enforced_guardrails.get(region, [])},
                {},
            )
        return fake.enforced_guardrails.get(region, [])

    for res in versions:  # verify: CloudFormation has no record in moto -> the enforced version -> the newest one
        g = found.get(f"{res.stack.name}/{_target(res, 'GuardrailIdentifier')}")
        if g is not None:
            _queue_guardrail_version(stubber, res, g, enforcements, list_enforced)
    for res in enforcements:
        if f"{res.stack.name}/{_target(res, 'GuardrailIdentifier')}" in found:
            list_enforced()


def _queue_guardrail_version(
    stubber: OpStubbers,
    res: Resource,
    g: dict,
    enforcements: list[Resource],
    list_enforced: Callable[[], list[dict]],
) -> None:
    """The calls verify makes for one guardrail version: the enforced version, else the newest numbered one."""
    version = None
    if any(_target(e, "GuardrailVersion") == res.logical_id for e in enforcements):
        config = next((c for c in list_enforced() if c.get("guardrailId") == g["id"]), None)
        version = config.get("guardrailVersion") if config else None
    if version is None:
        stubber.add_response(
            "list_guardrails",
            {"guardrails": [_guardrail_summary(g, v) for v in ["DRAFT", *g["versions"]]]},
            {"guardrailIdentifier": g["id"]},
        )
        numbered = sorted((int(v) for v in g["versions"]), reverse=True)
        version = str(numbered[0]) if numbered else None
    if version is None:
        return
    params = {"guardrailIdentifier": g["id"], "guardrailVersion": version}
    if version in g["versions"]:
        stubber.add_response("get_guardrail", _guardrail_response(g, version), params)
    else:
        stubber.add_client_error("get_guardrail", "ResourceNotFoundException", "no such version", 404, params)


def _target(res: Resource, prop: str) -> str | None:
    value = res.prop(prop)
    if isinstance(value, dict) and "Fn::GetAtt" in value:
        target = value["Fn::GetAtt"]
        return target.split(".", 1)[0] if isinstance(target, str) else target[0]
    return value.get("Ref") if isinstance(value, dict) else None


def _guardrail_summary(g: dict, version: str) -> dict:
    return {
        "id": g["id"],
        "arn": g["arn"],
        "status": (g["draft"] if version == "DRAFT" else g["versions"][version])["status"],
        "name": g["name"],
        "version": version,
        "createdAt": g["createdAt"],
        "updatedAt": g["createdAt"],
    }


def _guardrail_response(g: dict, version: str) -> dict:
    config = g["draft"] if version == "DRAFT" else g["versions"][version]
    return {
        "name": g["name"],
        "guardrailId": g["id"],
        "guardrailArn": g["arn"],
        "version": version,
        "createdAt": g["createdAt"],
        "updatedAt": g["createdAt"],
        **config,
    }


def _queue_profiles(stubber: OpStubbers, assembly: Assembly, fake: FakeServices, region: str) -> None:
    profiles = [r for r in assembly.resources(PROFILE_TYPE) if (r.stack.region or region) == region]
    if not profiles:
        return
    summaries = [_profile_summary(p) for p in fake.profiles.get(region, [])]
    stubber.add_response(
        "list_inference_profiles", {"inferenceProfileSummaries": summaries}, {"typeEquals": "APPLICATION"}
    )
    if "list_inference_profiles" in fake.errors:
        return  # verify asks nothing more of a Region whose profiles it cannot list
    for res in profiles:
        p = fake.profile(res.prop("InferenceProfileName"))
        if p is None:
            continue
        stubber.add_response(
            "get_inference_profile", _profile_summary(p), {"inferenceProfileIdentifier": p["inferenceProfileArn"]}
        )
        stubber.add_response(
            "list_tags_for_resource",
            {"tags": [{"key": k, "value": v} for k, v in p["tags"].items()]},
            {"resourceARN": p["inferenceProfileArn"]},
        )


def _profile_summary(p: dict) -> dict:
    return {
        k: p[k]
        for k in (
            "inferenceProfileName",
            "inferenceProfileArn",
            "inferenceProfileId",
            "models",
            "status",
            "type",
            "description",
        )
    }


def _queue_budgets(
    stubber: OpStubbers, assembly: Assembly, fake: FakeServices, moto_client: Any, region: str, account: str
) -> None:
    actions = assembly.resources("AWS::Budgets::BudgetsAction")
    for res in assembly.resources("AWS::Budgets::Budget"):
        name = res.prop("Budget.BudgetName")
        try:
            moto_client.describe_budget(AccountId=account, BudgetName=name)
        except moto_client.exceptions.NotFoundException:
            continue
        live = moto_client.describe_notifications_for_budget(AccountId=account, BudgetName=name)["Notifications"]
        for item in res.prop("NotificationsWithSubscribers") or []:
            key = notification_key(item["Notification"])
            match = next((n for n in live if notification_key(n) == key), None)
            if match is None:
                continue
            notification = {
                k: match[k]
                for k in ("NotificationType", "ComparisonOperator", "Threshold", "ThresholdType")
                if k in match
            }
            stubber.add_response(
                "describe_subscribers_for_notification",
                {"Subscribers": fake.budget_subscribers.get((name, key), [])},
                {"AccountId": account, "BudgetName": name, "Notification": notification},
            )
        if any(_action_budget(a) == name for a in actions):
            stubber.add_response(
                "describe_budget_actions_for_budget",
                {"Actions": fake.budget_actions.get(name, [])},
                {"AccountId": account, "BudgetName": name},
            )


def _action_budget(action: Resource) -> Any:
    name = action.prop("BudgetName")
    if isinstance(name, dict) and "Ref" in name:
        budget = action.stack.resource(name["Ref"])
        return budget.prop("Budget.BudgetName") if budget is not None else None
    return name


def _queue_cloudformation(
    stubber: OpStubbers, assembly: Assembly, fake: FakeServices, moto_client: Any, region: str, account: str
) -> None:
    for res in assembly.resources("AWS::CloudFormation::StackSet"):
        name = res.prop("StackSetName")
        try:
            moto_client.describe_stack_set(StackSetName=name)
        except moto_client.exceptions.StackSetNotFoundException:
            continue
        stubber.add_response(
            "list_stack_instances",
            {"Summaries": fake.stack_instances.get(name, [])},
            {"StackSetName": name, **({"CallAs": res.prop("CallAs")} if res.prop("CallAs") else {})},
        )


def _vpc_count(assembly: Assembly, account: str) -> int:
    """The VPCs verify's network-path family asks about: each created one, each imported one (by literal ID)."""
    created = [r for r in assembly.resources("AWS::EC2::VPC") if r.stack.account in (None, account)]
    literal = {
        r.prop("VpcId")
        for r in assembly.resources("AWS::EC2::VPCEndpoint")
        if isinstance(r.prop("VpcId"), str) and r.stack.account in (None, account)
    }
    return len(created) + len(literal)


def _queue_route53resolver(
    stubber: OpStubbers, assembly: Assembly, fake: FakeServices, moto_client: Any, region: str, account: str
) -> None:
    for _ in range(_vpc_count(assembly, account)):  # no DNS Firewall rule group associated (one call per VPC)
        stubber.add_response("list_firewall_rule_group_associations", {"FirewallRuleGroupAssociations": []})


def _queue_vpc_lattice(
    stubber: OpStubbers, assembly: Assembly, fake: FakeServices, moto_client: Any, region: str, account: str
) -> None:
    for _ in range(_vpc_count(assembly, account)):  # no resource gateway anywhere (one call per VPC)
        stubber.add_response("list_resource_gateways", {"items": []}, {})


def _queue_ce(
    stubber: OpStubbers, assembly: Assembly, fake: FakeServices, moto_client: Any, region: str, account: str
) -> None:
    def here(kind: str) -> list[Resource]:  # the resources of this client's account (StackSet members: any)
        return [r for r in assembly.resources(kind) if r.stack.account in (None, account)]

    monitors = here("AWS::CE::AnomalyMonitor")
    subscriptions = here("AWS::CE::AnomalySubscription")
    if monitors or subscriptions:
        stubber.add_response("get_anomaly_monitors", {"AnomalyMonitors": fake.anomaly_monitors}, {})
    if subscriptions:
        stubber.add_response("get_anomaly_subscriptions", {"AnomalySubscriptions": fake.anomaly_subscriptions}, {})
    for res in here("Custom::CostAllocationTags"):  # activated by the custom resource: all Active
        keys = sorted(k for k in str(res.prop("TagKeys")).split(",") if k)
        stubber.add_response(
            "list_cost_allocation_tags",
            {"CostAllocationTags": [{"TagKey": k, "Type": "UserDefined", "Status": "Active"} for k in keys]},
            {"TagKeys": keys, "Type": "UserDefined", "MaxResults": len(keys)},
        )


# --------------------------------------------------------------------------------------------------
# Deploying the intent
# --------------------------------------------------------------------------------------------------


def stack_id(account: str, region: str, stack_name: str) -> str:
    """The ID the deployer gives a stack (deterministic: tests name what it retains with :func:`stack_suffix`)."""
    unique = uuid.uuid5(uuid.NAMESPACE_URL, f"{account}/{region}/{stack_name}")
    return f"arn:aws:cloudformation:{region}:{account}:stack/{stack_name}/{unique}"


def stack_suffix(account: str, region: str, stack_name: str) -> str:
    """What the stack's retained names end with (``constructs_lib.cfn.stack_suffix``): the ID's first UUID group."""
    return stack_id(account, region, stack_name).rsplit("/", 1)[1].split("-")[0]


class _Values:
    """Evaluates template values against what the deployer created (Ref/GetAtt/ImportValue/Join/Sub/If/...)."""

    def __init__(self, assembly: Assembly, account: str, parameters: dict[str, str] | None = None) -> None:
        self.assembly = assembly
        self.account = account  # for stacks without an account (StackSet members): the deployment account
        self.parameters = parameters or {}
        self.refs: dict[str, Any] = {}
        self.atts: dict[tuple[str, str], Any] = {}

    def account_of(self, stack: Stack) -> str:
        return stack.account or self.account

    def stack_id(self, stack: Stack) -> str:
        """The stack's ID as the deployer names what the stack retains (names end with its suffix; verify reads the
        physical names from CloudFormation's record, which the deployer fills in)."""
        return stack_id(self.account_of(stack), str(stack.region), stack.name)

    def exists(self, res: Resource) -> bool:
        return res.condition is None or self.holds({"Condition": res.condition}, res.stack)

    def holds(self, expression: dict, stack: Stack) -> bool:
        ((fn, arg),) = expression.items()
        if fn == "Condition":
            return self.holds(stack.template["Conditions"][arg], stack)
        if fn == "Fn::Equals":
            return str(self(arg[0], stack)) == str(self(arg[1], stack))
        if fn == "Fn::Not":
            return not self.holds(arg[0], stack)
        if fn == "Fn::And":
            return all(self.holds(a, stack) for a in arg)
        return any(self.holds(a, stack) for a in arg)  # Fn::Or

    def ref(self, name: str, stack: Stack) -> Any:
        pseudo = {
            "AWS::AccountId": self.account_of(stack),
            "AWS::Region": stack.region,
            "AWS::Partition": "aws",
            "AWS::URLSuffix": "amazonaws.com",
            "AWS::StackName": stack.name,
            "AWS::StackId": self.stack_id(stack),
        }
        if name in pseudo:
            return pseudo[name]
        parameter = (stack.template.get("Parameters") or {}).get(name)
        if parameter is not None:
            return self.parameters.get(name, parameter.get("Default"))
        return self.refs[f"{stack.name}/{name}"]

    def __call__(self, value: Any, stack: Stack) -> Any:
        if isinstance(value, dict) and len(value) == 1:
            ((fn, arg),) = value.items()
            if fn == "Ref":
                return self.ref(arg, stack)
            if fn == "Fn::If":
                return self(arg[1] if self.holds({"Condition": arg[0]}, stack) else arg[2], stack)
            if fn == "Fn::GetAtt":
                logical_id, attr = arg.split(".", 1) if isinstance(arg, str) else arg
                return self.atts[(f"{stack.name}/{logical_id}", attr)]
            if fn == "Fn::ImportValue":
                exporting, output = self.assembly.export(self(arg, stack))
                return self(output, exporting)
            if fn == "Fn::Join":
                return arg[0].join(str(self(p, stack)) for p in self(arg[1], stack))
            if fn == "Fn::Select":
                return self(arg[1], stack)[int(arg[0])]
            if fn == "Fn::Split":
                return str(self(arg[1], stack)).split(arg[0])
            if fn == "Fn::Base64":
                import base64

                return base64.b64encode(str(self(arg, stack)).encode()).decode()
            if fn == "Fn::GetAZs":
                return [f"{stack.region}{suffix}" for suffix in "abc"]
            if fn == "Fn::Sub":
                text = arg if isinstance(arg, str) else arg[0]
                return re.sub(
                    r"\$\{([^}]+)\}",
                    lambda m: str(
                        self({"Ref": m.group(1)} if "." not in m.group(1) else {"Fn::GetAtt": m.group(1)}, stack)
                    ),
                    text,
                )
        if isinstance(value, dict):
            return {k: self(v, stack) for k, v in value.items()}
        if isinstance(value, list):
            return [self(v, stack) for v in value]
        return value


@dataclass
class Deployed:
    assembly: Assembly
    plan: Any
    accounts: MotoAccounts
    fake: FakeServices
    ids: dict[str, Any]  # resource path -> physical ID (policy IDs, endpoint IDs, key IDs, ...)

    def factory(self) -> Callable[..., Any]:
        return self.accounts.factory(self.assembly, self.fake)

    def client(self, service: str, *, management: bool = False, region: str | None = None) -> Any:
        return self.accounts.raw(service, region, MANAGEMENT_PROFILE if management else None)

    def first(self, resource_type: str) -> Resource:
        return self.assembly.resources(resource_type)[0]

    def moto_stack(self, name: str) -> Any:
        """moto's record of the CloudFormation stack deployed for the assembly's stack ``name``."""
        from moto.cloudformation.models import cloudformation_backends

        stack = self.assembly.stack(name)
        assert stack is not None, name
        backend = cloudformation_backends[stack.account or self.accounts.accounts[None]][stack.region]
        return next(s for s in backend.stacks.values() if s.name == self.ids.get(name, name))

    def set_stack_status(self, name: str, status: str, reason: str = "") -> None:
        """The stack's last operation ended in ``status`` (e.g. ROLLBACK_COMPLETE), its resources left as they are."""
        moto_stack = self.moto_stack(name)
        moto_stack.status = status
        moto_stack.status_reason = reason

    def set_stack_drift(self, name: str, drift: str) -> None:
        """What CloudFormation drift detection last recorded for the stack (moto has no drift detection)."""
        import datetime

        self.moto_stack(name).drift_information = {
            "StackDriftStatus": drift,
            "LastCheckTimestamp": datetime.datetime(2026, 11, 30, tzinfo=datetime.UTC),
        }

    def forget_stack(self, name: str) -> None:
        """The stack is gone (deleted with its resources retained, or never created): DescribeStacks does not know
        it, its resources are still there."""
        from moto.cloudformation.models import cloudformation_backends

        stack = self.assembly.stack(name)
        assert stack is not None, name
        backend = cloudformation_backends[stack.account or self.accounts.accounts[None]][stack.region]
        backend.stacks.pop(self.moto_stack(name).stack_id)


def moto_accounts(assembly: Assembly, plan: Any) -> MotoAccounts:
    """Deployment account = the account of the non-SCP stacks; management account = the SCP stack's."""
    deployment = plan.config.deployment_account
    management = plan.config.organization.management_account_id if plan.config.organization else deployment
    return MotoAccounts({None: deployment, MANAGEMENT_PROFILE: management}, plan.config.home_region)


def deploy_intent(
    assembly: Assembly, plan: Any, accounts: MotoAccounts | None = None, *, parameters: dict[str, str] | None = None
) -> Deployed:
    """Create the assembly's intent in moto (inside an active ``mock_aws``) and return what was created.
    ``parameters``: values of template parameters (a StackSet member's overrides); others take their default.
    Into an empty mock, the calls are made once per worker and inputs, and their state restored afterwards
    (tests/support/moto_state.py)."""
    from tests.support.moto_state import deploy_once

    return deploy_once(_deploy_intent, assembly, plan, accounts, parameters)


def _deploy_intent(
    assembly: Assembly, plan: Any, accounts: MotoAccounts | None = None, *, parameters: dict[str, str] | None = None
) -> Deployed:
    accounts = accounts or moto_accounts(assembly, plan)
    values = _Values(assembly, accounts.accounts[None], parameters)
    fake = FakeServices()
    ids: dict[str, Any] = {}
    _organizations(assembly, plan, accounts, values, ids)
    _keys(assembly, accounts, values, ids)
    _iam_names(assembly, values)
    _network(assembly, accounts, values, ids)
    _log_groups(assembly, accounts, values, ids)
    _topics(assembly, accounts, values)
    _profiles(assembly, plan, values, fake)
    _mantle_projects(assembly, values, ids)
    _cloudformation_stacks(assembly, accounts, values, ids)
    _iam(assembly, accounts, values)
    _bucket_settings(assembly, accounts, values)
    _flow_logs(assembly, accounts, values)
    _invocation_logging(assembly, accounts, values)
    _budgets(assembly, accounts, values, fake)
    _alarms(assembly, accounts, values)
    _event_rules(assembly, accounts, values)
    _anomaly_detection(assembly, values, fake)
    _guardrails(assembly, values, fake)
    _agreements(assembly, fake)
    _data_retention(assembly, fake)
    _eks(assembly, accounts, values)
    _stack_sets(assembly, accounts, values, fake)
    return Deployed(assembly, plan, accounts, fake, ids)


def _data_retention(assembly: Assembly, fake: FakeServices) -> None:
    """What Custom::BedrockDataRetention does on Create: the account's mode in its stack's Region."""
    for res in assembly.resources("Custom::BedrockDataRetention"):
        fake.data_retention[res.stack.region or ""] = str(res.prop("Mode"))


def _tag_list(tags: Any, key: str = "Key", value: str = "Value") -> list[dict]:
    return [{key: t["Key"], value: t["Value"]} for t in tags or []]


def _organizations(assembly: Assembly, plan: Any, accounts: MotoAccounts, values: _Values, ids: dict) -> None:
    scps = [r for r in assembly.resources("AWS::Organizations::Policy") if r.prop("Type") == "SERVICE_CONTROL_POLICY"]
    if not scps:
        return
    targets = sorted({t for r in scps for t in r.prop("TargetIds") or []} | set(plan.config.organization.target_ids))
    roots = [t for t in targets if t.startswith("r-")]
    org = accounts.raw("organizations", profile=MANAGEMENT_PROFILE)
    # moto draws IDs at random: hand it the configured ones, so the synthesized TargetIds exist.
    with mock.patch("moto.organizations.utils.make_random_root_id", return_value=roots[0]) if roots else nullcontext():
        org.create_organization(FeatureSet="ALL")
    root = org.list_roots()["Roots"][0]["Id"]
    org.enable_policy_type(RootId=root, PolicyType="SERVICE_CONTROL_POLICY")
    for target in targets:
        if target.startswith("ou-"):
            with mock.patch("moto.organizations.utils.make_random_ou_id", return_value=target):
                org.create_organizational_unit(ParentId=root, Name=f"ou-for-{target}")
        elif re.fullmatch(r"\d{12}", target):
            with mock.patch("moto.organizations.utils.make_random_account_id", return_value=target):
                org.create_account(Email=f"{target}@example.com", AccountName=f"account-{target}")
    for res in scps:
        content = values(res.prop("Content"), res.stack)
        policy = org.create_policy(
            Content=content if isinstance(content, str) else json.dumps(content),
            Description=res.prop("Description", ""),
            Name=res.prop("Name"),
            Type="SERVICE_CONTROL_POLICY",
            Tags=_tag_list(res.prop("Tags")),
        )["Policy"]["PolicySummary"]
        ids[res.path] = policy["Id"]
        values.refs[res.path] = policy["Id"]
        for target in res.prop("TargetIds") or []:
            org.attach_policy(PolicyId=policy["Id"], TargetId=target)


def _keys(assembly: Assembly, accounts: MotoAccounts, values: _Values, ids: dict) -> None:
    for res in assembly.resources("AWS::KMS::Key"):
        kms = accounts.for_account("kms", res.stack.region, res.stack.account)
        key = kms.create_key(
            Policy=json.dumps(values(res.prop("KeyPolicy"), res.stack)),
            Description=res.prop("Description", ""),
            Tags=_tag_list(res.prop("Tags"), "TagKey", "TagValue"),
        )["KeyMetadata"]
        if res.prop("EnableKeyRotation"):
            kms.enable_key_rotation(KeyId=key["KeyId"])
        ids[res.path] = key["KeyId"]
        values.refs[res.path] = key["KeyId"]
        values.atts[(res.path, "Arn")] = key["Arn"]
        values.atts[(res.path, "KeyId")] = key["KeyId"]
    for res in assembly.resources("AWS::KMS::Alias"):
        accounts.for_account("kms", res.stack.region, res.stack.account).create_alias(
            AliasName=res.prop("AliasName"), TargetKeyId=values(res.prop("TargetKeyId"), res.stack)
        )


def _iam_names(assembly: Assembly, values: _Values) -> None:
    """The names and ARNs the stacks give roles and managed policies, for the values that reference them (a role
    without a literal name gets its generated name from the moto CloudFormation stack, see
    ``_cloudformation_stacks``)."""
    for res in assembly.resources("AWS::IAM::Role"):
        name = res.prop("RoleName") or f"{res.stack.name}-{res.logical_id}"[:64]
        values.refs[res.path] = name
        values.atts[(res.path, "Arn")] = (
            f"arn:aws:iam::{values.account_of(res.stack)}:role{res.prop('Path', '/')}{name}"
        )
    # the kill switch's budget actions: their IDs, drawn now, because the reset role's policy names them
    for res in assembly.resources("AWS::Budgets::BudgetsAction"):
        values.atts[(res.path, "ActionId")] = str(uuid.uuid4())
    for res in assembly.resources("AWS::IAM::ManagedPolicy"):
        name = res.prop("ManagedPolicyName") or f"{res.stack.name}-{res.logical_id}"[:128]
        values.refs[res.path] = f"arn:aws:iam::{values.account_of(res.stack)}:policy{res.prop('Path', '/')}{name}"
        values.atts[(res.path, "PolicyArn")] = values.refs[res.path]


def _network_acls(assembly: Assembly, accounts: MotoAccounts, values: _Values, ids: dict) -> None:
    """The endpoint subnets' network ACL and its associations (moto's CloudFormation skips the association)."""
    for res in assembly.resources("AWS::EC2::NetworkAcl"):
        acl = accounts.raw("ec2", res.stack.region).create_network_acl(
            VpcId=values(res.prop("VpcId"), res.stack),
            TagSpecifications=[{"ResourceType": "network-acl", "Tags": _tag_list(res.prop("Tags"))}],
        )["NetworkAcl"]
        values.refs[res.path] = ids[res.path] = acl["NetworkAclId"]
    for res in assembly.resources("AWS::EC2::SubnetNetworkAclAssociation"):
        ec2 = accounts.raw("ec2", res.stack.region)
        subnet = values(res.prop("SubnetId"), res.stack)
        current = ec2.describe_network_acls(Filters=[{"Name": "association.subnet-id", "Values": [subnet]}])
        association = next(
            a["NetworkAclAssociationId"]
            for acl in current["NetworkAcls"]
            for a in acl.get("Associations") or []
            if a.get("SubnetId") == subnet
        )
        ec2.replace_network_acl_association(
            AssociationId=association, NetworkAclId=values(res.prop("NetworkAclId"), res.stack)
        )


def _network(assembly: Assembly, accounts: MotoAccounts, values: _Values, ids: dict) -> None:
    for res in assembly.resources("AWS::EC2::VPC"):
        ec2 = accounts.raw("ec2", res.stack.region)
        vpc = ec2.create_vpc(
            CidrBlock=values(res.prop("CidrBlock"), res.stack),
            TagSpecifications=[{"ResourceType": "vpc", "Tags": _tag_list(res.prop("Tags"))}],
        )["Vpc"]
        values.refs[res.path] = ids[res.path] = vpc["VpcId"]
        values.atts[(res.path, "CidrBlock")] = vpc["CidrBlock"]
        default_group = ec2.describe_security_groups(
            Filters=[{"Name": "vpc-id", "Values": [vpc["VpcId"]]}, {"Name": "group-name", "Values": ["default"]}]
        )["SecurityGroups"][0]
        values.atts[(res.path, "DefaultSecurityGroup")] = default_group["GroupId"]
    for res in assembly.resources("AWS::EC2::Subnet"):
        ec2 = accounts.raw("ec2", res.stack.region)
        subnet = ec2.create_subnet(
            VpcId=values(res.prop("VpcId"), res.stack),
            CidrBlock=values(res.prop("CidrBlock"), res.stack),
            AvailabilityZone=values(res.prop("AvailabilityZone"), res.stack),
            TagSpecifications=[{"ResourceType": "subnet", "Tags": _tag_list(res.prop("Tags"))}],
        )["Subnet"]
        values.refs[res.path] = ids[res.path] = subnet["SubnetId"]
    _network_acls(assembly, accounts, values, ids)
    for res in assembly.resources("AWS::EC2::RouteTable"):
        table = accounts.raw("ec2", res.stack.region).create_route_table(
            VpcId=values(res.prop("VpcId"), res.stack),
            TagSpecifications=[{"ResourceType": "route-table", "Tags": _tag_list(res.prop("Tags"))}],
        )["RouteTable"]
        values.refs[res.path] = ids[res.path] = table["RouteTableId"]
    for res in assembly.resources("AWS::EC2::SecurityGroup"):
        ec2 = accounts.raw("ec2", res.stack.region)
        vpc_id = values(res.prop("VpcId"), res.stack) if res.prop("VpcId") else None
        group = ec2.create_security_group(
            GroupName=f"{res.stack.name}-{res.logical_id}",
            Description=res.prop("GroupDescription", "-"),
            **({"VpcId": vpc_id} if vpc_id else {}),
            TagSpecifications=[{"ResourceType": "security-group", "Tags": _tag_list(res.prop("Tags"))}],
        )
        values.refs[res.path] = ids[res.path] = group["GroupId"]
        values.atts[(res.path, "GroupId")] = group["GroupId"]
        _security_group_rules(ec2, group["GroupId"], res, values)
    for res in assembly.resources("Custom::VpcRestrictDefaultSG"):  # what CDK's handler does: no rule left
        ec2 = accounts.raw("ec2", res.stack.region)
        group_id = values(res.prop("DefaultSecurityGroupId"), res.stack)
        group = ec2.describe_security_groups(GroupIds=[group_id])["SecurityGroups"][0]
        if group.get("IpPermissions"):
            ec2.revoke_security_group_ingress(GroupId=group_id, IpPermissions=group["IpPermissions"])
        if group.get("IpPermissionsEgress"):
            ec2.revoke_security_group_egress(GroupId=group_id, IpPermissions=group["IpPermissionsEgress"])
    for res in assembly.resources("AWS::EC2::VPCEndpoint"):
        ec2 = accounts.raw("ec2", res.stack.region)
        policy = values(res.prop("PolicyDocument"), res.stack)
        kind = res.prop("VpcEndpointType", "Gateway")
        placement = (
            {
                "SubnetIds": values(res.prop("SubnetIds") or [], res.stack),
                "SecurityGroupIds": values(res.prop("SecurityGroupIds") or [], res.stack),
                "PrivateDnsEnabled": bool(res.prop("PrivateDnsEnabled", False)),
            }
            if kind == "Interface"
            else {"RouteTableIds": values(res.prop("RouteTableIds") or [], res.stack)}
        )
        endpoint = ec2.create_vpc_endpoint(
            VpcId=values(res.prop("VpcId"), res.stack),
            ServiceName=values(res.prop("ServiceName"), res.stack),
            VpcEndpointType=kind,
            **placement,
            **({"PolicyDocument": json.dumps(policy)} if policy is not None else {}),
            TagSpecifications=[
                {"ResourceType": "vpc-endpoint", "Tags": _tag_list(values(res.prop("Tags"), res.stack))}
            ],
        )["VpcEndpoint"]
        values.refs[res.path] = ids[res.path] = endpoint["VpcEndpointId"]


def _ip_permission(rule: dict) -> dict:
    """A template security-group rule in the EC2 API's shape."""
    perm: dict[str, Any] = {"IpProtocol": str(rule["IpProtocol"])}
    if "FromPort" in rule:
        perm["FromPort"], perm["ToPort"] = int(rule["FromPort"]), int(rule["ToPort"])
    if rule.get("CidrIp"):
        perm["IpRanges"] = [{"CidrIp": rule["CidrIp"]}]
    if rule.get("CidrIpv6"):
        perm["Ipv6Ranges"] = [{"CidrIpv6": rule["CidrIpv6"]}]
    peer = rule.get("SourceSecurityGroupId") or rule.get("DestinationSecurityGroupId")
    if peer:
        perm["UserIdGroupPairs"] = [{"GroupId": peer}]
    return perm


def _security_group_rules(ec2: Any, group_id: str, res: Resource, values: _Values) -> None:
    """The template's ingress and egress (CloudFormation removes the default allow-all egress when it sets egress)."""
    ingress = values(res.prop("SecurityGroupIngress") or [], res.stack)
    if ingress:
        ec2.authorize_security_group_ingress(GroupId=group_id, IpPermissions=[_ip_permission(r) for r in ingress])
    egress = values(res.prop("SecurityGroupEgress"), res.stack)
    if egress is not None:
        ec2.revoke_security_group_egress(
            GroupId=group_id, IpPermissions=[{"IpProtocol": "-1", "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}]
        )
        if egress:
            ec2.authorize_security_group_egress(GroupId=group_id, IpPermissions=[_ip_permission(r) for r in egress])


def _in_moto_stack(res: Resource) -> bool:
    """Resources the moto CloudFormation stack creates: buckets, and roles without a literal name."""
    return res.type == "AWS::S3::Bucket" or (res.type == "AWS::IAM::Role" and not res.prop("RoleName"))


def _refs_of(value: Any) -> set[str]:
    if isinstance(value, dict):
        found: set[str] = set()
        if isinstance(value.get("Ref"), str):
            found.add(value["Ref"])
        if "Fn::GetAtt" in value:
            target = value["Fn::GetAtt"]
            found.add(target.split(".", 1)[0] if isinstance(target, str) else target[0])
        return found.union(*(_refs_of(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_refs_of(v) for v in value))
    return set()


def _cloudformation_stacks(assembly: Assembly, accounts: MotoAccounts, values: _Values, ids: dict) -> None:
    """One moto CloudFormation stack per stack of the assembly (CREATE_COMPLETE, in the stack's account), named
    like it: it creates the buckets (given or generated names) and the roles without a literal name, so their names
    are on record (ListStackResources) as after ``cdk deploy``, and it carries the template's outputs with the
    values the deployer created (DescribeStacks ``Outputs``, ``ListExports``).  A stack with nothing moto can
    create gets a stand-in SSM parameter (moto cannot hold an empty stack)."""
    for stack in assembly.stacks:
        created = [r for r in stack.resources() if _in_moto_stack(r)]
        cfn = accounts.for_account("cloudformation", stack.region, stack.account)
        resources: dict[str, Any] = {}
        for r in created:
            if r.type == "AWS::S3::Bucket":
                name = values(r.prop("BucketName"), stack) if r.prop("BucketName") else None
                resources[r.logical_id] = {"Type": r.type, **({"Properties": {"BucketName": name}} if name else {})}
            else:
                trust = values(r.prop("AssumeRolePolicyDocument"), stack)
                resources[r.logical_id] = {"Type": r.type, "Properties": {"AssumeRolePolicyDocument": trust}}
        if not resources:
            resources["StandIn"] = {
                "Type": "AWS::SSM::Parameter",
                "Properties": {"Name": f"/moto-stand-in/{stack.name}", "Type": "String", "Value": "stand-in"},
            }
        outputs: dict[str, Any] = {}
        for key, output in stack.outputs().items():
            value = output.get("Value")
            if _refs_of(value) and _refs_of(value) <= set(resources):
                literal = value  # moto resolves it
            else:
                try:
                    literal = values(value, stack)
                except (KeyError, TypeError):
                    continue  # a value of something the deployer does not create (a custom resource's, ...)
            outputs[key] = {"Value": literal, **({"Export": output["Export"]} if output.get("Export") else {})}
        template: dict[str, Any] = {"Resources": resources, "Outputs": outputs}
        stack_name, parameters = stack.name, []
        if stack.stack_set:  # a StackSet instance: generated stack name, the account's parameter values
            stack_name = f"{stack.name}-{uuid.uuid4()}"
            declared = stack.template.get("Parameters") or {}
            template["Parameters"] = {k: {"Type": "String"} for k in declared}
            parameters = [{"ParameterKey": k, "ParameterValue": str(values({"Ref": k}, stack))} for k in declared]
        protected = synthesized_termination_protection(assembly.path).get(stack.name, False)
        # the stack ID the deployer named the retained resources with (their names end with its suffix)
        given_id = values.stack_id(stack).replace(f"/{stack.name}/", f"/{stack_name}/")
        with mock.patch("moto.cloudformation.models.generate_stack_id", return_value=given_id):
            cfn.create_stack(
                StackName=stack_name,
                TemplateBody=json.dumps(template),
                Parameters=parameters,
                EnableTerminationProtection=protected,
            )
        ids[stack.name] = stack_name
        _record_physical_ids(stack, stack_name, accounts, ids)
        for r in created:
            name = cfn.describe_stack_resource(StackName=stack_name, LogicalResourceId=r.logical_id)[
                "StackResourceDetail"
            ]["PhysicalResourceId"]
            values.refs[r.path] = name
            if r.type == "AWS::S3::Bucket":
                values.atts[(r.path, "Arn")] = f"arn:aws:s3:::{name}"
            else:
                values.atts[(r.path, "Arn")] = f"arn:aws:iam::{values.account_of(stack)}:role/{name}"


# What the deployer creates directly and CloudFormation would have on record (ListStackResources).
RECORDED_TYPES = (
    "AWS::KMS::Key",
    "AWS::Logs::LogGroup",
    "AWS::EC2::VPC",
    "AWS::EC2::Subnet",
    "AWS::EC2::RouteTable",
    "AWS::EC2::SecurityGroup",
    "AWS::EC2::VPCEndpoint",
    MANTLE_PROJECT_TYPE,
)


def _record_physical_ids(stack: Stack, stack_name: str, accounts: MotoAccounts, ids: dict) -> None:
    """Put the physical IDs of the keys and network resources the deployer created into moto's record of the
    stack, as ``cdk deploy`` leaves them (verify resolves generated IDs from CloudFormation first)."""
    from types import SimpleNamespace

    from moto.cloudformation.models import cloudformation_backends

    backend = cloudformation_backends[stack.account or accounts.accounts[None]][stack.region]
    moto_stack = next(s for s in backend.stacks.values() if s.name == stack_name)
    resource_map = moto_stack.resource_map
    for res in stack.resources(*RECORDED_TYPES):
        if res.path not in ids:
            continue
        resource_map._resource_json_map[res.logical_id] = {"Type": res.type}
        resource_map._parsed_resources[res.logical_id] = SimpleNamespace(
            logical_resource_id=res.logical_id, physical_resource_id=ids[res.path], cf_resource_type=res.type
        )


def _iam(assembly: Assembly, accounts: MotoAccounts, values: _Values) -> None:
    """Customer-managed policies and roles as synthesized: trust policy, permissions boundary, attached managed
    policies (AWS-managed ones registered in moto on demand), inline policies."""
    for res in assembly.resources("AWS::IAM::ManagedPolicy"):
        iam = accounts.for_account("iam", "us-east-1", res.stack.account)
        arn = values.refs[res.path]
        iam.create_policy(
            PolicyName=arn.rsplit("/", 1)[-1],
            Path=res.prop("Path", "/"),
            PolicyDocument=json.dumps(values(res.prop("PolicyDocument"), res.stack)),
            Description=res.prop("Description", ""),
        )
    for res in assembly.resources("AWS::IAM::Role"):
        account = values.account_of(res.stack)
        iam = accounts.for_account("iam", "us-east-1", res.stack.account)
        name = values.refs[res.path]
        trust = json.dumps(values(res.prop("AssumeRolePolicyDocument"), res.stack))
        boundary = values(res.prop("PermissionsBoundary"), res.stack) if res.prop("PermissionsBoundary") else None
        if res.prop("RoleName"):
            iam.create_role(
                RoleName=name,
                Path=res.prop("Path", "/"),
                AssumeRolePolicyDocument=trust,
                Description=res.prop("Description", ""),
                Tags=_tag_list(values(res.prop("Tags") or [], res.stack)),
                **({"PermissionsBoundary": boundary} if boundary else {}),
            )
        else:  # created by the moto stack
            iam.update_assume_role_policy(RoleName=name, PolicyDocument=trust)
            if res.prop("Tags"):
                iam.tag_role(RoleName=name, Tags=_tag_list(values(res.prop("Tags"), res.stack)))
            if boundary:
                iam.put_role_permissions_boundary(RoleName=name, PermissionsBoundary=boundary)
        for arn in values(res.prop("ManagedPolicyArns") or [], res.stack):
            _aws_managed_policy(account, arn)
            iam.attach_role_policy(RoleName=name, PolicyArn=arn)
        for policy in values(res.prop("Policies") or [], res.stack):
            iam.put_role_policy(
                RoleName=name, PolicyName=policy["PolicyName"], PolicyDocument=json.dumps(policy["PolicyDocument"])
            )
    for res in assembly.resources("AWS::IAM::ManagedPolicy"):
        iam = accounts.for_account("iam", "us-east-1", res.stack.account)
        for role in values(res.prop("Roles") or [], res.stack):
            iam.attach_role_policy(RoleName=role, PolicyArn=values.refs[res.path])
    for res in assembly.resources("AWS::IAM::Policy"):
        iam = accounts.for_account("iam", "us-east-1", res.stack.account)
        for role in values(res.prop("Roles") or [], res.stack):
            iam.put_role_policy(
                RoleName=role,
                PolicyName=res.prop("PolicyName"),
                PolicyDocument=json.dumps(values(res.prop("PolicyDocument"), res.stack)),
            )


@functools.lru_cache(maxsize=1)
def _aws_managed_policies() -> dict[str, Any]:
    from moto.iam.aws_managed_policies import aws_managed_policies_data

    return dict(json.loads(aws_managed_policies_data))


def _aws_managed_policy(account: str, arn: str) -> None:
    """moto loads AWS-managed policies only with MOTO_IAM_LOAD_MANAGED_POLICIES (about a second per account): register
    just the ones the templates attach."""
    if not arn.startswith("arn:aws:iam::aws:policy/"):
        return
    from moto.iam.models import AWSManagedPolicy, iam_backends

    backend = iam_backends[account]["aws"]
    if arn not in backend.managed_policies:
        name = arn.rsplit("/", 1)[-1]
        backend.managed_policies[arn] = AWSManagedPolicy.from_data(
            name, account, "us-east-1", _aws_managed_policies()[name]
        )


def _bucket_settings(assembly: Assembly, accounts: MotoAccounts, values: _Values) -> None:
    """Tags, encryption, versioning, public access block, ownership, policy, lifecycle and access logging of the
    buckets the moto stacks created (the policies first: access logging needs the target's policy)."""
    buckets = assembly.resources("AWS::S3::Bucket")
    for res in buckets:
        s3 = accounts.raw("s3", res.stack.region)
        name, p = values.refs[res.path], res.properties
        if p.get("Tags"):
            s3.put_bucket_tagging(Bucket=name, Tagging={"TagSet": _tag_list(p["Tags"])})
        for rule in (p.get("BucketEncryption") or {}).get("ServerSideEncryptionConfiguration") or []:
            default = values(rule.get("ServerSideEncryptionByDefault") or {}, res.stack)
            s3.put_bucket_encryption(
                Bucket=name,
                ServerSideEncryptionConfiguration={
                    "Rules": [
                        {
                            "ApplyServerSideEncryptionByDefault": default,
                            "BucketKeyEnabled": bool(rule.get("BucketKeyEnabled", False)),
                        }
                    ]
                },
            )
        if p.get("VersioningConfiguration"):
            s3.put_bucket_versioning(
                Bucket=name, VersioningConfiguration={"Status": p["VersioningConfiguration"]["Status"]}
            )
        if p.get("PublicAccessBlockConfiguration"):
            s3.put_public_access_block(
                Bucket=name, PublicAccessBlockConfiguration=dict(p["PublicAccessBlockConfiguration"])
            )
        if p.get("OwnershipControls"):
            s3.put_bucket_ownership_controls(Bucket=name, OwnershipControls=dict(p["OwnershipControls"]))
        if p.get("LifecycleConfiguration"):
            s3.put_bucket_lifecycle_configuration(
                Bucket=name,
                LifecycleConfiguration={"Rules": [lifecycle_rule(r) for r in p["LifecycleConfiguration"]["Rules"]]},
            )
    for res in assembly.resources("AWS::S3::BucketPolicy"):
        accounts.raw("s3", res.stack.region).put_bucket_policy(
            Bucket=values(res.prop("Bucket"), res.stack),
            Policy=json.dumps(values(res.prop("PolicyDocument"), res.stack)),
        )
    for res in buckets:
        logging = res.prop("LoggingConfiguration")
        if logging:
            target = values(logging.get("DestinationBucketName"), res.stack) or values.refs[res.path]
            accounts.raw("s3", res.stack.region).put_bucket_logging(
                Bucket=values.refs[res.path],
                BucketLoggingStatus={
                    "LoggingEnabled": {"TargetBucket": target, "TargetPrefix": logging.get("LogFilePrefix", "")}
                },
            )


def lifecycle_rule(rule: dict) -> dict:
    """A template lifecycle rule in the S3 API's shape (what CloudFormation sends)."""
    api: dict[str, Any] = {"Status": rule["Status"], "Filter": {"Prefix": rule.get("Prefix", "")}}
    if rule.get("Id"):
        api["ID"] = rule["Id"]
    if rule.get("ExpirationInDays"):
        api["Expiration"] = {"Days": int(rule["ExpirationInDays"])}
    if rule.get("Transitions"):
        api["Transitions"] = [
            {"Days": int(t["TransitionInDays"]), "StorageClass": t["StorageClass"]} for t in rule["Transitions"]
        ]
    if rule.get("NoncurrentVersionExpiration"):
        api["NoncurrentVersionExpiration"] = {
            "NoncurrentDays": int(rule["NoncurrentVersionExpiration"]["NoncurrentDays"])
        }
    if rule.get("AbortIncompleteMultipartUpload"):
        api["AbortIncompleteMultipartUpload"] = {
            "DaysAfterInitiation": int(rule["AbortIncompleteMultipartUpload"]["DaysAfterInitiation"])
        }
    return api


def _flow_logs(assembly: Assembly, accounts: MotoAccounts, values: _Values) -> None:
    for res in assembly.resources("AWS::EC2::FlowLog"):
        p = values(dict(res.properties), res.stack)
        accounts.raw("ec2", res.stack.region).create_flow_logs(
            ResourceIds=[p["ResourceId"]],
            ResourceType=p["ResourceType"],
            TrafficType=p["TrafficType"],
            LogDestinationType=p.get("LogDestinationType", "cloud-watch-logs"),
            **{k: p[k] for k in ("LogGroupName", "LogDestination", "DeliverLogsPermissionArn") if k in p},
            TagSpecifications=[{"ResourceType": "vpc-flow-log", "Tags": _tag_list(p.get("Tags"))}],
        )


def _log_groups(assembly: Assembly, accounts: MotoAccounts, values: _Values, ids: dict) -> None:
    for res in assembly.resources("AWS::Logs::LogGroup"):
        logs = accounts.for_account("logs", res.stack.region, res.stack.account)
        given = res.prop("LogGroupName")
        name = values(given, res.stack) if given else f"/{res.stack.name}/{res.logical_id}"
        key = values(res.prop("KmsKeyId"), res.stack) if res.prop("KmsKeyId") else None
        tags = {t["Key"]: t["Value"] for t in values(res.prop("Tags") or [], res.stack)}
        logs.create_log_group(
            logGroupName=name, **({"kmsKeyId": key} if key else {}), **({"tags": tags} if tags else {})
        )
        if res.prop("RetentionInDays"):
            logs.put_retention_policy(logGroupName=name, retentionInDays=res.prop("RetentionInDays"))
        values.refs[res.path] = name
        values.atts[(res.path, "Arn")] = (
            f"arn:aws:logs:{res.stack.region}:{values.account_of(res.stack)}:log-group:{name}:*"
        )
        ids[res.path] = (
            name  # on CloudFormation's record, as after `cdk deploy` (the name ends with the stack's suffix)
        )


def _topics(assembly: Assembly, accounts: MotoAccounts, values: _Values) -> None:
    for res in assembly.resources("AWS::SNS::Topic"):
        sns = accounts.for_account("sns", res.stack.region, res.stack.account)
        attributes = {}
        if res.prop("KmsMasterKeyId"):
            attributes["KmsMasterKeyId"] = values(res.prop("KmsMasterKeyId"), res.stack)
        arn = sns.create_topic(
            Name=res.prop("TopicName") or f"{res.stack.name}-{res.logical_id}",
            Attributes=attributes,
            Tags=_tag_list(res.prop("Tags")),
        )["TopicArn"]
        values.refs[res.path] = arn
        values.atts[(res.path, "TopicArn")] = arn
        values.atts[(res.path, "TopicName")] = arn.rsplit(":", 1)[-1]
    for res in assembly.resources("AWS::SNS::TopicPolicy"):
        for topic in values(res.prop("Topics") or [], res.stack):
            accounts.raw("sns", res.stack.region).set_topic_attributes(
                TopicArn=topic,
                AttributeName="Policy",
                AttributeValue=json.dumps(values(res.prop("PolicyDocument"), res.stack)),
            )
    for res in assembly.resources("AWS::SNS::Subscription"):
        if not values.exists(res):
            continue
        accounts.raw("sns", res.stack.region).subscribe(
            TopicArn=values(res.prop("TopicArn"), res.stack),
            Protocol=res.prop("Protocol"),
            Endpoint=values(res.prop("Endpoint"), res.stack),
        )


def _invocation_logging(assembly: Assembly, accounts: MotoAccounts, values: _Values) -> None:
    for res in assembly.resources("Custom::BedrockInvocationLogging"):
        p = {k: values(v, res.stack) for k, v in res.properties.items() if k != "ServiceToken"}
        config: dict[str, Any] = {
            "textDataDeliveryEnabled": p.get("TextDataDeliveryEnabled", "true") == "true",
            "imageDataDeliveryEnabled": p.get("ImageDataDeliveryEnabled", "true") == "true",
            "embeddingDataDeliveryEnabled": p.get("EmbeddingDataDeliveryEnabled", "true") == "true",
            "videoDataDeliveryEnabled": p.get("VideoDataDeliveryEnabled", "false") == "true",
        }
        if p.get("BucketName"):
            config["s3Config"] = {"bucketName": p["BucketName"], "keyPrefix": p.get("KeyPrefix", "")}
        if p.get("LogGroupName"):
            config["cloudWatchConfig"] = {"logGroupName": p["LogGroupName"], "roleArn": p["RoleArn"]}
        accounts.raw("bedrock", res.stack.region).put_model_invocation_logging_configuration(loggingConfig=config)


def _budgets(assembly: Assembly, accounts: MotoAccounts, values: _Values, fake: FakeServices) -> None:
    for res in assembly.resources("AWS::Budgets::Budget"):
        spec = values(res.prop("Budget"), res.stack)
        spec["BudgetLimit"] = {"Amount": str(spec["BudgetLimit"]["Amount"]), "Unit": spec["BudgetLimit"]["Unit"]}
        notifications = values(res.prop("NotificationsWithSubscribers") or [], res.stack)
        for n in notifications:
            n["Notification"]["Threshold"] = float(n["Notification"]["Threshold"])
            fake.budget_subscribers[(spec["BudgetName"], notification_key(n["Notification"]))] = n["Subscribers"]
        accounts.raw("budgets").create_budget(
            AccountId=values.account_of(res.stack), Budget=spec, NotificationsWithSubscribers=notifications
        )
        values.refs[res.path] = spec["BudgetName"]
    for res in assembly.resources("AWS::Budgets::BudgetsAction"):
        p = values(dict(res.properties), res.stack)
        fake.budget_actions.setdefault(p["BudgetName"], []).append(
            {
                "ActionId": values.atts[(res.path, "ActionId")],
                "BudgetName": p["BudgetName"],
                "NotificationType": p["NotificationType"],
                "ActionType": p["ActionType"],
                "ActionThreshold": {
                    "ActionThresholdValue": float(p["ActionThreshold"]["Value"]),
                    "ActionThresholdType": p["ActionThreshold"]["Type"],
                },
                "Definition": {"IamActionDefinition": dict(p["Definition"]["IamActionDefinition"])},
                "ExecutionRoleArn": p["ExecutionRoleArn"],
                "ApprovalModel": p.get("ApprovalModel", "MANUAL"),
                "Status": "STANDBY",
                "Subscribers": [
                    {"SubscriptionType": s["Type"], "Address": s["Address"]} for s in p.get("Subscribers") or []
                ],
            }
        )


_ALARM_KEYS = (
    "AlarmName",
    "AlarmDescription",
    "ActionsEnabled",
    "AlarmActions",
    "OKActions",
    "InsufficientDataActions",
    "MetricName",
    "Namespace",
    "Statistic",
    "Dimensions",
    "Period",
    "Unit",
    "EvaluationPeriods",
    "DatapointsToAlarm",
    "Threshold",
    "ComparisonOperator",
    "TreatMissingData",
    "Metrics",
)


def _alarms(assembly: Assembly, accounts: MotoAccounts, values: _Values) -> None:
    for res in assembly.resources("AWS::CloudWatch::Alarm"):
        p = values({k: v for k, v in res.properties.items() if k in _ALARM_KEYS}, res.stack)
        p.setdefault("AlarmName", f"{res.stack.name}-{res.logical_id}")
        p["Threshold"] = float(p["Threshold"])  # a Number parameter arrives as a string
        accounts.raw("cloudwatch", res.stack.region).put_metric_alarm(**p, Tags=_tag_list(res.prop("Tags")))
        values.refs[res.path] = p["AlarmName"]


def _event_rules(assembly: Assembly, accounts: MotoAccounts, values: _Values) -> None:
    for res in assembly.resources("AWS::Events::EventBus"):
        events = accounts.for_account("events", res.stack.region, res.stack.account)
        arn = events.create_event_bus(Name=values(res.prop("Name"), res.stack))["EventBusArn"]
        values.refs[res.path] = res.prop("Name")
        values.atts[(res.path, "Arn")] = arn
    for res in assembly.resources("AWS::Events::Rule"):
        p = values(dict(res.properties), res.stack)
        events = accounts.for_account("events", res.stack.region, res.stack.account)
        bus = p.get("EventBusName", "default")
        events.put_rule(
            Name=p["Name"],
            EventPattern=json.dumps(p["EventPattern"]),
            State=p.get("State", "ENABLED"),
            EventBusName=bus,
        )
        events.put_targets(Rule=p["Name"], EventBusName=bus, Targets=p.get("Targets", []))
        values.refs[res.path] = p["Name"]


def _anomaly_detection(assembly: Assembly, values: _Values, fake: FakeServices) -> None:
    for res in assembly.resources("AWS::CE::AnomalyMonitor"):
        arn = f"arn:aws:ce::{values.account_of(res.stack)}:anomalymonitor/{uuid.uuid4()}"
        monitor = {"MonitorArn": arn, "MonitorName": res.prop("MonitorName"), "MonitorType": res.prop("MonitorType")}
        if res.prop("MonitorDimension"):
            monitor["MonitorDimension"] = res.prop("MonitorDimension")
        fake.anomaly_monitors.append(monitor)
        values.refs[res.path] = arn
        values.atts[(res.path, "MonitorArn")] = arn
    for res in assembly.resources("AWS::CE::AnomalySubscription"):
        p = values(dict(res.properties), res.stack)
        subscription = {
            "SubscriptionArn": f"arn:aws:ce::{values.account_of(res.stack)}:anomalysubscription/{uuid.uuid4()}",
            "AccountId": values.account_of(res.stack),
            "MonitorArnList": p["MonitorArnList"],
            "Subscribers": [{"Type": s["Type"], "Address": s["Address"]} for s in p["Subscribers"]],
            "Frequency": p["Frequency"],
            "SubscriptionName": p["SubscriptionName"],
        }
        if p.get("ThresholdExpression"):
            subscription["ThresholdExpression"] = json.loads(p["ThresholdExpression"])
        fake.anomaly_subscriptions.append(subscription)


# (template policy, its list, API policy key, its list key): how Bedrock reports a guardrail CloudFormation created
_GUARDRAIL_POLICIES = (
    ("ContentPolicyConfig", "FiltersConfig", "contentPolicy", "filters"),
    ("TopicPolicyConfig", "TopicsConfig", "topicPolicy", "topics"),
    ("WordPolicyConfig", "WordsConfig", "wordPolicy", "words"),
    ("WordPolicyConfig", "ManagedWordListsConfig", "wordPolicy", "managedWordLists"),
    ("SensitiveInformationPolicyConfig", "PiiEntitiesConfig", "sensitiveInformationPolicy", "piiEntities"),
    ("SensitiveInformationPolicyConfig", "RegexesConfig", "sensitiveInformationPolicy", "regexes"),
    ("ContextualGroundingPolicyConfig", "FiltersConfig", "contextualGroundingPolicy", "filters"),
)
# What Bedrock adds to a content filter the template does not mention
_FILTER_DEFAULTS = {
    "inputModalities": ["TEXT"],
    "outputModalities": ["TEXT"],
    "inputAction": "BLOCK",
    "outputAction": "BLOCK",
    "inputEnabled": True,
    "outputEnabled": True,
}


def guardrail_config(props: dict) -> dict:
    """A guardrail's template properties as GetGuardrail reports them (with Bedrock's content-filter defaults)."""
    config: dict[str, Any] = {
        "status": "READY",
        "blockedInputMessaging": props["BlockedInputMessaging"],
        "blockedOutputsMessaging": props["BlockedOutputsMessaging"],
    }
    for prop, items, key, list_key in _GUARDRAIL_POLICIES:
        for item in (props.get(prop) or {}).get(items) or []:
            shaped = {k[:1].lower() + k[1:]: v for k, v in item.items()}
            if key == "contentPolicy":
                shaped = {**_FILTER_DEFAULTS, **shaped}
            config.setdefault(key, {}).setdefault(list_key, []).append(shaped)
    if props.get("KmsKeyArn"):
        config["kmsKeyArn"] = props["KmsKeyArn"]
    return config


def _guardrails(assembly: Assembly, values: _Values, fake: FakeServices) -> None:
    """The guardrail (draft), version 1 when the template has a GuardrailVersion, and the account enforcement of
    that version."""
    import datetime

    for res in assembly.resources(GUARDRAIL_TYPE):
        region, account = res.stack.region, values.account_of(res.stack)
        guardrail_id = uuid.uuid4().hex[:12]
        config = guardrail_config(values(dict(res.properties), res.stack))
        pinned = any(
            v.stack.name == res.stack.name and _target(v, "GuardrailIdentifier") == res.logical_id
            for v in assembly.resources(GUARDRAIL_VERSION_TYPE)
        )
        versions = {"1": copy.deepcopy(config)} if pinned else {}
        guardrail = {
            "id": guardrail_id,
            "arn": f"arn:aws:bedrock:{region}:{account}:guardrail/{guardrail_id}",
            "name": res.prop("Name"),
            "createdAt": datetime.datetime(2026, 11, 1, tzinfo=datetime.UTC),
            "draft": config,
            "versions": versions,
        }
        fake.guardrails.setdefault(region, []).append(guardrail)
        for e in assembly.resources(ENFORCEMENT_TYPE):
            if e.stack.name == res.stack.name and _target(e, "GuardrailIdentifier") == res.logical_id:
                fake.enforced_guardrails.setdefault(region, []).append(
                    {
                        "configId": uuid.uuid4().hex[:12],
                        "guardrailArn": guardrail["arn"],
                        "guardrailId": guardrail_id,
                        "guardrailVersion": "1",
                    }
                )


def _agreements(assembly: Assembly, fake: FakeServices) -> None:
    for res in assembly.resources(AGREEMENTS_TYPE):
        for model in str(res.prop("ModelIds")).split(","):
            if model.strip():
                fake.agreements[(res.stack.region, model.strip())] = "AVAILABLE"


def _profiles(assembly: Assembly, plan: Any, values: _Values, fake: FakeServices) -> None:
    for res in assembly.resources(PROFILE_TYPE):
        region, account = res.stack.region, values.account_of(res.stack)
        copy_from = values(res.prop("ModelSource.CopyFrom"), res.stack)
        profile_id = uuid.uuid4().hex[:12]
        arn = f"arn:aws:bedrock:{region}:{account}:application-inference-profile/{profile_id}"
        fake.profiles.setdefault(region, []).append(
            {
                "inferenceProfileName": res.prop("InferenceProfileName"),
                "inferenceProfileArn": arn,
                "inferenceProfileId": profile_id,
                "description": res.prop("Description", ""),
                "models": [{"modelArn": a} for a in model_arns(copy_from, plan.catalog)],
                "status": "ACTIVE",
                "type": "APPLICATION",
                "tags": {t["Key"]: str(values(t["Value"], res.stack)) for t in res.prop("Tags") or []},
            }
        )
        values.atts[(res.path, "InferenceProfileArn")] = arn


def _mantle_projects(assembly: Assembly, values: _Values, ids: dict) -> None:
    """``AWS::BedrockMantle::Project`` (no moto service): the ID Mantle draws (``proj_<alphanumerics>``, the
    projectId pattern of the Bedrock API reference) and the ARN the invoker policy and the alarm dimensions name;
    the ARN is the project's physical ID in its stack's record (``Ref``)."""
    for res in assembly.resources(MANTLE_PROJECT_TYPE):
        project_id = f"proj_{uuid.uuid4().hex[:16]}"
        arn = f"arn:aws:bedrock-mantle:{res.stack.region}:{values.account_of(res.stack)}:project/{project_id}"
        ids[res.path] = values.refs[res.path] = arn  # its physical ID, as its stack records it
        values.atts[(res.path, "Arn")] = arn
        values.atts[(res.path, "Id")] = project_id


def model_arns(copy_from: str, catalog: Any) -> list[str]:
    """What Bedrock reports as the ``models`` of a profile copied from ``copy_from``."""
    if ":foundation-model/" in copy_from:
        return [copy_from]
    profile_id = copy_from.rsplit("/", 1)[-1]
    model_id = profile_id.split(".", 1)[1]
    for model in catalog.models.values():
        for profile in model.inference_profiles:
            if profile.id == profile_id:
                return [f"arn:aws:bedrock:{r}::foundation-model/{model_id}" for r in catalog.destinations(profile)]
    raise AssertionError(f"{copy_from} is not in the catalog")


def _eks(assembly: Assembly, accounts: MotoAccounts, values: _Values) -> None:
    for res in assembly.resources("AWS::EC2::LaunchTemplate"):
        ec2 = accounts.raw("ec2", res.stack.region)
        template = ec2.create_launch_template(
            LaunchTemplateName=res.prop("LaunchTemplateName") or f"{res.stack.name}-{res.logical_id}",
            LaunchTemplateData=values(res.prop("LaunchTemplateData") or {}, res.stack),
        )["LaunchTemplate"]
        values.refs[res.path] = template["LaunchTemplateId"]
        values.atts[(res.path, "LatestVersionNumber")] = str(template["LatestVersionNumber"])
        values.atts[(res.path, "DefaultVersionNumber")] = str(template["DefaultVersionNumber"])
    for res in assembly.resources("AWS::EKS::Cluster"):
        eks = accounts.raw("eks", res.stack.region)
        name = values(res.prop("Name"), res.stack) if res.prop("Name") else f"{res.stack.name}-{res.logical_id}"
        eks.create_cluster(
            name=name,
            roleArn=values(res.prop("RoleArn"), res.stack),
            resourcesVpcConfig={"subnetIds": values(res.prop("ResourcesVpcConfig.SubnetIds") or [], res.stack)},
        )
        values.refs[res.path] = name
    for res in assembly.resources("AWS::EKS::Nodegroup"):
        eks = accounts.raw("eks", res.stack.region)
        p = values(dict(res.properties), res.stack)
        scaling = p.get("ScalingConfig") or {}
        kwargs: dict[str, Any] = {
            "clusterName": p["ClusterName"],
            # a generated name, as CloudFormation gives it (verify must not depend on it)
            "nodegroupName": p.get("NodegroupName") or f"{res.logical_id}-{uuid.uuid4().hex[:12]}",
            "nodeRole": p["NodeRole"],
            "subnets": p.get("Subnets") or [],
            "scalingConfig": {
                "minSize": scaling.get("MinSize", 0),
                "maxSize": scaling.get("MaxSize", 1),
                "desiredSize": scaling.get("DesiredSize", 0),
            },
            "capacityType": p.get("CapacityType", "ON_DEMAND"),
        }
        if p.get("InstanceTypes"):
            kwargs["instanceTypes"] = p["InstanceTypes"]
        if p.get("AmiType"):
            kwargs["amiType"] = p["AmiType"]
        if p.get("Labels"):
            kwargs["labels"] = p["Labels"]
        if p.get("Taints"):
            kwargs["taints"] = [
                {"key": t["Key"], "value": t.get("Value", ""), "effect": t["Effect"]} for t in p["Taints"]
            ]
        if p.get("Tags"):
            kwargs["tags"] = p["Tags"]
        if p.get("LaunchTemplate"):
            lt = p["LaunchTemplate"]
            kwargs["launchTemplate"] = {"id": lt["Id"], "version": str(lt.get("Version", "1"))}
        eks.create_nodegroup(**kwargs)


def _stack_sets(assembly: Assembly, accounts: MotoAccounts, values: _Values, fake: FakeServices) -> None:
    """The StackSet in moto (ACTIVE) and, in FakeServices, one CURRENT instance per account the template names."""
    members = {m.stack_set: m for m in assembly.members}
    for res in assembly.resources("AWS::CloudFormation::StackSet"):
        name = res.prop("StackSetName")
        cfn = accounts.raw("cloudformation", res.stack.region)
        cfn.create_stack_set(
            StackSetName=name,
            TemplateBody=json.dumps(members[name].template if name in members else {"Resources": {}}),
            PermissionModel=res.prop("PermissionModel", "SELF_MANAGED"),
            **({"AutoDeployment": res.prop("AutoDeployment")} if res.prop("AutoDeployment") else {}),
        )
        instances = []
        for group in res.prop("StackInstancesGroup") or []:
            targets = group.get("DeploymentTargets") or {}
            if targets.get("AccountFilterType") not in (None, "INTERSECTION"):
                continue
            for account in targets.get("Accounts") or []:
                for region in group.get("Regions") or []:
                    instances.append(
                        {
                            "StackSetId": f"{name}:{uuid.uuid4()}",
                            "Region": region,
                            "Account": account,
                            "Status": "CURRENT",
                            "StackInstanceStatus": {"DetailedStatus": "SUCCEEDED"},
                            "OrganizationalUnitId": (targets.get("OrganizationalUnitIds") or [None])[0]
                            or "ou-none-00000000",
                        }
                    )
        fake.stack_instances[name] = instances


def member_parameters(assembly: Assembly, account: str) -> dict[str, str]:
    """The parameter values the StackSet gives ``account``: template defaults + its group's overrides."""
    member = assembly.members[0]
    values = {k: str(v.get("Default", "")) for k, v in (member.template.get("Parameters") or {}).items()}
    for res in assembly.resources("AWS::CloudFormation::StackSet"):
        for group in res.prop("StackInstancesGroup") or []:
            if account in ((group.get("DeploymentTargets") or {}).get("Accounts") or []) and (
                group.get("DeploymentTargets") or {}
            ).get("AccountFilterType") in (None, "INTERSECTION"):
                values.update({o["ParameterKey"]: o["ParameterValue"] for o in group.get("ParameterOverrides") or []})
    return values
