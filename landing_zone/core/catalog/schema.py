"""One way to validate every catalog file: a pydantic model of the file, read with the hostile-input-safe reader.

``load_catalog_file(Model, path, error=...)`` reads the YAML through :func:`landing_zone.core.datafile.load_data_file`
(bounded size and depth, no aliases, no duplicate keys, YAML 1.2 scalars) and validates it against ``Model``;
any problem is raised as ``error(field path, value got, what is allowed)`` — a
:class:`~landing_zone.errors.PricingError` for ``prices.yaml``, a ``CostAlarmError`` for ``metrics.yaml``.
``models.yaml``, ``regions.yaml``, ``limits.yaml`` and ``global_services.yaml`` use the same models base
(:mod:`landing_zone.core.catalog`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, TypeVar, cast

from pydantic import BaseModel, BeforeValidator, ConfigDict, StringConstraints, ValidationError

from landing_zone.core.datafile import load_data_file
from landing_zone.errors import ConfigError

__all__ = ["FileModel", "Text", "load_catalog_file"]

M = TypeVar("M", bound=BaseModel)


def _text_of(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date) else value


# Non-empty text; a date written without quotes (2026-11-08) is accepted as its text.
Text = Annotated[str, BeforeValidator(_text_of), StringConstraints(strip_whitespace=True, min_length=1)]


class FileModel(BaseModel):
    """Base of every catalog file model: frozen, unknown keys refused (a typo is an error, not a default)."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out or "(top level)"


def load_catalog_file(model: type[M], path: Path, *, error: Callable[..., Exception], what: str = "catalog file") -> M:
    """``path`` read safely and validated against ``model``; problems raise ``error(field, value, allowed)``.

    A file read before with the same content gives the model validated then: every plan reads the shipped catalogs,
    and the models are frozen.  A problem is raised every time."""
    if not path.is_file():
        raise error(f"{what} path", str(path), "a readable YAML file")
    # the cache key: the file and a digest of its bytes (a size and modification time can stay the same across an edit)
    file = (path.resolve(), hashlib.sha256(path.read_bytes()).hexdigest())
    return cast(M, _validated(model, path, file, error, what))


@lru_cache(maxsize=64)
def _validated(
    model: type[BaseModel], path: Path, file: tuple[Path, str], error: Callable[..., Exception], what: str
) -> BaseModel:
    try:
        raw = load_data_file(path, origin=f"{what} {path}", what=what)
    except ConfigError as exc:
        first = exc.problems[0]
        raise error(f"{what} {path}", first.got, f"valid YAML: {first.allowed}") from None
    if not isinstance(raw, dict):
        raise error(str(path), raw, "a mapping")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        message = err["msg"].removeprefix("Value error, ")
        got = err.get("input")
        if err["type"] == "missing":
            got = None
        raise error(_path(tuple(err["loc"])), got, message[0].lower() + message[1:] if message else message) from None
