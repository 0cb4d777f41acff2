"""The HTML report's building blocks (:mod:`landing_zone.review.render_html`): its inline style sheet, escaping,
badges and tables."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

__all__ = ["CSS", "_badge", "_decision", "_e", "_level", "_slug", "_table"]

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
