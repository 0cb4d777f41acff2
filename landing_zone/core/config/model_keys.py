"""Mappings keyed by model hold each model once: a rule by type, like :mod:`landing_zone.core.config.rules`.

A mapping whose keys are models (``cost.price_overrides``, ``cost.price_source`` as a mapping,
``cost.tier_price_overrides``, ``cost.quota_alarms.overrides``) takes a Bedrock model ID or a catalog alias as its
key.  An alias and its ID are one model, so a mapping that holds both holds two entries for one model, and only one
of them is ever read (the lookups try the ID first, then the aliases): the other would be dropped in silence.  The
second key to name a model is refused, naming the first.

The rule reads the key type: a field annotated ``Mapping[ModelKey, X]`` (anywhere in a union or a nested mapping)
has it without code of its own (``_Strict`` applies :func:`model_key_problems` to every field).  Keys that name no
catalog model are left to the checks that know the configured models (``cost/model_prices.py``,
``cost/quotas.py``).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator, Mapping
from typing import Annotated, Any

__all__ = ["MODEL_KEY", "ModelKey", "is_model_keyed", "model_key_problems"]


class _ModelKeyMarker:
    """Metadata of :data:`ModelKey`: a mapping key that names a model by Bedrock model ID or catalog alias."""

    def __repr__(self) -> str:
        return "ModelKey"


MODEL_KEY = _ModelKeyMarker()
ModelKey = Annotated[str, MODEL_KEY]

# (path relative to the field, value received, what is allowed)
Problem = tuple[tuple[Any, ...], Any, str]


def _keys_are_models(key_type: Any) -> bool:
    return typing.get_origin(key_type) is Annotated and MODEL_KEY in typing.get_args(key_type)[1:]


def is_model_keyed(annotation: Any) -> bool:
    """Whether ``annotation`` is, or holds in a union or ``Annotated``, a mapping keyed by :data:`ModelKey`."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Annotated:
        return is_model_keyed(args[0])
    if origin in (typing.Union, types.UnionType):
        return any(is_model_keyed(a) for a in args)
    if origin in (Mapping, dict, typing.Mapping) and len(args) == 2:
        return _keys_are_models(args[0])
    return False


def model_key_problems(annotation: Any, value: Any, catalog: Any) -> Iterator[Problem]:
    """Each key of ``value`` (a raw mapping for a field annotated ``annotation``) that names the same catalog model
    as a key before it.  Nothing without a catalog, for another annotation, or for a value that is not a mapping."""
    if catalog is None or not isinstance(value, Mapping) or not is_model_keyed(annotation):
        return
    first: dict[str, str] = {}
    for key in value:
        model = catalog.resolve_model(key) if isinstance(key, str) else None
        if model is None:
            continue
        earlier = first.setdefault(model.id, key)
        if earlier != key:
            yield (
                (key,),
                key,
                f"names the same model as the key {earlier!r} (an alias and its ID, {model.id}, are one model), and "
                "only one of the two entries would ever be read: list the model once",
            )
