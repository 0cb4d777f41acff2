"""Read a synthesized cloud assembly (``cdk.out``) without aws_cdk: templates, environments, exports,
cdk-nag's validation report and the acknowledgments recorded in the stack metadata.

Where the acknowledgments land: ``Validations.of(x).acknowledge(Acknowledgment(id, reason))`` writes an
``aws:cdk:acknowledged-rules`` metadata entry ``{id: reason}`` on the construct.  The cloud assembly keeps
it in ``<stack>.metadata.json`` (the file named by the stack artifact's ``additionalMetadataFile`` in
``manifest.json``), keyed by construct path — with or without cdk-nag registered.  cdk-nag's
``validation-report.json`` (only when the app ran the packs) lists the findings those acknowledgments
matched as ``suppressedViolations`` with ``acknowledgedId`` and ``reason``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from landing_zone.errors import LandingZoneError

__all__ = ["Acknowledgment", "Assembly", "AssemblyError", "StackTemplate", "load_assembly", "logical_id_lines"]

ACK_METADATA_TYPE = "aws:cdk:acknowledged-rules"
NAG_REPORT = "validation-report.json"


class AssemblyError(LandingZoneError):
    """The directory is not a readable cloud assembly."""


@dataclass(frozen=True)
class StackTemplate:
    stack: str  # stack name
    file: str  # template file, relative to the assembly directory
    account: str | None
    region: str | None
    body: Mapping[str, Any]
    # None for the stacks of the manifest; otherwise where the template comes from: "<stack>/<StackSet id>" for a
    # StackSet's inline TemplateBody, "StackSet template" for a '*.stackset.template.json' file of the assembly
    nested_in: str | None = None

    @property
    def resources(self) -> Mapping[str, Mapping[str, Any]]:
        res = self.body.get("Resources") if isinstance(self.body, Mapping) else None
        return res if isinstance(res, Mapping) else {}


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
    templates: tuple[StackTemplate, ...]
    acknowledgments: tuple[Acknowledgment, ...]
    nag_report: Mapping[str, Any] | None
    exports: Mapping[str, tuple[str, Any]] = field(default_factory=dict)

    def template(self, file: str) -> StackTemplate:
        for t in self.templates:
            if t.file == file:
                return t
        raise KeyError(file)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise AssemblyError(f"cannot read {path}: {exc}") from None


def _environment(artifact: Mapping[str, Any]) -> tuple[str | None, str | None]:
    env = artifact.get("environment")
    if not isinstance(env, str) or not env.startswith("aws://"):
        return None, None
    account, _, region = env[len("aws://"):].partition("/")
    known = lambda v: None if not v or v.startswith("unknown-") else v  # noqa: E731
    return known(account), known(region)


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


def _stackset_templates(parent: StackTemplate) -> list[StackTemplate]:
    """Templates embedded as ``TemplateBody`` of ``AWS::CloudFormation::StackSet`` resources (JSON text)."""
    nested = []
    for logical_id, res in sorted(parent.resources.items()):
        if not isinstance(res, Mapping) or res.get("Type") != "AWS::CloudFormation::StackSet":
            continue
        body = (res.get("Properties") or {}).get("TemplateBody")
        if isinstance(body, str):
            try:
                body = json.loads(body)
            except ValueError:
                continue
        if isinstance(body, Mapping) and isinstance(body.get("Resources"), Mapping):
            nested.append(
                StackTemplate(
                    stack=f"{parent.stack}/{logical_id}",
                    file=parent.file,
                    account=None,
                    region=parent.region,
                    body=body,
                    nested_in=f"{parent.stack}/{logical_id}",
                )
            )
    return nested


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
            key = stripped[1: stripped.index('":')]
            found.setdefault(key, number)
    return found


def load_assembly(path: str | Path) -> Assembly:
    """Every CloudFormation stack of the assembly (nested assemblies of stages included), sorted by file."""
    root = Path(path)
    if not (root / "manifest.json").is_file():
        raise AssemblyError(f"--assembly {root}: no manifest.json there; run `make synth` first")
    templates: list[StackTemplate] = []
    acks: list[Acknowledgment] = []

    def visit(directory: Path, prefix: str) -> None:
        manifest = _read_json(directory / "manifest.json")
        artifacts = manifest.get("artifacts") if isinstance(manifest, Mapping) else None
        for artifact_id, artifact in sorted((artifacts or {}).items()):
            if not isinstance(artifact, Mapping):
                continue
            props = artifact.get("properties") or {}
            if artifact.get("type") == "aws:cloudformation:stack" and props.get("templateFile"):
                file = f"{prefix}{props['templateFile']}"
                body = _read_json(root / file)
                account, region = _environment(artifact)
                stack = str(props.get("stackName") or artifact.get("displayName") or artifact_id)
                templates.append(StackTemplate(stack, file, account, region, body if isinstance(body, Mapping) else {}))
                metadata: Mapping[str, Any] = artifact.get("metadata") or {}
                extra = artifact.get("additionalMetadataFile")
                if extra and (directory / extra).is_file():
                    loaded = _read_json(directory / extra)
                    metadata = {**metadata, **(loaded if isinstance(loaded, Mapping) else {})}
                acks.extend(_acknowledgments(metadata, stack))
            elif artifact.get("type") == "cdk:cloud-assembly" and props.get("directoryName"):
                sub = str(props["directoryName"])
                if (directory / sub / "manifest.json").is_file():
                    visit(directory / sub, f"{prefix}{sub}/")

    visit(root, "")
    if not templates:
        raise AssemblyError(f"--assembly {root}: the manifest lists no CloudFormation stack")
    listed = {t.file for t in templates}
    home_region = next((t.region for t in templates if t.region), None)
    for extra in sorted(root.glob("*.template.json")):
        if extra.name in listed:
            continue
        # e.g. '<id>.stackset.template.json': a StackSet's template, deployed from an asset to member accounts
        body = _read_json(extra)
        name = extra.name[: -len(".template.json")]
        kind = "StackSet template" if name.endswith(".stackset") else "template file not listed as a stack"
        templates.append(StackTemplate(name.removesuffix(".stackset"), extra.name, None, home_region,
                                       body if isinstance(body, Mapping) else {}, nested_in=kind))
    nested = [n for t in templates for n in _stackset_templates(t)]
    all_templates = sorted([*templates, *nested], key=lambda t: (t.file, t.nested_in or ""))
    exports: dict[str, tuple[str, Any]] = {}
    for t in all_templates:
        outputs = t.body.get("Outputs") if isinstance(t.body, Mapping) else None
        for logical_id, output in sorted((outputs or {}).items()) if isinstance(outputs, Mapping) else []:
            export = output.get("Export") if isinstance(output, Mapping) else None
            name = export.get("Name") if isinstance(export, Mapping) else None
            if isinstance(name, str):
                exports[name] = (t.stack, output.get("Value"))
    nag_path = root / NAG_REPORT
    nag = _read_json(nag_path) if nag_path.is_file() else None
    acks_sorted = sorted(set(acks), key=lambda a: (a.construct_path, a.id, a.reason))
    return Assembly(root, tuple(all_templates), tuple(acks_sorted), nag if isinstance(nag, Mapping) else None, exports)
