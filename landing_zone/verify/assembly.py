"""The synthesized intent: stacks, their environments and resources, read from a cloud assembly (``cdk.out``).

Checks ask for resources *by CloudFormation type* (:meth:`Assembly.resources`), so a stack that appears later
(cost controls, self-hosting) is checked as soon as it is synthesized, without changes here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from landing_zone.simulate import AssemblyError

__all__ = ["Assembly", "AssemblyError", "Resource", "Stack"]


@dataclass(frozen=True)
class Stack:
    name: str
    account: str | None  # None: environment-agnostic ("unknown-account"), or any member account of a StackSet
    region: str | None
    tags: Mapping[str, str]
    template: Mapping[str, Any] = field(repr=False)
    stack_set: str | None = None  # StackSet name when this is the template a StackSet deploys to member accounts

    def resources(self, *types: str) -> list["Resource"]:
        found = []
        for logical_id, res in (self.template.get("Resources") or {}).items():
            if not types or res.get("Type") in types:
                found.append(Resource(self, logical_id, res.get("Type", ""), res.get("Properties") or {}, res.get("Condition")))
        return found

    def resource(self, logical_id: str) -> "Resource | None":
        res = (self.template.get("Resources") or {}).get(logical_id)
        if res is None:
            return None
        return Resource(self, logical_id, res.get("Type", ""), res.get("Properties") or {}, res.get("Condition"))

    def outputs(self) -> Mapping[str, Any]:
        return self.template.get("Outputs") or {}


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


def _env(environment: str | None) -> tuple[str | None, str | None]:
    # "aws://123456789012/eu-central-1"; CDK writes unknown-account / unknown-region for agnostic stacks.
    if not environment or not environment.startswith("aws://"):
        return None, None
    account, _, region = environment[len("aws://") :].partition("/")
    return (
        None if not account or account.startswith("unknown") else account,
        None if not region or region.startswith("unknown") else region,
    )


@dataclass(frozen=True)
class Assembly:
    path: Path
    stacks: tuple[Stack, ...]
    members: tuple[Stack, ...] = ()  # templates that StackSets of ``stacks`` roll out to member accounts

    @classmethod
    def load(cls, path: str | Path) -> "Assembly":
        root = Path(path)
        if not (root / "manifest.json").is_file():
            raise AssemblyError(f"--assembly {root}: no manifest.json there; run `make synth` first")
        found = list(_stacks_of(root))
        stacks = tuple(s for s, _ in found)
        if not stacks:
            raise AssemblyError(f"--assembly {root}: the manifest lists no CloudFormation stacks")
        members = tuple(m for stack, assets in found for m in _stack_set_members(root, stack, assets))
        return cls(root, stacks, members)

    def member_view(self) -> "Assembly":
        """The assembly as one member account of its StackSet(s) sees it: only the member templates."""
        if not self.members:
            raise AssemblyError(f"--assembly {self.path}: no StackSet template in the assembly (is member_baseline enabled?)")
        return Assembly(self.path, self.members)

    # -- look-ups -------------------------------------------------------------------------------------
    def resources(self, *types: str) -> list[Resource]:
        return [r for stack in self.stacks for r in stack.resources(*types)]

    def stack(self, name: str) -> Stack | None:
        return next((s for s in self.stacks if s.name == name), None)

    def export(self, name: str) -> tuple[Stack, Any] | None:
        """The stack and output value behind ``Fn::ImportValue: name``."""
        for stack in self.stacks:
            for output in stack.outputs().values():
                export = (output.get("Export") or {}).get("Name")
                if export == name:
                    return stack, output.get("Value")
        return None

    @property
    def landing_zone_name(self) -> str | None:
        names = {s.tags.get("landing-zone") for s in self.stacks} - {None}
        return names.pop() if len(names) == 1 else None

    def accounts(self) -> set[str]:
        return {s.account for s in self.stacks if s.account}


def _stack_set_members(root: Path, stack: Stack, assets: Path | None) -> Iterator[Stack]:
    """The template of each ``AWS::CloudFormation::StackSet`` of ``stack``: the file asset whose object key its
    ``TemplateURL`` names (cdk-stacksets writes ``*.stackset.template.json`` into the assembly)."""
    stack_sets = stack.resources("AWS::CloudFormation::StackSet")
    if not stack_sets:
        return
    files: dict[str, str] = {}  # object key -> template file
    if assets is not None and assets.is_file():
        for entry in (json.loads(assets.read_text()).get("files") or {}).values():
            path = (entry.get("source") or {}).get("path", "")
            if path.endswith(".template.json"):
                for destination in (entry.get("destinations") or {}).values():
                    files[destination.get("objectKey", "")] = path
    for res in stack_sets:
        url = json.dumps(res.prop("TemplateURL"))
        path = next((p for key, p in files.items() if key and key in url), None)
        if path is None:
            candidates = sorted(root.glob("*.stackset.template.json"))
            path = candidates[0].name if len(stack_sets) == 1 and len(candidates) == 1 else None
        if path is None or not isinstance(res.prop("StackSetName"), str):
            continue
        name = res.prop("StackSetName")
        yield Stack(
            name=f"StackSet-{name}",
            account=None,
            region=stack.region,
            tags=dict(stack.tags),
            template=json.loads((root / path).read_text()),
            stack_set=name,
        )


def _stacks_of(root: Path) -> Iterator[tuple[Stack, Path | None]]:
    try:
        manifest = json.loads((root / "manifest.json").read_text())
    except (OSError, ValueError) as exc:
        raise AssemblyError(f"--assembly {root}: manifest.json cannot be read ({exc})") from None
    for artifact_id, artifact in (manifest.get("artifacts") or {}).items():
        kind = artifact.get("type")
        props = artifact.get("properties") or {}
        if kind == "cdk:cloud-assembly" and props.get("directoryName"):  # a stage: nested assembly
            yield from _stacks_of(root / props["directoryName"])
        assets_file = next(
            (root / (manifest["artifacts"].get(dep, {}).get("properties") or {}).get("file", "")
             for dep in artifact.get("dependencies") or []
             if manifest["artifacts"].get(dep, {}).get("type") == "cdk:asset-manifest"),
            None,
        )
        if kind != "aws:cloudformation:stack":
            continue
        template_path = root / props.get("templateFile", f"{artifact_id}.template.json")
        try:
            template = json.loads(template_path.read_text())
        except (OSError, ValueError) as exc:
            raise AssemblyError(f"--assembly {root}: template {template_path.name} cannot be read ({exc})") from None
        account, region = _env(artifact.get("environment"))
        yield Stack(
            name=props.get("stackName") or artifact_id,
            account=account,
            region=region,
            tags=dict(props.get("tags") or {}),
            template=template,
        ), assets_file
