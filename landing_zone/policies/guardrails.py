"""Guardrail deny statements, compiled from the routing decision — one builder for two carriers:

* Organizations SCPs (:mod:`landing_zone.policies.scp_layout`: one named SCP per concern, attached where the
  governed perimeter says), every statement below, and
* the permissions boundary of the invoker roles (``permissions_boundary``): an inference ceiling minus the
  *inference* statements (1-6).  The tamper statements are left out there: the ceiling already denies
  everything but inference to the invoker roles, and a boundary cannot protect anything from an account
  administrator (who can simply use another role) — only an SCP can.

The adversary these statements are written against is an administrator of a targeted member account
(docs/THREAT_MODEL.md; the review report's "Threat model" section evaluates every attack in
``landing_zone/tables/attacks.py`` against the synthesized SCPs).

Inference (no principal is exempt):

1. ``DenyBedrockOutsideCompliantRegions`` — *every* action of every ``bedrock*`` prefix the IAM action database
   lists (``bedrock``, ``bedrock-agentcore``, ``bedrock-mantle``, ``bedrock-websearch``: agents, flows, knowledge
   bases, CountTokens, evaluation, batch, web search, actions added later) whose ``aws:RequestedRegion`` is not
   compliant.  The Region-less leg of a global profile carries ``aws:RequestedRegion = "unspecified"``: denied
   unless ``allow_global_inference``.
2. ``DenyGlobalInferenceProfiles`` — the global profile resources themselves (their source leg is in a
   compliant Region), unless ``allow_global_inference``.
3. ``DenyUnlistedModels`` — model-taking runtime actions on anything but the allowed models' foundation-model
   ARNs, their compliant system profiles, application profiles (whose model legs are checked here too) and
   batch-job ARNs (``CreateModelInvocationJob`` is also authorised against the job resource).
4. ``DenyUnlistedMantleModels`` — any Mantle action that carries ``bedrock-mantle:Model`` naming a model that
   is not allowed; ``DenyMantleInferenceWithoutModel`` — Mantle inference/fine-tuning without the key.
5. ``DenyBedrockApiKeyCreation`` / ``DenyBearerTokenCalls`` — long-term API keys and API-key calls
   (``api_keys: none``); with ``api_keys: short-term-only``, ``DenyLongTermBearerTokenCalls`` /
   ``DenyLongTermMantleBearerTokenCalls`` / ``DenyBearerTokenCallsByUnlistedPrincipals`` instead of the blanket
   bearer deny (:func:`api_key_statements`).
5a. ``DenyUnlistedServiceTiers`` / ``DenyUnlistedMantleServiceTiers`` — inference that requests a service tier not in
   ``allowed_service_tiers`` (``landing_zone.policies.invoke.service_tier_statements``).

Tamper protection (``tamper_protection``; exempt: the principals of :func:`exemptions`):

6. ``DenyExemptRoleTakeover`` — creating, re-trusting, re-policying, re-tagging, passing or deleting any role
   whose name an exemption matches (CDK bootstrap roles, StackSets execution roles, ``<name>-automation-*``,
   the configured extra roles) and every other ``<name>-*`` role: an exemption cannot be claimed by naming
   a role, nor by rewriting the real one.
7. ``DenyDeploymentRoleAssumption`` — assuming the CDK bootstrap roles, except ``deployer_principal_arns``
   (deploy from outside the targeted accounts otherwise).
8. ``DenyLandingZoneTampering`` — by *name*, where the landing zone controls it (``<name>-`` prefixes,
   ``/<name>/`` log-group paths): managed policies, buckets and their objects, log groups, functions,
   stacks and StackSets, budgets and budget actions, topics, alarms, key aliases.
9. ``DenyTaggedResourceTampering`` — by the ``landing-zone`` tag, where names are random: keys, VPC
   endpoints, flow logs, guardrails, application profiles, Mantle Projects, anomaly monitors, the EKS cluster.
10. ``DenyLandingZoneTagChanges`` — setting, changing or removing the ``landing-zone`` tag on any resource
    (``aws:TagKeys``), so statement 9 cannot be escaped by re-tagging.
11. ``DenyAccountSettingChanges`` — the account-level singletons: invocation logging, the enforced guardrail,
    the CloudWatch Logs account policy.
12. ``DenyGuardrailPolicyTypeChanges`` — leaving the organization would drop every SCP (nobody is exempt);
    ``DenyDisablingLandingZonePolicyTypes`` / ``DenyMovingTargetsAccounts`` (:mod:`landing_zone.policies.org_structure`)
    — disabling the policy types the landing zone uses, moving accounts out from under the targets.

AgentCore and data retention (SCP only: the invoker ceiling leaves these actions out):

12a. ``DenyAgentCoreGatewayWithoutAuthorizer`` / ``DenyAgentCoreWithoutVpc`` (``agentcore_controls``; nobody is
     exempt) — gateways without inbound authorization, runtimes, code interpreters and browsers without a VPC.
12b. ``DenyDataRetentionModeChange`` / ``DenyMantleDataRetentionModeChange`` (``data_retention.mode``; exempt: the
     principals of :func:`exemptions`) — setting any other data retention mode, on the account or a Mantle project.

Optional:

13. ``DenyOutsideCompliantRegions`` (``region_deny_all_services``) — every non-global service outside the
    compliant Regions (self-hosted weights in another Region, services that call models for you).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from landing_zone.core.catalog import Catalog
from landing_zone.core.catalog.action_space import (
    PROTECTED_SERVICES,
    load_action_space,
    load_data_automation_profiles,
    load_model_calling_services,
)
from landing_zone.core.config import LandingZoneConfig
from landing_zone.core.routing import RoutingDecision
from landing_zone.errors import LandingZoneError
from landing_zone.policies import condition_keys, sids
from landing_zone.policies.alert_subscriptions import SUBSCRIBE_ACTIONS, alert_subscription_statements
from landing_zone.policies.common import document, statement
from landing_zone.policies.invoke import (
    BATCH_ACTIONS,
    MANTLE_INVOKE_ACTIONS,
    MANTLE_MODEL_KEY,
    RUNTIME_INVOKE_ACTIONS,
    service_tier_statements,
)
from landing_zone.policies.network_guardrails import network_statements
from landing_zone.policies.org_structure import structure_statements
from landing_zone.policies.protected import name_patterns, role_patterns

LANDING_ZONE_TAG = "landing-zone"
PARTITION = "aws"

# Every action of every prefix of the Bedrock family (``bedrock*`` in the IAM action database: bedrock,
# bedrock-agentcore, bedrock-mantle, bedrock-websearch, and any prefix a refresh of the database brings): confined by
# Region whatever the action is called (the rule is in landing_zone/actiondb/space.py).
BEDROCK_SERVICES = tuple(f"{prefix}:*" for prefix in load_action_space().bedrock_prefixes)
# Mantle actions that carry bedrock-mantle:Model and must always carry it.
MANTLE_MODEL_ACTIONS = (*MANTLE_INVOKE_ACTIONS, "bedrock-mantle:CreateFineTuningJob")


def model_actions() -> tuple[str, ...]:
    """Every action that runs a model or creates something that does, from the IAM action database
    (``landing_zone/core/catalog/action_space.yaml``; the rule is in ``landing_zone/actiondb/space.py``)."""
    return load_action_space().model_actions


# The runtime subset an invoker's ceiling can reach (the prover's P5 checks these on the invoker's permissions).
MODEL_ACTIONS = (*RUNTIME_INVOKE_ACTIONS, *BATCH_ACTIONS, "bedrock:CountTokens")

LOGGING_CONFIG_ACTIONS = (
    "bedrock:PutModelInvocationLoggingConfiguration",
    "bedrock:DeleteModelInvocationLoggingConfiguration",
)
# Actions with no resource type (authorized on "*") that change something the landing zone relies on.  The other
# resource-less actions of the protected services were each decided in landing_zone/policies/exceptions.yaml.
ACCOUNT_SETTING_ACTIONS = (
    *LOGGING_CONFIG_ACTIONS,
    "bedrock:PutEnforcedGuardrailConfiguration",
    "bedrock:DeleteEnforcedGuardrailConfiguration",
    "logs:PutAccountPolicy",  # an account-wide data-protection / transformer policy would rewrite the logs
    "logs:DeleteAccountPolicy",
    "ce:UpdateCostAllocationTagsStatus",  # deactivating the cost-allocation tags blinds the tagged budget
    "logs:PutPipelineRule",  # account-wide ingestion pipelines could rewrite what reaches the log groups
    "logs:DeletePipelineRule",
    "logs:CallWithBearerToken",  # API-key ingestion would bypass the log writers' roles
    "logs:PutStorageTierPolicy",  # account-wide storage tier of the log groups
    "bedrock:PutAccountDataRetention",  # where prompts and completions are kept (data-retention.html)
    "bedrock-mantle:PutAccountDataRetention",  # the same account setting through Mantle (PUT /v1/data_retention)
)
# Every non-read action on a protected resource is denied: the NotAction of the tamper denies is the read actions of
# the protected services (derived from the action database) plus the USE actions below, which use a protected
# resource without changing it.  Each is a reviewed exception with its reason in landing_zone/policies/exceptions.yaml.
USE_ACTIONS = (
    "kms:Decrypt",
    "kms:Encrypt",
    "kms:GenerateDataKey*",
    "kms:ReEncrypt*",
    "ec2:RunInstances",
    "ec2:CreateNetworkInterface",
    "sns:Publish",
    "sts:AssumeRole",
    "sts:TagSession",
    "sts:SetSourceIdentity",
    # reading the logs is allowed (docs/THREAT_MODEL.md): an export task copies a log group's events to a bucket and
    # changes nothing of the group (its access level is Write only because it creates the task)
    "logs:CreateExportTask",
    # running inference in a landing-zone Mantle Project (CreateInference and the request's cancel/delete, derived
    # from the action database: landing_zone/actiondb/space.py); the project's own settings and tags stay denied
    *load_action_space().project_use_actions,
)
# Appending to a protected log group: only its delivery roles (and the exempt principals) may.
LOG_WRITE_ACTIONS = ("logs:CreateLogStream", "logs:PutLogEvents")
# Event-source mappings have no resource type: they name the function in lambda:FunctionArn.
EVENT_SOURCE_ACTIONS = (
    "lambda:CreateEventSourceMapping",
    "lambda:UpdateEventSourceMapping",
    "lambda:DeleteEventSourceMapping",
)
ASSUME_ROLE_ACTIONS = ("sts:AssumeRole", "sts:AssumeRoleWithSAML", "sts:AssumeRoleWithWebIdentity")
ROLE_SERVICES = ("iam",)
NAMED_SERVICES = (
    "budgets",
    "cloudformation",
    "cloudwatch",
    "ecr",
    "events",  # the detection rules (<name>-detect-*)
    "iam",
    "kms",
    "lambda",
    "logs",
    "s3",
    "sns",
    "ssm",
)
# Every service that can evaluate the landing-zone tag on one of the landing zone's resources (the stacks tag every
# taggable resource): their reads stay allowed on tagged resources.
TAGGED_SERVICES = PROTECTED_SERVICES


class GuardrailSizeError(LandingZoneError):
    """The guardrail statements cannot be carried within the SCP limits.  ``path`` and ``got``: the configuration key
    the message is about (the one the user wrote that weighs most: a count or limit given, else ``models``) and its
    value, so that validate reports the problem at that key."""

    def __init__(self, message: str, *, path: str = "models", got: object = None) -> None:
        super().__init__(message)
        self.path = path
        self.got = got


@dataclass(frozen=True)
class Exemptions:
    """Who the tamper denies exempt, and which role names are therefore protected.

    * ``exempt`` — ``aws:PrincipalARN`` patterns of the principals that deploy and run the landing zone: the CDK
      bootstrap roles of the deployment account in ``home_region`` (named by the configured qualifier, with
      account and Region), the StackSets execution roles (member baseline), the landing zone's automation roles
      and ``deployment_principal_arns``.
    * ``deployers`` — who in a targeted account may assume the CDK bootstrap roles.
    * ``protected_roles`` — role ARN patterns nobody but ``exempt`` may create or change: the landing zone's
      namespace in any account, and every role an exemption matches in the account the exemption names (a
      ``deployment_principal_arns`` entry bound to one account exempts no role of that name elsewhere), under
      any IAM path (``role/*name``), so that no administrator can make a role that an exemption would match; the
      same for ``cost.kill_switch_reset_principal_arns`` (the only principals the kill switch's reset role trusts).
    * ``cdk_roles`` — the CDK bootstrap roles of every account (assumed only by ``exempt`` + ``deployers``).
    """

    exempt: tuple[str, ...]
    deployers: tuple[str, ...]
    protected_roles: tuple[str, ...]
    cdk_roles: tuple[str, ...]


def _role_name(arn: str) -> str:
    """The name (with any path) of a role ARN: 'arn:aws:iam::1:role/a/b' -> 'a/b'."""
    return arn.split(":role/", 1)[1]


def exemptions(config: LandingZoneConfig) -> Exemptions:
    g = config.policy_guardrails
    q = g.cdk_bootstrap_qualifier
    member_baseline = config.member_baseline.enabled
    # The account whose CDK bootstrap deploys the stacks: the deployment account, or (member baseline) the
    # StackSet administrator; its roles are named cdk-<q>-<kind>-role-<account>-<region>.
    deploy_account = config.stackset_administrator_account if member_baseline else config.deployment_account
    region = config.home_region
    # With the member baseline the automation roles exist in every member account (new ones included).
    automation_account = "*" if member_baseline else deploy_account
    exempt = [
        f"arn:{PARTITION}:iam::{deploy_account}:role/cdk-{q}-*-role-{deploy_account}-{region}",
        f"arn:{PARTITION}:iam::{automation_account}:role/{config.automation_role_prefix}*",
    ]
    if member_baseline:
        # Service-managed StackSets create 'stacksets-exec-<hash>' in every member account (random suffix).
        exempt.append(f"arn:{PARTITION}:iam::*:role/stacksets-exec-*")
    exempt += g.deployment_principal_arns
    protected = list(role_patterns(config, ()))
    # the kill switch's reset principals too: in a targeted account nobody else may make a role of that name
    for arn in (
        *g.deployment_principal_arns,
        *g.deployer_principal_arns,
        *config.cost.kill_switch_reset_principal_arns,
    ):
        name = _role_name(arn).rsplit("/", 1)[-1]
        protected.append(f"arn:{PARTITION}:iam::{arn.split(':')[4]}:role/*{name}")
    return Exemptions(
        exempt=tuple(dict.fromkeys(exempt)),
        deployers=tuple(dict.fromkeys((*g.deployment_principal_arns, *g.deployer_principal_arns))),
        protected_roles=tuple(dict.fromkeys(protected)),
        cdk_roles=(f"arn:{PARTITION}:iam::*:role/*cdk-{q}-*",),
    )


def log_writer_roles(config: LandingZoneConfig) -> tuple[str, ...]:
    """The roles that deliver into the protected log groups: flow logs and Bedrock invocation logging."""
    account = "*" if config.member_baseline.enabled else config.deployment_account
    return tuple(
        f"arn:{PARTITION}:iam::{account}:role/{config.name}-{suffix}"
        for suffix in ("flow-logs", "bedrock-invocation-logging")
    )


def protected_resources(config: LandingZoneConfig) -> tuple[str, ...]:
    """ARN patterns of everything the landing zone protects by name, roles aside (``DenyLandingZoneTampering``).

    They come from the protected-resource inventory (:mod:`landing_zone.policies.protected`);
    ``tests/cdk/test_inventory.py`` checks every synthesized resource against it.
    """
    return name_patterns(config)


def _allowed_runtime_resources(routing: RoutingDecision) -> list[str]:
    resources: set[str] = set()
    for mr in routing.models:
        model_id = mr.model.id
        # `*` in the Region segment also matches the Region-less ARN of the global leg.
        resources.add(f"arn:{PARTITION}:bedrock:*::foundation-model/{model_id}")
        for route in mr.compliant_routes:
            if route.profile_id:
                resources.add(f"arn:{PARTITION}:bedrock:*:*:inference-profile/{route.profile_id}")
    resources.add(f"arn:{PARTITION}:bedrock:*:*:application-inference-profile/*")
    # CreateModelInvocationJob is authorised against the job too (IAM action database: required resource types
    # model-invocation-job and foundation-model); without this every batch job would be denied.
    resources.add(f"arn:{PARTITION}:bedrock:*:*:model-invocation-job/*")
    return sorted(resources)


def _mantle_models(routing: RoutingDecision) -> list[str]:
    return sorted({r.invoke_id for r in routing.compliant_routes(endpoint="mantle")})


def inference_statements(config: LandingZoneConfig, routing: RoutingDecision) -> list[dict[str, Any]]:
    """Statements 1-5: where and which models; nobody is exempt."""
    g = config.policy_guardrails
    compliant = sorted(config.compliant_regions)
    inference_regions = compliant + (["unspecified"] if config.allow_global_inference else [])
    stmts: list[dict[str, Any]] = [
        statement(
            sids.REGIONS,
            effect="Deny",
            actions=BEDROCK_SERVICES,
            resources=["*"],
            condition={"StringNotEquals": {"aws:RequestedRegion": inference_regions}},
        )
    ]
    if g.confine_model_calling_services:
        stmts.append(
            statement(
                sids.CALLERS,
                effect="Deny",
                # services that call models with their own principal, which the Bedrock denies cannot see
                actions=load_model_calling_services().actions,
                resources=["*"],
                condition={"StringNotEquals": {"aws:RequestedRegion": sorted(config.compliant_regions)}},
            )
        )
    sources = sorted(config.source_regions)
    if set(sources) != set(config.compliant_regions):
        # Where inference may be *started*: a profile (system or application) or batch job in a source Region, a
        # direct in-Region call or Mantle call whose Region is a source Region.  A profile's legs carry
        # bedrock:InferenceProfileArn and may run in its compliant destinations (DenyBedrockOutsideCompliantRegions).
        stmts.append(
            statement(
                sids.SOURCES,
                effect="Deny",
                actions=[*RUNTIME_INVOKE_ACTIONS, *BATCH_ACTIONS],
                not_resources=[
                    f"arn:{PARTITION}:bedrock:*::foundation-model/*",
                    *(
                        f"arn:{PARTITION}:bedrock:{r}:*:{kind}/*"
                        for r in sources
                        for kind in ("inference-profile", "application-inference-profile", "model-invocation-job")
                    ),
                ],
            )
        )
        stmts.append(
            statement(
                sids.DIRECT_SOURCES,
                effect="Deny",
                actions=RUNTIME_INVOKE_ACTIONS,
                resources=["*"],
                condition={
                    "Null": {condition_keys.PROFILE_KEY: "true"},
                    "StringNotEquals": {"aws:RequestedRegion": sources},
                },
            )
        )
        stmts.append(
            statement(
                # batch jobs and Mantle calls have no profile legs: their Region is where they run
                sids.BATCH_MANTLE_SOURCES,
                effect="Deny",
                actions=[*BATCH_ACTIONS, *MANTLE_MODEL_ACTIONS],
                resources=["*"],
                condition={"StringNotEquals": {"aws:RequestedRegion": sources}},
            )
        )
    stmts.append(
        statement(
            # a leg names its profile in bedrock:InferenceProfileArn; the profile's ARN carries its source Region.  A leg
            # of a profile (application or system) sourced outside the source Regions, where nothing logs or alarms,
            # is denied on its own, whatever Region the leg runs in (issue 35, deliverable 6)
            sids.PROFILE_SOURCES,
            effect="Deny",
            actions=RUNTIME_INVOKE_ACTIONS,
            # the legs only (a foundation model, the Region-less global one included): the profile resource itself
            # carries no bedrock:InferenceProfileArn
            resources=[f"arn:{PARTITION}:bedrock:*::foundation-model/*"],
            condition={
                "Null": {condition_keys.PROFILE_KEY: "false"},
                "ArnNotLike": {
                    condition_keys.PROFILE_KEY: [
                        f"arn:{PARTITION}:bedrock:{r}:*:{kind}/*"
                        for r in sources
                        for kind in ("inference-profile", "application-inference-profile")
                    ]
                },
            },
        )
    )
    if not config.allow_global_inference:
        stmts.append(
            statement(
                sids.GLOBAL,
                effect="Deny",
                # only these are authorised against the profile resource (IAM action database); a batch job
                # names the model and the job only (docs/THREAT_MODEL.md: residual risks)
                actions=RUNTIME_INVOKE_ACTIONS,
                resources=[f"arn:{PARTITION}:bedrock:*:*:inference-profile/global.*"],
            )
        )
    stmts.append(
        statement(
            sids.MODELS,
            effect="Deny",
            actions=model_actions(),
            not_resources=_allowed_runtime_resources(routing),
        )
    )
    space = load_action_space()
    stmts.append(
        statement(
            sids.MODEL_SOURCES,
            effect="Deny",
            # no resource type names the model: imported weights, custom models, Marketplace endpoints
            actions=space.model_source_actions,
            resources=["*"],
        )
    )
    # Data Automation's cross-Region profiles are inference profiles: only those whose every destination is
    # compliant; its projects and blueprints are not places (catalog: data_automation.yaml, bda-cris.html).
    da_profiles = load_data_automation_profiles().compliant(config.compliant_regions)
    stmts.append(
        statement(
            sids.DATA_AUTOMATION,
            effect="Deny",
            actions=space.data_automation_actions,
            not_resources=[
                *(f"arn:{PARTITION}:bedrock:*:*:data-automation-profile/{p}" for p in da_profiles),
                f"arn:{PARTITION}:bedrock:*:*:data-automation-project/*",
                f"arn:{PARTITION}:bedrock:*:*:blueprint/*",
            ],
        )
    )
    # No compliant Mantle model: the placeholder matches no request, so every Mantle model is denied.
    mantle_models = _mantle_models(routing) or ["none-allowed"]
    stmts.append(
        statement(
            sids.MANTLE_MODELS,
            effect="Deny",
            actions=["bedrock-mantle:*"],
            resources=["*"],
            # Null false: only requests that carry the key (any Mantle action, also ones added later).
            condition={"Null": {MANTLE_MODEL_KEY: "false"}, "StringNotEquals": {MANTLE_MODEL_KEY: mantle_models}},
        )
    )
    stmts.append(
        statement(
            sids.MANTLE_NO_MODEL,
            effect="Deny",
            actions=MANTLE_MODEL_ACTIONS,
            resources=["*"],
            condition={"Null": {MANTLE_MODEL_KEY: "true"}},
        )
    )
    stmts += api_key_statements(config)
    stmts += service_tier_statements(g.allowed_service_tiers)
    return stmts


# Amazon Bedrock API keys: https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-permissions.html
BEARER_ACTIONS = ("bedrock:CallWithBearerToken", "bedrock-mantle:CallWithBearerToken")
BEARER_TYPE_KEYS = {
    "bedrock:CallWithBearerToken": condition_keys.BEARER_TYPE_KEY,
    "bedrock-mantle:CallWithBearerToken": condition_keys.MANTLE_BEARER_TYPE_KEY,
}


def api_key_statements(config: LandingZoneConfig) -> list[dict[str, Any]]:
    """Statement 5, by ``policy_guardrails.api_keys`` (nobody is exempt).

    * ``DenyBedrockApiKeyCreation`` — long-term keys are IAM service-specific credentials; ``StringLike bedrock*``
      covers the runtime's service name (``bedrock.amazonaws.com``, AWS's SCP example:
      https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_scps_examples_bedrock.html)
      and any other Bedrock service name (Mantle), and no other service's credentials.
    * ``none``: ``DenyBearerTokenCalls`` — every API-key call on both endpoints ("To fully prevent all API key-based
      access, you must deny both actions", api-keys-permissions.html).
    * ``short-term-only``: ``DenyLongTermBearerTokenCalls`` / ``DenyLongTermMantleBearerTokenCalls`` — every bearer
      call whose ``BearerTokenType`` is not ``SHORT_TERM`` (``LONG_TERM``, and a call without the key: fail closed;
      aws-samples' Deny-Bedrock-long-term-api-keys.json denies ``LONG_TERM``), and
      ``DenyBearerTokenCallsByUnlistedPrincipals`` — short-term calls of every principal but
      ``api_key_principal_arns``.  Short-term keys cannot be prevented from being generated, only denied at use
      (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_bedrock.html).
    """
    g = config.policy_guardrails
    short_term = g.api_keys == "short-term-only"
    stmts: list[dict[str, Any]] = []
    if short_term or g.deny_api_key_creation:
        stmts.append(
            statement(
                sids.API_KEYS,
                effect="Deny",
                actions=["iam:CreateServiceSpecificCredential"],
                resources=["*"],
                condition={"StringLike": {"iam:ServiceSpecificCredentialServiceName": "bedrock*"}},
            )
        )
    if not short_term:
        if g.deny_bearer_token_calls:
            stmts.append(statement(sids.BEARER, effect="Deny", actions=BEARER_ACTIONS, resources=["*"]))
        return stmts
    for action, sid in zip(BEARER_ACTIONS, (sids.LONG_TERM_BEARER, sids.LONG_TERM_MANTLE_BEARER), strict=True):
        stmts.append(
            statement(
                sid,
                effect="Deny",
                actions=[action],
                resources=["*"],
                condition={"StringNotEquals": {BEARER_TYPE_KEYS[action]: "SHORT_TERM"}},
            )
        )
    stmts.append(
        statement(
            sids.UNLISTED_BEARER,
            effect="Deny",
            actions=BEARER_ACTIONS,
            resources=["*"],
            condition={"ArnNotLike": {"aws:PrincipalARN": list(g.api_key_principal_arns)}},
        )
    )
    return stmts


# AgentCore (https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/security-gateway-condition-keys.html and
# https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/security-vpc-condition.html); Security Hub controls
# BedrockAgentCore.1 (runtime in VPC network mode) and .2 (gateway requires inbound authorization):
# https://docs.aws.amazon.com/securityhub/latest/userguide/bedrockagentcore-controls.html
AGENTCORE_GATEWAY_ACTIONS = ("bedrock-agentcore:CreateGateway", "bedrock-agentcore:UpdateGateway")
AGENTCORE_VPC_ACTIONS = (
    "bedrock-agentcore:CreateAgentRuntime",
    "bedrock-agentcore:UpdateAgentRuntime",
    "bedrock-agentcore:CreateCodeInterpreter",
    "bedrock-agentcore:CreateBrowser",
)


def agentcore_statements(config: LandingZoneConfig) -> list[dict[str, Any]]:
    """``policy_guardrails.agentcore_controls`` (nobody is exempt; the Region deny covers AgentCore already).

    * ``DenyAgentCoreGatewayWithoutAuthorizer`` — creating or updating a gateway whose
      ``bedrock-agentcore:GatewayAuthorizerType`` is ``NONE`` (valid values AWS_IAM, CUSTOM_JWT, NONE:
      security-gateway-condition-keys.html; BedrockAgentCore.2).
    * ``DenyAgentCoreWithoutVpc`` — AWS's own example (``EnforceVPCRuntime``, security-vpc-condition.html): runtimes,
      code interpreters and browsers created or updated with neither subnets nor security groups (BedrockAgentCore.1).
    """
    if not config.policy_guardrails.agentcore_controls:
        return []
    return [
        statement(
            sids.GATEWAY_AUTH,
            effect="Deny",
            actions=AGENTCORE_GATEWAY_ACTIONS,
            resources=["*"],
            condition={"StringEquals": {condition_keys.GATEWAY_AUTHORIZER_KEY: "NONE"}},
        ),
        statement(
            sids.AGENTCORE_VPC,
            effect="Deny",
            actions=AGENTCORE_VPC_ACTIONS,
            resources=["*"],
            condition={"Null": {"bedrock-agentcore:subnets": "true", "bedrock-agentcore:securityGroups": "true"}},
        ),
    ]


# Data retention (https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html, "Enforcing retention policy
# with IAM"): the mode is set on the bedrock control plane (PUT /data-retention) and on Mantle (PUT /v1/data_retention,
# and per project on CreateProject / UpdateProject).
RETENTION_ACTIONS = ("bedrock:PutAccountDataRetention",)
MANTLE_RETENTION_ACTIONS = (
    "bedrock-mantle:PutAccountDataRetention",
    "bedrock-mantle:CreateProject",
    "bedrock-mantle:UpdateProject",
)


def data_retention_statements(config: LandingZoneConfig) -> list[dict[str, Any]]:
    """``data_retention.mode`` (empty when omitted): AWS's SCP with the configured mode, to non-exempt principals.

    * ``DenyDataRetentionModeChange`` — ``bedrock:PutAccountDataRetention`` unless ``bedrock:DataRetentionMode`` is
      the mode;
    * ``DenyMantleDataRetentionModeChange`` — Mantle's account setting and project creation/update unless
      ``bedrock-mantle:DataRetentionMode`` is the mode.  As in AWS's SCP a request without the key (a project created
      without ``dataRetention``, a rename) is denied too: set the project's retention to the governed mode.

    The exempt deployment principals (:func:`exemptions`, as for the tamper statements) may set any mode: the
    landing zone applies the configured one with them.  With ``tamper_protection`` the account-level actions are also
    in ``DenyAccountSettingChanges`` (nobody else changes the account setting at all).
    """
    mode = config.data_retention.mode
    if mode is None:
        return []
    not_exempt = {"ArnNotLike": {"aws:PrincipalARN": list(exemptions(config).exempt)}}
    return [
        statement(
            sids.RETENTION,
            effect="Deny",
            actions=RETENTION_ACTIONS,
            resources=["*"],
            condition={**not_exempt, "StringNotEquals": {condition_keys.RETENTION_KEY: mode}},
        ),
        statement(
            sids.MANTLE_RETENTION,
            effect="Deny",
            actions=MANTLE_RETENTION_ACTIONS,
            resources=["*"],
            condition={**not_exempt, "StringNotEquals": {condition_keys.MANTLE_RETENTION_KEY: mode}},
        ),
    ]


def tamper_statements(config: LandingZoneConfig) -> list[dict[str, Any]]:
    """Statements 6-12 (empty without ``tamper_protection``).

    The denies name what may still be done (reads and the reviewed use actions), not what may not: every other
    action on a protected resource — including actions AWS adds later — is denied to the non-exempt principals.
    """
    if not config.policy_guardrails.tamper_protection:
        return []
    space = load_action_space()
    ex = exemptions(config)
    exempt = list(ex.exempt)
    not_exempt = {"ArnNotLike": {"aws:PrincipalARN": exempt}}
    assume_condition = {"ArnNotLike": {"aws:PrincipalARN": list(ex.deployers)}} if ex.deployers else None
    named_services = NAMED_SERVICES + (("eks",) if config.self_hosting.enabled else ())
    return [
        statement(
            sids.TAKEOVER,
            effect="Deny",
            not_actions=[*space.reads_of(ROLE_SERVICES), "sts:*"],
            resources=ex.protected_roles,
            condition=not_exempt,
        ),
        statement(
            sids.ASSUME,
            effect="Deny",
            actions=ASSUME_ROLE_ACTIONS,
            resources=ex.cdk_roles,
            condition=assume_condition,
        ),
        statement(
            sids.NAMED,
            effect="Deny",
            not_actions=[*space.reads_of(named_services), *USE_ACTIONS, *LOG_WRITE_ACTIONS, *SUBSCRIBE_ACTIONS],
            resources=protected_resources(config),
            condition=not_exempt,
        ),
        statement(
            sids.TAGGED,
            effect="Deny",
            not_actions=[*space.reads_of(TAGGED_SERVICES), *USE_ACTIONS, *LOG_WRITE_ACTIONS, *SUBSCRIBE_ACTIONS],
            resources=["*"],
            condition={**not_exempt, "StringEquals": {f"aws:ResourceTag/{LANDING_ZONE_TAG}": config.name}},
        ),
        statement(
            sids.LOG_FORGERY,
            effect="Deny",
            actions=LOG_WRITE_ACTIONS,
            resources=[r for r in protected_resources(config) if ":logs:" in r],
            condition={"ArnNotLike": {"aws:PrincipalARN": [*exempt, *log_writer_roles(config)]}},
        ),
        statement(
            # the same for log groups recognised by the landing-zone tag only (a name CDK or a service chose)
            sids.TAGGED_LOG_FORGERY,
            effect="Deny",
            actions=LOG_WRITE_ACTIONS,
            resources=["*"],
            condition={
                "ArnNotLike": {"aws:PrincipalARN": [*exempt, *log_writer_roles(config)]},
                "StringEquals": {f"aws:ResourceTag/{LANDING_ZONE_TAG}": config.name},
            },
        ),
        statement(
            sids.RETAG,
            effect="Deny",
            # every action of every service that sets or removes a tag key carries aws:TagKeys (tag-on-create
            # included); IgnoreCase: IAM tag keys are case-insensitive, so 'Landing-Zone' is the same key
            actions=["*"],
            resources=["*"],
            condition={
                **not_exempt,
                "ForAnyValue:StringEqualsIgnoreCase": {condition_keys.TAG_KEYS: [LANDING_ZONE_TAG]},
            },
        ),
        statement(
            sids.EVENT_SOURCES,
            effect="Deny",
            actions=EVENT_SOURCE_ACTIONS,
            resources=["*"],
            condition={
                **not_exempt,
                "ArnLike": {"lambda:FunctionArn": [r for r in protected_resources(config) if ":lambda:" in r]},
            },
        ),
        statement(
            sids.SETTINGS,
            effect="Deny",
            actions=ACCOUNT_SETTING_ACTIONS,
            resources=["*"],
            condition=not_exempt,
        ),
        statement(
            sids.LEAVE,
            effect="Deny",
            # leaving drops every SCP; deactivating StackSets' trusted access stops the member baseline.  Disabling
            # the policy types the landing zone uses, and moving accounts out from under the targets, are
            # landing_zone.policies.org_structure's (scoped: a delegated administrator keeps its own types)
            actions=["organizations:LeaveOrganization", "cloudformation:DeactivateOrganizationsAccess"],
            resources=["*"],
        ),
        *structure_statements(config),
        *network_statements(config, not_exempt),
    ]


def _alert_subscriptions(config: LandingZoneConfig) -> list[dict[str, Any]]:
    """Who may add, remove or re-filter the alert topics' subscribers (:mod:`landing_zone.policies.alert_subscriptions`)."""
    topics = [r for r in protected_resources(config) if r.split(":")[2:3] == ["sns"]]
    return alert_subscription_statements(config, exempt=exemptions(config).exempt, topics=topics)


def guardrail_statements(config: LandingZoneConfig, routing: RoutingDecision, catalog: Catalog) -> list[dict[str, Any]]:
    """Every SCP statement, in a fixed order (see the module docstring)."""
    stmts = inference_statements(config, routing) + tamper_statements(config) + _alert_subscriptions(config)
    # SCP only: the invoker ceiling of the permissions boundary leaves these actions out already (implicit deny)
    stmts += agentcore_statements(config) + data_retention_statements(config)
    g = config.policy_guardrails
    if g.region_deny_all_services:
        inference_regions = sorted(config.compliant_regions) + (
            ["unspecified"] if config.allow_global_inference else []
        )
        condition: dict[str, dict[str, object]] = {"StringNotEquals": {"aws:RequestedRegion": inference_regions}}
        if g.tamper_protection:
            condition["ArnNotLike"] = {"aws:PrincipalARN": list(exemptions(config).exempt)}
        stmts.append(
            statement(
                sids.ALL_SERVICES,
                effect="Deny",
                not_actions=catalog.global_services.not_actions,
                resources=["*"],
                condition=condition,
            )
        )
    return stmts


# The most an invoker role can ever do, whatever identity policies are attached to it later.
INVOKER_CEILING_ACTIONS = (
    *RUNTIME_INVOKE_ACTIONS,
    *BATCH_ACTIONS,
    "bedrock:CountTokens",
    "bedrock:GetInferenceProfile",
    "bedrock:ListInferenceProfiles",
    "bedrock:GetFoundationModel",
    "bedrock:ListFoundationModels",
    "bedrock:ApplyGuardrail",
    "bedrock:GetModelInvocationJob",
    "bedrock:ListModelInvocationJobs",
    "bedrock:StopModelInvocationJob",
    *MANTLE_INVOKE_ACTIONS,
    "bedrock-mantle:GetProject",
    "bedrock-mantle:ListProjects",
    "sts:GetCallerIdentity",
)


def permissions_boundary(config: LandingZoneConfig, routing: RoutingDecision, catalog: Catalog) -> dict[str, Any]:
    """The invoker roles' boundary: a ceiling of inference actions, minus the inference denies.

    In single-account mode it is the only guardrail; with an organization it repeats the SCPs' inference
    statements on the roles.  ``iam:PassRole`` to Bedrock is inside the ceiling so that batch jobs can pass
    their service role (``applications[].batch_role_arns``); which roles is decided by the identity policy.
    """
    ceiling = statement("InvokerCeiling", actions=INVOKER_CEILING_ACTIONS, resources=["*"])
    pass_to_bedrock = statement(
        "InvokerCeilingPassRoleToBedrock",
        actions=["iam:PassRole"],
        resources=["*"],
        condition={"StringEquals": {"iam:PassedToService": "bedrock.amazonaws.com"}},
    )
    return document([ceiling, pass_to_bedrock, *inference_statements(config, routing)])
