"""Policy diff between two assemblies: access added and removed, per policy and principal.

Policies are matched by ``PolicyRecord.id`` (stack / logical ID / property path: CDK logical IDs are stable).
Within a policy, identical statements (compared canonically: lists sorted) are unchanged; statements with the
same Sid (or, without a Sid, the same position) that differ are *changed* and reported element by element —
actions, resources, principals and conditions added or removed, effect changed; the rest are added or removed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from landing_zone.review.inventory import PolicyRecord, statements_of
from landing_zone.review.summarize import as_list, condition_clauses, principal_entries, summarize_statement

__all__ = ["policy_diff"]


def _canonical(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, list):
        items = [_canonical(v) for v in value]
        return (
            sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
            if all(isinstance(v, (str, int, float, bool)) for v in items)
            else items
        )
    return value


def _key(stmt: Mapping[str, Any]) -> str:
    return json.dumps(_canonical({k: v for k, v in stmt.items() if k != "Sid"}), sort_keys=True)


def _principals(stmt: Mapping[str, Any]) -> list[str]:
    element = "Principal" if "Principal" in stmt else "NotPrincipal"
    prefix = "" if element == "Principal" else "not "
    return [f"{prefix}{kind}: {value}" for kind, value in principal_entries(stmt.get(element))]


def _delta(old: list[str], new: list[str]) -> tuple[list[str], list[str]]:
    return sorted(set(new) - set(old)), sorted(set(old) - set(new))


def _changed(
    record: PolicyRecord, old: Mapping[str, Any], new: Mapping[str, Any], old_i: int, new_i: int
) -> dict[str, Any]:
    out: dict[str, Any] = {"sid": str(new.get("Sid", "")), "old_index": old_i, "new_index": new_i}
    if old.get("Effect") != new.get("Effect"):
        out["effect"] = {"from": old.get("Effect"), "to": new.get("Effect")}
    pairs = {
        "actions": (as_list(old.get("Action")), as_list(new.get("Action"))),
        "not_actions": (as_list(old.get("NotAction")), as_list(new.get("NotAction"))),
        "resources": (as_list(old.get("Resource")), as_list(new.get("Resource"))),
        "not_resources": (as_list(old.get("NotResource")), as_list(new.get("NotResource"))),
        "principals": (_principals(old), _principals(new)),
        "conditions": (condition_clauses(old.get("Condition")), condition_clauses(new.get("Condition"))),
    }
    for name, (before, after) in pairs.items():
        added, removed = _delta(before, after)
        if added:
            out[f"{name}_added"] = added
        if removed:
            out[f"{name}_removed"] = removed
    out["summary_before"] = summarize_statement(record, old, old_i).text
    out["summary_after"] = summarize_statement(record, new, new_i).text
    return out


def _statement_entry(record: PolicyRecord, stmt: Mapping[str, Any], index: int) -> dict[str, Any]:
    return {**summarize_statement(record, stmt, index).as_dict(), "statement": _canonical(dict(stmt))}


def _compare(old_rec: PolicyRecord, new_rec: PolicyRecord) -> dict[str, Any] | None:
    old = list(enumerate(statements_of(old_rec.document)))
    new = list(enumerate(statements_of(new_rec.document)))
    old_left = dict(old)
    new_left = dict(new)
    for i, s in old:  # identical statements: unchanged
        match = next((j for j, t in new_left.items() if _key(t) == _key(s)), None)
        if match is not None:
            del old_left[i], new_left[match]
    changed = []

    def label(i: int, s: Mapping[str, Any]) -> str:
        return f"sid:{s['Sid']}" if s.get("Sid") else f"#{i}"

    new_by_label = {label(j, t): j for j, t in new_left.items()}
    for i, s in sorted(old_left.items()):
        j = new_by_label.get(label(i, s))
        if j is not None and j in new_left:
            changed.append(_changed(new_rec, s, new_left.pop(j), i, j))
            del old_left[i]
    added = [_statement_entry(new_rec, s, j) for j, s in sorted(new_left.items())]
    removed = [_statement_entry(old_rec, s, i) for i, s in sorted(old_left.items())]
    attachment_added, attachment_removed = _delta(
        list(old_rec.attached_to + old_rec.boundary_of), list(new_rec.attached_to + new_rec.boundary_of)
    )
    if not (added or removed or changed or attachment_added or attachment_removed):
        return None
    entry = _entry(new_rec, "changed")
    entry.update(added=added, removed=removed, changed=changed)
    if attachment_added:
        entry["attached_to_added"] = attachment_added
    if attachment_removed:
        entry["attached_to_removed"] = attachment_removed
    return entry


def _entry(record: PolicyRecord, status: str) -> dict[str, Any]:
    parts = []
    if record.attached_to:
        parts.append("attached to " + ", ".join(record.attached_to))
    if record.boundary_of:
        parts.append("permissions boundary of " + ", ".join(record.boundary_of))
    who = "; ".join(parts) or record.applies_to
    return {
        "policy_id": record.id,
        "status": status,
        "kind": record.kind,
        "name": record.name,
        "template": record.template,
        "logical_id": record.logical_id,
        "who": who,
        "added": [],
        "removed": [],
        "changed": [],
    }


def policy_diff(
    baseline: Iterable[PolicyRecord], current: Iterable[PolicyRecord], *, baseline_label: str
) -> dict[str, Any]:
    old = {r.id: r for r in baseline}
    new = {r.id: r for r in current}
    entries: list[dict[str, Any]] = []
    for pid in sorted(set(old) | set(new)):
        if pid not in old:
            e = _entry(new[pid], "added")
            e["added"] = [_statement_entry(new[pid], s, i) for i, s in enumerate(statements_of(new[pid].document))]
            entries.append(e)
        elif pid not in new:
            e = _entry(old[pid], "removed")
            e["removed"] = [_statement_entry(old[pid], s, i) for i, s in enumerate(statements_of(old[pid].document))]
            entries.append(e)
        else:
            changed = _compare(old[pid], new[pid])
            if changed:
                entries.append(changed)
    return {
        "baseline": baseline_label,
        "policies_added": sum(e["status"] == "added" for e in entries),
        "policies_removed": sum(e["status"] == "removed" for e in entries),
        "policies_changed": sum(e["status"] == "changed" for e in entries),
        "statements_added": sum(len(e["added"]) for e in entries),
        "statements_removed": sum(len(e["removed"]) for e in entries),
        "statements_changed": sum(len(e["changed"]) for e in entries),
        "entries": entries,
    }
