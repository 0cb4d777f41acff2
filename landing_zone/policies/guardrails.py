"""Guardrail deny statements, compiled from the routing decision — one builder for two carriers:

* Organizations SCPs (``scp_documents``), attached to ``organization.target_ids``: every statement below, and
* the permissions boundary of the invoker roles (``permissions_boundary``): an inference ceiling minus the
  *inference* statements (1-6).  The tamper statements are left out there: the ceiling already denies
  everything but inference to the invoker roles, and a boundary cannot protect anything from an account
  administrator (who can simply use another role) — only an SCP can.

The adversary these statements are written against is an administrator of a targeted member account
(docs/THREAT_MODEL.md; the review report's "Threat model" section evaluates every attack in
``landing_zone/review/redteam.py`` against the synthesized SCPs).

Inference (no principal is exempt):

1. ``DenyBedrockOutsideCompliantRegions`` — *every* ``bedrock:*``, ``bedrock-mantle:*`` and
   ``bedrock-agentcore:*`` action (agents, flows, knowledge bases, CountTokens, evaluation, batch, actions
   added later) whose ``aws:RequestedRegion`` is not compliant.  The Region-less leg of a global profile
   carries ``aws:RequestedRegion = "unspecified"``: denied unless ``allow_global_inference``.
2. ``DenyGlobalInferenceProfiles`` — the global profile resources themselves (their source leg is in a
   compliant Region), unless ``allow_global_inference``.
3. ``DenyUnlistedModels`` — model-taking runtime actions on anything but the allowed models' foundation-model
   ARNs, their compliant system profiles, application profiles (whose model legs are checked here too) and
   batch-job ARNs (``CreateModelInvocationJob`` is also authorised against the job resource).
4. ``DenyUnlistedMantleModels`` — any Mantle action that carries ``bedrock-mantle:Model`` naming a model that
   is not allowed; ``DenyMantleInferenceWithoutModel`` — Mantle inference/fine-tuning without the key.
5. ``DenyBedrockApiKeyCreation`` / ``DenyBearerTokenCalls`` — long-term API keys and API-key calls.

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
   endpoints, flow logs, guardrails, application profiles, anomaly monitors, the EKS cluster.
10. ``DenyLandingZoneTagChanges`` — setting, changing or removing the ``landing-zone`` tag on any resource
    (``aws:TagKeys``), so statement 9 cannot be escaped by re-tagging.
11. ``DenyAccountSettingChanges`` — the account-level singletons: invocation logging, the enforced guardrail,
    the CloudWatch Logs account policy.
12. ``DenyLeavingOrganization`` — leaving the organization would drop every SCP (nobody is exempt).

Optional:

13. ``DenyOutsideCompliantRegions`` (``region_deny_all_services``) — every non-global service outside the
    compliant Regions (self-hosted weights in another Region, services that call models for you).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from landing_zone.core.catalog import Catalog
from landing_zone.core.config import LandingZoneConfig
from landing_zone.core.routing import RoutingDecision
from landing_zone.errors import LandingZoneError
from landing_zone.policies.common import document, minified, statement
from landing_zone.policies.invoke import BATCH_ACTIONS, MANTLE_INVOKE_ACTIONS, MANTLE_MODEL_KEY, RUNTIME_INVOKE_ACTIONS

LANDING_ZONE_TAG = "landing-zone"
PARTITION = "aws"

# Every action of the services that process prompts: confined by Region whatever the action is called.
BEDROCK_SERVICES = ("bedrock:*", "bedrock-mantle:*", "bedrock-agentcore:*")
# Runtime actions that name a model or profile as their resource (IAM action database: resource types
# foundation-model / inference-profile).  CountTokens tokenizes the prompt with the model.
MODEL_ACTIONS = (*RUNTIME_INVOKE_ACTIONS, *BATCH_ACTIONS, "bedrock:CountTokens")
# Mantle actions that carry bedrock-mantle:Model and must always carry it.
MANTLE_MODEL_ACTIONS = (*MANTLE_INVOKE_ACTIONS, "bedrock-mantle:CreateFineTuningJob")

LOGGING_CONFIG_ACTIONS = (
    "bedrock:PutModelInvocationLoggingConfiguration",
    "bedrock:DeleteModelInvocationLoggingConfiguration",
)
# Account-level settings with no resource ARN of their own.
ACCOUNT_SETTING_ACTIONS = (
    *LOGGING_CONFIG_ACTIONS,
    "bedrock:PutEnforcedGuardrailConfiguration",
    "bedrock:DeleteEnforcedGuardrailConfiguration",
    "logs:PutAccountPolicy",  # an account-wide data-protection / transformer policy would rewrite the logs
)

# What may not be done to a protected role by anyone but the exempt principals.
ROLE_TAKEOVER_ACTIONS = (
    "iam:CreateRole",
    "iam:DeleteRole*",  # DeleteRole, DeleteRolePolicy, DeleteRolePermissionsBoundary
    "iam:UpdateRole*",  # UpdateRole, UpdateRoleDescription
    "iam:UpdateAssumeRolePolicy",
    "iam:PutRole*",  # PutRolePolicy, PutRolePermissionsBoundary
    "iam:AttachRolePolicy",
    "iam:DetachRolePolicy",
    "iam:TagRole",
    "iam:UntagRole",
    "iam:PassRole",
)
ASSUME_ROLE_ACTIONS = ("sts:AssumeRole", "sts:AssumeRoleWithSAML", "sts:AssumeRoleWithWebIdentity")

# Changes to resources the landing zone names itself, by service.  Wildcards cover actions added later.
NAMED_TAMPER_ACTIONS = (
    # managed policies (AWS::IAM::ManagedPolicy has no Tags: only the name protects the kill switch)
    "iam:CreatePolicy*",
    "iam:DeletePolicy*",
    "iam:SetDefaultPolicyVersion",
    "iam:TagPolicy",
    "iam:UntagPolicy",
    # buckets and objects (general purpose buckets ignore aws:ResourceTag unless ABAC is enabled)
    "s3:DeleteBucket*",
    "s3:PutBucket*",
    "s3:PutEncryptionConfiguration",
    "s3:PutLifecycleConfiguration",
    "s3:PutReplicationConfiguration",
    "s3:DeleteObject*",
    "s3:PutObject*",
    # log groups and streams
    "logs:Delete*",
    "logs:AssociateKmsKey",
    "logs:DisassociateKmsKey",
    "logs:PutRetentionPolicy",
    "logs:PutDataProtectionPolicy",
    "logs:PutLogGroupDeletionProtection",
    "logs:PutTransformer",
    # functions (a forged Delete event to the logging handler would remove logging)
    "lambda:Create*",
    "lambda:Update*",
    "lambda:Put*",
    "lambda:Delete*",
    "lambda:Invoke*",
    "lambda:Publish*",
    "lambda:AddPermission",
    "lambda:RemovePermission",
    # stacks and StackSets (change sets included)
    "cloudformation:Create*",
    "cloudformation:Update*",
    "cloudformation:Delete*",
    "cloudformation:Execute*",
    "cloudformation:Set*",
    "cloudformation:Cancel*",
    "cloudformation:Continue*",
    "cloudformation:Rollback*",
    "cloudformation:Import*",
    "cloudformation:Signal*",
    # budgets and the kill switch (ExecuteBudgetAction would reverse it)
    "budgets:ModifyBudget",
    "budgets:CreateBudgetAction",
    "budgets:UpdateBudgetAction",
    "budgets:DeleteBudgetAction",
    "budgets:ExecuteBudgetAction",
    # alert topics and alarms
    "sns:DeleteTopic",
    "sns:SetTopicAttributes",
    "sns:AddPermission",
    "sns:RemovePermission",
    "sns:PutDataProtectionPolicy",
    "cloudwatch:DeleteAlarms",
    "cloudwatch:PutMetricAlarm",
    "cloudwatch:PutCompositeAlarm",
    "cloudwatch:DisableAlarmActions",
    "cloudwatch:SetAlarmState",
    "cloudwatch:DeleteDashboards",
    "cloudwatch:PutDashboard",
    # key aliases
    "kms:CreateAlias",
    "kms:DeleteAlias",
    "kms:UpdateAlias",
)

# Changes to resources with random identifiers, matched by the landing-zone tag (each supports
# aws:ResourceTag for the action: checked against the IAM action database by tests/unit/test_action_db.py).
TAGGED_TAMPER_ACTIONS = (
    "kms:Disable*",  # DisableKey, DisableKeyRotation
    "kms:ScheduleKeyDeletion",
    "kms:PutKeyPolicy",
    "ec2:DeleteVpcEndpoints",
    "ec2:ModifyVpcEndpoint",
    "ec2:DeleteFlowLogs",
    "bedrock:DeleteGuardrail",
    "bedrock:UpdateGuardrail",
    "bedrock:DeleteInferenceProfile",
    "ce:DeleteAnomaly*",
    "ce:UpdateAnomaly*",
)
SELF_HOSTING_TAGGED_TAMPER_ACTIONS = ("eks:DeleteCluster", "eks:UpdateClusterConfig", "eks:DeleteNodegroup")

# Every service's tag and untag action for the resources above (aws:TagKeys names the keys set or removed).
TAG_ACTIONS = (
    "iam:TagRole",
    "iam:UntagRole",
    "iam:TagPolicy",
    "iam:UntagPolicy",
    "kms:TagResource",
    "kms:UntagResource",
    "ec2:CreateTags",
    "ec2:DeleteTags",
    "logs:TagResource",
    "logs:UntagResource",
    "logs:TagLogGroup",
    "logs:UntagLogGroup",
    "bedrock:TagResource",
    "bedrock:UntagResource",
    "lambda:TagResource",
    "lambda:UntagResource",
    "budgets:TagResource",
    "budgets:UntagResource",
    "sns:TagResource",
    "sns:UntagResource",
    "cloudwatch:TagResource",
    "cloudwatch:UntagResource",
    "ce:TagResource",
    "ce:UntagResource",
    "cloudformation:TagResource",
    "cloudformation:UntagResource",
    "s3:TagResource",
    "s3:UntagResource",
    "eks:TagResource",
    "eks:UntagResource",
)


class GuardrailSizeError(LandingZoneError):
    """The guardrail statements cannot be carried within the SCP limits."""


@dataclass(frozen=True)
class Exemptions:
    """Who the tamper denies exempt, and which role names are therefore protected.

    * ``exempt`` — ``aws:PrincipalARN`` patterns of the principals that deploy and run the landing zone: the CDK
      bootstrap roles of the deployment account in ``home_region`` (named by the configured qualifier, with
      account and Region), the StackSets execution roles (member baseline), the landing zone's automation roles
      and ``deployment_principal_arns``.
    * ``deployers`` — who in a targeted account may assume the CDK bootstrap roles.
    * ``protected_roles`` — role ARN patterns nobody but ``exempt`` may create or change: every name an
      exemption matches, in any account and under any IAM path (``role/*name``), so that no administrator can
      make a role that an exemption would match.
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
    protected_names = [f"cdk-{q}-*", f"{config.name}-*"]
    if member_baseline:
        # Service-managed StackSets create 'stacksets-exec-<hash>' in every member account (random suffix).
        exempt.append(f"arn:{PARTITION}:iam::*:role/stacksets-exec-*")
        protected_names.append("stacksets-exec-*")
    exempt += g.deployment_principal_arns
    protected = [f"arn:{PARTITION}:iam::*:role/*{name}" for name in protected_names]
    for arn in (*g.deployment_principal_arns, *g.deployer_principal_arns):
        name = _role_name(arn).rsplit("/", 1)[-1]
        protected.append(f"arn:{PARTITION}:iam::{arn.split(':')[4]}:role/*{name}")
    return Exemptions(
        exempt=tuple(dict.fromkeys(exempt)),
        deployers=tuple(dict.fromkeys((*g.deployment_principal_arns, *g.deployer_principal_arns))),
        protected_roles=tuple(dict.fromkeys(protected)),
        cdk_roles=(f"arn:{PARTITION}:iam::*:role/*cdk-{q}-*",),
    )


def automation_role_pattern(config: LandingZoneConfig, partition: str = PARTITION) -> str:
    """ARN pattern of the roles the landing zone's own automation runs as (exempt from tamper denies)."""
    return f"arn:{partition}:iam::*:role/{config.automation_role_prefix}*"


def protected_resources(config: LandingZoneConfig) -> tuple[str, ...]:
    """ARN patterns of everything the landing zone names itself (``DenyLandingZoneTampering``).

    Each pattern is a naming rule the constructs follow; ``tests/cdk/test_protection.py`` checks every
    synthesized resource of these types against them.
    """
    n, p = config.name, PARTITION
    q = config.policy_guardrails.cdk_bootstrap_qualifier
    resources = [
        f"arn:{p}:iam::*:policy/{n}-*",
        f"arn:{p}:s3:::{n}-*",
        f"arn:{p}:s3:::cdk-{q}-assets-*",  # the bootstrap asset bucket: code of the next deployment
        f"arn:{p}:logs:*:*:log-group:/{n}/*",
        f"arn:{p}:lambda:*:*:function:{n}-*",
        f"arn:{p}:cloudformation:*:*:stack/{n}-*",
        f"arn:{p}:cloudformation:*:*:stack/CDKToolkit/*",
        f"arn:{p}:budgets::*:budget/{n}-*",
        f"arn:{p}:sns:*:*:{n}-*",
        f"arn:{p}:cloudwatch:*:*:alarm:{n}-*",
        f"arn:{p}:cloudwatch::*:dashboard/{n}-*",
        f"arn:{p}:kms:*:*:alias/{n}/*",
    ]
    if config.member_baseline.enabled:
        resources += [
            f"arn:{p}:cloudformation:*:*:stack/StackSet-{n}-*",
            f"arn:{p}:cloudformation:*:*:stackset/{n}-*",
        ]
    if config.self_hosting.enabled:
        resources.append(f"arn:{p}:logs:*:*:log-group:/aws/eks/{n}-*")  # EKS fixes the control-plane log group name
    return tuple(resources)


@dataclass(frozen=True)
class ScpSet:
    documents: tuple[dict[str, Any], ...]
    sizes: tuple[int, ...]
    max_characters: int
    max_per_target: int
    other_scps_per_target: int

    @property
    def attached_per_target(self) -> int:
        """SCPs on each target: ours + FullAWSAccess + the ones the customer attaches already."""
        return len(self.documents) + 1 + self.other_scps_per_target


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
            "DenyBedrockOutsideCompliantRegions",
            effect="Deny",
            actions=BEDROCK_SERVICES,
            resources=["*"],
            condition={"StringNotEquals": {"aws:RequestedRegion": inference_regions}},
        )
    ]
    if not config.allow_global_inference:
        stmts.append(
            statement(
                "DenyGlobalInferenceProfiles",
                effect="Deny",
                # only these are authorised against the profile resource (IAM action database); a batch job
                # names the model and the job only (docs/THREAT_MODEL.md: residual risks)
                actions=RUNTIME_INVOKE_ACTIONS,
                resources=[f"arn:{PARTITION}:bedrock:*:*:inference-profile/global.*"],
            )
        )
    stmts.append(
        statement(
            "DenyUnlistedModels",
            effect="Deny",
            actions=MODEL_ACTIONS,
            not_resources=_allowed_runtime_resources(routing),
        )
    )
    # No compliant Mantle model: the placeholder matches no request, so every Mantle model is denied.
    mantle_models = _mantle_models(routing) or ["none-allowed"]
    stmts.append(
        statement(
            "DenyUnlistedMantleModels",
            effect="Deny",
            actions=["bedrock-mantle:*"],
            resources=["*"],
            # Null false: only requests that carry the key (any Mantle action, also ones added later).
            condition={"Null": {MANTLE_MODEL_KEY: "false"}, "StringNotEquals": {MANTLE_MODEL_KEY: mantle_models}},
        )
    )
    stmts.append(
        statement(
            "DenyMantleInferenceWithoutModel",
            effect="Deny",
            actions=MANTLE_MODEL_ACTIONS,
            resources=["*"],
            condition={"Null": {MANTLE_MODEL_KEY: "true"}},
        )
    )
    if g.deny_api_key_creation:
        stmts.append(
            statement(
                "DenyBedrockApiKeyCreation",
                effect="Deny",
                actions=["iam:CreateServiceSpecificCredential"],
                resources=["*"],
                condition={"StringLike": {"iam:ServiceSpecificCredentialServiceName": "bedrock*"}},
            )
        )
    if g.deny_bearer_token_calls:
        stmts.append(
            statement(
                "DenyBearerTokenCalls",
                effect="Deny",
                actions=["bedrock:CallWithBearerToken", "bedrock-mantle:CallWithBearerToken"],
                resources=["*"],
            )
        )
    return stmts


def tamper_statements(config: LandingZoneConfig) -> list[dict[str, Any]]:
    """Statements 6-12 (empty without ``tamper_protection``)."""
    if not config.policy_guardrails.tamper_protection:
        return []
    ex = exemptions(config)
    not_exempt = {"ArnNotLike": {"aws:PrincipalARN": list(ex.exempt)}}
    tagged_actions = TAGGED_TAMPER_ACTIONS + (SELF_HOSTING_TAGGED_TAMPER_ACTIONS if config.self_hosting.enabled else ())
    assume_condition = {"ArnNotLike": {"aws:PrincipalARN": list(ex.deployers)}} if ex.deployers else None
    return [
        statement(
            "DenyExemptRoleTakeover",
            effect="Deny",
            actions=ROLE_TAKEOVER_ACTIONS,
            resources=ex.protected_roles,
            condition=not_exempt,
        ),
        statement(
            "DenyDeploymentRoleAssumption",
            effect="Deny",
            actions=ASSUME_ROLE_ACTIONS,
            resources=ex.cdk_roles,
            condition=assume_condition,
        ),
        statement(
            "DenyLandingZoneTampering",
            effect="Deny",
            actions=NAMED_TAMPER_ACTIONS,
            resources=protected_resources(config),
            condition=not_exempt,
        ),
        statement(
            "DenyTaggedResourceTampering",
            effect="Deny",
            actions=tagged_actions,
            resources=["*"],
            condition={**not_exempt, "StringEquals": {f"aws:ResourceTag/{LANDING_ZONE_TAG}": config.name}},
        ),
        statement(
            "DenyLandingZoneTagChanges",
            effect="Deny",
            actions=TAG_ACTIONS,
            resources=["*"],
            condition={**not_exempt, "ForAnyValue:StringEquals": {"aws:TagKeys": [LANDING_ZONE_TAG]}},
        ),
        statement(
            "DenyAccountSettingChanges",
            effect="Deny",
            actions=ACCOUNT_SETTING_ACTIONS,
            resources=["*"],
            condition=not_exempt,
        ),
        statement(
            "DenyLeavingOrganization", effect="Deny", actions=["organizations:LeaveOrganization"], resources=["*"]
        ),
    ]


def guardrail_statements(config: LandingZoneConfig, routing: RoutingDecision, catalog: Catalog) -> list[dict[str, Any]]:
    """Every SCP statement, in a fixed order (see the module docstring)."""
    stmts = inference_statements(config, routing) + tamper_statements(config)
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
                "DenyOutsideCompliantRegions",
                effect="Deny",
                not_actions=catalog.global_services.not_actions,
                resources=["*"],
                condition=condition,
            )
        )
    return stmts


def _limits(config: LandingZoneConfig, catalog: Catalog) -> tuple[int, int]:
    g = config.policy_guardrails
    return (
        g.scp_max_characters or catalog.limit("scp_max_characters"),
        g.scp_max_per_target or catalog.limit("scp_max_per_target"),
    )


def pack_statements(statements: Sequence[dict[str, Any]], *, max_characters: int) -> list[dict[str, Any]]:
    """Split statements into as few documents as fit ``max_characters`` each (minified JSON).

    First-fit in the given order keeps related statements together and the result deterministic.
    """
    documents: list[list[dict[str, Any]]] = []
    for stmt in statements:
        single = len(minified(document([stmt])))
        if single > max_characters:
            raise GuardrailSizeError(
                f"guardrail statement {stmt['Sid']!r} alone is {single} characters, over the SCP limit of "
                f"{max_characters} by {single - max_characters}: allow fewer models or Regions, or raise "
                "policy_guardrails.scp_max_characters if your organization has the larger quota"
            )
        for doc in documents:
            if len(minified(document([*doc, stmt]))) <= max_characters:
                doc.append(stmt)
                break
        else:
            documents.append([stmt])
    return [document(d) for d in documents]


def scp_documents(config: LandingZoneConfig, routing: RoutingDecision, catalog: Catalog) -> ScpSet:
    """The guardrail SCPs, split to the size limit and checked against the per-target count."""
    max_chars, max_per_target = _limits(config, catalog)
    docs = pack_statements(guardrail_statements(config, routing, catalog), max_characters=max_chars)
    other = config.policy_guardrails.other_scps_per_target
    scps = ScpSet(
        documents=tuple(docs),
        sizes=tuple(len(minified(d)) for d in docs),
        max_characters=max_chars,
        max_per_target=max_per_target,
        other_scps_per_target=other,
    )
    if scps.attached_per_target > max_per_target:
        excess = scps.attached_per_target - max_per_target
        raise GuardrailSizeError(
            f"the guardrails need {len(docs)} SCP(s) of at most {max_chars} characters (sizes: "
            f"{', '.join(map(str, scps.sizes))}); with FullAWSAccess and {other} other SCP(s) each target would "
            f"carry {scps.attached_per_target}, over the limit of {max_per_target} by {excess}. Allow fewer models "
            "or Regions, turn off policy_guardrails.region_deny_all_services, or raise "
            "policy_guardrails.scp_max_per_target / scp_max_characters to your organization's quota"
        )
    return scps


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
