"""Inventory of every policy document in the assembly's templates.

Found generically: any property (at any depth) whose value is a policy document — an object with a
``Statement`` — or JSON text of one (SCP ``Content``, CloudWatch Logs resource policies), plus each
``AWS::Lambda::Permission``, which is a one-statement resource policy written as properties.  The resource
type and property path then say what kind of policy it is and whom it applies to:

=====================  ===================================================  ===================================
kind                   where                                                who it applies to
=====================  ===================================================  ===================================
trust                  ``AWS::IAM::Role`` ``AssumeRolePolicyDocument``      the principals in the statements
inline                 ``Policies[].PolicyDocument`` of a role/user/group    that role/user/group
identity               ``AWS::IAM::Policy``                                 its ``Roles``/``Users``/``Groups``
managed                ``AWS::IAM::ManagedPolicy``                          roles naming it in ``ManagedPolicyArns``
                                                                            or listed in its ``Roles`` (and the
                                                                            roles using it as permissions boundary)
scp / rcp              ``AWS::Organizations::Policy`` ``Content``           the principals of the target accounts
endpoint               ``AWS::EC2::VPCEndpoint`` ``PolicyDocument``         requests through that endpoint
key                    ``AWS::KMS::Key`` ``KeyPolicy``                      the principals in the statements
bucket / topic / queue ``AWS::S3::BucketPolicy`` / SNS / SQS                the principals in the statements
lambda-permission      ``AWS::Lambda::Permission``                          its ``Principal``
resource               any other property holding a policy document         the principals in the statements
=====================  ===================================================  ===================================
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from landing_zone.assembly import Assembly, Stack
from landing_zone.assembly.intrinsics import is_intrinsic, render, render_document

__all__ = ["CDK_PATH", "PolicyRecord", "build_inventory", "construct_paths", "statements_of"]

CDK_PATH = "aws:cdk:path"  # template resource metadata: the construct path (written when the CDK CLI synthesizes)
LOGICAL_ID = "aws:cdk:logicalId"  # stack metadata entry: construct path -> logical ID (written on every synth)

IDENTITY_KINDS = frozenset({"inline", "identity", "managed"})
RESOURCE_KINDS = frozenset({"trust", "key", "bucket", "topic", "queue", "lambda-permission", "resource"})

_KIND_BY_TYPE_AND_PROPERTY = {
    ("AWS::IAM::Role", "AssumeRolePolicyDocument"): "trust",
    ("AWS::IAM::Policy", "PolicyDocument"): "identity",
    ("AWS::IAM::ManagedPolicy", "PolicyDocument"): "managed",
    ("AWS::EC2::VPCEndpoint", "PolicyDocument"): "endpoint",
    ("AWS::KMS::Key", "KeyPolicy"): "key",
    ("AWS::KMS::ReplicaKey", "KeyPolicy"): "key",
    ("AWS::S3::BucketPolicy", "PolicyDocument"): "bucket",
    ("AWS::SNS::TopicPolicy", "PolicyDocument"): "topic",
    ("AWS::SQS::QueuePolicy", "PolicyDocument"): "queue",
}
_PRINCIPAL_TYPES = {"AWS::IAM::Role": "role", "AWS::IAM::User": "user", "AWS::IAM::Group": "group"}


@dataclass(frozen=True)
class PolicyRecord:
    id: str  # "<stack>/<logical id>/<property path>", unique and stable across synths
    stack: str
    template: str  # template file relative to the assembly
    logical_id: str
    resource_type: str
    kind: str
    name: str
    property_path: str
    document: Mapping[str, Any]  # intrinsics rendered as <placeholders>
    attached_to: tuple[str, ...] = ()  # identity policies: "role kimi-eu-invoker-x"
    boundary_of: tuple[str, ...] = ()  # managed policies used as permissions boundary
    applies_to: str = ""  # resource policies: the resource; SCPs: the targets
    notes: tuple[str, ...] = ()
    parse_error: str | None = None
    # what the policy is, by name and purpose ("kimi-eu-invoke-x — permissions of role kimi-eu-invoker-x"); the
    # logical ID and the construct path (the resource's aws:cdk:path metadata) are the secondary line
    title: str = ""
    construct_path: str = ""

    @property
    def is_boundary_only(self) -> bool:
        return bool(self.boundary_of) and not self.attached_to

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "stack": self.stack,
            "template": self.template,
            "logical_id": self.logical_id,
            "resource_type": self.resource_type,
            "kind": self.kind,
            "name": self.name,
            "title": self.title or self.name,
            "construct_path": self.construct_path,
            "property_path": self.property_path,
            "attached_to": list(self.attached_to),
            "boundary_of": list(self.boundary_of),
            "applies_to": self.applies_to,
            "notes": list(self.notes),
            "parse_error": self.parse_error,
            "document": self.document,
        }


def statements_of(document: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    raw = document.get("Statement") if isinstance(document, Mapping) else None
    items = raw if isinstance(raw, list) else [raw] if raw is not None else []
    return [s for s in items if isinstance(s, Mapping)]


# ----------------------------------------------------------------------------------------- detection


def _as_policy(value: Any, exports: Mapping[str, Any]) -> tuple[Mapping[str, Any] | None, str | None]:
    """(document, parse error) when ``value`` is a policy document or JSON text of one."""
    if isinstance(value, Mapping) and not is_intrinsic(value):
        return (value, None) if "Statement" in value else (None, None)
    text: str | None = None
    if isinstance(value, str):
        text = value
    elif is_intrinsic(value) and next(iter(value)) in ("Fn::Join", "Fn::Sub"):
        text = render(value, exports)
    if text is None or "Statement" not in text or not text.lstrip().startswith("{"):
        return None, None
    try:
        parsed = json.loads(text)
    except ValueError as exc:
        return {"Statement": []}, f"policy text is not valid JSON: {exc}"
    if isinstance(parsed, Mapping) and "Statement" in parsed:
        return parsed, None
    return None, None


def _walk(value: Any, path: str, exports: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any], str | None]]:
    document, error = _as_policy(value, exports)
    if document is not None:
        yield path, document, error
        return
    if isinstance(value, Mapping) and not is_intrinsic(value):
        for key in sorted(value, key=str):
            yield from _walk(value[key], f"{path}.{key}" if path else str(key), exports)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _walk(item, f"{path}[{i}]", exports)


# ----------------------------------------------------------------------------------------- attachment


def _ref(value: Any) -> str | None:
    if isinstance(value, Mapping) and set(value) == {"Ref"} and isinstance(value["Ref"], str):
        return value["Ref"]
    if isinstance(value, Mapping) and set(value) == {"Fn::GetAtt"} and isinstance(value["Fn::GetAtt"], list):
        return str(value["Fn::GetAtt"][0])
    return None


def _principal_label(template: Stack, logical_id: str) -> str:
    res = template.resource_map.get(logical_id) or {}
    kind = _PRINCIPAL_TYPES.get(str(res.get("Type")), "resource")
    props = res.get("Properties") or {}
    name_key = {"role": "RoleName", "user": "UserName", "group": "GroupName"}.get(kind, "")
    name = props.get(name_key) if isinstance(props, Mapping) else None
    return f"{kind} {render(name) if name else logical_id}"


def _attachments(template: Stack) -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, list[str]]]:
    """managed policy logical id -> principals attached; -> principals using it as boundary; role -> AWS managed."""
    attached: dict[str, list[str]] = {}
    boundary: dict[str, list[str]] = {}
    external: dict[str, list[str]] = {}
    for logical_id, res in sorted(template.resource_map.items()):
        if not isinstance(res, Mapping) or res.get("Type") not in _PRINCIPAL_TYPES:
            continue
        props = res.get("Properties") or {}
        label = _principal_label(template, logical_id)
        for arn in props.get("ManagedPolicyArns") or []:
            target = _ref(arn)
            if target and target in template.resource_map:
                attached.setdefault(target, []).append(label)
            else:
                external.setdefault(logical_id, []).append(render(arn))
        target = _ref(props.get("PermissionsBoundary"))
        if target and target in template.resource_map:
            boundary.setdefault(target, []).append(label)
        elif props.get("PermissionsBoundary"):
            external.setdefault(logical_id, []).append(f"permissions boundary {render(props['PermissionsBoundary'])}")
    for logical_id, res in sorted(template.resource_map.items()):
        if isinstance(res, Mapping) and res.get("Type") == "AWS::IAM::ManagedPolicy":
            for label in _listed_principals(template, res.get("Properties") or {}):
                attached.setdefault(logical_id, []).append(label)
    return attached, boundary, external


def _listed_principals(template: Stack, props: Mapping[str, Any]) -> list[str]:
    out = []
    for key in ("Roles", "Users", "Groups"):
        for item in props.get(key) or []:
            target = _ref(item)
            out.append(
                _principal_label(template, target)
                if target and target in template.resource_map
                else f"{key[:-1].lower()} {render(item)}"
            )
    return out


# ----------------------------------------------------------------------------------------- records


def _kind(resource_type: str, path: str) -> str:
    top = path.split(".", 1)[1] if "." in path else path
    if resource_type in _PRINCIPAL_TYPES and top.startswith("Policies["):
        return "inline"
    if resource_type == "AWS::Organizations::Policy":
        return "org-policy"
    return _KIND_BY_TYPE_AND_PROPERTY.get((resource_type, top), "resource")


def _name(resource_type: str, props: Mapping[str, Any], path: str, logical_id: str, node: Any) -> str:
    if ".Policies[" in f".{path}" and isinstance(node, Mapping) and node.get("PolicyName"):
        return render(node["PolicyName"])
    for key in ("ManagedPolicyName", "PolicyName", "Name", "RoleName"):
        if props.get(key):
            return render(props[key])
    return logical_id


def _applies_to(
    template: Stack, resource_type: str, props: Mapping[str, Any], logical_id: str, exports: Mapping[str, Any]
) -> str:
    if resource_type == "AWS::S3::BucketPolicy":
        return f"bucket {render(props.get('Bucket'), exports)}"
    if resource_type == "AWS::SNS::TopicPolicy":
        return "topic(s) " + ", ".join(render(t, exports) for t in props.get("Topics") or [])
    if resource_type == "AWS::SQS::QueuePolicy":
        return "queue(s) " + ", ".join(render(q, exports) for q in props.get("Queues") or [])
    if resource_type in ("AWS::KMS::Key", "AWS::KMS::ReplicaKey"):
        return f"KMS key {logical_id}" + (f" ({render(props.get('Description'))})" if props.get("Description") else "")
    if resource_type == "AWS::EC2::VPCEndpoint":
        return f"requests through VPC endpoint {render(props.get('ServiceName'), exports)}"
    if resource_type == "AWS::IAM::Role":
        return f"assuming role {render(props.get('RoleName')) if props.get('RoleName') else logical_id}"
    if resource_type == "AWS::Organizations::Policy":
        targets = ", ".join(render(t, exports) for t in props.get("TargetIds") or []) or "no target"
        return f"principals of the accounts under {targets} (not the management account, not service-linked roles)"
    if resource_type == "AWS::Lambda::Permission":
        return f"function {render(props.get('FunctionName'), exports)}"
    return f"{resource_type} {logical_id}"


# ----------------------------------------------------------------------------------------- titles

_NAME_PROPERTY = {
    "AWS::S3::Bucket": "BucketName",
    "AWS::SNS::Topic": "TopicName",
    "AWS::SQS::Queue": "QueueName",
    "AWS::Lambda::Function": "FunctionName",
    "AWS::IAM::Role": "RoleName",
    "AWS::IAM::User": "UserName",
    "AWS::IAM::Group": "GroupName",
    "AWS::IAM::ManagedPolicy": "ManagedPolicyName",
}
_NOUN = {
    "AWS::S3::Bucket": "bucket",
    "AWS::SNS::Topic": "topic",
    "AWS::SQS::Queue": "queue",
    "AWS::Lambda::Function": "function",
    "AWS::IAM::Role": "role",
    "AWS::IAM::User": "user",
    "AWS::IAM::Group": "group",
    "AWS::KMS::Key": "KMS key",
}


def _metadata_logical_ids(root: Path) -> dict[tuple[str, str], str]:
    """(template file, logical ID) -> construct path, from the ``aws:cdk:logicalId`` entries of the stacks' metadata
    (``<stack>.metadata.json``), which CDK writes on every synth — also in-process, where the templates carry no
    ``aws:cdk:path`` (only the CDK CLI asks for it)."""
    out: dict[tuple[str, str], str] = {}

    def read(path: Path) -> Any:
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return None

    def visit(directory: Path) -> None:
        manifest = read(directory / "manifest.json")
        artifacts = manifest.get("artifacts") if isinstance(manifest, Mapping) else None
        for artifact_id, artifact in sorted((artifacts if isinstance(artifacts, Mapping) else {}).items()):
            if not isinstance(artifact, Mapping):
                continue
            props = artifact.get("properties") or {}
            if artifact.get("type") == "cdk:cloud-assembly" and props.get("directoryName"):  # a stage
                visit(directory / str(props["directoryName"]))
                continue
            if artifact.get("type") != "aws:cloudformation:stack":
                continue
            template = directory / str(props.get("templateFile") or f"{artifact_id}.template.json")
            metadata = dict(artifact.get("metadata") or {})
            if artifact.get("additionalMetadataFile"):
                loaded = read(directory / str(artifact["additionalMetadataFile"]))
                metadata.update(loaded if isinstance(loaded, Mapping) else {})
            for path, entries in metadata.items():
                for entry in entries if isinstance(entries, list) else []:
                    if (
                        isinstance(entry, Mapping)
                        and entry.get("type") == LOGICAL_ID
                        and isinstance(entry.get("data"), str)
                    ):
                        out[(str(template.relative_to(root)), entry["data"])] = str(path).lstrip("/")

    visit(root)
    return out


def construct_paths(assembly: Assembly) -> dict[tuple[str, str], str]:
    """(template file, logical ID) -> the resource's construct path: the stack metadata's ``aws:cdk:logicalId``
    entries, and the ``aws:cdk:path`` metadata of the template resources (StackSet members have only the latter)."""
    out = _metadata_logical_ids(assembly.path)
    for t in assembly.templates:
        for logical_id, res in t.resource_map.items():
            metadata = res.get("Metadata") if isinstance(res, Mapping) else None
            path = metadata.get(CDK_PATH) if isinstance(metadata, Mapping) else None
            if isinstance(path, str) and path:
                out[(t.file, logical_id)] = path.lstrip("/")
    return out


@dataclass(frozen=True)
class _Names:
    """Names of one template's resources, for titles: name properties, key aliases, construct paths."""

    template: Stack
    exports: Mapping[str, Any]
    paths: Mapping[tuple[str, str], str]

    def path(self, logical_id: str) -> str:
        return self.paths.get((self.template.file, logical_id), "")

    def label(self, logical_id: str) -> str:
        """The resource's construct path without the stack and a trailing ``/Resource``, else its logical ID."""
        path = self.path(logical_id)
        if not path:
            return logical_id
        parts = path.split("/")[1:] or path.split("/")
        if len(parts) > 1 and parts[-1] in ("Resource", "Default"):
            parts = parts[:-1]
        return "/".join(parts)

    def key_alias(self, logical_id: str) -> str | None:
        for res in self.template.resource_map.values():
            if isinstance(res, Mapping) and res.get("Type") == "AWS::KMS::Alias":
                props = res.get("Properties") or {}
                if (
                    isinstance(props, Mapping)
                    and _ref(props.get("TargetKeyId")) == logical_id
                    and props.get("AliasName")
                ):
                    return render(props["AliasName"])
        return None

    def named(self, value: Any) -> str:
        """A reference (Ref / Fn::GetAtt) as the referenced resource's kind and name ("bucket kimi-eu-logs-<acct>"),
        else the value rendered."""
        target = _ref(value)
        res = self.template.resource_map.get(target) if target else None
        if target is None or not isinstance(res, Mapping):
            return render(value, self.exports)
        resource_type = str(res.get("Type", ""))
        props = res.get("Properties") or {}
        name_key = _NAME_PROPERTY.get(resource_type)
        name = props.get(name_key) if name_key and isinstance(props, Mapping) else None
        if resource_type == "AWS::KMS::Key":
            text = self.key_alias(target) or self.label(target)
        else:
            text = render(name, self.exports) if name else self.label(target)
        noun = _NOUN.get(resource_type)
        return f"{noun} {text}" if noun else text

    def budget_action(self, logical_id: str) -> str:
        """How a managed policy attached to nothing is used: an AWS Budgets action applies it (the kill switch)."""
        for res in self.template.resource_map.values():
            if not isinstance(res, Mapping) or res.get("Type") != "AWS::Budgets::BudgetsAction":
                continue
            props = res.get("Properties") or {}
            definition = props.get("Definition") if isinstance(props, Mapping) else None
            iam_action = definition.get("IamActionDefinition") if isinstance(definition, Mapping) else None
            if not isinstance(iam_action, Mapping) or _ref(iam_action.get("PolicyArn")) != logical_id:
                continue
            roles = ", ".join(self.named(r) for r in iam_action.get("Roles") or []) or "no role"
            threshold = props.get("ActionThreshold") or {}
            value = render(threshold.get("Value")) if isinstance(threshold, Mapping) else "?"
            percent = isinstance(threshold, Mapping) and threshold.get("Type") == "PERCENTAGE"
            at = f"{value} % of the budget" if percent else f"{value} USD"
            return f"applied by a budget action of {render(props.get('BudgetName'), self.exports)} at {at} to {roles}"
        return "not attached to any principal in this template"

    def _identity_purpose(self, logical_id: str, attached_to: list[str], boundary_of: list[str]) -> str:
        """An identity or managed policy's purpose: whose permissions (or boundary) it is, else its budget action."""
        purposes = []
        if attached_to:
            purposes.append("permissions of " + ", ".join(attached_to))
        if boundary_of:
            purposes.append("permissions boundary of " + ", ".join(boundary_of))
        return "; ".join(purposes) or self.budget_action(logical_id)

    def _lambda_permission_title(self, props: Mapping[str, Any]) -> str:
        """A Lambda permission's title: the function, the principal and the action it may call."""
        function = self.named(props.get("FunctionName"))
        if not function.startswith("function "):
            function = f"function {function}"
        action = render(props.get("Action"), self.exports)
        return f"{function} — permission for {self.named(props.get('Principal'))} to call {action}"

    def title(
        self,
        kind: str,
        name: str,
        logical_id: str,
        props: Mapping[str, Any],
        attached_to: list[str],
        boundary_of: list[str],
    ) -> str:
        """What the policy is, by name and purpose: "<name or subject> — <purpose>"."""
        label = name if name != logical_id else self.label(logical_id)
        itself = {"Ref": logical_id}
        if kind == "trust":
            return f"{self.named(itself)} — trust policy: who may assume the role"
        if kind == "inline":
            return f"{label} — inline policy of {self.named(itself)}"
        if kind in ("identity", "managed"):
            return f"{label} — " + self._identity_purpose(logical_id, attached_to, boundary_of)
        if kind in ("scp", "rcp"):
            targets = ", ".join(render(t, self.exports) for t in props.get("TargetIds") or []) or "no target"
            what = "service control policy" if kind == "scp" else "resource control policy"
            return f"{label} — {what} of the accounts under {targets}"
        if kind == "key":
            return f"{self.named(itself)} — key policy"
        if kind == "bucket":
            return f"{self.named(props.get('Bucket'))} — bucket policy"
        if kind in ("topic", "queue"):
            items = props.get("Topics" if kind == "topic" else "Queues") or []
            return ", ".join(self.named(t) for t in items) + f" — {kind} policy"
        if kind == "endpoint":
            service = render(props.get("ServiceName"), self.exports)
            return f"VPC endpoint {service} — endpoint policy: what may pass through the endpoint"
        if kind == "lambda-permission":
            return self._lambda_permission_title(props)
        resource_type = (self.template.resource_map.get(logical_id) or {}).get("Type", "a resource")
        return f"{label} — resource policy of {resource_type}"


def _lambda_permission_document(props: Mapping[str, Any]) -> dict[str, Any]:
    """The resource-policy statement an ``AWS::Lambda::Permission`` adds to its function."""
    principal = props.get("Principal")
    principal_text = render(principal)
    if principal_text == "*":
        principal_element: Any = "*"
    elif principal_text.endswith(".amazonaws.com") or principal_text.endswith(".amazonaws.com.cn"):
        principal_element = {"Service": principal}
    else:
        principal_element = {"AWS": principal}
    stmt: dict[str, Any] = {
        "Sid": "LambdaPermission",
        "Effect": "Allow",
        "Principal": principal_element,
        "Action": props.get("Action"),
        "Resource": props.get("FunctionName"),
    }
    condition: dict[str, dict[str, Any]] = {}
    if props.get("SourceArn"):
        condition.setdefault("ArnLike", {})["aws:SourceArn"] = props["SourceArn"]
    if props.get("SourceAccount"):
        condition.setdefault("StringEquals", {})["aws:SourceAccount"] = props["SourceAccount"]
    if props.get("PrincipalOrgID"):
        condition.setdefault("StringEquals", {})["aws:PrincipalOrgID"] = props["PrincipalOrgID"]
    if props.get("FunctionUrlAuthType"):
        condition.setdefault("StringEquals", {})["lambda:FunctionUrlAuthType"] = props["FunctionUrlAuthType"]
    if condition:
        stmt["Condition"] = condition
    return {"Version": "2012-10-17", "Statement": [stmt]}


def _template_records(
    template: Stack, exports: Mapping[str, Any], paths: Mapping[tuple[str, str], str]
) -> list[PolicyRecord]:
    attached, boundary, external = _attachments(template)
    names = _Names(template, exports, paths)
    records: list[PolicyRecord] = []
    for logical_id, res in sorted(template.resource_map.items()):
        if not isinstance(res, Mapping):
            continue
        resource_type = str(res.get("Type", ""))
        raw_props = res.get("Properties")
        props: Mapping[str, Any] = raw_props if isinstance(raw_props, Mapping) else {}
        if resource_type == "AWS::CloudFormation::StackSet" or resource_type == "AWS::CDK::Metadata":
            continue  # a StackSet's TemplateBody is inventoried as its own template
        base: dict[str, Any] = dict(
            stack=template.name, template=template.file, logical_id=logical_id, resource_type=resource_type
        )
        if resource_type == "AWS::Lambda::Permission":
            records.append(
                PolicyRecord(
                    id=f"{template.name}/{logical_id}/Permission",
                    kind="lambda-permission",
                    name=logical_id,
                    property_path="Properties",
                    document=render_document(_lambda_permission_document(props), exports),
                    applies_to=_applies_to(template, resource_type, props, logical_id, exports),
                    title=names.title("lambda-permission", logical_id, logical_id, props, [], []),
                    construct_path=names.path(logical_id),
                    **base,
                )
            )
            continue
        for path, document, error in _walk(props, "", exports):
            kind = _kind(resource_type, f"Properties.{path}")
            if kind == "org-policy":
                policy_type = str(props.get("Type", ""))
                kind = {"SERVICE_CONTROL_POLICY": "scp", "RESOURCE_CONTROL_POLICY": "rcp"}.get(policy_type, "resource")
            node = _node_at(props, path.rsplit(".", 1)[0]) if "." in path else props
            notes: list[str] = []
            attached_to: list[str] = []
            boundary_of: list[str] = []
            applies_to = ""
            if kind == "inline":
                attached_to = [_principal_label(template, logical_id)]
            elif kind == "identity":
                attached_to = _listed_principals(template, props)
            elif kind == "managed":
                attached_to = attached.get(logical_id, [])
                boundary_of = boundary.get(logical_id, [])
                if not attached_to and not boundary_of:
                    notes.append("not attached to any principal in this template")
            else:
                applies_to = _applies_to(template, resource_type, props, logical_id, exports)
            if kind == "trust" and external.get(logical_id):
                notes.append(
                    "the role also has (content not in the template): " + ", ".join(sorted(external[logical_id]))
                )
            name = _name(resource_type, props, path, logical_id, node)
            records.append(
                PolicyRecord(
                    id=f"{template.name}/{logical_id}/{path}",
                    kind=kind,
                    name=name,
                    title=names.title(kind, name, logical_id, props, attached_to, boundary_of),
                    construct_path=names.path(logical_id),
                    property_path=f"Properties.{path}",
                    document=render_document(document, exports),
                    attached_to=tuple(sorted(set(attached_to))),
                    boundary_of=tuple(sorted(set(boundary_of))),
                    applies_to=applies_to,
                    notes=tuple(notes),
                    parse_error=error,
                    **base,
                )
            )
    return records


def _node_at(props: Mapping[str, Any], path: str) -> Any:
    node: Any = props
    for part in path.replace("]", "").replace("[", ".").split("."):
        if not part:
            continue
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, Mapping):
            node = node.get(part)
        else:
            return None
    return node


def build_inventory(assembly: Assembly) -> tuple[PolicyRecord, ...]:
    """Every policy of every template, sorted by template, stack, logical id and property path."""
    paths = construct_paths(assembly)
    records = [r for t in assembly.templates for r in _template_records(t, assembly.exports, paths)]
    return tuple(sorted(records, key=lambda r: (r.template, r.stack, r.logical_id, r.property_path)))
