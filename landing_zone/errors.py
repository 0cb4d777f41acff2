"""Errors the landing zone reports to people (exit code 2, no traceback)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Problem:
    """One invalid value: where it is, what was received, what is allowed."""

    path: str
    got: object
    allowed: str

    def __str__(self) -> str:
        return f"{self.path}: got {self.got!r}; {self.allowed}"


class LandingZoneError(Exception):
    """Base class for errors shown to the user without a traceback (exit code 2)."""

    exit_code = 2


class ConfigError(LandingZoneError):
    """Every problem found in a configuration, reported together."""

    def __init__(self, problems: Iterable[Problem], *, origin: str = "configuration") -> None:
        self.problems = tuple(problems)
        self.origin = origin
        lines = [f"invalid {origin}: {len(self.problems)} problem(s)"]
        lines += [f"  - {p}" for p in self.problems]
        super().__init__("\n".join(lines))


class CatalogError(LandingZoneError):
    """The shipped catalog or an overlay is inconsistent."""
