"""Guardrail deny statements, compiled from the routing decision — one builder for two carriers:

* Organizations SCPs (``scp_documents``), attached to ``organization.target_ids``, and
* the permissions boundary of the invoker roles in single-account mode (``permissions_boundary``).

Statements (each can be read on its own; all are Deny):

1. ``DenyInferenceOutsideCompliantRegions`` — runtime invoke/Converse, batch and Mantle inference when
   ``aws:RequestedRegion`` is not compliant.  Cross-Region profiles are authorised per destination Region, so a
   destination leg to a non-compliant Region is denied here; the Region-less leg of a global profile carries
   ``aws:RequestedRegion = "unspecified"`` and is denied unless ``allow_global_inference``.
2. ``DenyGlobalInferenceProfiles`` — the global profile resources themselves (their source leg is in a
   compliant Region), unless ``allow_global_inference``.
3. ``DenyUnlistedModels`` — runtime/batch inference on anything but the allowed models' foundation-model
   ARNs, their system profiles and application profiles (whose model legs are checked by this statement too).
4. ``DenyUnlistedMantleModels`` — Mantle inference unless ``bedrock-mantle:Model`` is an allowed model
   (a request without the key is denied).
5. ``DenyBedrockApiKeyCreation`` / ``DenyBearerTokenCalls`` — long-term API keys and API-key calls.
6. ``DenyAutomationRoleTakeover`` / ``DenyInvocationLoggingChanges`` / ``DenyLandingZoneTampering`` — except
   the deployment principals (``aws:PrincipalARN``) and the landing zone's automation roles
   (``<name>-automation-*``, which only deployment principals may create or change): the logging
   configuration, and keys, endpoints, flow logs, roles, policies, guardrails, profiles, log groups, buckets,
   budgets and stacks tagged ``landing-zone = <name>`` (tag removal included), where the service supports
   ``aws:ResourceTag`` for the action.
7. ``DenyOutsideCompliantRegions`` (optional) — every non-global service outside the compliant Regions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from landing_zone.catalog import Catalog
from landing_zone.config import LandingZoneConfig
from landing_zone.errors import LandingZoneError
from landing_zone.policies.common import document, minified, statement
from landing_zone.policies.invoke import BATCH_ACTIONS, MANTLE_INVOKE_ACTIONS, MANTLE_MODEL_KEY, RUNTIME_INVOKE_ACTIONS
from landing_zone.routing import PathKind, RoutingDecision

LANDING_ZONE_TAG = "landing-zone"
INFERENCE_ACTIONS = (*RUNTIME_INVOKE_ACTIONS, *BATCH_ACTIONS, *MANTLE_INVOKE_ACTIONS)
RUNTIME_INFERENCE_ACTIONS = (*RUNTIME_INVOKE_ACTIONS, *BATCH_ACTIONS)
LOGGING_CONFIG_ACTIONS = (
    "bedrock:PutModelInvocationLoggingConfiguration",
    "bedrock:DeleteModelInvocationLoggingConfiguration",
)
# Changes to the landing zone's own resources, matched by the landing-zone tag.
TAMPER_ACTIONS = (
    "kms:DisableKey",
    "kms:DisableKeyRotation",
    "kms:ScheduleKeyDeletion",
    "kms:PutKeyPolicy",
    "kms:DeleteAlias",
    "kms:UpdateAlias",
    "kms:UntagResource",
    "ec2:DeleteVpcEndpoints",
    "ec2:ModifyVpcEndpoint",
    "ec2:DeleteFlowLogs",
    "ec2:DeleteTags",
    "iam:DeleteRole",
    "iam:UpdateRole",
    "iam:UpdateAssumeRolePolicy",
    "iam:PutRolePolicy",
    "iam:DeleteRolePolicy",
    "iam:AttachRolePolicy",
    "iam:DetachRolePolicy",
    "iam:PutRolePermissionsBoundary",
    "iam:DeleteRolePermissionsBoundary",
    "iam:UntagRole",
    "iam:CreatePolicyVersion",
    "iam:DeletePolicy",
    "iam:DeletePolicyVersion",
    "iam:SetDefaultPolicyVersion",
    "iam:UntagPolicy",
    "bedrock:DeleteGuardrail",
    "bedrock:UpdateGuardrail",
    "bedrock:DeleteInferenceProfile",
    "bedrock:UntagResource",
    "logs:DeleteLogGroup",
    "logs:DeleteRetentionPolicy",
    "logs:PutRetentionPolicy",
    "logs:DisassociateKmsKey",
    "logs:UntagResource",
    "s3:DeleteBucket",
    "s3:PutBucketPolicy",
    "s3:DeleteBucketPolicy",
    "s3:PutLifecycleConfiguration",
    "s3:PutEncryptionConfiguration",
    "budgets:ModifyBudget",
    "budgets:DeleteBudgetAction",
    "budgets:UpdateBudgetAction",
    "cloudformation:DeleteStack",
    "cloudformation:UpdateStack",
)

AUTOMATION_ROLE_ACTIONS = (
    "iam:CreateRole",
    "iam:UpdateAssumeRolePolicy",
    "iam:PutRolePolicy",
    "iam:AttachRolePolicy",
    "iam:PutRolePermissionsBoundary",
    "iam:DeleteRolePermissionsBoundary",
)


def automation_role_pattern(config: LandingZoneConfig, partition: str = "aws") -> str:
    """ARN pattern of the roles the landing zone's own automation runs as (exempt from tamper denies)."""
    return f"arn:{partition}:iam::*:role/{config.automation_role_prefix}*"


class GuardrailSizeError(LandingZoneError):
    """The guardrail statements cannot be carried within the SCP limits."""


@dataclass(frozen=True)
class ScpSet:
    documents: tuple[dict, ...]
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
        resources.add(f"arn:aws:bedrock:*::foundation-model/{model_id}")
        for route in mr.compliant_routes:
            if route.profile_id:
                resources.add(f"arn:aws:bedrock:*:*:inference-profile/{route.profile_id}")
    resources.add("arn:aws:bedrock:*:*:application-inference-profile/*")
    return sorted(resources)


def _mantle_models(routing: RoutingDecision) -> list[str]:
    return sorted({r.invoke_id for r in routing.compliant_routes(endpoint="mantle")})


def guardrail_statements(
    config: LandingZoneConfig, routing: RoutingDecision, catalog: Catalog
) -> list[dict]:
    """The deny statements, in a fixed order (see the module docstring)."""
    g = config.policy_guardrails
    compliant = sorted(config.compliant_regions)
    inference_regions = compliant + (["unspecified"] if config.allow_global_inference else [])
    stmts: list[dict] = [
        statement(
            "DenyInferenceOutsideCompliantRegions",
            effect="Deny",
            actions=INFERENCE_ACTIONS,
            resources=["*"],
            condition={"StringNotEquals": {"aws:RequestedRegion": inference_regions}},
        )
    ]
    if not config.allow_global_inference:
        stmts.append(
            statement(
                "DenyGlobalInferenceProfiles",
                effect="Deny",
                actions=RUNTIME_INFERENCE_ACTIONS,
                resources=["arn:aws:bedrock:*:*:inference-profile/global.*"],
            )
        )
    stmts.append(
        statement(
            "DenyUnlistedModels",
            effect="Deny",
            actions=RUNTIME_INFERENCE_ACTIONS,
            not_resources=_allowed_runtime_resources(routing),
        )
    )
    mantle_models = _mantle_models(routing)
    stmts.append(
        statement(
            "DenyUnlistedMantleModels",
            effect="Deny",
            actions=MANTLE_INVOKE_ACTIONS,
            resources=["*"],
            # No compliant Mantle model: the placeholder matches no request, so every Mantle call is denied.
            condition={"StringNotEquals": {MANTLE_MODEL_KEY: mantle_models or ["none-allowed"]}},
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
    if g.tamper_protection:
        # The landing zone's own automation (custom-resource handlers, the budget kill switch) runs as roles
        # named '<name>-automation-*'; only the deployment principals may create or change such roles.
        automation = automation_role_pattern(config)
        deployers = {"ArnNotLike": {"aws:PrincipalARN": [*g.deployment_principal_arns, automation]}}
        stmts.append(
            statement(
                "DenyAutomationRoleTakeover",
                effect="Deny",
                actions=AUTOMATION_ROLE_ACTIONS,
                resources=[automation],
                condition={"ArnNotLike": {"aws:PrincipalARN": list(g.deployment_principal_arns)}},
            )
        )
        stmts.append(
            statement(
                "DenyInvocationLoggingChanges",
                effect="Deny",
                actions=LOGGING_CONFIG_ACTIONS,
                resources=["*"],
                condition=deployers,
            )
        )
        stmts.append(
            statement(
                "DenyLandingZoneTampering",
                effect="Deny",
                actions=TAMPER_ACTIONS,
                resources=["*"],
                condition={**deployers, "StringEquals": {f"aws:ResourceTag/{LANDING_ZONE_TAG}": config.name}},
            )
        )
    if g.region_deny_all_services:
        stmts.append(
            statement(
                "DenyOutsideCompliantRegions",
                effect="Deny",
                not_actions=catalog.global_services.not_actions,
                resources=["*"],
                condition={
                    "StringNotEquals": {"aws:RequestedRegion": inference_regions},
                    "ArnNotLike": {"aws:PrincipalARN": list(g.deployment_principal_arns)},
                },
            )
        )
    return stmts


def _limits(config: LandingZoneConfig, catalog: Catalog) -> tuple[int, int]:
    g = config.policy_guardrails
    return (
        g.scp_max_characters or catalog.limit("scp_max_characters"),
        g.scp_max_per_target or catalog.limit("scp_max_per_target"),
    )


def pack_statements(statements: Sequence[dict], *, max_characters: int) -> list[dict]:
    """Split statements into as few documents as fit ``max_characters`` each (minified JSON).

    First-fit in the given order keeps related statements together and the result deterministic.
    """
    documents: list[list[dict]] = []
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


def permissions_boundary(config: LandingZoneConfig, routing: RoutingDecision, catalog: Catalog) -> dict:
    """The invoker roles' boundary: a ceiling of inference actions, minus the same denies as the SCPs.

    In single-account mode it is the only guardrail; with an organization it repeats the SCPs on the roles.
    """
    ceiling = statement("InvokerCeiling", actions=INVOKER_CEILING_ACTIONS, resources=["*"])
    return document([ceiling, *guardrail_statements(config, routing, catalog)])
