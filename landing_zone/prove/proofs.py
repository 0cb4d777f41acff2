"""Properties P1-P6 of the deployed policies, proven for every request (``python -m landing_zone prove``).

The policies are read from the synthesized cloud assembly (what deploys); the properties are stated from the
configuration and the routing decision (what was asked for), never from the policies themselves:

* **P1 Region confinement** — every request of a ``bedrock*`` prefix of the IAM action database whose
  ``aws:RequestedRegion`` is not compliant is denied by the guardrails: for *any* action of the prefix (which
  covers every action of the IAM action database and every action added later).  When it fails, each database
  action is checked on its own to list them all.
* **P2 model allow-list** — each action the IAM action database lists with a required model resource
  (:data:`MODEL_RESOURCE_TYPES`), except removals and reads of metadata (:data:`NOT_MODEL_USE`), is denied on a
  model outside the allow-list, from a compliant Region: a foundation model that is not allowed, a system
  inference profile of one, and any custom / provisioned / imported / marketplace model or prompt router; and
  every Mantle action that carries ``bedrock-mantle:Model`` is denied for a model that is not allowed on Mantle —
  in every compliant and every source Region (and the global leg's ``unspecified`` when global inference is on).
  Model-taking actions with no resource type rest on a second authorization (``actiondb/data/
  second_authorization.yaml``).
* **P3 tamper protection** (organization mode) — no principal outside the exemptions can change a protected
  resource: each :class:`Protected` target (an action set and ARN patterns, or the landing-zone tag) is denied.
  The targets come from :func:`protected_targets`; a protected-resource inventory can be passed instead.
* **P4 not over-blocking** — every legitimate request of the standard cases and of the red-team table's
  neighbours (workload through its application profile and each destination leg, Mantle inference, the deployer,
  the logging automation) is allowed by the guardrails *for every value of the keys it does not fix*.
* **P5 invoker effective permissions** — identity policy ∩ permissions boundary ∩ SCPs ∩ VPC endpoint policy
  (when the request came through an endpoint, i.e. carries ``aws:SourceVpce``; any of the landing zone's
  endpoints, an over-approximation) allow an invoker role only the ceiling's actions, Bedrock requests only in
  compliant Regions, model-taking actions only on allowed models and profiles, and Mantle inference only on
  allowed Mantle models.

Each obligation is answered ``holds``, ``fails`` (a concrete request with only the keys that matter, printed as a
``simulate`` command and replayed through the evaluator: prover and evaluator must agree), ``vacuous`` (its premise
admits no request: not a proof), ``timeout`` or ``gave-up`` (:attr:`Obligation.verdict`).  A property holds
when every obligation holds.
"""

from __future__ import annotations

import contextlib
import copyreg
import fnmatch
import functools
import json
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from landing_zone.assembly import Assembly, load_assembly
from landing_zone.assembly.intrinsics import resolve_document, template_resolver
from landing_zone.plan import Plan
from landing_zone.policies.evaluator import ParsedStatement, UnsupportedPolicyElement
from landing_zone.prove.model import (
    GAVE_UP_FRACTION,
    MODEL_RESOURCE_TYPES,
    NOT_MODEL_USE,
    PROPERTIES,
    Killed,
    Obligation,
    ProofError,
    ProofInputs,
    ProofReport,
    PropertyResult,
)
from landing_zone.prove.perimeter import perimeter_steps
from landing_zone.prove.properties import (
    _describes,
    _p1,
    _p2,
    _p3,
    _p4,
    _p5,
    _p6,
    symbolic_request,
)
from landing_zone.prove.prover import (
    Guard,
    Prover,
)
from landing_zone.prove.run import (
    _Run,
    simulate_command,
)

__all__ = [
    "GAVE_UP_FRACTION",
    "Killed",
    "MODEL_RESOURCE_TYPES",
    "NOT_MODEL_USE",
    "Obligation",
    "PROPERTIES",
    "ProofError",
    "ProofInputs",
    "ProofReport",
    "PropertyResult",
    "inputs_from_assembly",
    "prove_all",
    "prove_assembly",
    "simulate_command",
    "symbolic_request",
]

# ------------------------------------------------------------------------------------------------- inputs


def _resolved(res: Any) -> dict[str, Any]:
    resolve = template_resolver(
        res.stack.template, account=res.stack.account or "123456789012", region=res.stack.region or "us-east-1"
    )
    return dict(resolve_document(res.prop("PolicyDocument"), resolve))


def inputs_from_assembly(path: Path, plan: Plan) -> ProofInputs:
    """The policies of a synthesized assembly: SCPs, the invoker boundary, invoker identity policies, endpoints."""
    assembly: Assembly = load_assembly(path)
    name = plan.config.name
    scps: list[tuple[str, Mapping[str, Any]]] = []
    for res in assembly.resources("AWS::Organizations::Policy"):
        if res.prop("Type") == "SERVICE_CONTROL_POLICY":
            content = res.prop("Content")
            scps.append(
                (str(res.prop("Name", res.logical_id)), json.loads(content) if isinstance(content, str) else content)
            )
    boundary_name = f"{name}-invoker-boundary"
    boundary: Guard | None = None
    invokers: list[Guard] = []
    for res in assembly.resources("AWS::IAM::ManagedPolicy"):
        policy_name = res.prop("ManagedPolicyName")
        if policy_name == boundary_name:
            boundary = Guard.policies("boundary", [(boundary_name, _resolved(res))])
        elif isinstance(policy_name, str) and policy_name.startswith(f"{name}-invoke-"):
            invokers.append(Guard.policies(f"identity {policy_name}", [(policy_name, _resolved(res))]))
    endpoints = tuple(
        Guard.policies(f"endpoint {res.logical_id}", [(res.logical_id, _resolved(res))])
        for res in assembly.resources("AWS::EC2::VPCEndpoint")
        if res.prop("PolicyDocument") is not None
    )
    if plan.config.organization is not None:
        if not scps:
            raise ProofError(
                f"--assembly {path}: no service control policy found (the configuration has an organization)"
            )
        guardrails = Guard.scps("scps", scps)
        source = f"SCPs in {path} (with FullAWSAccess)"
    else:
        if boundary is None:
            raise ProofError(f"--assembly {path}: no permissions boundary named {boundary_name!r} found")
        guardrails = Guard.policies("boundary", boundary.levels[0])
        source = f"permissions boundary {boundary_name} in {path} (single-account mode: it binds the invoker roles)"
    return ProofInputs(plan, source, str(path), guardrails, boundary, tuple(invokers), endpoints)


_HALVES = (("P2", "P1", "P6", "PO1"), ("P4", "P3", "P5", "PO2", "PO3"))


def _proxy(items: dict[str, Any]) -> MappingProxyType[str, Any]:
    return MappingProxyType(items)


# The plan's read-only mappings (MappingProxyType) travel to a forkserver child as the dictionaries they wrap; pickle
# has no reducer for them of its own.
copyreg.pickle(MappingProxyType, lambda m: (_proxy, (dict(m),)))


def _prove_half(inputs: ProofInputs, properties: tuple[str, ...], timeout_ms: int) -> tuple[PropertyResult, ...]:
    return prove_all(inputs, timeout_ms=timeout_ms, properties=properties).properties


def _prove_forked(inputs: ProofInputs, wanted: tuple[str, ...], timeout_ms: int, context: Any) -> ProofReport:
    """The wanted properties in two child processes (:data:`_HALVES`), each with its own solver."""
    halves = [tuple(p for p in half if p in wanted) for half in _HALVES]
    with context.Pool(len(halves)) as pool:
        parts = pool.starmap(_prove_half, [(inputs, h, timeout_ms) for h in halves if h])
    by_id = {r.id: r for part in parts for r in part}
    return ProofReport(inputs.source, inputs.mode, tuple(by_id[pid] for pid in wanted))


def prove_all(
    inputs: ProofInputs,
    *,
    timeout_ms: int = 60_000,
    properties: Sequence[str] | None = None,
    focus: Sequence[ParsedStatement] | None = None,
    prover: Prover | None = None,
    jobs: int = 1,
) -> ProofReport:
    """P1-P6 over one set of policies (ProofError, exit 2, when an element is not supported).  ``jobs=2``: the
    properties in two child processes (:func:`process_context`), each with its own solver."""
    wanted = tuple(pid for pid in PROPERTIES if properties is None or pid in properties)
    context = process_context() if jobs > 1 and focus is None and prover is None and len(wanted) > 1 else None
    if context is not None:
        return _prove_forked(inputs, wanted, timeout_ms, context)
    try:
        if prover is None:
            prover = Prover(symbolic_request(inputs), timeout_ms=timeout_ms)
        run = _Run(inputs, prover, focus=tuple(focus) if focus is not None else None)  # parses every statement
        steps: dict[str, Callable[[], PropertyResult]] = {
            "P1": lambda: _p1(run),
            "P2": lambda: _p2(run),
            "P3": lambda: _p3(run),
            "P4": lambda: _p4(run),
            "P5": lambda: _p5(run),
            "P6": lambda: _p6(run),
            **perimeter_steps(run, PropertyResult, _describes),
        }
        results = []
        for pid in wanted:
            run.current = pid
            results.append(steps[pid]())
    except UnsupportedPolicyElement as exc:
        raise ProofError(str(exc)) from None
    return ProofReport(inputs.source, inputs.mode, tuple(results))


def default_jobs() -> int:
    """Processes for :func:`prove_all`: two when the machine has two cores or more."""
    return min(2, os.cpu_count() or 1)


def process_context() -> Any:
    """How :func:`prove_all` starts its child processes: ``fork`` where this process runs no other thread (the CLI),
    ``forkserver`` where one does (forking a process with other threads running can deadlock: a test worker, once the
    CDK's jsii kernel started its reader thread); None (prove in this process) where neither is available.

    A child also starts with a fresh z3.  In one process z3's state grows with every proof, and the same proof gets
    slower each time: the us-organization example's proofs took 16, 19, 21 and 26 s in a row in one process, and
    10.5 s of wall (15 s of CPU) each time in two fresh children (measured 2026-12-06)."""
    import multiprocessing
    import threading

    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([__name__])  # the server imports z3 and the prover once; children fork from it
        return context
    return None


def prove_assembly(
    assembly_dir: Path | str,
    plan: Plan,
    *,
    timeout_ms: int = 10_000,
    properties: Sequence[str] | None = None,
) -> ProofReport:
    """P1-P6 of a synthesized assembly, for the review report: ``report.to_dict()`` lists per property its status
    (holds | fails | not-proven | disagreement | not-applicable) and per obligation not holding its status
    (fails | timeout | vacuous), time and counterexample as a ``simulate`` command.  Raises :class:`ProofError`
    (``unsupported: <element> in <policy>``) when a policy cannot be encoded."""
    return prove_all(
        inputs_from_assembly(Path(assembly_dir), plan),
        timeout_ms=timeout_ms,
        properties=properties,
        jobs=default_jobs(),
    )


# ------------------------------------------------------------------------------------------------- the review

# Obligations a reviewer accepted as not proven (a timeout, say), each with a reason: like checkov-skips.yaml.
ACKNOWLEDGEMENTS_FILE = Path(__file__).with_name("proof-acknowledgements.yaml")
# A directory where proof reports are kept, keyed by everything they depend on (the policies proven, the
# configuration, the prover's and the properties' code, the action database, z3's version, the timeout): the tests
# set it (a proof of every example takes minutes); unset, every proof runs.
PROOF_CACHE_ENV = "LZ_PROOF_CACHE"
_ASSEMBLY_MARKER = "<<assembly>>"
# What the review still rests on that is a sample, not a proof (named in the report next to the proven properties).
SAMPLED = (
    "decision cases: standard requests with their expected decisions (section Decision matrix)",
    "red-team pairs: attacks and their legitimate neighbours (section Threat model)",
)


@dataclass(frozen=True)
class Acknowledgement:
    property: str
    obligation: str  # an fnmatch pattern over the obligation's label
    reason: str

    def covers(self, pid: str, label: str) -> bool:
        return pid == self.property and fnmatch.fnmatchcase(label, self.obligation)


def load_acknowledgements(path: Path = ACKNOWLEDGEMENTS_FILE) -> tuple[Acknowledgement, ...]:
    import yaml

    if not path.is_file():
        return ()
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    out = []
    for i, item in enumerate(raw.get("acknowledgements") or []):
        if not isinstance(item, dict) or not all(
            isinstance(item.get(k), str) and item[k] for k in ("property", "obligation", "reason")
        ):
            raise ProofError(
                f"{path.name}: acknowledgements[{i}] needs non-empty strings property, obligation and reason; got {item!r}"
            )
        if item["property"] not in PROPERTIES:
            raise ProofError(
                f"{path.name}: acknowledgements[{i}].property is {item['property']!r}; allowed: {', '.join(PROPERTIES)}"
            )
        out.append(Acknowledgement(item["property"], item["obligation"], item["reason"]))
    return tuple(out)


def _import_closure(module: str, root: Path) -> list[Path]:
    """The source files of ``module`` and of every ``landing_zone`` module it imports, transitively (static: read
    from the import statements, so the set does not depend on what else the process has loaded)."""
    import re as _re

    # `import landing_zone.x` and `from landing_zone.x import a, b` (parenthesised too), at any indentation
    pattern = _re.compile(
        r"^\s*(?:import (landing_zone[\w.]*)|from (landing_zone[\w.]*) import (\([^)]*\)|[^\n]*))", _re.M
    )

    def source(name: str) -> Path | None:
        base = root.parent.joinpath(*name.split("."))
        return next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None)

    seen: dict[str, Path] = {}
    todo = [module]
    while todo:
        name = todo.pop()
        path = source(name)
        if name in seen or path is None:
            continue
        seen[name] = path
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]  # the parent packages run first
        for plain, package, names in pattern.findall(path.read_text(encoding="utf-8")):
            if plain:
                todo.append(plain)
                continue
            todo.append(package)
            for item in names.strip("()").replace("\n", " ").split(","):
                if item.split():
                    todo.append(f"{package}.{item.split()[0]}")
    return sorted(seen.values())


@functools.cache
def _source_digest() -> str:
    """What the proofs' code is: z3's version, the source of every module the proofs import (transitively) and the
    data files of the package (the catalogs).  A change elsewhere (the renderers, verify, the CLI) keeps the cache."""
    import hashlib
    import importlib.metadata

    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(importlib.metadata.version("z3-solver").encode())
    code = [*_import_closure(__name__, root), *_import_closure("landing_zone.prove.mutations", root)]
    for path in sorted({*code, *root.rglob("*.yaml"), *root.rglob("*.json")}):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_path(
    inputs: ProofInputs, timeout_ms: int, properties: Sequence[str] | None, kind: str = "proofs"
) -> Path | None:
    """Where ``$LZ_PROOF_CACHE`` keeps a result of ``kind`` over these inputs (None: no cache)."""
    import hashlib
    import os

    directory = os.environ.get(PROOF_CACHE_ENV)
    if not directory:
        return None
    guards = [inputs.guardrails, inputs.boundary, *inputs.invokers, *inputs.endpoints]
    key = {
        "code": _source_digest(),
        "config": inputs.plan.config.model_dump(mode="json"),
        "policies": [(g.name, g.mode, [[[n, d] for n, d in level] for level in g.levels]) for g in guards if g],
        "mode": inputs.mode,
        "timeout": timeout_ms,
        "properties": list(properties or PROPERTIES),
    }
    digest = hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:32]
    return Path(directory) / f"{kind}-{digest}.json"


@contextlib.contextmanager
def cache_lock(cache: Path | None) -> Iterator[None]:
    """Hold ``<cache>.lock`` while a result for ``cache`` is computed, so that two processes asking for the same
    result (two test workers reviewing the same assembly) compute it once: the second waits, then reads the first's.
    An advisory lock (``fcntl.flock``, released by the OS if the holder dies); a no-op without a cache or where the
    platform has no ``fcntl``."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        fcntl = None  # type: ignore[assignment]
    if cache is None or fcntl is None:
        yield
        return
    cache.parent.mkdir(parents=True, exist_ok=True)
    with open(cache.with_name(cache.name + ".lock"), "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _cached(cache: Path, here: str, source: str) -> dict[str, Any] | None:
    """The stored section, with this assembly's path in place of the marker (None when it cannot be read)."""
    try:
        data: dict[str, Any] = json.loads(cache.read_text(encoding="utf-8").replace(_ASSEMBLY_MARKER, here))
        data["source"] = source
    except (OSError, ValueError):
        return None
    return data


def _store(cache: Path, here: str, data: Mapping[str, Any]) -> None:
    """Keep a decided section (the assembly's path as a marker).  A timeout (or the solver giving up) says how loaded
    the machine was, not what the policies are: never kept."""
    undecided = any(
        item.get("status") in ("timeout", "gave-up") for prop in data["properties"] for item in prop["not_holding"]
    )
    if undecided:
        return
    cache.parent.mkdir(parents=True, exist_ok=True)
    staging = cache.with_suffix(f".{os.getpid()}.tmp")
    text = json.dumps(data)
    staging.write_text(text.replace(here, _ASSEMBLY_MARKER) if here else text, encoding="utf-8")
    staging.replace(cache)


def _acknowledge(data: Mapping[str, Any], acks: Sequence[Acknowledgement]) -> set[int]:
    """Mark the obligations not holding that an acknowledgement covers (never a counterexample); the indices of the
    acknowledgements used."""
    used: set[int] = set()
    for prop in data["properties"]:
        for item in prop["not_holding"]:
            hit = next((i for i, a in enumerate(acks) if a.covers(prop["id"], item["label"])), None)
            if hit is not None and item["status"] != "fails":  # a counterexample is never acknowledged away
                item["acknowledged"] = acks[hit].reason
                used.add(hit)
        open_items = [i for i in prop["not_holding"] if "acknowledged" not in i]
        prop["acknowledged"] = prop["status"] == "not-proven" and not open_items
    return used


def _prove_and_store(
    inputs: ProofInputs, timeout_ms: int, properties: Sequence[str] | None, cache: Path | None, here: str
) -> dict[str, Any]:
    """The section's proofs, run now (``seconds``: how long), kept in the cache when decided."""
    start = time.perf_counter()
    try:
        data = prove_all(inputs, timeout_ms=timeout_ms, properties=properties, jobs=default_jobs()).to_dict()
    except ProofError as exc:
        data = {"source": inputs.source, "mode": inputs.mode, "all_hold": False, "properties": [], "error": str(exc)}
    data["seconds"] = round(time.perf_counter() - start, 2)
    if cache is not None:
        _store(cache, here, data)
    return data


def proofs_section(
    inputs: ProofInputs,
    *,
    timeout_ms: int = 10_000,
    properties: Sequence[str] | None = None,
    acknowledgements: Sequence[Acknowledgement] | None = None,
) -> dict[str, Any]:
    """The review's section "Proofs": per property its status (holds | fails | not-proven | disagreement |
    not-applicable), the obligations not holding with their counterexamples, and which of them a reviewer
    acknowledged (``acknowledged``: the reason).  ``error`` is set when the policies cannot be encoded."""
    acks = load_acknowledgements() if acknowledgements is None else tuple(acknowledgements)
    cache = cache_path(inputs, timeout_ms, properties)
    data: dict[str, Any] | None = None
    # the assembly's path is not part of the key (a copy proves the same): kept as a marker in the stored report
    here = json.dumps(inputs.assembly or "")[1:-1]
    if cache is not None and cache.is_file():
        data = _cached(cache, here, inputs.source)
    if data is None:
        with cache_lock(cache):  # another process may be proving the same: wait, then read its result
            if cache is not None and cache.is_file():
                data = _cached(cache, here, inputs.source)
            if data is None:
                data = _prove_and_store(inputs, timeout_ms, properties, cache, here)
    used = _acknowledge(data, acks)
    data["acknowledgements"] = [
        {"property": a.property, "obligation": a.obligation, "reason": a.reason, "used": i in used}
        for i, a in enumerate(acks)
    ]
    data["proven"] = [p["id"] for p in data["properties"] if p["status"] == "holds"]
    data["sampled"] = list(SAMPLED)
    data["timeout_ms"] = timeout_ms
    return data


def proofs_for_assembly(assembly_dir: Path | str, plan: Plan, **kwargs: Any) -> dict[str, Any]:
    """:func:`proofs_section` of a synthesized assembly (a missing guardrail policy is the section's ``error``)."""
    try:
        inputs = inputs_from_assembly(Path(assembly_dir), plan)
    except ProofError as exc:
        return {
            "source": str(assembly_dir),
            "mode": "",
            "all_hold": False,
            "properties": [],
            "error": str(exc),
            "acknowledgements": [],
            "proven": [],
            "sampled": list(SAMPLED),
        }
    return proofs_section(inputs, **kwargs)
