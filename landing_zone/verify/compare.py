"""Comparing policy documents and other JSON as IAM reads them, and showing the difference.

Every policy verify compares (VPC endpoint, KMS key, SNS topic, S3 bucket, role trust, IAM managed and inline
policies, SCPs) goes through :func:`same_document`: statement order, ``Version`` present on one side only, a policy
given as JSON text or as an object, single values vs one-element lists, the order of action/resource/principal lists
and the case of action names do not matter; a statement added, removed or changed does.  :func:`document_diff`
shows the statements that differ as they are written; :func:`short_hash` names a document by its meaning.
"""

from __future__ import annotations

import difflib
import json
from decimal import Decimal, InvalidOperation
from typing import Any

from landing_zone.policies.common import canonical


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


def is_policy(document: Any) -> bool:
    """A policy document (IAM, resource policy, SCP, trust policy): an object with a ``Statement``."""
    return isinstance(document, dict) and "Statement" in document


def normalize_policy(document: Any) -> Any:
    """A policy document as IAM evaluates it, in :func:`canonical` form: parsed from JSON text if need be, the
    statements a set (their order does not matter, one statement equals a one-element list), and in each
    statement action names lower-cased (``Action``/``NotAction`` are case-insensitive) and every list a set.
    Anything that is not a policy is only made :func:`canonical`."""
    doc = parse_json(document)
    if not is_policy(doc):
        return canonical(doc)
    statements = doc["Statement"]
    listed = statements if isinstance(statements, list) else [statements]
    return canonical({**doc, "Statement": [_normal_statement(s) for s in listed]})


def _normal_statement(statement: Any) -> Any:
    if not isinstance(statement, dict):
        return statement
    out = dict(statement)
    for key in ("Action", "NotAction"):
        value = out.get(key)
        if isinstance(value, str):
            out[key] = value.lower()
        elif isinstance(value, list):
            out[key] = [v.lower() if isinstance(v, str) else v for v in value]
    return out


def comparable(expected: Any, actual: Any) -> tuple[Any, Any]:
    """Both documents normalized for comparison.  For two policies a ``Version`` present on one side only is
    dropped (an emulator or an API that omits it does not change the statements); two different versions stay
    different."""
    want, got = normalize_policy(expected), normalize_policy(actual)
    if is_policy(want) and is_policy(got) and ("Version" in want) != ("Version" in got):
        want = {k: v for k, v in want.items() if k != "Version"}
        got = {k: v for k, v in got.items() if k != "Version"}
    return want, got


def same_document(expected: Any, actual: Any) -> bool:
    """Whether two documents (JSON text or objects) are the same as IAM reads them: for policies, statement order,
    ``Version`` present or not, single values vs one-element lists, the order of action/resource/principal lists
    and the case of action names do not matter; a statement added, removed or changed does."""
    want, got = comparable(expected, actual)
    return bool(want == got)


def document_diff(expected: Any, actual: Any, *, max_lines: int = 40) -> str:
    """What differs: for policies, the statements only in the synthesized document (``-``) and only in the live
    one (``+``), one compact line each; for other documents a unified diff of the canonical forms."""
    want, got = comparable(expected, actual)
    if is_policy(want) and is_policy(got):
        lines = _statement_diff(parse_json(expected), parse_json(actual))
        if len(lines) > max_lines:
            lines = lines[:max_lines] + [f"... ({len(lines) - max_lines} more)"]
        return "\n".join(["(- synthesized only, + live only, ~ changed)"] + lines)
    left = json.dumps(want, indent=1, sort_keys=True).splitlines()
    right = json.dumps(got, indent=1, sort_keys=True).splitlines()
    lines = list(difflib.unified_diff(left, right, "synthesized", "live", n=1, lineterm=""))
    if len(lines) > max_lines:
        lines = lines[:max_lines] + [f"... ({len(lines) - max_lines} more diff lines)"]
    return "\n".join(lines)


def _statement_diff(want: dict[str, Any], got: dict[str, Any], width: int = 160) -> list[str]:
    """Statements are matched by their normal form (:func:`normalize_policy`) and shown as written."""
    lines = []
    if "Version" in want and "Version" in got and canonical(want["Version"]) != canonical(got["Version"]):
        lines.append(f"~ Version: synthesized {want.get('Version')!r}, live {got.get('Version')!r}")
    left = {_compact(_normal_statement(s)): s for s in _statements(want)}
    right = {_compact(_normal_statement(s)): s for s in _statements(got)}
    only_left = [left[k] for k in sorted(set(left) - set(right))]
    only_right = [right[k] for k in sorted(set(right) - set(left))]
    right_by_sid = {_sid(s): s for s in only_right if _sid(s)}
    for statement in only_left:
        sid = _sid(statement)
        other = right_by_sid.pop(sid, None) if sid else None
        if other is None:
            lines.append(_clip(f"- {sid + ': ' if sid else ''}{_compact(statement)}", width))
            continue
        lines.extend(_key_diff(statement, other, str(sid), width))
    for statement in only_right:
        sid = _sid(statement)
        if sid is None or sid in right_by_sid:
            lines.append(_clip(f"+ {sid + ': ' if sid else ''}{_compact(statement)}", width))
    return lines


def _sid(statement: Any) -> Any:
    return statement.get("Sid") if isinstance(statement, dict) else None


def _key_diff(statement: dict[str, Any], other: dict[str, Any], sid: str, width: int) -> list[str]:
    """The keys of two statements with the same Sid that differ, each as synthesized and live."""
    lines = []
    normal, other_normal = _normal_statement(statement), _normal_statement(other)
    for key in sorted(set(statement) | set(other)):
        if canonical(normal.get(key)) != canonical(other_normal.get(key)):
            lines.append(_clip(f"~ {sid}.{key}: synthesized {_compact(statement.get(key))}", width))
            lines.append(_clip(f"  {' ' * len(sid)} {' ' * len(key)}  live        {_compact(other.get(key))}", width))
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

    text = json.dumps(normalize_policy(document), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:12]
