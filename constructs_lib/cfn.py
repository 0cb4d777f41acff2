"""Typed access to the L1 resource behind an L2 construct (escape hatches), instead of ``# type: ignore``.

``construct.node.default_child`` is typed ``IConstruct | None``; the escape hatches here check at synth time that
it is the CloudFormation resource class they expect, so a CDK upgrade that changes it fails loudly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from aws_cdk import CfnElement, Stack
from constructs import IConstruct

from landing_zone.core import markers

__all__ = ["cfn_child", "logical_id", "render"]

T = TypeVar("T")


def cfn_child(construct: IConstruct, kind: type[T]) -> T:
    """The construct's default child, checked to be a ``kind`` (e.g. ``iam.CfnRole``)."""
    child = construct.node.default_child
    if not isinstance(child, kind):
        raise TypeError(f"{construct.node.path}: default child is {type(child).__name__}, expected {kind.__name__}")
    return child


def render(scope: IConstruct, document: Mapping[str, Any], values: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A plan document with its markers replaced: the stack's account, Region and partition, plus ``values``
    (marker -> CDK token of a resource's attribute).  A marker without a value raises (never a template string)."""
    stack = Stack.of(scope)
    env = {markers.ACCOUNT: stack.account, markers.REGION: stack.region, markers.PARTITION: stack.partition}
    resolved: dict[str, Any] = markers.resolve(document, {**env, **(values or {})})
    return resolved


def logical_id(construct: IConstruct) -> str:
    """The logical ID of a CloudFormation element (the construct itself or its default child)."""
    element = construct if isinstance(construct, CfnElement) else construct.node.default_child
    if not isinstance(element, CfnElement):
        raise TypeError(f"{construct.node.path}: not a CloudFormation element")
    return Stack.of(element).get_logical_id(element)
