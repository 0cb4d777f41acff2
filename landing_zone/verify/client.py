"""How verify asks AWS: :class:`Live` memoizes clients per (service, Region, profile) through
:mod:`landing_zone.aws`, turns "could not ask" exceptions into :class:`ApiError`, and stops calling a service that
was unreachable or had no credentials (each later call fails at once with the first reason, so an offline run ends
quickly and lists every unchecked item).  :mod:`landing_zone.verify.live` re-exports these names."""

from __future__ import annotations

from typing import Any

from landing_zone import aws


class ApiError(Exception):
    """An API could not be asked (unreachable, no credentials, unauthorised)."""

    def __init__(self, service: str, operation: str, description: str) -> None:
        self.service = service
        self.operation = operation
        self.description = description
        super().__init__(f"{service}:{operation}: {description}")


# Services whose failure with these descriptions means every later call fails the same way.
CREDENTIAL_FAILURES = ("no usable credentials", "credentials expired")
STICKY_FAILURES = (*CREDENTIAL_FAILURES, "unreachable")

# Error codes that are no answer about the resource: the service failed, or (an emulator) does not implement the
# operation.  Reported as "could not ask" (ERROR for the item), never as an absent or differing resource.
UNANSWERED_CODES = frozenset(
    {
        "InternalFailure",
        "InternalError",
        "InternalServerError",
        "InternalServerException",
        "NotImplemented",
        "NotImplementedException",
        "ServiceUnavailable",
        "ServiceUnavailableException",
    }
)


def could_not_ask(exc: BaseException) -> str | None:
    """:func:`landing_zone.aws.failure` (unreachable, no credentials, unauthorised), plus a service that gave no
    answer: an internal failure or an operation it does not implement (``InternalFailure``, ``NotImplemented``,
    5xx), or a response botocore could not read."""
    from botocore import exceptions as bx
    from botocore.parsers import ResponseParserError

    description = aws.failure(exc)
    if description is not None:
        return description
    if isinstance(exc, bx.ClientError):
        code = aws.error_code(exc) or ""
        status = (exc.response.get("ResponseMetadata") or {}).get("HTTPStatusCode")
        if code in UNANSWERED_CODES or (isinstance(status, int) and status >= 500):
            message = (exc.response.get("Error") or {}).get("Message") or ""
            return f"no answer: {code or status}{': ' + message if message else ''}"
    if isinstance(exc, ResponseParserError):
        return f"no answer: unreadable response ({exc})"
    return None


class Live:
    def __init__(self, *, profile: str | None, management_profile: str | None, region: str) -> None:
        self.profile = profile
        self.management_profile = management_profile or profile
        self.region = region
        self._clients: dict[tuple[str, str, str | None], Any] = {}
        self._dead: dict[tuple[str, str, str | None], str] = {}
        self._accounts: dict[str | None, str] = {}

    def client(self, service: str, region: str | None = None, *, management: bool = False) -> Any:
        profile = self.management_profile if management else self.profile
        key = (service, region or self.region, profile)
        if key not in self._clients:
            self._clients[key] = aws.client(service, region=key[1], profile=profile)
        return self._clients[key]

    def call(
        self, service: str, operation: str, *, region: str | None = None, management: bool = False, **params: Any
    ) -> Any:
        """``client.operation(**params)``; raises :class:`ApiError` if the API could not be asked (see
        :func:`could_not_ask`) and lets other ``ClientError`` s (not found, validation) through for the caller to
        interpret."""
        profile = self.management_profile if management else self.profile
        key = (service, region or self.region, profile)
        if key in self._dead:
            raise ApiError(service, operation, f"not attempted: {self._dead[key]}")
        try:
            return getattr(self.client(service, region, management=management), operation)(**params)
        except Exception as exc:  # botocore raises many unrelated classes; classify, re-raise the rest
            description = could_not_ask(exc)
            if description is None:
                raise
            if description.startswith(STICKY_FAILURES):
                self._dead[key] = description
            raise ApiError(service, operation, description) from exc

    def paginate(
        self,
        service: str,
        operation: str,
        result_key: str,
        *,
        region: str | None = None,
        management: bool = False,
        **params: Any,
    ) -> list[Any]:
        profile = self.management_profile if management else self.profile
        key = (service, region or self.region, profile)
        if key in self._dead:
            raise ApiError(service, operation, f"not attempted: {self._dead[key]}")
        client = self.client(service, region, management=management)
        try:
            items: list[Any] = []
            for page in client.get_paginator(operation).paginate(**params):
                items.extend(page.get(result_key) or [])
            return items
        except Exception as exc:
            description = could_not_ask(exc)
            if description is None:
                raise
            if description.startswith(STICKY_FAILURES):
                self._dead[key] = description
            raise ApiError(service, operation, description) from exc

    def account(self, *, management: bool = False) -> str:
        profile = self.management_profile if management else self.profile
        if profile not in self._accounts:
            self._accounts[profile] = self.call("sts", "get_caller_identity", management=management)["Account"]
        return self._accounts[profile]


def partition_of(region: str) -> str:
    if region.startswith("cn-"):
        return "aws-cn"
    if region.startswith("us-gov-"):
        return "aws-us-gov"
    return "aws"
