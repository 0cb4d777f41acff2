"""Every policy document is built once, in the plan (``landing_zone/plan/policies.py``): an AST scan of the app's
packages finds each builder of ``landing_zone.policies`` called there and nowhere else."""

from __future__ import annotations

import ast
import functools
from collections import defaultdict

import pytest

from landing_zone.core import markers
from tests.conftest import ROOT

PLAN_POLICIES = "landing_zone/plan/policies.py"
# Builders of one deployed document (or one SCP set): each has exactly one call site, in the plan.
DOCUMENT_BUILDERS = (
    "scp_documents",
    "guardrail_inference_policy",
    "guardrail_resource_policy",
    "permissions_boundary",
    "invoker_policy",
    "invoker_trust_policy",
    "endpoint_policy",
    "key_policy",
    "eks_data_key_policy",
    "s3_gateway_policy",
    "secrets_key_use_policy",
    "flow_log_role_policy",
    "invocation_log_bucket_policy",
    "bedrock_logging_trust_policy",
    "bedrock_logging_role_policy",
    "alerts_topic_policy",
    "kill_switch_policy",
    "budget_action_trust_policy",
    "budget_action_execution_policy",
    "budget_filter_expression",
    "account_settings_rule",
)
# Helpers that assemble several documents (the custom-resource handlers): called only in the plan.
HELPER_BUILDERS = ("handler_policy", "with_own_log_group")
# Readers that still rebuild a copy instead of reading plan.policies; owned by another change in flight, each
# needs the one-line change named here.  Remove an entry when its file reads the plan (the test below says so).
PENDING_READERS: dict[tuple[str, str], str] = {}
SCANNED = [ROOT / "app.py"] + [
    p for d in ("landing_zone", "stacks", "constructs_lib") for p in sorted((ROOT / d).rglob("*.py"))
]


def _called_name(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


@functools.cache
def call_sites() -> dict[str, list[str]]:
    """builder name -> ["path:line", ...] outside landing_zone/policies (where the builders call each other); scanned
    once per test process (the sources do not change during a run)."""
    sites: dict[str, list[str]] = defaultdict(list)
    for path in SCANNED:
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("landing_zone/policies/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and (name := _called_name(node)) in (*DOCUMENT_BUILDERS, *HELPER_BUILDERS):
                sites[name].append(f"{rel}:{node.lineno}")
    return sites


def _outside_plan(sites: list[str], builder: str) -> list[str]:
    return [s for s in sites if not s.startswith(PLAN_POLICIES) and (s.split(":")[0], builder) not in PENDING_READERS]


@pytest.mark.parametrize("builder", DOCUMENT_BUILDERS)
def test_each_document_builder_has_one_call_site_in_the_plan(builder: str) -> None:
    sites = call_sites()[builder]
    in_plan = [s for s in sites if s.startswith(PLAN_POLICIES)]
    assert len(in_plan) == 1, f"{builder}: expected one call in {PLAN_POLICIES}, found {sites}"
    assert not _outside_plan(sites, builder), f"{builder} is called outside the plan: {_outside_plan(sites, builder)}"


@pytest.mark.parametrize("builder", HELPER_BUILDERS)
def test_helper_builders_are_called_only_in_the_plan(builder: str) -> None:
    sites = call_sites()[builder]
    assert sites and not _outside_plan(sites, builder), sites


def test_pending_readers_are_still_pending() -> None:
    """Once simulate.py / cli/guardrails.py read plan.policies, drop their PENDING_READERS entries."""
    sites = call_sites()
    stale = [key for key in PENDING_READERS if not any(s.startswith(f"{key[0]}:") for s in sites[key[1]])]
    assert not stale, f"these now read the plan; remove them from PENDING_READERS: {stale}"


def test_the_plan_builds_every_document_once(plan_for) -> None:
    """The stacks' documents are the plan's objects: building the plan twice is the only way to get two copies."""
    plan = plan_for()
    assert plan.policies.scps is not None and plan.policies.scp_contents
    assert set(plan.policies.invokers) == {a.app.name for a in plan.applications}
    assert set(plan.policies.endpoints) == set(plan.config.network.endpoints)


def test_markers_resolve_everywhere_and_a_missing_value_is_an_error() -> None:
    doc = {
        "Statement": [
            {"Resource": sorted([markers.invoker_role_arn("b"), markers.invoker_role_arn("a")])},
            {"Resource": f"arn:aws:iam::{markers.ACCOUNT}:root"},
        ]
    }
    values = {markers.invoker_role_arn("a"): "z-role", markers.invoker_role_arn("b"): "y-role", markers.ACCOUNT: "1"}
    resolved = markers.resolve(doc, values)
    # a sorted list is sorted again, as the builder would have sorted the values themselves
    assert resolved["Statement"][0]["Resource"] == ["y-role", "z-role"]
    assert resolved["Statement"][1]["Resource"] == "arn:aws:iam::1:root"
    assert not markers.markers_in(resolved)
    with pytest.raises(markers.UnresolvedMarkerError, match=r"\$\{lz:account\}"):
        markers.resolve(doc, {k: v for k, v in values.items() if k != markers.ACCOUNT})


def test_markers_cannot_be_mistaken_for_cdk_tokens() -> None:
    assert not markers.MARKER.match("${Token[TOKEN.123]}")
    assert markers.MARKER.fullmatch(markers.endpoint_id("bedrock-runtime"))
