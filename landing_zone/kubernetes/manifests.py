"""Kubernetes manifests and node bootstrap documents for self-hosting Kimi K3.1 Pro on EKS (pure, no CDK).

Every function returns plain dicts (or text) built from its arguments only, so the same documents are
written to ``<cdk outdir>/manifests/<stack>/`` at synth, applied through the kubectl provider when
``self_hosting.apply_manifests`` is on, and unit-tested (schema-checked offline) without a synth.

What is rendered (``render_manifests``), in apply order:

* ``Namespace`` ``kimi-inference``;
* the **NVIDIA device plugin** ``DaemonSet`` (kube-system): the AL2023 NVIDIA AMI ships driver and
  container toolkit but not the device plugin, so without it no pod can request ``nvidia.com/gpu``;
* the **DCGM exporter** ``DaemonSet`` (kube-system) with Prometheus scrape annotations (port 9400);
* a ``ServiceAccount`` for the vLLM pods (bind an EKS Pod Identity role to it for S3 weight downloads);
* the **vLLM** ``Deployment``: one pod per GPU node, tensor parallel over its 8 GPUs, weights cached on the
  node's NVMe RAID0, a startup probe whose budget (45 min) is well over the 22-27 min cold start;
* a private ``Service`` of type LoadBalancer: an **internal** NLB reachable only from ``allowed_cidrs``.

The node side (``node_config``, ``nvme_raid_script``): a nodeadm ``NodeConfig`` asking for a RAID0 of the
instance-store NVMe disks (``spec.instance.localStorage``), mounted by nodeadm at ``<mountPath>/0``, and a
shell fallback that builds the same array with mdadm when the AMI's nodeadm predates ``localStorage``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

# -- facts the documents rely on ---------------------------------------------------------------------
NAMESPACE = "kimi-inference"
APP_NAME = "kimi-vllm"
SERVED_MODEL_NAME = "kimi-k3.1-pro"
# Hugging Face repository of the open weights. UNVERIFIED: confirm the repository name on the model card
# (or pass a local path / S3 copy, see weights_s3_uri) before deploying.
DEFAULT_MODEL = "moonshotai/Kimi-K3.1-Pro"

# Images.  In an isolated VPC none of these registries is reachable: mirror each image into ECR (or use an
# ECR pull-through cache rule) and pass the ECR URIs.  Tags are pins to review, not recommendations.
DEFAULT_VLLM_IMAGE = "vllm/vllm-openai:kimi-k3"  # CUDA 13, needs driver >= 580 (AL2023 NVIDIA AMI)
DEFAULT_DEVICE_PLUGIN_IMAGE = "nvcr.io/nvidia/k8s-device-plugin:v0.18.2"
DEFAULT_DCGM_EXPORTER_IMAGE = "nvcr.io/nvidia/k8s/dcgm-exporter:4.5.2-4.8.1-distroless"
DEFAULT_AWS_CLI_IMAGE = "public.ecr.aws/aws-cli/aws-cli:2.31.0"

# Node labels and taint shared by the EKS node groups (constructs_lib/eks.py) and the pod specs here.
NODE_ROLE_LABEL = "landing-zone/node-role"
GPU_NODE_ROLE = "gpu-inference"
SYSTEM_NODE_ROLE = "system"
GPU_NODE_LABELS: Mapping[str, str] = {NODE_ROLE_LABEL: GPU_NODE_ROLE, "nvidia.com/gpu.present": "true"}
SYSTEM_NODE_LABELS: Mapping[str, str] = {NODE_ROLE_LABEL: SYSTEM_NODE_ROLE}
GPU_TAINT_KEY = "nvidia.com/gpu"
GPU_TAINT_VALUE = "true"
GPU_RESOURCE = "nvidia.com/gpu"

# NVMe weight cache.  nodeadm's RAID0 strategy mounts the array at <mountPath>/0 and bind-mounts
# /var/lib/kubelet, /var/lib/containerd and /var/log/pods onto it (awslabs/amazon-eks-ami,
# nodeadm/internal/system/local_disk.go).  The cache is a hostPath on the array so that the 1.5 TB of
# weights survive pod restarts (an emptyDir would be deleted with the pod and re-downloaded).
NVME_MOUNT_PATH = "/mnt/nvme"
NVME_ARRAY_PATH = f"{NVME_MOUNT_PATH}/0"
WEIGHT_CACHE_HOST_PATH = f"{NVME_ARRAY_PATH}/vllm-cache"
WEIGHT_CACHE_MOUNT_PATH = "/models"

VLLM_PORT = 8000
SERVICE_PORT = 80
DCGM_PORT = 9400

# Cold start of the weights (read, JIT, CUDA graphs) is catalog data (prices.yaml: cold_start_minutes, 22-27
# measured on 8xB300); the startup probe gives it 45 minutes.
STARTUP_PROBE_PERIOD_SECONDS = 30
STARTUP_PROBE_FAILURE_THRESHOLD = 90  # 90 x 30 s = 45 min before the kubelet gives up and restarts the pod


@dataclass(frozen=True)
class Images:
    """Container images; every one must be pullable from the nodes (ECR mirror in an isolated VPC)."""

    vllm: str = DEFAULT_VLLM_IMAGE
    device_plugin: str = DEFAULT_DEVICE_PLUGIN_IMAGE
    dcgm_exporter: str = DEFAULT_DCGM_EXPORTER_IMAGE
    aws_cli: str = DEFAULT_AWS_CLI_IMAGE


@dataclass(frozen=True)
class ServingSpec:
    """How vLLM serves the model on one 8-GPU node.

    ``weights_s3_uri``: omitted, vLLM downloads ``model`` from Hugging Face into the NVMe cache (needs a
    route to huggingface.co, which an isolated VPC does not have); set, an init container syncs the weights
    from S3 (through the S3 gateway endpoint) into the cache and vLLM loads them offline.
    """

    model: str = DEFAULT_MODEL
    served_model_name: str = SERVED_MODEL_NAME
    tensor_parallel_size: int = 8
    gpus_per_node: int = 8
    max_model_len: int = 1_048_576
    kv_cache_dtype: str = "fp8"
    tool_call_parser: str = "kimi_k3"
    reasoning_parser: str = "kimi_k3"
    replicas: int = 1
    allowed_cidrs: tuple[str, ...] = ()
    weights_s3_uri: str | None = None
    cpu_request: str = "96"
    memory_request: str = "1024Gi"
    shm_size: str = "128Gi"
    extra_args: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.tensor_parallel_size > self.gpus_per_node:
            raise ValueError(
                f"tensor_parallel_size: got {self.tensor_parallel_size}; must be <= gpus_per_node ({self.gpus_per_node}) "
                "on a single node"
            )
        if self.weights_s3_uri is not None and not self.weights_s3_uri.startswith("s3://"):
            raise ValueError(f"weights_s3_uri: got {self.weights_s3_uri!r}; must start with 's3://'")


# -- helpers ---------------------------------------------------------------------------------------------
def _labels(component: str) -> dict[str, str]:
    return {"app.kubernetes.io/name": component, "app.kubernetes.io/part-of": "kimi-landing-zone"}


def _gpu_toleration() -> dict[str, str]:
    return {"key": GPU_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}


def _scrape_annotations(port: int, path: str = "/metrics") -> dict[str, str]:
    # Annotation-based discovery (Prometheus kubernetes_sd / ADOT / CloudWatch agent): no ServiceMonitor CRD.
    return {"prometheus.io/scrape": "true", "prometheus.io/port": str(port), "prometheus.io/path": path}


def _gpu_node_selector() -> dict[str, str]:
    return {NODE_ROLE_LABEL: GPU_NODE_ROLE}


# -- documents ---------------------------------------------------------------------------------------------
def namespace(name: str = NAMESPACE) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": _labels(APP_NAME)}}


def device_plugin_daemonset(images: Images = Images()) -> dict[str, Any]:
    """NVIDIA's static device-plugin manifest, pinned to the GPU nodes (label + taint)."""
    labels = {"name": "nvidia-device-plugin-ds", **_labels("nvidia-device-plugin")}
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "nvidia-device-plugin-daemonset", "namespace": "kube-system", "labels": labels},
        "spec": {
            "selector": {"matchLabels": {"name": "nvidia-device-plugin-ds"}},
            "updateStrategy": {"type": "RollingUpdate"},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "nodeSelector": _gpu_node_selector(),
                    "tolerations": [_gpu_toleration()],
                    "priorityClassName": "system-node-critical",
                    "containers": [
                        {
                            "name": "nvidia-device-plugin-ctr",
                            "image": images.device_plugin,
                            "env": [{"name": "FAIL_ON_INIT_ERROR", "value": "false"}],
                            "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
                            "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "256Mi"}},
                            "volumeMounts": [
                                {"name": "kubelet-device-plugins-dir", "mountPath": "/var/lib/kubelet/device-plugins"}
                            ],
                        }
                    ],
                    "volumes": [
                        {
                            "name": "kubelet-device-plugins-dir",
                            "hostPath": {"path": "/var/lib/kubelet/device-plugins", "type": "Directory"},
                        }
                    ],
                },
            },
        },
    }


def dcgm_exporter_daemonset(images: Images = Images()) -> dict[str, Any]:
    """GPU telemetry (utilisation, memory, power, XID errors) on :9400/metrics, one pod per GPU node."""
    labels = _labels("dcgm-exporter")
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "dcgm-exporter", "namespace": "kube-system", "labels": labels},
        "spec": {
            "selector": {"matchLabels": labels},
            "updateStrategy": {"type": "RollingUpdate"},
            "template": {
                "metadata": {"labels": labels, "annotations": _scrape_annotations(DCGM_PORT)},
                "spec": {
                    "nodeSelector": _gpu_node_selector(),
                    "tolerations": [_gpu_toleration()],
                    "priorityClassName": "system-node-critical",
                    "containers": [
                        {
                            "name": "dcgm-exporter",
                            "image": images.dcgm_exporter,
                            "env": [
                                {"name": "DCGM_EXPORTER_LISTEN", "value": f":{DCGM_PORT}"},
                                {"name": "DCGM_EXPORTER_KUBERNETES", "value": "true"},
                                # No GPU is requested (vLLM holds all 8); the NVIDIA runtime exposes them all.
                                {"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"},
                            ],
                            "ports": [{"name": "metrics", "containerPort": DCGM_PORT, "protocol": "TCP"}],
                            # SYS_ADMIN: DCGM profiling metrics (DCP); nothing else is added.
                            "securityContext": {
                                "runAsNonRoot": False,
                                "runAsUser": 0,
                                "capabilities": {"add": ["SYS_ADMIN"]},
                            },
                            "resources": {
                                "requests": {"cpu": "100m", "memory": "128Mi"},
                                "limits": {"memory": "512Mi"},
                            },
                            "readinessProbe": {
                                "httpGet": {"path": "/health", "port": DCGM_PORT},
                                "periodSeconds": 15,
                            },
                            "volumeMounts": [
                                {
                                    "name": "pod-gpu-resources",
                                    "mountPath": "/var/lib/kubelet/pod-resources",
                                    "readOnly": True,
                                }
                            ],
                        }
                    ],
                    "volumes": [
                        {
                            "name": "pod-gpu-resources",
                            "hostPath": {"path": "/var/lib/kubelet/pod-resources", "type": "Directory"},
                        }
                    ],
                },
            },
        },
    }


def vllm_service_account(ns: str = NAMESPACE) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": APP_NAME, "namespace": ns, "labels": _labels(APP_NAME)},
        "automountServiceAccountToken": False,
    }


def _local_model_path(spec: ServingSpec) -> str:
    return f"{WEIGHT_CACHE_MOUNT_PATH}/{spec.served_model_name}"


def vllm_args(spec: ServingSpec = ServingSpec()) -> list[str]:
    """``vllm serve`` arguments (FACTS section 7; aws-samples/sample-llm-inference-on-eks)."""
    model = _local_model_path(spec) if spec.weights_s3_uri else spec.model
    return [
        model,
        "--served-model-name",
        spec.served_model_name,
        "--host",
        "0.0.0.0",
        "--port",
        str(VLLM_PORT),
        "--tensor-parallel-size",
        str(spec.tensor_parallel_size),
        "--max-model-len",
        str(spec.max_model_len),
        "--kv-cache-dtype",
        spec.kv_cache_dtype,
        "--enable-prefix-caching",
        "--enable-auto-tool-choice",
        "--tool-call-parser",
        spec.tool_call_parser,
        "--reasoning-parser",
        spec.reasoning_parser,
        "--trust-remote-code",
        *spec.extra_args,
    ]


def vllm_env(spec: ServingSpec = ServingSpec()) -> list[dict[str, str]]:
    env = [
        # The Rust frontend drops the kimi_k3 tool-call parser's output: tool calling needs the Python one.
        {"name": "VLLM_USE_RUST_FRONTEND", "value": "0"},
        {"name": "HF_HOME", "value": f"{WEIGHT_CACHE_MOUNT_PATH}/hf"},
        {"name": "VLLM_CACHE_ROOT", "value": f"{WEIGHT_CACHE_MOUNT_PATH}/vllm"},
    ]
    if spec.weights_s3_uri:
        env.append({"name": "HF_HUB_OFFLINE", "value": "1"})
    return env


def _health_probe(**timing: int) -> dict[str, Any]:
    return {"httpGet": {"path": "/health", "port": "http"}, **timing}


def vllm_deployment(
    spec: ServingSpec = ServingSpec(), images: Images = Images(), ns: str = NAMESPACE
) -> dict[str, Any]:
    labels = _labels(APP_NAME)
    gpus = str(spec.gpus_per_node)
    volumes: list[dict[str, Any]] = [
        {"name": "weight-cache", "hostPath": {"path": WEIGHT_CACHE_HOST_PATH, "type": "DirectoryOrCreate"}},
        {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": spec.shm_size}},
    ]
    container: dict[str, Any] = {
        "name": "vllm",
        "image": images.vllm,
        "command": ["vllm", "serve"],
        "args": vllm_args(spec),
        "env": vllm_env(spec),
        "ports": [{"name": "http", "containerPort": VLLM_PORT, "protocol": "TCP"}],
        "resources": {
            "requests": {GPU_RESOURCE: gpus, "cpu": spec.cpu_request, "memory": spec.memory_request},
            "limits": {GPU_RESOURCE: gpus},
        },
        "startupProbe": _health_probe(
            periodSeconds=STARTUP_PROBE_PERIOD_SECONDS,
            failureThreshold=STARTUP_PROBE_FAILURE_THRESHOLD,
            timeoutSeconds=5,
        ),
        "readinessProbe": _health_probe(periodSeconds=10, failureThreshold=3, timeoutSeconds=5),
        "livenessProbe": _health_probe(periodSeconds=30, failureThreshold=5, timeoutSeconds=10),
        "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
        "volumeMounts": [
            {"name": "weight-cache", "mountPath": WEIGHT_CACHE_MOUNT_PATH},
            {"name": "dshm", "mountPath": "/dev/shm"},
        ],
    }
    pod_spec: dict[str, Any] = {
        "serviceAccountName": APP_NAME,
        "automountServiceAccountToken": bool(spec.weights_s3_uri),  # Pod Identity needs the projected token
        "nodeSelector": _gpu_node_selector(),
        "tolerations": [_gpu_toleration()],
        "terminationGracePeriodSeconds": 120,
        "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [container],
        "volumes": volumes,
    }
    if spec.weights_s3_uri:
        pod_spec["initContainers"] = [
            {
                "name": "fetch-weights",
                "image": images.aws_cli,
                # sync only copies what is missing: a warm NVMe cache makes this a listing, not a download.
                "command": ["aws", "s3", "sync", spec.weights_s3_uri, _local_model_path(spec), "--only-show-errors"],
                "resources": {"requests": {"cpu": "8", "memory": "16Gi"}},
                "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
                "volumeMounts": [{"name": "weight-cache", "mountPath": WEIGHT_CACHE_MOUNT_PATH}],
            }
        ]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": APP_NAME, "namespace": ns, "labels": labels},
        "spec": {
            "replicas": spec.replicas,
            "selector": {"matchLabels": labels},
            # One pod holds all 8 GPUs of a node: a rolling update would need a second node.
            "strategy": {"type": "Recreate"},
            # Longer than the startup budget so a normal cold start is not reported as a failed rollout.
            "progressDeadlineSeconds": STARTUP_PROBE_PERIOD_SECONDS * STARTUP_PROBE_FAILURE_THRESHOLD + 900,
            "template": {
                "metadata": {"labels": labels, "annotations": _scrape_annotations(VLLM_PORT)},
                "spec": pod_spec,
            },
        },
    }


# Both annotation families: the EKS-managed cloud controller reads `-type: nlb` + `-internal`, the AWS Load
# Balancer Controller (if you install it) reads `-scheme: internal`.  Either way the NLB is internal.
INTERNAL_NLB_ANNOTATIONS: Mapping[str, str] = {
    "service.beta.kubernetes.io/aws-load-balancer-type": "nlb",
    "service.beta.kubernetes.io/aws-load-balancer-internal": "true",
    "service.beta.kubernetes.io/aws-load-balancer-scheme": "internal",
    "service.beta.kubernetes.io/aws-load-balancer-cross-zone-load-balancing-enabled": "true",
}


def vllm_service(spec: ServingSpec = ServingSpec(), ns: str = NAMESPACE) -> dict[str, Any]:
    service_spec: dict[str, Any] = {
        "type": "LoadBalancer",
        "selector": _labels(APP_NAME),
        "ports": [{"name": "http", "port": SERVICE_PORT, "targetPort": "http", "protocol": "TCP"}],
    }
    if spec.allowed_cidrs:
        service_spec["loadBalancerSourceRanges"] = list(spec.allowed_cidrs)
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": APP_NAME,
            "namespace": ns,
            "labels": _labels(APP_NAME),
            "annotations": dict(INTERNAL_NLB_ANNOTATIONS),
        },
        "spec": service_spec,
    }


def render_manifests(spec: ServingSpec = ServingSpec(), images: Images = Images()) -> list[dict[str, Any]]:
    """Every document, in apply order (namespace first)."""
    return [
        namespace(),
        device_plugin_daemonset(images),
        dcgm_exporter_daemonset(images),
        vllm_service_account(),
        vllm_deployment(spec, images),
        vllm_service(spec),
    ]


# -- files ---------------------------------------------------------------------------------------------
_FILE_ORDER = {"Namespace": 0, "DaemonSet": 10, "ServiceAccount": 20, "Deployment": 30, "Service": 40}


class _NoAliasDumper(yaml.SafeDumper):
    """Safe dumper that writes repeated objects (shared label dicts) in full instead of as &anchors."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def to_yaml(docs: Iterable[Mapping[str, Any]]) -> str:
    """Multi-document YAML; key order as built (deterministic), no aliases."""
    return yaml.dump_all([dict(d) for d in docs], Dumper=_NoAliasDumper, sort_keys=False, default_flow_style=False)


def manifest_files(docs: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """File name -> YAML text, one document per file, named ``NN-<kind>-<name>.yaml`` in apply order."""
    files: dict[str, str] = {}
    for index, doc in enumerate(docs):
        kind = doc["kind"]
        prefix = _FILE_ORDER.get(kind, 90) + index
        name = f"{prefix:02d}-{kind.lower()}-{doc['metadata']['name']}.yaml"
        files[name] = to_yaml([doc])
    return files


def write_manifests(docs: Sequence[Mapping[str, Any]], directory: str | Path) -> list[Path]:
    """Write ``manifest_files(docs)`` plus ``all.yaml`` (every document) into ``directory``; returns the paths.

    Files from an earlier render that are no longer produced are removed, so the directory is exactly the
    current render (``kubectl apply -f <dir>/all.yaml`` applies everything in order).
    """
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    files = manifest_files(docs)
    files["all.yaml"] = to_yaml(docs)
    for stale in out.glob("*.yaml"):
        if stale.name not in files:
            stale.unlink()
    written = []
    for name, text in sorted(files.items()):
        path = out / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


# -- node bootstrap -----------------------------------------------------------------------------------
def node_config(mount_path: str = NVME_MOUNT_PATH) -> dict[str, Any]:
    """nodeadm NodeConfig (node.eks.aws/v1alpha1) merged by EKS with the cluster details it injects.

    ``spec.instance.localStorage.strategy: RAID0`` makes nodeadm build one RAID0 array from every
    instance-store NVMe disk, format it XFS, mount it at ``<mountPath>/0`` and bind-mount the kubelet,
    containerd and pod-log directories onto it (nodeadm API: awslabs/amazon-eks-ami,
    nodeadm/api/v1alpha1/nodeconfig_types.go, LocalStorageOptions).
    """
    return {
        "apiVersion": "node.eks.aws/v1alpha1",
        "kind": "NodeConfig",
        "spec": {"instance": {"localStorage": {"strategy": "RAID0", "mountPath": mount_path}}},
    }


def node_config_yaml(mount_path: str = NVME_MOUNT_PATH) -> str:
    return "---\n" + yaml.safe_dump(node_config(mount_path), sort_keys=False)


def nvme_raid_script(mount_path: str = NVME_MOUNT_PATH) -> str:
    """Idempotent fallback run by cloud-init after nodeadm's config phase.

    If nodeadm already mounted the array (``<mountPath>/0`` is a mount point) it only creates the cache
    directory.  Otherwise (an AMI whose nodeadm predates ``localStorage``) it builds the array the way
    nodeadm does (same md name ``kubernetes``, same ``/.aws/mdadm.conf``), so the two never fight.
    """
    array = f"{mount_path}/0"
    return f"""#!/bin/bash
set -euo pipefail
ARRAY_MOUNT="{array}"
CACHE_DIR="{WEIGHT_CACHE_HOST_PATH}"
if ! mountpoint -q "$ARRAY_MOUNT"; then
  mapfile -t DISKS < <(find -L /dev/disk/by-id/ -xtype l -name '*NVMe_Instance_Storage_*' -exec realpath {{}} \\; | sort -u)
  if [ "${{#DISKS[@]}}" -gt 0 ]; then
    if [ ! -s /.aws/mdadm.conf ]; then
      mkdir -p /.aws
      mdadm --create --force --verbose /dev/md/kubernetes --level=0 --name=kubernetes \\
        --raid-devices="${{#DISKS[@]}}" "${{DISKS[@]}}"
      mdadm --detail --scan > /.aws/mdadm.conf
    fi
    MD_DEVICE="$(find /dev/md/ -name 'kubernetes*' | sort | tail -n1)"
    if [ -z "$(lsblk "$MD_DEVICE" -o fstype --noheadings)" ]; then
      mkfs.xfs -K -l su=8b "$MD_DEVICE"
    fi
    mkdir -p "$ARRAY_MOUNT"
    mount -o defaults,noatime "$MD_DEVICE" "$ARRAY_MOUNT"
  else
    echo "no NVMe instance-store disks found: the weight cache stays on the root volume" >&2
    mkdir -p "$ARRAY_MOUNT"
  fi
fi
mkdir -p "$CACHE_DIR"
chmod 0750 "$CACHE_DIR"
"""
