"""The findings as SARIF 2.1.0 (``policy-review.sarif``) for code-scanning tools.

One result per finding: level ``error`` (blocking) or ``warning`` (advisory); the physical location is the
template file (relative to the assembly directory, ``uriBaseId`` ``ASSEMBLY``) and the line of the resource,
the logical location the resource's logical ID (and, for a policy statement, the statement).  Each rule's
rationale (why its level, what to do) is its ``help``; a result carries the cdk-nag acknowledgments and checkov
skips of the same thing on its resource (``properties.justifications``).  The run's property bag holds the
verdict with its qualifiers (``verdict``, ``qualified``, ``qualifiers``, ``headline``), the ``provenance`` of the
assembly and of the review, and the policy diff against ``--baseline`` (``policyDiff``, not as results).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from landing_zone.review.exports import rule_help

__all__ = ["SARIF_SCHEMA", "render_sarif"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_NAME = "landing-zone-policy-review"


def _level(level: str) -> str:
    return "error" if level == "blocking" else "warning"


def _result(f: Mapping[str, Any], rule_index: Mapping[str, int]) -> dict[str, Any]:
    artifact = f["template"] or "manifest.json"
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact, "uriBaseId": "ASSEMBLY"}}
    if f.get("line"):
        physical["region"] = {"startLine": int(f["line"])}
    location: dict[str, Any] = {"physicalLocation": physical}
    if f["logical_id"]:
        name = f["logical_id"]
        qualified = f"{f['stack']}/{name}" if f["stack"] else name
        if f["statement_index"] is not None:
            qualified += f"/statement/{f['sid'] or f['statement_index']}"
        location["logicalLocations"] = [{"name": name, "fullyQualifiedName": qualified, "kind": "resource"}]
    properties = {
        k: f[k]
        for k in ("level", "policy_id", "statement_index", "sid", "element", "stack", "justifications")
        if f.get(k) not in (None, "", [])
    }
    return {
        "ruleId": f["rule"],
        "ruleIndex": rule_index[f["rule"]],
        "level": _level(f["level"]),
        "message": {"text": f"{f['title']}: {f['message']}" + (f" [{f['element']}]" if f["element"] else "")},
        "locations": [location],
        "properties": properties,
    }


def render_sarif(d: Mapping[str, Any]) -> dict[str, Any]:
    rules = list(d["rules"])
    rule_index = {r["id"]: i for i, r in enumerate(rules)}
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL_NAME,
                        "semanticVersion": "1.0.0",
                        "version": str(d["summary"]["provenance"]["review"]["landing_zone"]),
                        "rules": [
                            {
                                "id": r["id"],
                                "name": r["id"].title().replace("-", ""),
                                "shortDescription": {"text": r["title"]},
                                "fullDescription": {"text": r["description"]},
                                "help": {"text": r["rationale"]},
                                "helpUri": rule_help(r["id"], r["level"])["url"],
                                "defaultConfiguration": {"level": _level(r["level"])},
                                "properties": {
                                    "review-level": r["level"],
                                    "tags": rule_help(r["id"], r["level"])["tags"],
                                    "security-severity": rule_help(r["id"], r["level"])["security_severity"],
                                },
                            }
                            for r in rules
                        ],
                    }
                },
                "originalUriBaseIds": {
                    "ASSEMBLY": {"description": {"text": f"the cloud assembly directory ({d['assembly']})"}}
                },
                "results": [_result(f, rule_index) for f in d["findings"]],
                "properties": {
                    "verdict": d["summary"]["verdict"],
                    "qualified": d["summary"]["qualified"],
                    "qualifiers": d["summary"]["qualifiers"],
                    "headline": d["summary"]["headline"],
                    "provenance": d["summary"]["provenance"],
                    "configuration": d["config"]["name"],
                    # access added/removed against --baseline (not findings: the diff is for the reviewer to read)
                    "policyDiff": d.get("diff"),
                },
            }
        ],
    }
