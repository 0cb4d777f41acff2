"""verify on the self-hosting example: the EKS node groups (GPU from a Capacity Block launch template, system
nodes), the node endpoints (S3 gateway included) and the data key are checked like everything else."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from landing_zone.assembly import Assembly
from landing_zone.aws import use_client_factory
from tests.conftest import ROOT
from tests.moto.harness import Deployed, deploy_intent, stack_suffix

pytestmark = pytest.mark.moto

SELF_HOSTING = ROOT / "examples" / "self-hosting.yaml"
# the cluster's name ends with its stack's suffix (its control-plane log group is retained)
CLUSTER = f"kimi-selfhost-inference-{stack_suffix('666666666666', 'us-east-1', 'kimi-selfhost-self-hosting')}"


@pytest.fixture(scope="module")
def selfhost(synth):
    return synth(SELF_HOSTING)


@pytest.fixture
def deployed_selfhost(selfhost, aws_mock) -> Iterator[Deployed]:
    state = deploy_intent(Assembly.load(selfhost.outdir), selfhost.plan)
    with use_client_factory(state.factory()):
        yield state


def _verify(cli, selfhost, *extra: str) -> tuple[int, dict]:
    code, stdout, _ = cli(
        ["verify", "--assembly", str(selfhost.outdir), "--config", str(SELF_HOSTING), "--json", *extra]
    )
    return code, json.loads(stdout)


def test_self_hosting_landing_zone_passes(deployed_selfhost, selfhost, cli) -> None:
    code, data = _verify(cli, selfhost)
    assert code == 0, [r for r in data["checks"] if r["status"] != "PASS"]
    nodegroups = [r for r in data["checks"] if r["check"] == "eks-nodegroup"]
    assert len(nodegroups) == 2
    gpu = next(r for r in nodegroups if "p6-b300.48xlarge" in r["expected"])
    assert gpu["expected"] == "CAPACITY_BLOCK p6-b300.48xlarge min 0 max 1"  # config: capacity-block, max_size 1
    assert gpu["resource"].startswith(f"{CLUSTER}/InferenceGpuNodes")
    assert "by its labels" in gpu["detail"]  # generated name, no CloudFormation record in moto
    endpoints = {r["resource"] for r in data["checks"] if r["check"] == "vpc-endpoint"}
    assert {"bedrock-runtime", "ecr.dkr", "eks", "s3"} <= endpoints
    assert "alias/kimi-selfhost/secrets" in {r["resource"] for r in data["checks"] if r["check"] == "kms-key"}


def test_gpu_node_group_gone(deployed_selfhost, selfhost, cli) -> None:
    eks = deployed_selfhost.client("eks", region="us-east-1")
    cluster = CLUSTER
    gpu = next(
        n
        for n in eks.list_nodegroups(clusterName=cluster)["nodegroups"]
        if eks.describe_nodegroup(clusterName=cluster, nodegroupName=n)["nodegroup"]["capacityType"] == "CAPACITY_BLOCK"
    )
    eks.delete_nodegroup(clusterName=cluster, nodegroupName=gpu)
    code, data = _verify(cli, selfhost)
    assert code == 1
    assert {(r["check"], r["status"]) for r in data["checks"] if r["status"] != "PASS"} == {
        ("eks-nodegroup", "MISSING")
    }
