"""Hostile configuration files through the real command line and the CDK app: exit code 2, the first line of
the message, no traceback, nothing written."""

from __future__ import annotations

import json

import pytest

from landing_zone.cli import main
from landing_zone.core import datafile
from tests.cli.test_cli import lz
from tests.conftest import FIXTURES, ROOT
from tests.support.cli import app

HOSTILE = FIXTURES / "hostile"


def generated(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


CASES = {
    # case: (file or generator, first problem line of the message)
    "alias bomb": (
        lambda t: HOSTILE / "alias-bomb.yaml",
        "  - --config (line 2, column 4): got the anchor &a; YAML anchors",
    ),
    "not UTF-8": (
        lambda t: HOSTILE / "not-utf8.yaml",
        "  - --config (line 2): got the byte 0xe9 at offset 74, which is not UTF-8",
    ),
    "landing_zone: null": (
        lambda t: HOSTILE / "landing-zone-null.yaml",
        "  - landing_zone: got null; must be a mapping",
    ),
    "top-level list": (
        lambda t: HOSTILE / "top-level-list.yaml",
        "  - --config: got a list; the file must hold a mapping",
    ),
    "directory": (lambda t: t, "  - --config: got "),
    "deep YAML": (
        lambda t: generated(t, "deep.yaml", "tags: " + "[" * 10_000 + "]" * 10_000),
        "  - --config (line 1, column 70): got more than 64 levels of nesting",
    ),
    "deep JSON": (
        lambda t: generated(t, "deep.json", '{"tags": ' + "[" * 100_000 + "]" * 100_000 + "}"),
        "  - --config: got more than 64 levels of nesting",
    ),
    "over 1 MiB": (
        lambda t: generated(t, "big.yaml", "# padding\n" * 110_000),
        "  - --config: got a file of 1,100,000 bytes",
    ),
    "duplicate key": (
        lambda t: HOSTILE / "duplicate-key.yaml",
        "  - cost.workload.requests_per_day: got the key 'requests_per_day' twice (lines 4 and 6)",
    ),
    "string boolean": (
        lambda t: HOSTILE / "string-boolean.yaml",
        "  - allow_global_inference: got 'yes'; must be true or false",
    ),
    "1e39 requests": (
        lambda t: HOSTILE / "huge-workload.yaml",
        "  - cost.workload.requests_per_day: got 1e+39; must be less than or equal to 1000000000",
    ),
    # issue 35: configurations accepted in silence, one per class
    "number as text": (
        lambda t: generated(t, "text.yaml", 'cost: {workload: {requests_per_day: "10000"}}\n'),
        "  - cost.workload.requests_per_day: got '10000'; a number written as text (in quotes)",
    ),
    "its own catalog overlay": (
        lambda t: generated(t, "self.yaml", f"name: kimi-self\ncatalog_overlays: [{t / 'self.yaml'}]\n"),
        "  - catalog_overlays[0]: got ",
    ),
    "duplicate canary targets": (
        lambda t: generated(
            t,
            "canary.yaml",
            "content_guardrail: {enabled: true, organization_policy: true, "
            "canary_target_ids: [ou-root-11111111, ou-root-11111111]}\n",
        ),
        "  - content_guardrail.canary_target_ids[1]: got 'ou-root-11111111'; repeats canary_target_ids[0]",
    ),
    "projects without Mantle": (
        lambda t: generated(
            t, "projects.yaml", "access: {mantle_projects: true}\nnetwork: {endpoints: [bedrock-runtime]}\n"
        ),
        "  - network.endpoints: got ['bedrock-runtime']; has no bedrock-mantle endpoint",
    ),
    "a project its invoker may not use": (
        lambda t: generated(
            t,
            "granted.yaml",
            "access: {mantle_projects: true}\ncontent_guardrail: {enabled: true, enforcement: per-request}\n",
        ),
        "  - access.mantle_projects: got true; for application workload the plan creates its Mantle Project",
    ),
    "an empty list that would trust everyone": (
        lambda t: generated(
            t, "trust.yaml", "applications: [{name: chat, cost_center: cc-1, trusted_principal_arns: []}]\n"
        ),
        "  - applications[0].trusted_principal_arns: got []; an empty list is not the same as leaving the key out",
    ),
    "one model twice in a mapping": (
        lambda t: generated(
            t,
            "prices.yaml",
            "cost: {price_source: {kimi-k3.1-pro: bedrock, moonshotai.kimi-k3.1-pro: kimi-api}}\n",
        ),
        "  - cost.price_source.moonshotai.kimi-k3.1-pro: got 'moonshotai.kimi-k3.1-pro'; names the same model as",
    ),
    "200 accounts": (
        lambda t: generated(
            t,
            "accounts.json",
            json.dumps({"accounts": [{"id": f"{100000000000 + i}", "name": f"acct-{i:03d}"} for i in range(200)]}),
        ),
        "  - accounts: got 200 accounts, each with a default application",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_validate_refuses_hostile_input_with_exit_2_and_no_traceback(tmp_path, case):
    make, first_problem = CASES[case]
    result = lz("validate", "--config", str(make(tmp_path)))
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert lines[0].startswith("error: invalid ") and lines[0].endswith("1 problem(s)")
    assert lines[1].startswith(first_problem), lines[1]
    assert result.stdout == ""


def test_the_alias_bomb_is_refused_within_the_events_before_its_first_anchor(monkeypatch, capsys):
    """The bound is structural, not a clock (before: minutes and 5.5 GB): `validate` reads the parser's events up to
    the first anchor (stream, document, mapping, the key `a`, the anchored list: 5) and refuses there; nothing is
    composed or constructed, so nothing the aliases name is ever expanded, however many levels the file has."""
    events: list[object] = []

    def counted(self):
        event = datafile._Parser.get_event(self)
        events.append(event)
        return event

    def never(*args, **kwargs):
        raise AssertionError("the YAML document was composed or constructed")

    monkeypatch.setattr(datafile._ConfigYamlLoader, "get_event", counted)
    monkeypatch.setattr(datafile._ConfigYamlLoader, "get_single_node", never)
    monkeypatch.setattr(datafile._ConfigYamlLoader, "construct_document", never)
    assert main(["validate", "--config", str(HOSTILE / "alias-bomb.yaml")]) == 2
    assert "got the anchor &a" in capsys.readouterr().err
    assert len(events) == 5, events


@pytest.mark.parametrize(
    "command",
    [
        ["routes"],
        ["cost"],
        ["cost-report", "--out", "{tmp}/reports"],
        ["simulate", "--action", "bedrock:InvokeModel", "--resource", "*"],
    ],
)
def test_every_command_that_reads_the_config_refuses_it_the_same_way(tmp_path, command):
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    result = lz(*args, "--config", str(HOSTILE / "alias-bomb.yaml"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "got the anchor &a" in result.stderr
    assert not (tmp_path / "reports").exists()


@pytest.mark.synth
def test_app_refuses_hostile_input_with_exit_2_and_writes_nothing(tmp_path):
    outdir = tmp_path / "out"
    context = json.loads((ROOT / "cdk.json").read_text())["context"]
    context["config"] = str(HOSTILE / "not-utf8.yaml")
    result = app(context, outdir)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "error: invalid config file" in result.stderr and "not UTF-8" in result.stderr
    assert not outdir.exists() or not any(outdir.iterdir())


@pytest.mark.parametrize(
    ("switches", "first_problem"),
    [
        ({"nag": "TRUE"}, "  - -c nag: got 'TRUE'; must be true or false"),
        ({"detach_organization_policies": "yes"}, "  - -c detach_organization_policies: got 'yes'; must be true"),
        ({"nag": 1, "detach_organization_policies": "on"}, "  - -c nag: got 1; must be true or false"),
    ],
    ids=["nag-upper-case", "detach-yes", "both"],
)
def test_app_refuses_a_context_switch_that_is_neither_true_nor_false(tmp_path, switches, first_problem):
    """`-c nag=TRUE` would have turned the cdk-nag gate off, `-c detach_organization_policies=yes` kept the SCPs
    attached: refused before any work, every switch at once (landing_zone.core.config.context_switches)."""
    outdir = tmp_path / "out"
    context = {**json.loads((ROOT / "cdk.json").read_text())["context"], **switches}
    result = app(context, outdir)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert lines[0] == f"error: invalid CDK context: {len(switches)} problem(s)"
    assert lines[1].startswith(first_problem), lines
    assert not outdir.exists() or not any(outdir.iterdir())


def test_context_switches_read_true_and_false_as_json_or_text():
    from landing_zone.core.config import context_switches

    assert context_switches({"nag": True, "detach": "false", "other": None, "text": "true"}) == {
        "nag": True,
        "detach": False,
        "other": False,
        "text": True,
    }


def test_validate_warns_about_placeholders_and_still_exits_0():
    result = lz("validate", "--verbose")  # in full; without --verbose, one line (tests/cli/test_cli_bounds.py)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("configuration OK")
    assert (
        "warning: 3 placeholder value(s) left in the configuration: a placeholder account ID at accounts[0].id "
        "('111111111111'), organization.management_account_id ('999999999999'); an example organization ID at "
        "organization.organization_id ('o-exampleorg0')"
    ) in result.stderr


@pytest.mark.synth
def test_synth_prints_the_placeholder_warning_once(tmp_path):
    context = json.loads((ROOT / "cdk.json").read_text())["context"]
    context["nag"] = False  # the gate is tested elsewhere; this is about the warning
    result = app(context, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("placeholder value(s) left in the configuration") == 1
