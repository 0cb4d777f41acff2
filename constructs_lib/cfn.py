"""Typed access to the L1 resource behind an L2 construct (escape hatches), instead of ``# type: ignore``.

``construct.node.default_child`` is typed ``IConstruct | None``; the escape hatches here check at synth time that
it is the CloudFormation resource class they expect, so a CDK upgrade that changes it fails loudly.
"""

from __future__ import annotations

from typing import TypeVar

from aws_cdk import CfnElement, Stack
from constructs import IConstruct

__all__ = ["cfn_child", "logical_id"]

T = TypeVar("T")


def cfn_child(construct: IConstruct, kind: type[T]) -> T:
    """The construct's default child, checked to be a ``kind`` (e.g. ``iam.CfnRole``)."""
    child = construct.node.default_child
    if not isinstance(child, kind):
        raise TypeError(f"{construct.node.path}: default child is {type(child).__name__}, expected {kind.__name__}")
    return child


def logical_id(construct: IConstruct) -> str:
    """The logical ID of a CloudFormation element (the construct itself or its default child)."""
    element = construct if isinstance(construct, CfnElement) else construct.node.default_child
    if not isinstance(element, CfnElement):
        raise TypeError(f"{construct.node.path}: not a CloudFormation element")
    return Stack.of(element).get_logical_id(element)
