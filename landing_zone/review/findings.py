"""Findings: the policy and data-store checks of ``rules.py``, each with its evidence.

A finding names the template, the logical ID, the policy (``PolicyRecord.id``), the statement (index and
Sid) and the offending element, so that a reviewer can go straight to it.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from landing_zone.review.inventory import IDENTITY_KINDS, PolicyRecord, statements_of
from landing_zone.review.rules import ADVISORY, BLOCKING, define, rule
from landing_zone.review.summarize import ROOT_ARN, as_list, plain_arn, principal_entries

# cdk-nag and checkov rules about wildcard IAM grants, and about S3 encryption with a customer-managed key
_IAM_WILDCARD = (
    "AwsSolutions-IAM5",
    "CKV_AWS_107",
    "CKV_AWS_108",
    "CKV_AWS_109",
    "CKV_AWS_110",
    "CKV_AWS_111",
    "CKV_AWS_355",
    "CKV_AWS_356",
)
_S3_KMS = ("*-S3DefaultEncryptionKMS", "CKV_AWS_145")

__all__ = [
    "INVOKE_ACTIONS",
    "Finding",
    "ReviewContext",
    "finding",
    "policy_findings",
    "sort_findings",
]


@dataclass(frozen=True)
class ReviewContext:
    """What the checks need to know about the configuration."""

    compliant_regions: frozenset[str]
    known_accounts: frozenset[str]
    organization_id: str | None = None
    # (region, model or profile id) pairs that a compliant global profile may reach
    global_destinations: frozenset[tuple[str, str]] = frozenset()


@dataclass(frozen=True)
class Finding:
    rule: str
    level: str
    title: str
    message: str
    template: str = ""
    stack: str = ""
    logical_id: str = ""
    policy_id: str = ""
    statement_index: int | None = None
    sid: str = ""
    element: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "level": self.level,
            "title": self.title,
            "message": self.message,
            "template": self.template,
            "stack": self.stack,
            "logical_id": self.logical_id,
            "policy_id": self.policy_id,
            "statement_index": self.statement_index,
            "sid": self.sid,
            "element": self.element,
        }


def finding(rule_id: str, message: str, *, level: str | None = None, **evidence: Any) -> Finding:
    r = rule(rule_id)
    return Finding(rule=r.id, level=level or r.level, title=r.title, message=message, **evidence)


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    order = {BLOCKING: 0, ADVISORY: 1}
    unique = dict.fromkeys(findings)
    return sorted(
        unique,
        key=lambda f: (
            order.get(f.level, 2),
            f.rule,
            f.template,
            f.logical_id,
            f.policy_id,
            -1 if f.statement_index is None else f.statement_index,
            f.element,
            f.message,
        ),
    )


# ----------------------------------------------------------------------------------------- helpers

INVOKE_ACTIONS = (
    "bedrock:InvokeModel",
    "bedrock:InvokeModelWithResponseStream",
    "bedrock:CreateModelInvocationJob",
    "bedrock-mantle:CreateInference",
)
PASSROLE_ACTIONS = ("iam:PassRole",)
KMS_ACTIONS = ("kms:Decrypt", "kms:GenerateDataKey", "kms:GenerateDataKeyWithoutPlaintext", "kms:ReEncryptFrom")
DATA_ACTIONS = (
    "s3:GetObject",
    "s3:GetObjectVersion",
    "s3:PutObject",
    "s3:DeleteObject",
    "secretsmanager:GetSecretValue",
    "ssm:GetParameter",
    "ssm:GetParameters",
    "ssm:GetParametersByPath",
    "logs:GetLogEvents",
    "logs:FilterLogEvents",
    "dynamodb:GetItem",
    "dynamodb:Query",
    "dynamodb:Scan",
    "sqs:ReceiveMessage",
)
READ_PREFIXES = ("get", "list", "describe", "view", "batchget", "search", "query", "lookup")
CONFUSED_DEPUTY_SERVICES = frozenset({"bedrock", "logs", "budgets", "costalerts", "cloudwatch"})
DATA_RESOURCE_KINDS = frozenset({"key", "bucket", "topic"})
SOURCE_KEYS = ("aws:sourceaccount", "aws:sourcearn", "aws:sourceorgid", "aws:sourceorgpaths")
ACCOUNT_SCOPE_KEYS = frozenset(
    {
        "aws:principalaccount",
        "aws:principalorgid",
        "aws:principalorgpaths",
        "aws:sourceaccount",
        "aws:sourceorgid",
        "aws:sourceorgpaths",
        "aws:principalarn",
        "aws:sourcearn",
        "kms:calleraccount",
    }
)
ACCOUNT_VALUE_KEYS = frozenset(
    {"aws:principalaccount", "aws:sourceaccount", "aws:resourceaccount", "kms:calleraccount"}
)
ARN_VALUE_KEYS = frozenset({"aws:principalarn", "aws:sourcearn"})

REGION = r"[a-z]{2}(?:-[a-z]+)+-\d+"
ARN_REGION = re.compile(rf"arn:[a-z0-9-]+:([a-z0-9-]+):({REGION}):")
PRINCIPAL_REGION = re.compile(rf"^[a-z0-9-]+\.({REGION})\.amazonaws\.com(?:\.cn)?$")
IAM_ACCOUNT = re.compile(r"^arn:[^:]+:(?:iam|sts)::([^:]*):")


def _matches(pattern: str, action: str) -> bool:
    return fnmatch.fnmatchcase(action.lower(), pattern.lower())


def _covered(stmt: Mapping[str, Any], actions: Iterable[str]) -> list[str]:
    """The given actions that the statement's Action (or NotAction) covers."""
    if "NotAction" in stmt:
        excluded = as_list(stmt.get("NotAction"))
        return [a for a in actions if not any(_matches(p, a) for p in excluded)]
    patterns = as_list(stmt.get("Action"))
    return [a for a in actions if any(_matches(p, a) for p in patterns)]


def _wildcard_resources(stmt: Mapping[str, Any]) -> list[str]:
    if "NotResource" in stmt:
        return ["NotResource: " + ", ".join(as_list(stmt["NotResource"]))]
    out = []
    for r in as_list(stmt.get("Resource")):
        if r == "*":
            out.append(r)
            continue
        parts = r.split(":", 5)
        if len(parts) == 6 and parts[0] == "arn" and (parts[2] == "*" or set(parts[5]) <= {"*", "/"}):
            out.append(r)
    return out


def _condition_keys(stmt: Mapping[str, Any], *, positive_only: bool = False) -> dict[str, list[str]]:
    """lower-cased condition key -> values, over every operator (optionally skipping negated/Null ones)."""
    keys: dict[str, list[str]] = {}
    condition = stmt.get("Condition")
    if not isinstance(condition, Mapping):
        return keys
    for operator, entries in condition.items():
        op = str(operator)
        if positive_only and ("Not" in op or op.startswith("Null")):
            continue
        if isinstance(entries, Mapping):
            for key, values in entries.items():
                keys.setdefault(str(key).lower(), []).extend(as_list(values))
    return keys


def _resource_bound(record: PolicyRecord, stmt: Mapping[str, Any], ctx: ReviewContext) -> str | None:
    """For an endpoint policy: the condition that bounds the resources to the landing zone's accounts/organization."""
    if record.kind != "endpoint":
        return None
    keys = _condition_keys(stmt, positive_only=True)
    accounts = keys.get("aws:resourceaccount", [])
    if accounts and all(_is_own(a, ctx) for a in accounts):
        return f"aws:ResourceAccount {', '.join(accounts)}"
    orgs = keys.get("aws:resourceorgid", [])
    if orgs and ctx.organization_id and all(o == ctx.organization_id for o in orgs):
        return f"aws:ResourceOrgID {', '.join(orgs)}"
    paths = keys.get("aws:resourceorgpaths", [])
    if paths and ctx.organization_id and all(p.startswith(f"{ctx.organization_id}/") for p in paths):
        return f"aws:ResourceOrgPaths {', '.join(paths)}"
    return None


ENDPOINT_PERIMETER = define(
    "LZ-ENDPOINT-PERIMETER",
    ADVISORY,
    "Broad endpoint policy bounded to the landing zone's accounts",
    "A VPC endpoint policy allows all actions of a service or any resource, bounded by aws:ResourceAccount / "
    "aws:ResourceOrgID to the configured accounts or organization. An endpoint policy filters what passes the "
    "endpoint (the identity policies still grant), and this is the data-perimeter pattern, so it is listed.",
    "Advisory: this is the data-perimeter pattern. The endpoint filters, the identity policies grant, and "
    "aws:ResourceAccount / aws:ResourceOrgID keep the traffic inside the landing zone's accounts. Check "
    "that the bounding accounts or organization are yours.",
    related=_IAM_WILDCARD,
)


def _perimeter(record: PolicyRecord, i: int, stmt: Mapping[str, Any], bound: str, what: str) -> Finding:
    return finding(
        ENDPOINT_PERIMETER,
        f"{_where(record, i, stmt)} allows {what}, bounded by {bound}",
        **_evidence(record, i, stmt, f"{what} [Condition {bound}]"),
    )


def _evidence(record: PolicyRecord, index: int | None, stmt: Mapping[str, Any] | None, element: str) -> dict[str, Any]:
    return {
        "template": record.template,
        "stack": record.stack,
        "logical_id": record.logical_id,
        "policy_id": record.id,
        "statement_index": index,
        "sid": str(stmt.get("Sid", "")) if stmt else "",
        "element": element,
    }


def _where(record: PolicyRecord, index: int, stmt: Mapping[str, Any]) -> str:
    sid = stmt.get("Sid")
    name = record.logical_id if record.name == record.logical_id else f"{record.name!r} ({record.logical_id})"
    return f"{record.kind} policy {name}, statement {sid or '#' + str(index)}"


def _is_own(account: str, ctx: ReviewContext) -> bool:
    return account in ctx.known_accounts or (account.startswith("<") and account.endswith(">"))


# ----------------------------------------------------------------------------------------- policy checks


WILDCARD_INVOKE = define(
    "LZ-WILDCARD-INVOKE",
    BLOCKING,
    "Inference allowed on any resource",
    "An Allow statement grants bedrock:InvokeModel*, bedrock:CreateModelInvocationJob or "
    'bedrock-mantle:CreateInference on Resource "*" (or a wildcard ARN / NotResource): any model, any Region.',
    "Inference on any model in any Region sidesteps the model allow-list and the Region guardrails at the "
    "identity layer. Name the foundation-model and inference-profile ARNs the routing decision admits.",
    related=_IAM_WILDCARD,
)


WILDCARD_PASSROLE = define(
    "LZ-WILDCARD-PASSROLE",
    BLOCKING,
    "iam:PassRole on any role",
    'An Allow statement grants iam:PassRole on Resource "*": the principal may hand any role to a service.',
    "Passing any role lets the principal hand a more privileged role to a service (privilege escalation). "
    "Name the role ARNs and add an iam:PassedToService condition.",
    related=_IAM_WILDCARD,
)


WILDCARD_KMS = define(
    "LZ-WILDCARD-KMS",
    BLOCKING,
    "KMS decryption on any key",
    'An identity or endpoint policy allows kms:Decrypt / GenerateDataKey* / ReEncryptFrom on Resource "*" '
    '(key policies are exempt: their "*" is the key itself).',
    "Decrypting with any key reaches every key whose policy trusts the account. Name the key ARNs.",
    related=_IAM_WILDCARD,
)


WILDCARD_DATA = define(
    "LZ-WILDCARD-DATA",
    BLOCKING,
    "Data read/write on any resource",
    "An Allow statement grants object, secret, parameter, log or table data actions (s3:GetObject, "
    'secretsmanager:GetSecretValue, ...) on Resource "*".',
    "Reading or writing any object, secret, parameter, log or table is an exfiltration path. Name the resource ARNs.",
    related=_IAM_WILDCARD,
)


WILDCARD_IN_BOUNDARY = define(
    "LZ-WILDCARD-IN-BOUNDARY",
    ADVISORY,
    "Wildcard in a permissions boundary",
    "A policy used only as a permissions boundary has a wildcard grant. A boundary is a ceiling, not a grant: "
    "the effective access is the intersection with the identity policies, so this is listed, not blocking.",
    "Advisory: a permissions boundary grants nothing by itself. The role gets the intersection with its "
    "identity policies, and the wildcard rules check those policies. Check that the boundary's denies "
    "still hold; nothing to change here.",
    related=_IAM_WILDCARD,
)


WILDCARD_OTHER = define(
    "LZ-WILDCARD-OTHER",
    ADVISORY,
    "Write actions on any resource",
    'An identity or endpoint policy allows non-read actions on Resource "*" (often required by APIs without '
    "resource-level permissions; check that the actions are the ones the API needs).",
    "Advisory: APIs without resource-level permissions need Resource '*' (the Service Authorization "
    "Reference lists them). Check that each listed action really has no resource type; otherwise scope "
    "it.",
    related=_IAM_WILDCARD,
)


def _wildcard_checks(record: PolicyRecord, i: int, stmt: Mapping[str, Any], ctx: ReviewContext) -> list[Finding]:
    if record.kind in ("scp", "rcp", "trust", "lambda-permission", "key"):
        return []  # SCP Allows filter, not grant; a key policy's "*" is the key itself
    wild = _wildcard_resources(stmt)
    if not wild:
        return []
    out: list[Finding] = []
    boundary_only = record.is_boundary_only
    bound = _resource_bound(record, stmt, ctx)
    groups = (
        (WILDCARD_INVOKE, INVOKE_ACTIONS),
        (WILDCARD_PASSROLE, PASSROLE_ACTIONS),
        (WILDCARD_DATA, DATA_ACTIONS),
        (WILDCARD_KMS, KMS_ACTIONS),
    )
    sensitive_hit = False
    for rule_id, actions in groups:
        hit = _covered(stmt, actions)
        if not hit:
            continue
        sensitive_hit = True
        element = f"Action {', '.join(hit)} on Resource {', '.join(wild)}"
        if bound:
            out.append(_perimeter(record, i, stmt, bound, element))
        elif boundary_only:
            out.append(
                finding(
                    WILDCARD_IN_BOUNDARY,
                    f"{_where(record, i, stmt)}: the permissions boundary allows {', '.join(hit)} on "
                    f"{', '.join(wild)} (ceiling of {', '.join(record.boundary_of)})",
                    **_evidence(record, i, stmt, element),
                )
            )
        else:
            out.append(
                finding(
                    rule_id,
                    f"{_where(record, i, stmt)} allows {', '.join(hit)} on {', '.join(wild)}",
                    **_evidence(record, i, stmt, element),
                )
            )
    if not sensitive_hit and not boundary_only and not bound and record.kind in IDENTITY_KINDS | {"endpoint"}:
        named_actions = as_list(stmt.get("Action"))
        writes = [
            a
            for a in named_actions
            if not a.split(":", 1)[-1].lower().startswith(READ_PREFIXES) and a != "*" and not a.endswith(":*")
        ]
        if writes and "*" in wild:
            out.append(
                finding(
                    WILDCARD_OTHER,
                    f"{_where(record, i, stmt)} allows {', '.join(writes)} on any resource",
                    **_evidence(record, i, stmt, f"Action {', '.join(writes)} on Resource *"),
                )
            )
    return out


def _is_root_key_statement(record: PolicyRecord, stmt: Mapping[str, Any], ctx: ReviewContext) -> bool:
    if record.kind != "key" or as_list(stmt.get("Action")) not in (["kms:*"], ["*"]):
        return False
    entries = principal_entries(stmt.get("Principal"))
    if not entries:
        return False
    for kind, value in entries:
        value = plain_arn(value)
        match = ROOT_ARN.match(value) if kind == "AWS" else None
        account = match.group(1) if match else value if kind == "AWS" and value.isdigit() else None
        if account is None or not _is_own(account, ctx):
            return False
    return True


def _is_full_access_scp(record: PolicyRecord, stmt: Mapping[str, Any]) -> bool:
    return (
        record.kind == "scp"
        and as_list(stmt.get("Action")) == ["*"]
        and as_list(stmt.get("Resource")) == ["*"]
        and not stmt.get("Condition")
    )


FULL_ACTION = define(
    "LZ-FULL-ACTION",
    BLOCKING,
    "All actions of a service (or of AWS) allowed",
    'An Allow statement has Action "*", "service:*" or NotAction; exempt: the root-account statement of a '
    "KMS key policy and the FullAWSAccess-style SCP.",
    "'service:*' also grants every action the service adds later, including destructive ones. List the "
    "actions the principal needs.",
    related=_IAM_WILDCARD,
)


def _full_action_check(record: PolicyRecord, i: int, stmt: Mapping[str, Any], ctx: ReviewContext) -> list[Finding]:
    broad = [a for a in as_list(stmt.get("Action")) if a == "*" or a.endswith(":*")]
    if "NotAction" in stmt:
        broad.append("NotAction: " + ", ".join(as_list(stmt["NotAction"])))
    if not broad or _is_root_key_statement(record, stmt, ctx) or _is_full_access_scp(record, stmt):
        return []
    element = f"Action {', '.join(broad)}"
    bound = _resource_bound(record, stmt, ctx)
    if bound:
        return [_perimeter(record, i, stmt, bound, element)]
    if record.is_boundary_only:
        return [
            finding(
                WILDCARD_IN_BOUNDARY,
                f"{_where(record, i, stmt)}: the permissions boundary allows {', '.join(broad)}",
                **_evidence(record, i, stmt, element),
            )
        ]
    return [
        finding(
            FULL_ACTION,
            f"{_where(record, i, stmt)} allows {', '.join(broad)}",
            **_evidence(record, i, stmt, element),
        )
    ]


def _has_source_condition(stmt: Mapping[str, Any]) -> bool:
    # Positive operators only: "StringNotEquals aws:SourceAccount <own>" or "Null aws:SourceArn true" on an Allow
    # admits every other source, which is the confused deputy itself, not a guard against it.
    keys = _condition_keys(stmt, positive_only=True)
    return any(k in keys for k in SOURCE_KEYS) or any(k.startswith("kms:encryptioncontext") for k in keys)


CONFUSED_DEPUTY = define(
    "LZ-CONFUSED-DEPUTY",
    BLOCKING,
    "Service principal without a confused-deputy condition on a data resource",
    "A KMS key, bucket or topic policy allows bedrock, logs, budgets, costalerts or cloudwatch without "
    "aws:SourceAccount / aws:SourceArn / aws:SourceOrgID or a kms:EncryptionContext condition.",
    "Without a source condition, the service can use this key, bucket or topic on behalf of another "
    "account's resources (confused deputy). Add aws:SourceAccount / aws:SourceArn, or "
    "kms:EncryptionContext for CloudWatch Logs.",
)


SERVICE_PRINCIPAL_UNSCOPED = define(
    "LZ-SERVICE-PRINCIPAL-UNSCOPED",
    ADVISORY,
    "Service principal without a source condition",
    "A resource or trust policy allows a service principal without aws:SourceAccount / aws:SourceArn / "
    "aws:SourceOrgID or a kms:EncryptionContext condition.",
    "Advisory: the policy is not on a data resource. For a trust policy, only a resource created in this "
    "account with this role (which needs iam:PassRole) can act as the service. Add aws:SourceAccount "
    "where the service sets it.",
)


CROSS_ACCOUNT = define(
    "LZ-CROSS-ACCOUNT",
    BLOCKING,
    "Principal of an account outside the configuration",
    "An Allow statement admits an account (Principal, or aws:PrincipalAccount / aws:SourceAccount / "
    "aws:PrincipalOrgID condition) that is not one of the configured accounts, the deployment account, the "
    "management account or the configured organization.",
    "The configuration does not know this account. If the access is intended, add the account to the "
    "configuration; otherwise remove the principal or condition value.",
)


PUBLIC_PRINCIPAL = define(
    "LZ-PUBLIC-PRINCIPAL",
    BLOCKING,
    "Public principal",
    'An Allow statement has Principal "*" without an account or organization condition. In a VPC endpoint '
    'policy, where "*" means the callers inside the VPC, only when it also allows any resource without '
    "aws:ResourceAccount / aws:ResourceOrgID (an exfiltration path).",
    "Any AWS principal of any account could use the resource. Add aws:PrincipalOrgID or "
    "aws:PrincipalAccount, or name the principals.",
)


def _principal_entry_checks(
    record: PolicyRecord,
    i: int,
    stmt: Mapping[str, Any],
    ctx: ReviewContext,
    entry: tuple[str, str],
    scoped_keys: Mapping[str, Any],
) -> list[Finding]:
    """The findings for one principal entry (kind, value) of statement `i`."""
    kind, value = entry
    if kind == "Service":
        return _service_principal_checks(record, i, stmt, value)
    if value == "*" or "NotPrincipal" in stmt:
        # In an endpoint policy "*" means the callers inside the VPC: the risk is reaching foreign resources.
        endpoint_ok = record.kind == "endpoint" and (
            not _wildcard_resources(stmt) or _resource_bound(record, stmt, ctx)
        )
        if ACCOUNT_SCOPE_KEYS & set(scoped_keys) or endpoint_ok:
            return []
        return [
            finding(
                PUBLIC_PRINCIPAL,
                f"{_where(record, i, stmt)} admits {'everyone except ' if 'NotPrincipal' in stmt else ''}"
                f"any principal without an account or organization condition",
                **_evidence(record, i, stmt, f"Principal {kind} {value}"),
            )
        ]
    if kind == "AWS":
        value = plain_arn(value)
        match = ROOT_ARN.match(value) or IAM_ACCOUNT.match(value)
        account = match.group(1) if match else value if value.isdigit() else None
        if account is not None and not _is_own(account, ctx):
            return [
                finding(
                    CROSS_ACCOUNT,
                    f"{_where(record, i, stmt)} admits account {account}, which is not in the configuration",
                    **_evidence(record, i, stmt, f"Principal AWS {value}"),
                )
            ]
    return []


def _service_principal_checks(record: PolicyRecord, i: int, stmt: Mapping[str, Any], value: str) -> list[Finding]:
    """A service principal without a source condition: a confused deputy on data, else unscoped."""
    if _has_source_condition(stmt):
        return []
    service = value.split(".", 1)[0]
    blocking = service in CONFUSED_DEPUTY_SERVICES and record.kind in DATA_RESOURCE_KINDS
    rule_id = CONFUSED_DEPUTY if blocking else SERVICE_PRINCIPAL_UNSCOPED
    return [
        finding(
            rule_id,
            f"{_where(record, i, stmt)} admits service {value} without aws:SourceAccount, "
            "aws:SourceArn, aws:SourceOrgID or kms:EncryptionContext",
            **_evidence(record, i, stmt, f"Principal Service {value}"),
        )
    ]


def _principal_checks(record: PolicyRecord, i: int, stmt: Mapping[str, Any], ctx: ReviewContext) -> list[Finding]:
    if "Principal" not in stmt and "NotPrincipal" not in stmt:
        return []
    out: list[Finding] = []
    entries = principal_entries(stmt.get("Principal", stmt.get("NotPrincipal")))
    scoped_keys = _condition_keys(stmt, positive_only=True)
    for kind, value in entries:
        out.extend(_principal_entry_checks(record, i, stmt, ctx, (kind, value), scoped_keys))
    return out


def _condition_account_checks(
    record: PolicyRecord, i: int, stmt: Mapping[str, Any], ctx: ReviewContext
) -> list[Finding]:
    out = []
    for key, values in sorted(_condition_keys(stmt, positive_only=True).items()):
        if key in ACCOUNT_VALUE_KEYS:
            for v in values:
                if not _is_own(v, ctx):
                    out.append(
                        finding(
                            CROSS_ACCOUNT,
                            f"{_where(record, i, stmt)} admits account {v} by condition {key}",
                            **_evidence(record, i, stmt, f"Condition {key} = {v}"),
                        )
                    )
        elif key in ARN_VALUE_KEYS:
            for v in values:
                parts = plain_arn(v).split(":")
                account = parts[4] if len(parts) > 5 and parts[0] == "arn" else ""
                if account.isdigit() and not _is_own(account, ctx):
                    out.append(
                        finding(
                            CROSS_ACCOUNT,
                            f"{_where(record, i, stmt)} admits account {account} by condition {key}",
                            **_evidence(record, i, stmt, f"Condition {key} = {v}"),
                        )
                    )
        elif key == "aws:principalorgid":
            for v in values:
                if v != ctx.organization_id and not (v.startswith("<") and v.endswith(">")):
                    out.append(
                        finding(
                            CROSS_ACCOUNT,
                            f"{_where(record, i, stmt)} admits organization {v}, not the configured "
                            f"{ctx.organization_id or '(none)'}",
                            **_evidence(record, i, stmt, f"Condition aws:PrincipalOrgID = {v}"),
                        )
                    )
    return out


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _global_exempt(text: str, region: str, ctx: ReviewContext) -> bool:
    if not text.startswith("arn:") or ":bedrock:" not in text:
        return False
    return any(region == r and text.endswith("/" + target) for r, target in ctx.global_destinations)


NONCOMPLIANT_REGION = define(
    "LZ-NONCOMPLIANT-REGION",
    BLOCKING,
    "Allow statement names a non-compliant Region",
    "An ARN (or a Regional service principal) in an Allow statement names a Region outside compliant_regions. "
    "Exempt: Deny statements, and the destinations of a compliant global profile when "
    "allow_global_inference is true.",
    "Data residency: the statement reaches a Region outside compliant_regions. Remove the Region, or add "
    "it to compliant_regions if it is compliant.",
)


def _region_checks(record: PolicyRecord, i: int, stmt: Mapping[str, Any], ctx: ReviewContext) -> list[Finding]:
    out = []
    seen: set[tuple[str, str]] = set()
    element_names = [k for k in ("Principal", "NotPrincipal", "Resource", "NotResource", "Condition") if k in stmt]
    for element_name in element_names:
        for text in _strings(stmt[element_name]):
            regions = [m.group(2) for m in ARN_REGION.finditer(text)]
            principal = PRINCIPAL_REGION.match(text)
            if principal:
                regions.append(principal.group(1))
            for region in regions:
                if region in ctx.compliant_regions or _global_exempt(text, region, ctx) or (text, region) in seen:
                    continue
                seen.add((text, region))
                out.append(
                    finding(
                        NONCOMPLIANT_REGION,
                        f"{_where(record, i, stmt)} names {region}, which is not in compliant_regions",
                        **_evidence(record, i, stmt, f"{element_name} {text}"),
                    )
                )
    return out


REGION_WILDCARD = define(
    "LZ-REGION-WILDCARD",
    ADVISORY,
    "Inference allowed in any Region",
    "An Allow statement grants an inference action on an ARN whose Region segment is a wildcard.",
    "Advisory: the SCPs or the invoker boundary deny the non-compliant Regions, so residency still holds. "
    "Pin the Region segment to compliant_regions where the ARN allows it.",
    related=_IAM_WILDCARD,
)


def _region_wildcard_checks(record: PolicyRecord, i: int, stmt: Mapping[str, Any]) -> list[Finding]:
    if record.kind in ("scp", "rcp") or record.is_boundary_only or not _covered(stmt, INVOKE_ACTIONS):
        return []
    out = []
    for r in as_list(stmt.get("Resource")):
        parts = r.split(":", 5)
        if len(parts) == 6 and parts[0] == "arn" and "*" in parts[3]:
            out.append(
                finding(
                    REGION_WILDCARD,
                    f"{_where(record, i, stmt)} allows inference on {r} in any Region",
                    **_evidence(record, i, stmt, f"Resource {r}"),
                )
            )
    return out


UNPARSEABLE_POLICY = define(
    "LZ-UNPARSEABLE-POLICY",
    ADVISORY,
    "Policy text could not be read",
    "A policy given as text is not valid JSON; it is listed but could not be checked.",
    "Advisory: CloudFormation rejects invalid policy text at deploy time, so it cannot take effect as "
    "written. Fix the text; until then read it by hand, because the review could not check it.",
)


def policy_findings(records: Iterable[PolicyRecord], ctx: ReviewContext) -> list[Finding]:
    out: list[Finding] = []
    for record in records:
        if record.parse_error:
            out.append(
                finding(
                    UNPARSEABLE_POLICY,
                    f"{record.kind} policy {record.name!r}: {record.parse_error}",
                    **_evidence(record, None, None, record.property_path),
                )
            )
        for i, stmt in enumerate(statements_of(record.document)):
            if stmt.get("Effect") != "Allow":
                continue
            broad = _wildcard_checks(record, i, stmt, ctx) + _full_action_check(record, i, stmt, ctx)
            perimeter = [f for f in broad if f.rule == ENDPOINT_PERIMETER]
            if len(perimeter) > 1:  # one finding per statement
                merged = "; ".join(f.element.split(" [Condition ")[0] for f in perimeter)
                bound = perimeter[0].element.split(" [Condition ", 1)[1].rstrip("]")
                perimeter = [_perimeter(record, i, stmt, bound, merged)]
            out += [f for f in broad if f.rule != ENDPOINT_PERIMETER] + perimeter
            out += _principal_checks(record, i, stmt, ctx)
            out += _condition_account_checks(record, i, stmt, ctx)
            out += _region_checks(record, i, stmt, ctx)
            out += _region_wildcard_checks(record, i, stmt)
    return out
