"""Turning pydantic's validation errors into problems a person can act on (field path, value got, what is
allowed, in plain words), and validating a raw mapping into the frozen configuration."""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from landing_zone.core.config.schema import CrossFieldProblems, LandingZoneConfig, _kind_of, _path
from landing_zone.core.datafile import structure_problems
from landing_zone.errors import ConfigError, Described, Problem

__all__ = ["build_config", "problems_from_validation_error"]


def _allowed_keys(model: type[BaseModel], loc: Sequence[Any]) -> list[str] | None:
    """Field names of the model that contains ``loc``'s last key (for 'unknown key' messages)."""
    current: Any = model
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)) or part not in current.model_fields:
            return None
        annotation = current.model_fields[part].annotation
        current = _unwrap(annotation)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return sorted(current.model_fields)
    return None


@functools.cache
def _field_paths(model: type[BaseModel], prefix: str = "") -> tuple[str, ...]:
    """Every key path of the model tree, e.g. 'cost.workload.requests_per_day' (for 'it belongs under')."""
    paths: list[str] = []
    for name, field in model.model_fields.items():
        path = f"{prefix}{name}"
        paths.append(path)
        inner = _unwrap(field.annotation)
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            paths += _field_paths(inner, f"{path}.")
    return tuple(paths)


def _unwrap(annotation: Any) -> Any:
    for arg in getattr(annotation, "__args__", ()) or ():
        inner = _unwrap(arg)
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            return inner
    return annotation


# Pydantic's wording for a type mismatch, in the words of a YAML/JSON file.
_PLAIN_WORDS = {
    "tuple_type": "must be a list",
    "list_type": "must be a list",
    "set_type": "must be a list",
    "dict_type": "must be a mapping of keys (`key: value`)",
    "mapping_type": "must be a mapping of keys (`key: value`)",
    "model_type": "must be a mapping of keys (`key: value`)",
    "model_attributes_type": "must be a mapping of keys (`key: value`)",
    "string_type": "must be text (a string)",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number (no fractional part)",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "finite_number": "must be a finite number (not NaN or infinity)",
    "invalid_key": "keys must be text: quote the key",
}


def problems_from_validation_error(exc: ValidationError, model: type[BaseModel]) -> list[Problem]:
    problems: list[Problem] = []
    suggestions_left = 50  # nearest-key searches: enough for a person, bounded for a hostile file
    errors = exc.errors(include_url=False)
    nested = {tuple(e["loc"][:i]) for e in errors for i in range(1, len(e["loc"]))}
    for err in errors:
        loc = tuple(err["loc"])
        kind = err["type"]
        ctx = err.get("ctx") or {}
        error = ctx.get("error")
        if isinstance(error, CrossFieldProblems):
            problems += [Problem(_path((*loc, *rel)), got, allowed) for rel, got, allowed in error.problems]
            continue
        if kind == "too_short" and loc in nested:
            continue  # the items themselves are invalid and reported; "too short" would only repeat that
        if kind == "extra_forbidden":
            suggestions_left -= 1
            problems.append(_unknown_key(model, loc, err.get("input"), suggest=suggestions_left > 0))
            continue
        problems.append(_problem(err, loc, kind, ctx))
    return problems


def _unknown_key(model: type[BaseModel], loc: tuple[Any, ...], got: Any, *, suggest: bool) -> Problem:
    """A key the model does not have: the nearest key here, else where it belongs (while suggestions are left)."""
    keys = _allowed_keys(model, loc) or []
    close = difflib.get_close_matches(str(loc[-1]), keys, n=1, cutoff=0.75) if suggest else []
    elsewhere = [p for p in _field_paths(model) if p.rsplit(".", 1)[-1] == loc[-1]] if suggest else []
    if close:
        allowed = f"unknown key: did you mean {close[0]!r}?"
    elif elsewhere:
        allowed = f"unknown key here: it belongs under {' or '.join(elsewhere[:3])}"
    else:
        allowed = "unknown key" + (f" (allowed keys here: {', '.join(keys)})" if keys else "")
    return Problem(_path(loc), got, allowed)


def _problem(err: Mapping[str, Any], loc: tuple[Any, ...], kind: str, ctx: Mapping[str, Any]) -> Problem:
    """One pydantic error (not a cross-field one, not an unknown key) in plain words."""
    msg = err["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
    msg = msg.replace("Input should be", "must be")
    got = err.get("input")
    if kind == "missing":
        return Problem(_path(loc), Described("nothing"), "this key is required")
    if kind == "invalid_key":
        return Problem(_path(loc[:-1]) if len(loc) > 1 else "(top level)", got, _PLAIN_WORDS[kind])
    if kind in _PLAIN_WORDS:
        typed = kind.endswith(("_type", "_parsing"))
        return Problem(_path(loc), got, f"{_PLAIN_WORDS[kind]}, not a {_kind_of(got)}" if typed else _PLAIN_WORDS[kind])
    if kind == "too_short":
        return Problem(_path(loc), got, f"must list at least {ctx.get('min_length')} item(s)")
    if kind == "too_long":
        return Problem(
            _path(loc),
            Described(f"{ctx.get('actual_length')} items"),
            f"may list at most {ctx.get('max_length')} item(s)",
        )
    if kind in ("string_too_short", "string_too_long"):
        bound = "at least" if kind == "string_too_short" else "at most"
        count = ctx.get("min_length") if kind == "string_too_short" else ctx.get("max_length")
        return Problem(_path(loc), got, f"must be {bound} {count} character(s) long")
    if kind == "literal_error":
        return Problem(_path(loc), got, msg + _literal_suggestion(got, ctx))
    return Problem(_path(loc), got, msg[0].lower() + msg[1:] if msg else msg)


def _literal_suggestion(got: Any, ctx: Mapping[str, Any]) -> str:
    """'; did you mean 'x'?' when ``got`` differs from an allowed value only in case or surrounding whitespace (a
    value is never trimmed or case-folded: docs/CONFIG.md, "Whitespace and case")."""
    if not isinstance(got, str):
        return ""
    allowed = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
    folded = got.strip().casefold()
    close = [a for a in allowed if a.casefold() == folded]
    return f"; did you mean {close[0]!r}? (values are taken exactly as written)" if close else ""


def build_config(
    raw: Mapping[str, Any],
    *,
    catalog: Any = None,
    price_sources: Sequence[str] | None = None,
    origin: str = "configuration",
) -> LandingZoneConfig:
    """Validate a raw mapping; every problem is raised together as one ConfigError."""
    if not isinstance(raw, Mapping):
        raise ConfigError(
            [
                Problem(
                    "(top level)", Described(f"a {_kind_of(raw)}"), "the configuration must be a mapping of config keys"
                )
            ],
            origin=origin,
        )
    shape = structure_problems(raw)
    if shape:
        raise ConfigError(shape, origin=origin)
    context = {"catalog": catalog, "price_sources": price_sources}
    try:
        return LandingZoneConfig.model_validate(dict(raw), context=context)
    except ValidationError as exc:
        raise ConfigError(problems_from_validation_error(exc, LandingZoneConfig), origin=origin) from None
