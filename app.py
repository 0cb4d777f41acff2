#!/usr/bin/env python3
"""CDK entry point: read context -> validated plan -> stacks.  Invalid config: exit 2, no traceback."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import aws_cdk as cdk

from landing_zone.core.config import CONFIG_FILE_CONTEXT_KEY, CONTEXT_KEY, context_switches
from landing_zone.errors import LandingZoneError
from landing_zone.plan import load_plan
from landing_zone.plan.deployment import DETACH_CONTEXT
from landing_zone.plan.record import write_record
from landing_zone.plan.warnings import headline
from stacks import add_landing_zone

NAG_CONTEXT_KEY = "nag"  # cdk.json: true -> the AwsSolutions, NIST 800-53 r5 and HIPAA packs gate every synth


def main() -> int:
    app = cdk.App()
    try:
        # the switches first, before any work: a value other than true/false is refused, never read as false
        switches = context_switches({key: app.node.try_get_context(key) for key in (NAG_CONTEXT_KEY, DETACH_CONTEXT)})
        plan = load_plan(app.node.try_get_context(CONTEXT_KEY), app.node.try_get_context(CONFIG_FILE_CONTEXT_KEY))
        # one line each; `python -m landing_zone validate --verbose` and the review report give them in full
        for warning in (*plan.warnings, plan.placeholder_warning):
            if warning:
                print(f"warning: {headline(warning)}", file=sys.stderr)
        if switches[NAG_CONTEXT_KEY]:
            from constructs_lib.nag import add_nag_checks

            add_nag_checks(app)
        # `-c detach_organization_policies=true`: the first step of a removal (`deploy-plan --remove`); the same
        # entry point a user's own CDK app calls (docs/PACKAGE.md)
        add_landing_zone(app, plan, detach_organization_policies=switches[DETACH_CONTEXT])
    except LandingZoneError as exc:
        print(f"error: {exc}", file=sys.stderr)
        _remove_if_empty(app.outdir)
        return exc.exit_code
    assembly = app.synth()
    write_record(plan, assembly.directory)  # the assembly describes its configuration (landing-zone.json)
    return 0


def _remove_if_empty(outdir: str) -> None:
    """cdk.App() creates its output folder at once: a refused configuration leaves no empty assembly folder behind
    (a folder with anything in it is not the app's to remove; `make synth` removes its scratch folder itself)."""
    with contextlib.suppress(OSError):
        Path(outdir).rmdir()


if __name__ == "__main__":
    sys.exit(main())
