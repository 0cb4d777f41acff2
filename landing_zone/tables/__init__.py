"""The request tables as validated data: the red-team rows live in ``redteam/goal-<n>.yaml``, one schema below.

A row names its deciding statement by the *name* of a Sid constant (``landing_zone/policies/sids.py``) and may write a
condition key of its request context as ``=NAME`` of a constant in ``landing_zone/policies/condition_keys.py``; the
loader resolves both and fails, naming the file, the row, the field and the value, on an unknown name or field.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from landing_zone.errors import LandingZoneError
from landing_zone.policies import condition_keys, sids

__all__ = [
    "NEEDS",
    "NO_STATEMENT",
    "AttackRow",
    "ProbeRow",
    "TableError",
    "load_attack_rows",
    "resolve_key",
    "resolve_sid",
]

# the preconditions a row may need (computed per plan by tables/attacks.py:attacks_for)
# libyaml's safe loader where PyYAML was built with it (the wheels are): the same documents, several times faster
# than the pure-Python one (the tables are read by every review, prove and threat-model run).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
NEEDS = frozenset(
    {
        "agentcore",
        "alert_subscribers",
        "alert_subscribers_governed",
        "data_retention",
        "deployers",
        "geo",
        "imported_vpc",
        "kill_switch_reset",
        "mantle",
        "mantle_projects",
        "others_free",
        "outside",
        "regions_free",
        "rejected_geo",
        "second",
        "short_term_keys",
        "stacksets",
        "targets",
        "tier_denied",
    }
)


class TableError(LandingZoneError):
    """A table row that does not load: the message names the file, the row, the field and the value."""


def _public(module: Any) -> dict[str, str]:
    return {k: v for k, v in vars(module).items() if k.isupper() and isinstance(v, str)}


NO_STATEMENT = "(none)"  # ``stops: NONE``: no statement stops the attack (the row says so in ``residual``)


def resolve_sid(name: str) -> str:
    """The Sid a constant of ``policies/sids.py`` names (``NONE``: no statement, see :data:`NO_STATEMENT`)."""
    known = {**_public(sids), "NONE": NO_STATEMENT}
    if name not in known:
        raise ValueError(f"unknown Sid name {name!r}: use one of landing_zone/policies/sids.py ({', '.join(known)})")
    return known[name]


def resolve_key(key: str) -> str:
    """A context key as written in a table: ``=NAME`` names a constant of ``policies/condition_keys.py``."""
    if not key.startswith("="):
        return key
    known = _public(condition_keys)
    if key[1:] not in known:
        raise ValueError(
            f"unknown condition key name {key!r}: use one of landing_zone/policies/condition_keys.py "
            f"({', '.join(known)})"
        )
    return known[key[1:]]


class RequestRow(BaseModel):
    """The one request type of both tables: every string may name placeholders (``{home}``, ``{acc}`` ...), filled
    per configuration; a context key may be ``=NAME`` of ``policies/condition_keys.py``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    action: str
    resource: str
    region: str = "{home}"
    context: dict[str, str | list[str]] = {}

    @field_validator("context")
    @classmethod
    def _keys(cls, value: dict[str, str | list[str]]) -> dict[str, str | list[str]]:
        return {resolve_key(k): v for k, v in value.items()}


class ProbeRow(RequestRow):
    """A red-team request; ``who`` names the principal's placeholder: attacker, app_role, deployer, ..."""

    who: str


Decision = Literal["allow", "explicit_deny", "implicit_deny"]
CASE_NEEDS = frozenset({"geo", "mantle", "rejected_geo", "second", "short_term_keys", "stacksets"})
GUARDS = (
    "global-profile-denied",
    "deny_api_key_creation",
    "deny_bearer_token_calls",
    "tamper_protection",
    "region_deny_all_services",
    "priority-tier-denied",
    "agentcore_controls",
    "data_retention.mode",
)


class CaseRow(RequestRow):
    """A decision case: the request of ``principal`` (a placeholder) and the expected decisions, of the SCPs
    (``scp``; ``scp_off`` when ``guard`` is not active) and of the invoker permissions boundary (``boundary``,
    ``boundary_off``; null: the boundary does not apply to the principal)."""

    id: str
    case: str  # the case, in words (placeholders allowed)
    principal: str
    context: dict[str, str] = {}  # type: ignore[assignment]  # a case's context values are single strings
    scp: Decision = "allow"
    boundary: Decision | None = "allow"
    guard: Literal[GUARDS] | None = None  # type: ignore[valid-type]
    scp_off: Decision = "allow"
    boundary_off: Decision | None = "implicit_deny"
    needs: tuple[str, ...] = ()

    @field_validator("needs")
    @classmethod
    def _needs(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = sorted(set(value) - CASE_NEEDS)
        if unknown:
            raise ValueError(f"unknown precondition(s) {unknown}: use some of {sorted(CASE_NEEDS)}")
        return value


class AttackRow(BaseModel):
    """A red-team row: the attack (expected: denied by ``stops``) and its legitimate neighbour (expected: allowed)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    goal: Literal[1, 2, 3, 4, 5, 6]
    path: str  # how the attacker tries it, in words
    attack: ProbeRow
    stops: str  # the NAME of the deciding statement's Sid constant; resolved to the Sid
    legit: ProbeRow
    legit_path: str
    needs: tuple[str, ...] = ()
    residual: str | None = None  # the attack is NOT stopped unless `guard` is on; says what would stop it
    guard: Literal["region_deny_all_services", "verify"] | None = None

    @field_validator("stops")
    @classmethod
    def _sid(cls, value: str) -> str:
        return resolve_sid(value)

    @model_validator(mode="after")
    def _residual(self) -> AttackRow:
        if self.stops == NO_STATEMENT and self.residual is None:
            raise ValueError("stops: NONE needs a residual (what would stop the attack)")
        return self

    @field_validator("needs")
    @classmethod
    def _needs(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = sorted(set(value) - NEEDS)
        if unknown:
            raise ValueError(f"unknown precondition(s) {unknown}: use some of {sorted(NEEDS)}")
        return value


_Row = TypeVar("_Row", "AttackRow", "CaseRow")


def _error(where: str, row_id: str, exc: ValidationError) -> TableError:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '(row)'}: got {e.get('input')!r}: {e['msg']}" for e in exc.errors()
    )
    return TableError(f"{where}: row {row_id!r}: {problems}")


def load_attack_rows(folder: Traversable | None = None) -> tuple[AttackRow, ...]:
    """Every red-team row, file by file (``redteam/*.yaml``, in name order), each validated by :class:`AttackRow`;
    ``folder``: another folder of such files (tests)."""
    return _load(AttackRow, folder if folder is not None else files("landing_zone.tables") / "redteam")


def load_case_rows(folder: Traversable | None = None) -> tuple[CaseRow, ...]:
    """Every decision case (``cases/*.yaml``, in name order), each validated by :class:`CaseRow`."""
    return _load(CaseRow, folder if folder is not None else files("landing_zone.tables") / "cases")


def _load(model: type[_Row], folder: Traversable) -> tuple[_Row, ...]:
    rows: list[_Row] = []
    seen: set[str] = set()
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".yaml"):
            continue
        where = str(entry)
        raw = yaml.load(entry.read_text(encoding="utf-8"), Loader=_LOADER)
        if not isinstance(raw, list):
            raise TableError(f"{where}: expected a list of rows, got {type(raw).__name__}")
        for index, item in enumerate(raw):
            row_id = str(item.get("id", f"#{index}")) if isinstance(item, dict) else f"#{index}"
            try:
                row = model.model_validate(item)
            except ValidationError as exc:
                raise _error(where, row_id, exc) from None
            if row.id in seen:
                raise TableError(f"{where}: row {row.id!r}: id: got {row.id!r}: an id may be used once")
            seen.add(row.id)
            rows.append(row)
    return tuple(rows)
