"""``preflight``'s report for people (text) and machines (``--json``)."""

from __future__ import annotations

import json
import textwrap

from landing_zone.preflight.model import Report, Severity, SlotRow
from landing_zone.preflight.organization import (
    CONTROL_TOWER,
    CUSTOMER,
    FULL_AWS_ACCESS,
    LANDING_ZONE_ACCELERATOR,
)

__all__ = ["to_json", "to_text"]

WIDTH = 116
COLUMNS = (
    (FULL_AWS_ACCESS, "FullAWSAccess"),
    (CONTROL_TOWER, "Control Tower"),
    (LANDING_ZONE_ACCELERATOR, "LZA"),
    (CUSTOMER, "yours"),
)


def to_json(report: Report) -> str:
    return json.dumps(report.as_dict(), indent=2)


def _wrap(label: str, text: str) -> list[str]:
    return _lines(text, f"  {label:<8} ", " " * 11) or [f"  {label}"]


def _lines(text: str, first: str, rest: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False)


def _slot_table(rows: tuple[SlotRow, ...]) -> list[str]:
    header = ["TARGET", *(title for _, title in COLUMNS), "landing zone", "TOTAL", "QUOTA", ""]
    body = [
        [
            row.target,
            *(str(len(row.kinds.get(kind, []))) for kind, _ in COLUMNS),
            str(len(row.landing_zone)),
            str(row.total),
            str(row.quota),
            f"over by {row.over}" if row.over else "fits",
        ]
        for row in rows
    ]
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in [header, *body]]


def to_text(report: Report) -> str:
    counts = report.counts()
    verdict = (
        "NOT OK: resolve the conflicts above before deploying" if report.blocking else "OK: nothing blocks the deploy"
    )
    lines: list[str] = []
    for finding in report.findings:
        if finding.severity is Severity.NOTE:
            continue
        lines.append(f"{finding.severity.value.upper()} {finding.check}: {finding.where}")
        lines += _wrap("found", finding.found)
        lines += _wrap("deploy", finding.deploy)
        lines += _wrap("resolve", finding.resolve)
        lines.append("")
    if report.slots:
        lines.append("SCPs attached directly to each target after the deploy (inherited ones take no slot):")
        lines += ["  " + line for line in _slot_table(report.slots)]
        lines.append("")
    if report.applying:
        lines.append("SCPs that apply to each governed account (root first):")
        for account, rows in report.applying.items():
            text = "; ".join(f"{name} ({kind}, {target})" for target, name, kind in rows) or "none (management account)"
            lines += _lines(text, f"  {account}: ", " " * 16)
        lines.append("")
    notes = [f for f in report.findings if f.severity is Severity.NOTE]
    if notes:
        lines.append("left as they are, or what the deploy does with them:")
        for note in notes:
            text = f"{note.check}: {note.where}: {note.found} -> {note.deploy}"
            lines += _lines(text, "  ", "    ")
        lines.append("")
    summary = ", ".join(f"{n} {s}" for s, n in counts.items())
    lines.append(f"preflight of {report.landing_zone}: {summary} -> {verdict}")
    return "\n".join(lines)
