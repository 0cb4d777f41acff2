"""Deny statements of other teams, added to the landing zone's SCPs to measure how ``prove`` scales as the policies
grow (issue 35: with 40 extra statements prove gave up on 6 obligations).  They are shaped like the SCPs an
organization already has: data perimeters on named buckets and roles, tag guards, Region denies of other services,
and denies on Bedrock resources the landing zone does not own (knowledge bases, agents, guardrails).  None of them
touches what P1-P6 state, so every property must still hold, and as fast."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from landing_zone.prove.prover import Guard


def _bucket(i: int, regions: Sequence[str]) -> dict[str, Any]:
    return {
        "Effect": "Deny",
        "Action": ["s3:*"],
        "Resource": [f"arn:aws:s3:::team{i}-*", f"arn:aws:s3:::team{i}-*/*"],
        "Condition": {"ArnNotLike": {"aws:PrincipalARN": [f"arn:aws:iam::*:role/team{i}-*"]}},
    }


def _role(i: int, regions: Sequence[str]) -> dict[str, Any]:
    return {
        "Effect": "Deny",
        "Action": ["iam:*"],
        "Resource": [f"arn:aws:iam::*:role/platform-{i}-*"],
        "Condition": {"ArnNotLike": {"aws:PrincipalARN": ["arn:aws:iam::*:role/platform-admin"]}},
    }


def _knowledge_base(i: int, regions: Sequence[str]) -> dict[str, Any]:
    return {
        "Effect": "Deny",
        "Action": ["bedrock:*"],
        "Resource": [f"arn:aws:bedrock:*:*:knowledge-base/kb{i}*", f"arn:aws:bedrock:*:*:agent/team{i}-*"],
        "Condition": {"StringNotLike": {"aws:PrincipalARN": [f"arn:aws:iam::*:role/team{i}-*"]}},
    }


def _tag_guard(i: int, regions: Sequence[str]) -> dict[str, Any]:
    return {
        "Effect": "Deny",
        "Action": ["ec2:CreateVolume", "ec2:RunInstances", "rds:CreateDBInstance"],
        "Resource": ["*"],
        # a request that names a retired cost center (one without the tag is not this statement's business: a
        # Null test would deny the landing zone's own legitimate launches, which P4 rightly reports)
        "Condition": {"StringEquals": {f"aws:RequestTag/cost-center-{i}": ["retired"]}},
    }


def _region(i: int, regions: Sequence[str]) -> dict[str, Any]:
    return {
        "Effect": "Deny",
        "Action": [f"{svc}:*" for svc in ("sagemaker", "comprehend", "textract", "rekognition")[: 1 + i % 4]],
        "Resource": ["*"],
        "Condition": {"StringNotEquals": {"aws:RequestedRegion": [*regions, f"xx-team-{i}"]}},
    }


def _guardrail(i: int, regions: Sequence[str]) -> dict[str, Any]:
    return {
        "Effect": "Deny",
        "Action": ["bedrock:UpdateGuardrail", "bedrock:DeleteGuardrail"],
        "Resource": [f"arn:aws:bedrock:*:*:guardrail/g{i}*"],
        "Condition": {"StringNotEquals": {f"aws:ResourceTag/owner-{i}": [f"team{i}"]}},
    }


TEMPLATES: tuple[Callable[[int, Sequence[str]], dict[str, Any]], ...] = (
    _bucket,
    _role,
    _knowledge_base,
    _tag_guard,
    _region,
    _guardrail,
)


def extra_denies(n: int, regions: Sequence[str]) -> dict[str, Any]:
    """One policy document of ``n`` deny statements, cycling through :data:`TEMPLATES`."""
    statements = []
    for i in range(n):
        stmt = TEMPLATES[i % len(TEMPLATES)](i, regions)
        statements.append({"Sid": f"OtherTeam{i}", **stmt})
    return {"Version": "2012-10-17", "Statement": statements}


def with_extra_denies(guard: Guard, n: int, regions: Sequence[str]) -> Guard:
    """The guard with the extra policy attached at its last level (the account's)."""
    if n <= 0:
        return guard
    last = (*guard.levels[-1], ("OtherTeamsDenies", extra_denies(n, regions)))
    return Guard(guard.name, guard.mode, (*guard.levels[:-1], last))
