"""What ``preflight`` reports: findings (a conflict, something it could not read, or a note), the slot count of
each target, and the SCPs that apply to each governed account."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["Finding", "Report", "Severity", "SlotRow"]


class Severity(StrEnum):
    CONFLICT = "conflict"  # the deploy would fail, or break or take over what someone else owns: exit 1
    UNCHECKED = "unchecked"  # could not be read or evaluated: exit 1 (preflight never vouches for what it did not see)
    NOTE = "note"  # what is there and what the deploy does with it: nothing to resolve

    @property
    def blocks(self) -> bool:
        return self is not Severity.NOTE


@dataclass(frozen=True)
class Finding:
    check: str  # stable name: scp-slots, region-route, invocation-logging, ...
    where: str  # "account 222222222222 eu-central-1", "target ou-abcd-11111111", "organization"
    found: str  # what is there
    deploy: str  # what the deploy would do with it
    resolve: str  # how to resolve it ("" for a note)
    severity: Severity

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["severity"] = self.severity.value
        return data


@dataclass(frozen=True)
class SlotRow:
    """One target's directly attached SCPs after the deploy (inherited ones take no slot of it)."""

    target: str
    kinds: dict[str, list[str]]  # kind -> policy names attached directly today (the landing zone's earlier ones aside)
    landing_zone: list[str]  # the landing zone's SCPs the deploy attaches here
    quota: int

    @property
    def total(self) -> int:
        return sum(len(v) for v in self.kinds.values()) + len(self.landing_zone)

    @property
    def over(self) -> int:
        return max(0, self.total - self.quota)

    def as_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "attached": self.kinds,
            "landing_zone": self.landing_zone,
            "total": self.total,
            "quota": self.quota,
            "over_by": self.over,
        }


@dataclass(frozen=True)
class Report:
    landing_zone: str
    findings: tuple[Finding, ...]
    slots: tuple[SlotRow, ...] = ()
    # account -> [(level target, policy name, kind)], root first: every SCP that applies to the account
    applying: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)

    @property
    def blocking(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity.blocks)

    @property
    def exit_code(self) -> int:
        return 1 if self.blocking else 0

    def counts(self) -> dict[str, int]:
        return {s.value: sum(1 for f in self.findings if f.severity is s) for s in Severity}

    def as_dict(self) -> dict[str, Any]:
        return {
            "landing_zone": self.landing_zone,
            "ok": not self.blocking,
            "summary": self.counts(),
            "findings": [f.as_dict() for f in self.findings],
            "slots": [row.as_dict() for row in self.slots],
            "scps_applying": {
                account: [{"target": t, "policy": name, "kind": kind} for t, name, kind in rows]
                for account, rows in self.applying.items()
            },
        }
