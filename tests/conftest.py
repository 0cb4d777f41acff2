"""Shared fixtures.  The CDK app is synthesized once per session per configuration (``synth`` fixture)."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
FIXTURES = ROOT / "tests" / "fixtures"


def cdk_context() -> dict:
    return json.loads((ROOT / "cdk.json").read_text())["context"]


@pytest.fixture(autouse=True)
def _no_real_aws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake credentials so that no test can reach a real AWS account."""
    for var in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", os.devnull)


@pytest.fixture(scope="session")
def defaults() -> dict:
    return cdk_context()["landing_zone"]


@pytest.fixture(scope="session")
def plan_for(defaults: dict) -> Callable:
    """``plan_for(config_path=None, **overrides)``: the validated plan, as the app and the CLI build it."""
    from landing_zone.core.config import deep_merge, raw_config
    from landing_zone.plan import build_plan

    def _plan(config_path: str | Path | None = None, **overrides):
        raw, origin = raw_config(defaults, config_path)
        return build_plan(deep_merge(raw, overrides), origin=origin)

    return _plan


class Synthesized:
    """One synthesized landing zone: the plan, the stacks' templates and the cloud assembly (``outdir``).

    ``landing_zone`` (the CDK objects) is built on first use: most tests read templates only, and those may come from
    the synthesis cache below.
    """

    def __init__(self, plan, outdir: Path, templates: dict, landing_zone=None, build=None) -> None:
        self.plan = plan
        self.outdir = outdir
        self.templates = templates
        self._landing_zone = landing_zone
        self._build = build

    @property
    def landing_zone(self):
        if self._landing_zone is None:
            self._landing_zone = self._build()
        return self._landing_zone

    def template(self, suffix: str):
        return self.templates[f"{self.plan.config.name}-{suffix}"]


# Synthesis is the slow part of the suite (the CDK runs in Node through jsii, seconds per configuration), and every
# test worker needs most configurations.  Each configuration's cloud assembly is therefore kept in a cache keyed by
# everything that decides it — the configuration file, cdk.json, the source of the app (app.py, stacks/,
# constructs_lib/, landing_zone/, handlers/) and the pinned versions — so a worker or a later run whose inputs are
# unchanged copies the assembly instead of synthesizing it again.  A change to any input is a new key.
SYNTH_CACHE = ROOT / ".synth-cache"
# The review's scanners (cfn-lint, checkov) keep their reports there too, keyed by the templates' bytes.
os.environ.setdefault("LZ_SCANNER_CACHE", str(SYNTH_CACHE / "scanners"))
# The review's proofs (z3, 10-30 s per assembly) likewise, keyed by the policies, the configuration and the code.
os.environ.setdefault("LZ_PROOF_CACHE", str(SYNTH_CACHE / "proofs"))
SYNTH_INPUTS = ("app.py", "cdk.json", "constraints.txt", "package-lock.json")
SYNTH_SOURCE_DIRS = ("stacks", "constructs_lib", "landing_zone", "handlers")


@functools.lru_cache(maxsize=1)
def _source_digest() -> str:
    digest = hashlib.sha256()
    files = [ROOT / f for f in SYNTH_INPUTS]
    for d in SYNTH_SOURCE_DIRS:
        files += sorted(p for p in (ROOT / d).rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for path in files:
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _cache_key(config_path: str | Path | None) -> str:
    """``<source digest>-<configuration digest>``: entries of other sources are stale (see :func:`_prune`)."""
    digest = hashlib.sha256(str(config_path).encode())
    if config_path is not None:
        digest.update(Path(config_path).read_bytes())
    return f"{_source_digest()[:16]}-{digest.hexdigest()[:16]}"


@functools.lru_cache(maxsize=1)
def _prune() -> None:
    """Remove the assemblies of other sources (once per session), so the cache holds one version of the app."""
    current = _source_digest()[:16]
    for entry in SYNTH_CACHE.glob("*-*") if SYNTH_CACHE.is_dir() else ():
        if not entry.name.startswith((current, ".")):
            shutil.rmtree(entry, ignore_errors=True)
    week_ago = time.time() - 7 * 86400
    for kind in ("scanners", "proofs"):
        for report in (SYNTH_CACHE / kind).glob("*.json") if (SYNTH_CACHE / kind).is_dir() else ():
            if report.stat().st_mtime < week_ago:
                report.unlink(missing_ok=True)


def _templates_from(outdir: Path) -> dict:
    from aws_cdk.assertions import Template

    manifest = json.loads((outdir / "manifest.json").read_text())
    out = {}
    for artifact in manifest["artifacts"].values():
        if artifact.get("type") != "aws:cloudformation:stack":
            continue
        props = artifact["properties"]
        name = props.get("stackName") or artifact.get("displayName")
        body = json.loads((outdir / props["templateFile"]).read_text())
        out[name] = Template.from_json(body, skip_cyclical_dependencies_check=True)
    return out


@pytest.fixture(scope="session")
def synth(tmp_path_factory: pytest.TempPathFactory, plan_for: Callable) -> Callable[..., Synthesized]:
    """``synth(config_path=None)`` -> Synthesized, cached per config for the whole session (and across workers and
    runs through ``.synth-cache/`` while the app's inputs are unchanged)."""
    import aws_cdk as cdk

    from landing_zone.plan.record import write_record
    from stacks.landing_zone import build_landing_zone

    cache: dict[str, Synthesized] = {}

    def _build(plan, outdir: Path):
        app = cdk.App(context=cdk_context(), outdir=str(outdir))
        lz = build_landing_zone(app, plan)
        app.synth()
        write_record(plan, outdir)  # as app.py does: the assembly describes its configuration
        return lz

    def _synth(config_path: str | Path | None = None) -> Synthesized:
        key = str(config_path)
        if key in cache:
            return cache[key]
        plan = plan_for(config_path)
        outdir = tmp_path_factory.mktemp("cdk.out")
        stored = SYNTH_CACHE / _cache_key(config_path)
        if (stored / "manifest.json").is_file():
            shutil.copytree(stored, outdir, dirs_exist_ok=True)
            lazy = tmp_path_factory.mktemp("cdk.out.objects")
            cache[key] = Synthesized(plan, outdir, _templates_from(outdir), build=lambda: _build(plan, lazy))
            return cache[key]
        lz = _build(plan, outdir)
        from aws_cdk.assertions import Template

        cache[key] = Synthesized(plan, outdir, {s.stack_name: Template.from_stack(s) for s in lz.stacks}, lz)
        _prune()
        staging = SYNTH_CACHE / f".{stored.name}.{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(outdir, staging)
        try:
            staging.rename(stored)  # atomic: another worker may have stored the same key meanwhile
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
        return cache[key]

    return _synth


@pytest.fixture(scope="session")
def default_lz(synth) -> Synthesized:
    return synth(None)
