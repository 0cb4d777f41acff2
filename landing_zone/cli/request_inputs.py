"""The request ``simulate`` evaluates, checked before it is evaluated: a typo must not come back as a DENY.

* ``--action``: ``service:Action``, known to the IAM action database (the packaged snapshot of
  :mod:`landing_zone.actiondb`, as in the review's action check); a bare ``InvokeModel`` gets a did-you-mean;
* ``--resource``: ``*`` or an ARN that parses, whose partition is the catalog's, whose service is in the
  database and whose Region is in the catalog (or empty: IAM, S3, the global profile's foundation model);
* ``--region``: a Region of the catalog, or ``unspecified`` (the global profile's leg);
* ``--principal-arn``: an ARN that parses.

Problems are raised together as a :class:`~landing_zone.errors.ConfigError` (exit 2).  What is valid but may not
be what was meant (the ARN's Region is not ``--region``; the resource fits no resource type of the action) comes
back as warnings: the decision is still given, for the request exactly as written.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from landing_zone.actiondb.lookup import actions_of_service
from landing_zone.actiondb.source import database
from landing_zone.core.catalog import Catalog
from landing_zone.errors import ConfigError, Problem
from landing_zone.simulate import parse_arn

__all__ = ["GLOBAL_LEG_REGION", "CheckedRequest", "check_request"]

# aws:RequestedRegion of the global cross-Region profile's destination leg (docs/ROUTING.md).
GLOBAL_LEG_REGION = "unspecified"
# IAM API reference, EntityInfo.Arn: "Length Constraints: Minimum length of 20. Maximum length of 2048."
# (https://docs.aws.amazon.com/IAM/latest/APIReference/API_EntityInfo.html)
MAX_ARN_CHARACTERS = 2048
_SEPARATORS = ("*", "?")


@dataclass
class CheckedRequest:
    region: str | None  # --region, or the resource ARN's Region when --region was not given
    problems: list[Problem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # how a default was chosen (stderr)


def _database() -> Mapping[str, Mapping[str, object]]:
    """The IAM action database's snapshot (package data: every install has it)."""
    return database()


@lru_cache(maxsize=1)
def _arn_services() -> frozenset[str]:
    """Service namespaces that appear in ARNs: the action prefixes and the services of the resource formats."""
    db = _database() or {}
    found = set(db)
    for svc in db.values():
        resources = svc.get("resources")
        for res in (resources or {}).values() if isinstance(resources, dict) else ():
            parts = str(res.get("arn", "")).split(":")
            if len(parts) > 2 and parts[2] and "$" not in parts[2]:
                found.add(parts[2])
    return frozenset(found)


def _action_names(service: str) -> list[str]:
    return [a.name for a in actions_of_service(service)]


@lru_cache(maxsize=1)
def _longest_action() -> int:
    """The longest ``service:Action`` in the database (a longer --action cannot be one; 128 without it)."""
    db = _database()
    if not db:
        return 128
    return max(len(f"{svc}:{name}") for svc in db for name in dict(db[svc].get("privileges") or {}))  # type: ignore[call-overload]


def _check_action(action: str, out: CheckedRequest) -> None:
    from landing_zone.actiondb.lookup import UNKNOWN_ACTIONS_ALLOWED, expand

    problem = _action_shape_problem(action)
    if problem is None and not (expand(action) or any(action.lower() == a.lower() for a in UNKNOWN_ACTIONS_ALLOWED)):
        service, _, name = action.partition(":")
        problem = _unknown_action_problem(service, name)
    if problem is not None:
        out.problems.append(Problem("--action", action, problem))


def _action_shape_problem(action: str) -> str | None:
    """What is wrong with the action's form (length, wildcards, SERVICE:ACTION), if anything."""
    if len(action) > _longest_action():
        return f"at most {_longest_action()} characters (the longest action in the database)"
    service, sep, name = action.partition(":")
    if any(ch in action for ch in _SEPARATORS):
        return "one action, without wildcards (a request names one action)"
    if not sep:
        db = _database()
        owners = [f"{svc}:{n}" for svc in sorted(db or {}) for n in _action_names(svc) if n.lower() == action.lower()]
        hint = f"did you mean {' or '.join(repr(o) for o in owners[:3])}?" if owners else "e.g. 'bedrock:InvokeModel'"
        return f"must be SERVICE:ACTION; {hint}"
    if not service or not name:
        return "must be SERVICE:ACTION, e.g. 'bedrock:InvokeModel'"
    return None


def _unknown_action_problem(service: str, name: str) -> str:
    """An action the IAM action database does not hold, with the nearest service or action."""
    db = _database()
    if service.lower() not in db:
        close = difflib.get_close_matches(service.lower(), list(db), n=3)
        hint = f"did you mean {' or '.join(repr(c + ':' + name) for c in close)}?" if close else ""
        return f"{service!r} is not a service of the IAM action database{'; ' + hint if hint else ''}"
    names = _action_names(service.lower())
    by_lower = {n.lower(): n for n in names}
    close = difflib.get_close_matches(name.lower(), list(by_lower), n=3, cutoff=0.6)
    hint = (
        f"did you mean {' or '.join(repr(service.lower() + ':' + by_lower[c]) for c in close)}?"
        if close
        else (f"{service.lower()} has {len(names)} actions")
    )
    return f"not an action of the IAM action database; {hint}"


def _check_region(
    flag: str, region: str, catalog: Catalog, out: CheckedRequest, *, allow_global: bool, got: str | None = None
) -> bool:
    known = catalog.commercial_regions()
    if region in known or (allow_global and region == GLOBAL_LEG_REGION):
        return True
    close = difflib.get_close_matches(region, known, n=2)
    hint = f"did you mean {' or '.join(repr(c) for c in close)}?" if close else f"known: {', '.join(known)}"
    extra = f" or {GLOBAL_LEG_REGION!r} (the global profile's leg)" if allow_global else ""
    what = f"the Region {region!r} must be" if got else "must be"
    out.problems.append(Problem(flag, got or region, f"{what} a Region of core/catalog/regions.yaml{extra}; {hint}"))
    return False


def _check_resource(resource: str, catalog: Catalog, out: CheckedRequest) -> str | None:
    """The ARN's Region ('' when it has none); None when the resource is '*' or invalid."""
    if resource == "*":
        return None
    if len(resource) > MAX_ARN_CHARACTERS:
        out.problems.append(Problem("--resource", resource, f"an ARN of at most {MAX_ARN_CHARACTERS:,} characters"))
        return None
    if any(ch in resource for ch in _SEPARATORS):
        out.problems.append(
            Problem("--resource", resource, "one ARN without wildcards, or '*' alone (a request names one resource)")
        )
        return None
    arn, why = parse_arn(resource)
    if arn is None:
        out.problems.append(Problem("--resource", resource, f"{why}; or '*'"))
        return None
    partitions = sorted({r.partition for r in catalog.regions.values()})
    if arn.partition not in partitions:
        out.problems.append(
            Problem(
                "--resource",
                resource,
                f"partition {arn.partition!r} is not one of the catalog's: {', '.join(partitions)}",
            )
        )
        return None
    services = _arn_services()
    if services and arn.service not in services:
        close = difflib.get_close_matches(arn.service, sorted(services), n=2)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        out.problems.append(
            Problem("--resource", resource, f"service {arn.service!r} is not in the IAM action database{hint}")
        )
        return None
    if arn.region and not _check_region("--resource", arn.region, catalog, out, allow_global=False, got=resource):
        return None
    return arn.region


def _check_fit(action: str, resource: str, out: CheckedRequest) -> None:
    """A warning when the resource can be no resource type of the action (the request cannot exist)."""
    if ":" not in action:
        return
    from landing_zone.actiondb.lookup import expand, fits

    for found in expand(action):
        if resource == "*":
            continue
        try:
            fitting = any(fits(resource, rt) for rt in found.resource_types)
        except RecursionError:  # action_db's matcher recurses once per character: a long ARN is not checked
            out.notes.append(f"--resource is too long to check against the resource types of {found.full}")
            continue
        if found.resource_types and not fitting:
            names = [rt.name for rt in found.resource_types]
            types = ", ".join(names[:4]) + (f", … ({len(names)} in all)" if len(names) > 4 else "")
            out.warnings.append(f"--resource is none of the resource types of {found.full} ({types})")
        elif not found.resource_types:
            out.warnings.append(f"{found.full} takes no resource ARN (a real request carries '*')")


def check_request(
    *,
    action: str,
    resource: str,
    region: str | None,
    principal_arn: str | None,
    context: Mapping[str, str | list[str]],
    catalog: Catalog,
    unchecked: bool = False,
) -> CheckedRequest:
    """Check the request's flags; :class:`ConfigError` (exit 2) with every problem, else the Region to use.

    ``unchecked`` (``--unchecked``): the problems become warnings and the request is evaluated as written, for
    requests no client would send but a policy must still answer (``prove``'s counterexamples range over every
    string); only what the evaluator cannot take (an action without ``service:``, an empty resource) is refused."""
    out = CheckedRequest(region=region)
    _check_action(action, out)
    if region is not None:
        _check_region("--region", region, catalog, out, allow_global=True)
    _check_context(context, region, out)
    _check_principal(principal_arn, out)
    arn_region = _check_resource(resource, catalog, out)
    if out.problems and unchecked:
        fatal = [p for p in out.problems if (p.path == "--action" and ":" not in action) or not resource]
        out.warnings += [f"--unchecked: {p}" for p in out.problems if p not in fatal]
        out.problems = fatal
    if out.problems:
        raise ConfigError(out.problems, origin="simulate arguments")
    if any(w.startswith("--unchecked: ") for w in out.warnings):
        return out
    _check_fit(action, resource, out)
    _region_notes(resource, region, arn_region, out)
    return out


def _check_context(context: Mapping[str, str | list[str]], region: str | None, out: CheckedRequest) -> None:
    for key, value in context.items():  # ARN-valued keys (bedrock:InferenceProfileArn, aws:PrincipalArn, ...)
        for item in [value] if isinstance(value, str) else value:
            if key.lower().endswith("arn") and "*" not in item and parse_arn(item)[0] is None:
                out.problems.append(Problem("--context", f"{key}={item}", f"{key} takes an ARN: {parse_arn(item)[1]}"))
    if "aws:requestedregion" in {k.lower() for k in context} and region is not None:
        out.problems.append(
            Problem("--context", "aws:RequestedRegion=...", "give the Region once: --region or --context")
        )


def _check_principal(principal_arn: str | None, out: CheckedRequest) -> None:
    if principal_arn is None:
        return
    if len(principal_arn) > MAX_ARN_CHARACTERS:
        out.problems.append(Problem("--principal-arn", principal_arn, f"at most {MAX_ARN_CHARACTERS:,} characters"))
        return
    arn, why = parse_arn(principal_arn)
    if arn is None or arn.service not in ("iam", "sts"):
        out.problems.append(
            Problem("--principal-arn", principal_arn, why or "an IAM or STS ARN (arn:aws:iam::ACCOUNT:role/NAME)")
        )


def _region_notes(resource: str, region: str | None, arn_region: str | None, out: CheckedRequest) -> None:
    """The Region used when --region is not given, and a warning when --region and the ARN's Region disagree."""
    if arn_region and region is None:
        out.region = arn_region
        out.notes.append(f"--region not given: aws:RequestedRegion is the resource ARN's Region, {arn_region}")
    elif region is None and arn_region is not None:
        out.notes.append("--region not given and the ARN names no Region: the request carries no aws:RequestedRegion")
    elif arn_region == "" and region not in (None, GLOBAL_LEG_REGION) and "foundation-model/" in resource:
        out.warnings.append(
            f"a foundation-model ARN without a Region is the global profile's leg, evaluated with --region "
            f"{GLOBAL_LEG_REGION} (not {region})"
        )
    elif arn_region and region == GLOBAL_LEG_REGION:
        out.warnings.append(
            f"--region {GLOBAL_LEG_REGION} is the global profile's leg, whose foundation-model ARN has no Region "
            f"(this one names {arn_region})"
        )
    elif arn_region and region and arn_region != region:
        out.warnings.append(
            f"--region {region} differs from the resource's Region {arn_region}: a request to {region} names "
            f"{region} resources (a profile's destination leg: --region = the ARN's Region)"
        )
