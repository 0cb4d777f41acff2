"""cdk-nag results: violations from ``validation-report.json`` and every acknowledgment with its reason.

The acknowledgments come from the stack metadata (``aws:cdk:acknowledged-rules``, see ``assembly.py``), so they
are listed even for an assembly synthesized without the packs; when the report is there, each is matched with
the suppressed findings it covers.  Its ``status``:

* ``used`` — it suppressed at least one violation;
* ``unused`` — the plugin it names (the part of its ID before ``::``) ran and it suppressed nothing: a finding
  (``LZ-NAG-UNUSED-ACK``);
* ``plugin not run`` — the report has no result of that plugin (e.g. CDK's own "CloudFormation Validate" plugin,
  which runs only when enabled), so nothing can be said;
* ``no report`` — the assembly has no ``validation-report.json``.

Each acknowledgment is also located at the resource its construct path names (the ``aws:cdk:logicalId`` entries of
the stack metadata, and the ``aws:cdk:path`` metadata of the template resources), so that the report can show its
reason next to a finding on the same resource.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from landing_zone.assembly import Assembly
from landing_zone.review.findings import Finding, finding
from landing_zone.review.inventory import construct_paths
from landing_zone.review.rules import ADVISORY, BLOCKING, define

__all__ = ["nag_findings", "nag_section", "plugin_key"]

# Validation plugins that are CDK's own, not cdk-nag packs (template validation, construct annotations)
_NOT_NAG = frozenset({"cloudformation-validate", "construct-annotations"})


def plugin_key(name: str) -> str:
    """A plugin name as both the report ("CloudFormation Validate") and acknowledgment IDs
    ("CloudFormation-Validate::F3002") spell it: lower case, runs of spaces, dashes and underscores as one dash."""
    return re.sub(r"[\s_-]+", "-", name.strip()).lower()


def _locate(paths: Mapping[tuple[str, str], str], construct_path: str) -> dict[str, str]:
    """The resource an acknowledgment at ``construct_path`` is about: the construct's ``Resource`` (or the
    construct itself when it is a resource), else the resource of the shortest path below it."""
    below = sorted(
        ((len(path), path, where) for where, path in paths.items() if path.startswith(construct_path + "/")),
    )
    exact = [where for where, path in paths.items() if path in (construct_path + "/Resource", construct_path)]
    where = sorted(exact)[0] if exact else below[0][2] if below else None
    return {"template": where[0], "logical_id": where[1]} if where else {"template": "", "logical_id": ""}


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


def _read_plugin(
    plugin: Mapping[str, Any],
    plugins: list[dict[str, Any]],
    violations: list[dict[str, Any]],
    suppressed: dict[tuple[str, str], list[str]],
) -> None:
    """One plugin of the cdk-nag report, added to the plugins, its violations and its suppressed violations."""
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


def _ack_status(has_report: bool, covered: list[str], plugin: str, ran: set[str]) -> str:
    """Whether an acknowledgment was used: no report, used, plugin not run or unused."""
    if not has_report:
        return "no report"
    if covered:
        return "used"
    if plugin and plugin_key(plugin) not in ran:
        return "plugin not run"
    return "unused"


def nag_section(assembly: Assembly) -> dict[str, Any]:
    report = assembly.nag_report
    plugins: list[dict[str, Any]] = []
    violations: list[dict[str, Any]] = []
    suppressed: dict[tuple[str, str], list[str]] = {}  # (ack id, acknowledged at) -> construct paths covered
    if report is not None:
        for plugin in report.get("pluginReports") or []:
            if not isinstance(plugin, Mapping):
                continue
            _read_plugin(plugin, plugins, violations, suppressed)
    ran = {plugin_key(p["name"]) for p in plugins}
    paths = construct_paths(assembly)
    acknowledgments = []
    seen: set[tuple[str, str]] = set()
    for ack in assembly.acknowledgments:
        key = (ack.id, ack.construct_path)
        seen.add(key)
        covered = sorted(set(suppressed.get(key, [])))
        plugin = ack.id.split("::", 1)[0] if "::" in ack.id else ""
        status = _ack_status(report is not None, covered, plugin, ran)
        acknowledgments.append(
            {
                "id": ack.id,
                "rule": ack.rule,
                "plugin": plugin,
                "reason": ack.reason,
                "construct_path": ack.construct_path,
                "stack": ack.stack,
                "resource": _locate(paths, ack.construct_path),
                "covers": covered,
                "status": status,
                # True / False, or None when it cannot be told (no report, or the plugin did not run)
                "used": {"used": True, "unused": False}.get(status),
            }
        )
    for (ack_id, at), covered in sorted(suppressed.items()):
        if (ack_id, at) not in seen:  # acknowledged in the report but not recorded in the metadata
            acknowledgments.append(
                {
                    "id": ack_id,
                    "rule": ack_id.split("::", 1)[-1].split("[", 1)[0],
                    "plugin": ack_id.split("::", 1)[0] if "::" in ack_id else "",
                    "reason": "",
                    "construct_path": at,
                    "stack": at.split("/", 1)[0],
                    "resource": _locate(paths, at),
                    "covers": sorted(set(covered)),
                    "status": "used",
                    "used": True,
                }
            )
    packs = sorted(p["name"] for p in plugins if plugin_key(p["name"]) not in _NOT_NAG)
    return {
        "report_found": report is not None,
        # the cdk-nag packs that ran (a report without any: synthesized without them)
        "packs_run": packs,
        "plugins": sorted(plugins, key=lambda p: p["name"]),
        "violations": sorted(violations, key=lambda v: (v["plugin"], v["rule"], v["constructs"])),
        "acknowledgments": sorted(acknowledgments, key=lambda a: (a["construct_path"], a["id"])),
        "acknowledgments_source": "stack metadata (aws:cdk:acknowledged-rules in <stack>.metadata.json)",
    }


NAG_VIOLATION = define(
    "LZ-NAG-VIOLATION",
    BLOCKING,
    "Unacknowledged cdk-nag finding",
    "validation-report.json lists an error-severity violation (or one of a plugin whose conclusion is failure) "
    "without an acknowledgment.",
    "Fix the resource, or acknowledge the rule next to it with a reason "
    "(constructs_lib.compliance.acknowledge; allow-listed rules only).",
)


VALIDATION_WARNING = define(
    "LZ-VALIDATION-WARNING",
    ADVISORY,
    "Synth-time validation warning",
    "A validation plugin of the synth (e.g. CDK's 'CloudFormation Validate') reports a warning-severity "
    "violation while its conclusion is success.",
    "Advisory: the plugin concluded success and lists this for a human. Fix it, or acknowledge it with a reason.",
)


NAG_NOT_RUN = define(
    "LZ-NAG-NOT-RUN",
    ADVISORY,
    "No cdk-nag report in the assembly",
    "validation-report.json is missing, or lists no cdk-nag pack: the assembly was synthesized without the "
    "cdk-nag packs (`make synth` runs them; an app synthesized in-process without them writes an empty report).",
    "Advisory: the review's own checks ran, but cdk-nag's did not. Synthesize with `make synth` (cdk.json "
    "context nag: true) and review again.",
)


NAG_UNUSED_ACK = define(
    "LZ-NAG-UNUSED-ACK",
    ADVISORY,
    "cdk-nag acknowledgment that suppresses nothing",
    "An acknowledgment in the stack metadata (aws:cdk:acknowledged-rules) matches no suppressed violation in "
    "validation-report.json, although the plugin it names ran.",
    "Advisory: an acknowledgment that suppresses nothing hides intent and may silence a future finding. Remove "
    "it, or move it to the construct and finding it was meant for.",
)


def nag_findings(section: Mapping[str, Any]) -> list[Finding]:
    if not section["report_found"]:
        return [
            finding(
                NAG_NOT_RUN,
                "validation-report.json not found: the cdk-nag packs did not run for this assembly",
                element="validation-report.json",
            )
        ]
    out = []
    if not section.get("packs_run"):
        out.append(
            finding(
                NAG_NOT_RUN,
                "validation-report.json lists no cdk-nag pack: the assembly was synthesized without them (cdk.json "
                "context nag is false, or the app was synthesized in-process without the packs)",
                element="validation-report.json",
            )
        )
    for v in section["violations"]:
        where = v["resources"][0] if v["resources"] else {"template": "", "logical_id": ""}
        out.append(
            finding(
                NAG_VIOLATION if v["blocking"] else VALIDATION_WARNING,
                f"{v['plugin']}: {v['rule']} at {', '.join(v['constructs'])}: {v['description']}",
                stack=(v["constructs"][0].split("/", 1)[0] if v["constructs"] else ""),
                template=where["template"],
                logical_id=where["logical_id"],
                element=v["rule"],
            )
        )
    for a in section["acknowledgments"]:
        if a["status"] == "unused":
            out.append(
                finding(
                    NAG_UNUSED_ACK,
                    f"acknowledgment {a['id']} at {a['construct_path']} suppresses nothing although "
                    f"{a['plugin'] or 'the plugin'} ran (its reason: {a['reason'] or '-'})"
                    + (
                        f"; {a['plugin']} is CDK's own plugin: such acknowledgments usually come from aws-cdk-lib's "
                        "constructs, not from this project"
                        if plugin_key(a["plugin"]) in _NOT_NAG
                        else ""
                    ),
                    stack=a["stack"],
                    template=a["resource"]["template"],
                    logical_id=a["resource"]["logical_id"],
                    element=a["id"],
                )
            )
    return out
