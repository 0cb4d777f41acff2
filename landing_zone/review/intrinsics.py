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
from typing import Any, Mapping

__all__ = ["Exports", "is_intrinsic", "render", "render_document"]

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
    (name, arg), = value.items()
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
        template, variables = (arg, {}) if isinstance(arg, str) else (arg[0], arg[1]) if isinstance(arg, list) and len(arg) == 2 else (None, None)
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
            if isinstance(items, list) and isinstance(index, (int, str)) and str(index).isdigit() and int(index) < len(items):
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
    if name == "Fn::FindInMap":
        if isinstance(arg, list):
            return "<map " + ".".join(_render(a, exports, depth + 1) for a in arg) + ">"
    if name == "Fn::Split":
        if isinstance(arg, list) and len(arg) == 2:
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
