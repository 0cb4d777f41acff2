"""verify's ``events-rule-targets`` with ``detection.central_event_bus_arn`` (issue 37; docs/DETECTION.md, "Delivery
to a central event bus"): the central bus is one of each detection rule's synthesized targets, so the deployed intent
passes, and a rule whose central target was removed (or pointed at another bus) is drift on that rule alone, while
its alerts-topic target still passes.  The EU example with the central bus added, deployed into moto
(tests/moto/harness.py)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from landing_zone.assembly import Assembly
from landing_zone.aws import use_client_factory
from tests.conftest import derived_config
from tests.moto.conftest import EU
from tests.moto.harness import Deployed, deploy_intent
from tests.moto.test_verify import failing

pytestmark = pytest.mark.moto

CENTRAL = "arn:aws:events:eu-west-1:555555555555:event-bus/security-events"


@pytest.fixture(scope="module")
def central_config() -> Path:
    """The EU example with a central bus: the same derived configuration as tests/cdk/test_detection_central_bus.py
    (one cached assembly for both)."""
    old = "\ndetection: {config_rules: true}\n"
    text = EU.read_text()
    assert old in text
    new = f"\ndetection: {{config_rules: true, central_event_bus_arn: '{CENTRAL}'}}\n"
    return derived_config("eu-central-bus.yaml", text.replace(old, new, 1))


@pytest.fixture(scope="module")
def central(synth: Callable, central_config: Any) -> Any:
    return synth(central_config)


@pytest.fixture
def deployed(central: Any, aws_mock: None) -> Iterator[Deployed]:
    state = deploy_intent(Assembly.load(central.outdir), central.plan)
    with use_client_factory(state.factory()):
        yield state


def _verify(cli: Callable, central: Any, central_config: Any) -> tuple[int, dict[str, set[str]], list[dict]]:
    argv = ["verify", "--assembly", str(central.outdir), "--config", str(central_config)]
    code, stdout, _ = cli([*argv, "--management-profile", "management", "--json"])
    bad = [r for r in json.loads(stdout)["checks"] if r["status"] != "PASS"]
    return code, failing(stdout), bad


def _home_rule(d: Deployed, central: Any) -> tuple[Any, str]:
    """A rule of ``<name>-detection`` (home Region, deployment account) and its events client."""
    name = f"kimi-eu-detect-{central.plan.policies.detection.rules[0].id}"
    return d.client("events", management=False, region=central.plan.config.home_region), name


def test_the_central_target_as_deployed_passes(deployed: Deployed, central: Any, central_config: Any, cli) -> None:
    events, name = _home_rule(deployed, central)
    targets = {t["Id"]: t for t in events.list_targets_by_rule(Rule=name)["Targets"]}
    assert targets["central-bus"]["Arn"] == CENTRAL
    code, failed, _ = _verify(cli, central, central_config)
    assert (code, failed) == (0, {})


def test_a_removed_central_target_is_drift(deployed: Deployed, central: Any, central_config: Any, cli) -> None:
    events, name = _home_rule(deployed, central)
    events.remove_targets(Rule=name, Ids=["central-bus"])
    assert [t["Id"] for t in events.list_targets_by_rule(Rule=name)["Targets"]] == ["alerts"]
    code, failed, bad = _verify(cli, central, central_config)
    assert (code, failed) == (1, {"events-rule-targets": {"DRIFT"}})
    assert [(r["resource"], r["actual"]) for r in bad] == [(f"rule {name}", "alerts")]
    assert "central-bus: expected" in bad[0]["detail"] and "live absent" in bad[0]["detail"]


def test_a_central_target_pointed_elsewhere_is_drift(
    deployed: Deployed, central: Any, central_config: Any, cli
) -> None:
    events, name = _home_rule(deployed, central)
    (target,) = [t for t in events.list_targets_by_rule(Rule=name)["Targets"] if t["Id"] == "central-bus"]
    elsewhere = "arn:aws:events:eu-west-1:666666666666:event-bus/not-security"
    events.put_targets(Rule=name, Targets=[{**target, "Arn": elsewhere}])
    code, failed, bad = _verify(cli, central, central_config)
    assert (code, failed) == (1, {"events-rule-targets": {"DRIFT"}})
    assert elsewhere in bad[0]["detail"]
