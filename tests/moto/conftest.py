"""Fixtures for the moto integration tests: a synthesized assembly (once per session), an in-process moto
account (``mock_aws``) with the landing zone's intent deployed, and a CLI runner for ``verify``/``discover``.

moto's CloudFormation parser imports every moto backend; the ``moto[cloudformation]`` extra (requirements-dev.txt)
brings what they need.
"""

from __future__ import annotations

import collections
import contextlib
import io
from collections.abc import Callable, Iterator
from typing import Any

import botocore.client
import pytest
from moto import mock_aws

from landing_zone.assembly import Assembly
from landing_zone.aws import use_client_factory
from tests.conftest import ROOT
from tests.moto.harness import Deployed, deploy_intent, moto_accounts, release_stub_clients

EU = ROOT / "examples" / "eu-sovereign.yaml"

Calls = collections.Counter[tuple[str, str]]


@pytest.fixture(scope="session")
def eu(synth):
    """The EU-sovereign example, synthesized once: ``.outdir`` (cloud assembly) and ``.plan``."""
    return synth(EU)


@pytest.fixture
def aws_mock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.delenv("MOTO_ACCOUNT_ID", raising=False)
    monkeypatch.setenv("MOTO_EC2_LOAD_DEFAULT_AMIS", "false")  # no AMI catalogue per account/Region: faster
    with mock_aws():
        yield
    release_stub_clients()


@pytest.fixture
def deployed(eu, aws_mock) -> Iterator[Deployed]:
    """The EU example's intent deployed into moto, with verify's client factory pointing at it."""
    state = deploy_intent(Assembly.load(eu.outdir), eu.plan)
    with use_client_factory(state.factory()):
        yield state


@pytest.fixture
def empty_account(eu, aws_mock) -> Iterator[Deployed]:
    """Nothing deployed: the same factory over an empty moto account (stubbed APIs answer 'nothing')."""
    from tests.moto.harness import FakeServices

    assembly = Assembly.load(eu.outdir)
    state = Deployed(assembly, eu.plan, moto_accounts(assembly, eu.plan), FakeServices(), {})
    with use_client_factory(state.factory()):
        yield state


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``python -m landing_zone ARGV`` in-process (so the moto mock and the client factory apply)."""
    from landing_zone.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse usage errors
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def cli() -> Callable[[list[str]], tuple[int, str, str]]:
    return run_cli


@pytest.fixture
def verify_args(eu) -> Callable[..., list[str]]:
    def _args(*extra: str) -> list[str]:
        return [
            "verify",
            "--assembly",
            str(eu.outdir),
            "--config",
            str(EU),
            "--management-profile",
            "management",
            *extra,
        ]

    return _args


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[Calls]:
    """Every botocore call made while the test runs, by (service, operation)."""
    calls: Calls = collections.Counter()
    make = botocore.client.BaseClient._make_api_call

    def counting(self: Any, operation: str, params: dict[str, Any]) -> Any:
        calls[(self.meta.service_model.service_name, operation)] += 1
        return make(self, operation, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", counting)
    yield calls
