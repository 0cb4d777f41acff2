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
from typing import Any

from landing_zone.assembly import Assembly, Stack
from landing_zone.assembly.intrinsics import is_intrinsic, render, render_document

__all__ = ["PolicyRecord", "build_inventory", "statements_of"]

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
            props = res.get("Properties") or {}
            for key in ("Roles", "Users", "Groups"):
                for item in props.get(key) or []:
                    target = _ref(item)
                    label = (
                        _principal_label(template, target)
                        if target and target in template.resource_map
                        else f"{key[:-1].lower()} {render(item)}"
                    )
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


def _template_records(template: Stack, exports: Mapping[str, Any]) -> list[PolicyRecord]:
    attached, boundary, external = _attachments(template)
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
            records.append(
                PolicyRecord(
                    id=f"{template.name}/{logical_id}/{path}",
                    kind=kind,
                    name=_name(resource_type, props, path, logical_id, node),
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
    records = [r for t in assembly.templates for r in _template_records(t, assembly.exports)]
    return tuple(sorted(records, key=lambda r: (r.template, r.stack, r.logical_id, r.property_path)))
