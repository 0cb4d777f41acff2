"""Answer "would the guardrails allow this request?" for reviewers, with the deciding statement.

The guardrails are taken either from the synthesized cloud assembly (``--assembly cdk.out``: the SCPs exactly
as deployed) or compiled from the configuration (the same builder the stacks use).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from landing_zone.assembly import AssemblyError, load_assembly
from landing_zone.errors import LandingZoneError
from landing_zone.plan import Plan
from landing_zone.policies.common import document
from landing_zone.policies.evaluator import FULL_AWS_ACCESS, Decision, Request, evaluate_scp_levels
from landing_zone.policies.guardrails import guardrail_statements


def scps_from_assembly(assembly: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every ``AWS::Organizations::Policy`` of type SERVICE_CONTROL_POLICY in the assembly's stacks."""
    found: list[tuple[str, dict[str, Any]]] = []
    for res in load_assembly(assembly).resources("AWS::Organizations::Policy"):
        if res.prop("Type") == "SERVICE_CONTROL_POLICY":
            content = res.prop("Content")
            found.append(
                (res.prop("Name", res.logical_id), json.loads(content) if isinstance(content, str) else content)
            )
    if not found:
        raise AssemblyError(
            f"--assembly {assembly}: no service control policies found (is an `organization` block configured?)"
        )
    return found


def scps_from_plan(plan: Plan) -> list[tuple[str, dict[str, Any]]]:
    return [("guardrails", document(guardrail_statements(plan.config, plan.routing, plan.catalog)))]


def parse_context(pairs: Sequence[str]) -> dict[str, str | list[str]]:
    """``key=value`` pairs; a value with commas becomes a multivalued key."""
    context: dict[str, str | list[str]] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise LandingZoneError(f"--context {pair!r}: expected KEY=VALUE, e.g. bedrock:InferenceProfileArn=arn:...")
        context[key] = value.split(",") if "," in value else value
    return context


@dataclass(frozen=True)
class Simulation:
    request: Request
    decision: Decision
    source: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "action": self.request.action,
            "resource": self.request.resource,
            "context": dict(self.request.context),
            "decision": self.decision.decision,
            "allowed": self.decision.allowed,
            "deciding_statements": [
                f"{m.policy_name}/{m.sid or '#' + str(m.index)}"
                for m in (self.decision.matched_denies if not self.decision.allowed else self.decision.matched_allows)
            ],
            "explanation": self.decision.explain(),
            "guardrails_from": self.source,
        }

    def text(self) -> str:
        d = self.as_dict()
        lines = [
            f"request:  {d['action']} on {d['resource']}",
            f"context:  {json.dumps(d['context'], sort_keys=True)}",
            f"decision: {'ALLOW' if d['allowed'] else 'DENY'} ({d['decision'].replace('_', ' ')})",
            f"deciding: {', '.join(d['deciding_statements']) or 'no statement matched'}",
            f"from:     {d['guardrails_from']} (evaluated together with FullAWSAccess)",
        ]
        return "\n".join(lines)


def simulate(
    *,
    action: str,
    resource: str,
    region: str | None,
    principal_arn: str | None,
    context: Mapping[str, str | list[str]],
    scps: Sequence[tuple[str, dict[str, Any]]],
    source: str,
) -> Simulation:
    ctx: dict[str, str | Sequence[str] | bool | int] = dict(context)
    if region:
        ctx.setdefault("aws:RequestedRegion", region)
    if principal_arn:
        ctx.setdefault("aws:PrincipalARN", principal_arn)
    request = Request(action=action, resource=resource, context=ctx)
    decision = evaluate_scp_levels([[("FullAWSAccess", FULL_AWS_ACCESS), *scps]], request)
    return Simulation(request=request, decision=decision, source=source)
