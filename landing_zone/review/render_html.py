"""The review as one self-contained HTML page (``policy-review.html``): inline CSS, no script, no external asset.

Same sections and order as the Markdown report (``sections.SECTIONS``), with a table of contents, colour-coded
badges (blocking red, advisory amber, allowed/pass green) and one collapsible block per policy.  The header holds
the verdict and, right under it, its qualifiers; the summary starts with the provenance.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from landing_zone.review import access_analyzer as _access_analyzer  # noqa: F401 - registers its section
from landing_zone.review import detection as _detection  # noqa: F401 - registers the "detection" section
from landing_zone.review.render_auditor import changes_box_html
from landing_zone.review.render_md import (
    ACK_STATUS,
    GRANT_HEADERS,
    GRANTS_INTRO,
    PROOFS_INTRO,
    enforced_line,
    evidence_line,
    grant_rows,
    proof_rows,
    quota_rows,
)
from landing_zone.review.sections import SECTIONS, renderers, renders

__all__ = ["render_html"]

CSS = """
:root { --fg:#1d2330; --muted:#5b6475; --line:#d9dee7; --bg:#ffffff; --alt:#f6f8fb; --accent:#2454a6;
        --red:#b42318; --red-bg:#fde8e6; --amber:#9a5b00; --amber-bg:#fff3d6; --green:#146c2e; --green-bg:#e3f5e8;
        --grey:#4a5160; --grey-bg:#eceff4; }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.5 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color:var(--fg); background:var(--bg); }
header { padding:24px 32px 16px; border-bottom:1px solid var(--line); background:var(--alt); }
header h1 { margin:0 0 6px; font-size:26px; }
header p { margin:4px 0; color:var(--muted); }
.layout { display:flex; align-items:flex-start; }
nav { position:sticky; top:0; flex:0 0 230px; max-height:100vh; overflow:auto; padding:20px 16px 20px 32px; }
nav h2 { font-size:13px; text-transform:uppercase; letter-spacing:.06em; color:var(--muted); margin:0 0 8px; }
nav ol { margin:0; padding-left:18px; }
nav li { margin:4px 0; }
nav a { color:var(--accent); text-decoration:none; }
nav a:hover { text-decoration:underline; }
main { flex:1; min-width:0; padding:8px 32px 48px 16px; }
section { margin-top:28px; }
h2 { font-size:21px; border-bottom:2px solid var(--line); padding-bottom:4px; }
h3 { font-size:17px; margin:22px 0 8px; }
table { border-collapse:collapse; width:100%; margin:8px 0 16px; font-size:13.5px; }
th, td { border:1px solid var(--line); padding:5px 8px; text-align:left; vertical-align:top; overflow-wrap:break-word; }
th { background:var(--alt); font-weight:600; }
tbody tr:nth-child(even) td { background:#fbfcfe; }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size:12.5px; }
td.mono, span.mono, code, .ids { overflow-wrap:anywhere; }
td details summary { cursor:pointer; color:var(--accent); }
.nowrap { white-space:nowrap; }
.scroll { overflow-x:auto; }
pre { background:var(--alt); border:1px solid var(--line); padding:10px; overflow:auto; max-height:420px; }
.badge { display:inline-block; padding:1px 8px; border-radius:10px; font-size:12px; font-weight:600; white-space:nowrap; }
.blocking, .deny, .mismatch, .fail, .rejected { color:var(--red); background:var(--red-bg); }
.advisory, .warning { color:var(--amber); background:var(--amber-bg); }
.allow, .ok, .pass, .allowed { color:var(--green); background:var(--green-bg); }
.kind, .info, .na { color:var(--grey); background:var(--grey-bg); }
.verdict { font-size:16px; padding:4px 14px; }
.cards { display:flex; flex-wrap:wrap; gap:12px; margin:12px 0; }
.card { border:1px solid var(--line); border-radius:8px; padding:10px 14px; min-width:150px; background:var(--bg); }
.card b { display:block; font-size:22px; }
.card span { color:var(--muted); font-size:13px; }
details.policy { border:1px solid var(--line); border-radius:6px; margin:8px 0; background:var(--bg); }
details.policy > summary { cursor:pointer; padding:8px 12px; background:var(--alt); border-radius:6px; }
details.policy[open] > summary { border-bottom:1px solid var(--line); border-radius:6px 6px 0 0; }
details.policy > div { padding:4px 12px 8px; }
ul.facts { margin:6px 0; padding-left:20px; color:var(--muted); }
.muted { color:var(--muted); }
#summary-table td:first-child { width:230px; }
.warnbox { border-left:4px solid var(--amber); background:var(--amber-bg); padding:6px 12px; margin:8px 0; }
.qualifiers { border-left:4px solid var(--amber); background:var(--amber-bg); padding:6px 14px; margin:10px 0 4px; }
.qualifiers ul { display:inline; margin:0; padding:0; }
.qualifiers li { display:inline; }
.qualifiers li + li::before { content:" · "; }
header { padding:14px 32px 10px; }
header p { font-size:14px; }
#residency-table, #claims-table, #changes-summary-table { font-size:12.5px; }
#changes-summary p { margin:4px 0; }
#findings-table, #hygiene-table { table-layout:fixed; }
#findings-table td { overflow-wrap:anywhere; }
#findings-table th:nth-child(1) { width:7.5em; }
#findings-table th:nth-child(2) { width:16%; }
#findings-table th:nth-child(3) { width:20%; }
#findings-table th:nth-child(5) { width:27%; }
.where code { overflow-wrap:anywhere; }
.why p { margin:0 0 4px; }
.secondary { display:block; margin-top:2px; }
@media print { nav { display:none; } details.policy { break-inside:avoid; } }
"""


def _e(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        value = ", ".join(str(v) for v in value)
    return escape("" if value is None else str(value))


def _badge(text: str, cls: str) -> str:
    return f'<span class="badge {escape(cls)}">{escape(text)}</span>'


def _level(level: str) -> str:
    return _badge("BLOCKING" if level == "blocking" else "advisory", level)


def _decision(value: str) -> str:
    cls = "allow" if value == "allow" else "deny" if "deny" in value else "mismatch"
    return _badge(value, cls)


def _table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    table_id: str = "",
    mono: Sequence[int] = (),
    classes: Mapping[int, str] | None = None,
) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers) if any(headers) else ""
    cells_class = {**dict.fromkeys(mono, "mono"), **(classes or {})}
    body = []
    for row in rows:
        cells = "".join(
            f'<td class="{escape(cells_class[i])}">{c}</td>' if i in cells_class else f"<td>{c}</td>"
            for i, c in enumerate(row)
        )
        body.append(f"<tr>{cells}</tr>")
    ident = f' id="{escape(table_id)}"' if table_id else ""
    thead = f"<thead><tr>{head}</tr></thead>" if head else ""
    return f'<div class="scroll"><table{ident}>{thead}<tbody>{"".join(body)}</tbody></table></div>'


def _slug(text: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_-]+", "-", text).strip("-")


def _where(f: Mapping[str, Any]) -> str:
    """The logical ID in full on its own line (wrapped, never cut), then the statement and the template."""
    lines = []
    if f.get("logical_id"):
        lid = f"<code>{_e(f['logical_id'])}</code>"
        if f.get("policy_id"):
            lid = f'<a class="ids" href="#policy-{escape(_slug(f["policy_id"]))}">{lid}</a>'
        lines.append(lid)
    if f.get("statement_index") is not None:
        lines.append(_e(f"statement {f.get('sid') or '#' + str(f['statement_index'])}"))
    if f.get("template"):
        lines.append(f'<span class="muted">{_e(f["template"])}</span>')
    return "<br>".join(lines) or '<span class="muted">(assembly)</span>'


def _why(f: Mapping[str, Any]) -> str:
    """The rule's rationale, then why cdk-nag acknowledged / checkov skipped the same thing on this resource."""
    out = [f"<p>{_e(f.get('rationale') or '')}</p>"]
    for j in f.get("justifications") or []:
        verb = "acknowledged in cdk-nag" if j["tool"] == "cdk-nag" else "skipped in checkov"
        out.append(f'<p><b>{escape(verb)}</b> (<span class="mono">{_e(j["ids"])}</span>): {_e(j["reason"])}</p>')
    return "".join(out)


def _qualifiers(d: Mapping[str, Any]) -> str:
    s = d["summary"]
    if not s.get("qualifiers"):
        return ""
    word = "FAIL" if s["verdict"] == "fail" else "PASS"
    items = "".join(f"<li>{_e(q['text'])}</li>" for q in s["qualifiers"])
    return (
        f'<div class="qualifiers" id="qualifiers"><strong>Qualified:</strong> the {word} rests on what this review '
        f"could not check: <ul>{items}</ul></div>"
    )


def _provenance(d: Mapping[str, Any]) -> str:
    p = d["summary"]["provenance"]
    review = p["review"]
    generated = _e(f"landing_zone {review['landing_zone']}; cfn-lint {review['cfn_lint']}, checkov {review['checkov']}")
    if not p["recorded"]:
        rows = [
            ["assembly", f'<span class="mono">{_e(p["assembly"])}</span>'],
            ["synthesized", _badge("not recorded", "advisory") + " " + _e(p["note"])],
            ["review generated by", generated],
        ]
    else:
        tools = p["synthesized_with"]
        sha = str(p["config_sha256"])
        changed = (
            " " + _badge("with uncommitted changes", "advisory")
            if p["work_tree_changed"]
            else ' <span class="muted">(work tree state not recorded)</span>'
            if p["work_tree_changed"] is None
            else ""
        )
        rows = [
            ["assembly", f'<span class="mono">{_e(p["assembly"])}</span>'],
            [
                "configuration",
                _e(p["config_origin"])
                + (f', sha256 <span class="mono" title="{_e(sha)}">{_e(sha[:12])}</span>' if len(sha) > 12 else ""),
            ],
            ["commit", f'<span class="mono">{_e(p["commit"])}</span>{changed}'],
            ["synthesized at", _e(p["synthesized_at"])],
            [
                "synthesized with",
                _e(
                    f"landing_zone {tools['landing_zone']}, Python {tools['python']}, aws-cdk-lib "
                    f"{tools['aws_cdk_lib']}, cdk-nag {tools['cdk_nag']}, CDK CLI {tools['cdk_cli']}"
                ),
            ],
            ["review generated by", generated],
        ]
    return "<h3>Provenance</h3>" + _table(["", ""], rows, table_id="provenance-table")


# ----------------------------------------------------------------------------------------- sections


@renders("html", "summary")
def _summary(d: Mapping[str, Any]) -> str:
    s, c = d["summary"], d["config"]
    cards = [
        (s["blocking"], "blocking findings"),
        (s["advisory"], "advisory findings"),
        (s["policies"], "policies"),
        (s["statements"], "statements"),
        (s["decision_cases"], "decision cases"),
        (s["decision_mismatches"], "mismatches"),
    ]
    html = (
        '<div class="cards">'
        + "".join(f'<div class="card"><b>{_e(n)}</b><span>{_e(t)}</span></div>' for n, t in cards)
        + "</div>"
    )
    html += _provenance(d) + "<h3>Configuration</h3>"
    rows = [
        ["configuration", _e(f"{c['name']} ({c['origin']})")],
        ["mode", _e(c["mode"])],
        [
            "operations dashboard (after deploying)",
            f'<span class="mono">{_e(c["operations_dashboard"])}</span>',  # text: the report links nothing outside
        ],
        ["home Region", _e(c["home_region"])],
        ["compliant Regions", _e(c["compliant_regions"])],
        ["inference may be started in", _e(c.get("inference_source_regions", c["home_region"]))],
        ["global inference allowed", _badge("yes", "advisory") if c["allow_global_inference"] else _badge("no", "ok")],
        ["accounts known to the configuration", _many(c["known_accounts"], "accounts", limit=12)],
        [
            "prices",
            _e(c["price_source"])
            + (
                (
                    "<br>contract prices (cost.price_overrides): "
                    + "; ".join(
                        _e(
                            f"{name}: "
                            + ", ".join(
                                f"{k.replace('_usd_per_million_tokens', '')} {v:g}"
                                for k, v in o.items()
                                if k != "source"
                            )
                            + f" ({o['source']})"
                        )
                        for name, o in c["price_overrides"].items()
                    )
                )
                if c["price_overrides"]
                else " · catalog prices, no contract prices"
            ),
        ],
        [
            "quota headroom alarms (EstimatedTPMQuotaUsage is an approximation, not the sole indicator)",
            _e(quota_rows(c)),
        ],
        ["templates", _e(s["templates"])],
        ["policies by kind", _e(", ".join(f"{k}: {v}" for k, v in s["policies_by_kind"].items()))],
    ]
    html += _table(["", ""], rows, table_id="summary-table")
    html += "".join(f'<div class="warnbox">warning: {_e(w)}</div>' for w in c["warnings"])
    html += "".join(
        f'<div class="warnbox"><strong>placeholder</strong> at <span class="mono">{_e(p["path"])}</span>: '
        f"{_e(p['value'])} ({_e(p['why'])}) — replace it before deploying</div>"
        for p in c.get("placeholders", [])
    )
    return html


def _finding_table(findings: Sequence[Mapping[str, Any]], table_id: str) -> str:
    return _table(
        ["level", "rule", "where", "finding", "why this level · what to do"],
        [
            [
                _level(f["level"]),
                f'<span class="mono">{_e(f["rule"])}</span><br><span class="muted">{_e(f["title"])}</span>',
                _where(f),
                _e(f["message"]) + (f'<br><span class="mono muted">{_e(f["element"])}</span>' if f["element"] else ""),
                _why(f),
            ]
            for f in findings
        ],
        table_id=table_id,
        classes={2: "where", 4: "why"},
    )


@renders("html", "findings")
def _findings(d: Mapping[str, Any]) -> str:
    blocking = [f for f in d["findings"] if f["level"] == "blocking"]
    advisory = len(d["findings"]) - len(blocking)
    note = f'<p>{advisory} advisory finding(s): <a href="#appendix-hygiene">appendix</a>.</p>' if advisory else ""
    if not blocking:
        return "<p>" + _badge("no blocking finding", "pass") + "</p>" + note
    return note + _finding_table(blocking, "findings-table")


@renders("html", "appendix-hygiene")
def _hygiene(d: Mapping[str, Any]) -> str:
    advisory = [f for f in d["findings"] if f["level"] != "blocking"]
    if not advisory:
        return "<p>No advisory finding.</p>"
    return "<p>Advisory findings (hygiene): to weigh, not blocking.</p>" + _finding_table(advisory, "hygiene-table")


def _policy_flags(p: Mapping[str, Any], blocking_policies: set[str], advisory_policies: set[str]) -> str:
    """The badges after a policy's title: its worst finding level, and whether it is a permissions boundary."""
    flags = ""
    if p["id"] in blocking_policies:
        flags += " " + _badge("blocking finding", "blocking")
    elif p["id"] in advisory_policies:
        flags += " " + _badge("advisory finding", "advisory")
    if p["boundary_of"]:
        flags += " " + _badge("permissions boundary", "info")
    return flags


def _policy_facts(p: Mapping[str, Any]) -> list[str]:
    """What a policy is attached to, bounds, applies to, its notes and any parse error."""
    facts = [f"<code>{_e(p['property_path'])}</code> of <code>{_e(p['resource_type'])}</code>"]
    if p["attached_to"]:
        facts.append("attached to " + _e(p["attached_to"]))
    if p["boundary_of"]:
        facts.append("<b>permissions boundary</b> of " + _e(p["boundary_of"]))
    if p["applies_to"]:
        facts.append("applies to " + _e(p["applies_to"]))
    facts += [_e(n) for n in p["notes"]]
    if p["parse_error"]:
        facts.append("could not be read: " + _e(p["parse_error"]))
    return facts


@renders("html", "inventory")
def _inventory(d: Mapping[str, Any]) -> str:
    blocking_policies = {f["policy_id"] for f in d["findings"] if f["level"] == "blocking" and f["policy_id"]}
    advisory_policies = {f["policy_id"] for f in d["findings"] if f["level"] == "advisory" and f["policy_id"]}
    out = [
        f'<p class="muted">{len(d["policies"])} policies in {len(d["summary"]["templates"])} template(s). '
        "Intrinsics are shown as &lt;LogicalId.Attribute&gt;; imports of another stack's output as "
        "&lt;stack:LogicalId.Attribute&gt;.</p>"
    ]
    template = None
    for p in d["policies"]:
        if p["template"] != template:
            template = p["template"]
            out.append(f"<h3>{_e(template)}</h3>")
        flags = _policy_flags(p, blocking_policies, advisory_policies)
        facts = _policy_facts(p)
        statements = _table(
            ["#", "Sid", "effect", "in plain words"],
            [
                [
                    _e(s["index"]),
                    f'<span class="mono">{_e(s["sid"])}</span>',
                    _badge(s["effect"], "allow" if s["effect"] == "Allow" else "deny"),
                    _e(s["summary"]),
                ]
                for s in p["statements"]
            ],
        )
        raw = escape(json.dumps(p["document"], indent=2, sort_keys=True))
        out.append(
            f'<details class="policy" id="policy-{escape(_slug(p["id"]))}"><summary>{_badge(p["kind"], "kind")} '
            f'<b class="ids">{_e(p.get("title") or p["name"])}</b> '
            f'<span class="muted">· {len(p["statements"])} statement(s)</span>{flags}'
            f'<span class="secondary mono muted ids">{_e(p["logical_id"])}'
            + (f" · {_e(p['construct_path'])}" if p.get("construct_path") else "")
            + "</span></summary><div>"
            f'<ul class="facts">{"".join(f"<li>{x}</li>" for x in facts)}</ul>{statements}'
            f"<details><summary>policy document (JSON)</summary><pre>{raw}</pre></details></div></details>"
        )
    return "".join(out)


def _many(items: Sequence[str], noun: str = "Regions", limit: int = 6) -> str:
    if len(items) <= limit:
        return _e(items)
    return f"<details><summary>{len(items)} {escape(noun)}</summary>{_e(items)}</details>"


@renders("html", "routing-matrix")
def _routing(d: Mapping[str, Any]) -> str:
    return _table(
        ["model", "path", "invoke ID", "from", "processed in", "decision", "reason", "service tiers (price)"],
        [
            [
                f'<span class="mono">{_e(r["model_id"])}</span>',
                f'<span class="nowrap">{_e(r["path"])}</span>',
                f'<span class="mono">{_e(r["invoke_id"])}</span>',
                _many(r["source_regions"]),
                _many(r["destination_regions"]),
                _badge(r["decision"].upper(), r["decision"]),
                _e(r["reason"]),
                _e(r.get("service_tiers_text") or "-"),
            ]
            for r in d["routing_matrix"]
        ],
        table_id="routing-table",
    )


_SETTING_BADGE = {"enforced": ("enforced", "pass"), "void": ("VOID", "blocking"), "scp-only": ("SCP only", "advisory")}


def _setting_evidence(r: Mapping[str, Any]) -> str:
    items = [
        f'<span class="mono">{_e(e["sid"])}</span> in {_e(e["policies"]) or _badge("no policy", "blocking")}'
        for e in r["enforced_by"]
    ]
    items += [_e(a) for a in r["applied_by"]]
    items += [f"{_badge('missing', 'blocking')} {_e(m)}" for m in r["missing"]]
    return "<br>".join(items) or '<span class="muted">no deny needed</span>'


@renders("html", "settings")
def _settings(d: Mapping[str, Any]) -> str:
    rows = d.get("settings") or []
    if not rows:
        return '<p class="muted">No governed Bedrock setting in this configuration.</p>'
    intro = (
        "<p>Each control as configured, and the statements and resources of the synthesized templates that carry it "
        "(looked up in the assembly, not in the plan).</p>"
    )
    return intro + _table(
        ["control", "setting", "status", "enforced / applied by", "verify", "AWS page"],
        [
            [
                _e(r["control"]),
                _e(r["setting"]) + (f'<br><span class="muted">{_e(r["note"])}</span>' if r["note"] else ""),
                _badge(*_SETTING_BADGE.get(r["status"], (r["status"], "info"))),
                _setting_evidence(r),
                _e(", ".join(r["verify"]) or "policy only"),
                f'<span class="mono">{_e(r["doc"])}</span>',  # text, not a link: the report is self-contained
            ]
            for r in rows
        ],
        table_id="settings-table",
    )


@renders("html", "cross-account-grants")
def _grants(d: Mapping[str, Any]) -> str:
    rows = grant_rows(d)
    if not rows:
        return (
            f"<p>{_e(GRANTS_INTRO)}</p>"
            + '<p class="muted">No cross-account grant: every policy names its own stack\'s account only.</p>'
        )
    return f"<p>{_e(GRANTS_INTRO)}</p>" + _table(
        GRANT_HEADERS, [[_e(c) for c in r] for r in rows], table_id="grants-table"
    )


@renders("html", "decision-matrix")
def _decisions(d: Mapping[str, Any]) -> str:
    m = d["decision_matrix"]
    intro = (
        f"<p>Evaluated against: {_e(m['source'])}. {m['cases']} case(s), "
        f"{_badge(str(m['mismatches']) + ' mismatch(es)', 'mismatch' if m['mismatches'] else 'ok')}"
        + (
            f" · {m['not_applicable']} case(s) about non-invoker roles do not apply to the boundary"
            if m["not_applicable"]
            else ""
        )
        + "</p>"
    )
    rows = []
    for r in m["rows"]:
        context = "".join(f"<br><span class='muted'>{_e(k)} = {_e(v)}</span>" for k, v in r["context"].items())
        rows.append(
            [
                _e(r["case"]),
                f'<span class="mono">{_e(r["action"])}</span> on <span class="mono">{_e(r["resource"])}</span> '
                f'in {_e(r["region"])}<br><span class="muted">as {_e(r["principal"])}</span>{context}',
                _decision(r["expected"]),
                _decision(r["actual"]),
                f'<span class="mono">{_e(r["deciding"])}</span>',
                _badge("ok", "ok") if r["match"] else _badge("MISMATCH", "mismatch"),
            ]
        )
    return intro + _table(
        ["case", "request", "expected", "actual", "deciding statement(s)", ""], rows, table_id="decision-table"
    )


@renders("html", "coverage")
def _coverage(d: Mapping[str, Any]) -> str:
    c = d.get("coverage") or {"applies": False, "note": "not evaluated"}
    out = [f"<p>{_e(c['note'])}</p>"]
    if not c["applies"] or not c.get("ran"):
        return "".join(out)
    undecided = len(c["undecided"])
    out.append(
        f"<p><strong>{c['actions']} actions</strong> of {len(c['services'])} services over {c['resource_types']} "
        f"protected resource types ({c['requests']} requests): "
        + _badge(f"{c['denied']} denied", "ok")
        + " · "
        + _badge(f"{c['excepted']} excepted", "advisory")
        + " · "
        + _badge(f"{undecided} undecided", "mismatch" if undecided else "ok")
        + f'<br><span class="muted">Databases: {_e(c["database"])}</span></p>'
    )
    if undecided:
        items = "".join(f'<li class="mono">{_e(u)}</li>' for u in c["undecided"])
        out.append(f'<div class="warnbox"><strong>Undecided (blocking)</strong><ul>{items}</ul></div>')
    rows = [
        [
            f'{len(x["actions"])}: <span class="mono">'
            + _e(", ".join(x["actions"][:6]) + (" …" if len(x["actions"]) > 6 else ""))
            + "</span>",
            _e(x["reason"]),
            _e(x["source"]),
        ]
        for x in c["exception_classes"]
    ]
    out.append(_table(["exceptions", "reason", "source"], rows, table_id="coverage-table"))
    return "".join(out)


@renders("html", "proofs")
def _proofs(d: Mapping[str, Any]) -> str:
    pr = d.get("proofs")
    if pr is None:
        return "<p>Not run (--no-proofs): the guardrail properties are only sampled (decision cases, red-team).</p>"
    out = [f"<p>{_e(PROOFS_INTRO)}</p>", f'<p class="muted">Policies proven: {_e(pr["source"])}</p>']
    if pr.get("error"):
        out.append(f'<div class="warnbox"><strong>Not proven</strong>: {_e(pr["error"])}</div>')
        return "".join(out)
    ok = ("holds", "not-applicable")
    rows = [
        [
            f'<span class="mono">{_e(p["id"])}</span>',
            _badge(p["status"], "ok" if p["status"] in ok else "advisory" if p.get("acknowledged") else "mismatch"),
            f"{p['holding']}/{p['obligations']} hold",
            f"{p['seconds']:.1f}",
            _e(p["title"]) + (f'<br><span class="muted">{_e(p["note"])}</span>' if p["note"] else ""),
        ]
        for p in pr["properties"]
    ]
    out.append(_table(["property", "status", "obligations", "seconds", "what it says"], rows, table_id="proofs-table"))
    for p in pr["properties"]:
        items = "".join(
            f"<li>{_e(r['status'])}: {_e(r['label'])}"
            + (f'<br><code class="mono">{_e(r["detail"])}</code>' if r["detail"] else "")
            + (f"<br>acknowledged: {_e(r['acknowledged'])}" if r["acknowledged"] else "")
            + "</li>"
            for r in proof_rows(p)
        )
        if items:
            out.append(
                f'<div class="warnbox"><strong>{_e(p["id"])}: obligations not holding</strong><ul>{items}</ul></div>'
            )
    sampled = "".join(f"<li>{_e(x)}</li>" for x in pr["sampled"])
    out.append(f"<p>Still sampled, not proven:</p><ul>{sampled}</ul>")
    return "".join(out)


@renders("html", "threat-model")
def _threat_model(d: Mapping[str, Any]) -> str:
    t = d["threat_model"]
    out = [f"<p>{_e(t['note'])}</p>"]
    if not t["applies"]:
        return "".join(out)
    out.append(
        f"<p>{t['attacks']} attacks ({t['requests']} requests with their legitimate neighbours), "
        + _badge(f"{t['failures']} failure(s)", "mismatch" if t["failures"] else "ok")
        + f" · {t['not_applicable']} row(s) do not apply to this configuration</p>"
    )
    if t["residual"]:
        items = "".join(f"<li>{_e(r['attack'])}: {_e(r['what_would_stop_it'])}</li>" for r in t["residual"])
        out.append(f'<div class="warnbox"><strong>Residual risks</strong><ul>{items}</ul></div>')
    for goal, text in t["goals"].items():
        rows = []
        for r in t["rows"]:
            if str(r["goal"]) != goal:
                continue
            req = r["request"]
            rows.append(
                [
                    _e(r["attack"]),
                    f'<span class="mono">{_e(req["action"])}</span> on <span class="mono">{_e(req["resource"])}</span> '
                    f'in {_e(req["region"])}<br><span class="muted">as {_e(req["principal"])}</span>',
                    '<span class="mono">'
                    + _e(r["deciding_statement"] if r["expected"] == "explicit_deny" else "(residual)")
                    + "</span>",
                    _decision(r["expected"]),
                    _decision(r["actual"]),
                    f"{_e(r['legit'])}: {_decision(r['legit_actual'])}",
                    _badge("ok", "ok") if r["ok"] else _badge("FAILS", "mismatch"),
                ]
            )
        out.append(f"<h3>Goal {_e(goal)}: {_e(text)}</h3>")
        out.append(
            _table(
                ["attack", "request", "deciding statement", "expected", "actual", "legitimate neighbour", ""],
                rows,
                table_id=f"threat-goal-{goal}",
            )
        )
    return "".join(out)


@renders("html", "cdk-nag")
def _nag(d: Mapping[str, Any]) -> str:
    n = d["cdk_nag"]
    out = []
    if not n["report_found"]:
        out.append(
            '<p class="warnbox">validation-report.json was not found: the assembly was synthesized without the cdk-nag packs.</p>'
        )
    else:
        out.append(
            _table(
                ["plugin", "conclusion", "violations", "acknowledged"],
                [
                    [
                        _e(p["name"]),
                        _badge(p["conclusion"], "pass" if p["conclusion"] == "success" else "fail"),
                        _e(p["violations"]),
                        _e(p["acknowledged"]),
                    ]
                    for p in n["plugins"]
                ],
            )
        )
        out.append("<h3>Violations</h3>")
        out.append(
            _table(
                ["plugin", "rule", "severity", "construct(s)", "description"],
                [
                    [
                        _e(v["plugin"]),
                        f'<span class="mono nowrap">{_e(v["rule"])}</span>',
                        _badge(v["severity"], "blocking" if v["blocking"] else "advisory"),
                        f'<span class="mono">{_e(v["constructs"])}</span>',
                        _e(v["description"]),
                    ]
                    for v in n["violations"]
                ],
            )
            if n["violations"]
            else "<p>" + _badge("none", "pass") + "</p>"
        )
    out.append(
        f'<h3>Acknowledgments ({len(n["acknowledgments"])})</h3><p class="muted">From {_e(n["acknowledgments_source"])}.</p>'
    )
    out.append(
        _table(
            ["construct", "acknowledged finding", "reason", "covers"],
            [
                [
                    f'<span class="mono">{_e(a["construct_path"])}</span>',
                    f'<span class="mono">{_e(a["id"])}</span>',
                    _e(a["reason"]),
                    _e(a["covers"])
                    if a["covers"]
                    else _badge(
                        ACK_STATUS.get(a.get("status", ""), "(no report)").strip("()"),
                        "advisory" if a.get("status") == "unused" else "na",
                    ),
                ]
                for a in n["acknowledgments"]
            ],
            table_id="acknowledgments-table",
        )
    )
    return "".join(out)


@renders("html", "scanners")
def _scanners(d: Mapping[str, Any]) -> str:
    s = d["scanners"]
    if not s["ran"]:
        return f"<p>{_e(s['note'])}</p>"
    lint, ckv = s["cfn_lint"], s["checkov"]
    out = [
        f"<h3>cfn-lint {_e(lint['version'])}</h3><p>"
        + _badge(f"{len(lint['errors'])} error(s)", "blocking" if lint["errors"] else "ok")
        + " "
        + _badge(f"{len(lint['warnings'])} warning(s)", "advisory" if lint["warnings"] else "ok")
        + " "
        + _badge(f"{len(lint['informational'])} informational", "info")
        + (f" could not run: {_e(lint['error'])}" if lint["error"] else "")
        + "</p>"
    ]
    rows = [*lint["errors"], *lint["warnings"], *lint["informational"]]
    if rows:
        out.append(
            _table(
                ["level", "rule", "template", "resource", "message"],
                [
                    [
                        _badge(
                            r["level"],
                            "blocking" if r["level"] == "Error" else "advisory" if r["level"] == "Warning" else "info",
                        ),
                        f'<span class="mono nowrap">{_e(r["rule"])}</span>',
                        _e(r["template"]),
                        f'<span class="mono">{_e(r["logical_id"] or r["path"])}</span>',
                        _e(r["message"]),
                    ]
                    for r in rows
                ],
            )
        )
    out.append(
        f"<h3>checkov {_e(ckv['version'])}</h3><p>"
        + _badge(f"{ckv['passed']} passed", "ok")
        + " "
        + _badge(f"{len(ckv['failed'])} failed", "blocking" if ckv["failed"] else "ok")
        + " "
        + _badge(f"{len(ckv['skipped'])} skipped with a reason", "info")
        + f' <span class="muted">offline: {_e(ckv["offline"])}; skips from {_e(ckv["skips_file"])}</span>'
        + (f" could not run: {_e(ckv['error'])}" if ckv["error"] else "")
        + "</p>"
    )
    if ckv["failed"]:
        out.append(
            _table(
                ["check", "name", "template", "resource"],
                [
                    [
                        f'<span class="mono nowrap">{_e(f["check"])}</span>',
                        _e(f["name"]),
                        _e(f["template"]),
                        f'<span class="mono">{_e(f["resource"])}</span>',
                    ]
                    for f in ckv["failed"]
                ],
            )
        )
    if ckv["skipped"]:
        out.append(
            _table(
                ["check", "name", "resource", "reason"],
                [
                    [
                        f'<span class="mono nowrap">{_e(f["check"])}</span>',
                        _e(f["name"]),
                        f'<span class="mono">{_e(f["resource"])}</span>',
                        _e(f["reason"]),
                    ]
                    for f in ckv["skipped"]
                ],
            )
        )
    if ckv["unused_skips"]:
        out.append("<p class='muted'>Skips that matched nothing in this assembly:</p>")
        out.append(
            _table(
                ["check", "resource", "reason"],
                [
                    [
                        f'<span class="mono nowrap">{_e(u["check"])}</span>',
                        _e(u["resource"] or "(any)"),
                        _e(u["reason"]),
                    ]
                    for u in ckv["unused_skips"]
                ],
            )
        )
    return "".join(out)


def _delta_text(value: Any) -> str:
    if isinstance(value, Mapping):  # effect change
        return f"{value.get('from')} → {value.get('to')}"
    return ", ".join(value) if isinstance(value, list) else str(value)


@renders("html", "diff")
def _diff(d: Mapping[str, Any]) -> str:
    diff = d["diff"]
    if diff is None:
        return '<p class="muted">No baseline given (<code>--baseline OLD_CDK_OUT</code> compares two assemblies).</p>'
    out = [
        f"<p>Baseline <span class='mono'>{_e(diff['baseline'])}</span>: "
        + _badge(f"{diff['statements_added']} statement(s) added", "advisory" if diff["statements_added"] else "ok")
        + " "
        + _badge(f"{diff['statements_removed']} removed", "info")
        + " "
        + _badge(f"{diff['statements_changed']} changed", "advisory" if diff["statements_changed"] else "ok")
        + f" · policies added {diff['policies_added']}, removed {diff['policies_removed']}, "
        + f"changed {diff['policies_changed']}</p>"
    ]
    out += [
        f"<p>{_badge('moved', 'info')} {_e(m['sid'])}: {_e(m['from'])} → {_e(m['to'])}"
        f"{'' if m['same'] else ' (content changed)'}</p>"
        for m in diff.get("moved") or []
    ]
    if not diff["entries"]:
        out.append("<p>No access changed.</p>")
    rows = []
    for e in diff["entries"]:
        where = (
            f"{_badge(e['kind'], 'kind')} <b class='ids'>{_e(e['name'])}</b>"
            f"<br><span class='mono muted'>{_e(e['logical_id'])}</span>"
        )
        for s in e["added"]:
            rows.append([_badge("added", "advisory"), where, _e(e["who"]), _e(s["summary"])])
        for s in e["removed"]:
            rows.append([_badge("removed", "info"), where, _e(e["who"]), _e(s["summary"])])
        for c in e["changed"]:
            deltas = "<br>".join(
                f"{_e(k.replace('_', ' '))}: <span class='mono'>{_e(_delta_text(v))}</span>"
                for k, v in c.items()
                if k.endswith(("_added", "_removed")) or k == "effect"
            )
            rows.append(
                [
                    _badge("changed", "advisory"),
                    where,
                    _e(e["who"]),
                    deltas + f"<br><span class='muted'>now: {_e(c['summary_after'])}</span>",
                ]
            )
        for key in ("attached_to_added", "attached_to_removed"):
            if e.get(key):
                rows.append([_badge(key.replace("_", " "), "advisory"), where, _e(e["who"]), _e(e[key])])
    if rows:
        out.append(_table(["change", "policy", "who", "what"], rows, table_id="diff-table"))
    return "".join(out)


@renders("html", "rules")
def _rules(d: Mapping[str, Any]) -> str:
    return _table(
        ["rule", "level", "title", "what it checks", "why this level · what to do"],
        [
            [
                f'<span class="mono nowrap">{_e(r["id"])}</span>',
                _level(r["level"]),
                _e(r["title"]),
                _e(r["description"]),
                _e(r["rationale"]),
            ]
            for r in d["rules"]
        ],
        table_id="rules-table",
    )


def render_html(d: Mapping[str, Any]) -> str:
    s = d["summary"]
    word = "FAIL" if s["verdict"] == "fail" else "PASS"
    verdict = _badge(
        word + (" — qualified" if s.get("qualifiers") else ""),
        ("fail" if s["verdict"] == "fail" else "advisory" if s.get("qualifiers") else "pass") + " verdict",
    )
    counts = {"findings": f" ({s['blocking']} blocking, {s['advisory']} advisory)", "inventory": f" ({s['policies']})"}
    toc = "".join(f'<li><a href="#{a}">{escape(t)}</a>{escape(counts.get(a, ""))}</li>' for a, t in SECTIONS)
    body = "".join(f'<section id="{a}"><h2>{escape(t)}</h2>{render(d)}</section>' for a, t, render in renderers("html"))
    title = f"Policy review: {d['config']['name']}"
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        f"<header><h1>{escape(title)} {verdict}</h1>"
        f"<p>{s['blocking']} blocking and {s['advisory']} advisory finding(s) · {s['policies']} policies, "
        f"{s['statements']} statements in {len(s['templates'])} template(s) · {escape(d['config']['mode'])}</p>"
        + (f'<p id="enforced"><strong>{escape(enforced_line(d))}</strong></p>' if enforced_line(d) else "")
        + f'<p id="evidence">{escape(evidence_line(d))}</p>'
        f"{changes_box_html(d)}"
        f"{_qualifiers(d)}"
        f'<p class="mono">{escape(str(d["assembly"]))}</p></header>'
        f'<div class="layout"><nav aria-label="Contents"><h2>Contents</h2><ol>{toc}</ol></nav><main>{body}</main></div>'
        "</body></html>\n"
    )
