"""Errors the landing zone reports to people (exit code 2, no traceback)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

MAX_SHOWN_CHARACTERS = 200  # an echoed value is cut to this many characters
MAX_SHOWN_PROBLEMS = 50  # a ConfigError lists this many problems, then says how many more there are


class Described(str):
    """A value shown as words rather than as a Python literal: ``got a file of 3,000,000 bytes``."""

    def __repr__(self) -> str:
        return str(self)


def shown(value: Any, limit: int = MAX_SHOWN_CHARACTERS) -> str:
    """``repr(value)`` for a message: bounded in depth and width, cut to ``limit`` characters.

    Safe for hostile values: deeply nested or huge containers, and integers too long for ``repr``."""
    text = _bounded_repr(value, depth=4)
    if len(text) > limit:
        size = f" ({len(value):,} characters)" if isinstance(value, str) and not isinstance(value, Described) else ""
        text = f"{text[: limit - 1]}…{size}"
    return text


def _bounded_repr(value: Any, depth: int) -> str:
    if isinstance(value, Described):
        return str(value)
    if value is None or isinstance(value, bool):  # spelled as in YAML and JSON, where the values come from
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, Mapping):
        if depth <= 0:
            return "{…}"
        items = list(value.items())
        body = ", ".join(f"{_bounded_repr(k, 0)}: {_bounded_repr(v, depth - 1)}" for k, v in items[:10])
        return "{" + body + (", …" if len(items) > 10 else "") + "}"
    if isinstance(value, (list, tuple)):
        if depth <= 0:
            return "[…]"
        body = ", ".join(_bounded_repr(v, depth - 1) for v in value[:10])
        return "[" + body + (", …" if len(value) > 10 else "") + "]"
    if isinstance(value, str) and len(value) > 10 * MAX_SHOWN_CHARACTERS:
        return repr(value[: 10 * MAX_SHOWN_CHARACTERS])  # shown() cuts it further and says how long it was
    try:
        return repr(value)
    except (ValueError, RecursionError):  # e.g. an int beyond the 4,300-digit conversion limit
        return f"<{type(value).__name__} too large to show>"


@dataclass(frozen=True)
class Problem:
    """One invalid value: where it is, what was received, what is allowed."""

    path: str
    got: object
    allowed: str

    def __str__(self) -> str:
        return f"{self.path}: got {shown(self.got)}; {self.allowed}"


class LandingZoneError(Exception):
    """Base class for errors shown to the user without a traceback (exit code 2)."""

    exit_code = 2


class ConfigError(LandingZoneError):
    """Every problem found in a configuration, reported together (the first MAX_SHOWN_PROBLEMS of them)."""

    def __init__(self, problems: Iterable[Problem], *, origin: str = "configuration") -> None:
        unique: dict[str, Problem] = {}
        for problem in problems:
            unique.setdefault(str(problem), problem)
        self.problems = tuple(unique.values())
        self.origin = origin
        lines = [f"invalid {origin}: {len(self.problems)} problem(s)"]
        lines += [f"  - {p}" for p in self.problems[:MAX_SHOWN_PROBLEMS]]
        if len(self.problems) > MAX_SHOWN_PROBLEMS:
            lines.append(f"  ... and {len(self.problems) - MAX_SHOWN_PROBLEMS} more (fix these first)")
        super().__init__("\n".join(lines))


class CatalogError(LandingZoneError):
    """The shipped catalog or an overlay is inconsistent."""


class PricingError(LandingZoneError, ValueError):
    """Invalid price data or cost input.  The message names the field, the value got and what is allowed."""

    def __init__(self, field_name: str, value: object, allowed: str, hint: str | None = None) -> None:
        self.field = field_name
        self.value = value
        self.allowed = allowed
        self.hint = hint
        message = f"{field_name}: got {value!r}; allowed: {allowed}"
        if hint:
            message += f". {hint}"
        super().__init__(message)


class CostAlarmError(PricingError):
    """Invalid alarm input or metric catalog.  Like every PricingError: names the field, the value and what is
    allowed."""
