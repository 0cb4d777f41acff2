"""The governed Bedrock settings (issue 25), each shown with the evidence the *assembly* holds for it.

For each control the configuration states, the section names the deny statements that enforce it and the resources
that apply it, and looks them up in the synthesized policies and templates, not in the plan.  The expected
statements are derived from the configuration alone (``_expected_sids``), so a builder that silently drops one is
caught here, whatever the plan says:

* ``LZ-VOID-SETTING`` (blocking) — a configured control whose deny statement or applying resource is missing from
  the assembly: the report would otherwise say PASS while the setting is unguarded.
* ``LZ-SETTING-SCP-ONLY`` (advisory) — a configured control that AWS Organizations SCPs alone enforce (AgentCore,
  data retention), in single-account mode: nothing stops a principal of the account; ``verify`` is the only check.

Controls and the AWS pages they rest on (cited in the section):

* service tiers — ``bedrock:ServiceTier`` / ``bedrock-mantle:ServiceTier``
  (https://docs.aws.amazon.com/bedrock/latest/userguide/service-tiers-inference.html);
* API keys — ``iam:CreateServiceSpecificCredential`` and ``CallWithBearerToken`` with ``BearerTokenType``
  (https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-permissions.html);
* AgentCore — ``GatewayAuthorizerType``, ``subnets`` / ``securityGroups`` (Security Hub BedrockAgentCore.1/.2,
  https://docs.aws.amazon.com/securityhub/latest/userguide/bedrockagentcore-controls.html);
* data retention — ``bedrock:DataRetentionMode`` (https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html);
* organization guardrail policy — the ``BEDROCK_POLICY`` and the guardrail's resource-based policy
  (https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_bedrock.html).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from landing_zone.assembly import Assembly, Resource
from landing_zone.assembly.intrinsics import render
from landing_zone.core.config import LandingZoneConfig
from landing_zone.plan import Plan
from landing_zone.review.findings import Finding, finding
from landing_zone.review.inventory import PolicyRecord, statements_of
from landing_zone.review.rules import ADVISORY, BLOCKING, define

__all__ = ["settings_findings", "settings_section"]

ALL_TIERS = frozenset({"reserved", "priority", "default", "flex"})
TIERS_DOC = "https://docs.aws.amazon.com/bedrock/latest/userguide/service-tiers-inference.html"
API_KEYS_DOC = "https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-permissions.html"
AGENTCORE_DOC = "https://docs.aws.amazon.com/securityhub/latest/userguide/bedrockagentcore-controls.html"
RETENTION_DOC = "https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html"
ORG_POLICY_DOC = "https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_bedrock.html"

VOID_SETTING = define(
    "LZ-VOID-SETTING",
    BLOCKING,
    "A governed Bedrock setting has no enforcement in the assembly",
    "A control the configuration sets (service tiers, API keys, AgentCore, data retention, organization guardrail "
    "policy) lacks a deny statement or an applying resource in the synthesized templates.",
    "The configuration promises the control and the report would say PASS, but nothing deployed enforces it. "
    "Synthesize again from this configuration; if the statement is still missing, the builder dropped it (a bug).",
)

SETTING_SCP_ONLY = define(
    "LZ-SETTING-SCP-ONLY",
    ADVISORY,
    "A governed setting is enforced by SCPs only, and this is a single account",
    "Single-account mode, and a control that only the organization's SCPs enforce (AgentCore, data retention) is set.",
    "The invoker roles' permissions boundary does not grant these actions, but any other principal of the account "
    "may change them: only verify (DRIFT) would notice. Use organization mode to enforce them.",
)


@dataclass(frozen=True)
class _Control:
    key: str
    title: str
    setting: str
    sids: tuple[str, ...]  # deny statements that must be in the enforcing policies
    scp_only: bool  # enforced by SCPs only (the boundary does not carry it)
    doc: str
    verify: tuple[str, ...] = ()
    note: str = ""


def _api_key_sids(config: LandingZoneConfig) -> tuple[str, ...]:
    g = config.policy_guardrails
    if g.api_keys == "short-term-only":
        return (
            "DenyBedrockApiKeyCreation",
            "DenyLongTermBearerTokenCalls",
            "DenyLongTermMantleBearerTokenCalls",
            "DenyBearerTokenCallsByUnlistedPrincipals",
        )
    sids = []
    if g.deny_api_key_creation:
        sids.append("DenyBedrockApiKeyCreation")
    if g.deny_bearer_token_calls:
        sids.append("DenyBearerTokenCalls")
    return tuple(sids)


def _controls(config: LandingZoneConfig) -> list[_Control]:
    g = config.policy_guardrails
    tiers = sorted(g.allowed_service_tiers)
    out = [
        _Control(
            "service-tiers",
            "Service tiers",
            f"allowed: {', '.join(tiers)}",
            () if set(tiers) >= ALL_TIERS else ("DenyUnlistedServiceTiers", "DenyUnlistedMantleServiceTiers"),
            False,
            TIERS_DOC,
            note="a request that names no tier runs on the default tier and carries no key (not denied)",
        ),
        _Control(
            "api-keys",
            "Bedrock API keys",
            g.api_keys
            + (
                f" (short-term keys for {len(g.api_key_principal_arns)} principal(s))"
                if g.api_key_principal_arns
                else ""
            ),
            _api_key_sids(config),
            False,
            API_KEYS_DOC,
        ),
    ]
    if g.agentcore_controls:
        out.append(
            _Control(
                "agentcore",
                "AgentCore gateways and runtimes",
                "gateways need inbound authorization; runtimes, code interpreters and browsers need a VPC "
                "(Security Hub BedrockAgentCore.2, BedrockAgentCore.1)",
                ("DenyAgentCoreGatewayWithoutAuthorizer", "DenyAgentCoreWithoutVpc"),
                True,
                AGENTCORE_DOC,
            )
        )
    if config.data_retention.mode is not None:
        out.append(
            _Control(
                "data-retention",
                "Data retention mode",
                f"mode {config.data_retention.mode} (applied in {config.home_region}, where inference starts)",
                ("DenyDataRetentionModeChange", "DenyMantleDataRetentionModeChange"),
                True,
                RETENTION_DOC,
                verify=("data-retention",),
            )
        )
    return out


def _enforcing(records: Iterable[PolicyRecord], organization: bool, scp_only: bool) -> list[PolicyRecord]:
    """The policies a control's denies must be in: the SCPs in organization mode, the invoker boundary otherwise."""
    if organization:
        return [r for r in records if r.kind == "scp"]
    if scp_only:
        return []
    return [r for r in records if r.boundary_of]


def _sid_locations(records: Iterable[PolicyRecord]) -> dict[str, list[str]]:
    where: dict[str, list[str]] = {}
    for r in records:
        for st in statements_of(r.document):
            sid = st.get("Sid")
            if isinstance(sid, str) and r.name not in where.setdefault(sid, []):
                where[sid].append(r.name)
    return where


def _control_row(control: _Control, enforcing: list[PolicyRecord], organization: bool) -> dict[str, Any]:
    where = _sid_locations(enforcing)
    missing = [s for s in control.sids if s not in where]
    if control.scp_only and not organization:
        status = "scp-only"
    elif missing:
        status = "void"
    else:
        status = "enforced"
    return {
        "key": control.key,
        "control": control.title,
        "setting": control.setting,
        "enforced_by": [{"sid": s, "policies": where.get(s, [])} for s in control.sids],
        "missing": missing if status == "void" else [],
        "status": status,
        "applied_by": [],
        "verify": list(control.verify),
        "note": control.note,
        "doc": control.doc,
    }


def _retention_resources(assembly: Assembly, mode: str) -> tuple[list[str], bool]:
    found = []
    ok = False
    # in the stacks, and in the StackSet member template (member_baseline: every member account applies it)
    members = [r for m in assembly.members for r in m.resources("Custom::BedrockDataRetention")]
    for res in [*assembly.resources("Custom::BedrockDataRetention"), *members]:
        region = res.stack.region or "each member account's home_region"
        found.append(f"Custom::BedrockDataRetention {res.logical_id} (Mode {res.prop('Mode')}, {region})")
        ok = ok or res.prop("Mode") == mode
    return found, ok


def _bedrock_policies(assembly: Assembly) -> list[Resource]:
    return [r for r in assembly.resources("AWS::Organizations::Policy") if r.prop("Type") == "BEDROCK_POLICY"]


def _guardrail_configs(res: Resource) -> list[str]:
    """``<Region>: <identifier> (input_tags …)`` for each configuration of a BEDROCK_POLICY's content."""
    text = render(res.prop("Content"))
    try:
        content = json.loads(text) if isinstance(text, str) else text
    except json.JSONDecodeError:
        return [f"content not readable as JSON: {text[:120]}"]
    out = []
    regions = ((content or {}).get("bedrock") or {}).get("guardrail_inference") or {}
    for region, configs in sorted(regions.items()):
        for name, cfg in sorted((configs or {}).items()):
            ident = (cfg.get("identifier") or {}).get("@@assign")
            tags = (cfg.get("input_tags") or {}).get("@@assign")
            out.append(f"{region} {name}: {ident} (input_tags {tags})")
    return out


def _org_policy_row(config: LandingZoneConfig, assembly: Assembly) -> dict[str, Any]:
    g = config.content_guardrail
    policies = _bedrock_policies(assembly)
    resource_policies = assembly.resources("AWS::Bedrock::ResourcePolicy")
    targets = sorted({t for r in policies for t in (r.prop("TargetIds") or [])})
    missing = []
    if not policies:
        missing.append("AWS::Organizations::Policy of type BEDROCK_POLICY")
    if not resource_policies:
        missing.append("AWS::Bedrock::ResourcePolicy of the guardrail")
    missing += [f"attachment to canary target {t}" for t in g.canary_target_ids if t not in targets]
    applied = [
        f"BEDROCK_POLICY {r.prop('Name')} on {', '.join(r.prop('TargetIds') or []) or 'no target'}" for r in policies
    ]
    applied += [c for r in policies for c in _guardrail_configs(r)]
    applied += [f"AWS::Bedrock::ResourcePolicy {r.logical_id}" for r in resource_policies]
    return {
        "key": "guardrail-organization-policy",
        "control": "Organization guardrail policy",
        "setting": f"rollout {g.organization_policy_rollout}; canary {', '.join(g.canary_target_ids)}",
        "enforced_by": [],
        "missing": missing,
        "status": "void" if missing else "enforced",
        "applied_by": applied,
        "verify": ["guardrail-org-policy"],
        "note": "a malformed identifier breaks every Bedrock call of the targets: attached to the canary first",
        "doc": ORG_POLICY_DOC,
    }


def settings_section(plan: Plan, assembly: Assembly, records: Iterable[PolicyRecord]) -> list[dict[str, Any]]:
    """One row per governed setting: what is configured, which synthesized statements and resources carry it."""
    config = plan.config
    records = list(records)
    organization = config.organization is not None
    rows = []
    for control in _controls(config):
        row = _control_row(control, _enforcing(records, organization, control.scp_only), organization)
        if control.key == "data-retention" and config.data_retention.mode is not None:
            applied, ok = _retention_resources(assembly, config.data_retention.mode)
            row["applied_by"] = applied
            if not ok:
                row["missing"].append(f"Custom::BedrockDataRetention with Mode {config.data_retention.mode}")
                row["status"] = "void"
        rows.append(row)
    if config.content_guardrail.organization_policy:
        rows.append(_org_policy_row(config, assembly))
    return rows


def settings_findings(rows: Iterable[Mapping[str, Any]]) -> list[Finding]:
    out = []
    for row in rows:
        if row["status"] == "void":
            out.append(
                finding(
                    VOID_SETTING,
                    f"{row['control']} ({row['setting']}) is configured, but the assembly lacks "
                    f"{'; '.join(row['missing'])}",
                )
            )
        elif row["status"] == "scp-only":
            out.append(
                finding(
                    SETTING_SCP_ONLY,
                    f"{row['control']} ({row['setting']}): enforced by SCPs only, and this is a single account; "
                    "any principal but the invoker roles may change it (verify reports the drift)",
                )
            )
    return out
