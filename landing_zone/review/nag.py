"""cdk-nag results: violations from ``validation-report.json`` and every acknowledgment with its reason.

The acknowledgments come from the stack metadata (``aws:cdk:acknowledged-rules``, see ``assembly.py``), so they
are listed even for an assembly synthesized without the packs; when the report is there, each is matched with
the suppressed findings it covers (an acknowledgment that covers nothing is shown as unused).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from landing_zone.assembly import Assembly
from landing_zone.review.findings import Finding, finding

__all__ = ["nag_findings", "nag_section"]


def _constructs(violation: Mapping[str, Any]) -> list[str]:
    return sorted(
        str(c.get("constructPath", "")) for c in violation.get("violatingConstructs") or [] if isinstance(c, Mapping)
    )


def _resources(violation: Mapping[str, Any]) -> list[dict[str, str]]:
    out = []
    for c in violation.get("violatingConstructs") or []:
        res = c.get("cloudFormationResource") if isinstance(c, Mapping) else None
        if isinstance(res, Mapping):
            out.append({"template": str(res.get("templatePath", "")), "logical_id": str(res.get("logicalId", ""))})
    return sorted(out, key=lambda r: (r["template"], r["logical_id"]))


def nag_section(assembly: Assembly) -> dict[str, Any]:
    report = assembly.nag_report
    plugins: list[dict[str, Any]] = []
    violations: list[dict[str, Any]] = []
    suppressed: dict[tuple[str, str], list[str]] = {}  # (ack id, acknowledged at) -> construct paths covered
    if report is not None:
        for plugin in report.get("pluginReports") or []:
            if not isinstance(plugin, Mapping):
                continue
            name = str(plugin.get("pluginName", "?"))
            plugin_violations = [v for v in plugin.get("violations") or [] if isinstance(v, Mapping)]
            plugin_suppressed = [v for v in plugin.get("suppressedViolations") or [] if isinstance(v, Mapping)]
            plugins.append(
                {
                    "name": name,
                    "conclusion": str(plugin.get("conclusion", "")),
                    "violations": len(plugin_violations),
                    "acknowledged": len(plugin_suppressed),
                }
            )
            failed = str(plugin.get("conclusion", "")).lower() != "success"
            for v in plugin_violations:
                severity = str(v.get("severity", "")).lower()
                violations.append(
                    {
                        "plugin": name,
                        "blocking": failed or severity not in ("warning", "info", "informational"),
                        "resources": _resources(v),
                        "rule": str(v.get("ruleName", "")),
                        "description": str(v.get("description", "")),
                        "severity": str(v.get("severity", "")),
                        "constructs": _constructs(v),
                    }
                )
            for v in plugin_suppressed:
                key = (str(v.get("acknowledgedId", "")), str(v.get("acknowledgedAt", "")).lstrip("/"))
                suppressed.setdefault(key, []).extend(_constructs(v))
    acknowledgments = []
    seen: set[tuple[str, str]] = set()
    for ack in assembly.acknowledgments:
        key = (ack.id, ack.construct_path)
        seen.add(key)
        covered = sorted(set(suppressed.get(key, [])))
        acknowledgments.append(
            {
                "id": ack.id,
                "rule": ack.rule,
                "reason": ack.reason,
                "construct_path": ack.construct_path,
                "stack": ack.stack,
                "covers": covered,
                "used": None if report is None else bool(covered),
            }
        )
    for (ack_id, at), covered in sorted(suppressed.items()):
        if (ack_id, at) not in seen:  # acknowledged in the report but not recorded in the metadata
            acknowledgments.append(
                {
                    "id": ack_id,
                    "rule": ack_id.split("::", 1)[-1].split("[", 1)[0],
                    "reason": "",
                    "construct_path": at,
                    "stack": at.split("/", 1)[0],
                    "covers": sorted(set(covered)),
                    "used": True,
                }
            )
    return {
        "report_found": report is not None,
        "plugins": sorted(plugins, key=lambda p: p["name"]),
        "violations": sorted(violations, key=lambda v: (v["plugin"], v["rule"], v["constructs"])),
        "acknowledgments": sorted(acknowledgments, key=lambda a: (a["construct_path"], a["id"])),
        "acknowledgments_source": "stack metadata (aws:cdk:acknowledged-rules in <stack>.metadata.json)",
    }


def nag_findings(section: Mapping[str, Any]) -> list[Finding]:
    if not section["report_found"]:
        return [
            finding(
                "LZ-NAG-NOT-RUN",
                "validation-report.json not found: the cdk-nag packs did not run for this assembly",
                element="validation-report.json",
            )
        ]
    out = []
    for v in section["violations"]:
        where = v["resources"][0] if v["resources"] else {"template": "", "logical_id": ""}
        out.append(
            finding(
                "LZ-NAG-VIOLATION" if v["blocking"] else "LZ-VALIDATION-WARNING",
                f"{v['plugin']}: {v['rule']} at {', '.join(v['constructs'])}: {v['description']}",
                stack=(v["constructs"][0].split("/", 1)[0] if v["constructs"] else ""),
                template=where["template"],
                logical_id=where["logical_id"],
                element=v["rule"],
            )
        )
    return out
