"""Findings for protection that the configuration asks for but the assembly leaves void (issue 24).

Each guarantee below is stated by the configuration and the threat model; each finding says why the synthesized
assembly does not deliver it, whatever the other sections report:

* ``LZ-VOID-NO-ENDPOINT`` — ``access.require_vpc_endpoint`` conditions the invokers on ``aws:SourceVpce``, but the
  assembly has no ``bedrock-runtime`` interface endpoint: no invoker call can succeed, or (worse) the condition is
  removed later to make them work.
* ``LZ-VOID-MANAGEMENT-ACCOUNT`` — the Organizations management account is a workload or deployment account: SCPs
  never apply to the management account (AWS Organizations user guide, "Service control policies (SCPs)": "SCPs don't
  affect users or roles in the management account"), so the guardrails bind nothing there.
* ``LZ-VOID-NO-TARGETS`` — organization mode, and no SCP is attached to any target: the guardrails exist and bind
  nobody.
* ``LZ-VOID-LOGGING-OFF`` — ``invocation_logging.enabled: false``: the threat model's detection (who invoked which
  model with what) and the forensic trail are gone.
* ``LZ-VOID-KILL-SWITCH`` — ``cost.kill_switch`` is on but its budget action attaches the deny to no invoker role.
* ``LZ-RETENTION-BLOCKS-MODEL`` (advisory) — ``data_retention.mode`` is not among an allowed model's
  ``data_retention_modes`` in the catalog: Bedrock blocks every request to it (data-retention.html).
"""

from __future__ import annotations

import json
from typing import Any

from landing_zone.assembly import Assembly
from landing_zone.plan import Plan
from landing_zone.review.findings import Finding, finding
from landing_zone.review.rules import ADVISORY, BLOCKING, define

__all__ = ["enforced_section", "retention_findings", "void_findings"]

SCP_DOC = "https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_scps.html"


def _everywhere(assembly: Assembly, kind: str) -> list[Any]:
    """Resources of a type in the stacks and in the StackSet member templates (member baseline: the endpoints,
    invoker roles and budgets live in every member account)."""
    return [*assembly.resources(kind), *(r for m in assembly.members for r in m.resources(kind))]


def _where(res: Any) -> dict[str, Any]:
    return {"template": res.stack.file, "stack": res.stack.name, "logical_id": res.logical_id}


VOID_NO_ENDPOINT = define(
    "LZ-VOID-NO-ENDPOINT",
    BLOCKING,
    "Endpoint use is required, but there is no Bedrock endpoint",
    "access.require_vpc_endpoint is true and the assembly has no bedrock-runtime interface endpoint.",
    "The invoker policies admit calls only through the landing zone's endpoints: without one every call fails, "
    "and the usual fix under pressure is to drop the condition. Add bedrock-runtime to network.endpoints.",
)


VOID_MANAGEMENT_ACCOUNT = define(
    "LZ-VOID-MANAGEMENT-ACCOUNT",
    BLOCKING,
    "The management account is a workload account: SCPs do not apply there",
    "organization.management_account_id is one of the accounts (or the deployment account).",
    "SCPs never restrict the management account, so every guardrail is void in it. Run the workloads in a "
    "member account under organization.target_ids.",
)


VOID_NO_TARGETS = define(
    "LZ-VOID-NO-TARGETS",
    BLOCKING,
    "The SCPs are attached to no target",
    "Organization mode, and no service control policy of the assembly has TargetIds.",
    "An SCP binds only the roots, OUs and accounts it is attached to: with none, the guardrails bind nobody. "
    "List them in organization.target_ids.",
)


VOID_LOGGING_OFF = define(
    "LZ-VOID-LOGGING-OFF",
    BLOCKING,
    "Model invocation logging is off",
    "invocation_logging.enabled is false.",
    "Without invocation logs nobody can tell who invoked which model with what: detection and forensics of "
    "the threat model are void. Turn invocation_logging on.",
)


VOID_KILL_SWITCH = define(
    "LZ-VOID-KILL-SWITCH",
    BLOCKING,
    "The kill switch stops no invoker",
    "cost.kill_switch is true, but no budget action of the assembly attaches the deny to an invoker role.",
    "The budget's last line of defence does nothing: spend continues past the budget. Give the landing zone an "
    "application (an invoker role), or turn the kill switch off knowingly.",
)


RETENTION_DOC = "https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html"

RETENTION_BLOCKS_MODEL = define(
    "LZ-RETENTION-BLOCKS-MODEL",
    ADVISORY,
    "The data retention mode blocks an allowed model",
    "data_retention.mode is not among the allowed modes the catalog gives an allowed model (data_retention_modes).",
    "Bedrock blocks requests to a model whose allowed_modes leave out the effective mode: the model is allowed by "
    "the guardrails and unusable. Advisory, not blocking: it fails closed (no data is retained or shared, no "
    "guardrail is weakened), and the catalog's allowed modes are mostly unverified (AWS's list of models requiring "
    "retention was not found). Drop the model from models, or choose a mode it allows.",
)


def retention_findings(plan: Plan) -> list[Finding]:
    """One advisory finding per allowed model whose known allowed modes leave out ``data_retention.mode``."""
    mode = plan.config.data_retention.mode
    if mode is None:
        return []
    out = []
    for model in plan.models:
        modes = model.data_retention_modes
        if modes is not None and modes.blocks(mode):
            state = "verified" if modes.verified else "unverified"
            out.append(
                finding(
                    RETENTION_BLOCKS_MODEL,
                    f"data_retention.mode {mode} is not among the allowed modes of {model.id} "
                    f"({', '.join(modes.allowed or ())}; {state}, source: {modes.source}): Bedrock blocks every "
                    f"request to it ({RETENTION_DOC})",
                )
            )
    return out


def _endpoint_void(plan: Plan, assembly: Assembly) -> list[Finding]:
    """The endpoint requirement with no bedrock-runtime endpoint to go through."""
    config = plan.config
    out: list[Finding] = []
    if config.access.require_vpc_endpoint:
        endpoints = _everywhere(assembly, "AWS::EC2::VPCEndpoint")
        runtime = [r for r in endpoints if "bedrock-runtime" in json.dumps(r.prop("ServiceName"))]
        if not runtime:
            out.append(
                finding(
                    VOID_NO_ENDPOINT,
                    "access.require_vpc_endpoint is true (invokers may call Bedrock only through the landing zone's "
                    f"endpoints) but the assembly has no bedrock-runtime interface endpoint (network.endpoints: "
                    f"{list(config.network.endpoints)})",
                )
            )
    return out


def _organization_void(plan: Plan, assembly: Assembly) -> list[Finding]:
    """SCPs that bind nobody: a management account among the workloads, or no targets."""
    config = plan.config
    out: list[Finding] = []
    org = config.organization
    if org is not None:
        mine = {a.id for a in config.accounts} | {config.deployment_account}
        if org.management_account_id in mine:
            out.append(
                finding(
                    VOID_MANAGEMENT_ACCOUNT,
                    f"organization.management_account_id {org.management_account_id} is also a workload or "
                    f"deployment account: SCPs never apply to the management account ({SCP_DOC})",
                )
            )
        scps = [
            r for r in assembly.resources("AWS::Organizations::Policy") if r.prop("Type") == "SERVICE_CONTROL_POLICY"
        ]
        if scps and not any(r.prop("TargetIds") for r in scps):
            out.append(
                finding(
                    VOID_NO_TARGETS,
                    f"{len(scps)} SCP(s), attached to no root, OU or account (organization.target_ids is empty): "
                    "they bind nobody",
                    **_where(scps[0]),
                )
            )
    return out


def _logging_void(plan: Plan, assembly: Assembly) -> list[Finding]:
    """Invocation logging switched off."""
    config = plan.config
    out: list[Finding] = []
    if not config.invocation_logging.enabled:
        out.append(
            finding(
                VOID_LOGGING_OFF,
                "invocation_logging.enabled is false: no record of who invoked which model with what prompt",
            )
        )
    return out


def _kill_switch_void(plan: Plan, assembly: Assembly) -> list[Finding]:
    """A kill switch with no budget action, or one that attaches the deny to no role."""
    config = plan.config
    out: list[Finding] = []
    if config.cost.kill_switch:
        actions = _everywhere(assembly, "AWS::Budgets::BudgetsAction")
        roles = [
            role
            for r in actions
            for role in ((r.prop("Definition") or {}).get("IamActionDefinition") or {}).get("Roles") or []
        ]
        if not roles:
            where = _where(actions[0]) if actions else {}
            out.append(
                finding(
                    VOID_KILL_SWITCH,
                    "cost.kill_switch is true but "
                    + (
                        "no budget action attaches the deny to an invoker role"
                        if actions
                        else "there is no budget action"
                    )
                    + " (no application, or no invoker role, to stop)",
                    **where,
                )
            )
    return out


_VOID_CHECKS = (_endpoint_void, _organization_void, _logging_void, _kill_switch_void)


def void_findings(plan: Plan, assembly: Assembly) -> list[Finding]:
    out = [f for check in _VOID_CHECKS for f in check(plan, assembly)]
    return out + retention_findings(plan)


def enforced_section(plan: Plan) -> dict[str, Any]:
    """What the guardrails enforce, in one block for the first screen (before any count)."""
    c = plan.config
    return {
        "compliant_regions": sorted(c.compliant_regions),
        "inference_source_regions": list(c.source_regions),
        "global_inference": c.allow_global_inference,
        "models": sorted({mr.model.id for mr in plan.routing.models}),
        "mode": "organization: SCPs" if c.organization is not None else "single account: invoker permissions boundary",
        "targets": list(c.organization.target_ids) if c.organization is not None else [],
        "vpc_endpoint_required": c.access.require_vpc_endpoint,
        "invocation_logging": c.invocation_logging.enabled,
        "kill_switch": c.cost.kill_switch,
        "perimeter": perimeter_section(plan),
    }


def perimeter_section(plan: Plan) -> dict[str, Any] | None:
    """The governed perimeter and the SCP layout, as the plan decided them (None in single-account mode): who is
    governed, what binds the other accounts under the targets, and each SCP with its size and attachments."""
    scps = plan.policies.scps
    if scps is None:
        return None
    perim = scps.perimeter
    return {
        "governed_accounts": list(perim.accounts),
        "governed_ous": list(perim.ous),
        "shared_targets": list(perim.shared_targets),
        "outside": "only the landing zone's models are denied (PO1)"
        + (", and every model that is not allowed" if perim.restrict_other_models else "")
        + (", and Bedrock outside the compliant Regions" if perim.confine_to_compliant_regions else ""),
        "quota": {"per_target": scps.max_per_target, "characters": scps.max_characters},
        "scps": [
            {
                "name": p.name,
                "concerns": list(p.concerns),
                "characters": p.size,
                "binds": p.binds,
                "targets": list(p.targets),
            }
            for p in scps.policies
        ],
        "slots": scps.per_target(),
    }
