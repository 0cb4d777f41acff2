"""The review as Markdown (``policy-review.md``): the same sections and order as the HTML report.

The first screen is the verdict with its qualifiers (what the verdict rests on that the review could not check),
a one-line table of contents, then the summary: provenance first, then the configuration.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from landing_zone.review import access_analyzer as _access_analyzer  # noqa: F401 - registers its section
from landing_zone.review import detection as _detection  # noqa: F401 - registers the "detection" section
from landing_zone.review.render_auditor import claims_line
from landing_zone.review.sections import SECTIONS, renderers, renders

__all__ = [
    "quota_rows",
    "ACK_STATUS",
    "PROOFS_INTRO",
    "SECTIONS",
    "enforced_line",
    "evidence_line",
    "proof_rows",
    "render_markdown",
    "verdict_lines",
]


# what an acknowledgment that covers nothing is shown as, by its status (nag.py)
ACK_STATUS = {
    "unused": "nothing: unused (finding LZ-NAG-UNUSED-ACK)",
    "plugin not run": "(its plugin did not run)",
    "no report": "(no report)",
}


def _cell(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        value = ", ".join(str(v) for v in value)
    text = "" if value is None else str(value)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").strip() or " "


def _table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return out + [""]


def _badge(level: str) -> str:
    return "**BLOCKING**" if level == "blocking" else "advisory"


def _where(f: Mapping[str, Any]) -> str:
    """The logical ID first, in full (a code span: copy it, search the template for it), then statement and template."""
    parts = [f"`{f['logical_id']}`" if f.get("logical_id") else ""]
    if f.get("statement_index") is not None:
        parts.append(f"statement {f.get('sid') or '#' + str(f['statement_index'])}")
    parts.append(f.get("template") or "")
    return "<br>".join(p for p in parts if p) or "(assembly)"


def _why(f: Mapping[str, Any]) -> str:
    """The rule's rationale, then why cdk-nag acknowledged / checkov skipped the same thing here."""
    out = [f.get("rationale") or ""]
    for j in f.get("justifications") or []:
        verb = "acknowledged in cdk-nag" if j["tool"] == "cdk-nag" else "skipped in checkov"
        out.append(f"**{verb}** ({', '.join(j['ids'])}): {j['reason']}")
    return "<br>".join(x for x in out if x)


def enforced_line(d: Mapping[str, Any]) -> str:
    """What the guardrails enforce and for whom, from the claims (the first screen, before any count); a report
    model without claims falls back to the configuration's summary."""
    if d.get("claims"):
        return claims_line(d)
    e = d["summary"].get("enforced")
    if not e:
        return ""
    where = ", ".join(e["compliant_regions"]) + (" and the global profile" if e["global_inference"] else "")
    targets = ("on " + ", ".join(e["targets"])) if e["targets"] else "on NO target"
    binding = f"SCPs {targets}" if e["mode"].startswith("organization") else "the invoker permissions boundary"
    perim = e.get("perimeter")
    if perim and e["targets"]:
        governed = ", ".join([*perim["governed_ous"], *perim["governed_accounts"]][:6])
        binding = f"SCPs in the governed perimeter ({governed})" + (
            f"; under {', '.join(perim['shared_targets'])}, outside it, {perim['outside']}"
            if perim["shared_targets"]
            else ""
        )
    return (
        f"Enforced by {binding}: inference only in {where} (started from {', '.join(e['inference_source_regions'])}), "
        f"only on {', '.join(e['models'])}; VPC endpoint {'required' if e['vpc_endpoint_required'] else 'not required'}"
        f"; invocation logging {'on' if e['invocation_logging'] else 'OFF'}; kill switch "
        f"{'on' if e['kill_switch'] else 'off'}."
    )


_BINDS = {"perimeter": "the governed accounts", "organization": "every account below", "outside": "the others"}


def scp_layout_rows(enforced: Mapping[str, Any]) -> list[list[str]]:
    """The SCP layout (name, characters, whom it binds, where it attaches) and the slots each target uses."""
    perim = enforced.get("perimeter")
    if not perim:
        return []
    quota = perim["quota"]
    layout = "; ".join(
        f"{p['name']} ({p['characters']} of {quota['characters']} characters, binds {_BINDS[p['binds']]}) -> "
        + (
            ", ".join(p["targets"][:5]) + (f" and {len(p['targets']) - 5} more" if len(p["targets"]) > 5 else "")
            or "nothing"
        )
        for p in perim["scps"]
    )
    slots = ", ".join(f"{t}: {n} of {quota['per_target']}" for t, n in list(perim["slots"].items())[:8])
    return [
        ["SCP layout (one concern per SCP)", layout],
        ["SCPs per target (FullAWSAccess and others' counted)", slots],
    ]


def evidence_line(d: Mapping[str, Any]) -> str:
    """What the verdict rests on: proven properties, then the samples, each explained."""
    s = d["summary"]
    proven = s.get("properties_proven") or []
    not_proven = s.get("properties_not_proven") or []
    first = (
        f"Proven for every request: {', '.join(proven) or 'nothing'}"
        + (f"; NOT proven: {', '.join(not_proven)}" if not_proven else "")
        + " (section Proofs). "
        if d.get("proofs") is not None
        else "Not proven (--no-proofs). "
    )
    return first + (
        f"Sampled: {s['decision_cases']} decision cases (standard requests with the decision the design expects), "
        f"{s['decision_mismatches']} mismatch(es) (requests the synthesized policies decide otherwise)."
    )


def verdict_lines(d: Mapping[str, Any]) -> list[str]:
    """The verdict, what is enforced, what it rests on, and right under them its qualifiers."""
    s = d["summary"]
    word = "FAIL" if s["verdict"] == "fail" else "PASS"
    out = [
        f"**Verdict: {word}{' — qualified' if s.get('qualifiers') else ''}** · {s['blocking']} blocking, "
        f"{s['advisory']} advisory finding(s) · {s['policies']} policies",
        "",
    ]
    enforced = enforced_line(d)
    if enforced:
        out += [enforced, ""]
    out += [evidence_line(d), ""]
    if s.get("qualifiers"):
        out += [f"The {word} rests on what this review could not check:", ""]
        out += [f"- {q['text']}" for q in s["qualifiers"]] + [""]
    return out


def _provenance(d: Mapping[str, Any]) -> list[str]:
    p = d["summary"]["provenance"]
    review = p["review"]
    generated = f"landing_zone {review['landing_zone']}; cfn-lint {review['cfn_lint']}, checkov {review['checkov']}"
    if not p["recorded"]:
        rows = [["assembly", p["assembly"]], ["synthesized", p["note"]], ["review generated by", generated]]
    else:
        tools = p["synthesized_with"]
        sha = p["config_sha256"]
        commit = p["commit"] + (
            " **with uncommitted changes**"
            if p["work_tree_changed"]
            else " (work tree state not recorded)"
            if p["work_tree_changed"] is None
            else ""
        )
        rows = [
            ["assembly", p["assembly"]],
            ["configuration", f"{p['config_origin']}, sha256 {sha[:12]}" if len(sha) > 12 else p["config_origin"]],
            ["commit", commit],
            ["synthesized at", p["synthesized_at"]],
            [
                "synthesized with",
                f"landing_zone {tools['landing_zone']}, Python {tools['python']}, aws-cdk-lib {tools['aws_cdk_lib']}, "
                f"cdk-nag {tools['cdk_nag']}, CDK CLI {tools['cdk_cli']}",
            ],
            ["review generated by", generated],
        ]
    return ["**Provenance**", ""] + _table(["", ""], rows)


def quota_rows(c: Mapping[str, Any]) -> str:
    """The quota headroom alarms of the configuration, one per quota: value, threshold, source, date, verified."""
    rows = [
        f"{q['model_id']} {q['kind']}: quota {q['quota']:,.0f} {q['unit']}, alarm above {q['threshold']:,.0f} "
        f"({q['headroom']:.0%}); {'verified' if q['verified'] else 'NOT verified'}, {q['source']}, as of {q['as_of']}"
        for q in c.get("quota_alarms", [])
    ]
    missing = c.get("quotas_without_value", [])
    if missing:
        rows.append(f"no value, no alarm: {', '.join(missing)}")
    return "; ".join(rows) or "none"


@renders("md", "summary")
def _summary(d: Mapping[str, Any]) -> list[str]:
    s, c = d["summary"], d["config"]
    out = _provenance(d) + ["**Configuration**", ""]
    out += _table(
        ["", ""],
        [
            ["configuration", f"{c['name']} ({c['origin']})"],
            ["mode", c["mode"]],
            ["operations dashboard (after deploying)", f"[{c['operations_dashboard']}]({c['operations_dashboard']})"],
            ["home Region", c["home_region"]],
            ["compliant Regions", c["compliant_regions"]],
            ["inference may be started in", c.get("inference_source_regions", c["home_region"])],
            ["global inference allowed", "yes" if c["allow_global_inference"] else "no"],
            ["accounts known to the configuration", c["known_accounts"]],
            [
                "prices",
                f"{c['price_source']}"
                + (
                    "; contract prices (cost.price_overrides): "
                    + "; ".join(
                        f"{name}: "
                        + ", ".join(
                            f"{k.replace('_usd_per_million_tokens', '')} {v:g}" for k, v in o.items() if k != "source"
                        )
                        + f" ({o['source']})"
                        for name, o in c["price_overrides"].items()
                    )
                    if c["price_overrides"]
                    else "; catalog prices, no contract prices"
                ),
            ],
            [
                "quota headroom alarms (EstimatedTPMQuotaUsage is an approximation, not the sole indicator)",
                quota_rows(c),
            ],
            ["templates", s["templates"]],
            ["policies / statements", f"{s['policies']} / {s['statements']}"],
            ["policies by kind", ", ".join(f"{k}: {v}" for k, v in s["policies_by_kind"].items())],
            ["decision cases / mismatches", f"{s['decision_cases']} / {s['decision_mismatches']}"],
            *scp_layout_rows(s.get("enforced") or {}),
        ],
    )
    for w in c["warnings"]:
        out.append(f"> warning: {w}")
    for p in c.get("placeholders", []):
        out.append(f"> **placeholder** at `{p['path']}`: {p['value']} ({p['why']}) — replace it before deploying")
    return out + ([""] if c["warnings"] or c.get("placeholders") else [])


def _finding_rows(findings: Sequence[Mapping[str, Any]]) -> list[str]:
    return _table(
        ["level", "rule", "where", "finding", "why this level · what to do"],
        [
            [
                _badge(f["level"]),
                f"`{f['rule']}`<br>{f['title']}",
                _where(f),
                f["message"] + (f"<br>element: {f['element']}" if f["element"] else ""),
                _why(f),
            ]
            for f in findings
        ],
    )


@renders("md", "findings")
def _findings(d: Mapping[str, Any]) -> list[str]:
    blocking = [f for f in d["findings"] if f["level"] == "blocking"]
    advisory = len(d["findings"]) - len(blocking)
    note = [f"{advisory} advisory finding(s): [appendix](#appendix-hygiene).", ""] if advisory else []
    return note + (_finding_rows(blocking) if blocking else ["No blocking finding.", ""])


@renders("md", "appendix-hygiene")
def _hygiene(d: Mapping[str, Any]) -> list[str]:
    advisory = [f for f in d["findings"] if f["level"] != "blocking"]
    if not advisory:
        return ["No advisory finding.", ""]
    return ["Advisory findings (hygiene): to weigh, not blocking.", ""] + _finding_rows(advisory)


@renders("md", "inventory")
def _inventory(d: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    template = None
    for p in d["policies"]:
        if p["template"] != template:
            template = p["template"]
            out += [f"### {template}", ""]
        out += [f"#### {p.get('title') or p['name']}", ""]
        secondary = [f"`{p['kind']}`", f"logical ID `{p['logical_id']}`"]
        if p.get("construct_path"):
            secondary.append(f"construct {p['construct_path']}")
        out += [" · ".join(secondary), ""]
        facts = [f"`{p['property_path']}` of `{p['resource_type']}`"]
        if p["attached_to"]:
            facts.append("attached to " + ", ".join(p["attached_to"]))
        if p["boundary_of"]:
            facts.append("**permissions boundary** of " + ", ".join(p["boundary_of"]))
        if p["applies_to"]:
            facts.append("applies to " + p["applies_to"])
        facts += p["notes"]
        if p["parse_error"]:
            facts.append(f"could not be read: {p['parse_error']}")
        out += [f"- {f}" for f in facts] + [""]
        out += _table(
            ["#", "Sid", "effect", "in plain words"],
            [[s["index"], s["sid"], s["effect"], s["summary"]] for s in p["statements"]],
        )
    return out


@renders("md", "routing-matrix")
def _routing(d: Mapping[str, Any]) -> list[str]:
    return _table(
        ["model", "path", "invoke ID", "from", "processed in", "decision", "reason", "service tiers (price)"],
        [
            [
                r["model_id"],
                r["path"],
                r["invoke_id"],
                r["source_regions"],
                r["destination_regions"],
                r["decision"].upper(),
                r["reason"],
                r.get("service_tiers_text") or "-",
            ]
            for r in d["routing_matrix"]
        ],
    )


_SETTING_STATUS = {"enforced": "enforced", "void": "**VOID**", "scp-only": "SCP only (not enforced here)"}


def _setting_evidence(r: Mapping[str, Any]) -> str:
    parts = [f"{e['sid']} in {', '.join(e['policies']) or 'NO POLICY'}" for e in r["enforced_by"]]
    parts += list(r["applied_by"])
    parts += [f"missing: {m}" for m in r["missing"]]
    return "; ".join(parts) or "no deny needed"


@renders("md", "settings")
def _settings(d: Mapping[str, Any]) -> list[str]:
    rows = d.get("settings") or []
    if not rows:
        return ["No governed Bedrock setting in this configuration."]
    return [
        "Each control as configured, and the statements and resources of the synthesized templates that carry it "
        "(looked up in the assembly, not in the plan).",
        "",
        *_table(
            ["control", "setting", "status", "enforced / applied by", "verify", "AWS page"],
            [
                [
                    r["control"],
                    r["setting"] + (f" ({r['note']})" if r["note"] else ""),
                    _SETTING_STATUS.get(r["status"], r["status"]),
                    _setting_evidence(r),
                    ", ".join(f"`{c}`" for c in r["verify"]) or "policy only",
                    r["doc"],
                ]
                for r in rows
            ],
        ),
    ]


GRANTS_INTRO = (
    "Every stack deploys in its own account: a policy may name another account only where the plan means a "
    "cross-account grant (landing_zone/plan/grants.py), and the review rule LZ-FOREIGN-ACCOUNT refuses any other."
)
GRANT_HEADERS = ("grant", "stack", "policies", "may name", "accounts", "reason", "used by")


def grant_rows(d: Mapping[str, Any]) -> list[list[str]]:
    """One row per declared cross-account grant: where, what, whose, why, and the statements that use it."""
    return [
        [
            g["id"],
            g["stack"],
            ", ".join(g["policy_kinds"]),
            ", ".join(g["names"]),
            ", ".join(g["accounts"]),
            g["reason"],
            "; ".join(g["used_by"]) or "no statement (declared, unused)",
        ]
        for g in d.get("cross_account_grants") or []
    ]


@renders("md", "cross-account-grants")
def _grants(d: Mapping[str, Any]) -> list[str]:
    rows = grant_rows(d)
    if not rows:
        return [GRANTS_INTRO, "", "No cross-account grant: every policy names its own stack's account only."]
    return [GRANTS_INTRO, "", *_table(GRANT_HEADERS, rows)]


@renders("md", "decision-matrix")
def _decisions(d: Mapping[str, Any]) -> list[str]:
    m = d["decision_matrix"]
    out = [
        f"Evaluated against: {m['source']}. {m['cases']} case(s), {m['mismatches']} mismatch(es)"
        + (
            f"; {m['not_applicable']} case(s) about non-invoker roles do not apply to the boundary."
            if m["not_applicable"]
            else "."
        ),
        "",
    ]
    out += _table(
        ["case", "request", "expected", "actual", "deciding statement(s)", "ok"],
        [
            [
                r["case"],
                f"{r['action']} on {r['resource']} in {r['region']}"
                + (f" ({', '.join(f'{k}={v}' for k, v in r['context'].items())})" if r["context"] else ""),
                r["expected"],
                r["actual"],
                r["deciding"],
                "yes" if r["match"] else "**NO**",
            ]
            for r in m["rows"]
        ],
    )
    return out


@renders("md", "threat-model")
def _threat_model(d: Mapping[str, Any]) -> list[str]:
    t = d["threat_model"]
    out = [t["note"], ""]
    if not t["applies"]:
        return out
    out += [
        f"{t['attacks']} attacks ({t['requests']} requests with their legitimate neighbours), "
        f"{t['failures']} failure(s); {t['not_applicable']} row(s) do not apply to this configuration.",
        "",
    ]
    if t["residual"]:
        out += ["**Residual risks** (allowed by these SCPs on purpose or by necessity):", ""]
        out += [f"- {r['attack']}: {r['what_would_stop_it']}" for r in t["residual"]] + [""]
    for goal, text in t["goals"].items():
        rows = [r for r in t["rows"] if str(r["goal"]) == goal]
        out += [f"**Goal {goal}: {text}**", ""]
        out += _table(
            ["attack", "request", "deciding statement", "expected", "actual", "legitimate neighbour", "ok"],
            [
                [
                    r["attack"],
                    f"{r['request']['action']} on {r['request']['resource']} in {r['request']['region']}",
                    r["deciding_statement"] if r["expected"] == "explicit_deny" else "(none: residual)",
                    r["expected"],
                    f"{r['actual']} ({', '.join(r['actual_deciding']) or '-'})",
                    f"{r['legit']}: {r['legit_actual']}",
                    "yes" if r["ok"] else "**NO**",
                ]
                for r in rows
            ],
        )
    return out


PROOFS_INTRO = (
    "Each property is stated from the configuration and proven for every request with the z3 SMT solver "
    "(docs/PROVE.md): holds means no request breaks it; fails shows a counterexample as a simulate command, "
    "replayed through the evaluator; not-proven (timeout, vacuous) blocks the verdict unless acknowledged in "
    "proof-acknowledgements.yaml."
)


def proof_rows(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The obligations of a property that do not hold, as the report shows them."""
    return [
        {
            "status": o["status"],
            "label": o["label"],
            "detail": o.get("simulate") or o.get("reason") or "",
            "acknowledged": o.get("acknowledged", ""),
        }
        for o in p["not_holding"]
    ]


@renders("md", "proofs")
def _proofs(d: Mapping[str, Any]) -> list[str]:
    pr = d.get("proofs")
    if pr is None:
        return ["Not run (--no-proofs): the guardrail properties are only sampled (decision cases, red-team).", ""]
    out = [PROOFS_INTRO, "", f"Policies proven: {pr['source']}.", ""]
    if pr.get("error"):
        return out + [f"**Not proven**: {pr['error']}", ""]
    out += _table(
        ["property", "status", "obligations", "seconds", "what it says"],
        [
            [
                p["id"],
                ("**" + p["status"].upper() + "**") if p["status"] not in ("holds", "not-applicable") else p["status"],
                f"{p['holding']}/{p['obligations']} hold",
                p["seconds"],
                p["title"] + (f" ({p['note']})" if p["note"] else ""),
            ]
            for p in pr["properties"]
        ],
    )
    for p in pr["properties"]:
        rows = proof_rows(p)
        if rows:
            out += [f"**{p['id']}: obligations not holding**", ""]
            out += [
                f"- {r['status']}: {r['label']}"
                + (f" — `{r['detail']}`" if r["detail"] else "")
                + (f" (acknowledged: {r['acknowledged']})" if r["acknowledged"] else "")
                for r in rows
            ] + [""]
    out += ["Still sampled, not proven:", ""] + [f"- {x}" for x in pr["sampled"]] + [""]
    return out


@renders("md", "coverage")
def _coverage(d: Mapping[str, Any]) -> list[str]:
    c = d.get("coverage") or {"applies": False, "note": "not evaluated"}
    out = [c["note"], ""]
    if not c["applies"] or not c.get("ran"):
        return out
    out += [
        f"**{c['actions']} actions** of {len(c['services'])} services over {c['resource_types']} protected resource "
        f"types ({c['requests']} requests): **{c['denied']} denied** by the SCPs, **{c['excepted']} excepted** "
        f"(reviewed, below), **{len(c['undecided'])} undecided**. Databases: {c['database']}.",
        "",
    ]
    if c["undecided"]:
        out += ["**Undecided** (blocking, LZ-COVERAGE-UNDECIDED):", ""]
        out += [f"- {u}" for u in c["undecided"]] + [""]
    out += _table(
        ["exceptions", "reason", "source"],
        [
            [
                f"{len(x['actions'])}: " + ", ".join(x["actions"][:6]) + (" …" if len(x["actions"]) > 6 else ""),
                x["reason"],
                x["source"],
            ]
            for x in c["exception_classes"]
        ],
    )
    return out


@renders("md", "cdk-nag")
def _nag(d: Mapping[str, Any]) -> list[str]:
    n = d["cdk_nag"]
    out: list[str] = []
    if not n["report_found"]:
        out += ["validation-report.json was not found: the assembly was synthesized without the cdk-nag packs.", ""]
    else:
        out += _table(
            ["plugin", "conclusion", "violations", "acknowledged"],
            [[p["name"], p["conclusion"], p["violations"], p["acknowledged"]] for p in n["plugins"]],
        )
        out += ["**Violations**", ""]
        out += (
            _table(
                ["plugin", "rule", "severity", "construct(s)", "description"],
                [[v["plugin"], v["rule"], v["severity"], v["constructs"], v["description"]] for v in n["violations"]],
            )
            if n["violations"]
            else ["None.", ""]
        )
    out += [f"**Acknowledgments** ({len(n['acknowledgments'])}, from {n['acknowledgments_source']})", ""]
    out += _table(
        ["construct", "acknowledged finding", "reason", "covers"],
        [
            [
                a["construct_path"],
                a["id"],
                a["reason"],
                a["covers"] if a["covers"] else ACK_STATUS.get(a.get("status", ""), "(no report)"),
            ]
            for a in n["acknowledgments"]
        ],
    )
    return out


@renders("md", "scanners")
def _scanners(d: Mapping[str, Any]) -> list[str]:
    s = d["scanners"]
    if not s["ran"]:
        return [s["note"], ""]
    lint, ckv = s["cfn_lint"], s["checkov"]
    out = [
        f"**cfn-lint {lint['version']}**: {len(lint['errors'])} error(s), {len(lint['warnings'])} warning(s), "
        f"{len(lint['informational'])} informational." + (f" Could not run: {lint['error']}" if lint["error"] else ""),
        "",
    ]
    rows = [*lint["errors"], *lint["warnings"], *lint["informational"]]
    if rows:
        out += _table(
            ["level", "rule", "template", "resource", "message"],
            [[r["level"], r["rule"], r["template"], r["logical_id"] or r["path"], r["message"]] for r in rows],
        )
    out += [
        f"**checkov {ckv['version']}** (offline: {ckv['offline']}): {ckv['passed']} passed, {len(ckv['failed'])} failed, "
        f"{len(ckv['skipped'])} skipped by {ckv['skips_file']}."
        + (f" Could not run: {ckv['error']}" if ckv["error"] else ""),
        "",
    ]
    if ckv["failed"]:
        out += ["Failed:", ""] + _table(
            ["check", "name", "template", "resource"],
            [[f["check"], f["name"], f["template"], f["resource"]] for f in ckv["failed"]],
        )
    if ckv["skipped"]:
        out += ["Skipped, with the reason:", ""] + _table(
            ["check", "name", "resource", "reason"],
            [[f["check"], f["name"], f["resource"], f["reason"]] for f in ckv["skipped"]],
        )
    if ckv["unused_skips"]:
        out += ["Skips that matched nothing in this assembly:", ""] + _table(
            ["check", "resource", "reason"],
            [[u["check"], u["resource"] or "(any)", u["reason"]] for u in ckv["unused_skips"]],
        )
    return out


def _diff_entry(e: Mapping[str, Any]) -> list[str]:
    """One changed policy of the diff: who it applies to, its attachments and its statements added, removed, changed."""
    out = [
        f"#### {e['status']}: {e['kind']} · {e['name']} (`{e['logical_id']}`, {e['template']})",
        "",
        f"Who: {e['who'] or '-'}",
        "",
    ]
    for key in ("attached_to_added", "attached_to_removed"):
        if e.get(key):
            out += [f"- {key.replace('_', ' ')}: {', '.join(e[key])}"]
    for s in e["added"]:
        out.append(f"- **added** statement {s['sid'] or '#' + str(s['index'])}: {s['summary']}")
    for s in e["removed"]:
        out.append(f"- **removed** statement {s['sid'] or '#' + str(s['index'])}: {s['summary']}")
    for c in e["changed"]:
        deltas = [
            f"{k.replace('_', ' ')}: {', '.join(v) if isinstance(v, list) else v}"
            for k, v in c.items()
            if k.endswith(("_added", "_removed")) or k == "effect"
        ]
        out.append(f"- **changed** statement {c['sid'] or '#' + str(c['new_index'])}: " + "; ".join(deltas))
    out.append("")
    return out


@renders("md", "diff")
def _diff(d: Mapping[str, Any]) -> list[str]:
    diff = d["diff"]
    if diff is None:
        return ["No baseline given (`--baseline OLD_CDK_OUT` compares two assemblies).", ""]
    out = [
        f"Baseline: {diff['baseline']}. Policies added {diff['policies_added']}, removed {diff['policies_removed']}, "
        f"changed {diff['policies_changed']}; statements added {diff['statements_added']}, removed "
        f"{diff['statements_removed']}, changed {diff['statements_changed']}.",
        "",
    ]
    moved = diff.get("moved") or []
    out += [
        f"- **moved** statement {m['sid']}: {m['from']} → {m['to']}{'' if m['same'] else ' (content changed)'}"
        for m in moved
    ] + ([""] if moved else [])
    if not diff["entries"]:
        return out + ["No access changed.", ""]
    for e in diff["entries"]:
        out += _diff_entry(e)
    return out


@renders("md", "rules")
def _rules(d: Mapping[str, Any]) -> list[str]:
    return _table(
        ["rule", "level", "title", "what it checks", "why this level · what to do"],
        [[r["id"], r["level"], r["title"], r["description"], r["rationale"]] for r in d["rules"]],
    )


def render_markdown(d: Mapping[str, Any]) -> str:
    out = [f"# Policy review: {d['config']['name']}", ""] + verdict_lines(d)
    out += ["**Contents:** " + " · ".join(f"[{title}](#{anchor})" for anchor, title in SECTIONS), ""]
    for anchor, title, render in renderers("md"):
        out += [f'<a id="{anchor}"></a>', "", f"## {title}", ""]
        out += render(d)
    return "\n".join(out).rstrip() + "\n"
