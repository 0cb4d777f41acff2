"""The dependency tier a command needs beyond the runtime, checked before the command runs.

``make synth`` installs ``requirements.txt`` only, and runs this CLI (``validate``); ``make setup-cli`` adds
``requirements-cli.txt``.  Every command module therefore imports only the runtime at load time (``--help`` lists
every command on a runtime-only install) and loads its tier inside the function that runs it.  A command that needs
the tier says so once, where it registers: ``needs(parser, CLI)``; :func:`require` then refuses it, before it runs,
with one line naming what is missing and the ``make`` target that installs it (exit 2, no traceback).
``tests/cli/test_tiers.py`` runs every command with the modules outside the runtime blocked.
"""

from __future__ import annotations

import argparse
import importlib.util
from dataclasses import dataclass

from landing_zone.errors import LandingZoneError

__all__ = ["CLI", "Tier", "TierMissing", "missing", "needs", "require"]


@dataclass(frozen=True)
class Tier:
    """A requirements file above the runtime and the ``make`` target that installs it."""

    requirements: str
    make_target: str
    # Each distribution the file pins (the ``-r`` files below it apart) -> the module it is imported as.
    # tests/cli/test_tiers.py checks this against the file and the installed distributions' metadata.
    imports: tuple[tuple[str, str], ...]


CLI = Tier(
    requirements="requirements-cli.txt",
    make_target="setup-cli",
    imports=(("boto3", "boto3"), ("matplotlib", "matplotlib"), ("z3-solver", "z3"), ("policy_sentry", "policy_sentry")),
)


class TierMissing(LandingZoneError):
    """A command's tier is not installed (exit code 2)."""


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # a finder that refuses the name, or a broken parent package
        return False


def missing(tier: Tier) -> list[str]:
    """The distributions of ``tier`` whose module cannot be found (located, not imported: nothing is loaded)."""
    return [dist for dist, module in tier.imports if not _importable(module)]


def needs(parser: argparse.ArgumentParser, tier: Tier) -> None:
    """Declare that the command of ``parser`` runs with ``tier`` installed (checked by :func:`require`)."""
    parser.set_defaults(needs_tier=tier, needs_tier_command=parser.prog)


def require(args: argparse.Namespace) -> None:
    """Raise :class:`TierMissing` when the parsed command declared a tier that is not (wholly) installed."""
    tier: Tier | None = getattr(args, "needs_tier", None)
    if tier is None:
        return
    absent = missing(tier)
    if absent:
        raise TierMissing(
            f"`{args.needs_tier_command}` needs {tier.requirements}, not installed here (missing: {', '.join(absent)}): "
            f"run `make {tier.make_target}`"
        )
