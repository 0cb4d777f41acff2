"""The plan record: the cloud assembly describes the configuration it was synthesized from.

At synth the app writes ``<assembly>/landing-zone.json`` (:data:`landing_zone.assembly.PLAN_RECORD_FILE`):

* ``config`` — the merged raw configuration (cdk.json defaults + the config file), ``origin`` where it came from,
  ``overlays`` the text of every catalog overlay it lists;
* ``config_sha256`` — a content hash of ``config`` (overlay paths left out) and the overlays' text, so that two
  machines with different paths agree on it;
* ``routing`` — the routing decision, one row per path (what a reviewer checks first);
* ``provenance`` — commit (and whether the work tree had changes), generation time, the versions of this tool,
  Python, aws-cdk-lib, cdk-nag and the CDK CLI.

``review``, ``simulate --assembly`` and ``verify`` rebuild the plan from the record by default
(:func:`plan_from_record`), so a reviewer who receives only ``cdk.out/`` can review it; given ``--config`` they
check that it resolves to the same hash (:func:`check_matches`) instead of trusting it.
"""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from landing_zone import __version__
from landing_zone.assembly import PLAN_RECORD_FILE, AssemblyError
from landing_zone.plan.build import build_plan
from landing_zone.plan.model import Plan, PlanSource

__all__ = [
    "RECORD_SCHEMA",
    "check_matches",
    "config_digest",
    "installed_version",
    "plan_from_record",
    "plan_record",
    "provenance",
    "write_record",
]

RECORD_SCHEMA = 1
REPO_ROOT = Path(__file__).resolve().parents[2]


def _project_root() -> Path:
    """Where the app runs from: the checkout the package lives in, or (installed from the wheel, in site-packages)
    the current directory, the user's own project with its node_modules and git history."""
    return REPO_ROOT if (REPO_ROOT / "pyproject.toml").is_file() else Path.cwd()


def config_digest(source: PlanSource) -> str:
    """sha256 over the raw configuration (without the overlay paths) and the overlays' text, canonical JSON."""
    config = {k: v for k, v in source.raw.items() if k != "catalog_overlays"}
    text = json.dumps({"config": config, "overlays": list(source.overlays)}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def installed_version(distribution: str) -> str:
    """The installed version of a distribution, or 'not installed'."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def _cdk_cli_version() -> str:
    package = _project_root() / "node_modules" / "aws-cdk" / "package.json"
    try:
        return str(json.loads(package.read_text())["version"])
    except (OSError, ValueError, KeyError):
        return "unknown"


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=_project_root(), capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def provenance(now: datetime | None = None) -> dict[str, Any]:
    """Who made the assembly, from what: commit, time and tool versions (strings; 'unknown' when not known)."""
    commit = _git("rev-parse", "HEAD")
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "commit": commit or "unknown (not a git checkout)",
        "work_tree_changed": bool(status) if status is not None else None,
        "generated_at": (now or datetime.now(UTC)).replace(microsecond=0).isoformat(),
        "landing_zone": __version__,
        "python": platform.python_version(),
        "aws_cdk_lib": installed_version("aws-cdk-lib"),
        "cdk_nag": installed_version("cdk-nag"),
        "cdk_cli": _cdk_cli_version(),
    }


def plan_record(plan: Plan, *, now: datetime | None = None) -> dict[str, Any]:
    """The JSON document the app writes into the assembly (see the module docstring)."""
    return {
        "schema": RECORD_SCHEMA,
        "name": plan.config.name,
        "origin": plan.source.origin,
        "config_sha256": config_digest(plan.source),
        "config": plan.source.raw,
        "overlays": list(plan.source.overlays),
        "routing": {
            "home_region": plan.routing.home_region,
            "compliant_regions": list(plan.routing.compliant_regions),
            "allow_global_inference": plan.routing.allow_global_inference,
            "routes": plan.routing.as_rows(),
        },
        "placeholders": [p.path for p in plan.placeholders],
        "unverified": [w for w in plan.warnings if "unverified" in w],
        "provenance": provenance(now),
    }


def write_record(plan: Plan, outdir: str | Path) -> Path:
    """Write the record into the assembly directory; returns its path."""
    path = Path(outdir) / PLAN_RECORD_FILE
    path.write_text(json.dumps(plan_record(plan), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def plan_from_record(record: Mapping[str, Any], *, where: str) -> Plan:
    """The plan the assembly was synthesized from, rebuilt from its record (overlays from the recorded text)."""
    if record.get("schema") != RECORD_SCHEMA or not isinstance(record.get("config"), Mapping):
        raise AssemblyError(f"{where}: {PLAN_RECORD_FILE} has an unknown shape (schema {record.get('schema')!r})")
    raw = dict(record["config"])
    overlays = [str(t) for t in record.get("overlays") or []]
    origin = f"{record.get('origin', 'configuration')}, as recorded in {where}"
    with tempfile.TemporaryDirectory(prefix="lz-overlays-") as tmp:
        if overlays:
            paths = []
            for i, text in enumerate(overlays):
                path = Path(tmp) / f"overlay-{i}.yaml"
                path.write_text(text, encoding="utf-8")
                paths.append(str(path))
            raw["catalog_overlays"] = paths
        plan = build_plan(raw, origin=origin)
    source = PlanSource(raw=dict(record["config"]), origin=origin, overlays=tuple(overlays))
    digest = config_digest(source)
    if record.get("config_sha256") != digest:
        raise AssemblyError(
            f"{where}: {PLAN_RECORD_FILE} does not match its own hash (recorded {record.get('config_sha256')}, "
            f"content {digest}): the file was edited after synth"
        )
    return replace(plan, source=source)


def check_matches(plan: Plan, record: Mapping[str, Any], *, where: str) -> None:
    """Raise when ``plan`` (from --config) is not the configuration the assembly was synthesized from."""
    digest = config_digest(plan.source)
    if record.get("config_sha256") != digest:
        raise AssemblyError(
            f"{where} was synthesized from a different configuration ({record.get('origin')}, sha256 "
            f"{str(record.get('config_sha256'))[:12]}) than {plan.source.origin} (sha256 {digest[:12]}): drop "
            "--config to use the recorded one, or synthesize again"
        )
