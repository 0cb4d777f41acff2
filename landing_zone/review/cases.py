"""The standard request cases: requests with the decision the guardrails must give, for any configuration.

One table, two users: ``tests/cdk/test_scp_semantics.py`` (``CASES``, the table for examples/eu-sovereign.yaml)
and the review's decision matrix (``cases_for(plan)``, the same table with the account, name, models and
Regions of another configuration substituted).

Each row states a request — action, resource ARN, Region (``aws:RequestedRegion``), principal
(``aws:PrincipalARN``) and further condition keys — and the decision AWS documents for it twice:

* ``scp``: evaluated against FullAWSAccess + the guardrail SCPs (organization mode), and
* ``boundary``: evaluated against the invoker roles' permissions boundary (single-account mode: an inference
  ceiling minus the same denies). ``None`` = not applicable: the boundary is only on invoker roles, so rows
  about the deployment, StackSets or automation roles are not evaluated against it.

A row may depend on a guardrail option (``guard``): the decision when the option's deny is active, and
``*_off`` when it is not (e.g. the global-profile rows are allowed with ``allow_global_inference: true``).
Rows that need something the configuration does not have (a compliant geographic profile, a compliant Mantle
route, a rejected geographic profile) are left out for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from landing_zone.core.routing import PathKind
from landing_zone.plan import Plan
from landing_zone.policies.condition_keys import (
    BEARER_TYPE_KEY,
    GATEWAY_AUTHORIZER_KEY,
    MANTLE_BEARER_TYPE_KEY,
    MANTLE_KEY,
    MANTLE_RETENTION_KEY,
    MANTLE_TIER_KEY,
    PROFILE_KEY,
    RETENTION_KEY,
    TIER_KEY,
)

__all__ = [
    "ACC",
    "ALLOW",
    "APP_ROLE",
    "AUTOMATION",
    "CASES",
    "DENY",
    "DEPLOYER",
    "EU_SOVEREIGN",
    "IMPLICIT",
    "KEY",
    "M",
    "OTHER",
    "STACKSETS",
    "TAGGED",
    "Case",
    "CaseParams",
    "Row",
    "TABLE",
    "build_cases",
    "cases_for",
    "fm",
    "mantle",
    "params_for",
]

ALLOW, DENY, IMPLICIT = "allow", "explicit_deny", "implicit_deny"
OTHER_MODEL = "anthropic.claude-opus-4-9"  # a model no configuration of this landing zone allows
UNLISTED_MANTLE_MODEL = "openai.gpt-oss-120b"

# Guards: the guardrail option a row depends on. The row's `scp`/`boundary` hold when the deny is active.
GUARD_GLOBAL = "global-profile-denied"  # allow_global_inference is false (or the global route is not compliant)
GUARD_API_KEYS = "deny_api_key_creation"
GUARD_BEARER = "deny_bearer_token_calls"
GUARD_TAMPER = "tamper_protection"
GUARD_REGION_ALL = "region_deny_all_services"  # this one is *inactive* by default
GUARD_TIERS = "priority-tier-denied"  # 'priority' is not in policy_guardrails.allowed_service_tiers (the default)
GUARD_AGENTCORE = "agentcore_controls"
GUARD_RETENTION = "data_retention.mode"  # set: inactive by default (not governed)


@dataclass(frozen=True)
class Row:
    """One case of the table; every string may name placeholders of ``CaseParams`` (``{home}``, ``{acc}``...)."""

    case: str
    action: str
    resource: str
    region: str
    principal: str
    context: Mapping[str, str] = field(default_factory=dict)
    scp: str = ALLOW
    boundary: str | None = ALLOW
    guard: str | None = None
    scp_off: str = ALLOW  # decision when the guard's deny is not active
    boundary_off: str | None = IMPLICIT
    needs: tuple[str, ...] = ()  # "geo", "rejected_geo", "mantle", "stacksets", "second", "short_term_keys"


@dataclass(frozen=True)
class Case:
    case: str
    action: str
    resource: str
    region: str
    principal: str
    context: Mapping[str, str]
    expected: str  # organization mode (SCPs + FullAWSAccess)
    expected_boundary: str | None  # single-account mode (invoker permissions boundary); None: not applicable

    def as_tuple(self) -> tuple[str, str, str, str, str, dict[str, str], str]:
        return (self.case, self.action, self.resource, self.region, self.principal, dict(self.context), self.expected)

    def request_context(self) -> dict[str, Any]:
        return {"aws:RequestedRegion": self.region, **principal_context(self.principal), **self.context}


def principal_context(principal: str) -> dict[str, str]:
    """``aws:PrincipalARN`` and ``aws:PrincipalAccount`` (AWS sets both on every request; the perimeter SCP reads the
    account) of a principal ARN ``arn:aws:iam::ACCOUNT:...``."""
    return {"aws:PrincipalARN": principal, "aws:PrincipalAccount": principal.split(":")[4]}


@dataclass(frozen=True)
class CaseParams:
    """What the table needs from a configuration."""

    acc: str  # the deployment account
    name: str  # landing-zone name (tag value, role/stack prefixes)
    model: str  # the first allowed model
    home: str
    second: str  # another compliant Region (a source of the geographic profile when there is one)
    dest1: str  # compliant destinations of the geographic profile
    dest2: str
    dest2_note: str  # "opt-in, compliant" or "compliant"
    outside: str  # a non-compliant Region
    outside_dest: str  # non-compliant Regions for geographic legs, Converse and batch
    outside_dest2: str
    outside_dest2_city: str
    outside_converse: str
    outside_batch: str
    geo_profile_id: str | None  # compliant geographic profile of `model` callable from home, e.g. eu.moonshotai...
    rejected_profile_id: str | None  # a rejected geographic profile of `model`, e.g. us.moonshotai...
    rejected_source: str | None  # a source Region of it
    mantle_model: str | None  # a model compliant on Mantle
    deployer: str
    stacksets: str | None
    automation: str
    guards: frozenset[str] = frozenset(
        {GUARD_GLOBAL, GUARD_API_KEYS, GUARD_BEARER, GUARD_TAMPER, GUARD_TIERS, GUARD_AGENTCORE}
    )
    retention_mode: str | None = None  # data_retention.mode; None: not governed
    api_key_user: str | None = None  # the first of api_key_principal_arns (api_keys: short-term-only), made concrete

    def values(self) -> dict[str, str]:
        geo = (self.geo_profile_id or "none.none").split(".", 1)[0]
        rejected = (self.rejected_profile_id or "none.none").split(".", 1)[0]
        arn = f"arn:aws:bedrock:{{region}}:{self.acc}:inference-profile/{{profile}}"
        return {
            "acc": self.acc,
            "name": self.name,
            "M": self.model,
            "OTHER": OTHER_MODEL,
            "home": self.home,
            "second": self.second,
            "dest1": self.dest1,
            "dest2": self.dest2,
            "dest2_note": self.dest2_note,
            "outside": self.outside,
            "outside_dest": self.outside_dest,
            "outside_dest2": self.outside_dest2,
            "outside_dest2_city": self.outside_dest2_city,
            "outside_converse": self.outside_converse,
            "outside_batch": self.outside_batch,
            "geo": geo,
            "geo_profile": arn.format(region=self.home, profile=self.geo_profile_id),
            "geo_profile_second": arn.format(region=self.second, profile=self.geo_profile_id),
            "rgeo": rejected,
            "rejected_source": self.rejected_source or "",
            "rejected_profile": arn.format(region=self.rejected_source, profile=self.rejected_profile_id),
            "global_profile": arn.format(region=self.home, profile=f"global.{self.model}"),
            "app_profile": f"arn:aws:bedrock:{self.home}:{self.acc}:application-inference-profile/a1b2c3d4e5f6",
            "app_role": f"arn:aws:iam::{self.acc}:role/app-invoker",
            "deployer": self.deployer,
            "stacksets": self.stacksets or "",
            "automation": self.automation,
            "mantle_model": self.mantle_model or "",
            "key": f"arn:aws:kms:{self.home}:{self.acc}:key/1234abcd-12ab-34cd-56ef-1234567890ab",
            # the governed data retention mode (a placeholder when none is configured) and another one
            "retention_mode": self.retention_mode or "none",
            "other_retention": "provider_data_share" if self.retention_mode != "provider_data_share" else "default",
            "api_key_user": self.api_key_user or "",
        }


def _fm(region: str, model: str = "{M}") -> str:
    return f"arn:aws:bedrock:{region}::foundation-model/{model}"


def _mantle(region: str) -> str:
    return f"arn:aws:bedrock-mantle:{region}:{{acc}}:project/default"


_TAGGED = {"aws:ResourceTag/landing-zone": "{name}"}
_IM, _IMS, _BATCH, _MANTLE = (
    "bedrock:InvokeModel",
    "bedrock:InvokeModelWithResponseStream",
    "bedrock:CreateModelInvocationJob",
    "bedrock-mantle:CreateInference",
)
_NA: dict[str, Any] = {"boundary": None, "boundary_off": None}  # not an invoker role: the boundary does not apply
# The boundary carries no tamper statements: its ceiling already leaves these actions out (implicit deny).
_TAMPER: dict[str, Any] = {"scp": DENY, "boundary": IMPLICIT, "guard": GUARD_TAMPER}
_GLOBAL: dict[str, Any] = {"scp": DENY, "boundary": DENY, "guard": GUARD_GLOBAL, "boundary_off": ALLOW}

TABLE: tuple[Row, ...] = (
    # --- runtime inference: in-Region and geographic profile legs -------------------------------------------
    Row("{geo} profile, source {home}", _IM, "{geo_profile}", "{home}", "{app_role}", needs=("geo",)),
    Row(
        "{geo} profile streaming (ConverseStream), source {home}",
        _IMS,
        "{geo_profile}",
        "{home}",
        "{app_role}",
        needs=("geo",),
    ),
    Row(
        "{geo} profile started in {second}, not an inference source Region (nothing logs or alarms there)",
        _IMS,
        "{geo_profile_second}",
        "{second}",
        "{app_role}",
        scp=DENY,
        boundary=DENY,
        needs=("geo", "second"),
    ),
    Row(
        "{geo} profile leg to {dest1}",
        _IM,
        _fm("{dest1}"),
        "{dest1}",
        "{app_role}",
        {PROFILE_KEY: "{geo_profile}"},
        needs=("geo",),
    ),
    Row(
        "{geo} profile leg to {dest2} ({dest2_note})",
        _IM,
        _fm("{dest2}"),
        "{dest2}",
        "{app_role}",
        {PROFILE_KEY: "{geo_profile}"},
        needs=("geo",),
    ),
    Row("in-Region call in a compliant Region", _IM, _fm("{home}"), "{home}", "{app_role}"),
    Row(
        "in-Region call in a non-compliant Region",
        _IM,
        _fm("{outside}"),
        "{outside}",
        "{app_role}",
        scp=DENY,
        boundary=DENY,
    ),
    Row(
        "{rgeo} profile called in {rejected_source}",
        _IM,
        "{rejected_profile}",
        "{rejected_source}",
        "{app_role}",
        scp=DENY,
        boundary=DENY,
        needs=("rejected_geo",),
    ),
    Row(
        "geo leg to {outside_dest} (non-compliant destination)",
        _IM,
        _fm("{outside_dest}"),
        "{outside_dest}",
        "{app_role}",
        {PROFILE_KEY: "{geo_profile}"},
        scp=DENY,
        boundary=DENY,
        needs=("geo",),
    ),
    Row(
        "geo leg to {outside_dest2} ({outside_dest2_city}, not declared compliant)",
        _IM,
        _fm("{outside_dest2}"),
        "{outside_dest2}",
        "{app_role}",
        {PROFILE_KEY: "{geo_profile}"},
        scp=DENY,
        boundary=DENY,
        needs=("geo",),
    ),
    Row(
        "Converse in a non-compliant Region (authorised as InvokeModel)",
        _IM,
        _fm("{outside_converse}"),
        "{outside_converse}",
        "{app_role}",
        scp=DENY,
        boundary=DENY,
    ),
    # --- global profile --------------------------------------------------------------------------------------
    Row(
        "global profile resource in a compliant source Region",
        _IM,
        "{global_profile}",
        "{home}",
        "{app_role}",
        **_GLOBAL,
    ),
    Row(
        "global profile: Region-less FM leg",
        _IM,
        "arn:aws:bedrock:::foundation-model/{M}",
        "unspecified",
        "{app_role}",
        {PROFILE_KEY: "{global_profile}"},
        **_GLOBAL,
    ),
    Row("global profile: FM leg in the source Region", _IMS, "{global_profile}", "{home}", "{app_role}", **_GLOBAL),
    # --- allow-list of models on runtime ---------------------------------------------------------------------
    Row(
        "unlisted model in-Region, compliant Region",
        _IM,
        _fm("{home}", "{OTHER}"),
        "{home}",
        "{app_role}",
        scp=DENY,
        boundary=DENY,
    ),
    Row(
        "unlisted model's {geo} profile",
        _IM,
        "arn:aws:bedrock:{home}:{acc}:inference-profile/{geo}.{OTHER}",
        "{home}",
        "{app_role}",
        scp=DENY,
        boundary=DENY,
        needs=("geo",),
    ),
    Row(
        "application profile resource (its model legs are checked separately)",
        _IM,
        "{app_profile}",
        "{home}",
        "{app_role}",
    ),
    Row(
        "application profile over an unlisted model: the model leg",
        _IM,
        _fm("{second}", "{OTHER}"),
        "{second}",
        "{app_role}",
        {PROFILE_KEY: "{app_profile}"},
        scp=DENY,
        boundary=DENY,
    ),
    Row(
        "application profile over Kimi: the model leg",
        _IM,
        _fm("{second}"),
        "{second}",
        "{app_role}",
        {PROFILE_KEY: "{app_profile}"},
    ),
    Row(
        "provisioned throughput of another model",
        _IM,
        "arn:aws:bedrock:{home}:{acc}:provisioned-model/abc",
        "{home}",
        "{app_role}",
        scp=DENY,
        boundary=DENY,
    ),
    # --- Mantle (OpenAI-compatible endpoint) -----------------------------------------------------------------
    Row(
        "Mantle, allowed model, compliant Region",
        _MANTLE,
        _mantle("{home}"),
        "{home}",
        "{app_role}",
        {MANTLE_KEY: "{mantle_model}"},
        needs=("mantle",),
    ),
    Row(
        "Mantle, unlisted model",
        _MANTLE,
        _mantle("{home}"),
        "{home}",
        "{app_role}",
        {MANTLE_KEY: UNLISTED_MANTLE_MODEL},
        scp=DENY,
        boundary=DENY,
    ),
    Row(
        "Mantle, request without the model key",
        _MANTLE,
        _mantle("{home}"),
        "{home}",
        "{app_role}",
        scp=DENY,
        boundary=DENY,
    ),
    Row(
        "Mantle, allowed model, non-compliant Region",
        _MANTLE,
        _mantle("{outside}"),
        "{outside}",
        "{app_role}",
        {MANTLE_KEY: "{mantle_model}"},
        scp=DENY,
        boundary=DENY,
        needs=("mantle",),
    ),
    Row(
        "Mantle read-only calls stay allowed", "bedrock-mantle:ListProjects", _mantle("{home}"), "{home}", "{app_role}"
    ),
    # --- batch -----------------------------------------------------------------------------------------------
    Row("batch job on the {geo} profile", _BATCH, "{geo_profile}", "{home}", "{app_role}", needs=("geo",)),
    Row(
        "batch job in a non-compliant Region",
        _BATCH,
        _fm("{outside_batch}"),
        "{outside_batch}",
        "{app_role}",
        scp=DENY,
        boundary=DENY,
    ),
    Row(
        "batch job on an unlisted model",
        _BATCH,
        _fm("{home}", "{OTHER}"),
        "{home}",
        "{app_role}",
        scp=DENY,
        boundary=DENY,
    ),
    # --- API keys --------------------------------------------------------------------------------------------
    Row(
        "create a long-term Bedrock API key",
        "iam:CreateServiceSpecificCredential",
        "arn:aws:iam::{acc}:user/bot",
        "us-east-1",
        "{app_role}",
        {"iam:ServiceSpecificCredentialServiceName": "bedrock.amazonaws.com"},
        scp=DENY,
        boundary=DENY,
        guard=GUARD_API_KEYS,
    ),
    Row(
        "create a CodeCommit credential (other service)",
        "iam:CreateServiceSpecificCredential",
        "arn:aws:iam::{acc}:user/dev",
        "us-east-1",
        "{app_role}",
        {"iam:ServiceSpecificCredentialServiceName": "codecommit.amazonaws.com"},
        boundary=IMPLICIT,
    ),
    Row(
        "call Bedrock with a bearer token",
        "bedrock:CallWithBearerToken",
        "*",
        "{home}",
        "{app_role}",
        scp=DENY,
        boundary=DENY,
        guard=GUARD_BEARER,
    ),
    Row(
        "call Mantle with a bearer token",
        "bedrock-mantle:CallWithBearerToken",
        "*",
        "{home}",
        "{app_role}",
        scp=DENY,
        boundary=DENY,
        guard=GUARD_BEARER,
    ),
    # --- API keys: api_keys short-term-only (api-keys-permissions.html) ------------------------------------------
    Row(
        "long-term API key call by a listed principal (short-term-only)",
        "bedrock:CallWithBearerToken",
        "*",
        "{home}",
        "{api_key_user}",
        {BEARER_TYPE_KEY: "LONG_TERM"},
        scp=DENY,
        needs=("short_term_keys",),
        **_NA,
    ),
    Row(
        "long-term API key call to Mantle by a listed principal (short-term-only)",
        "bedrock-mantle:CallWithBearerToken",
        "*",
        "{home}",
        "{api_key_user}",
        {MANTLE_BEARER_TYPE_KEY: "LONG_TERM"},
        scp=DENY,
        needs=("short_term_keys",),
        **_NA,
    ),
    Row(
        "short-term API key call by a listed principal (short-term-only)",
        "bedrock:CallWithBearerToken",
        "*",
        "{home}",
        "{api_key_user}",
        {BEARER_TYPE_KEY: "SHORT_TERM"},
        needs=("short_term_keys",),
        **_NA,
    ),
    Row(
        "short-term API key call to Mantle by a listed principal (short-term-only)",
        "bedrock-mantle:CallWithBearerToken",
        "*",
        "{home}",
        "{api_key_user}",
        {MANTLE_BEARER_TYPE_KEY: "SHORT_TERM"},
        needs=("short_term_keys",),
        **_NA,
    ),
    Row(
        "short-term API key call by a principal not listed (short-term-only)",
        "bedrock:CallWithBearerToken",
        "*",
        "{home}",
        "{app_role}",
        {BEARER_TYPE_KEY: "SHORT_TERM"},
        scp=DENY,
        boundary=DENY,
        needs=("short_term_keys",),
    ),
    # --- service tiers (service-tiers-inference.html; bedrock:ServiceTier / bedrock-mantle:ServiceTier) -----------
    Row(
        "runtime call requesting the priority tier",
        _IM,
        "{app_profile}",
        "{home}",
        "{app_role}",
        {TIER_KEY: "priority"},
        scp=DENY,
        boundary=DENY,
        guard=GUARD_TIERS,
        boundary_off=ALLOW,
    ),
    Row(
        "Responses API on bedrock-runtime (/openai/v1, authorised as InvokeModelWithResponseStream), priority tier",
        _IMS,
        "{app_profile}",
        "{home}",
        "{app_role}",
        {TIER_KEY: "priority"},
        scp=DENY,
        boundary=DENY,
        guard=GUARD_TIERS,
        boundary_off=ALLOW,
    ),
    Row("runtime call naming the default tier", _IM, "{app_profile}", "{home}", "{app_role}", {TIER_KEY: "default"}),
    Row(
        "Chat Completions on bedrock-runtime (/openai/v1, authorised as InvokeModel), no tier named (default tier)",
        _IM,
        "{app_profile}",
        "{home}",
        "{app_role}",
    ),
    Row(
        "Chat Completions on bedrock-runtime (InvokeModel) in a non-compliant Region",
        _IM,
        _fm("{outside}"),
        "{outside}",
        "{app_role}",
        {TIER_KEY: "default"},
        scp=DENY,
        boundary=DENY,
    ),
    Row(
        "Mantle Responses API (CreateInference) requesting the priority tier",
        _MANTLE,
        _mantle("{home}"),
        "{home}",
        "{app_role}",
        {MANTLE_KEY: "{mantle_model}", MANTLE_TIER_KEY: "priority"},
        scp=DENY,
        boundary=DENY,
        guard=GUARD_TIERS,
        boundary_off=ALLOW,
        needs=("mantle",),
    ),
    Row(
        "Mantle Chat Completions (CreateInference) naming the default tier",
        _MANTLE,
        _mantle("{home}"),
        "{home}",
        "{app_role}",
        {MANTLE_KEY: "{mantle_model}", MANTLE_TIER_KEY: "default"},
        needs=("mantle",),
    ),
    Row(
        "stored Responses API response (bedrock:GetInvoke) in a non-compliant Region",
        "bedrock:GetInvoke",
        "arn:aws:bedrock:{outside}:{acc}:project/default",
        "{outside}",
        "{app_role}",
        scp=DENY,
        boundary=DENY,
    ),
    Row(
        "stored Responses API response (bedrock:GetInvoke) in {home} (not in the invoker ceiling)",
        "bedrock:GetInvoke",
        "arn:aws:bedrock:{home}:{acc}:project/default",
        "{home}",
        "{app_role}",
        boundary=IMPLICIT,
    ),
    # --- AgentCore (security-gateway-condition-keys.html, security-vpc-condition.html) -----------------------------
    Row(
        "AgentCore gateway without inbound authorization (BedrockAgentCore.2)",
        "bedrock-agentcore:CreateGateway",
        "*",
        "{home}",
        "{app_role}",
        {GATEWAY_AUTHORIZER_KEY: "NONE"},
        scp=DENY,
        boundary=IMPLICIT,
        guard=GUARD_AGENTCORE,
    ),
    Row(
        "AgentCore gateway with IAM authorization",
        "bedrock-agentcore:CreateGateway",
        "*",
        "{home}",
        "{app_role}",
        {GATEWAY_AUTHORIZER_KEY: "AWS_IAM"},
        boundary=IMPLICIT,
    ),
    Row(
        "AgentCore runtime without VPC configuration (BedrockAgentCore.1)",
        "bedrock-agentcore:CreateAgentRuntime",
        "*",
        "{home}",
        "{app_role}",
        scp=DENY,
        boundary=IMPLICIT,
        guard=GUARD_AGENTCORE,
    ),
    Row(
        "AgentCore runtime in the VPC (subnets and security groups)",
        "bedrock-agentcore:CreateAgentRuntime",
        "*",
        "{home}",
        "{app_role}",
        {"bedrock-agentcore:subnets": "subnet-0123456789abcdef0", "bedrock-agentcore:securityGroups": "sg-0a1b2c3d"},
        boundary=IMPLICIT,
    ),
    # --- data retention (data-retention.html, "Enforcing retention policy with IAM") ------------------------------
    Row(
        "app role creates a Mantle project with another retention mode",
        "bedrock-mantle:CreateProject",
        "arn:aws:bedrock-mantle:{home}:{acc}:project/proj_new1",
        "{home}",
        "{app_role}",
        {MANTLE_RETENTION_KEY: "{other_retention}"},
        scp=DENY,
        boundary=IMPLICIT,
        guard=GUARD_RETENTION,
    ),
    Row(
        "app role creates a Mantle project with the governed retention mode",
        "bedrock-mantle:CreateProject",
        "arn:aws:bedrock-mantle:{home}:{acc}:project/proj_new1",
        "{home}",
        "{app_role}",
        {MANTLE_RETENTION_KEY: "{retention_mode}"},
        boundary=IMPLICIT,
    ),
    Row(
        "app role sets the account retention mode through Mantle",
        "bedrock-mantle:PutAccountDataRetention",
        "*",
        "{home}",
        "{app_role}",
        {MANTLE_RETENTION_KEY: "{retention_mode}"},
        **_TAMPER,
    ),
    Row(
        "deployment role sets the account retention mode (exempt)",
        "bedrock:PutAccountDataRetention",
        "*",
        "{home}",
        "{deployer}",
        {RETENTION_KEY: "{retention_mode}"},
        **_NA,
    ),
    # --- tamper protection -----------------------------------------------------------------------------------
    Row(
        "app role changes the invocation-logging configuration",
        "bedrock:PutModelInvocationLoggingConfiguration",
        "*",
        "{home}",
        "{app_role}",
        **_TAMPER,
    ),
    Row(
        "app role deletes the invocation-logging configuration",
        "bedrock:DeleteModelInvocationLoggingConfiguration",
        "*",
        "{home}",
        "{app_role}",
        **_TAMPER,
    ),
    Row(
        "deployment role changes the invocation-logging configuration",
        "bedrock:PutModelInvocationLoggingConfiguration",
        "*",
        "{home}",
        "{deployer}",
        **_NA,
    ),
    Row(
        "landing-zone automation role sets the logging configuration",
        "bedrock:PutModelInvocationLoggingConfiguration",
        "*",
        "{home}",
        "{automation}",
        **_NA,
    ),
    Row(
        "StackSets execution role sets the logging configuration",
        "bedrock:PutModelInvocationLoggingConfiguration",
        "*",
        "{home}",
        "{stacksets}",
        needs=("stacksets",),
        **_NA,
    ),
    Row(
        "app role schedules deletion of a landing-zone key",
        "kms:ScheduleKeyDeletion",
        "{key}",
        "{home}",
        "{app_role}",
        _TAGGED,
        **_TAMPER,
    ),
    Row(
        "deployment role schedules deletion of a landing-zone key",
        "kms:ScheduleKeyDeletion",
        "{key}",
        "{home}",
        "{deployer}",
        _TAGGED,
        **_NA,
    ),
    Row(
        "app role schedules deletion of its own untagged key",
        "kms:ScheduleKeyDeletion",
        "{key}",
        "{home}",
        "{app_role}",
        boundary=IMPLICIT,
    ),
    Row(
        "app role removes the landing-zone tag from a key",
        "kms:UntagResource",
        "{key}",
        "{home}",
        "{app_role}",
        {**_TAGGED, "aws:TagKeys": "landing-zone"},
        **_TAMPER,
    ),
    Row(
        "app role deletes a landing-zone VPC endpoint",
        "ec2:DeleteVpcEndpoints",
        "arn:aws:ec2:{home}:{acc}:vpc-endpoint/vpce-0123",
        "{home}",
        "{app_role}",
        _TAGGED,
        **_TAMPER,
    ),
    Row(
        "app role edits a landing-zone endpoint policy",
        "ec2:ModifyVpcEndpoint",
        "arn:aws:ec2:{home}:{acc}:vpc-endpoint/vpce-0123",
        "{home}",
        "{app_role}",
        _TAGGED,
        **_TAMPER,
    ),
    Row(
        "app role widens a landing-zone role's trust",
        "iam:UpdateAssumeRolePolicy",
        "arn:aws:iam::{acc}:role/{name}-invoker",
        "us-east-1",
        "{app_role}",
        _TAGGED,
        **_TAMPER,
    ),
    Row(
        "app role detaches the kill-switch policy",
        "iam:DetachRolePolicy",
        "arn:aws:iam::{acc}:role/{name}-invoker",
        "us-east-1",
        "{app_role}",
        _TAGGED,
        **_TAMPER,
    ),
    Row(
        "app role creates a role posing as landing-zone automation",
        "iam:CreateRole",
        "arn:aws:iam::{acc}:role/{name}-automation-evil",
        "us-east-1",
        "{app_role}",
        **_TAMPER,
    ),
    Row(
        "automation role (budget action) attaches the kill switch to an invoker role",
        "iam:AttachRolePolicy",
        "arn:aws:iam::{acc}:role/{name}-invoker-x",
        "us-east-1",
        "{automation}",
        **_NA,
    ),
    Row(
        "deployment role creates an automation role",
        "iam:CreateRole",
        "arn:aws:iam::{acc}:role/{name}-automation-x",
        "us-east-1",
        "{deployer}",
        **_NA,
    ),
    Row(
        "app role deletes a landing-zone stack",
        "cloudformation:DeleteStack",
        "arn:aws:cloudformation:{home}:{acc}:stack/{name}-network/1",
        "{home}",
        "{app_role}",
        _TAGGED,
        **_TAMPER,
    ),
    Row(
        "app role creates its own role (unrelated IAM)",
        "iam:CreateRole",
        "arn:aws:iam::{acc}:role/my-app",
        "us-east-1",
        "{app_role}",
        boundary=IMPLICIT,
    ),
    # --- unrelated services stay allowed ---------------------------------------------------------------------
    Row("STS in us-east-1", "sts:GetCallerIdentity", "*", "us-east-1", "{app_role}"),
    Row(
        "S3 read in {outside} (no general Region deny by default)",
        "s3:GetObject",
        "arn:aws:s3:::bucket/key",
        "{outside}",
        "{app_role}",
        guard=GUARD_REGION_ALL,
        scp=DENY,
        boundary=DENY,
        scp_off=ALLOW,
        boundary_off=IMPLICIT,
    ),
    Row("S3 write in {home}", "s3:PutObject", "arn:aws:s3:::bucket/key", "{home}", "{app_role}", boundary=IMPLICIT),
    Row(
        "Bedrock catalog read in {outside} (every Bedrock action is confined)",
        "bedrock:ListFoundationModels",
        "*",
        "{outside}",
        "{app_role}",
        scp=DENY,
        boundary=DENY,
    ),
)


def _fill(text: str, values: Mapping[str, str]) -> str:
    return text.format(**values)


def build_cases(params: CaseParams) -> tuple[Case, ...]:
    """The table with ``params`` substituted; rows whose needs are not met are left out."""
    values = params.values()
    available = {
        "geo": params.geo_profile_id is not None,
        "rejected_geo": params.rejected_profile_id is not None and params.rejected_source is not None,
        "mantle": params.mantle_model is not None,
        "stacksets": params.stacksets is not None,
        "second": params.second != params.home,
        "short_term_keys": params.api_key_user is not None,
    }
    cases = []
    for row in TABLE:
        if not all(available[n] for n in row.needs):
            continue
        active = row.guard is None or row.guard in params.guards
        cases.append(
            Case(
                case=_fill(row.case, values),
                action=row.action,
                resource=_fill(row.resource, values),
                region=_fill(row.region, values),
                principal=_fill(row.principal, values),
                context={k: _fill(v, values) for k, v in row.context.items()},
                expected=row.scp if active else row.scp_off,
                expected_boundary=row.boundary if active else row.boundary_off,
            )
        )
    return tuple(cases)


# ----------------------------------------------------------------------------------------- parameters of a plan

_PREFERRED_OUTSIDE = {
    "outside_dest": "il-central-1",
    "outside_dest2": "eu-west-2",
    "outside_converse": "ap-northeast-1",
    "outside_batch": "us-west-2",
}
_STACKSETS_SUFFIX = "0123456789abcdef"


def params_for(plan: Plan) -> CaseParams:
    """The table's parameters for a validated plan (deterministic: config order, then catalog order)."""
    config, catalog = plan.config, plan.catalog
    acc, home = config.deployment_account, config.home_region
    compliant = list(config.compliant_regions)
    model = plan.models[0]
    routes = next(mr.routes for mr in plan.routing.models if mr.model.id == model.id)
    geo = next(
        (
            r
            for r in sorted(routes, key=lambda r: r.invoke_id)
            if r.kind is PathKind.GEOGRAPHIC_PROFILE and r.compliant and home in r.source_regions
        ),
        None,
    )
    rejected = next(
        (
            r
            for r in sorted(routes, key=lambda r: r.invoke_id)
            if r.kind is PathKind.GEOGRAPHIC_PROFILE and not r.compliant and r.source_regions
        ),
        None,
    )
    sources = set(geo.source_regions) if geo else set(compliant)
    destinations = set(geo.destination_regions) if geo else set(compliant)
    second = next((r for r in compliant if r != home and r in sources), next((r for r in compliant if r != home), home))
    dest1 = next((r for r in compliant if r not in (home, second) and r in destinations), second)
    dest2 = next((r for r in reversed(compliant) if r not in (home, second, dest1) and r in destinations), dest1)
    region_info = catalog.regions
    note = "opt-in, compliant" if dest2 in region_info and region_info[dest2].opt_in else "compliant"
    outside_regions = [r for r in region_info if r not in config.compliant_regions]
    rejected_source = sorted(rejected.source_regions)[0] if rejected else None
    outside = rejected_source if rejected_source and rejected_source not in compliant else outside_regions[0]
    used = {outside}
    picks: dict[str, str] = {}
    for slot, preferred in _PREFERRED_OUTSIDE.items():
        choice = (
            preferred
            if preferred in outside_regions and preferred not in used
            else next(r for r in outside_regions if r not in used)
        )
        picks[slot] = choice
        used.add(choice)
    city_name = (
        region_info[picks["outside_dest2"]].name if picks["outside_dest2"] in region_info else picks["outside_dest2"]
    )
    city = city_name[city_name.find("(") + 1 : city_name.rfind(")")] if "(" in city_name else city_name
    mantle_routes = [r for mr in plan.routing.models for r in mr.compliant_routes if r.kind is PathKind.MANTLE]
    own_mantle = [r for r in mantle_routes if r.model_id == model.id]
    mantle_model = (own_mantle or mantle_routes)[0].invoke_id if (own_mantle or mantle_routes) else None
    g = config.policy_guardrails
    q = g.cdk_bootstrap_qualifier
    stacksets = (
        f"arn:aws:iam::{acc}:role/stacksets-exec-{_STACKSETS_SUFFIX}" if config.member_baseline.enabled else None
    )
    # Who deploys into `acc`: the StackSets execution role (member baseline), else the CDK execution role.
    deployer = stacksets or f"arn:aws:iam::{acc}:role/cdk-{q}-cfn-exec-role-{acc}-{home}"
    global_ok = any(r.kind is PathKind.GLOBAL_PROFILE and r.compliant for r in routes)
    guards = {
        GUARD_GLOBAL: not global_ok,
        GUARD_API_KEYS: g.deny_api_key_creation or g.api_keys == "short-term-only",
        # short-term-only denies a bearer call without a token type too (DenyLongTermBearerTokenCalls)
        GUARD_BEARER: g.deny_bearer_token_calls or g.api_keys == "short-term-only",
        GUARD_TAMPER: g.tamper_protection,
        GUARD_REGION_ALL: g.region_deny_all_services,
        GUARD_TIERS: "priority" not in g.allowed_service_tiers,
        GUARD_AGENTCORE: g.agentcore_controls,
        GUARD_RETENTION: config.data_retention.mode is not None,
    }
    api_key_user = (
        g.api_key_principal_arns[0].replace("*", "x").replace("?", "x")
        if g.api_keys == "short-term-only" and g.api_key_principal_arns
        else None
    )
    return CaseParams(
        acc=acc,
        name=config.name,
        model=model.id,
        home=home,
        second=second,
        dest1=dest1,
        dest2=dest2,
        dest2_note=note,
        outside=outside,
        outside_dest=picks["outside_dest"],
        outside_dest2=picks["outside_dest2"],
        outside_dest2_city=city,
        outside_converse=picks["outside_converse"],
        outside_batch=picks["outside_batch"],
        geo_profile_id=geo.invoke_id if geo else None,
        rejected_profile_id=rejected.invoke_id if rejected else None,
        rejected_source=rejected_source,
        mantle_model=mantle_model,
        deployer=deployer,
        stacksets=stacksets,
        automation=f"arn:aws:iam::{acc}:role/{config.automation_role_prefix}invocation-logging",
        guards=frozenset(k for k, on in guards.items() if on),
        retention_mode=config.data_retention.mode,
        api_key_user=api_key_user,
    )


def cases_for(plan: Plan) -> tuple[Case, ...]:
    return build_cases(params_for(plan))


# ----------------------------------------------------------------------------------------- examples/eu-sovereign.yaml

M = "moonshotai.kimi-k3.1-pro"
OTHER = OTHER_MODEL
ACC = "222222222222"
EU_SOVEREIGN = CaseParams(
    acc=ACC,
    name="kimi-eu",
    model=M,
    home="eu-central-1",
    second="eu-west-1",
    dest1="eu-west-3",
    dest2="eu-south-2",
    dest2_note="opt-in, compliant",
    outside="us-east-1",
    outside_dest="il-central-1",
    outside_dest2="eu-west-2",
    outside_dest2_city="London",
    outside_converse="ap-northeast-1",
    outside_batch="us-west-2",
    geo_profile_id=f"eu.{M}",
    rejected_profile_id=f"us.{M}",
    rejected_source="us-east-1",
    mantle_model=M,
    deployer=f"arn:aws:iam::{ACC}:role/cdk-kimilz-cfn-exec-role-{ACC}-eu-central-1",
    stacksets=None,
    automation=f"arn:aws:iam::{ACC}:role/kimi-eu-automation-invocation-logging",
    guards=frozenset(
        {GUARD_GLOBAL, GUARD_API_KEYS, GUARD_BEARER, GUARD_TAMPER, GUARD_TIERS, GUARD_AGENTCORE, GUARD_RETENTION}
    ),
    retention_mode="none",  # data_retention: {mode: none} (zero data retention)
)
_EU = EU_SOVEREIGN.values()
APP_ROLE = _EU["app_role"]
DEPLOYER = EU_SOVEREIGN.deployer
AUTOMATION = EU_SOVEREIGN.automation
STACKSETS = EU_SOVEREIGN.stacksets
TAGGED = {"aws:ResourceTag/landing-zone": EU_SOVEREIGN.name}
KEY = _EU["key"]

# (case, action, resource, region, principal, extra condition keys, expected decision) for eu-sovereign
CASES = [c.as_tuple() for c in build_cases(EU_SOVEREIGN)]


def fm(region: str, model: str = M) -> str:
    return f"arn:aws:bedrock:{region}::foundation-model/{model}"


def mantle(region: str, account: str = ACC) -> str:
    return f"arn:aws:bedrock-mantle:{region}:{account}:project/default"
