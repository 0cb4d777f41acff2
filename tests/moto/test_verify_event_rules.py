"""verify's event-rule family (issue 37): the detection stacks' EventBridge rules are what alerts on a change no SCP
can prevent, so a rule someone disabled, narrowed or unwired is itself a change that must show.  Deploy the EU
example's intent into moto (every rule created with its pattern and targets, tests/moto/harness.py), change one rule,
and see exactly that rule's row of the owning check fail; the rules in the management account are read there."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from landing_zone.assembly import Resource
from landing_zone.verify.checks.events import canonical_pattern
from tests.moto.conftest import Calls
from tests.moto.harness import Deployed
from tests.moto.test_verify import failing
from tests.moto.test_verify_calls import fail_operation

pytestmark = pytest.mark.moto

MANAGEMENT = "444444444444"  # examples/eu-sovereign.yaml organization.management_account_id


def _rule(d: Deployed, *, management: bool) -> tuple[Resource, str]:
    """The first rule of a detection stack in the deployment (or the management) account, and its name."""
    for res in d.assembly.resources("AWS::Events::Rule"):
        if (res.stack.account == MANAGEMENT) == management:
            return res, str(res.prop("Name"))
    raise AssertionError("the EU example synthesizes no such rule")


def _events(d: Deployed, res: Resource, *, management: bool):
    return d.client("events", management=management, region=res.stack.region)


def _verify(cli: Callable, verify_args: Callable) -> tuple[int, dict[str, set[str]], list[dict]]:
    code, stdout, _ = cli(verify_args("--json"))
    bad = [r for r in json.loads(stdout)["checks"] if r["status"] != "PASS"]
    return code, failing(stdout), bad


@pytest.mark.parametrize("management", [False, True], ids=["deployment-account", "management-account"])
def test_a_disabled_rule_is_drift(deployed: Deployed, cli, verify_args, management: bool) -> None:
    res, name = _rule(deployed, management=management)
    _events(deployed, res, management=management).disable_rule(Name=name)
    code, failed, bad = _verify(cli, verify_args)
    assert (code, failed) == (1, {"events-rule": {"DRIFT"}})
    assert [(r["resource"], r["actual"]) for r in bad] == [(f"rule {name}", "DISABLED")]
    assert f"aws events enable-rule --name {name}" in bad[0]["detail"]


def test_a_narrowed_pattern_is_drift_and_a_reordered_one_is_not(deployed: Deployed, cli, verify_args) -> None:
    res, name = _rule(deployed, management=False)
    events = _events(deployed, res, management=False)
    live = json.loads(events.describe_rule(Name=name)["EventPattern"])
    # the same pattern with its keys and list members in reverse order: EventBridge matches it identically
    reordered = {k: (list(reversed(v)) if isinstance(v, list) else v) for k, v in reversed(list(live.items()))}
    assert canonical_pattern(reordered) == canonical_pattern(live)
    events.put_rule(Name=name, EventPattern=json.dumps(reordered), State="ENABLED")
    assert _verify(cli, verify_args)[0] == 0
    narrowed = {**live, "source": ["aws.nothing"]}
    events.put_rule(Name=name, EventPattern=json.dumps(narrowed), State="ENABLED")
    code, failed, bad = _verify(cli, verify_args)
    assert (code, failed) == (1, {"events-rule-pattern": {"DRIFT"}})
    assert [r["resource"] for r in bad] == [f"rule {name}"]


def test_a_removed_target_is_drift(deployed: Deployed, cli, verify_args) -> None:
    res, name = _rule(deployed, management=False)
    events = _events(deployed, res, management=False)
    ids = [t["Id"] for t in events.list_targets_by_rule(Rule=name)["Targets"]]
    events.remove_targets(Rule=name, Ids=ids)
    code, failed, bad = _verify(cli, verify_args)
    assert (code, failed) == (1, {"events-rule-targets": {"DRIFT"}})
    assert [(r["resource"], r["actual"]) for r in bad] == [(f"rule {name}", "no target")]


def test_a_retargeted_rule_is_drift(deployed: Deployed, cli, verify_args) -> None:
    """The target kept under its Id but pointed at another topic: the alerts go somewhere nobody reads."""
    res, name = _rule(deployed, management=False)
    events = _events(deployed, res, management=False)
    (target,) = events.list_targets_by_rule(Rule=name)["Targets"]
    elsewhere = deployed.client("sns", region=res.stack.region).create_topic(Name="not-the-alerts")["TopicArn"]
    events.put_targets(Rule=name, Targets=[{**target, "Arn": elsewhere}])
    code, failed, bad = _verify(cli, verify_args)
    assert (code, failed) == (1, {"events-rule-targets": {"DRIFT"}})
    assert elsewhere in bad[0]["detail"]


def test_a_deleted_rule_is_missing(deployed: Deployed, cli, verify_args) -> None:
    res, name = _rule(deployed, management=False)
    events = _events(deployed, res, management=False)
    events.remove_targets(Rule=name, Ids=[t["Id"] for t in events.list_targets_by_rule(Rule=name)["Targets"]])
    events.delete_rule(Name=name)
    code, failed, bad = _verify(cli, verify_args)
    assert (code, failed) == (
        1,
        {c: {"MISSING"} for c in ("events-rule", "events-rule-pattern", "events-rule-targets")},
    )
    assert {r["resource"] for r in bad} == {f"rule {name}"}


def test_a_forwarder_rule_is_read_in_its_own_region(deployed: Deployed, cli, verify_args) -> None:
    """A forwarding stack's rule (here <name>-detection-global, us-east-1; a source Region's forwarder is read the same
    way, in the Region of its stack) is checked where it runs: disabling it there is drift, and the rule of the same
    name in the home Region is not what was read."""
    home = deployed.plan.config.home_region
    res = next(
        r
        for r in deployed.assembly.resources("AWS::Events::Rule")
        if r.stack.account != MANAGEMENT
        and r.stack.region != home
        and r.prop("Name") == "kimi-eu-detect-bedrock-api-keys"
    )
    name = str(res.prop("Name"))
    assert res.stack.name == "kimi-eu-detection-global" and res.stack.region == "us-east-1"
    _events(deployed, res, management=False).disable_rule(Name=name)
    assert deployed.client("events", management=False, region=home).describe_rule(Name=name)["State"] == "ENABLED"
    code, failed, bad = _verify(cli, verify_args)
    assert (code, failed) == (1, {"events-rule": {"DRIFT"}})
    assert [(r["resource"], r["actual"]) for r in bad] == [(f"rule {name}", "DISABLED")]


def test_a_bus_that_cannot_be_listed_is_an_error_for_each_of_its_rules_only(
    deployed: Deployed, cli, verify_args, counted: Calls, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rules are listed once per bus (ListRules): when the listing gives no answer, each rule of that bus gets
    the ERROR rows its own call's failure gave it, the rules of the other buses are checked, and the bus is asked
    once."""
    home = deployed.plan.config.home_region
    refused = fail_operation(monkeypatch, "ListRules", lambda client, _params: client.meta.region_name == home)
    rules = deployed.assembly.resources("AWS::Events::Rule")
    on_bus = {r.path for r in rules if r.stack.region == home}
    assert on_bus and len(on_bus) < len(rules)
    code, stdout, _ = cli(verify_args("--json"))
    checks = ("events-rule", "events-rule-pattern", "events-rule-targets")
    assert (code, failing(stdout)) == (1, {c: {"ERROR"} for c in checks})
    events = [r for r in json.loads(stdout)["checks"] if r["check"] in checks]
    errors = [r for r in events if r["status"] == "ERROR"]
    assert sorted(r["source"] for r in errors) == sorted(3 * list(on_bus))
    assert {r["actual"] for r in errors} == {"no answer: InternalFailure"}
    assert all(r["detail"].startswith("events:list_rules no answer: InternalFailure") for r in errors)
    assert {r["source"] for r in events if r["status"] == "PASS"} == {r.path for r in rules} - on_bus
    assert counted[("events", "DescribeRule")] == 0 and counted[("events", "ListRules")] == 2  # the buses that answer
    assert len(refused) == 1  # the failed listing is not asked again for each rule of its bus
