"""The protected-resource inventory: everything the landing zone owns or relies on, as data.

Each entry says what the resource is, who creates it (the landing zone's stacks, the CDK bootstrap, Organizations,
CDK itself under a generated name, StackSets), its CloudFormation types, its IAM resource types from the Service
Authorization Reference, and how the SCPs recognise it:

* ``name`` — an ARN pattern inside the landing zone's namespace (``<name>-*``, ``/<name>/*``, ``cdk-<qualifier>-*``,
  the bootstrap stack ``policy_guardrails.toolkit_stack_name``);
  ``DenyLandingZoneTampering`` / ``DenyExemptRoleTakeover`` deny every non-read action on those ARNs;
* ``tag`` — the ``landing-zone: <name>`` tag (random identifiers: keys, VPC parts, guardrails, profiles, the SCPs);
  ``DenyTaggedResourceTampering`` denies every non-read action on resources carrying it, and
  ``DenyLandingZoneTagChanges`` denies setting or removing that tag key in any spelling;
* ``name+tag`` — both (either one stops a change).

The static part lives in ``protected.yaml`` beside this module (one row per protected kind: ARN pattern and sample
templates, resource types, how it is recognised, the config switch that enables it), validated by :class:`ProtectedRow`
(a bad row fails naming the file, the row, the field and the value); :func:`inventory` fills it for a configuration.

Three consumers read it: the guardrail builder (its name patterns are the SCPs' resources), the completeness tests
(``tests/cdk/test_inventory.py``: every synthesized resource is an entry and recognised as the entry says;
``tests/cdk/test_coverage.py``: every Write, Permissions management or Tagging action of the action database on these
resource types is denied), and the review report's coverage section.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from landing_zone.core.config import LandingZoneConfig
from landing_zone.errors import LandingZoneError

__all__ = [
    "CFN_TYPES_WITHIN",
    "InventoryError",
    "ProtectedResource",
    "ProtectedRow",
    "inventory",
    "load_protected_rows",
    "name_patterns",
    "role_patterns",
]

PARTITION = "aws"
Recognition = Literal["name", "tag", "name+tag", "none"]


@dataclass(frozen=True)
class ProtectedResource:
    what: str
    owner: str  # landing zone | CDK bootstrap | Organizations | CDK-generated | StackSets
    service: str  # IAM service prefix
    resource_types: tuple[str, ...]  # Service Authorization Reference resource types
    recognised_by: Recognition
    arn_patterns: tuple[str, ...] = ()  # with name recognition
    samples: tuple[tuple[str, str], ...] = ()  # (resource type, ARN of a protected resource) for the coverage test
    cfn_types: tuple[str, ...] = ()

    @property
    def by_name(self) -> bool:
        return "name" in self.recognised_by

    @property
    def by_tag(self) -> bool:
        return "tag" in self.recognised_by


# CloudFormation types that hold no state of their own in IAM terms: they are a property of another entry.
CFN_TYPES_WITHIN: dict[str, str] = {
    "AWS::IAM::Policy": "inline policy of a protected role (iam:PutRolePolicy on the role)",
    "AWS::Lambda::Permission": "resource policy of a protected function (lambda:AddPermission on the function)",
    "AWS::S3::BucketPolicy": "policy of a protected bucket (s3:PutBucketPolicy on the bucket)",
    "AWS::SNS::TopicPolicy": "policy of a protected topic (sns:SetTopicAttributes on the topic)",
    "AWS::SNS::Subscription": "subscription to a protected topic (sns:Subscribe on the topic)",
    "AWS::EC2::SubnetRouteTableAssociation": "association of a protected route table (ec2 actions on route-table)",
    "AWS::EC2::NetworkAclEntry": "entry of the protected network ACL (ec2:*NetworkAclEntry on the network-acl)",
    "AWS::EC2::SubnetNetworkAclAssociation": "association of the protected network ACL (ReplaceNetworkAclAssociation "
    "on the subnet and the network-acl)",
    "AWS::Bedrock::GuardrailVersion": "version of a protected guardrail (bedrock:CreateGuardrailVersion)",
    "AWS::Budgets::BudgetsAction": "action of a protected budget (budgets:*BudgetAction on budgetAction)",
    "AWS::Bedrock::EnforcedGuardrailConfiguration": "account setting, DenyAccountSettingChanges",
    "AWS::CDK::Metadata": "no resource",
    "AWS::Config::ConfigRule": "AWS Config rule (detection.config_rules): its ARN carries an ID, not its name, and "
    "CloudFormation puts no tag on it, so no name or tag deny reaches it (docs/DETECTION.md, residual risks: deleting "
    "it is not prevented; its compliance alert, an EventBridge rule, is protected by name)",
    "AWS::Events::EventBusPolicy": "a statement on the account's default event bus (shared with other teams, so not "
    "protected: removing it stops the management account's forwarded events; docs/DETECTION.md, residual risks)",
    "Custom::BedrockInvocationLogging": "account setting, DenyAccountSettingChanges; its function is protected",
    "Custom::BedrockModelAgreements": "agreement state held by Bedrock; its function is protected",
    "Custom::CostAllocationTags": "cost allocation tag status held by Billing; its function is protected",
    "Custom::BedrockDataRetention": "account setting, DenyDataRetentionModeChange and DenyAccountSettingChanges; its "
    "function is protected",
    "AWS::Bedrock::ResourcePolicy": "resource-based policy of a protected guardrail (bedrock:PutResourcePolicy and "
    "bedrock:DeleteResourcePolicy on the guardrail)",
    "Custom::CDKBucketDeployment": "objects in a protected bucket; its function is protected",
    "Custom::VpcRestrictDefaultSG": "rules of the protected VPC's default security group; its function is protected",
    "Custom::AWSCDK-EKS-KubernetesResource": "Kubernetes objects in the protected cluster; its function is protected",
}


# the switches a row (or one of its items) may name in ``when``, and what each reads
Switch = Literal["stacksets", "self_hosting", "mantle_projects"]
SWITCHES: dict[str, Callable[[LandingZoneConfig], bool]] = {
    "stacksets": lambda c: c.member_baseline.enabled,
    "self_hosting": lambda c: c.self_hosting.enabled,
    "mantle_projects": lambda c: c.access.mantle_projects is not False,  # true, or auto (created where it can act)
}
PATTERN_FIELDS = frozenset({"partition", "name", "qualifier", "toolkit_stack", "prefix"})
SAMPLE_FIELDS = frozenset({"partition", "name", "qualifier", "toolkit_stack", "account", "region"})
SAMPLE_ACCOUNT = "111122223333"


class InventoryError(LandingZoneError):
    """A row of ``protected.yaml`` that does not load: the message names the file, the row, the field and the value."""


def _placeholders(template: str, allowed: frozenset[str]) -> str:
    unknown = sorted({f for _, f, _, _ in string.Formatter().parse(template) if f is not None} - allowed)
    if unknown:
        raise ValueError(f"unknown placeholder(s) {unknown}: use some of {sorted(allowed)}")
    return template


class _Item(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    value: str
    when: Switch | None = None


class Sample(BaseModel):
    """``(resource type, ARN of a protected resource)`` for the coverage test; the ARN is a template."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: str
    arn: str
    when: Switch | None = None

    @field_validator("arn")
    @classmethod
    def _arn(cls, value: str) -> str:
        return _placeholders(value, SAMPLE_FIELDS)


class ProtectedRow(BaseModel):
    """One protected kind; a string item may be ``{value, when}`` (present only when the switch ``when`` is on)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    what: str
    owner: str  # landing zone | CDK bootstrap | Organizations | CDK-generated | StackSets
    service: str  # IAM service prefix
    resource_types: tuple[str | _Item, ...]
    recognised_by: Recognition
    arn_patterns: tuple[str | _Item, ...] = ()
    exempt_roles: bool = False  # the exempt role ARNs follow the patterns
    samples: tuple[Sample, ...] = ()
    cfn_types: tuple[str, ...] = ()
    when: Switch | None = None

    @field_validator("arn_patterns")
    @classmethod
    def _patterns(cls, value: tuple[str | _Item, ...]) -> tuple[str | _Item, ...]:
        for item in value:
            _placeholders(item if isinstance(item, str) else item.value, PATTERN_FIELDS)
        return value


def _error(where: str, row_id: str, exc: ValidationError) -> InventoryError:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '(row)'}: got {e.get('input')!r}: {e['msg']}" for e in exc.errors()
    )
    return InventoryError(f"{where}: row {row_id!r}: {problems}")


def load_protected_rows(source: Traversable | None = None) -> tuple[ProtectedRow, ...]:
    """Every row of ``protected.yaml`` (``source``: another such file, for tests), each validated by
    :class:`ProtectedRow`; ids are unique."""
    entry = source if source is not None else files("landing_zone.policies") / "protected.yaml"
    where = str(entry)
    raw = yaml.safe_load(entry.read_text(encoding="utf-8"))
    if not isinstance(raw, list):
        raise InventoryError(f"{where}: expected a list of rows, got {type(raw).__name__}")
    rows: list[ProtectedRow] = []
    for index, item in enumerate(raw):
        row_id = str(item.get("id", f"#{index}")) if isinstance(item, dict) else f"#{index}"
        try:
            row = ProtectedRow.model_validate(item)
        except ValidationError as exc:
            raise _error(where, row_id, exc) from None
        if any(r.id == row.id for r in rows):
            raise InventoryError(f"{where}: row {row.id!r}: id: got {row.id!r}: an id may be used once")
        rows.append(row)
    return tuple(rows)


_rows = functools.cache(load_protected_rows)


def _on(config: LandingZoneConfig, when: Switch | None) -> bool:
    return when is None or SWITCHES[when](config)


def _values(config: LandingZoneConfig, items: Iterable[str | _Item]) -> list[str]:
    return [
        item if isinstance(item, str) else item.value
        for item in items
        if isinstance(item, str) or _on(config, item.when)
    ]


def _fill(row: ProtectedRow, config: LandingZoneConfig, exempt_role_arns: tuple[str, ...]) -> ProtectedResource:
    n = config.name
    fields = {
        "partition": PARTITION,
        "name": n,
        "qualifier": config.policy_guardrails.cdk_bootstrap_qualifier,
        "toolkit_stack": config.policy_guardrails.toolkit_stack_name,
        "account": SAMPLE_ACCOUNT,
        "region": config.home_region,
    }
    # CloudFormation names what it generates <stack name>-<logical id>-<suffix>; under StackSets the stack is
    # StackSet-<stack set name>-<uuid> (AWS CloudFormation user guide, "StackSets concepts").
    prefixes = (f"{n}-", f"StackSet-{n}-") if SWITCHES["stacksets"](config) else (f"{n}-",)
    patterns = [
        template.format(**fields, prefix=prefix)
        for template in _values(config, row.arn_patterns)
        for prefix in (prefixes if "{prefix}" in template else ("",))
    ]
    if row.exempt_roles:
        patterns = list(dict.fromkeys([*patterns, *exempt_role_arns]))
    return ProtectedResource(
        what=row.what,
        owner=row.owner,
        service=row.service,
        resource_types=tuple(_values(config, row.resource_types)),
        recognised_by=row.recognised_by,
        arn_patterns=tuple(patterns),
        samples=tuple((s.type, s.arn.format(**fields)) for s in row.samples if _on(config, s.when)),
        cfn_types=row.cfn_types,
    )


def inventory(config: LandingZoneConfig, exempt_role_arns: tuple[str, ...] = ()) -> tuple[ProtectedResource, ...]:
    """Every protected kind ``protected.yaml`` enables for ``config``, filled; the role entry's patterns end with
    ``exempt_role_arns``."""
    return tuple(_fill(row, config, exempt_role_arns) for row in _rows() if _on(config, row.when))


def role_patterns(config: LandingZoneConfig, exempt_role_arns: tuple[str, ...]) -> tuple[str, ...]:
    """Role ARN patterns nobody but the exempt principals may change: every role of the landing zone's namespace
    in any account and under any path, and every role ARN an exemption matches (as the exemption states it: an
    exemption bound to one account protects its name in that account; a role of the same name elsewhere is not
    exempt, so it needs no protection)."""
    (roles,) = (_fill(row, config, exempt_role_arns) for row in _rows() if row.exempt_roles)
    return roles.arn_patterns


def name_patterns(config: LandingZoneConfig) -> tuple[str, ...]:
    """ARN patterns of everything protected by name except roles (``DenyLandingZoneTampering``)."""
    return tuple(
        pattern
        for entry in inventory(config)
        if entry.by_name and entry.resource_types != ("role",)
        for pattern in entry.arn_patterns
    )
