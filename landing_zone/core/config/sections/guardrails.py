"""The policy guardrails, data retention and detection sections."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import (
    Field,
    model_validator,
)

from landing_zone.core.config.sections.common import PrincipalArn, _matches, _Problem, _raise_all, _Strict

# The CDK bootstrap qualifier (`cdk bootstrap --qualifier`): 1-10 lowercase letters or digits.
CDK_QUALIFIER = re.compile(r"^[a-z0-9]{1,10}$")
DEFAULT_CDK_QUALIFIER = "hnb659fds"
# CloudFormation stack names: "can contain only alphanumeric characters (case-sensitive) and hyphens. It must start with
# an alphabetic character and can't be longer than 128 characters" (AWS CloudFormation API reference, CreateStack,
# StackName: https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_CreateStack.html).
CFN_STACK_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9-]{0,127}$")
# The stack `cdk bootstrap` creates or updates when no --toolkit-stack-name is given: the account's shared bootstrap.
DEFAULT_CDK_TOOLKIT_STACK = "CDKToolkit"
# A role ARN with a 12-digit account; the name may end in '*' (then every role so named is protected too).
EXEMPT_ROLE_ARN = re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+\*?$")
ExemptRoleArn = Annotated[
    str,
    _matches(
        EXEMPT_ROLE_ARN,
        "must be an IAM role ARN with a 12-digit account ID, e.g. 'arn:aws:iam::222222222222:role/lz-break-glass' "
        "(a trailing '*' is allowed; no '*' in the account: a name alone can be claimed by any account)",
    ),
]


# Amazon Bedrock API keys (https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-permissions.html):
# none = no key may be created or used; short-term-only = long-term keys are neither created nor accepted, short-term
# keys (pre-signed, at most 12 hours, https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_bedrock.html)
# are accepted from api_key_principal_arns only.
ApiKeyPolicy = Literal["none", "short-term-only"]

# An EventBridge event bus ARN with a 12-digit account ("arn:aws:events:<region>:<account>:event-bus/<name>"; a bus
# name is 1-256 of letters, digits and . - _ /: EventBridge API reference, CreateEventBus).
EVENT_BUS_ARN = re.compile(r"^arn:aws[a-z-]*:events:[a-z]{2}(-[a-z]+)+-\d:\d{12}:event-bus/[A-Za-z0-9._/-]{1,256}$")
EventBusArn = Annotated[
    str,
    _matches(
        EVENT_BUS_ARN,
        "must be an EventBridge event bus ARN with a Region and a 12-digit account, e.g. "
        "'arn:aws:events:eu-central-1:555555555555:event-bus/security-events'",
    ),
]
# Amazon Bedrock service tiers, as the API writes them (https://docs.aws.amazon.com/bedrock/latest/APIReference/
# API_runtime_ServiceTier.html: "Valid Values: priority | default | flex | reserved"; 'default' is Standard).
ServiceTier = Literal["reserved", "priority", "default", "flex"]
# Account / project data retention modes (https://docs.aws.amazon.com/bedrock/latest/APIReference/
# API_PutAccountDataRetention.html and API_ProjectDataRetention.html: default | none | aws_review |
# provider_data_share | inherit; 'none' is zero data retention).
DataRetentionMode = Literal["default", "none", "provider_data_share", "aws_review", "inherit"]
_OLD_API_KEY_FLAGS = ("deny_api_key_creation", "deny_bearer_token_calls")


class PolicyGuardrails(_Strict):
    """The deny statements carried by the SCPs (organization) or the permissions boundary (single account)."""

    api_keys: ApiKeyPolicy = Field(
        default="none",
        description="Amazon Bedrock API keys. none: deny creating long-term keys "
        "(iam:CreateServiceSpecificCredential for bedrock*) and every API-key call "
        "(bedrock:CallWithBearerToken, bedrock-mantle:CallWithBearerToken). short-term-only: deny creating long-term "
        "keys, deny every bearer call whose BearerTokenType is not SHORT_TERM, and deny short-term calls to every "
        "principal but api_key_principal_arns.",
    )
    api_key_principal_arns: tuple[PrincipalArn, ...] = Field(
        default=(),
        description="With api_keys: short-term-only, the principals (aws:PrincipalArn patterns with a 12-digit "
        "account) that may call Bedrock with a short-term API key. Required then; refused with api_keys: none.",
    )
    deny_api_key_creation: bool = Field(
        default=True,
        description="Older switch, honoured with api_keys: none only: false drops the deny of "
        "iam:CreateServiceSpecificCredential for Bedrock (long-term API keys). Refused with short-term-only.",
    )
    deny_bearer_token_calls: bool = Field(
        default=True,
        description="Older switch, honoured with api_keys: none only: false drops the deny of "
        "bedrock:CallWithBearerToken and bedrock-mantle:CallWithBearerToken. Refused with short-term-only.",
    )
    allowed_service_tiers: tuple[ServiceTier, ...] = Field(
        default=("default",),
        min_length=1,
        description="Service tiers inference may request (bedrock:ServiceTier on InvokeModel and "
        "InvokeModelWithResponseStream, bedrock-mantle:ServiceTier on CreateInference). A request without a tier "
        "runs in the default (Standard) tier and carries no key, so 'default' must be listed. All four: no deny.",
    )
    agentcore_controls: bool = Field(
        default=True,
        description="Deny AgentCore gateways without inbound authorization (GatewayAuthorizerType NONE) and "
        "AgentCore runtimes, code interpreters and browsers without VPC configuration (Security Hub "
        "BedrockAgentCore.1/.2).",
    )
    tamper_protection: bool = Field(
        default=True,
        description="Deny changing the landing zone's logging, keys, endpoints, flow logs, roles, policies, "
        "functions, budgets, alarms and stacks (by name and by the landing-zone tag), changing the landing-zone "
        "tag itself, and taking over the exempt roles, to every principal but the exempt ones "
        "(docs/THREAT_MODEL.md).",
    )
    cdk_bootstrap_qualifier: Annotated[str, _matches(CDK_QUALIFIER, "must be 1-10 lowercase letters or digits")] = (
        Field(
            default=DEFAULT_CDK_QUALIFIER,
            description="Qualifier of the CDK bootstrap in the deployment account (`cdk bootstrap --qualifier`). "
            "Its roles cdk-<qualifier>-*-role-<account>-<home_region> are the exempt deployment principals.",
        )
    )
    cdk_toolkit_stack_name: (
        Annotated[
            str,
            _matches(
                CFN_STACK_NAME,
                "must be a CloudFormation stack name: a letter, then letters, digits and '-', at most 128 characters",
            ),
        ]
        | None
    ) = Field(
        default=None,
        description="Name of the landing zone's own CDK bootstrap stack (`cdk bootstrap --toolkit-stack-name`), next "
        "to its own qualifier; omitted: cdk-<cdk_bootstrap_qualifier>-toolkit. Never CDKToolkit, the account's shared "
        "bootstrap: bootstrapping it with the landing zone's qualifier would re-parameterise every other app's "
        "bootstrap. The tamper SCP protects this stack, never CDKToolkit.",
    )

    @property
    def toolkit_stack_name(self) -> str:
        """The landing zone's CDK bootstrap stack: ``cdk_toolkit_stack_name``, else cdk-<qualifier>-toolkit."""
        return self.cdk_toolkit_stack_name or f"cdk-{self.cdk_bootstrap_qualifier}-toolkit"

    deployment_principal_arns: tuple[ExemptRoleArn, ...] = Field(
        default=(),
        description="Further roles exempt from tamper protection (e.g. a break-glass role that runs "
        "`cdk bootstrap`), each with its 12-digit account ID. Omitted: only the CDK bootstrap roles of the "
        "deployment account in home_region, the StackSets execution roles (member_baseline) and the landing "
        "zone's own automation roles are exempt. Every exempt role name is protected from being created, "
        "re-trusted, re-policied, re-tagged, passed or deleted by anyone else.",
    )
    deployer_principal_arns: tuple[ExemptRoleArn, ...] = Field(
        default=(),
        description="Roles inside the targeted accounts that may assume the CDK bootstrap roles (run `cdk deploy`). "
        "Omitted: no principal of a targeted account may; deploy from an account outside organization.target_ids "
        "trusted at bootstrap (`cdk bootstrap --trust`). Their names are protected like the exempt roles'.",
    )
    region_deny_all_services: bool = Field(
        default=False,
        description="Also deny every service outside compliant_regions, except global services (catalog list).",
    )
    confine_model_calling_services: bool = Field(
        default=True,
        description="Deny the services that call generative models with their own principal (Amazon Q, Connect, "
        "Lex, Transcribe, SageMaker AI, ...: core/catalog/model_calling_services.yaml) outside compliant_regions. "
        "Off: only the Bedrock services are confined (region_deny_all_services confines everything).",
    )
    scp_max_characters: int | None = Field(
        default=None, ge=1000, le=100_000, description="Override of the catalog limit (10,240 since 15 May 2026)."
    )
    scp_max_per_target: int | None = Field(
        default=None,
        ge=2,
        le=50,
        description="Override of the catalog limit (10 since 15 May 2026, including FullAWSAccess).",
    )
    other_scps_per_target: int = Field(
        default=0,
        ge=0,
        le=48,
        description="SCPs of others (yours, Control Tower's, LZA's) attached directly to each target besides "
        "FullAWSAccess and ours; inherited ones take no slot. preflight reads the real count.",
    )

    @model_validator(mode="after")
    def _api_keys_and_tiers(self) -> PolicyGuardrails:
        problems: list[_Problem] = []
        if self.api_keys == "short-term-only":
            for flag in _OLD_API_KEY_FLAGS:
                if flag in self.model_fields_set:
                    problems.append(
                        (
                            (flag,),
                            getattr(self, flag),
                            "not with api_keys: short-term-only, which decides key creation and bearer calls "
                            "itself: remove this key (it is honoured with api_keys: none only)",
                        )
                    )
            if not self.api_key_principal_arns:
                problems.append(
                    (
                        ("api_key_principal_arns",),
                        [],
                        "api_keys: short-term-only needs the principals that may call with a short-term key; list "
                        "their ARNs, or set api_keys: none to deny every API-key call",
                    )
                )
        elif self.api_key_principal_arns:
            problems.append(
                (
                    ("api_key_principal_arns",),
                    list(self.api_key_principal_arns),
                    "only with api_keys: short-term-only (api_keys: none denies every API-key call)",
                )
            )
        if "default" not in self.allowed_service_tiers:
            problems.append(
                (
                    ("allowed_service_tiers",),
                    list(self.allowed_service_tiers),
                    "must include 'default': a request that names no tier runs in the default (Standard) tier and "
                    "carries no bedrock:ServiceTier key, so IAM cannot deny it (allowed values: reserved, priority, "
                    "default, flex)",
                )
            )
        _raise_all(problems)
        return self


class DataRetention(_Strict):
    """The Bedrock data retention mode the guardrails enforce (per Region, account and project level:
    https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html)."""

    mode: DataRetentionMode | None = Field(
        default=None,
        description="Omitted: not governed (with tamper_protection the account setting is still denied to "
        "non-exempt principals). Set: the SCPs deny bedrock:PutAccountDataRetention unless bedrock:DataRetentionMode "
        "is this mode, and bedrock-mantle:PutAccountDataRetention, CreateProject and UpdateProject unless "
        "bedrock-mantle:DataRetentionMode is, to every principal but the exempt deployment principals. 'none' is "
        "zero data retention; a model that requires retention is then blocked. Set, the access stack also applies it "
        "in home_region (custom resource calling bedrock:PutAccountDataRetention; verify reads it back).",
    )
    take_over_existing: bool = Field(
        default=False,
        description="The Region's mode is read first; a mode someone else set (neither inherit nor this mode) fails "
        "the deploy, naming it. true: take it over. Either way the mode found is saved and put back when the access "
        "stack is deleted (inherit when the Region had never been configured).",
    )

    @model_validator(mode="after")
    def _take_over(self) -> DataRetention:
        if self.take_over_existing and self.mode is None:
            _raise_all([(("take_over_existing",), True, "applies only with a mode; allowed here: false")])
        return self


class Detection(_Strict):
    """Detective controls for what the SCPs cannot prevent (docs/DETECTION.md): EventBridge rules on CloudTrail
    management events, delivered to the landing zone's alerts topic (and, with ``central_event_bus_arn``, to a central
    account's event bus), and an alarm on legacy-model invocations."""

    enabled: bool | None = Field(
        default=None,
        description="Omitted: on with an organization block (organization mode), off in single-account mode. true: "
        "the detection stacks are deployed (the deployment account's home_region, us-east-1 for the global services' "
        "events, and the management account's us-east-1 for Organizations' events). false: none is.",
    )
    legacy_model_alarm: bool = Field(
        default=True,
        description="An alarm on AWS/Bedrock LegacyModelInvocations for each allowed model (a model past its "
        "legacy date is still being called).",
    )

    config_rules: bool | None = Field(
        default=None,
        description="AWS Config rules in the detection stack (home_region), so the account is checked continuously "
        "between two runs of verify: the default security group closed, the landing-zone tag on the protected "
        "resources, and (a custom Lambda rule, hourly) the invocation logging destination, the data retention mode "
        "and the enforced guardrail as the configuration sets them. The rules need a configuration recorder that "
        "is recording (e.g. Control Tower's): the landing zone never creates a recorder or a delivery channel, and "
        "preflight warns when none records. Opt-in (omitted: off): REQUIRED_TAGS, and the default security group rule "
        "with an imported VPC, evaluate every resource of their types in the account, other teams' too, so they suit "
        "an account the landing zone has to itself; "
        "the custom rule judges only the landing zone's settings, but no Config rule deploys without a recorder, "
        "which synth cannot know. true needs detection on.",
    )
    central_event_bus_arn: EventBusArn | None = Field(
        default=None,
        description="Organization mode: a central (security) account's event bus that every detection rule also "
        "delivers its CloudTrail event to, as it is: the detection stack's with the role "
        "<name>-detect-central-forwarder (events:PutEvents on this bus only), the forwarding stacks' (us-east-1, the "
        "management account) with their forwarder role; the alerts topic still gets the alert. "
        "The bus's own policy must admit the deployment account (docs/DETECTION.md, 'Delivery to a central event "
        "bus'). Omitted: the alerts topic only. Refused without an organization block, with member_baseline, with "
        "detection off, and when it names the deployment account.",
    )

    @model_validator(mode="after")
    def _config_rules_need_detection(self) -> Detection:
        if self.config_rules and self.enabled is False:
            raise ValueError(
                "config_rules: true needs the detection stack, and enabled is false; allowed: config_rules false or "
                "omitted, or enabled true or omitted"
            )
        return self

    def on(self, organization_mode: bool) -> bool:
        return organization_mode if self.enabled is None else self.enabled

    def config_rules_on(self, organization_mode: bool) -> bool:
        """Whether the AWS Config rules are deployed (given detection is): only when asked for.  Not on by default
        in organization mode like the rest of detection: REQUIRED_TAGS (and VPC_DEFAULT_SECURITY_GROUP_CLOSED with an
        imported VPC) can only be scoped by resource type, so in an account shared with other teams they would judge
        (and alert on) their resources too; and the deploy fails where no recorder records, which synth cannot know
        (so the account-settings rule, which judges only the landing zone's settings, stays opt-in too)."""
        del organization_mode  # the same answer in both modes
        return bool(self.config_rules)
