"""The change since the last approval (``--baseline``), in plain words, and what weakens (issue 34).

Statements are matched by Sid and content, not by policy: the guardrail SCPs (and RCPs) are one pool, so a statement
that only moves from one SCP to another is *moved* (and shown so in the policy diff), never removed plus added.  Other
policies are matched within themselves (by Sid, or position without one).  A change *weakens* when:

* a Deny is removed (and not moved), or its reach shrinks: actions or resources dropped, ``NotAction`` /
  ``NotResource`` grown, a negated condition's values grown (an exemption widened: ``ArnNotLike aws:PrincipalARN``),
  a positive condition's values dropped or a new condition added;
* an Allow is added, or its reach grows: actions, resources or principals added, a condition dropped (a new path or
  a new principal);
* a guardrail SCP loses a target.

Each weakening is a blocking finding (``LZ-BASELINE-WEAKENING``) until acknowledged, by its ``id``, in the file given
with ``--acknowledge`` (``[{id, reason, by, date}]``); acknowledged ones qualify the verdict instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from landing_zone.errors import LandingZoneError
from landing_zone.review.findings import Finding, finding
from landing_zone.review.inventory import PolicyRecord, statements_of
from landing_zone.review.rules import BLOCKING, define

__all__ = ["baseline_findings", "changes_section", "load_acknowledgements", "mark_moved"]

POOLED = ("scp", "rcp")  # matched across policies: a statement may move between them
NEGATED = ("StringNotEquals", "StringNotLike", "ArnNotLike", "ArnNotEquals", "StringNotEqualsIgnoreCase")

BASELINE_WEAKENING = define(
    "LZ-BASELINE-WEAKENING",
    BLOCKING,
    "A change since the baseline weakens a control, and nobody acknowledged it",
    "With --baseline: a Deny removed or narrowed (an exemption widened), an Allow added or widened (a new path or "
    "principal), or a guardrail SCP detached from a target, not listed in the --acknowledge file.",
    "What was approved no longer holds: review the change, then acknowledge it by its id with a reason, who and when "
    "(--acknowledge), or revert it. The verdict cannot stay PASS over an unacknowledged weakening.",
)


def _list(value: Any) -> list[str]:
    if value is None:
        return []
    return sorted(str(v) for v in value) if isinstance(value, (list, tuple)) else [str(value)]


def _canon(stmt: Mapping[str, Any]) -> str:
    def norm(v: Any) -> Any:
        if isinstance(v, Mapping):
            return {str(k): norm(x) for k, x in sorted(v.items())}
        if isinstance(v, list):
            return sorted((norm(x) for x in v), key=lambda x: json.dumps(x, sort_keys=True))
        return v

    return json.dumps(norm(dict(stmt)), sort_keys=True)


def _pool(records: Iterable[PolicyRecord]) -> dict[tuple[str, str, str], tuple[PolicyRecord, Mapping[str, Any]]]:
    """(group, scope, label) -> (policy, statement); the SCPs share one scope."""
    out: dict[tuple[str, str, str], tuple[PolicyRecord, Mapping[str, Any]]] = {}
    for r in records:
        for i, s in enumerate(statements_of(r.document)):
            label = f"sid:{s['Sid']}" if s.get("Sid") else f"#{i}"
            scope = "" if r.kind in POOLED and s.get("Sid") else r.id
            out[(r.kind if r.kind in POOLED else "policy", scope, label)] = (r, s)
    return out


def _conditions(stmt: Mapping[str, Any]) -> dict[tuple[str, str], set[str]]:
    return {
        (str(op), str(key)): set(_list(values))
        for op, keys in (stmt.get("Condition") or {}).items()
        if isinstance(keys, Mapping)
        for key, values in keys.items()
    }


def _principals(stmt: Mapping[str, Any]) -> set[str]:
    p = stmt.get("Principal")
    if p is None:
        return set()
    if isinstance(p, str):
        return {p}
    return {f"{k}: {v}" for k, vs in p.items() for v in _list(vs)}


def _deny_narrowed(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    out = []
    for key, what in (("Action", "no longer denies"), ("Resource", "no longer denies on")):
        gone = set(_list(old.get(key))) - set(_list(new.get(key)))
        if gone and new.get(key) != "*":
            out.append(f"{what} {', '.join(sorted(gone))}")
    for key, what in (("NotAction", "now exempts actions"), ("NotResource", "now exempts resources")):
        grown = set(_list(new.get(key))) - set(_list(old.get(key)))
        if grown:
            out.append(f"{what} {', '.join(sorted(grown))}")
    before, after = _conditions(old), _conditions(new)
    for (op, key), values in after.items():
        if (op, key) not in before:
            out.append(f"a new condition {op} {key} narrows the deny")
        elif op.startswith(NEGATED) or op.removeprefix("ForAllValues:").startswith(NEGATED):
            grown = values - before[(op, key)]
            if grown:
                word = "exemption widened" if key.lower() == "aws:principalarn" else "exception widened"
                out.append(f"{word}: {op} {key} adds {', '.join(sorted(grown))}")
        else:
            gone = before[(op, key)] - values
            if gone:
                out.append(f"{op} {key} no longer matches {', '.join(sorted(gone))}")
    return out


def _allow_widened(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    out = []
    for key, what in (("Action", "allows actions"), ("Resource", "allows on"), ("NotAction", "allows all but")):
        grown = set(_list(new.get(key))) - set(_list(old.get(key)))
        if grown:
            out.append(f"{what} {', '.join(sorted(grown))}")
    added = _principals(new) - _principals(old)
    if added:
        out.append(f"new principal(s) {', '.join(sorted(added))}")
    gone = set(_conditions(old)) - set(_conditions(new))
    if gone:
        out.append(f"condition(s) dropped: {', '.join(f'{op} {key}' for op, key in sorted(gone))}")
    return out


def _change(
    kind: str, record: PolicyRecord, stmt: Mapping[str, Any], what: str, detail: str, weak: bool
) -> dict[str, Any]:
    sid = str(stmt.get("Sid") or "")
    who = "scps" if kind == "scp" else record.name  # the SCPs are one pool: a move keeps the id
    return {
        "id": f"{record.kind}/{who}/{sid or record.logical_id}/{what}",
        "kind": record.kind,
        "policy": record.name,
        "sid": sid,
        "change": what,
        "detail": detail,
        "weakening": weak,
    }


def _compare(
    old: Mapping[tuple[str, str, str], tuple[PolicyRecord, Mapping[str, Any]]],
    new: Mapping[tuple[str, str, str], tuple[PolicyRecord, Mapping[str, Any]]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    changes, moved = [], []
    for key in sorted(set(old) | set(new)):
        kind = key[0]
        if key not in new:
            r, s = old[key]
            deny = s.get("Effect") == "Deny"
            changes.append(_change(kind, r, s, "removed", "a deny is gone" if deny else "an allow is gone", deny))
            continue
        if key not in old:
            r, s = new[key]
            allow = s.get("Effect") == "Allow"
            changes.append(_change(kind, r, s, "added", "a new allow" if allow else "a new deny", allow))
            continue
        (ro, so), (rn, sn) = old[key], new[key]
        if ro.id != rn.id:
            moved.append(
                {"sid": str(sn.get("Sid", "")), "from": ro.name, "to": rn.name, "same": _canon(so) == _canon(sn)}
            )
        if _canon(so) == _canon(sn):
            continue
        if so.get("Effect") != sn.get("Effect"):
            changes.append(_change(kind, rn, sn, "effect", f"{so.get('Effect')} -> {sn.get('Effect')}", True))
            continue
        reasons = _deny_narrowed(so, sn) if sn.get("Effect") == "Deny" else _allow_widened(so, sn)
        changes.append(_change(kind, rn, sn, "changed", "; ".join(reasons) or "changed, not weaker", bool(reasons)))
    return changes, moved


def _targets(records: Iterable[PolicyRecord]) -> set[str]:
    return {t for r in records if r.kind == "scp" for t in r.applies_to.replace(" and ", ", ").split(", ") if t}


def load_acknowledgements(path: Path | None) -> dict[str, dict[str, Any]]:
    """``--acknowledge`` file: a YAML list of {id, reason, by, date}; every field required."""
    if path is None:
        return {}
    try:
        items = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    except (OSError, yaml.YAMLError) as exc:
        raise LandingZoneError(f"--acknowledge {path}: cannot read it: {exc}") from None
    problems = []
    out = {}
    for i, item in enumerate(items if isinstance(items, list) else [items]):
        missing = [k for k in ("id", "reason", "by", "date") if not isinstance(item, Mapping) or not item.get(k)]
        if missing:
            problems.append(f"[{i}]: missing {', '.join(missing)} (each entry needs id, reason, by and date)")
            continue
        out[str(item["id"])] = {k: str(item[k]) for k in ("reason", "by", "date")}
    if problems:
        raise LandingZoneError(f"--acknowledge {path}: " + "; ".join(problems))
    return out


def changes_section(
    old: Sequence[PolicyRecord], new: Sequence[PolicyRecord], acks: Mapping[str, Mapping[str, Any]], label: str
) -> dict[str, Any]:
    changes, moved = _compare(_pool(old), _pool(new))
    lost = sorted(_targets(old) - _targets(new))
    if lost:
        changes.append(
            {
                "id": f"scp/targets/{','.join(lost)}/detached",
                "kind": "scp",
                "policy": "guardrail SCPs",
                "sid": "",
                "change": "detached",
                "detail": f"no longer attached to {', '.join(lost)}",
                "weakening": True,
            }
        )
    for c in changes:
        c["acknowledged"] = acks.get(c["id"])
    weak = [c for c in changes if c["weakening"]]
    return {
        "baseline": label,
        "changes": changes,
        "moved": moved,
        "weakenings": len(weak),
        "unacknowledged": sum(c["acknowledged"] is None for c in weak),
        "unused_acknowledgements": sorted(set(acks) - {c["id"] for c in changes}),
    }


def baseline_findings(section: Mapping[str, Any] | None) -> list[Finding]:
    if not section:
        return []
    return [
        finding(
            BASELINE_WEAKENING,
            f"{c['change']} {c['kind']} {c['policy']}{' / ' + c['sid'] if c['sid'] else ''}: {c['detail']} "
            f"(acknowledge as id {c['id']!r})",
            element=c["id"],
        )
        for c in section["changes"]
        if c["weakening"] and c["acknowledged"] is None
    ]


def _still_differs(entry: Mapping[str, Any]) -> bool:
    """Whether a diff entry still shows a difference once the moved statements are taken out of it."""
    if entry["status"] != "changed":
        return True
    return any(entry.get(key) for key in ("added", "removed", "changed", "attached_to_added", "attached_to_removed"))


def mark_moved(diff: dict[str, Any], moved: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The policy diff with the statements that only moved between SCPs taken out of added/removed and listed as
    moved (``diff["moved"]``)."""
    same = {(m["sid"], m["from"], m["to"]) for m in moved if m["same"]}
    sids_from = {(sid, a) for sid, a, _ in same}
    sids_to = {(sid, b) for sid, _, b in same}
    for e in diff["entries"]:
        e["removed"] = [s for s in e["removed"] if (s.get("sid"), e["name"]) not in sids_from]
        e["added"] = [s for s in e["added"] if (s.get("sid"), e["name"]) not in sids_to]
    diff["entries"] = [e for e in diff["entries"] if _still_differs(e)]
    diff["moved"] = [dict(m) for m in moved]
    diff["statements_added"] = sum(len(e["added"]) for e in diff["entries"])
    diff["statements_removed"] = sum(len(e["removed"]) for e in diff["entries"])
    diff["policies_changed"] = sum(e["status"] == "changed" for e in diff["entries"])
    return diff
