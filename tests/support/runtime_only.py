"""A subprocess that sees the runtime tier alone (requirements.txt), as `make synth` leaves a fresh virtualenv.

The test virtualenv holds every tier.  What a runtime-only install would lack is derived, not listed: the runtime is
the closure of requirements.txt over the installed distributions' own requirements (``importlib.metadata.requires``,
environment markers evaluated); every other installed distribution's top-level modules
(``importlib.metadata.packages_distributions``) are blocked in the subprocess by a meta-path finder that a
``sitecustomize`` module installs before anything else runs (so the CDK app the CDK CLI starts is covered too).
"""

from __future__ import annotations

import importlib.metadata as md
import os
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import ROOT

__all__ = ["blocked_modules", "pinned", "runtime_closure", "runtime_only_env", "top_level_modules"]


def pinned(requirements: Path, *, follow: bool = True) -> list[Requirement]:
    """The requirements of a pip requirements file; ``-r FILE`` lines are followed (``follow``) or skipped."""
    out: list[Requirement] = []
    for raw in requirements.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith(("-r ", "--requirement ")):
            if follow:
                out += pinned(requirements.parent / line.split(None, 1)[1])
            continue
        assert not line.startswith("-"), f"{requirements.name}: an option this reader does not know: {line}"
        out.append(Requirement(line))
    return out


def runtime_closure(requirements: Path = ROOT / "requirements.txt") -> set[str]:
    """Canonical names of the distributions pip installs for ``requirements``: the pins and, recursively, what
    their installed metadata requires (markers evaluated for this interpreter and the extras asked for)."""
    seen: dict[str, set[str]] = {}
    todo = pinned(requirements)
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        extras = set(req.extras)
        if name in seen and extras <= seen[name]:
            continue
        seen.setdefault(name, set()).update(extras)
        for text in md.distribution(req.name).requires or []:  # PackageNotFoundError: the venv lacks a runtime pin
            sub = Requirement(text)
            if sub.marker is None or any(sub.marker.evaluate({"extra": e}) for e in extras or {""}):
                todo.append(sub)
    return set(seen)


def top_level_modules() -> dict[str, set[str]]:
    """Canonical distribution name -> the top-level modules it installs."""
    out: dict[str, set[str]] = {}
    for module, dists in md.packages_distributions().items():
        for dist in dists:
            out.setdefault(canonicalize_name(dist), set()).add(module)
    return out


def blocked_modules(runtime: set[str] | None = None) -> set[str]:
    """The top-level modules of every installed distribution outside ``runtime`` (a module that a runtime
    distribution also provides, as a shared namespace package may be, stays importable)."""
    keep = runtime_closure() if runtime is None else runtime
    by_dist = top_level_modules()
    kept = {m for d in keep for m in by_dist.get(d, ())}
    return {m for d, modules in by_dist.items() if d not in keep for m in modules} - kept


_SITECUSTOMIZE = '''\
"""Written by tests/support/runtime_only.py: the modules outside the runtime tier are not found."""
import sys

_BLOCKED = frozenset({blocked!r})


class RuntimeOnly:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in _BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, RuntimeOnly())
'''


def runtime_only_env(folder: Path, blocked: set[str] | None = None) -> dict[str, str]:
    """The environment of a subprocess that can import the runtime tier only (``sitecustomize`` in ``folder``)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(
        _SITECUSTOMIZE.format(blocked=sorted(blocked_modules() if blocked is None else blocked))
    )
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), *filter(None, [os.environ.get("PYTHONPATH")])])}
