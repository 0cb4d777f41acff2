"""The auditor's sections (issue 34) for the Markdown and HTML reports: one builder per section turns the report
model into paragraphs and tables of plain text (``Block``), and one writer per format renders them, so the two
reports cannot say different things.  Registered with ``sections.renders`` like every other section.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from landing_zone.review.sections import renders

__all__ = ["Block", "BUILDERS", "changes_box_html", "claims_line", "html_block", "md_block"]


@dataclass(frozen=True)
class Table:
    table_id: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Block:
    """A section as paragraphs, then tables, then closing paragraphs."""

    intro: tuple[str, ...] = ()
    tables: tuple[Table, ...] = ()
    outro: tuple[str, ...] = field(default=())


def _j(values: Sequence[Any] | None, sep: str = ", ") -> str:
    return sep.join(str(v) for v in values or []) or "-"


def claims_line(d: Mapping[str, Any]) -> str:
    """The first screen's one sentence about the guarantees, from the claims (who each binds), never from prose."""
    claims = d.get("claims") or []
    if not claims:
        return ""
    everyone = [c["claim"] for c in claims if c["binds"] == "all-principals"]
    invokers = [c["claim"] for c in claims if c["binds"] == "invoker-roles"]
    nobody = [c["claim"] for c in claims if c["binds"] == "none"]
    gaps = [g for c in claims if c["id"] == "invocation-logging" for g in c["not_covered"][:1]]
    out = []
    if everyone:
        out.append("For every principal of the governed accounts: " + "; ".join(everyone) + ".")
    if invokers:
        out.append("For the invoker roles only: " + "; ".join(invokers) + ".")
    if nobody:
        out.append("UNENFORCED: " + "; ".join(nobody) + ".")
    if gaps:
        out.append("Not logged: " + gaps[0] + ".")
    return " ".join(out)


def _regions(regions: Sequence[str], limit: int = 8) -> str:
    if len(regions) <= limit:
        return _j(regions)
    return f"{len(regions)} Regions: {_j(regions[:3])} ... {_j(regions[-2:])}"


def _who_invokes(d: Mapping[str, Any]) -> str:
    q = next((q for q in (d.get("signoff") or {}).get("questions", []) if q["id"] == "invokers"), None)
    return f"Who can invoke: {q['short']}" if q and q.get("short") else ""


def changes_box_html(d: Mapping[str, Any]) -> str:
    """The change since the last approval for the HTML header (the first screen): each weakening, then the moves."""
    ch = d.get("changes")
    if not ch:
        return (
            '<p id="changes-summary" class="muted">Changes since the last approval: no baseline given '
            "(--baseline OLD_CDK_OUT).</p>"
        )
    weak = [c for c in ch["changes"] if c["weakening"]]
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td>{escape(x)}</td>"
            for x in (
                c["change"],
                f"{c['kind']} {c['policy']}" + (f" / {c['sid']}" if c["sid"] else ""),
                c["detail"],
                f"acknowledged by {c['acknowledged']['by']}, {c['acknowledged']['date']}"
                if c["acknowledged"]
                else "NOT acknowledged",
            )
        )
        + "</tr>"
        for c in weak
    )
    head = (
        f"Changes since {escape(ch['baseline'])}: {len(weak)} weakening(s), {ch['unacknowledged']} not acknowledged, "
        f"{len(ch['moved'])} statement(s) moved, {len(ch['changes']) - len(weak)} other change(s) "
        '(<a href="#changes">details</a>)'
    )
    table = (
        '<table id="changes-summary-table"><thead><tr><th>change</th><th>where</th><th>what weakens</th>'
        f"<th>acknowledgement</th></tr></thead><tbody>{rows}</tbody></table>"
        if rows
        else ""
    )
    return f'<div id="changes-summary"><p><strong>{head}</strong></p>{table}</div>'


def _residency(d: Mapping[str, Any]) -> Block:
    r = d["residency"]
    denied = [p for p in r["paths"] if not p["allowed"]]
    rows = tuple(
        (
            p["path"],
            p["invoke_id"],
            _j(p["starts_in"]),
            _j(p["processed_in"]),
            p["summary"],
            f"{p['log_retention']}; Object Lock: {p['object_lock']}" if p["logged"] else "-",
            _j(p["readers"], "; "),
        )
        for p in r["paths"]
        if p["allowed"]
    )
    return Block(
        intro=(
            f"Compliant Regions {_j(r['compliant_regions'])}; inference starts only in {_j(r['source_regions'])}. "
            f"Data retention mode: {r['retention_mode']}.",
            _who_invokes(d),
        ),
        outro=(
            "Denied paths: "
            + _j([f"{p['path']} {p['invoke_id']} ({_regions(p['processed_in'], 4)})" for p in denied], "; "),
        )
        if denied
        else (),
        tables=(
            Table(
                "residency-table",
                (
                    "allowed path",
                    "model or profile",
                    "starts in",
                    "processed in",
                    "logged",
                    "kept",
                    "readers",
                ),
                rows,
            ),
        ),
    )


def _claims(d: Mapping[str, Any]) -> Block:
    rows = tuple(
        (
            c["claim"],
            _j([f"{e['kind']} {e['policy']}" + (f" / {e['sid']}" if e["sid"] else "") for e in c["enforced_by"]], "; "),
            c["binds_text"],
            f"{c['evidence']}: {c['evidence_text']}",
            (f"{c['simulated'].upper()} ({_j(c['simulated_by'])})" if c["simulated"] else "-")
            + (f" — {c['violation']['what']}, by {c['simulated_for']}" if c["violation"] else ""),
            _j(
                c["not_covered"] + ([c["what_the_configuration_does"]] if c["what_the_configuration_does"] else []),
                "; ",
            ),
        )
        for c in d["claims"]
    )
    return Block(
        intro=(
            "Each claim with the statements that enforce it, for whom, and how sure the review is (proven for every "
            "request, sampled, or only configured). The request that would break it is replayed through the simulator "
            "against the synthesized guardrails.",
        ),
        tables=(
            Table(
                "claims-table",
                (
                    "claim",
                    "enforced by",
                    "for whom",
                    "evidence",
                    "the request that would break it (simulated)",
                    "not covered",
                ),
                rows,
            ),
        ),
    )


def _changes(d: Mapping[str, Any]) -> Block:
    ch = d.get("changes")
    if not ch:
        return Block(intro=("No baseline given (--baseline OLD_CDK_OUT compares with the last approved assembly).",))
    rows = tuple(
        (
            "WEAKENS" if c["weakening"] else "change",
            c["change"],
            f"{c['kind']} {c['policy']}" + (f" / {c['sid']}" if c["sid"] else ""),
            c["detail"],
            (f"acknowledged by {c['acknowledged']['by']} on {c['acknowledged']['date']}: {c['acknowledged']['reason']}")
            if c["acknowledged"]
            else ("NOT acknowledged: " + c["id"] if c["weakening"] else "-"),
        )
        for c in sorted(d["changes"]["changes"], key=lambda c: (not c["weakening"], c["id"]))
    )
    moved = tuple(
        (m["sid"], m["from"], m["to"], "same content" if m["same"] else "content changed") for m in ch["moved"]
    )
    return Block(
        intro=(
            f"Since {ch['baseline']}: {len(ch['changes'])} change(s), {ch['weakenings']} weakening(s), "
            f"{ch['unacknowledged']} not acknowledged; {len(ch['moved'])} statement(s) moved between policies.",
        ),
        tables=tuple(
            t
            for t in (
                Table("changes-table", ("", "change", "where", "what", "acknowledgement"), rows) if rows else None,
                Table("moved-table", ("statement", "from", "to", ""), moved) if moved else None,
            )
            if t is not None
        ),
    )


def _change_control(d: Mapping[str, Any]) -> Block:
    rows = tuple(
        (
            r["what"],
            _j(r["who_can_change"], "; "),
            _j(r["how_we_would_know"]["cloudtrail"]) + f" in {r['how_we_would_know']['trail']}",
            _j(r["how_we_would_know"]["verify"], "; "),
            r["residual"],
        )
        for r in d["change_control"]
    )
    return Block(
        tables=(
            Table(
                "change-control-table",
                ("guardrail or resource", "who can change it", "CloudTrail events", "verify", "residual"),
                rows,
            ),
        )
    )


def _residual(d: Mapping[str, Any]) -> Block:
    rows = tuple(
        (r["id"], r["title"], r["summary"], r["owner"], r["source"], r["accepted_by"] or " ", r["accepted_on"] or " ")
        for r in d["residual_risks"]
    )
    return Block(
        intro=("Every residual risk, with its owner; the approver fills in who accepted it and when.",),
        tables=(
            Table("residual-table", ("id", "risk", "what remains", "owner", "source", "accepted by", "date"), rows),
        ),
    )


def _mapping(d: Mapping[str, Any]) -> Block:
    m = d["control_mapping"]
    rows = tuple(
        (r["control"], _j(r["gdpr"], "; "), _j(r["iso27001"], "; "), _j(r["nist80053"], "; "), _j(r["ai_act"], "; "))
        for r in m["rows"]
    )
    sources = tuple(f"{k}: {v['title']}, {v['url']}" for k, v in m["sources"].items())
    return Block(
        intro=(
            "Which requirement each control contributes to (not that it meets it alone). The EU AI Act rows apply "
            "where the application built on the model is a high-risk AI system.",
        ),
        tables=(
            Table("mapping-table", ("control", "GDPR", "ISO/IEC 27001:2022", "NIST SP 800-53 r5", "EU AI Act"), rows),
        ),
        outro=sources,
    )


def _signoff(d: Mapping[str, Any]) -> Block:
    s = d["signoff"]
    rows = tuple((q["question"], q["answer"], f"section {q['section']}") for q in s["questions"])
    fields = tuple((k.replace("_", " "), " ") for k in s["approver"])
    return Block(
        tables=(
            Table("signoff-table", ("question", "answer (from the JSON)", "details"), rows),
            Table("approver-table", ("approver", ""), fields),
        )
    )


BUILDERS: dict[str, Callable[[Mapping[str, Any]], Block]] = {
    "residency": _residency,
    "claims": _claims,
    "changes": _changes,
    "change-control": _change_control,
    "residual-risks": _residual,
    "control-mapping": _mapping,
    "signoff": _signoff,
}


def _md_cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").strip() or " "


def md_block(block: Block) -> list[str]:
    out: list[str] = []
    for p in block.intro:
        out += [p, ""] if p else []
    for t in block.tables:
        out += ["| " + " | ".join(t.headers) + " |", "|" + "|".join("---" for _ in t.headers) + "|"]
        out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in t.rows] + [""]
    for p in block.outro:
        out += [f"- {p}"]
    return out + ([""] if block.outro else [])


def html_block(block: Block) -> str:
    out = [f"<p>{escape(p)}</p>" for p in block.intro if p]
    for t in block.tables:
        head = "".join(f"<th>{escape(h)}</th>" for h in t.headers)
        body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in t.rows)
        out.append(
            f'<div class="scroll"><table id="{t.table_id}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
        )
    if block.outro:
        out.append("<ul class='facts'>" + "".join(f"<li>{escape(p)}</li>" for p in block.outro) + "</ul>")
    return "".join(out)


def _md_writer(build: Callable[[Mapping[str, Any]], Block]) -> Callable[[Mapping[str, Any]], list[str]]:
    return lambda d: md_block(build(d))


def _html_writer(build: Callable[[Mapping[str, Any]], Block]) -> Callable[[Mapping[str, Any]], str]:
    return lambda d: html_block(build(d))


def _register() -> None:
    for anchor, build in BUILDERS.items():
        renders("md", anchor)(_md_writer(build))
        renders("html", anchor)(_html_writer(build))


_register()
