"""The pure Kubernetes renderer: schema-checked offline, and the serving flags the model needs.

Schemas: the ``kubernetes-validate`` package ships the Kubernetes JSON schemas (generated from the OpenAPI
spec of each release, yannh/kubernetes-json-schema) inside the wheel, so validation needs no network.  The
``strict`` schemas reject unknown fields, which catches misspelt keys.
"""

from __future__ import annotations

import subprocess

import kubernetes_validate
import pytest
import yaml

from landing_zone.kubernetes import manifests as m

K8S_VERSION = "1.34"  # config default self_hosting.kubernetes_version
SPEC = m.ServingSpec(allowed_cidrs=("10.80.0.0/16",))
DOCS = m.render_manifests(SPEC)
S3_DOCS = m.render_manifests(m.ServingSpec(weights_s3_uri="s3://weights-bucket/kimi-k3.1-pro/"))


def by_kind(docs, kind, name=None):
    (doc,) = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    return doc


def vllm_container(docs=DOCS):
    return by_kind(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]


def flag(args, name):
    return args[args.index(name) + 1]


@pytest.mark.parametrize(
    "doc", DOCS + [by_kind(S3_DOCS, "Deployment")], ids=lambda d: f"{d['kind']}-{d['metadata']['name']}"
)
def test_every_document_validates_against_the_strict_kubernetes_schema(doc):
    assert kubernetes_validate.validate(doc, K8S_VERSION, strict=True) == K8S_VERSION


def test_the_validator_rejects_a_misspelt_field():
    doc = by_kind(DOCS, "Deployment")
    broken = {**doc, "spec": {**doc["spec"], "replica": 1}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, K8S_VERSION, strict=True)


def test_rendered_yaml_round_trips_to_the_same_documents():
    assert list(yaml.safe_load_all(m.to_yaml(DOCS))) == DOCS


def test_apply_order_starts_with_the_namespace():
    assert [d["kind"] for d in DOCS] == [
        "Namespace",
        "DaemonSet",
        "DaemonSet",
        "ServiceAccount",
        "Deployment",
        "Service",
    ]


# -- vLLM ----------------------------------------------------------------------------------------------
def test_vllm_serves_with_tensor_parallel_8_and_a_1m_context():
    args = vllm_container()["args"]
    assert flag(args, "--tensor-parallel-size") == "8"
    assert flag(args, "--max-model-len") == "1048576"
    assert flag(args, "--kv-cache-dtype") == "fp8"
    assert "--enable-prefix-caching" in args


def test_vllm_tool_calling_uses_the_kimi_k3_parsers_and_the_python_frontend():
    container = vllm_container()
    args = container["args"]
    assert flag(args, "--tool-call-parser") == "kimi_k3"
    assert flag(args, "--reasoning-parser") == "kimi_k3"
    assert "--enable-auto-tool-choice" in args
    assert {"name": "VLLM_USE_RUST_FRONTEND", "value": "0"} in container["env"]


def test_vllm_takes_all_eight_gpus_of_a_tainted_gpu_node():
    container = vllm_container()
    assert container["resources"]["limits"][m.GPU_RESOURCE] == "8"
    assert container["resources"]["requests"][m.GPU_RESOURCE] == "8"
    pod = by_kind(DOCS, "Deployment")["spec"]["template"]["spec"]
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]
    assert pod["nodeSelector"].items() <= m.GPU_NODE_LABELS.items()


def test_weight_cache_is_a_host_path_on_the_nvme_raid():
    pod = by_kind(DOCS, "Deployment")["spec"]["template"]["spec"]
    cache = next(v for v in pod["volumes"] if v["name"] == "weight-cache")
    assert cache["hostPath"]["path"].startswith(m.NVME_MOUNT_PATH + "/")
    mounts = {vm["name"]: vm["mountPath"] for vm in vllm_container()["volumeMounts"]}
    assert mounts == {"weight-cache": m.WEIGHT_CACHE_MOUNT_PATH, "dshm": "/dev/shm"}


def test_startup_probe_budget_is_well_over_the_cold_start():
    probe = vllm_container()["startupProbe"]
    budget_minutes = probe["periodSeconds"] * probe["failureThreshold"] / 60
    from landing_zone.core.catalog.prices import load_price_catalog

    cold_start = load_price_catalog().self_hosting["p6-b300.48xlarge"].cold_start_minutes
    assert cold_start == (22, 27)
    assert budget_minutes >= max(cold_start) * 1.5
    assert probe["httpGet"]["path"] == "/health"
    deployment = by_kind(DOCS, "Deployment")["spec"]
    assert deployment["progressDeadlineSeconds"] > probe["periodSeconds"] * probe["failureThreshold"]
    assert deployment["strategy"] == {"type": "Recreate"}


def test_vllm_pods_carry_prometheus_scrape_annotations():
    annotations = by_kind(DOCS, "Deployment")["spec"]["template"]["metadata"]["annotations"]
    assert annotations == {
        "prometheus.io/scrape": "true",
        "prometheus.io/port": "8000",
        "prometheus.io/path": "/metrics",
    }


def test_weights_from_s3_are_synced_by_an_init_container_and_loaded_offline():
    pod = by_kind(S3_DOCS, "Deployment")["spec"]["template"]["spec"]
    (init,) = pod["initContainers"]
    assert init["command"][:4] == ["aws", "s3", "sync", "s3://weights-bucket/kimi-k3.1-pro/"]
    container = pod["containers"][0]
    assert container["args"][0] == init["command"][4] == f"{m.WEIGHT_CACHE_MOUNT_PATH}/kimi-k3.1-pro"
    assert {"name": "HF_HUB_OFFLINE", "value": "1"} in container["env"]
    assert pod["automountServiceAccountToken"] is True  # EKS Pod Identity needs the projected token


def test_serving_spec_rejects_impossible_values():
    with pytest.raises(ValueError, match="tensor_parallel_size"):
        m.ServingSpec(tensor_parallel_size=16)
    with pytest.raises(ValueError, match="weights_s3_uri"):
        m.ServingSpec(weights_s3_uri="https://example.com/weights")


# -- Service ---------------------------------------------------------------------------------------------
def test_service_is_an_internal_nlb_open_only_to_the_vpc():
    svc = by_kind(DOCS, "Service")
    annotations = svc["metadata"]["annotations"]
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-scheme"] == "internal"
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-internal"] == "true"
    assert svc["spec"]["type"] == "LoadBalancer"
    assert svc["spec"]["loadBalancerSourceRanges"] == ["10.80.0.0/16"]
    assert svc["spec"]["selector"] == by_kind(DOCS, "Deployment")["spec"]["selector"]["matchLabels"]


# -- DaemonSets ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["nvidia-device-plugin-daemonset", "dcgm-exporter"])
def test_gpu_daemonsets_run_only_on_gpu_nodes_and_tolerate_the_taint(name):
    pod = by_kind(DOCS, "DaemonSet", name)["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {m.NODE_ROLE_LABEL: m.GPU_NODE_ROLE}
    assert pod["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def test_device_plugin_registers_with_the_kubelet_without_privileges():
    container = by_kind(DOCS, "DaemonSet", "nvidia-device-plugin-daemonset")["spec"]["template"]["spec"]["containers"][
        0
    ]
    assert container["volumeMounts"][0]["mountPath"] == "/var/lib/kubelet/device-plugins"
    assert container["securityContext"] == {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}


def test_dcgm_exporter_is_scraped_on_9400():
    template = by_kind(DOCS, "DaemonSet", "dcgm-exporter")["spec"]["template"]
    assert template["metadata"]["annotations"]["prometheus.io/port"] == "9400"
    assert template["spec"]["containers"][0]["ports"] == [{"name": "metrics", "containerPort": 9400, "protocol": "TCP"}]


def test_images_are_configurable():
    images = m.Images(
        vllm="111111111111.dkr.ecr.us-east-1.amazonaws.com/docker-hub/vllm/vllm-openai:kimi-k3",
        device_plugin="111111111111.dkr.ecr.us-east-1.amazonaws.com/nvidia/k8s-device-plugin:v0.18.2",
    )
    docs = m.render_manifests(SPEC, images)
    assert vllm_container(docs)["image"] == images.vllm
    plugin = by_kind(docs, "DaemonSet", "nvidia-device-plugin-daemonset")
    assert plugin["spec"]["template"]["spec"]["containers"][0]["image"] == images.device_plugin


# -- files ------------------------------------------------------------------------------------------------
def test_write_manifests_writes_one_file_per_document_plus_all_and_drops_stale_files(tmp_path):
    (tmp_path / "99-stale.yaml").write_text("kind: Old\n")
    written = m.write_manifests(DOCS, tmp_path)
    names = sorted(p.name for p in tmp_path.glob("*.yaml"))
    assert names == sorted(p.name for p in written) and "99-stale.yaml" not in names
    assert len(names) == len(DOCS) + 1 and names[0].startswith("00-namespace")
    assert list(yaml.safe_load_all((tmp_path / "all.yaml").read_text())) == DOCS


def test_rendering_is_deterministic():
    assert m.to_yaml(m.render_manifests(SPEC)) == m.to_yaml(m.render_manifests(SPEC))


# -- node bootstrap -----------------------------------------------------------------------------------------
def test_node_config_asks_nodeadm_for_a_raid0_of_the_instance_store():
    doc = yaml.safe_load(m.node_config_yaml())
    assert doc == {
        "apiVersion": "node.eks.aws/v1alpha1",
        "kind": "NodeConfig",
        "spec": {"instance": {"localStorage": {"strategy": "RAID0", "mountPath": "/mnt/nvme"}}},
    }


def test_nvme_fallback_script_is_valid_bash_and_matches_nodeadm_layout(tmp_path):
    script = m.nvme_raid_script()
    path = tmp_path / "raid.sh"
    path.write_text(script)
    subprocess.run(["bash", "-n", str(path)], check=True)
    assert 'ARRAY_MOUNT="/mnt/nvme/0"' in script and "/dev/md/kubernetes" in script and "/.aws/mdadm.conf" in script
    assert "mountpoint -q" in script  # does nothing when nodeadm already built the array
    assert m.WEIGHT_CACHE_HOST_PATH in script
