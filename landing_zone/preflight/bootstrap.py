"""The CDK bootstrap stacks of each account ``deploy-plan`` bootstraps: the default ``CDKToolkit`` and the toolkit stack
the landing zone bootstraps into, read with CloudFormation ``DescribeStacks`` in ``home_region``.

``cdk bootstrap --qualifier Q`` deploys its toolkit stack (``--toolkit-stack-name``, default ``CDKToolkit``) with
roles and a bucket named after ``Q`` (AWS CDK developer guide, "Customize CDK bootstrapping",
https://docs.aws.amazon.com/cdk/v2/guide/bootstrapping-customizing.html).  So a bootstrap into a stack that holds
another qualifier re-parameterises it (the other team's deploys lose their roles), and a second toolkit stack with the
same qualifier fails on the names the first one holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from landing_zone.core.config.schema import DEFAULT_CDK_QUALIFIER
from landing_zone.preflight import intent
from landing_zone.preflight.model import Finding, Severity
from landing_zone.preflight.reading import Context, Unread, ask
from landing_zone.verify.live import Live

__all__ = ["check_bootstrap"]

# DescribeStacks of a stack that does not exist: "ValidationError: Stack with id X does not exist"
ABSENT = ("ValidationError",)


def check_bootstrap(ctx: Context, boot: intent.Bootstrap, live: Live) -> None:
    where = f"account {boot.account} {boot.region}"
    names = dict.fromkeys((intent.DEFAULT_TOOLKIT_STACK, boot.toolkit_stack))
    found: dict[str, str | None] = {}
    try:
        for name in names:
            found[name] = _qualifier(ctx, live, where, boot.region, name)
    except Unread:
        return
    own = found[boot.toolkit_stack]
    command = f"cdk bootstrap --qualifier {boot.qualifier} --toolkit-stack-name {boot.toolkit_stack}"
    if boot.toolkit_stack == intent.DEFAULT_TOOLKIT_STACK:
        _shared_default(ctx, where, boot, own)
        return
    default = found[intent.DEFAULT_TOOLKIT_STACK]
    if default is not None and default != boot.qualifier:
        ctx.add(_note(where, f"{intent.DEFAULT_TOOLKIT_STACK} (qualifier {default})", "left alone"))
    if default == boot.qualifier:
        ctx.add(
            Finding(
                "cdk-bootstrap", where, f"{intent.DEFAULT_TOOLKIT_STACK} holds the landing zone's qualifier {boot.qualifier}",
                f"`{command}` fails: the roles and bucket named after {boot.qualifier} already belong to "
                f"{intent.DEFAULT_TOOLKIT_STACK}",
                f"choose another policy_guardrails.cdk_bootstrap_qualifier, or move the bootstrap: delete the "
                f"{intent.DEFAULT_TOOLKIT_STACK} stack if only the landing zone uses it, then bootstrap again",
                Severity.CONFLICT,
            )
        )  # fmt: skip
    elif own is None:
        ctx.add(_note(where, f"no {boot.toolkit_stack} stack", f"`{command}` creates it"))
    elif own == boot.qualifier:
        ctx.add(_note(where, f"{boot.toolkit_stack} (qualifier {own})", "the landing zone's own: bootstrap updates it"))
    else:
        ctx.add(_clash(where, boot, own, command))


def _shared_default(ctx: Context, where: str, boot: intent.Bootstrap, current: str | None) -> None:
    """The landing zone bootstraps into CDKToolkit itself."""
    # TODO(bootkill): once the landing zone bootstraps into a toolkit stack of its own name, this case only remains
    # for a configuration that names CDKToolkit on purpose.
    command = f"cdk bootstrap --qualifier {boot.qualifier}"
    if current is None:
        ctx.add(_note(where, f"no {intent.DEFAULT_TOOLKIT_STACK} stack", f"`{command}` creates it"))
    elif current == boot.qualifier:
        ctx.add(
            _note(where, f"{intent.DEFAULT_TOOLKIT_STACK} (qualifier {current})", "the landing zone's own: updated")
        )
    else:
        ctx.add(_clash(where, boot, current, command))


def _clash(where: str, boot: intent.Bootstrap, current: str, command: str) -> Finding:
    return Finding(
        "cdk-bootstrap", where, f"{boot.toolkit_stack} of another bootstrap (qualifier {current})",
        f"`{command}` re-parameterises it to qualifier {boot.qualifier}: the deploys that use {current} lose their "
        "roles and bucket, and the guardrails then protect the stack",
        "bootstrap the landing zone into a toolkit stack of its own (policy_guardrails.cdk_toolkit_stack_name): "
        f"`cdk bootstrap --qualifier {boot.qualifier} --toolkit-stack-name cdk-{boot.qualifier}-toolkit "
        f"aws://{boot.account}/{boot.region}`",
        Severity.CONFLICT,
    )  # fmt: skip


def _qualifier(ctx: Context, live: Live, where: str, region: str, name: str) -> str | None:
    """The qualifier of toolkit stack ``name`` (its ``Qualifier`` parameter; CDK's default when it has none), or
    None when there is no such stack."""
    answer: Mapping[str, Any] | None = ask(
        ctx, live, "cloudformation", "describe_stacks", check="cdk-bootstrap", where=where, region=region,
        absent=ABSENT, StackName=name,
    )  # fmt: skip
    stacks = (answer or {}).get("Stacks") or []
    if not stacks or stacks[0].get("StackStatus") == "DELETE_COMPLETE":
        return None
    parameters = {p.get("ParameterKey"): p.get("ParameterValue") for p in stacks[0].get("Parameters") or []}
    return str(parameters.get("Qualifier") or DEFAULT_CDK_QUALIFIER)


def _note(where: str, found: str, deploy: str) -> Finding:
    return Finding("cdk-bootstrap", where, found, deploy, "", Severity.NOTE)
