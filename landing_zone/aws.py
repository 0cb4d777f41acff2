"""The one seam through which the landing zone talks to AWS: ``client(service, region=..., profile=...)``.

Every AWS call of ``verify`` and ``discover`` goes through :func:`client`, so tests swap the factory
(:func:`use_client_factory`) for moto-backed clients or clients wrapped in a botocore ``Stubber``; nothing
else in the package creates boto3 sessions or clients.  Synth never calls AWS.

:func:`failure` classifies the exceptions that mean "could not ask" (no credentials, endpoint unreachable,
access denied) so callers report them as errors instead of mistaking them for an answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from landing_zone.errors import LandingZoneError

__all__ = [
    "ClientFactory",
    "ProfileError",
    "boto3_client",
    "client",
    "error_code",
    "failure",
    "profile_problem",
    "set_client_factory",
    "use_client_factory",
]

USER_AGENT_EXTRA = "kimi-bedrock-landing-zone"

# Error codes that mean the caller may not ask (or is not who it thinks it is): never an answer about state.
ACCESS_ERROR_CODES = frozenset(
    {
        "AccessDenied",
        "AccessDeniedException",
        "AuthFailure",
        "AuthorizationError",
        "ExpiredToken",
        "ExpiredTokenException",
        "InvalidClientTokenId",
        "MissingAuthenticationToken",
        "SignatureDoesNotMatch",
        "UnauthorizedOperation",
        "UnrecognizedClientException",
        "AWSOrganizationsNotInUseException",
        "OptInRequired",
        "SubscriptionRequiredException",
    }
)


class ClientFactory(Protocol):
    def __call__(self, service: str, *, region: str | None = None, profile: str | None = None) -> Any: ...


class ProfileError(LandingZoneError):
    """``--profile`` names a profile that is not configured (a usage error, exit code 2)."""


def boto3_client(service: str, *, region: str | None = None, profile: str | None = None) -> Any:
    """A real boto3 client: standard retry mode (3 attempts), short connect timeout, a user-agent suffix."""
    import boto3
    from botocore.config import Config
    from botocore.exceptions import ProfileNotFound

    try:
        session = boto3.session.Session(profile_name=profile) if profile else boto3.session.Session()
    except ProfileNotFound as exc:
        raise ProfileError(f"AWS profile {profile!r}: {exc}") from None
    config = Config(
        retries={"mode": "standard", "max_attempts": 3},
        connect_timeout=5,
        read_timeout=30,
        user_agent_extra=USER_AGENT_EXTRA,
    )
    return session.client(service, region_name=region, config=config)


_factory: ClientFactory = boto3_client


def client(service: str, *, region: str | None = None, profile: str | None = None) -> Any:
    """A client for ``service`` from the current factory (boto3 unless a test installed another)."""
    return _factory(service, region=region, profile=profile)


def profile_problem(profile: str | None) -> str | None:
    """Why ``profile`` cannot be used, decided locally before any AWS call (None when it can).  With the boto3
    factory: a profile of the shared config and credentials files (botocore's ``available_profiles``, no request);
    a test's factory decides for itself when it makes a client."""
    if profile is None or _factory is not boto3_client:
        return None
    import botocore.session

    known = sorted(botocore.session.Session().available_profiles)
    if profile in known:
        return None
    listed = (", ".join(known[:10]) + (", ..." if len(known) > 10 else "")) if known else "none is configured"
    return f"not a configured AWS profile (known: {listed}); leave the flag out to use the SDK's default chain"


def set_client_factory(factory: ClientFactory | None) -> ClientFactory:
    """Install ``factory`` (``None``: boto3 again); returns the previous one."""
    global _factory
    previous = _factory
    _factory = factory if factory is not None else boto3_client
    return previous


@contextmanager
def use_client_factory(factory: ClientFactory) -> Iterator[ClientFactory]:
    """``with use_client_factory(f): ...`` — every :func:`client` call inside gets its client from ``f``."""
    previous = set_client_factory(factory)
    try:
        yield factory
    finally:
        set_client_factory(previous)


def error_code(exc: BaseException) -> str | None:
    """The AWS error code of a ``ClientError`` (``None`` for anything else)."""
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        return (response.get("Error") or {}).get("Code")
    return None


def failure(exc: BaseException) -> str | None:
    """A one-line description if ``exc`` means the API could not be asked (unreachable, no credentials,
    unauthorised); ``None`` if it is an ordinary answer such as "not found" or an unrelated error."""
    from botocore import exceptions as bx

    if isinstance(exc, (bx.NoCredentialsError, bx.PartialCredentialsError, bx.CredentialRetrievalError)):
        return f"no usable credentials ({exc})"
    if isinstance(exc, (bx.TokenRetrievalError, bx.SSOTokenLoadError, bx.UnauthorizedSSOTokenError)):
        return f"credentials expired or not loadable ({exc})"
    if isinstance(
        exc, (bx.EndpointConnectionError, bx.ConnectTimeoutError, bx.ReadTimeoutError, bx.ConnectionClosedError)
    ):
        return f"unreachable ({exc})"
    if isinstance(exc, bx.ClientError):
        code = error_code(exc) or ""
        if code in ACCESS_ERROR_CODES:
            message = (exc.response.get("Error") or {}).get("Message") or ""
            return f"unauthorised: {code}{': ' + message if message else ''}"
    return None
