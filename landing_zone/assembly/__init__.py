"""The one reader of a synthesized cloud assembly (``cdk.out``), without aws_cdk.

Review, verify, simulate and the tests read an assembly through :func:`load_assembly` (or
:meth:`Assembly.load`) and nothing else:

* :attr:`Assembly.stacks` — the CloudFormation stacks of ``manifest.json`` (nested assemblies of stages
  included), with environment, stack tags and template;
* :attr:`Assembly.members` — the templates a StackSet of those stacks rolls out to member accounts: the file
  asset its ``TemplateURL`` names (cdk-stacksets writes ``*.stackset.template.json``) or an inline
  ``TemplateBody``; each is a :class:`Stack` with ``stack_set`` set;
* :attr:`Assembly.unlisted` — any other ``*.template.json`` of the directory no stack names;
* :attr:`Assembly.templates` — all of them, sorted by file: what the policy review inventories;
* exports (``Fn::ImportValue`` targets), the acknowledgments recorded in the stack metadata and cdk-nag's
  ``validation-report.json``.

Where the acknowledgments land: ``Validations.of(x).acknowledge(Acknowledgment(id, reason))`` writes an
``aws:cdk:acknowledged-rules`` metadata entry ``{id: reason}`` on the construct.  The cloud assembly keeps it in
``<stack>.metadata.json`` (the file named by the stack artifact's ``additionalMetadataFile`` in
``manifest.json``), keyed by construct path — with or without cdk-nag registered.  cdk-nag's
``validation-report.json`` (only when the app ran the packs) lists the findings those acknowledgments matched as
``suppressedViolations`` with ``acknowledgedId`` and ``reason``.

Intrinsic functions are rendered readably by :mod:`landing_zone.assembly.intrinsics`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from landing_zone.errors import LandingZoneError

__all__ = [
    "PLAN_RECORD_FILE",
    "Acknowledgment",
    "Assembly",
    "AssemblyError",
    "Resource",
    "Stack",
    "load_assembly",
    "logical_id_lines",
]

# The configuration the assembly was synthesized from (written by app.py, see landing_zone.plan.record).
PLAN_RECORD_FILE = "landing-zone.json"
ACK_METADATA_TYPE = "aws:cdk:acknowledged-rules"
NAG_REPORT = "validation-report.json"
STACK_SET_TYPE = "AWS::CloudFormation::StackSet"


class AssemblyError(LandingZoneError):
    """The directory is not a readable cloud assembly, or lacks what the command needs from it."""


@dataclass(frozen=True)
class Stack:
    """One template: a stack of the manifest, a StackSet's member template, or an unlisted template file."""

    name: str
    file: str  # template file, relative to the assembly directory
    account: str | None  # None: environment-agnostic, or any member account of a StackSet
    region: str | None
    template: Mapping[str, Any] = field(repr=False)
    tags: Mapping[str, str] = field(default_factory=dict)
    stack_set: str | None = None  # the StackSet's name when this is the template it rolls out
    # None for the stacks of the manifest; else where the template comes from (e.g. "StackSet kimi-lz-member of
    # kimi-lz-rollout", "template file not listed as a stack")
    nested_in: str | None = None

    @property
    def resource_map(self) -> Mapping[str, Mapping[str, Any]]:
        """Logical ID -> resource, as written in the template (empty when the template has none)."""
        res = self.template.get("Resources") if isinstance(self.template, Mapping) else None
        return res if isinstance(res, Mapping) else {}

    def resources(self, *types: str) -> list[Resource]:
        """The resources of the given CloudFormation types (all when none is given), in template order."""
        return [
            _resource(self, logical_id, res)
            for logical_id, res in self.resource_map.items()
            if isinstance(res, Mapping) and (not types or res.get("Type") in types)
        ]

    def resource(self, logical_id: str) -> Resource | None:
        res = self.resource_map.get(logical_id)
        return _resource(self, logical_id, res) if isinstance(res, Mapping) else None

    def outputs(self) -> Mapping[str, Any]:
        outputs = self.template.get("Outputs") if isinstance(self.template, Mapping) else None
        return outputs if isinstance(outputs, Mapping) else {}


@dataclass(frozen=True)
class Resource:
    stack: Stack
    logical_id: str
    type: str
    properties: Mapping[str, Any] = field(repr=False)
    condition: str | None = None  # the template Condition that decides whether the resource exists

    @property
    def path(self) -> str:
        return f"{self.stack.name}/{self.logical_id}"

    def prop(self, dotted: str, default: Any = None) -> Any:
        """A (nested) property: ``prop("Budget.BudgetName")``."""
        value: Any = self.properties
        for part in dotted.split("."):
            if not isinstance(value, Mapping) or part not in value:
                return default
            value = value[part]
        return value


def _resource(stack: Stack, logical_id: str, res: Mapping[str, Any]) -> Resource:
    props = res.get("Properties")
    return Resource(
        stack, logical_id, str(res.get("Type", "")), props if isinstance(props, Mapping) else {}, res.get("Condition")
    )


@dataclass(frozen=True)
class Acknowledgment:
    id: str  # e.g. "AwsSolutions::AwsSolutions-IAM5[Resource::*]"
    reason: str
    construct_path: str
    stack: str

    @property
    def rule(self) -> str:
        rule = self.id.split("::", 1)[-1]
        return rule.split("[", 1)[0]


@dataclass(frozen=True)
class Assembly:
    path: Path
    stacks: tuple[Stack, ...]
    members: tuple[Stack, ...] = ()
    unlisted: tuple[Stack, ...] = ()
    acknowledgments: tuple[Acknowledgment, ...] = ()
    nag_report: Mapping[str, Any] | None = None
    plan_record: Mapping[str, Any] | None = None  # landing-zone.json: the configuration it was synthesized from

    @classmethod
    def load(cls, path: str | Path) -> Assembly:
        return load_assembly(path)

    @property
    def templates(self) -> tuple[Stack, ...]:
        """Every template of the assembly (stacks, StackSet members, unlisted files), sorted by file."""
        return tuple(sorted((*self.stacks, *self.members, *self.unlisted), key=lambda t: (t.file, t.nested_in or "")))

    def member_view(self) -> Assembly:
        """The assembly as one member account of its StackSet(s) sees it: only the member templates."""
        if not self.members:
            raise AssemblyError(
                f"--assembly {self.path}: no StackSet template in the assembly (is member_baseline enabled?)"
            )
        return Assembly(self.path, self.members)

    def template(self, file: str) -> Stack:
        for t in self.templates:
            if t.file == file:
                return t
        raise KeyError(file)

    def resources(self, *types: str) -> list[Resource]:
        """Resources of the given types in the stacks (not the StackSet members: see :meth:`member_view`)."""
        return [r for stack in self.stacks for r in stack.resources(*types)]

    def stack(self, name: str) -> Stack | None:
        return next((s for s in self.stacks if s.name == name), None)

    @property
    def exports(self) -> Mapping[str, tuple[str, Any]]:
        """Export name -> (exporting stack, output value), over every template."""
        found: dict[str, tuple[str, Any]] = {}
        for t in self.templates:
            for _, output in sorted(t.outputs().items()):
                export = output.get("Export") if isinstance(output, Mapping) else None
                name = export.get("Name") if isinstance(export, Mapping) else None
                if isinstance(name, str):
                    found[name] = (t.name, output.get("Value"))
        return found

    def export(self, name: str) -> tuple[Stack, Any] | None:
        """The stack and output value behind ``Fn::ImportValue: name``."""
        for stack in self.stacks:
            for output in stack.outputs().values():
                export = output.get("Export") if isinstance(output, Mapping) else None
                if isinstance(export, Mapping) and export.get("Name") == name:
                    return stack, output.get("Value")
        return None

    @property
    def landing_zone_name(self) -> str | None:
        names = {s.tags.get("landing-zone") for s in self.stacks} - {None}
        return names.pop() if len(names) == 1 else None

    def accounts(self) -> set[str]:
        return {s.account for s in self.stacks if s.account}


def logical_id_lines(assembly: Assembly, file: str) -> dict[str, int]:
    """Line number (1-based) of each resource's key in a template file, for SARIF locations."""
    try:
        lines = (assembly.path / file).read_text().splitlines()
    except OSError:
        return {}
    found: dict[str, int] = {}
    in_resources = False
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped.startswith('"Resources"'):
            in_resources = True
            continue
        if in_resources and stripped.endswith("{") and stripped.startswith('"') and '":' in stripped:
            key = stripped[1 : stripped.index('":')]
            found.setdefault(key, number)
    return found


# --------------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------------


class _Unreadable(Exception):
    """What is wrong with an assembly, without the flag that named it (load_assembly adds it)."""


def _read_json(root: Path, path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise _Unreadable(f"{path.name} cannot be read ({exc})") from None


def _environment(environment: Any) -> tuple[str | None, str | None]:
    # "aws://123456789012/eu-central-1"; CDK writes unknown-account / unknown-region for agnostic stacks.
    if not isinstance(environment, str) or not environment.startswith("aws://"):
        return None, None
    account, _, region = environment[len("aws://") :].partition("/")
    return (
        None if not account or account.startswith("unknown") else account,
        None if not region or region.startswith("unknown") else region,
    )


def _acknowledgments(metadata: Mapping[str, Any], stack: str) -> list[Acknowledgment]:
    found = []
    for construct_path, entries in metadata.items():
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, Mapping) or entry.get("type") != ACK_METADATA_TYPE:
                continue
            data = entry.get("data")
            if isinstance(data, Mapping):
                for ack_id, reason in data.items():
                    found.append(Acknowledgment(str(ack_id), str(reason), str(construct_path).lstrip("/"), stack))
    return found


def _asset_templates(
    root: Path, directory: Path, manifest: Mapping[str, Any], artifact: Mapping[str, Any]
) -> dict[str, str]:
    """Object key -> template file (relative to the assembly root) of the stack's asset manifest."""
    artifacts = manifest.get("artifacts") or {}
    files: dict[str, str] = {}
    for dep in artifact.get("dependencies") or []:
        dep_artifact = artifacts.get(dep) or {}
        if dep_artifact.get("type") != "cdk:asset-manifest":
            continue
        assets_path = directory / str((dep_artifact.get("properties") or {}).get("file", ""))
        if not assets_path.is_file():
            continue
        entries = (_read_json(root, assets_path).get("files") or {}).values()
        for entry in entries:
            path = (entry.get("source") or {}).get("path", "")
            if path.endswith(".template.json"):
                for destination in (entry.get("destinations") or {}).values():
                    files[destination.get("objectKey", "")] = str((directory / path).relative_to(root))
    return files


def _members(root: Path, stack: Stack, asset_files: Mapping[str, str]) -> Iterator[Stack]:
    """The template each ``AWS::CloudFormation::StackSet`` of ``stack`` rolls out: its inline ``TemplateBody``, or
    the file asset its ``TemplateURL`` names (the only ``*.stackset.template.json`` when the URL does not say)."""
    stack_sets = stack.resources(STACK_SET_TYPE)
    for res in stack_sets:
        name = res.prop("StackSetName")
        label = name if isinstance(name, str) else res.logical_id
        body: Any = res.prop("TemplateBody")
        file = stack.file
        if isinstance(body, str):
            try:
                body = json.loads(body)
            except ValueError:
                body = None
        if not isinstance(body, Mapping):
            url = json.dumps(res.prop("TemplateURL"))
            path = next((p for key, p in asset_files.items() if key and key in url), None)
            if path is None:
                candidates = sorted(root.glob("*.stackset.template.json"))
                path = candidates[0].name if len(stack_sets) == 1 and len(candidates) == 1 else None
            if path is None:
                continue
            body, file = _read_json(root, root / path), path
        if not isinstance(body, Mapping):
            continue
        yield Stack(
            name=f"StackSet-{label}",
            file=file,
            account=None,
            region=stack.region,
            template=body,
            tags=dict(stack.tags),
            stack_set=label,
            nested_in=f"StackSet {label} of {stack.name}",
        )


def load_assembly(path: str | Path, *, flag: str = "--assembly") -> Assembly:
    """Read the assembly at ``path``; raises :class:`AssemblyError` (exit 2) when it is missing or unreadable, naming
    ``flag``, the option the user gave the path with (``--assembly``, ``--baseline``)."""
    root = Path(path)
    try:
        return _load(root)
    except _Unreadable as exc:
        raise AssemblyError(f"{flag} {root}: {exc}") from None


def _load(root: Path) -> Assembly:
    if not (root / "manifest.json").is_file():
        raise _Unreadable("no manifest.json there; give the cdk.out directory of a synth (`make synth`)")
    stacks: list[Stack] = []
    members: list[Stack] = []
    acks: list[Acknowledgment] = []

    def visit(directory: Path) -> None:
        manifest = _read_json(root, directory / "manifest.json")
        artifacts = manifest.get("artifacts") if isinstance(manifest, Mapping) else None
        for artifact_id, artifact in sorted((artifacts or {}).items()):
            if not isinstance(artifact, Mapping):
                continue
            props = artifact.get("properties") or {}
            if artifact.get("type") == "cdk:cloud-assembly" and props.get("directoryName"):  # a stage
                sub = directory / str(props["directoryName"])
                if (sub / "manifest.json").is_file():
                    visit(sub)
                continue
            if artifact.get("type") != "aws:cloudformation:stack":
                continue
            template_path = directory / str(props.get("templateFile") or f"{artifact_id}.template.json")
            body = _read_json(root, template_path)
            account, region = _environment(artifact.get("environment"))
            stack = Stack(
                name=str(props.get("stackName") or artifact.get("displayName") or artifact_id),
                file=str(template_path.relative_to(root)),
                account=account,
                region=region,
                template=body if isinstance(body, Mapping) else {},
                tags=dict(props.get("tags") or {}),
            )
            stacks.append(stack)
            members.extend(_members(root, stack, _asset_templates(root, directory, manifest, artifact)))
            metadata: Mapping[str, Any] = artifact.get("metadata") or {}
            extra = artifact.get("additionalMetadataFile")
            if extra and (directory / extra).is_file():
                loaded = _read_json(root, directory / extra)
                metadata = {**metadata, **(loaded if isinstance(loaded, Mapping) else {})}
            acks.extend(_acknowledgments(metadata, stack.name))

    visit(root)
    if not stacks:
        raise _Unreadable("the manifest lists no CloudFormation stack")
    listed = {s.file for s in (*stacks, *members)}
    home_region = next((s.region for s in stacks if s.region), None)
    unlisted = []
    for extra in sorted(root.glob("*.template.json")):
        if extra.name in listed:
            continue
        body = _read_json(root, extra)
        name = extra.name[: -len(".template.json")]
        kind = "StackSet template" if name.endswith(".stackset") else "template file not listed as a stack"
        unlisted.append(
            Stack(
                name.removesuffix(".stackset"),
                extra.name,
                None,
                home_region,
                body if isinstance(body, Mapping) else {},
                nested_in=kind,
            )
        )
    nag_path = root / NAG_REPORT
    nag = _read_json(root, nag_path) if nag_path.is_file() else None
    record_path = root / PLAN_RECORD_FILE
    record = _read_json(root, record_path) if record_path.is_file() else None
    return Assembly(
        path=root,
        stacks=tuple(sorted(stacks, key=lambda s: s.file)),
        members=tuple(members),
        unlisted=tuple(unlisted),
        acknowledgments=tuple(sorted(set(acks), key=lambda a: (a.construct_path, a.id, a.reason))),
        nag_report=nag if isinstance(nag, Mapping) else None,
        plan_record=record if isinstance(record, Mapping) else None,
    )
