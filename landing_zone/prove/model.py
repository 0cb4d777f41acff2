"""The proofs' vocabulary (:mod:`landing_zone.prove.proofs`): the properties, the condition keys and resource
types they speak of, and the inputs, obligations and results of a proof run."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from landing_zone.actiondb.source import bedrock_prefixes
from landing_zone.errors import LandingZoneError
from landing_zone.plan import Plan
from landing_zone.policies import guardrails as g
from landing_zone.prove.perimeter import PERIMETER_PROPERTIES
from landing_zone.prove.prover import (
    Guard,
    ProofResult,
)

PROPERTIES: dict[str, str] = {
    "P1": "Region confinement: every request of a bedrock* prefix (Bedrock, AgentCore, Mantle, web search) outside the "
    "compliant Regions is denied",
    "P2": "model allow-list: every action that uses a model is denied on a model outside the allow-list",
    "P3": "tamper protection: no non-exempt principal can change a protected resource",
    "P4": "not over-blocking: legitimate requests are allowed for every value of the keys they do not fix",
    "P5": "invoker effective permissions allow only compliant inference on allowed models",
    "P6": "governed settings: inference on a service tier outside allowed_service_tiers, an AgentCore gateway without "
    "inbound authorization, an AgentCore runtime, code interpreter or browser without a VPC, and the API-key uses "
    "api_keys refuses (creating a Bedrock API key; with none every bearer-token call, with short-term-only a "
    "long-term one or one by a principal not listed) are denied",
    **PERIMETER_PROPERTIES,  # outside the governed perimeter: PO1-PO3 (landing_zone/prove/perimeter.py)
}

REGION = "aws:RequestedRegion"
PRINCIPAL = "aws:PrincipalARN"
SOURCE_VPCE = "aws:SourceVpce"
PROFILE_KEY = "bedrock:InferenceProfileArn"
MANTLE_KEY = "bedrock-mantle:Model"
SERVICE_TIER_KEY = "bedrock:ServiceTier"
MANTLE_TIER_KEY = "bedrock-mantle:ServiceTier"
GATEWAY_AUTHORIZER_KEY = "bedrock-agentcore:GatewayAuthorizerType"
API_KEY_CREATION = "iam:CreateServiceSpecificCredential"
CREDENTIAL_SERVICE_KEY = "iam:ServiceSpecificCredentialServiceName"
AGENTCORE_SUBNETS_KEY = "bedrock-agentcore:subnets"
AGENTCORE_SG_KEY = "bedrock-agentcore:securityGroups"
TAG_KEY = f"aws:ResourceTag/{g.LANDING_ZONE_TAG}"
TAG_KEYS = "aws:TagKeys"
# Service keys that, like the tags, say what the request asks for, so P4 holds them absent as the row states: the
# service tier (a request that names none runs in the default tier and carries no key: API_runtime_ServiceTier.html)
# and the data retention mode being set (data-retention.html); and the profile a leg belongs to (Bedrock sets
# bedrock:InferenceProfileArn on the legs of a profile call only: a direct call carries none, a leg row fixes it).
DESCRIBING_KEYS = frozenset(
    k.lower()
    for k in (
        "bedrock:InferenceProfileArn",
        "bedrock:ServiceTier",
        "bedrock-mantle:ServiceTier",
        "bedrock:DataRetentionMode",
        "bedrock-mantle:DataRetentionMode",
    )
)
# every bedrock* prefix of the IAM action database (not the SCP's list: a prefix the SCPs miss fails P1)
BEDROCK_PREFIXES = bedrock_prefixes()

# Resource types that name a model (IAM action database, service "bedrock").  application-inference-profile is left
# out: its ARN does not say which model it copies; every request through one is also authorised against the model's
# foundation-model ARN (its legs), which the foundation-model obligations cover.
MODEL_RESOURCE_TYPES = (
    "foundation-model",
    "inference-profile",
    "custom-model",
    "custom-model-deployment",
    "provisioned-model",
    "imported-model",
    "prompt-router",
    "default-prompt-router",
    "bedrock-marketplace-model-endpoint",
)
# Actions on a model resource that do not use a model: reading metadata, listing, tagging, removing, deregistering.
NOT_MODEL_USE = re.compile(r"^(Get|List|Delete|Deregister|Tag|Untag)")


# An obligation the solver could not decide is a timeout when it used at least this share of its budget, else the
# solver gave up (it stopped early: e.g. within a second of a 10 s budget).
GAVE_UP_FRACTION = 0.9


class Killed(Exception):
    """A mutation run found its first counterexample."""

    def __init__(self, obligation: Obligation, property_id: str) -> None:
        super().__init__(obligation.label)
        self.obligation = obligation
        self.property_id = property_id


class ProofError(LandingZoneError):
    """The policies cannot be proven about: an unsupported element, or a missing policy (exit code 2)."""


@dataclass(frozen=True)
class ProofInputs:
    plan: Plan
    source: str  # where the policies come from, in words
    assembly: str | None  # the --assembly path, for the simulate command lines
    guardrails: Guard  # the SCPs (organization mode) or the invoker boundary (single-account mode)
    boundary: Guard | None
    invokers: tuple[Guard, ...]  # one per invoker role: its identity policies
    endpoints: tuple[Guard, ...]

    @property
    def mode(self) -> str:
        return self.guardrails.mode

    @property
    def documents(self) -> list[tuple[str, Mapping[str, Any]]]:
        """Every policy document proven about: guardrails, invoker identity policies, endpoints, boundary."""
        docs = [*self.guardrails.documents, *(d for x in self.invokers for d in x.documents)]
        docs += [d for x in self.endpoints for d in x.documents]
        if self.boundary is not None:
            docs += self.boundary.documents
        return docs


@dataclass(frozen=True)
class Obligation:
    label: str
    result: ProofResult
    command: str | None = None  # the counterexample as a simulate command line
    members: tuple[str, ...] | None = None  # the actions the obligation stands for (one representative decides)
    timeout_s: float = 0.0  # the solver's budget for the obligation

    @property
    def verdict(self) -> str:
        """holds | fails | vacuous | timeout (the solver used its budget) | gave-up (the solver stopped before it:
        a question outside what it decides, never reported as holding)."""
        r = self.result
        if r.status != "unknown":
            return r.status
        return "timeout" if r.seconds >= GAVE_UP_FRACTION * self.timeout_s else "gave-up"

    def as_dict(self) -> dict[str, Any]:
        r = self.result
        out: dict[str, Any] = {"label": self.label, "status": self.verdict, "seconds": round(r.seconds, 4)}
        if self.members:
            out["actions"] = list(self.members)
        if r.reason:
            out["reason"] = r.reason
        if r.counterexample is not None:
            c = r.counterexample
            out["counterexample"] = {"action": c.action, "resource": c.resource, "context": dict(c.context)}
            out["simulate"] = self.command
            out["replay"] = {k: {"prover": p, "evaluator": e} for k, (p, e) in sorted(r.replay.items())}
            out["replay_agrees"] = r.replay_agrees
        return out


@dataclass(frozen=True)
class PropertyResult:
    id: str
    title: str
    obligations: tuple[Obligation, ...]
    seconds: float
    applies: bool = True
    note: str = ""

    @property
    def status(self) -> str:
        """holds | fails | not-proven (vacuous or unknown obligations) | disagreement | not-applicable"""
        if not self.applies:
            return "not-applicable"
        statuses = {o.result.status for o in self.obligations}
        if any(o.result.status == "fails" and not o.result.replay_agrees for o in self.obligations):
            return "disagreement"
        if "fails" in statuses:
            return "fails"
        if statuses - {"holds"}:
            return "not-proven"
        return "holds"

    @property
    def counterexamples(self) -> tuple[Obligation, ...]:
        return tuple(o for o in self.obligations if o.result.status == "fails")

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "applies": self.applies,
            "note": self.note,
            "seconds": round(self.seconds, 3),
            "obligations": len(self.obligations),
            "holding": sum(o.result.status == "holds" for o in self.obligations),
            "verdicts": dict(sorted(Counter(o.verdict for o in self.obligations).items())),
            "holds": [o.label for o in self.obligations if o.result.status == "holds"],
            "not_holding": [o.as_dict() for o in self.obligations if o.result.status != "holds"],
        }


@dataclass(frozen=True)
class ProofReport:
    source: str
    mode: str
    properties: tuple[PropertyResult, ...]

    @property
    def all_hold(self) -> bool:
        return all(p.status in ("holds", "not-applicable") for p in self.properties)

    def to_dict(self) -> dict[str, Any]:
        """For the review report: ``properties`` -> id -> status, seconds and every obligation not holding (status
        fails | timeout | vacuous, its counterexample as a ``simulate`` command)."""
        return self.as_dict()

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "mode": self.mode,
            "all_hold": self.all_hold,
            "properties": [p.as_dict() for p in self.properties],
        }

    def text(self, *, every_obligation: bool = False) -> str:
        """Per property its status, time and obligations counted by verdict; every obligation that does not hold
        (with its counterexample); with ``every_obligation`` the ones that hold too."""
        lines = [f"prove: {self.source}"]
        for p in self.properties:
            counts = Counter(o.verdict for o in p.obligations)
            tally = ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) or "no obligation"
            lines.append(f"{p.id} {p.status.upper():<14} {p.seconds:6.2f} s  {tally}  {p.title}")
            if p.note:
                lines.append(f"   note: {p.note}")
            for o in p.obligations:
                if o.result.status == "holds":
                    if every_obligation:
                        lines.append(f"   holds: {o.label}")
                    continue
                lines.append(f"   {o.verdict}: {o.label}{' — ' + o.result.reason if o.result.reason else ''}")
                if o.command:
                    agree = "agrees" if o.result.replay_agrees else "DISAGREES"
                    lines.append(f"     counterexample (evaluator replay {agree}): {o.command}")
        return "\n".join(lines)
