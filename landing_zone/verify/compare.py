"""Comparing policy documents and other JSON as IAM reads them, and showing the difference."""

from __future__ import annotations

import difflib
import json
from decimal import Decimal, InvalidOperation
from typing import Any


class Unresolved:
    """A value of the intent that cannot be known offline (e.g. a generated name CloudFormation could not
    tell us).  Checks report an expected value that contains one as ERROR, never as a pass."""

    def __init__(self, why: str) -> None:
        self.why = why

    def __repr__(self) -> str:
        return f"<unresolved: {self.why}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unresolved) and other.why == self.why

    def __hash__(self) -> int:
        return hash(self.why)


def unresolved_in(value: Any) -> list[Unresolved]:
    if isinstance(value, Unresolved):
        return [value]
    if isinstance(value, dict):
        return [u for v in value.values() for u in unresolved_in(v)]
    if isinstance(value, (list, tuple)):
        return [u for v in value for u in unresolved_in(v)]
    return []


def parse_json(value: Any) -> Any:
    """A policy as returned by an API (JSON text) or as written in a template (object)."""
    if isinstance(value, str):
        return json.loads(value)
    return value


def canonical(value: Any) -> Any:
    """IAM-equivalent normal form: lists are sets (sorted, de-duplicated), a one-element list equals its
    element, statement order does not matter, numbers and booleans compare as IAM reads them (strings)."""
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        items = [canonical(v) for v in value]
        unique: dict[str, Any] = {}
        for item in items:
            unique[json.dumps(item, sort_keys=True)] = item
        ordered = [unique[k] for k in sorted(unique)]
        return ordered[0] if len(ordered) == 1 else ordered
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return value


def same_document(expected: Any, actual: Any) -> bool:
    return bool(canonical(parse_json(expected)) == canonical(parse_json(actual)))


def document_diff(expected: Any, actual: Any, *, max_lines: int = 40) -> str:
    """What differs: for policies, the statements only in the synthesized document (``-``) and only in the live
    one (``+``), one compact line each; for other documents a unified diff of the canonical forms."""
    want, got = parse_json(expected), parse_json(actual)
    if isinstance(want, dict) and isinstance(got, dict) and "Statement" in want and "Statement" in got:
        lines = _statement_diff(want, got)
        if len(lines) > max_lines:
            lines = lines[:max_lines] + [f"... ({len(lines) - max_lines} more)"]
        return "\n".join(["(- synthesized only, + live only, ~ changed)"] + lines)
    left = json.dumps(canonical(parse_json(expected)), indent=1, sort_keys=True).splitlines()
    right = json.dumps(canonical(parse_json(actual)), indent=1, sort_keys=True).splitlines()
    lines = list(difflib.unified_diff(left, right, "synthesized", "live", n=1, lineterm=""))
    if len(lines) > max_lines:
        lines = lines[:max_lines] + [f"... ({len(lines) - max_lines} more diff lines)"]
    return "\n".join(lines)


def _statement_diff(want: dict[str, Any], got: dict[str, Any], width: int = 160) -> list[str]:
    lines = []
    if canonical(want.get("Version")) != canonical(got.get("Version")):
        lines.append(f"~ Version: synthesized {want.get('Version')!r}, live {got.get('Version')!r}")
    left = {_compact(s): s for s in _statements(want)}
    right = {_compact(s): s for s in _statements(got)}
    only_left = [left[k] for k in sorted(set(left) - set(right))]
    only_right = [right[k] for k in sorted(set(right) - set(left))]
    right_by_sid = {s.get("Sid"): s for s in only_right if isinstance(s, dict) and s.get("Sid")}
    for statement in only_left:
        sid = statement.get("Sid") if isinstance(statement, dict) else None
        other = right_by_sid.pop(sid, None) if sid else None
        if other is None:
            lines.append(_clip(f"- {sid + ': ' if sid else ''}{_compact(statement)}", width))
            continue
        for key in sorted(set(statement) | set(other)):
            if canonical(statement.get(key)) != canonical(other.get(key)):
                lines.append(_clip(f"~ {sid}.{key}: synthesized {_compact(statement.get(key))}", width))
                lines.append(
                    _clip(f"  {' ' * len(str(sid))} {' ' * len(key)}  live        {_compact(other.get(key))}", width)
                )
    for statement in only_right:
        sid = statement.get("Sid") if isinstance(statement, dict) else None
        if sid is None or sid in right_by_sid:
            lines.append(_clip(f"+ {sid + ': ' if sid else ''}{_compact(statement)}", width))
    return lines


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _statements(policy: dict[str, Any]) -> list[Any]:
    statements = policy.get("Statement")
    return statements if isinstance(statements, list) else [statements]


def _compact(statement: Any) -> str:
    return json.dumps(canonical(statement), sort_keys=True, separators=(",", ":"))


def same_number(expected: Any, actual: Any, *, tolerance: Decimal = Decimal("0.000001")) -> bool:
    try:
        return abs(Decimal(str(expected)) - Decimal(str(actual))) <= tolerance
    except (InvalidOperation, TypeError, ValueError):
        return False


def as_bool(value: Any) -> bool | None:
    """CloudFormation passes booleans to custom resources as strings ("true"/"false")."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return None


def short_hash(document: Any) -> str:
    import hashlib

    text = json.dumps(canonical(parse_json(document)), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:12]
