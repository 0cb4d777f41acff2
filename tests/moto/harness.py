"""Deploy the landing zone's intent into moto, and the client factory that verify uses against it.

``deploy_intent(assembly, plan, accounts)`` creates, with plain boto3 calls against moto, what the stacks of a
synthesized assembly describe: Organizations (root/OUs/accounts with the configured IDs) + the SCPs exactly as
synthesized and attached; KMS keys (policy, rotation, aliases); the VPC, subnets, security groups and the
interface endpoints (policy, private DNS, tags); log groups (KMS, retention); S3 buckets (through a moto
CloudFormation stack of the same name, so their generated names are on record as they are in a real
deployment); model invocation logging; SNS topics and subscriptions; budgets with notifications; CloudWatch
alarms; EKS clusters/node groups with launch templates; StackSets.  Template parameters take their defaults or
the values given (a StackSet member's overrides); resources whose template Condition is false are not created.

What moto does not implement is kept in :class:`FakeServices` and answered by botocore ``Stubber`` s with
exact request parameters (:class:`MotoAccounts.factory`): Bedrock application inference profiles
(ListInferenceProfiles/GetInferenceProfile/ListTagsForResource), Budgets subscribers and budget actions
(DescribeSubscribersForNotification/DescribeBudgetActionsForBudget), Cost Anomaly Detection
(GetAnomalyMonitors/GetAnomalySubscriptions), the instances of a SERVICE_MANAGED StackSet (ListStackInstances:
moto keeps the stack set but never resolves its OU targets).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

import boto3
from botocore.stub import Stubber

from landing_zone.assembly import Assembly, Resource, Stack

PROFILE_TYPE = "AWS::Bedrock::ApplicationInferenceProfile"
PROFILE_PREFIXES = ("us", "eu", "apac", "jp", "au", "ca", "us-gov", "global")

# Operations moto 5.2.5 lacks, per service: answered by a Stubber, everything else by moto.
STUBBED_OPERATIONS = {
    "bedrock": {"list_inference_profiles", "get_inference_profile", "list_tags_for_resource"},
    "budgets": {"describe_subscribers_for_notification", "describe_budget_actions_for_budget"},
    "ce": {"get_anomaly_monitors", "get_anomaly_subscriptions"},
    # moto keeps SERVICE_MANAGED stack sets but never resolves their OU targets to instances
    "cloudformation": {"list_stack_instances"},
}
MANAGEMENT_PROFILE = "management"

# One boto3 session for every test client: its loader keeps the parsed service models (mock_aws resets boto3's
# default session, which would reload them for every test).  Credentials are the fake ones from tests/conftest.
_SESSION = boto3.session.Session()


def new_client(service: str, region: str) -> Any:
    return _SESSION.client(service, region_name=region)


# --------------------------------------------------------------------------------------------------
# Clients: one moto "account" per profile, and the Stubber-routed clients verify gets
# --------------------------------------------------------------------------------------------------


class Routed:
    """A moto client whose operations in ``ops`` are answered by a stubbed twin (botocore Stubber)."""

    def __init__(self, moto_client: Any, stubbed: Any, ops: set[str]) -> None:
        self._moto, self._stubbed, self._ops = moto_client, stubbed, ops

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stubbed if name in self._ops else self._moto, name)

    def get_paginator(self, operation: str) -> Any:
        return (self._stubbed if operation in self._ops else self._moto).get_paginator(operation)

    def can_paginate(self, operation: str) -> bool:
        return (self._stubbed if operation in self._ops else self._moto).can_paginate(operation)


@dataclass
class FakeServices:
    """State of the APIs moto lacks, as the deployed landing zone would show it."""

    profiles: dict[str, list[dict]] = field(default_factory=dict)  # region -> profiles
    budget_subscribers: dict[tuple[str, tuple], list[dict]] = field(default_factory=dict)
    budget_actions: dict[str, list[dict]] = field(default_factory=dict)
    anomaly_monitors: list[dict] = field(default_factory=list)
    anomaly_subscriptions: list[dict] = field(default_factory=list)
    stack_instances: dict[str, list[dict]] = field(default_factory=dict)  # stack set -> instance summaries

    def profile(self, name: str) -> dict | None:
        return next((p for ps in self.profiles.values() for p in ps if p["inferenceProfileName"] == name), None)


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
        self._clients: dict[tuple[str, str, str], Any] = {}

    def raw(self, service: str, region: str | None = None, profile: str | None = None) -> Any:
        """A moto-backed client acting as the profile's account (cached: creating botocore clients is slow)."""
        account = self.accounts.get(profile, self.accounts[None])
        key = (service, region or self.default_region, account)
        if key not in self._clients:
            self._clients[key] = self._new(service, key[1], account)
        return self._clients[key]

    def _new(self, service: str, region: str, account: str) -> Any:
        client = new_client(service, region)

        def set_account(request: Any, **_: Any) -> None:
            request.headers["x-moto-account-id"] = account

        client.meta.events.register("before-sign.*.*", set_account)
        return client

    def factory(self, assembly: Assembly, fake: FakeServices) -> Callable[..., Any]:
        """The client factory for :func:`landing_zone.aws.use_client_factory`."""

        def make(service: str, *, region: str | None = None, profile: str | None = None) -> Any:
            moto_client = self.raw(service, region, profile)
            ops = STUBBED_OPERATIONS.get(service)
            if not ops:
                return moto_client
            stubbed = new_client(service, region or self.default_region)
            stubber = Stubber(stubbed)
            queue = {
                "bedrock": _queue_bedrock,
                "budgets": _queue_budgets,
                "ce": _queue_ce,
                "cloudformation": _queue_cloudformation,
            }[service]
            queue(
                stubber,
                assembly,
                fake,
                moto_client,
                region or self.default_region,
                self.accounts.get(profile, self.accounts[None]),
            )
            stubber.activate()
            self.stubbers.append(stubber)
            return Routed(moto_client, stubbed, ops)

        return make

    def assert_stubs_consumed(self) -> None:
        for stubber in self.stubbers:
            stubber.assert_no_pending_responses()


# The queues mirror verify's call order (template order), with the exact parameters verify must send.


def _queue_bedrock(
    stubber: Stubber, assembly: Assembly, fake: FakeServices, moto_client: Any, region: str, account: str
) -> None:
    profiles = [r for r in assembly.resources(PROFILE_TYPE) if (r.stack.region or region) == region]
    if not profiles:
        return
    summaries = [_profile_summary(p) for p in fake.profiles.get(region, [])]
    stubber.add_response(
        "list_inference_profiles", {"inferenceProfileSummaries": summaries}, {"typeEquals": "APPLICATION"}
    )
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
    stubber: Stubber, assembly: Assembly, fake: FakeServices, moto_client: Any, region: str, account: str
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
    stubber: Stubber, assembly: Assembly, fake: FakeServices, moto_client: Any, region: str, account: str
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


def _queue_ce(
    stubber: Stubber, assembly: Assembly, fake: FakeServices, moto_client: Any, region: str, account: str
) -> None:
    monitors = assembly.resources("AWS::CE::AnomalyMonitor")
    subscriptions = assembly.resources("AWS::CE::AnomalySubscription")
    if monitors or subscriptions:
        stubber.add_response("get_anomaly_monitors", {"AnomalyMonitors": fake.anomaly_monitors}, {})
    if subscriptions:
        stubber.add_response("get_anomaly_subscriptions", {"AnomalySubscriptions": fake.anomaly_subscriptions}, {})


# --------------------------------------------------------------------------------------------------
# Deploying the intent
# --------------------------------------------------------------------------------------------------


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

    def __call__(self, value: Any, stack: Stack) -> Any:
        if isinstance(value, dict) and len(value) == 1:
            ((fn, arg),) = value.items()
            if fn == "Ref":
                pseudo = {
                    "AWS::AccountId": self.account_of(stack),
                    "AWS::Region": stack.region,
                    "AWS::Partition": "aws",
                    "AWS::URLSuffix": "amazonaws.com",
                    "AWS::StackName": stack.name,
                }
                if arg in pseudo:
                    return pseudo[arg]
                parameter = (stack.template.get("Parameters") or {}).get(arg)
                if parameter is not None:
                    return self.parameters.get(arg, parameter.get("Default"))
                return self.refs[f"{stack.name}/{arg}"]
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


def moto_accounts(assembly: Assembly, plan: Any) -> MotoAccounts:
    """Deployment account = the account of the non-SCP stacks; management account = the SCP stack's."""
    deployment = plan.config.deployment_account
    management = plan.config.organization.management_account_id if plan.config.organization else deployment
    return MotoAccounts({None: deployment, MANAGEMENT_PROFILE: management}, plan.config.home_region)


def deploy_intent(
    assembly: Assembly, plan: Any, accounts: MotoAccounts | None = None, *, parameters: dict[str, str] | None = None
) -> Deployed:
    """Create the assembly's intent in moto (inside an active ``mock_aws``) and return what was created.
    ``parameters``: values of template parameters (a StackSet member's overrides); others take their default."""
    accounts = accounts or moto_accounts(assembly, plan)
    values = _Values(assembly, accounts.accounts[None], parameters)
    fake = FakeServices()
    ids: dict[str, Any] = {}
    _organizations(assembly, plan, accounts, values, ids)
    _keys(assembly, accounts, values, ids)
    _iam_names(assembly, values)
    _network(assembly, accounts, values, ids)
    _buckets(assembly, accounts, values)
    _log_groups(assembly, accounts, values)
    _topics(assembly, accounts, values)
    _invocation_logging(assembly, accounts, values)
    _budgets(assembly, accounts, values, fake)
    _profiles(assembly, plan, values, fake)
    _alarms(assembly, accounts, values)
    _anomaly_detection(assembly, values, fake)
    _eks(assembly, accounts, values)
    _stack_sets(assembly, accounts, values, fake)
    return Deployed(assembly, plan, accounts, fake, ids)


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
        kms = accounts.raw("kms", res.stack.region)
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
        accounts.raw("kms", res.stack.region).create_alias(
            AliasName=res.prop("AliasName"), TargetKeyId=values(res.prop("TargetKeyId"), res.stack)
        )


def _iam_names(assembly: Assembly, values: _Values) -> None:
    """IAM is not verified; record the names and ARNs the stacks would give roles and managed policies."""
    for res in assembly.resources("AWS::IAM::Role"):
        name = res.prop("RoleName") or f"{res.stack.name}-{res.logical_id}"[:64]
        values.refs[res.path] = name
        values.atts[(res.path, "Arn")] = (
            f"arn:aws:iam::{values.account_of(res.stack)}:role{res.prop('Path', '/')}{name}"
        )
    for res in assembly.resources("AWS::IAM::ManagedPolicy"):
        name = res.prop("ManagedPolicyName") or f"{res.stack.name}-{res.logical_id}"[:128]
        values.refs[res.path] = f"arn:aws:iam::{values.account_of(res.stack)}:policy{res.prop('Path', '/')}{name}"
        values.atts[(res.path, "PolicyArn")] = values.refs[res.path]


def _network(assembly: Assembly, accounts: MotoAccounts, values: _Values, ids: dict) -> None:
    for res in assembly.resources("AWS::EC2::VPC"):
        ec2 = accounts.raw("ec2", res.stack.region)
        vpc = ec2.create_vpc(
            CidrBlock=values(res.prop("CidrBlock"), res.stack),
            TagSpecifications=[{"ResourceType": "vpc", "Tags": _tag_list(res.prop("Tags"))}],
        )["Vpc"]
        values.refs[res.path] = ids[res.path] = vpc["VpcId"]
        values.atts[(res.path, "CidrBlock")] = vpc["CidrBlock"]
    for res in assembly.resources("AWS::EC2::Subnet"):
        ec2 = accounts.raw("ec2", res.stack.region)
        subnet = ec2.create_subnet(
            VpcId=values(res.prop("VpcId"), res.stack),
            CidrBlock=values(res.prop("CidrBlock"), res.stack),
            AvailabilityZone=values(res.prop("AvailabilityZone"), res.stack),
        )["Subnet"]
        values.refs[res.path] = subnet["SubnetId"]
    for res in assembly.resources("AWS::EC2::RouteTable"):
        table = accounts.raw("ec2", res.stack.region).create_route_table(VpcId=values(res.prop("VpcId"), res.stack))[
            "RouteTable"
        ]
        values.refs[res.path] = table["RouteTableId"]
    for res in assembly.resources("AWS::EC2::SecurityGroup"):
        ec2 = accounts.raw("ec2", res.stack.region)
        vpc_id = values(res.prop("VpcId"), res.stack) if res.prop("VpcId") else None
        group = ec2.create_security_group(
            GroupName=f"{res.stack.name}-{res.logical_id}",
            Description=res.prop("GroupDescription", "-"),
            **({"VpcId": vpc_id} if vpc_id else {}),
        )
        values.refs[res.path] = group["GroupId"]
        values.atts[(res.path, "GroupId")] = group["GroupId"]
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


def _buckets(assembly: Assembly, accounts: MotoAccounts, values: _Values) -> None:
    """Buckets come from a moto CloudFormation stack named like the real one: their names (given or generated) are
    then on record (DescribeStackResource), as after ``cdk deploy``."""
    for stack in assembly.stacks:
        buckets = stack.resources("AWS::S3::Bucket")
        if not buckets:
            continue
        cfn = accounts.raw("cloudformation", stack.region)
        template: dict[str, Any] = {
            "Resources": {
                b.logical_id: {
                    "Type": "AWS::S3::Bucket",
                    **(
                        {"Properties": {"BucketName": values(b.prop("BucketName"), stack)}}
                        if b.prop("BucketName")
                        else {}
                    ),
                }
                for b in buckets
            }
        }
        stack_name, parameters = stack.name, []
        if stack.stack_set:  # a StackSet instance: generated stack name, the account's parameter values
            stack_name = f"{stack.name}-{uuid.uuid4()}"
            declared = stack.template.get("Parameters") or {}
            template["Parameters"] = {k: {"Type": "String"} for k in declared}
            parameters = [{"ParameterKey": k, "ParameterValue": str(values({"Ref": k}, stack))} for k in declared]
        cfn.create_stack(StackName=stack_name, TemplateBody=json.dumps(template), Parameters=parameters)
        s3 = accounts.raw("s3", stack.region)
        for b in buckets:
            name = cfn.describe_stack_resource(StackName=stack_name, LogicalResourceId=b.logical_id)[
                "StackResourceDetail"
            ]["PhysicalResourceId"]
            values.refs[b.path] = name
            values.atts[(b.path, "Arn")] = f"arn:aws:s3:::{name}"
            if b.prop("Tags"):
                s3.put_bucket_tagging(Bucket=name, Tagging={"TagSet": _tag_list(b.prop("Tags"))})


def _log_groups(assembly: Assembly, accounts: MotoAccounts, values: _Values) -> None:
    for res in assembly.resources("AWS::Logs::LogGroup"):
        logs = accounts.raw("logs", res.stack.region)
        name = res.prop("LogGroupName") or f"/{res.stack.name}/{res.logical_id}"
        key = values(res.prop("KmsKeyId"), res.stack) if res.prop("KmsKeyId") else None
        logs.create_log_group(logGroupName=name, **({"kmsKeyId": key} if key else {}))
        if res.prop("RetentionInDays"):
            logs.put_retention_policy(logGroupName=name, retentionInDays=res.prop("RetentionInDays"))
        values.refs[res.path] = name
        values.atts[(res.path, "Arn")] = (
            f"arn:aws:logs:{res.stack.region}:{values.account_of(res.stack)}:log-group:{name}:*"
        )


def _topics(assembly: Assembly, accounts: MotoAccounts, values: _Values) -> None:
    for res in assembly.resources("AWS::SNS::Topic"):
        sns = accounts.raw("sns", res.stack.region)
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
                "ActionId": str(uuid.uuid4()),
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
        name = res.prop("Name") or f"{res.stack.name}-{res.logical_id}"
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
