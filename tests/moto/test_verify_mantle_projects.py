"""verify resolves each application's Mantle Project (``AWS::BedrockMantle::Project``, no SDK client lists them) from
its stack's record: the physical ID is the project's ARN (``Ref``), its ``Id`` the ARN's last segment.  The invoker
policy (``bedrock-mantle:ProjectArn``) and the spend alarm (the ``Project`` dimension of ``AWS/BedrockMantle``) are
compared with the project the stack created; a policy naming another project is drift, and a project whose ARN
nothing reports is an ERROR of the policy that names it, not a pass."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from landing_zone.assembly import Assembly
from landing_zone.aws import use_client_factory
from tests.conftest import ROOT
from tests.moto.conftest import run_cli
from tests.moto.harness import MANTLE_PROJECT_TYPE, Deployed, deploy_intent

pytestmark = pytest.mark.moto

SELF_HOSTING = ROOT / "examples" / "self-hosting.yaml"  # one application, its own Mantle Project
INVOKER_POLICY = "kimi-selfhost-invoke-inference-prod"  # bedrock-mantle:ProjectArn of the project
SPEND_ALARM = "kimi-selfhost-spend-inference-prod"  # the project's AWS/BedrockMantle series


@pytest.fixture
def deployed(synth, aws_mock) -> Iterator[tuple[Deployed, list[str]]]:
    synthesized = synth(SELF_HOSTING)
    state = deploy_intent(Assembly.load(synthesized.outdir), synthesized.plan)
    args = ["verify", "--assembly", str(synthesized.outdir), "--config", str(SELF_HOSTING)]
    with use_client_factory(state.factory()):
        yield state, args


def _checks(args: list[str]) -> tuple[int, list[dict]]:
    code, stdout, _ = run_cli([*args, "--json"])
    return code, json.loads(stdout)["checks"]


def _project(state: Deployed) -> tuple[str, str]:
    """(logical ID, ARN) of the deployment's one Mantle Project."""
    (res,) = state.assembly.resources(MANTLE_PROJECT_TYPE)
    return res.logical_id, str(state.ids[res.path])


def _document(iam, policy_arn: str, version: str) -> str:
    document = iam.get_policy_version(PolicyArn=policy_arn, VersionId=version)["PolicyVersion"]["Document"]
    return document if isinstance(document, str) else json.dumps(document)


def test_the_policy_and_the_alarm_that_name_the_project_pass(deployed) -> None:
    """Resolved from the stack's record (the policy's ``GetAtt .Arn``) and from the access stack's export of
    ``GetAtt .Id`` (the alarm's ``Project`` dimension, imported by the cost stack)."""
    _, args = deployed
    code, checks = _checks(args)
    assert code == 0, [r for r in checks if r["status"] != "PASS"]
    status = {(r["check"], r["resource"]): r["status"] for r in checks}
    assert status[("iam-policy", INVOKER_POLICY)] == "PASS"
    assert status[("alarm", SPEND_ALARM)] == "PASS"


def test_an_invoker_policy_naming_another_project_is_drift(deployed) -> None:
    state, args = deployed
    _, arn = _project(state)
    iam = state.client("iam")
    documents = {
        p["PolicyName"]: (p["Arn"], _document(iam, p["Arn"], p["DefaultVersionId"]))
        for p in iam.list_policies(Scope="Local")["Policies"]
    }
    ((name, (policy_arn, text)),) = [(n, d) for n, d in documents.items() if arn in d[1]]  # the invoker's only
    other = arn.rsplit("/", 1)[0] + "/proj_elsewhere"
    iam.create_policy_version(PolicyArn=policy_arn, PolicyDocument=text.replace(arn, other), SetAsDefault=True)
    code, checks = _checks(args)
    assert code == 1
    (row,) = [r for r in checks if r["status"] != "PASS"]
    assert (row["check"], row["resource"], row["status"]) == ("iam-policy", name, "DRIFT")
    assert other in row["detail"] or other in str(row["actual"])


def test_a_project_its_stack_has_no_record_of_is_an_error_of_the_policy_naming_its_arn(deployed) -> None:
    """Without the stack's record nothing gives the project's ARN (no stack output names it, no SDK client lists
    projects): the invoker policy is ERROR, naming the project; the alarm still passes, its dimension is the Id the
    access stack exports."""
    state, args = deployed
    logical_id, _ = _project(state)
    (res,) = state.assembly.resources(MANTLE_PROJECT_TYPE)
    record = state.moto_stack(res.stack.name).resource_map
    record._parsed_resources.pop(logical_id)
    record._resource_json_map.pop(logical_id)
    code, checks = _checks(args)
    assert code == 1
    (row,) = [r for r in checks if r["status"] != "PASS"]
    assert (row["check"], row["resource"], row["status"]) == ("iam-policy", INVOKER_POLICY, "ERROR")
    assert f"{res.path}.Arn" in row["detail"] and "no stack output names it" in row["detail"]
    assert {(r["check"], r["status"]) for r in checks if r["resource"] == SPEND_ALARM} == {("alarm", "PASS")}
