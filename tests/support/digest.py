"""Digests of the files a cached result depends on: the synthesis cache (tests/conftest.py) and the stamped layers
(tests/support/layers.py) key their entries by them, so that a change to any input is a new key."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SYNTH_CACHE = ROOT / ".synth-cache"
STAMP_DIR = SYNTH_CACHE / "layers"
# Everything that decides a synthesized assembly besides its configuration file.
SYNTH_INPUTS = ("app.py", "cdk.json", "constraints.txt", "package-lock.json")
SYNTH_SOURCE_DIRS = ("stacks", "constructs_lib", "landing_zone", "handlers")


def _files(entries: Iterable[str]) -> list[Path]:
    files: list[Path] = []
    for entry in entries:
        path = ROOT / entry
        if path.is_dir():
            files += sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        elif path.is_file():
            files.append(path)
    return files


def files_digest(entries: Iterable[str], extra: Iterable[Path] = ()) -> str:
    """SHA-256 over the names (relative to the repository root) and bytes of the files and folders named."""
    digest = hashlib.sha256()
    for path in [*_files(entries), *sorted(extra)]:
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """The app's inputs: app.py, cdk.json, the locks and the source folders."""
    return files_digest((*SYNTH_INPUTS, *SYNTH_SOURCE_DIRS))


def config_digest(config_path: str | Path | None) -> str:
    """The configuration's name relative to the repository (a checkout elsewhere has the same keys) and its bytes."""
    if config_path is None:
        return hashlib.sha256(b"None").hexdigest()
    path = Path(config_path).resolve()
    name = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    return hashlib.sha256(name.encode() + b"\0" + path.read_bytes()).hexdigest()
