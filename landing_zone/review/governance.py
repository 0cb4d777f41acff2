"""Who can change what, and how we would know; and the residual-risk register (issue 34).

* ``change_control_section`` — per guardrail and protected resource (``data/change_control.yaml``): the principals
  that can change it, resolved from the configuration (the exempt roles of the tamper denies, the deployers, the
  break-glass principals, the management account, delegated administrators, the kill switch's resetters; in
  single-account mode any administrator of the account), the CloudTrail events and ``verify`` checks that would
  show a change, and what is residual.
* ``residual_risks_section`` — every residual risk of docs/THREAT_MODEL.md (``data/residual_risks.yaml``, kept equal
  to the document by a test) that applies to the configuration, then the red-team rows allowed on purpose and what
  each claim does not cover; each with an owner and empty ``accepted_by`` / ``accepted_on`` fields for the approver.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from landing_zone.plan import Plan
from landing_zone.policies.guardrails import exemptions

__all__ = ["change_control_section", "load_change_control", "load_residual_risks", "residual_risks_section"]

DATA = Path(__file__).with_name("data")
TRAIL = "the customer's organization trail (CloudTrail management events)"


@cache
def load_change_control() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DATA / "change_control.yaml").read_text(encoding="utf-8"))
    return data


@cache
def load_residual_risks() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DATA / "residual_risks.yaml").read_text(encoding="utf-8"))
    return data


def _groups(plan: Plan) -> dict[str, list[str]]:
    """Each changer group of change_control.yaml, resolved to principals (ARN patterns or descriptions)."""
    c = plan.config
    org = c.organization
    ex = exemptions(c)
    g = c.policy_guardrails
    single = org is None
    out: dict[str, list[str]] = {
        "exempt": [] if single else [f"{a} (exempt role)" for a in ex.exempt if a not in g.deployment_principal_arns],
        "deployers": [f"{a} (deployer / break-glass)" for a in ex.deployers]
        or [f"the CDK bootstrap roles of {c.deployment_account} (deploy)"],
        "management-account": [
            f"any principal of the management account {org.management_account_id} (SCPs never bind it)"
        ]
        if org
        else [],
        "delegated-policy-admins": [
            "any delegated administrator for Organizations policies (not known to the configuration: list them)"
        ]
        if org
        else [],
        "kill-switch-resetters": [f"{a} (kill-switch reset)" for a in c.cost.kill_switch_reset_principal_arns],
        "account-admins-single-account": [
            "any administrator of the account (single-account mode: the boundary binds the invoker roles only)"
        ]
        if single
        else [],
    }
    admin = getattr(getattr(c, "member_baseline", None), "administrator_account_id", None)
    if admin:
        out["delegated-policy-admins"].append(f"the StackSets delegated administrator {admin}")
    return out


def change_control_section(plan: Plan) -> list[dict[str, Any]]:
    groups = _groups(plan)
    rows = []
    for item in load_change_control()["controls"]:
        if not _applies(plan, item.get("applies", "always")):
            continue
        who = [p for group in item["changers"] for p in groups.get(group, [])]
        rows.append(
            {
                "id": item["id"],
                "what": item["what"],
                "who_can_change": list(dict.fromkeys(who)),
                "how_we_would_know": {
                    "cloudtrail": list(item["cloudtrail"]),
                    "trail": TRAIL,
                    "verify": [f"python -m landing_zone verify: {v}" for v in item["verify"]],
                },
                "residual": item["residual"],
            }
        )
    return rows


def _applies(plan: Plan, when: str) -> bool:
    c = plan.config
    if when == "always":
        return True
    if when == "organization":
        return c.organization is not None
    if when == "single-account":
        return c.organization is None
    if when == "api_keys: short-term-only":
        return str(getattr(c.policy_guardrails, "api_keys", "")) == "short-term-only"
    if when == "data_retention.mode":
        return c.data_retention.mode is not None
    if when == "content_guardrail.organization_policy":
        return bool(c.content_guardrail.enabled and c.content_guardrail.organization_policy)
    if when == "content_guardrail.enabled":
        return bool(c.content_guardrail.enabled)
    if when == "invocation_logging.enabled":
        return bool(c.invocation_logging.enabled)
    if when == "cost.kill_switch":
        return bool(c.cost.kill_switch)
    raise ValueError(f"review/data: unknown 'applies' {when!r}")


def _blank(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "accepted_by": "", "accepted_on": ""}


def residual_risks_section(
    plan: Plan, claims: Sequence[Mapping[str, Any]], threat_model: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The register: THREAT_MODEL.md's residual risks that apply, the red-team rows allowed on purpose, and what the
    claims do not cover; each with owner and empty acceptance fields."""
    rows = [
        _blank(
            {
                "id": r["id"],
                "title": r["title"].rstrip(".:"),
                "summary": r["summary"],
                "owner": r["owner"],
                "source": "docs/THREAT_MODEL.md, residual risks",
            }
        )
        for r in load_residual_risks()["risks"]
        if _applies(plan, r["applies"])
    ]
    for i, item in enumerate(threat_model.get("residual") or [], start=1):
        rows.append(
            _blank(
                {
                    "id": f"RT-{i:02d}",
                    "title": item["attack"],
                    "summary": item["what_would_stop_it"],
                    "owner": "security engineering",
                    "source": "red-team table (section Threat model), allowed on purpose",
                }
            )
        )
    n = 0
    for claim in claims:
        for gap in claim.get("not_covered") or []:
            n += 1
            rows.append(
                _blank(
                    {
                        "id": f"NC-{n:02d}",
                        "title": f"{claim['claim']}: not covered",
                        "summary": gap,
                        "owner": "security engineering",
                        "source": f"claim {claim['id']} (section What is enforced, for whom)",
                    }
                )
            )
    return rows
