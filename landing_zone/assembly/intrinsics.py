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

__all__ = ["Exports", "is_intrinsic", "render", "render_document", "resolve_document", "template_resolver"]

# export name -> (exporting stack, rendered value)
Exports = Mapping[str, tuple[str, Any]]

_SUB_VAR = re.compile(r"\$\{([^}!][^}]*)\}")


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
    if name == "Ref":
        return f"<{arg}>" if isinstance(arg, str) else f"<Ref {_short(arg)}>"
    if name == "Fn::GetAtt":
        if isinstance(arg, list) and len(arg) == 2:
            return f"<{_render(arg[0], exports, depth + 1)}.{_render(arg[1], exports, depth + 1)}>"
        if isinstance(arg, str):
            return f"<{arg}>"
        return f"<Fn::GetAtt {_short(arg)}>"
    if name == "Fn::Join":
        if isinstance(arg, list) and len(arg) == 2 and isinstance(arg[0], str):
            parts = arg[1] if isinstance(arg[1], list) else [arg[1]]
            return arg[0].join(_render(p, exports, depth + 1) for p in parts)
        return f"<Fn::Join {_short(arg)}>"
    if name == "Fn::Sub":
        template, variables = (
            (arg, {})
            if isinstance(arg, str)
            else (arg[0], arg[1])
            if isinstance(arg, list) and len(arg) == 2
            else (None, None)
        )
        if not isinstance(template, str) or not isinstance(variables, dict):
            return f"<Fn::Sub {_short(arg)}>"

        def sub(match: re.Match[str]) -> str:
            key = match.group(1)
            if key in variables:
                return _render(variables[key], exports, depth + 1)
            return f"<{key}>"

        return _SUB_VAR.sub(sub, template).replace("${!", "${")
    if name == "Fn::ImportValue":
        export_name = _render(arg, exports, depth + 1)
        if export_name in exports:
            stack, exported = exports[export_name]
            inner = _render(exported, {}, depth + 1)
            if inner.startswith("<") and inner.endswith(">") and inner.count("<") == 1:
                return f"<{stack}:{inner[1:-1]}>"
            return inner
        return f"<import {export_name}>"
    if name == "Fn::Select":
        if isinstance(arg, list) and len(arg) == 2:
            index, items = arg
            if (
                isinstance(items, list)
                and isinstance(index, (int, str))
                and str(index).isdigit()
                and int(index) < len(items)
            ):
                return _render(items[int(index)], exports, depth + 1)
            return f"<item {_render(index, exports, depth + 1)} of {_render(items, exports, depth + 1)}>"
        return f"<Fn::Select {_short(arg)}>"
    if name == "Fn::If":
        if isinstance(arg, list) and len(arg) == 3:
            cond, yes, no = arg
            return f"<if {cond}: {_render(yes, exports, depth + 1)} else {_render(no, exports, depth + 1)}>"
        return f"<Fn::If {_short(arg)}>"
    if name == "Fn::GetAZs":
        region = _render(arg, exports, depth + 1)
        return f"<AZs of {region or 'the stack Region'}>"
    if name == "Fn::FindInMap" and isinstance(arg, list):
        return "<map " + ".".join(_render(a, exports, depth + 1) for a in arg) + ">"
    if name == "Fn::Split" and isinstance(arg, list) and len(arg) == 2:
        return f"<split {_render(arg[1], exports, depth + 1)} on {arg[0]!r}>"
    if name == "Fn::Base64":
        return f"<base64 {_render(arg, exports, depth + 1)}>"
    if name == "Condition":
        return f"<condition {arg}>"
    return f"<{name} {_short(arg)}>"


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


def template_resolver(template_body: Mapping[str, Any], *, account: str, region: str) -> Any:
    """Resolve the intrinsic functions of one template that make ARNs, as far as they can be known offline.

    Names the template sets are used as written; a generated name or ID becomes ``generated-...`` or, for
    application inference profiles and guardrails, the lower-cased logical ID (distinct per resource, so a policy
    that names the wrong one is told apart).  Returns None for what cannot be known (a Ref of a parameter, an
    attribute of another resource type)."""
    resources = template_body.get("Resources", {}) if isinstance(template_body, Mapping) else {}
    pseudo = {
        "AWS::Partition": "aws",
        "AWS::Region": region,
        "AWS::AccountId": account,
        "AWS::URLSuffix": "amazonaws.com",
    }

    def name_of(logical_id: str, prop: str, default: str) -> str | None:
        props = resources.get(logical_id, {}).get("Properties", {})
        value = props.get(prop, default)
        return value if isinstance(value, str) else resolve(value)

    def get_att(logical_id: str, attribute: str) -> str | None:
        res = resources.get(logical_id)
        if not isinstance(res, Mapping):
            return None
        kind = res.get("Type")
        if kind == "AWS::Logs::LogGroup" and attribute == "Arn":  # CloudFormation's Arn ends with ':*'
            name = name_of(logical_id, "LogGroupName", "generated-log-group")
            return None if name is None else f"arn:aws:logs:{region}:{account}:log-group:{name}:*"
        if kind == "AWS::Lambda::Function" and attribute == "Arn":
            name = name_of(logical_id, "FunctionName", "generated-function")
            return None if name is None else f"arn:aws:lambda:{region}:{account}:function:{name}"
        if kind == "AWS::IAM::Role" and attribute == "Arn":
            name = name_of(logical_id, "RoleName", "generated-role")
            return None if name is None else f"arn:aws:iam::{account}:role/{name}"
        if kind == "AWS::S3::Bucket" and attribute == "Arn":
            name = name_of(logical_id, "BucketName", "generated-bucket")
            return None if name is None else f"arn:aws:s3:::{name}"
        if kind == "AWS::KMS::Key" and attribute == "Arn":
            return f"arn:aws:kms:{region}:{account}:key/00000000-0000-0000-0000-000000000000"
        if kind == "AWS::Bedrock::ApplicationInferenceProfile" and attribute == "InferenceProfileArn":
            return f"arn:aws:bedrock:{region}:{account}:application-inference-profile/{logical_id.lower()}"
        if kind == "AWS::Bedrock::Guardrail" and attribute == "GuardrailArn":
            return f"arn:aws:bedrock:{region}:{account}:guardrail/{logical_id.lower()}"
        return None

    def ref(logical_id: str) -> str | None:
        if logical_id in pseudo:
            return pseudo[logical_id]
        res = resources.get(logical_id, {})
        kind = res.get("Type")
        if kind == "AWS::SNS::Topic":
            name = name_of(logical_id, "TopicName", "generated-topic")
            return None if name is None else f"arn:aws:sns:{region}:{account}:{name}"
        if kind == "AWS::IAM::ManagedPolicy":
            name = name_of(logical_id, "ManagedPolicyName", "generated-policy")
            return None if name is None else f"arn:aws:iam::{account}:policy/{name}"
        if kind in ("AWS::S3::Bucket", "AWS::Logs::LogGroup", "AWS::IAM::Role", "AWS::Lambda::Function"):
            prop = {
                "AWS::S3::Bucket": "BucketName",
                "AWS::Logs::LogGroup": "LogGroupName",
                "AWS::IAM::Role": "RoleName",
                "AWS::Lambda::Function": "FunctionName",
            }[kind]
            return name_of(logical_id, prop, "generated")
        return None

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
        return None

    return resolve


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
