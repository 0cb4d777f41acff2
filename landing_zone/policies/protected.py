"""The protected-resource inventory: everything the landing zone owns or relies on, as data.

Each entry says what the resource is, who creates it (the landing zone's stacks, the CDK bootstrap, Organizations,
CDK itself under a generated name, StackSets), its CloudFormation types, its IAM resource types from the Service
Authorization Reference, and how the SCPs recognise it:

* ``name`` — an ARN pattern inside the landing zone's namespace (``<name>-*``, ``/<name>/*``, ``cdk-<qualifier>-*``,
  the bootstrap stack ``policy_guardrails.toolkit_stack_name``);
  ``DenyLandingZoneTampering`` / ``DenyExemptRoleTakeover`` deny every non-read action on those ARNs;
* ``tag`` — the ``landing-zone: <name>`` tag (random identifiers: keys, VPC parts, guardrails, profiles, the SCPs);
  ``DenyTaggedResourceTampering`` denies every non-read action on resources carrying it, and
  ``DenyLandingZoneTagChanges`` denies setting or removing that tag key in any spelling;
* ``name+tag`` — both (either one stops a change).

Three consumers read it: the guardrail builder (its name patterns are the SCPs' resources), the completeness tests
(``tests/cdk/test_inventory.py``: every synthesized resource is an entry and recognised as the entry says;
``tests/cdk/test_coverage.py``: every Write, Permissions management or Tagging action of the action database on these
resource types is denied), and the review report's coverage section.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from landing_zone.core.config import LandingZoneConfig

__all__ = ["CFN_TYPES_WITHIN", "ProtectedResource", "inventory", "name_patterns", "role_patterns"]

PARTITION = "aws"
Recognition = Literal["name", "tag", "name+tag", "none"]


@dataclass(frozen=True)
class ProtectedResource:
    what: str
    owner: str  # landing zone | CDK bootstrap | Organizations | CDK-generated | StackSets
    service: str  # IAM service prefix
    resource_types: tuple[str, ...]  # Service Authorization Reference resource types
    recognised_by: Recognition
    arn_patterns: tuple[str, ...] = ()  # with name recognition
    samples: tuple[tuple[str, str], ...] = ()  # (resource type, ARN of a protected resource) for the coverage test
    cfn_types: tuple[str, ...] = ()

    @property
    def by_name(self) -> bool:
        return "name" in self.recognised_by

    @property
    def by_tag(self) -> bool:
        return "tag" in self.recognised_by


# CloudFormation types that hold no state of their own in IAM terms: they are a property of another entry.
CFN_TYPES_WITHIN: dict[str, str] = {
    "AWS::IAM::Policy": "inline policy of a protected role (iam:PutRolePolicy on the role)",
    "AWS::Lambda::Permission": "resource policy of a protected function (lambda:AddPermission on the function)",
    "AWS::S3::BucketPolicy": "policy of a protected bucket (s3:PutBucketPolicy on the bucket)",
    "AWS::SNS::TopicPolicy": "policy of a protected topic (sns:SetTopicAttributes on the topic)",
    "AWS::SNS::Subscription": "subscription to a protected topic (sns:Subscribe on the topic)",
    "AWS::EC2::SubnetRouteTableAssociation": "association of a protected route table (ec2 actions on route-table)",
    "AWS::EC2::NetworkAclEntry": "entry of the protected network ACL (ec2:*NetworkAclEntry on the network-acl)",
    "AWS::EC2::SubnetNetworkAclAssociation": "association of the protected network ACL (ReplaceNetworkAclAssociation "
    "on the subnet and the network-acl)",
    "AWS::Bedrock::GuardrailVersion": "version of a protected guardrail (bedrock:CreateGuardrailVersion)",
    "AWS::Budgets::BudgetsAction": "action of a protected budget (budgets:*BudgetAction on budgetAction)",
    "AWS::Bedrock::EnforcedGuardrailConfiguration": "account setting, DenyAccountSettingChanges",
    "AWS::CDK::Metadata": "no resource",
    "AWS::Config::ConfigRule": "AWS Config rule (detection.config_rules): its ARN carries an ID, not its name, and "
    "CloudFormation puts no tag on it, so no name or tag deny reaches it (docs/DETECTION.md, residual risks: deleting "
    "it is not prevented; its compliance alert, an EventBridge rule, is protected by name)",
    "AWS::Events::EventBusPolicy": "a statement on the account's default event bus (shared with other teams, so not "
    "protected: removing it stops the management account's forwarded events; docs/DETECTION.md, residual risks)",
    "Custom::BedrockInvocationLogging": "account setting, DenyAccountSettingChanges; its function is protected",
    "Custom::BedrockModelAgreements": "agreement state held by Bedrock; its function is protected",
    "Custom::CostAllocationTags": "cost allocation tag status held by Billing; its function is protected",
    "Custom::BedrockDataRetention": "account setting, DenyDataRetentionModeChange and DenyAccountSettingChanges; its "
    "function is protected",
    "AWS::Bedrock::ResourcePolicy": "resource-based policy of a protected guardrail (bedrock:PutResourcePolicy and "
    "bedrock:DeleteResourcePolicy on the guardrail)",
    "Custom::CDKBucketDeployment": "objects in a protected bucket; its function is protected",
    "Custom::VpcRestrictDefaultSG": "rules of the protected VPC's default security group; its function is protected",
    "Custom::AWSCDK-EKS-KubernetesResource": "Kubernetes objects in the protected cluster; its function is protected",
}


def role_patterns(config: LandingZoneConfig, exempt_role_arns: tuple[str, ...]) -> tuple[str, ...]:
    """Role ARN patterns nobody but the exempt principals may change: every role of the landing zone's namespace
    in any account and under any path, and every role ARN an exemption matches (as the exemption states it: an
    exemption bound to one account protects its name in that account; a role of the same name elsewhere is not
    exempt, so it needs no protection)."""
    names = [f"cdk-{config.policy_guardrails.cdk_bootstrap_qualifier}-*", f"{config.name}-*"]
    if config.member_baseline.enabled:
        names += ["stacksets-exec-*", f"StackSet-{config.name}-*"]
    return tuple(dict.fromkeys([*(f"arn:{PARTITION}:iam::*:role/*{n}" for n in names), *exempt_role_arns]))


def name_patterns(config: LandingZoneConfig) -> tuple[str, ...]:
    """ARN patterns of everything protected by name except roles (``DenyLandingZoneTampering``)."""
    return tuple(
        pattern
        for entry in inventory(config)
        if entry.by_name and entry.resource_types != ("role",)
        for pattern in entry.arn_patterns
    )


def inventory(config: LandingZoneConfig, exempt_role_arns: tuple[str, ...] = ()) -> tuple[ProtectedResource, ...]:
    n, p, q = config.name, PARTITION, config.policy_guardrails.cdk_bootstrap_qualifier
    acc, reg = "111122223333", config.home_region
    stackset = config.member_baseline.enabled
    # CloudFormation names what it generates <stack name>-<logical id>-<suffix>; under StackSets the stack is
    # StackSet-<stack set name>-<uuid> (AWS CloudFormation user guide, "StackSets concepts").
    prefixes = (f"{n}-", f"StackSet-{n}-") if stackset else (f"{n}-",)
    entries = [
        ProtectedResource(
            "IAM roles: the landing zone's, the CDK bootstrap's, StackSets' and every exempt name",
            "landing zone, CDK bootstrap, StackSets",
            "iam",
            ("role",),
            "name+tag",
            role_patterns(config, exempt_role_arns),
            (("role", f"arn:{p}:iam::{acc}:role/{n}-invoker-app"),),
            ("AWS::IAM::Role",),
        ),
        ProtectedResource(
            "IAM managed policies (the kill switch's deny among them)",
            "landing zone",
            "iam",
            ("policy",),
            "name",
            (f"arn:{p}:iam::*:policy/{n}-*",),
            (("policy", f"arn:{p}:iam::{acc}:policy/{n}-invoke-app"),),
            ("AWS::IAM::ManagedPolicy",),
        ),
        ProtectedResource(
            "S3 buckets and their objects: invocation logs, and the CDK bootstrap's asset bucket",
            "landing zone, CDK bootstrap",
            "s3",
            ("bucket", "object"),
            "name",
            (f"arn:{p}:s3:::{n}-*", f"arn:{p}:s3:::cdk-{q}-assets-*"),
            (
                ("bucket", f"arn:{p}:s3:::{n}-invocation-logs-{acc}"),
                ("object", f"arn:{p}:s3:::{n}-invocation-logs-{acc}/AWSLogs/x.json.gz"),
            ),
            ("AWS::S3::Bucket",),
        ),
        ProtectedResource(
            "CloudWatch log groups and streams",
            "landing zone",
            "logs",
            ("log-group", "log-stream"),
            "name+tag",
            (
                f"arn:{p}:logs:*:*:log-group:/{n}/*",
                *((f"arn:{p}:logs:*:*:log-group:/aws/eks/{n}-*",) if config.self_hosting.enabled else ()),
                *(f"arn:{p}:logs:*:*:log-group:/aws/lambda/{x}*" for x in prefixes),
            ),
            (
                ("log-group", f"arn:{p}:logs:{reg}:{acc}:log-group:/{n}/bedrock/invocations"),
                ("log-stream", f"arn:{p}:logs:{reg}:{acc}:log-group:/{n}/bedrock/invocations:log-stream:s"),
            ),
            ("AWS::Logs::LogGroup",),
        ),
        ProtectedResource(
            "Lambda functions (custom-resource handlers and providers; CDK-generated ones by stack name and tag)",
            "landing zone, CDK-generated, StackSets",
            "lambda",
            ("function",),
            "name+tag",
            tuple(f"arn:{p}:lambda:*:*:function:{x}*" for x in prefixes),
            (("function", f"arn:{p}:lambda:{reg}:{acc}:function:{n}-invocation-logging"),),
            ("AWS::Lambda::Function",),
        ),
        ProtectedResource(
            "CloudFormation stacks and StackSets, the landing zone's own CDK bootstrap stack included (never the "
            "account's shared CDKToolkit)",
            "landing zone, CDK bootstrap, StackSets",
            "cloudformation",
            ("stack", "stackset") if stackset else ("stack",),
            "name",
            (
                *(f"arn:{p}:cloudformation:*:*:stack/{x}*" for x in prefixes),
                f"arn:{p}:cloudformation:*:*:stack/{config.policy_guardrails.toolkit_stack_name}/*",
                *((f"arn:{p}:cloudformation:*:*:stackset/{n}-*",) if stackset else ()),
            ),
            (
                ("stack", f"arn:{p}:cloudformation:{reg}:{acc}:stack/{n}-access/0a1b"),
                ("stackset", f"arn:{p}:cloudformation:{reg}:{acc}:stackset/{n}-baseline:0a1b"),
            )
            if stackset
            else (("stack", f"arn:{p}:cloudformation:{reg}:{acc}:stack/{n}-access/0a1b"),),
            ("AWS::CloudFormation::Stack", "AWS::CloudFormation::StackSet"),
        ),
        ProtectedResource(
            "budgets and their budget actions (the kill switch)",
            "landing zone",
            "budgets",
            ("budget", "budgetAction"),
            "name",
            (f"arn:{p}:budgets::*:budget/{n}-*",),
            (
                ("budget", f"arn:{p}:budgets::{acc}:budget/{n}-monthly"),
                ("budgetAction", f"arn:{p}:budgets::{acc}:budget/{n}-monthly/action/0a1b"),
            ),
            ("AWS::Budgets::Budget",),
        ),
        ProtectedResource(
            "SNS alert topics",
            "landing zone",
            "sns",
            ("topic",),
            "name+tag",
            (f"arn:{p}:sns:*:*:{n}-*",),
            (("topic", f"arn:{p}:sns:{reg}:{acc}:{n}-alerts"),),
            ("AWS::SNS::Topic",),
        ),
        ProtectedResource(
            "CloudWatch alarms and the operations dashboard",
            "landing zone",
            "cloudwatch",
            ("alarm", "dashboard"),
            "name",
            (f"arn:{p}:cloudwatch:*:*:alarm:{n}-*", f"arn:{p}:cloudwatch::*:dashboard/{n}-*"),
            (
                ("alarm", f"arn:{p}:cloudwatch:{reg}:{acc}:alarm:{n}-spend-rate"),
                ("dashboard", f"arn:{p}:cloudwatch::{acc}:dashboard/{n}-operations"),
            ),
            ("AWS::CloudWatch::Alarm", "AWS::CloudWatch::Dashboard"),
        ),
        ProtectedResource(
            "EventBridge rules of the detection stacks (disabling one, or removing its target, blinds it)",
            "landing zone",
            "events",
            ("rule-on-default-event-bus",),
            "name",
            (f"arn:{p}:events:*:*:rule/{n}-*",),
            (("rule-on-default-event-bus", f"arn:{p}:events:{reg}:{acc}:rule/{n}-detect-account-settings-bedrock"),),
            ("AWS::Events::Rule",),
        ),
        ProtectedResource(
            "KMS key aliases",
            "landing zone",
            "kms",
            ("alias",),
            "name",
            (f"arn:{p}:kms:*:*:alias/{n}/*",),
            (("alias", f"arn:{p}:kms:{reg}:{acc}:alias/{n}/logs"),),
            ("AWS::KMS::Alias",),
        ),
        ProtectedResource(
            "KMS keys",
            "landing zone",
            "kms",
            ("key",),
            "tag",
            (),
            (("key", f"arn:{p}:kms:{reg}:{acc}:key/1234abcd-12ab-34cd-56ef-1234567890ab"),),
            ("AWS::KMS::Key",),
        ),
        ProtectedResource(
            "the network: VPC, subnets, their network ACL, route tables, security groups, endpoints, flow logs, "
            "launch templates",
            "landing zone",
            "ec2",
            (
                "vpc",
                "subnet",
                "network-acl",
                "route-table",
                "security-group",
                "security-group-rule",
                "vpc-endpoint",
                "vpc-flow-log",
                "launch-template",
            ),
            "tag",
            (),
            tuple(
                (rt, f"arn:{p}:ec2:{reg}:{acc}:{rt}/{short}-0a1b2c3d")
                for rt, short in (
                    ("vpc", "vpc"),
                    ("subnet", "subnet"),
                    ("network-acl", "acl"),
                    ("route-table", "rtb"),
                    ("security-group", "sg"),
                    ("security-group-rule", "sgr"),
                    ("vpc-endpoint", "vpce"),
                    ("vpc-flow-log", "fl"),
                    ("launch-template", "lt"),
                )
            ),
            (
                "AWS::EC2::VPC",
                "AWS::EC2::Subnet",
                "AWS::EC2::NetworkAcl",
                "AWS::EC2::RouteTable",
                "AWS::EC2::SecurityGroup",
                "AWS::EC2::VPCEndpoint",
                "AWS::EC2::FlowLog",
                "AWS::EC2::LaunchTemplate",
            ),
        ),
        ProtectedResource(
            "Bedrock guardrails and application inference profiles",
            "landing zone",
            "bedrock",
            ("guardrail", "application-inference-profile"),
            "tag",
            (),
            (
                ("guardrail", f"arn:{p}:bedrock:{reg}:{acc}:guardrail/abc123"),
                ("application-inference-profile", f"arn:{p}:bedrock:{reg}:{acc}:application-inference-profile/a1"),
            ),
            ("AWS::Bedrock::Guardrail", "AWS::Bedrock::ApplicationInferenceProfile"),
        ),
        ProtectedResource(
            "Cost Anomaly Detection monitor and subscription",
            "landing zone",
            "ce",
            ("anomalymonitor", "anomalysubscription"),
            "tag",
            (),
            (
                ("anomalymonitor", f"arn:{p}:ce::{acc}:anomalymonitor/0a1b"),
                ("anomalysubscription", f"arn:{p}:ce::{acc}:anomalysubscription/0a1b"),
            ),
            ("AWS::CE::AnomalyMonitor", "AWS::CE::AnomalySubscription"),
        ),
        ProtectedResource(
            "the CDK bootstrap's container asset repository",
            "CDK bootstrap",
            "ecr",
            ("repository",),
            "name",
            (f"arn:{p}:ecr:*:*:repository/cdk-{q}-container-assets-*",),
            (("repository", f"arn:{p}:ecr:{reg}:{acc}:repository/cdk-{q}-container-assets-{acc}-{reg}"),),
        ),
        ProtectedResource(
            "SSM parameters: the CDK bootstrap version, and the landing zone's (by stack-name prefix and tag)",
            "CDK bootstrap, CDK-generated",
            "ssm",
            ("parameter",),
            "name+tag",
            (f"arn:{p}:ssm:*:*:parameter/cdk-bootstrap/{q}/*", *(f"arn:{p}:ssm:*:*:parameter/{x}*" for x in prefixes)),
            (("parameter", f"arn:{p}:ssm:{reg}:{acc}:parameter/cdk-bootstrap/{q}/version"),),
            ("AWS::SSM::Parameter",),
        ),
        ProtectedResource(
            "the guardrail SCPs themselves (against a delegated administrator of Organizations policies)",
            "Organizations",
            "organizations",
            ("policy",),
            "tag",
            (),
            (("policy", f"arn:{p}:organizations::{acc}:policy/o-a1b2c3d4e5/service_control_policy/p-a1b2c3d4"),),
            ("AWS::Organizations::Policy",),
        ),
    ]
    if config.access.mantle_projects is not False:  # true, or auto (created where it can act)
        entries.append(
            ProtectedResource(
                "Bedrock Mantle Projects (one per application; inference in them is a use action)",
                "landing zone",
                "bedrock-mantle",
                ("project",),
                "tag",
                (),
                (("project", f"arn:{p}:bedrock-mantle:{reg}:{acc}:project/proj_a1b2c3"),),
                ("AWS::BedrockMantle::Project",),
            )
        )
    if config.self_hosting.enabled:
        entries.append(
            ProtectedResource(
                "the EKS cluster, node groups and add-ons",
                "landing zone",
                "eks",
                ("cluster", "nodegroup", "addon"),
                "tag",
                (),
                (
                    ("cluster", f"arn:{p}:eks:{reg}:{acc}:cluster/{n}-inference"),
                    ("nodegroup", f"arn:{p}:eks:{reg}:{acc}:nodegroup/{n}-inference/gpu/0a1b"),
                    ("addon", f"arn:{p}:eks:{reg}:{acc}:addon/{n}-inference/vpc-cni/0a1b"),
                ),
                ("AWS::EKS::Cluster", "AWS::EKS::Nodegroup", "AWS::EKS::Addon"),
            )
        )
    return tuple(entries)
