"""What the plan provisions for a path, the invoker is granted: a resource created for a path the invoker policy does
not allow is refused (exit 2, at the key that asked for it), never deployed as a project nobody can use.

One rule, derived from the invoker policies the plan built (:func:`landing_zone.plan.policies.build_policies`), not
from the options that shape them: for each application, every path the plan provisions something for (the table
:data:`PATH_GRANTS`) must have an ``Allow`` of each of the path's actions in the application's invoker policy.  So
whatever drops a grant (per-request guardrail enforcement, a missing VPC endpoint, a future option) is caught here,
and the earlier, more specific checks (:mod:`landing_zone.plan.requirements`, ``per_request_guardrail_problems``)
only say it sooner and in more words.

What it covers: whether *some* ``Allow`` statement names the action (exactly or by wildcard), not whether every
request on the path is allowed; the proofs (``prove``) and the red-team table decide requests.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from landing_zone.core.applications import ApplicationPlan, has_mantle_project
from landing_zone.core.config import LandingZoneConfig
from landing_zone.errors import Problem
from landing_zone.policies.invoke import BATCH_ACTIONS, MANTLE_INVOKE_ACTIONS, RUNTIME_INVOKE_ACTIONS

__all__ = ["PATH_GRANTS", "PathGrant", "granted_actions", "provisioned_paths", "ungranted_path_problems"]


@dataclass(frozen=True)
class PathGrant:
    """A path the plan provisions for an application: ``what`` it creates or was asked for, the actions the invoker
    needs to use it."""

    path: str
    what: str
    actions: tuple[str, ...]


PATH_GRANTS = {
    "runtime": PathGrant("runtime", "creates its application inference profile", RUNTIME_INVOKE_ACTIONS[:1]),
    "mantle-project": PathGrant(
        "Mantle", "creates its Mantle Project and the project's spend alarm", MANTLE_INVOKE_ACTIONS
    ),
    "mantle-only": PathGrant("Mantle", "gives it Mantle as its only path to the model", MANTLE_INVOKE_ACTIONS),
    "batch": PathGrant(
        "batch", "lets it pass its batch_role_arns to batch inference jobs", (*BATCH_ACTIONS, "iam:PassRole")
    ),
}

# Why a grant is left out, where the plan knows a reason (the invoker policy's docstring, policies/access.py).
_PER_REQUEST = (
    "content_guardrail.enforcement is per-request, which grants only calls that can carry "
    "bedrock:GuardrailIdentifier, and Mantle requests and batch jobs cannot (Service Authorization Reference: "
    "bedrock-mantle:CreateInference and bedrock:CreateModelInvocationJob list no such key)"
)


def provisioned_paths(app: ApplicationPlan, config: LandingZoneConfig) -> list[str]:
    """The keys of :data:`PATH_GRANTS` the plan provisions for ``app``."""
    paths = ["runtime"] if app.route is not None else ["mantle-only"] if app.mantle_route is not None else []
    if has_mantle_project(app, config):
        paths.append("mantle-project")
    if app.route is not None and app.app.batch_role_arns:
        paths.append("batch")
    return paths


def _actions(statement: Mapping[str, Any]) -> list[str]:
    actions = statement.get("Action", [])
    return [actions] if isinstance(actions, str) else list(actions)


def granted_actions(document: Mapping[str, Any]) -> list[str]:
    """The action patterns of every ``Allow`` statement of ``document``."""
    statements = document.get("Statement", [])
    if isinstance(statements, Mapping):
        statements = [statements]
    return [a for s in statements if s.get("Effect") == "Allow" for a in _actions(s)]


def _allows(patterns: Sequence[str], action: str) -> bool:
    """IAM matches action names without regard to case, ``*`` and ``?`` as wildcards (IAM JSON policy reference,
    Action)."""
    return any(fnmatch.fnmatchcase(action.lower(), p.lower()) for p in patterns)


def _blame(app: ApplicationPlan, config: LandingZoneConfig, key: str) -> tuple[str, Any]:
    """(config key, value) the user wrote that asked for the path."""
    if key == "mantle-project":
        return "access.mantle_projects", True
    index = next((i for i, a in enumerate(config.applications) if a.name == app.app.name), None)
    where = f"applications[{index}]" if index is not None else f"the application {app.app.name}"
    if key == "batch":
        return f"{where}.batch_role_arns", list(app.app.batch_role_arns)
    written = index is not None and config.applications[index].model is not None
    return (f"{where}.model" if written else "models"), app.model.id


def _reason(config: LandingZoneConfig, key: str) -> tuple[str, str]:
    """(why the grant is left out, what would make the path usable)."""
    guardrail = config.content_guardrail
    if key != "runtime" and guardrail.enabled and guardrail.enforcement == "per-request":
        return _PER_REQUEST, "content_guardrail.enforcement: account, or leave the path out"
    return "the invoker policy the plan builds has no Allow of it", "leave the path out"


def ungranted_path_problems(
    config: LandingZoneConfig, applications: Sequence[ApplicationPlan], invokers: Mapping[str, Any]
) -> list[Problem]:
    """Every path provisioned for an application whose invoker policy (``invokers[name].permissions``) allows none of
    the path's actions (see the module docstring)."""
    return list(_ungranted(config, applications, invokers))


def _ungranted(
    config: LandingZoneConfig, applications: Sequence[ApplicationPlan], invokers: Mapping[str, Any]
) -> Iterator[Problem]:
    for app in applications:
        patterns = granted_actions(invokers[app.app.name].permissions)
        for key in provisioned_paths(app, config):
            grant = PATH_GRANTS[key]
            missing = [a for a in grant.actions if not _allows(patterns, a)]
            if not missing:
                continue
            path, got = _blame(app, config, key)
            why, fix = _reason(config, key)
            yield Problem(
                path,
                got,
                f"for application {app.app.name} the plan {grant.what}, but its invoker role would not be "
                f"allowed {', '.join(missing)}: {why}; nobody could use the {grant.path} path it is created for. "
                f"Allowed: {fix}",
            )
