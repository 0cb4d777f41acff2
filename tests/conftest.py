"""Shared fixtures.  The CDK app is synthesized once per session per configuration (``synth`` fixture)."""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import gc
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.digest import ROOT, SYNTH_CACHE, config_digest, source_digest

pytest_plugins = ["tests.support.layers", "tests.support.timing"]
# The suite allocates millions of short-lived objects (botocore's models, moto's responses, templates as dicts) and
# keeps a large heap alive (jsii, the synthesized templates): with the default threshold (700) the cyclic collector
# walks that heap thousands of times per worker.  A larger first-generation threshold cuts a worker's CPU by about an
# eighth (measured: test_verify + test_stacks + test_cost_report, 44.6 s -> 39.0 s); garbage is still collected.
gc.set_threshold(50_000, 20, 100)
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


@dataclasses.dataclass(frozen=True)
class AssemblyStack:
    """A stack as the cloud assembly's manifest gives it to ``cdk deploy``: name, target environment, protection."""

    stack_name: str
    account: str
    region: str
    termination_protection: bool
    template_file: str


class Synthesized:
    """One synthesized landing zone: the plan, the stacks' templates and the cloud assembly (``outdir``).

    ``landing_zone`` (the CDK objects) is built on first use: a synthesis of its own, seconds per configuration, so
    most tests read the templates and the manifest (``stacks``) only, and those may come from the synthesis cache
    below.
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

    @functools.cached_property
    def stacks(self) -> list[AssemblyStack]:
        """The assembly's stacks, from its manifest.json (what ``cdk deploy`` reads)."""
        manifest = json.loads((self.outdir / "manifest.json").read_text())
        out = []
        for artifact_id, artifact in manifest["artifacts"].items():
            if artifact.get("type") != "aws:cloudformation:stack":
                continue
            props = artifact["properties"]
            account, region = artifact["environment"].removeprefix("aws://").split("/")
            name = props.get("stackName") or artifact.get("displayName") or artifact_id
            out.append(
                AssemblyStack(name, account, region, bool(props.get("terminationProtection")), props["templateFile"])
            )
        return out

    def stack(self, suffix: str) -> AssemblyStack | None:
        """The stack ``<name>-<suffix>``, or None if the assembly has none."""
        return next((s for s in self.stacks if s.stack_name == f"{self.plan.config.name}-{suffix}"), None)


# Synthesis is the slow part of the suite (the CDK runs in Node through jsii, seconds per configuration), and every
# test worker needs most configurations.  Each configuration's cloud assembly is therefore kept in a cache keyed by
# everything that decides it — the configuration file (its path relative to the repository and its bytes), cdk.json,
# the source of the app (app.py, stacks/, constructs_lib/, landing_zone/, handlers/) and the pinned versions — so a
# worker or a later run whose inputs are unchanged copies the assembly instead of synthesizing it again.  A change to
# any input is a new key.  A worker that misses takes the key's file lock first: the other workers wait for its
# assembly instead of synthesizing the same configuration at the same time, so each one is synthesized once.
# The review's scanners (cfn-lint, checkov) keep their reports there too, keyed by the templates' bytes.
os.environ.setdefault("LZ_SCANNER_CACHE", str(SYNTH_CACHE / "scanners"))
# The review's proofs (z3, 10-30 s per assembly) likewise, keyed by the policies, the configuration and the code.
os.environ.setdefault("LZ_PROOF_CACHE", str(SYNTH_CACHE / "proofs"))


def _cache_key(config_path: str | Path | None) -> str:
    """``<source digest>-<configuration digest>``: entries of other sources are stale (see :func:`_prune`)."""
    return f"{source_digest()[:16]}-{config_digest(config_path)[:16]}"


@functools.lru_cache(maxsize=1)
def _prune() -> None:
    """Remove the assemblies of other sources (once per session), so the cache holds one version of the app; and the
    reports and layer stamps older than a week."""
    current = source_digest()[:16]
    for entry in SYNTH_CACHE.glob("*-*") if SYNTH_CACHE.is_dir() else ():
        if not entry.name.startswith((current, ".")):
            shutil.rmtree(entry, ignore_errors=True)
    week_ago = time.time() - 7 * 86400
    for kind in ("scanners", "proofs", "layers", "tools"):
        for report in (SYNTH_CACHE / kind).iterdir() if (SYNTH_CACHE / kind).is_dir() else ():
            if report.is_file() and report.stat().st_mtime < week_ago:
                report.unlink(missing_ok=True)


@contextlib.contextmanager
def _locked(key: str) -> Iterator[None]:
    """Hold ``.synth-cache/.lock-<key>`` (an advisory lock, released by the OS if the worker dies)."""
    SYNTH_CACHE.mkdir(parents=True, exist_ok=True)
    with open(SYNTH_CACHE / f".lock-{key}", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


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


# How each synth() call was answered, per worker: from this worker's memory, from the disk cache, after waiting for
# another worker's synthesis, or by synthesizing (printed at the end of the run: the cache's hit rate).
STATS: dict[str, float] = {"memory": 0, "disk": 0, "waited": 0, "waited_s": 0.0, "synthesized": 0, "synthesized_s": 0.0}
# The configurations this worker synthesized (the summary names them: on a warm run, each is a cache miss to look at).
SYNTHESIZED: list[str] = []


def derived_config(name: str, text: str) -> Path:
    """A configuration a test derives (an example with a block added, overrides as a file), written at a stable path,
    ``.synth-cache/configs/<name>``, for ``synth``: the cache keys a configuration by its path and bytes, so the same
    text under a new temporary folder would be synthesized again on every run.  Rewritten only when its text changed
    (atomically: workers may write the same file)."""
    path = SYNTH_CACHE / "configs" / name
    if not path.is_file() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = path.with_name(f".{name}.{os.getpid()}")
        staging.write_text(text)
        staging.replace(path)
    return path


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

    def _from_disk(plan, stored: Path) -> Synthesized:
        outdir = tmp_path_factory.mktemp("cdk.out")
        shutil.copytree(stored, outdir, dirs_exist_ok=True)
        lazy = tmp_path_factory.mktemp("cdk.out.objects")
        return Synthesized(plan, outdir, _templates_from(outdir), build=lambda: _build(plan, lazy))

    def _synth(config_path: str | Path | None = None) -> Synthesized:
        key = str(config_path)
        if key in cache:
            STATS["memory"] += 1
            return cache[key]
        t0 = time.monotonic()
        plan = plan_for(config_path)
        stored = SYNTH_CACHE / _cache_key(config_path)
        if (stored / "manifest.json").is_file():
            cache[key] = _from_disk(plan, stored)
            STATS["disk"] += 1
            return cache[key]
        with _locked(stored.name):
            if (stored / "manifest.json").is_file():  # another worker synthesized it while this one waited
                cache[key] = _from_disk(plan, stored)
                STATS["waited"] += 1
                STATS["waited_s"] += time.monotonic() - t0
                return cache[key]
            outdir = tmp_path_factory.mktemp("cdk.out")
            lz = _build(plan, outdir)
            from aws_cdk.assertions import Template

            cache[key] = Synthesized(plan, outdir, {s.stack_name: Template.from_stack(s) for s in lz.stacks}, lz)
            _prune()
            staging = SYNTH_CACHE / f".{stored.name}.{os.getpid()}"
            shutil.rmtree(staging, ignore_errors=True)
            shutil.copytree(outdir, staging)
            try:
                staging.rename(stored)  # atomic: a reader never sees half an assembly
            except OSError:
                shutil.rmtree(staging, ignore_errors=True)
        STATS["synthesized"] += 1
        STATS["synthesized_s"] += time.monotonic() - t0
        SYNTHESIZED.append("cdk.json defaults" if config_path is None else Path(config_path).name)
        return cache[key]

    return _synth


@pytest.fixture(scope="session")
def synth_with(synth, plan_for) -> Callable[..., Synthesized]:
    """``synth_with(name, config_path=None, **overrides)``: ``synth`` of the configuration with ``overrides`` merged in,
    written as the derived configuration ``<name>.json`` (:func:`derived_config`), so that its assembly is cached
    like an example's.  The file gives the configuration ``plan_for(config_path, **overrides)`` gives: asserted."""
    import yaml

    from landing_zone.core.config import deep_merge

    def _synth_with(name: str, config_path: str | Path | None = None, **overrides) -> Synthesized:
        base = {} if config_path is None else yaml.safe_load(Path(config_path).read_text())
        text = json.dumps(deep_merge(base, overrides), indent=1, sort_keys=True) + "\n"
        lz = synth(derived_config(f"{name}.json", text))
        assert lz.plan.config == plan_for(config_path, **overrides).config, name
        return lz

    return _synth_with


@pytest.fixture(scope="session")
def default_lz(synth) -> Synthesized:
    return synth(None)


# The files that take longest on a cold run (`--file-durations`, CI's log), scheduled first: with
# `--no-loadscope-reorder` (the Makefile) `--dist loadfile` hands files to the workers in collection order (two each
# to begin with), and a long file handed out last runs alone at the end while the other worker idles.  Without that
# flag xdist hands out the files with the most tests first, and the mutation table (3 tests, 260 s) started last.
# The review command's tests come third, on the first worker behind the mutation table: by then the gates (second
# worker) have proved and kept every example, so they read the proofs instead of waiting for them
# (landing_zone.prove.proofs.cache_lock).  Only the order changes; every test runs.
SLOW_FIRST = (
    "tests/prove/test_mutations.py",
    "tests/review/test_gates.py",
    "tests/review/test_review_cli.py",
    "tests/cli/test_fresh_machine.py",
    "tests/cli/test_cli.py",
    "tests/moto/test_verify_everything.py",
    "tests/review/test_rule_fixtures.py",
    "tests/moto/test_verify.py",
    "tests/cdk/test_stack_limits.py",
    "tests/cli/test_tiers.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(SLOW_FIRST)))  # stable: files stay whole
