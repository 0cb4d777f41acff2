"""Typed access to the L1 resource behind an L2 construct (escape hatches), instead of ``# type: ignore``.

``construct.node.default_child`` is typed ``IConstruct | None``; the escape hatches here check at synth time that
it is the CloudFormation resource class they expect, so a CDK upgrade that changes it fails loudly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from aws_cdk import CfnElement, Fn, Stack
from constructs import IConstruct

from landing_zone.core import markers

__all__ = ["cfn_child", "logical_id", "render", "render_name", "stack_suffix"]

T = TypeVar("T")


def cfn_child(construct: IConstruct, kind: type[T]) -> T:
    """The construct's default child, checked to be a ``kind`` (e.g. ``iam.CfnRole``)."""
    child = construct.node.default_child
    if not isinstance(child, kind):
        raise TypeError(f"{construct.node.path}: default child is {type(child).__name__}, expected {kind.__name__}")
    return child


def stack_suffix(stack: Stack) -> str:
    """:data:`~landing_zone.core.markers.STACK_SUFFIX` as a CDK token: the first group of the UUID at the end of
    ``AWS::StackId`` (``arn:aws:cloudformation:<region>:<account>:stack/<name>/<uuid>``), 8 hexadecimal characters,
    new for every stack created and unchanged by its updates."""
    uuid = Fn.select(2, Fn.split("/", stack.stack_id))
    return Fn.select(0, Fn.split("-", uuid))


def _env(scope: IConstruct) -> dict[str, str]:
    stack = Stack.of(scope)
    return {
        markers.ACCOUNT: stack.account,
        markers.REGION: stack.region,
        markers.PARTITION: stack.partition,
        markers.STACK_SUFFIX: stack_suffix(stack),
    }


def render(scope: IConstruct, document: Mapping[str, Any], values: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A plan document with its markers replaced: the stack's account, Region, partition and suffix, plus ``values``
    (marker -> CDK token of a resource's attribute).  A marker without a value raises (never a template string)."""
    resolved: dict[str, Any] = markers.resolve(document, {**_env(scope), **(values or {})})
    return resolved


def render_name(scope: IConstruct, name: str) -> str:
    """A name from :mod:`landing_zone.core.naming` with the stack's markers replaced (the suffix of a retained
    resource's name, the account of a bucket's)."""
    resolved: str = markers.resolve(name, _env(scope))
    return resolved


def logical_id(construct: IConstruct) -> str:
    """The logical ID of a CloudFormation element (the construct itself or its default child)."""
    element = construct if isinstance(construct, CfnElement) else construct.node.default_child
    if not isinstance(element, CfnElement):
        raise TypeError(f"{construct.node.path}: not a CloudFormation element")
    return Stack.of(element).get_logical_id(element)
