"""The constructs resolve every marker of the plan's documents: none is left in any synthesized template, and
the stacks render the plan's own documents (no rebuilt copy)."""

from __future__ import annotations

import json

import pytest

from landing_zone.core import markers
from tests.conftest import EXAMPLES


@pytest.mark.parametrize("example", [None, *EXAMPLES], ids=lambda p: "default" if p is None else p.name)
def test_no_marker_is_left_in_any_template(synth, example) -> None:
    lz = synth(example)
    templates = sorted(lz.outdir.glob("*.template.json"))
    assert templates
    for path in templates:
        left = markers.markers_in(json.loads(path.read_text(encoding="utf-8")))
        assert not left, f"{path.name}: unresolved marker(s) {sorted(left)}"


def test_the_plan_names_markers_the_constructs_resolve(default_lz) -> None:
    """The check above is not vacuous: the plan's invoker documents do carry markers."""
    invokers = default_lz.plan.policies.invokers
    assert any(markers.markers_in(p.permissions) for p in invokers.values())


def test_the_guardrails_stack_renders_the_plan_scps(default_lz) -> None:
    stack = default_lz.landing_zone.guardrails
    assert stack is not None and stack.scps is default_lz.plan.policies.scps
    contents = [
        r["Properties"]["Content"]
        for r in default_lz.template("guardrails")
        .find_resources("AWS::Organizations::Policy", {"Properties": {"Type": "SERVICE_CONTROL_POLICY"}})
        .values()
    ]
    assert contents == list(default_lz.plan.policies.scp_contents)
