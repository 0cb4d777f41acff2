"""Reading configuration: cdk.json defaults, an optional YAML/JSON file deep-merged over them.

Files are read under the rules of :mod:`landing_zone.core.datafile` (size, depth, no aliases, no duplicate keys,
YAML 1.2 scalars); every problem becomes a :class:`~landing_zone.errors.ConfigError` naming the file.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from landing_zone.core.catalog import OVERLAY_KEYS, Catalog, load_catalog
from landing_zone.core.config.schema import CONFIG_FILE_CONTEXT_KEY, CONTEXT_KEY, LandingZoneConfig, _kind_of
from landing_zone.core.datafile import load_data_file, structure_problems
from landing_zone.errors import CatalogError, ConfigError, Described, Problem

__all__ = [
    "catalog_for",
    "check_regular_file",
    "context_switches",
    "deep_merge",
    "overlay_problems",
    "packaged_defaults",
    "raw_config",
    "read_cdk_json_defaults",
    "read_config_file",
]


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Mappings merge recursively; anything else in ``override`` replaces the base value."""
    merged: dict[str, Any] = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


# What a path names when it is not a regular file, in plain words (os.stat's file types).
_FILE_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def check_regular_file(path: str | Path, *, key: str, origin: str) -> Path:
    """``path`` as a Path when it names an existing, readable regular file; otherwise a ConfigError naming ``key``,
    the path and what kind of thing it is.  Decided with ``os.stat`` and ``os.access`` only, so a named pipe, a
    device or a directory is refused without being opened (opening a FIFO blocks until a writer comes)."""
    text = str(path)
    if not text.strip():
        raise ConfigError(
            [
                Problem(
                    key,
                    text,
                    "an empty path: give the path of a YAML or JSON file, or leave the option out to use the "
                    "cdk.json defaults",
                )
            ],
            origin=origin,
        )
    p = Path(text)
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        hint = ""
        if text != text.strip() and Path(text.strip()).exists():
            hint = f": did you mean {text.strip()!r}? (paths are taken exactly as written, spaces included)"
        raise ConfigError([Problem(key, text, f"the file does not exist{hint}")], origin=origin) from None
    except OSError as exc:
        raise ConfigError([Problem(key, text, f"cannot be read ({exc.strerror or exc})")], origin=origin) from None
    for test, kind in _FILE_KINDS:
        if test(mode):
            raise ConfigError(
                [Problem(key, text, f"is {kind}, not a regular file: give the path of a YAML or JSON file")],
                origin=origin,
            )
    if not stat.S_ISREG(mode):
        raise ConfigError(
            [Problem(key, text, "is not a regular file: give the path of a YAML or JSON file")], origin=origin
        )
    if not os.access(p, os.R_OK):
        raise ConfigError(
            [Problem(key, text, "cannot be read (permission denied): make the file readable")], origin=origin
        )
    return p


def read_config_file(path: str | Path, *, key: str = CONFIG_FILE_CONTEXT_KEY) -> dict[str, Any]:
    """Read a YAML or JSON config file under the rules of :mod:`landing_zone.core.datafile` (size, depth, no
    aliases, no duplicate keys, YAML 1.2 scalars); every problem becomes a ConfigError naming the file.  The path
    must name a regular file (:func:`check_regular_file`): an empty path, a directory, a FIFO or a device is refused
    without being opened.  ``key``: what the user gave the path as, named by every problem of the file as a whole
    (``config`` for ``cdk synth -c config=PATH``, ``--config`` on the command line)."""
    origin = f"config file {path}"
    p = check_regular_file(path, key=key, origin=origin)
    data = load_data_file(p, origin=origin, what=key)
    if data is None:
        return {}  # an empty file overrides nothing
    if not isinstance(data, dict):
        raise ConfigError(
            [
                Problem(
                    key,
                    Described(f"a {_kind_of(data)}"),
                    "the file must hold a mapping of "
                    "config keys (`key: value` lines), optionally under `landing_zone:`",
                )
            ],
            origin=origin,
        )
    # A file may hold the keys directly or under `landing_zone:` (same shape as cdk.json context).
    if set(data) == {CONTEXT_KEY}:
        inner = data[CONTEXT_KEY]
        if not isinstance(inner, dict):
            raise ConfigError(
                [
                    Problem(
                        CONTEXT_KEY,
                        inner,
                        "must be a mapping of config keys: indent the keys under "
                        "`landing_zone:`, or write them at the top level",
                    )
                ],
                origin=origin,
            )
        return dict(inner)
    return data


def read_cdk_json_defaults(
    cdk_json: str | Path = "cdk.json", *, key: str = "cdk.json", required: bool = False
) -> dict[str, Any]:
    """The ``landing_zone`` defaults from cdk.json context (for the CLI; the CDK app gets them from context).  A
    missing file gives no defaults unless ``required`` (a path the user gave, as ``key``: ``--cdk-json``), which is
    refused instead of read as "no defaults"."""
    path = Path(cdk_json)
    if not required and not path.exists():
        return {}
    origin = f"cdk.json file {path}"
    check_regular_file(path, key=key, origin=origin)
    data = load_data_file(path, origin=origin, what=key)
    if not isinstance(data, dict):
        raise ConfigError(
            [Problem(key, Described(f"a {_kind_of(data)}"), "must hold a JSON object with a `context` key")],
            origin=origin,
        )
    context = data.get("context")
    defaults = context.get(CONTEXT_KEY) if isinstance(context, dict) else None
    if defaults is not None and not isinstance(defaults, dict):
        raise ConfigError(
            [Problem(f"context.{CONTEXT_KEY}", defaults, "must be a mapping of config keys")], origin=origin
        )
    return dict(defaults or {})


# The repository's cdk.json `landing_zone` context, shipped in the package: the defaults of a CLI run or of
# `stacks.add_landing_zone` with no cdk.json of its own (tests/unit/test_packaged_defaults.py keeps the two equal).
PACKAGED_DEFAULTS = "defaults.json"


def packaged_defaults() -> dict[str, Any]:
    """The landing zone's default configuration as the package ships it (the repository's cdk.json context)."""
    text = resources.files(__package__ or "landing_zone.core.config").joinpath(PACKAGED_DEFAULTS).read_text("utf-8")
    data = json.loads(text)
    if not isinstance(data, dict):  # the package's own file: a broken install, not a user's mistake
        raise CatalogError(f"{PACKAGED_DEFAULTS} of landing_zone.core.config must hold a JSON object")
    return data


def raw_config(
    defaults: Mapping[str, Any] | None, config_path: str | Path | None, *, key: str = CONFIG_FILE_CONTEXT_KEY
) -> tuple[dict[str, Any], str]:
    """Merge cdk.json defaults with an optional config file; returns the raw mapping and its description.  ``key``:
    what the user gave the path as (``config``, ``--config``), named by the problems of the file as a whole."""
    origin = "cdk.json context 'landing_zone'"
    if defaults is not None and not isinstance(defaults, Mapping):
        raise ConfigError(
            [Problem(f"context.{CONTEXT_KEY}", defaults, "must be a mapping of config keys")], origin=origin
        )
    shape = structure_problems(defaults or {})
    if shape:
        raise ConfigError(shape, origin=origin)
    raw = dict(defaults or {})
    if config_path is not None:  # an empty path is refused (read_config_file), never read as "no file"
        if not isinstance(config_path, (str, Path)):
            raise ConfigError(
                [Problem(key, config_path, "must be the path of a YAML or JSON file")], origin="context 'config'"
            )
        raw = deep_merge(raw, read_config_file(config_path, key=key))
        origin = f"configuration (cdk.json defaults + {config_path})"
    return raw, origin


def catalog_for(raw: Mapping[str, Any], origin: str, *, strict: bool = False) -> Catalog:
    """The catalog a raw configuration uses: the shipped one with its ``catalog_overlays`` laid over it.

    Overlay files are read under the same rules as a config file.  A ``catalog_overlays`` value of the wrong shape
    raises when ``strict``; otherwise the shipped catalog is returned and the schema reports the value together
    with every other problem of the configuration.
    """
    overlays = raw.get("catalog_overlays") or ()
    if not isinstance(overlays, (list, tuple)) or not all(isinstance(o, str) for o in overlays):
        if strict:
            raise ConfigError([Problem("catalog_overlays", overlays, "must be a list of file paths")], origin=origin)
        return load_catalog()
    missing = [o for o in overlays if not Path(o).is_file()]
    if missing:
        raise ConfigError(
            [Problem("catalog_overlays", missing, "each overlay must be an existing file")], origin=origin
        )
    problems = []
    for i, overlay in enumerate(overlays):  # the same size, depth, alias and duplicate-key rules as a config file
        data = load_data_file(overlay, origin=f"catalog overlay {overlay}", what=f"catalog_overlays[{i}]")
        problems += overlay_problems(i, overlays, data)
    if problems:
        raise ConfigError(problems, origin=origin)
    try:
        return load_catalog(tuple(Path(o) for o in overlays))
    except CatalogError as exc:
        raise ConfigError([Problem("catalog_overlays", list(overlays), str(exc))], origin=origin) from None


def overlay_problems(index: int, overlays: Sequence[str], data: Any) -> list[Problem]:
    """Why ``overlays[index]`` (read as ``data``) cannot be a catalog overlay: a file listed before under another
    spelling, or a file of another role (the configuration itself, cdk.json: anything but the keys of
    :data:`~landing_zone.core.catalog.OVERLAY_KEYS`, with ``models`` a mapping of model IDs).  A configuration that
    lists itself as its own overlay is refused here, before anything is read from it as catalog data."""
    key, path = f"catalog_overlays[{index}]", overlays[index]
    for j, earlier in enumerate(overlays[:index]):
        if earlier != path and os.path.samefile(earlier, path):
            return [Problem(key, path, f"the same file as catalog_overlays[{j}] ({earlier!r}): list each file once")]
    if not isinstance(data, Mapping):
        return [Problem(key, Described(f"a file holding a {_kind_of(data)}"), _OVERLAY_SHAPE)]
    config_keys = sorted(k for k in data if k in LandingZoneConfig.model_fields and k not in OVERLAY_KEYS)
    if config_keys or CONTEXT_KEY in data or "context" in data:
        return [
            Problem(
                key,
                path,
                f"holds configuration keys ({', '.join(config_keys or [CONTEXT_KEY])}): it is a configuration file "
                "(the configuration itself, or cdk.json), not a catalog overlay, and a file has one role; "
                f"{_OVERLAY_SHAPE}",
            )
        ]
    unknown = sorted(str(k) for k in data if k not in OVERLAY_KEYS)
    if unknown or not isinstance(data.get("models", {}), Mapping):
        got = Described(f"the keys {', '.join(unknown)}") if unknown else Described("models as a list")
        return [Problem(key, got, _OVERLAY_SHAPE)]
    return []


_OVERLAY_SHAPE = (
    f"a catalog overlay holds only {', '.join(OVERLAY_KEYS)} at the top level, models as a mapping of Bedrock model "
    "IDs to catalog entries (the file `python -m landing_zone discover --out` writes)"
)


def context_switches(values: Mapping[str, Any]) -> dict[str, bool]:
    """The CDK context switches (``-c nag=true``, ``-c detach_organization_policies=true``) as booleans.  The CDK
    CLI passes ``-c key=value`` as text, cdk.json as JSON: ``true``/``false`` either way, and an omitted key is
    false.  Anything else (``yes``, ``1``, ``True``, ``on``) is refused, every such key at once, rather than read
    as false in silence: ``-c nag=TRUE`` would otherwise turn the cdk-nag gate off, ``-c
    detach_organization_policies=yes`` keep the SCPs attached."""
    switches: dict[str, bool] = {}
    problems: list[Problem] = []
    for key, value in values.items():
        if value is None or isinstance(value, bool):
            switches[key] = bool(value)
        elif value in ("true", "false"):
            switches[key] = value == "true"
        else:
            problems.append(
                Problem(
                    f"-c {key}",
                    value,
                    "must be true or false (lowercase, as JSON writes them; yes/no/on/off/1/0 are not read as either), "
                    "or leave it out (false)",
                )
            )
    if problems:
        raise ConfigError(problems, origin="CDK context")
    return switches
