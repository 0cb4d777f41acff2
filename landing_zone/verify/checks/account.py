"""The account check, run before every family: the credentials belong to the account the assembly deploys
to (STS GetCallerIdentity, through :meth:`~landing_zone.verify.live.Live.account`).  A wrong account stops the
run, since every other answer would be about someone else's resources.
"""

from __future__ import annotations

from landing_zone.verify.checks.common import DRIFT, PASS, Context, error_rows, make_row
from landing_zone.verify.live import ApiError
from landing_zone.verify.report import CheckResult


def check_account(ctx: Context) -> list[CheckResult]:
    expected = ctx.deployment_account
    try:
        actual = ctx.live.account()
    except ApiError as exc:
        return error_rows(["account"], "credentials", expected or "(any)", exc, None)
    if expected is None or actual == expected:
        return [make_row("account", "credentials", expected or "(any)", actual, PASS)]
    return [
        make_row(
            "account",
            "credentials",
            expected,
            actual,
            DRIFT,
            f"the credentials are for account {actual}, the assembly deploys to {expected}: use --profile for "
            f"{expected} (the remaining checks were not run against the wrong account)",
        )
    ]
