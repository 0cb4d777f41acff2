"""Checks of the command-line flags, made before a command does any work: each refusal names the flag the user typed,
the value and what is allowed (exit 2), and comes before any AWS call, any synth-sized reading and anything written.

A command checks every flag first (:func:`check_all`), then works: ``discover --out /readonly/x`` is refused before
ListFoundationModels is called, ``review --out`` before the proofs run, ``review --baseline`` as ``--baseline``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from landing_zone.errors import ConfigError, Problem

__all__ = [
    "FlagCheck",
    "assembly_problem",
    "bucket_problem",
    "check_all",
    "out_dir_problem",
    "out_file_problem",
    "profile_problem",
    "region_problem",
]

ORIGIN = "command-line arguments"
# (flag, value, the check): a check returns what is allowed when the value is refused, else None.
FlagCheck = tuple[str, object, Callable[[], str | None]]


def check_all(checks: Iterable[FlagCheck]) -> None:
    """Every flag's check, all problems raised together (exit 2) before the command does anything."""
    problems = [Problem(flag, value, allowed) for flag, value, check in checks if (allowed := check()) is not None]
    if problems:
        raise ConfigError(problems, origin=ORIGIN)


def _nearest_existing(path: Path) -> Path:
    current = path.absolute()
    while not current.exists() and current != current.parent:
        current = current.parent
    return current


def _creatable(directory: Path) -> str | None:
    """Why ``directory`` could not be created (or written into), or None."""
    existing = _nearest_existing(directory)
    if not existing.is_dir():
        return f"{existing} is not a directory, so nothing can be created under it"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"{existing} is not writable (permission denied)"
    return None


def out_dir_problem(path: Path | str) -> str | None:
    """A directory to write into: an existing directory, or one that can be created."""
    p = Path(path)
    if not str(path).strip():
        return "an empty path: give the directory to write into"
    if p.exists() and not p.is_dir():
        return "exists and is not a directory: give a directory to write into"
    why = _creatable(p)
    return f"cannot be created or written: {why}" if why else None


def out_file_problem(path: Path | str) -> str | None:
    """A file to write: not a directory, in a directory that exists or can be created."""
    p = Path(path)
    if not str(path).strip():
        return "an empty path: give the file to write"
    if p.is_dir():
        return "is a directory: give the path of the file to write"
    why = _creatable(p.parent)
    return f"cannot be written: {why}" if why else None


def assembly_problem(path: Path | str) -> str | None:
    """A cloud assembly: a directory holding manifest.json (the rest is read, and checked, by load_assembly)."""
    p = Path(path)
    if not p.is_dir():
        return "not a directory: give the cdk.out directory of a synth (`make synth`)"
    if not (p / "manifest.json").is_file():
        return "no manifest.json there: give the cdk.out directory of a synth (`make synth`)"
    return None


def profile_problem(name: str | None) -> str | None:
    """An AWS profile the client seam can use (read locally; no AWS call: :func:`landing_zone.aws.profile_problem`)."""
    from landing_zone import aws

    return aws.profile_problem(name)


def region_problem(region: str | None) -> str | None:
    """A commercial Region of the catalog (core/catalog/regions.yaml)."""
    if region is None:
        return None
    from landing_zone.core.catalog import load_catalog

    regions = load_catalog().commercial_regions()
    if region in regions:
        return None
    close = [r for r in regions if r == region.strip().lower()]
    hint = f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(regions)})"
    return f"not a commercial Region of core/catalog/regions.yaml{hint}"


# Amazon S3 general purpose bucket naming rules (https://docs.aws.amazon.com/AmazonS3/latest/userguide/
# bucketnamingrules.html): 3-63 characters, lowercase letters, digits, '.' and '-', beginning and ending with a letter
# or digit, no two adjacent periods, not formatted as an IP address.
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")


def bucket_problem(name: str | None) -> str | None:
    """An S3 general purpose bucket name."""
    if name is None:
        return None
    if _BUCKET.match(name) and ".." not in name and not re.match(r"^\d+\.\d+\.\d+\.\d+$", name):
        return None
    return (
        "not an S3 bucket name: 3-63 lowercase letters, digits, '.' and '-', beginning and ending with a letter or "
        "digit (Amazon S3 bucket naming rules)"
    )
