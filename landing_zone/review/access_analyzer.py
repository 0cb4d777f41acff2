"""``review --access-analyzer``: IAM Access Analyzer's checks where they work, next to the offline proofs (opt-in: it
calls AWS with ``--profile``; nothing else in the review does).

* ``ValidatePolicy`` on each SCP (``policyType`` ``SERVICE_CONTROL_POLICY``): grammar, and AWS's security warnings;
* ``CheckNoNewAccess`` on the invoker, boundary, endpoint, key and bucket policies against the previous release's
  policy of the same record (``--baseline OLD_CDK_OUT``; a policy the baseline does not have is reported as new);
* ``CheckAccessNotGranted`` on those that must never grant a landing-zone setting change: the invoker and boundary
  policies and the endpoint policies (the account settings the SCPs deny, ``ACCOUNT_SETTING_ACTIONS``), the bucket
  policies (rewriting or deleting the bucket).  Key policies are left out: their root statement grants ``kms:*`` to
  the account by design (IAM decides), which the check would always report.

IAM Access Analyzer accepts identity and resource policies for the two checks, and SCPs for ``ValidatePolicy`` only
(IAM Access Analyzer API reference: CheckNoNewAccess, CheckAccessNotGranted, ValidatePolicy).  Deploy-time values the
assembly leaves as ``<placeholders>`` are given the stack's account and Region, or a neutral name, before sending.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from html import escape
from typing import Any

from landing_zone.policies.guardrails import ACCOUNT_SETTING_ACTIONS
from landing_zone.review.inventory import PolicyRecord
from landing_zone.review.sections import renders

__all__ = ["MUST_NOT_GRANT", "Target", "analyze", "not_run", "targets"]

# What each kind of policy must never grant (CheckAccessNotGranted accepts up to 100 actions per access entry).
MUST_NOT_GRANT: Mapping[str, tuple[str, ...]] = {
    "invoker": (*ACCOUNT_SETTING_ACTIONS, "iam:CreateServiceSpecificCredential"),
    "boundary": (*ACCOUNT_SETTING_ACTIONS, "iam:CreateServiceSpecificCredential"),
    "endpoint": ACCOUNT_SETTING_ACTIONS,
    "bucket": ("s3:PutBucketPolicy", "s3:DeleteBucketPolicy", "s3:DeleteBucket"),
}
POLICY_TYPE = {"invoker": "IDENTITY_POLICY", "boundary": "IDENTITY_POLICY"}  # the others: RESOURCE_POLICY
FAILING_FINDINGS = ("ERROR", "SECURITY_WARNING")
_PLACEHOLDER = re.compile(r"<([^<>]+)>")


@dataclass(frozen=True)
class Target:
    """One policy the analyzer is asked about: ``role`` is scp, invoker, boundary, endpoint, key or bucket."""

    record: PolicyRecord
    role: str


def _role(record: PolicyRecord) -> str | None:
    if record.kind == "scp":
        return "scp"
    if record.kind in ("endpoint", "key", "bucket"):
        return record.kind
    if record.kind in ("managed", "identity", "inline"):
        if record.boundary_of:
            return "boundary"
        if any("invoker" in a for a in record.attached_to):
            return "invoker"
    return None


def targets(records: Sequence[PolicyRecord]) -> list[Target]:
    """The records the analyzer checks, in the inventory's order (a record that did not parse is left out)."""
    out = []
    for record in records:
        role = _role(record)
        if role is not None and record.parse_error is None:
            out.append(Target(record, role))
    return out


def concrete(document: Mapping[str, Any], *, account: str, region: str) -> str:
    """The document as JSON with each ``<placeholder>`` replaced: the stack's account and Region, the partition, or
    a neutral name (the analyzer rejects a resource with ``<`` in it)."""

    def value(match: re.Match[str]) -> str:
        inner = match.group(1)
        if "AccountId" in inner:
            return account
        if "Region" in inner:
            return region
        if "Partition" in inner:
            return "aws"
        return re.sub(r"[^A-Za-z0-9-]", "-", inner)[:64] or "x"

    return _PLACEHOLDER.sub(value, json.dumps(document, sort_keys=True))


def _where(record: PolicyRecord, stacks: Mapping[str, tuple[str, str]]) -> tuple[str, str]:
    return stacks.get(record.stack, ("111122223333", "us-east-1"))


def _row(target: Target, check: str, result: str, detail: str) -> dict[str, Any]:
    r = target.record
    return {
        "policy": r.title or r.name,
        "id": r.id,
        "role": target.role,
        "check": check,
        "result": result,
        "detail": detail,
    }


def _validate(client: Any, target: Target, text: str) -> dict[str, Any]:
    findings: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {"policyDocument": text, "policyType": "SERVICE_CONTROL_POLICY"}
    while True:
        page = client.validate_policy(**kwargs)
        findings += page.get("findings", [])
        if not page.get("nextToken"):
            break
        kwargs["nextToken"] = page["nextToken"]
    failing = [f for f in findings if f.get("findingType") in FAILING_FINDINGS]
    detail = "; ".join(f"{f.get('findingType')} {f.get('issueCode')}: {f.get('findingDetails', '')}" for f in findings)
    return _row(target, "ValidatePolicy", "FAIL" if failing else "PASS", detail or "no finding")


def _no_new_access(client: Any, target: Target, text: str, old_text: str | None) -> dict[str, Any]:
    if old_text is None:
        return _row(target, "CheckNoNewAccess", "NEW", "not in the previous release (--baseline): nothing to compare")
    answer = client.check_no_new_access(
        newPolicyDocument=text,
        existingPolicyDocument=old_text,
        policyType=POLICY_TYPE.get(target.role, "RESOURCE_POLICY"),
    )
    reasons = "; ".join(str(r.get("description", "")) for r in answer.get("reasons", []))
    return _row(target, "CheckNoNewAccess", answer["result"], reasons or str(answer.get("message", "")))


def _not_granted(client: Any, target: Target, text: str) -> dict[str, Any]:
    actions = list(MUST_NOT_GRANT[target.role])
    answer = client.check_access_not_granted(
        policyDocument=text,
        access=[{"actions": actions}],
        policyType=POLICY_TYPE.get(target.role, "RESOURCE_POLICY"),
    )
    reasons = "; ".join(str(r.get("description", "")) for r in answer.get("reasons", []))
    return _row(target, "CheckAccessNotGranted", answer["result"], reasons or f"none of {len(actions)} actions granted")


def analyze(
    client: Any,
    records: Sequence[PolicyRecord],
    *,
    stacks: Mapping[str, tuple[str, str]],
    baseline: Sequence[PolicyRecord] | None,
    is_client_error: Callable[[Exception], str | None],
) -> dict[str, Any]:
    """Every check of every target (see the module docstring).  ``stacks``: stack -> (account, Region) for the
    placeholders; ``baseline``: the previous release's records (None: not given); ``is_client_error``: the message of an
    exception that means the analyzer could not answer (the row is ERROR), else None (re-raised)."""
    old = {r.id: r for r in baseline or ()}
    rows = []
    for target in targets(records):
        account, region = _where(target.record, stacks)
        text = concrete(target.record.document, account=account, region=region)
        checks: list[tuple[str, Callable[[], dict[str, Any]]]] = []
        if target.role == "scp":
            checks.append(("ValidatePolicy", partial(_validate, client, target, text)))
        else:
            if baseline is not None:
                previous = old.get(target.record.id)
                old_text = concrete(previous.document, account=account, region=region) if previous else None
                checks.append(("CheckNoNewAccess", partial(_no_new_access, client, target, text, old_text)))
            if target.role in MUST_NOT_GRANT:
                checks.append(("CheckAccessNotGranted", partial(_not_granted, client, target, text)))
        for name, check in checks:
            try:
                rows.append(check())
            except Exception as exc:  # classified: an API that could not answer is an ERROR row
                message = is_client_error(exc)
                if message is None:
                    raise
                rows.append(_row(target, name, "ERROR", message))
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["result"]] = counts.get(row["result"], 0) + 1
    return {
        "ran": True,
        "why": "" if baseline is not None else "CheckNoNewAccess needs --baseline (the previous release's assembly)",
        "rows": rows,
        "counts": dict(sorted(counts.items())),
    }


def not_run() -> dict[str, Any]:
    return {
        "ran": False,
        "why": "not asked: `review --access-analyzer --profile P` calls IAM Access Analyzer (the offline proofs need "
        "no AWS call)",
        "rows": [],
        "counts": {},
    }


HEADERS = ("policy", "role", "check", "result", "detail")


def _rows(d: Mapping[str, Any]) -> list[list[str]]:
    return [[r["policy"], r["role"], r["check"], r["result"], r["detail"]] for r in d["rows"]]


@renders("md", "access-analyzer")
def _md(report: Mapping[str, Any]) -> list[str]:
    d = report["access_analyzer"]
    if not d["ran"]:
        return [d["why"] + ".", ""]
    counts = ", ".join(f"{k} {v}" for k, v in d["counts"].items()) or "no check"
    out = [
        f"IAM Access Analyzer, next to the offline proofs above: {counts}." + (f" {d['why']}." if d["why"] else ""),
        "",
    ]
    out += ["| " + " | ".join(HEADERS) + " |", "|" + "|".join("---" for _ in HEADERS) + "|"]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in _rows(d)]
    return [*out, ""]


@renders("html", "access-analyzer")
def _html(report: Mapping[str, Any]) -> str:
    d = report["access_analyzer"]
    if not d["ran"]:
        return f'<p class="muted">{escape(d["why"])}.</p>'
    head = "".join(f"<th>{escape(h)}</th>" for h in HEADERS)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in _rows(d))
    counts = ", ".join(f"{k} {v}" for k, v in d["counts"].items()) or "no check"
    why = f" {escape(d['why'])}." if d["why"] else ""
    return f"<p>IAM Access Analyzer: {escape(counts)}.{why}</p><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
