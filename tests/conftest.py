"""Shared fixtures.  The CDK app is synthesized once per session per configuration (``synth`` fixture)."""

from __future__ import annotations

import json
import os
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
    """One synthesized landing zone: the plan, the stacks and their templates."""

    def __init__(self, plan, landing_zone, outdir: Path) -> None:
        from aws_cdk.assertions import Template

        self.plan = plan
        self.landing_zone = landing_zone
        self.outdir = outdir
        self.templates = {s.stack_name: Template.from_stack(s) for s in landing_zone.stacks}

    def template(self, suffix: str):
        return self.templates[f"{self.plan.config.name}-{suffix}"]


@pytest.fixture(scope="session")
def synth(tmp_path_factory: pytest.TempPathFactory, plan_for: Callable) -> Callable[..., Synthesized]:
    """``synth(config_path=None)`` -> Synthesized, cached per config for the whole session."""
    import aws_cdk as cdk

    from landing_zone.plan.record import write_record
    from stacks.landing_zone import build_landing_zone

    cache: dict[str, Synthesized] = {}

    def _synth(config_path: str | Path | None = None) -> Synthesized:
        key = str(config_path)
        if key not in cache:
            plan = plan_for(config_path)
            outdir = tmp_path_factory.mktemp("cdk.out")
            app = cdk.App(context=cdk_context(), outdir=str(outdir))
            lz = build_landing_zone(app, plan)
            app.synth()
            write_record(plan, outdir)  # as app.py does: the assembly describes its configuration
            cache[key] = Synthesized(plan, lz, outdir)
        return cache[key]

    return _synth


@pytest.fixture(scope="session")
def default_lz(synth) -> Synthesized:
    return synth(None)
