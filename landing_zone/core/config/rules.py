"""Rules by type: what every model of the configuration checks about its fields, whoever adds them.

A field gets these rules from its annotation (or, for ARNs, from its value) alone, so a field added later is covered
without code of its own (:class:`~landing_zone.core.config.schema._Strict` applies them to every model):

* **Values are of their type** (:func:`type_problems`): a number field takes a number, never the text of one
  (``requests_per_day: "10000"`` is refused with "remove the quotes"), nor ``true``/``false``; a boolean field takes
  ``true``/``false`` only.  Lists and mappings of numbers are checked entry by entry.
* **Lists hold each entry once** (:func:`list_problems`): every list of plain values (text, numbers, choices: Regions,
  models, accounts, targets, OUs, principals, e-mail addresses, ...).  Two entries are the same when the service that
  reads them would take them as the same (:func:`identity`): an IAM/STS ARN regardless of the case of its name (IAM
  role and user names are unique without regard to case), an e-mail address regardless of the case of its domain.
* **An empty list is not an omitted one** (:func:`list_problems`): a list whose omission means a default refuses
  ``[]``, which would otherwise silently mean that default: one annotated ``tuple[...] | None`` (None when omitted),
  and one whose omission means something other than "none" (``Annotated[tuple[...], WhenOmitted("...")]``, e.g. the
  invoker's ``trusted_principal_arns``, omitted: any principal of its account).  A list without either means "none"
  when empty, omitted or not (``sso_permission_sets: []``).
* **Every ARN is in the landing zone's partition** (:func:`arn_problems`): any text value of the configuration that
  is an ARN, wherever it is; a principal of another partition can never call this landing zone's Bedrock.
"""

from __future__ import annotations

import math
import re
import types
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel

__all__ = [
    "ARN",
    "Problem",
    "WhenOmitted",
    "arn_problems",
    "identity",
    "list_problems",
    "partition_of_region",
    "type_problems",
]

# (path relative to the model, value received, what is allowed)
Problem = tuple[tuple[Any, ...], Any, str]

# arn:partition:service:region:account:resource (ARNs and ARN formats, IAM user guide:
# https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html)
ARN = re.compile(r"^arn:(?P<partition>[^:]*):(?P<service>[^:]*):(?P<region>[^:]*):(?P<account>[^:]*):(?P<resource>.*)$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+$")
# "Names are not distinguished by case. For example, you cannot create roles named both "PRODROLE" and "prodrole""
# (IAM user guide, IAM object quotas: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html).
IAM_CASE_RULE = (
    "IAM names are not distinguished by case (IAM user guide, 'IAM and AWS STS quotas': 'you cannot create roles "
    "named both PRODROLE and prodrole'), so both entries name the same principal, while aws:PrincipalArn comparisons "
    "(ArnLike) are case-sensitive and match only the spelling IAM reports: keep that one"
)
EMAIL_CASE_RULE = "the domain of an e-mail address is not case-sensitive (RFC 5321), so both reach the same mailbox"


# -- values of their type ---------------------------------------------------------------------------------------
def _leaf(annotation: Any) -> Any:
    """The annotation without ``Annotated`` and without ``None`` in a union (None when the union mixes kinds)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Annotated:
        return _leaf(args[0])
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        return _leaf(inner[0]) if len(inner) == 1 else None
    return annotation


def _number_text(value: str) -> bool:
    try:
        return math.isfinite(float(value))
    except ValueError:
        return False


def _scalar_problem(kind: Any, value: Any) -> str | None:
    """What is wrong with ``value`` for a ``bool``, ``int`` or ``float`` field, or None."""
    if kind is bool and not isinstance(value, bool):
        return "must be true or false" + (
            " (quoted text and yes/no/on/off are not booleans)" if isinstance(value, str) else ""
        )
    if kind in (int, float) and isinstance(value, bool):
        return "must be a number, not true/false"
    if kind in (int, float) and isinstance(value, str) and _number_text(value):
        return (
            f"a number written as text (in quotes): numbers are never read from text; remove the quotes "
            f"(write {value.strip()} instead of {value!r})"
        )
    return None


def type_problems(annotation: Any, value: Any) -> list[Problem]:
    """Values of ``value`` that are not of the type ``annotation`` names, where pydantic's lax mode would convert
    them silently: text for numbers, numbers or text for booleans, true/false for numbers; inside lists
    (``tuple[X, ...]``) and mappings (``Mapping[K, V]``) entry by entry, each at its own index or key."""
    kind = _leaf(annotation)
    if kind is None:
        return []
    if (rule := _scalar_problem(kind, value)) is not None:
        return [((), value, rule)]
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    problems: list[Problem] = []
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis and isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            problems += [((i, *loc), got, rule) for loc, got, rule in type_problems(args[0], item)]
    elif origin in (Mapping, dict, typing.Mapping) and len(args) == 2 and isinstance(value, Mapping):
        for key, item in value.items():
            problems += [((key, *loc), got, rule) for loc, got, rule in type_problems(args[1], item)]
    return problems


# -- lists hold each entry once -----------------------------------------------------------------------------------
def _is_plain(item: Any) -> bool:
    """A list entry type whose values are plain (text, numbers, choices), not models with identities of their own."""
    kind = _leaf(item)
    return kind in (str, int, float, bool) or typing.get_origin(kind) is Literal


def _list_item(annotation: Any) -> tuple[Any, bool] | None:
    """(entry type, optional) of a ``tuple[X, ...]`` field, optional when the annotation admits None."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Annotated:
        return _list_item(args[0])
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        found = _list_item(inner[0]) if len(inner) == 1 else None
        return (found[0], True) if found is not None and len(inner) < len(args) else found
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return args[0], False
    return None


def identity(value: Any) -> tuple[Any, str]:
    """The key under which two list entries are the same, and the rule that says so ("" for exact equality)."""
    if isinstance(value, str):
        arn = ARN.match(value)
        if arn is not None and arn["service"] in ("iam", "sts"):
            return ("arn", arn["partition"], arn["service"], arn["account"], arn["resource"].lower()), IAM_CASE_RULE
        if arn is None and _EMAIL.match(value):
            local, _, domain = value.rpartition("@")
            return ("email", local, domain.lower()), EMAIL_CASE_RULE
    return value, ""


@dataclass(frozen=True)
class WhenOmitted:
    """Marks a list field whose omission means ``meaning``, a default other than "none": ``[]`` is refused there
    (see the module docstring).  ``Annotated[tuple[X, ...], WhenOmitted("...")]``."""

    meaning: str


def when_omitted(field: Any) -> WhenOmitted | None:
    """The :class:`WhenOmitted` marker of a pydantic field, or None."""
    return next((m for m in getattr(field, "metadata", ()) if isinstance(m, WhenOmitted)), None)


def _omitted_means(description: str | None) -> str:
    """The 'Omitted: ...' clause of a field description, as a reason ('' when there is none)."""
    found = re.search(r"[Oo]mitted: ([^.;]+)", description or "")
    return f" (omitted: {found.group(1).strip()})" if found else ""


def list_problems(model: BaseModel) -> Iterator[Problem]:
    """Every list of plain values of ``model`` (its own fields) that repeats an entry, and every optional list given
    as ``[]`` (see the module docstring)."""
    for name, field in type(model).model_fields.items():
        found = _list_item(field.annotation)
        value = getattr(model, name, None)
        if found is None or not isinstance(value, tuple):
            continue
        item, optional = found
        marker = when_omitted(field)
        defaulted = (optional and field.default is None) or marker is not None
        if defaulted and not value and name in model.model_fields_set:
            means = f" (omitted: {marker.meaning})" if marker is not None else _omitted_means(field.description)
            yield (
                (name,),
                [],
                f"an empty list is not the same as leaving the key out: omitted, it takes its default{means}, and [] "
                "would silently mean the same; leave the key out, or list at least one entry",
            )
        if not _is_plain(item):
            continue
        first: dict[Any, int] = {}
        for j, entry in enumerate(value):
            key, rule = identity(entry)
            i = first.setdefault(key, j)
            if i != j:
                same = "" if entry == value[i] else f" ({value[i]!r}, compared as the service does: {rule})"
                yield (name, j), entry, f"repeats {name}[{i}]{same}: list each entry once"


# -- ARNs in the landing zone's partition ------------------------------------------------------------------------
def partition_of_region(region: str, catalog: Any = None) -> str:
    """The partition of a Region: the catalog's when it knows the Region, else by its prefix (ARNs and ARN formats:
    aws, aws-cn for China, aws-us-gov for AWS GovCloud (US))."""
    known = getattr(catalog, "regions", {}) if catalog is not None else {}
    if region in known:
        return str(known[region].partition)
    if region.startswith("cn-"):
        return "aws-cn"
    return "aws-us-gov" if region.startswith("us-gov-") else "aws"


def _text_values(value: Any, loc: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str]]:
    """Every text value of a validated configuration tree, with its path."""
    if isinstance(value, str):
        yield loc, value
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from _text_values(getattr(value, name), (*loc, name))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _text_values(item, (*loc, i))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _text_values(item, (*loc, key))


def arn_problems(config: BaseModel, partition: str, home_region: str) -> Iterator[Problem]:
    """Every ARN of ``config`` whose partition is not ``partition`` (the partition of ``home_region``)."""
    for loc, text in _text_values(config):
        arn = ARN.match(text)
        if arn is not None and arn["partition"] != partition:
            yield (
                loc,
                text,
                f"an ARN of the partition {arn['partition']!r}, but the landing zone is in {partition!r} (the "
                f"partition of home_region {home_region}): a principal or resource of another partition can never "
                f"be part of this landing zone; allowed: an ARN that starts with 'arn:{partition}:'",
            )
