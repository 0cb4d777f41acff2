"""Render CloudFormation intrinsic functions as readable placeholders, never failing.

A policy in a synthesized template may contain ``{"Ref": "X"}``, ``{"Fn::GetAtt": ["X", "Arn"]}``,
``{"Fn::Join": [...]}``, ``{"Fn::Sub": ...}`` or ``{"Fn::ImportValue": ...}``.  The review works on plain
strings: every intrinsic becomes a placeholder in angle brackets, e.g. ``<LogsKeyFE4C4A83.Arn>``,
``<AWS::AccountId>``, or for an import of another stack's output ``<kimi-eu-keys:LogsKeyFE4C4A83.Arn>``.
Literal parts stay literal (``Fn::Join`` and ``Fn::Sub`` are concatenated), so an ARN built from a
placeholder and a literal suffix still reads like an ARN.  Anything unknown or malformed renders as
``<Fn::Name ...>`` instead of raising.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = [
    "STACK_SUFFIX",
    "Exports",
    "is_intrinsic",
    "render",
    "render_document",
    "resolve_document",
    "template_resolver",
]

# export name -> (exporting stack, rendered value)
Exports = Mapping[str, tuple[str, Any]]

_SUB_VAR = re.compile(r"\$\{([^}!][^}]*)\}")

# How the constructs write the stack's suffix (``constructs_lib.cfn.stack_suffix``): the first group of the UUID that
# ends AWS::StackId.  Rendered as ``<AWS::StackId suffix>``.
STACK_SUFFIX: Mapping[str, Any] = {
    "Fn::Select": [0, {"Fn::Split": ["-", {"Fn::Select": [2, {"Fn::Split": ["/", {"Ref": "AWS::StackId"}]}]}]}]
}


def is_intrinsic(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and len(value) == 1
        and isinstance(next(iter(value)), str)
        and (next(iter(value)).startswith("Fn::") or next(iter(value)) in ("Ref", "Condition"))
    )


def _short(value: Any) -> str:
    try:
        text = json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def render(value: Any, exports: Exports | None = None) -> str:
    """One value (string, number, intrinsic, list) as a readable string."""
    try:
        return _render(value, exports or {}, depth=0)
    except Exception:  # noqa: BLE001 - rendering must never fail a review
        return f"<unrenderable {_short(value)}>"


def _render(value: Any, exports: Exports, depth: int) -> str:
    if depth > 20:
        return "<...>"
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ", ".join(_render(v, exports, depth + 1) for v in value)
    if not is_intrinsic(value):
        return _short(value)
    ((name, arg),) = value.items()
    handler = _RENDER_INTRINSIC.get(name)
    text = handler(arg, exports, depth + 1) if handler else None
    return text if text is not None else f"<{name} {_short(arg)}>"


# One renderer per intrinsic function: (argument, exports, depth) -> text, or None for an argument of the wrong
# shape (then shown as ``<Fn::X argument>``).
def _r_ref(arg: Any, exports: Exports, depth: int) -> str | None:
    return f"<{arg}>" if isinstance(arg, str) else f"<Ref {_short(arg)}>"


def _r_getatt(arg: Any, exports: Exports, depth: int) -> str | None:
    if isinstance(arg, list) and len(arg) == 2:
        return f"<{_render(arg[0], exports, depth)}.{_render(arg[1], exports, depth)}>"
    return f"<{arg}>" if isinstance(arg, str) else None


def _r_join(arg: Any, exports: Exports, depth: int) -> str | None:
    if isinstance(arg, list) and len(arg) == 2 and isinstance(arg[0], str):
        parts = arg[1] if isinstance(arg[1], list) else [arg[1]]
        return arg[0].join(_render(p, exports, depth) for p in parts)
    return None


def _r_sub(arg: Any, exports: Exports, depth: int) -> str | None:
    template, variables = (
        (arg, {})
        if isinstance(arg, str)
        else (arg[0], arg[1])
        if isinstance(arg, list) and len(arg) == 2
        else (None, None)
    )
    if not isinstance(template, str) or not isinstance(variables, dict):
        return None

    def sub(match: re.Match[str]) -> str:
        key = match.group(1)
        return _render(variables[key], exports, depth) if key in variables else f"<{key}>"

    return _SUB_VAR.sub(sub, template).replace("${!", "${")


def _r_import(arg: Any, exports: Exports, depth: int) -> str | None:
    export_name = _render(arg, exports, depth)
    if export_name not in exports:
        return f"<import {export_name}>"
    stack, exported = exports[export_name]
    inner = _render(exported, {}, depth)
    if inner.startswith("<") and inner.endswith(">") and inner.count("<") == 1:
        return f"<{stack}:{inner[1:-1]}>"
    return inner


def _r_select(arg: Any, exports: Exports, depth: int) -> str | None:
    if not (isinstance(arg, list) and len(arg) == 2):
        return None
    if {"Fn::Select": arg} == STACK_SUFFIX:
        return "<AWS::StackId suffix>"
    index, items = arg
    if isinstance(items, list) and isinstance(index, (int, str)) and str(index).isdigit() and int(index) < len(items):
        return _render(items[int(index)], exports, depth)
    return f"<item {_render(index, exports, depth)} of {_render(items, exports, depth)}>"


def _r_if(arg: Any, exports: Exports, depth: int) -> str | None:
    if isinstance(arg, list) and len(arg) == 3:
        cond, yes, no = arg
        return f"<if {cond}: {_render(yes, exports, depth)} else {_render(no, exports, depth)}>"
    return None


def _r_getazs(arg: Any, exports: Exports, depth: int) -> str | None:
    return f"<AZs of {_render(arg, exports, depth) or 'the stack Region'}>"


def _r_findinmap(arg: Any, exports: Exports, depth: int) -> str | None:
    return "<map " + ".".join(_render(a, exports, depth) for a in arg) + ">" if isinstance(arg, list) else None


def _r_split(arg: Any, exports: Exports, depth: int) -> str | None:
    if isinstance(arg, list) and len(arg) == 2:
        return f"<split {_render(arg[1], exports, depth)} on {arg[0]!r}>"
    return None


_RENDER_INTRINSIC: dict[str, Callable[[Any, Exports, int], str | None]] = {
    "Ref": _r_ref,
    "Fn::GetAtt": _r_getatt,
    "Fn::Join": _r_join,
    "Fn::Sub": _r_sub,
    "Fn::ImportValue": _r_import,
    "Fn::Select": _r_select,
    "Fn::If": _r_if,
    "Fn::GetAZs": _r_getazs,
    "Fn::FindInMap": _r_findinmap,
    "Fn::Split": _r_split,
    "Fn::Base64": lambda arg, exports, depth: f"<base64 {_render(arg, exports, depth)}>",
    "Condition": lambda arg, exports, depth: f"<condition {arg}>",
}


def render_document(value: Any, exports: Exports | None = None) -> Any:
    """Deep copy of a JSON value with every intrinsic replaced by its rendered string."""
    exports = exports or {}
    if is_intrinsic(value):
        return render(value, exports)
    if isinstance(value, dict):
        return {str(k): render_document(v, exports) for k, v in value.items()}
    if isinstance(value, list):
        return [render_document(v, exports) for v in value]
    return value


# --------------------------------------------------------------------------------------------------
# Resolving: concrete values, as far as they can be known offline
# --------------------------------------------------------------------------------------------------


# What a Fn::GetAtt / Ref of a resource resolves to offline: (name property or None for the lower-cased logical ID,
# the name to use when the template leaves it to CloudFormation, the ARN format).
_GETATT_ARNS: dict[tuple[Any, str], tuple[str | None, str, str]] = {
    # CloudFormation's log group Arn ends with ':*'
    ("AWS::Logs::LogGroup", "Arn"): (
        "LogGroupName",
        "generated-log-group",
        "arn:aws:logs:{region}:{account}:log-group:{name}:*",
    ),
    ("AWS::Lambda::Function", "Arn"): (
        "FunctionName",
        "generated-function",
        "arn:aws:lambda:{region}:{account}:function:{name}",
    ),
    ("AWS::IAM::Role", "Arn"): ("RoleName", "generated-role", "arn:aws:iam::{account}:role/{name}"),
    ("AWS::S3::Bucket", "Arn"): ("BucketName", "generated-bucket", "arn:aws:s3:::{name}"),
    ("AWS::KMS::Key", "Arn"): ("", "", "arn:aws:kms:{region}:{account}:key/00000000-0000-0000-0000-000000000000"),
    ("AWS::Bedrock::ApplicationInferenceProfile", "InferenceProfileArn"): (
        None,
        "",
        "arn:aws:bedrock:{region}:{account}:application-inference-profile/{name}",
    ),
    ("AWS::Bedrock::Guardrail", "GuardrailArn"): (None, "", "arn:aws:bedrock:{region}:{account}:guardrail/{name}"),
}
_REF_ARNS: dict[Any, tuple[str | None, str, str]] = {
    "AWS::SNS::Topic": ("TopicName", "generated-topic", "arn:aws:sns:{region}:{account}:{name}"),
    "AWS::IAM::ManagedPolicy": ("ManagedPolicyName", "generated-policy", "arn:aws:iam::{account}:policy/{name}"),
}
# a Ref of these is the name
_REF_NAMES = {
    "AWS::S3::Bucket": "BucketName",
    "AWS::Logs::LogGroup": "LogGroupName",
    "AWS::IAM::Role": "RoleName",
    "AWS::Lambda::Function": "FunctionName",
}


# The UUID of ``AWS::StackId`` when a template is resolved offline: the stack's suffix resolves to "0a1b2c3d".
SAMPLE_STACK_UUID = "0a1b2c3d-1111-2222-3333-444455556666"


def template_resolver(template_body: Mapping[str, Any], *, account: str, region: str) -> Any:
    """Resolve the intrinsic functions of one template that make ARNs, as far as they can be known offline.

    Names the template sets are used as written; a generated name or ID becomes ``generated-...`` or, for
    application inference profiles and guardrails, the lower-cased logical ID (distinct per resource, so a policy
    that names the wrong one is told apart).  Returns None for what cannot be known (a Ref of a parameter, an
    attribute of another resource type).  The stack's ID is a sample (``SAMPLE_STACK_UUID``), so a name that ends
    with the stack's suffix resolves to one that ends with its first group."""
    resources = template_body.get("Resources", {}) if isinstance(template_body, Mapping) else {}
    pseudo = {
        "AWS::Partition": "aws",
        "AWS::Region": region,
        "AWS::AccountId": account,
        "AWS::URLSuffix": "amazonaws.com",
        "AWS::StackId": f"arn:aws:cloudformation:{region}:{account}:stack/stack/{SAMPLE_STACK_UUID}",
    }

    def name_of(logical_id: str, prop: str, default: str) -> str | None:
        props = resources.get(logical_id, {}).get("Properties", {})
        value = props.get(prop, default)
        return value if isinstance(value, str) else resolve(value)

    def arn(logical_id: str, shape: tuple[str | None, str, str]) -> str | None:
        prop, default, fmt = shape
        name = name_of(logical_id, prop, default) if prop else logical_id.lower()
        return None if name is None else fmt.format(region=region, account=account, name=name)

    def get_att(logical_id: str, attribute: str) -> str | None:
        res = resources.get(logical_id)
        shape = _GETATT_ARNS.get((res.get("Type"), attribute)) if isinstance(res, Mapping) else None
        return arn(logical_id, shape) if shape else None

    def ref(logical_id: str) -> str | None:
        if logical_id in pseudo:
            return pseudo[logical_id]
        kind = resources.get(logical_id, {}).get("Type")
        if kind in _REF_ARNS:
            return arn(logical_id, _REF_ARNS[kind])
        return name_of(logical_id, _REF_NAMES[kind], "generated") if kind in _REF_NAMES else None

    def resolve(value: Any) -> str | None:
        if isinstance(value, str):
            return value
        if not isinstance(value, Mapping) or len(value) != 1:
            return None
        ((fn, arg),) = value.items()
        if fn == "Ref" and isinstance(arg, str):
            return ref(arg)
        if fn == "Fn::GetAtt" and isinstance(arg, Sequence) and len(arg) == 2:
            return get_att(str(arg[0]), str(arg[1]))
        if fn == "Fn::Join" and isinstance(arg, Sequence) and len(arg) == 2:
            parts = [resolve(p) for p in (arg[1] if isinstance(arg[1], list) else [arg[1]])]
            return None if any(p is None for p in parts) else str(arg[0]).join(p for p in parts if p is not None)
        if fn == "Fn::Select" and isinstance(arg, Sequence) and len(arg) == 2:
            return _select(arg[0], arg[1], resolve)
        return None

    return resolve


def _select(index: Any, items: Any, resolve: Callable[[Any], str | None]) -> str | None:
    """``Fn::Select`` of a literal list of strings or of ``Fn::Split`` of what ``resolve`` resolves (the stack's
    suffix is one)."""
    parts: list[str] | None = None
    if isinstance(items, list) and all(isinstance(v, str) for v in items):
        parts = items
    elif isinstance(items, Mapping) and set(items) == {"Fn::Split"} and len(items["Fn::Split"]) == 2:
        separator, source = items["Fn::Split"]
        text = resolve(source)
        parts = None if text is None else text.split(str(separator))
    if parts is None or not str(index).isdigit() or int(index) >= len(parts):
        return None
    return parts[int(index)]


def resolve_document(value: Any, resolve: Callable[[Any], str | None], exports: Exports | None = None) -> Any:
    """``value`` (a policy document, a property) with every intrinsic that ``resolve`` (a
    :func:`template_resolver`) can resolve replaced by its concrete value, and the rest rendered readably."""
    if is_intrinsic(value):
        resolved = resolve(value)
        return resolved if resolved is not None else render(value, exports)
    if isinstance(value, Mapping):
        return {k: resolve_document(v, resolve, exports) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_document(v, resolve, exports) for v in value]
    return value
