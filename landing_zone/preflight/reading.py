"""How preflight asks AWS: one :class:`~landing_zone.verify.live.Live` per account (verify's client cache and
"could not ask" classification, through :func:`landing_zone.aws.client`), and :func:`ask`, which records what could
not be asked as an ``unchecked`` finding instead of mistaking it for an answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from landing_zone import aws
from landing_zone.plan import Plan
from landing_zone.preflight.model import Finding, Severity
from landing_zone.verify.live import ApiError, Live

__all__ = ["Context", "Unread", "ask", "unchecked"]


class Unread(Exception):
    """An API could not be asked (already recorded as an ``unchecked`` finding)."""


@dataclass
class Context:
    plan: Plan
    management: Live  # Organizations, and the management account's own bootstrap
    accounts: dict[str, Live | None]  # account ID -> the Live of its profile; None: its credentials are not its own
    findings: list[Finding] = field(default_factory=list)

    @property
    def home(self) -> str:
        return self.plan.config.home_region

    def add(self, finding: Finding) -> None:
        self.findings.append(finding)


def unchecked(check: str, where: str, what: str, why: str, resolve: str) -> Finding:
    return Finding(check, where, f"{what}: {why}", "unknown: not read", resolve, Severity.UNCHECKED)


def ask(
    ctx: Context,
    live: Live,
    service: str,
    operation: str,
    *,
    check: str,
    where: str,
    key: str | None = None,
    region: str | None = None,
    management: bool = False,
    absent: tuple[str, ...] = (),
    **params: Any,
) -> Any:
    """``operation`` (every page of ``key`` when given).  An error whose code is in ``absent`` (the thing asked about
    does not exist) returns None; an API that could not be asked, or any other error, is recorded as an
    ``unchecked`` finding and raises :class:`Unread`."""
    permission = f"{service}:{''.join(part.capitalize() for part in operation.split('_'))}"
    try:
        if key is not None:
            return live.paginate(service, operation, key, region=region, management=management, **params)
        return live.call(service, operation, region=region, management=management, **params)
    except ApiError as exc:
        why, resolve = exc.description, f"run preflight with credentials that may call {permission} (read-only)"
    except Exception as exc:  # botocore's ClientError and parser errors: an answer, but not one preflight can read
        code = aws.error_code(exc)
        if code is None:
            raise
        if code in absent:
            return None
        why, resolve = f"{code}: {exc}", f"check {permission} in {where} by hand"
    ctx.add(unchecked(check, where, f"{service} {operation}{' in ' + region if region else ''}", why, resolve))
    raise Unread
