"""Results of ``verify``: one row per check, a table for people and JSON for machines."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    """``PASS`` is the only status that counts as passing; every other one makes ``verify`` exit 1."""

    PASS = "PASS"
    DRIFT = "DRIFT"  # the resource exists but differs from the synthesized intent
    MISSING = "MISSING"  # the resource was not found
    ERROR = "ERROR"  # could not be checked: API unreachable/unauthorised, or the intent could not be resolved


@dataclass(frozen=True)
class CheckResult:
    check: str  # stable check name, e.g. "scp-attachment"
    resource: str  # what was checked, e.g. "kimi-eu-guardrails-regions -> 222222222222"
    expected: str
    actual: str
    status: Status
    detail: str = ""  # why it differs, a diff, or how the expected value was found
    source: str = ""  # "<stack>/<logical id>" in the assembly, when the intent comes from a resource

    @property
    def passed(self) -> bool:
        return self.status is Status.PASS

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        return data


@dataclass(frozen=True)
class Report:
    landing_zone: str
    assembly: str
    account: str | None
    region: str
    results: tuple[CheckResult, ...]

    @property
    def ok(self) -> bool:
        return bool(self.results) and all(r.passed for r in self.results)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def counts(self) -> dict[str, int]:
        return {s.value: sum(1 for r in self.results if r.status is s) for s in Status}

    def as_dict(self) -> dict[str, Any]:
        return {
            "landing_zone": self.landing_zone,
            "assembly": self.assembly,
            "account": self.account,
            "region": self.region,
            "ok": self.ok,
            "summary": self.counts(),
            "checks": [r.as_dict() for r in self.results],
        }

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), indent=2)

    def text(self, *, widths: Sequence[int] = (30, 46, 40, 40, 7)) -> str:
        rows = [("CHECK", "RESOURCE", "EXPECTED", "ACTUAL", "STATUS")]
        rows += [(r.check, r.resource, r.expected, r.actual, r.status.value) for r in self.results]
        lines = _table(rows, widths=widths)
        counts = self.counts()
        summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
        lines.append("")
        lines.append(
            f"{self.landing_zone} in account {self.account or '?'} ({self.region}): {len(self.results)} check(s): "
            f"{summary or 'none'} -> {'OK' if self.ok else 'NOT OK'}"
        )
        problems = [r for r in self.results if not r.passed and r.detail]
        if problems:
            lines.append("")
            lines.append("details:")
            for r in problems:
                lines.append(f"  {r.status.value} {r.check} {r.resource}" + (f" ({r.source})" if r.source else ""))
                lines.extend("      " + line for line in r.detail.splitlines())
        return "\n".join(lines)


def _clip(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _table(rows: Sequence[Sequence[str]], *, widths: Sequence[int]) -> list[str]:
    clipped = [[_clip(cell, width) for cell, width in zip(row, widths, strict=True)] for row in rows]
    widths = [max(len(row[i]) for row in clipped) for i in range(len(clipped[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in clipped]


def summarize(values: Iterable[str], *, limit: int = 4) -> str:
    """``a, b, c`` or ``a, b, ... (+3)``: short enough for a table cell."""
    items = list(values)
    if not items:
        return "(none)"
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f", ... (+{len(items) - limit})"
