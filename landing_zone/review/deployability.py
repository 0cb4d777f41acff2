"""Deployability: every stack can be deployed in its own account, updated in place, and deployed again after
``cdk destroy``.  Four blocking rules, each a deploy failure the synth would otherwise ship:

* ``LZ-KEY-LOCKOUT`` — a KMS key policy that does not let its own stack's account administer the key, or that
  names another account as administrator.  KMS refuses to create a key whose policy would lock its creator out
  unless ``BypassPolicyLockoutSafetyCheck`` is set: "Use this parameter only when you intend to prevent the
  principal that is making the request from making a subsequent PutKeyPolicy request on the KMS key" (AWS KMS API
  Reference, CreateKey, https://docs.aws.amazon.com/kms/latest/APIReference/API_CreateKey.html); the statement
  that gives the owning account's root ``kms:*`` is what lets its IAM policies administer the key (AWS KMS
  Developer Guide, "Default key policy", https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-default.html).
* ``LZ-FOREIGN-ACCOUNT`` — a policy that names an account other than its stack's own (in a CloudWatch Logs
  encryption-context condition, a log-group, bucket, IAM or KMS ARN, an account principal or an account condition
  key) where the plan declares no cross-account grant (:mod:`landing_zone.plan.grants`).  The stack's account is
  the one of its environment in the assembly's manifest (``AWS::AccountId`` for a StackSet's member template),
  never the configuration's.
* ``LZ-FORCED-REPLACEMENT`` — a resource with a name of its own whose create-only property changed against the
  previous assembly: CloudFormation must replace it and "You can't perform an update that causes a custom-named
  resource to be replaced" (CloudFormation template reference, "CloudFormation resource custom naming",
  https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-name.html).
* ``LZ-RETAINED-NAME-COLLISION`` — a resource kept on stack deletion (``DeletionPolicy: Retain``,
  https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-attribute-deletionpolicy.html) with a
  name that does not change with the stack (no ``AWS::StackId`` in it): the next deployment after ``cdk destroy``
  fails on the resource the first one left ("already exists").

Create-only and name properties come from the CloudFormation resource provider schemas
(``cfn_schemas.json``, written by ``cfn_schema_refresh.py`` from the schemas cfn-lint ships); this module reads
only that file and the assemblies (standard library), so ``make synth`` can run the replacement check with the
runtime dependencies alone.
"""

from __future__ import annotations

import fnmatch
import functools
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from landing_zone.assembly import Assembly, Stack
from landing_zone.assembly.intrinsics import render, render_document
from landing_zone.plan.grants import CrossAccountGrant
from landing_zone.review.findings import Finding, finding
from landing_zone.review.inventory import PolicyRecord, statements_of
from landing_zone.review.rules import BLOCKING, define
from landing_zone.review.summarize import as_list, plain_arn, principal_entries

__all__ = [
    "SCHEMAS_FILE",
    "AccountMention",
    "ResourceSchema",
    "deployability_findings",
    "foreign_accounts",
    "grants_section",
    "key_admin_findings",
    "replacement_findings",
    "resource_schemas",
    "retained_name_findings",
]

SCHEMAS_FILE = Path(__file__).resolve().parent / "cfn_schemas.json"
CREATE_KEY_DOC = "https://docs.aws.amazon.com/kms/latest/APIReference/API_CreateKey.html"
DEFAULT_KEY_POLICY_DOC = "https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-default.html"
CUSTOM_NAME_DOC = "https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-name.html"

KEY_LOCKOUT = define(
    "LZ-KEY-LOCKOUT",
    BLOCKING,
    "A key policy does not let its own account administer the key, or makes another account its administrator",
    "A KMS key policy has no Allow statement that gives its stack's own account (its root, the account ID, or an "
    "IAM principal of it) kms:PutKeyPolicy (kms:*, kms:Put* ...) without a condition, or one of its Allow "
    "statements gives another account key administration (kms:PutKeyPolicy, ScheduleKeyDeletion, DisableKey, "
    "...). The stack's account is its environment in the assembly's manifest.",
    "KMS refuses CreateKey when the policy would lock the creator out of PutKeyPolicy (BypassPolicyLockoutSafetyCheck, "
    f"{CREATE_KEY_DOC}), so the stack rolls back; and a key another account administers is that account's. Build "
    f"the policy with the stack's own account (markers.ACCOUNT), root first ({DEFAULT_KEY_POLICY_DOC}).",
)

FOREIGN_ACCOUNT = define(
    "LZ-FOREIGN-ACCOUNT",
    BLOCKING,
    "A policy names an account other than its stack's own, and the plan means no such grant",
    "A policy (key, bucket, topic, trust, identity, endpoint, SCP, log resource policy ...) names an account "
    "other than its stack's own in a CloudWatch Logs encryption-context condition, in a log-group, bucket, IAM or "
    "KMS ARN, as an account principal or in an account condition key (aws:SourceAccount, aws:PrincipalAccount, "
    "aws:ResourceAccount, kms:CallerAccount), and landing_zone/plan/grants.py declares no grant for it.",
    "A stack must deploy in its own account: a key whose Logs condition names another account's log groups cannot "
    "encrypt its own, a policy that trusts another account hands it access. Build the document with the stack's "
    "account (markers.ACCOUNT); if the grant is meant, declare it with its reason in landing_zone/plan/grants.py "
    "(the report lists every declared grant).",
)

FORCED_REPLACEMENT = define(
    "LZ-FORCED-REPLACEMENT",
    BLOCKING,
    "A change would make CloudFormation replace a resource that has a name of its own",
    "Against the previous assembly (make synth: the cdk.out being replaced; review --baseline), a resource of the "
    "same stack and logical ID keeps its name property but a create-only property (resource provider schema) "
    "changed, e.g. an application inference profile's ModelSource.",
    f"CloudFormation cannot replace a custom-named resource ({CUSTOM_NAME_DOC}): the deployment fails and rolls "
    "back. Give the resource a new name (for an application: a new application name), or remove it first (deploy "
    "without it, or destroy the stack) and deploy again; make synth ACCEPT_REPLACEMENT=<stack>/<logical id> records "
    "that you will.",
)

RETAINED_NAME_COLLISION = define(
    "LZ-RETAINED-NAME-COLLISION",
    BLOCKING,
    "A resource kept on stack deletion has a fixed name: the next deployment collides with it",
    "A resource with DeletionPolicy Retain (or RetainExceptOnCreate) sets its name property to a value that does "
    "not come from AWS::StackId, so the same name is created again after cdk destroy.",
    "The retained resource outlives its stack, and the next create of that name fails ('already exists'). End the "
    "name with the stack's suffix (landing_zone.core.naming, markers.STACK_SUFFIX), leave the name to "
    "CloudFormation, or delete the resource with its stack when it holds nothing worth keeping.",
)

RETAINING = ("Retain", "RetainExceptOnCreate")
# key administration (AWS KMS Developer Guide, "Default key policy": the key administrators statement)
ADMIN_ACTIONS = (
    "kms:PutKeyPolicy",
    "kms:ScheduleKeyDeletion",
    "kms:CancelKeyDeletion",
    "kms:DisableKey",
    "kms:EnableKey",
    "kms:UpdateKeyDescription",
    "kms:TagResource",
    "kms:UntagResource",
    "kms:DisableKeyRotation",
    "kms:RevokeGrant",
)
# condition keys whose values are account IDs
ACCOUNT_KEYS = frozenset(
    {"aws:sourceaccount", "aws:principalaccount", "aws:resourceaccount", "kms:calleraccount", "s3:resourceaccount"}
)
# the ARNs whose account the rule reads: what a stack's own logs, buckets, principals and keys are named by
ARN_SERVICES = frozenset({"iam", "sts", "logs", "s3", "kms", "events"})
OWN_PLACEHOLDER = "<AWS--AccountId>"  # AWS::AccountId as plain_arn writes it
ACCOUNT_ID = re.compile(r"(?<![0-9])[0-9]{12}(?![0-9])")


# ----------------------------------------------------------------------------------------- schemas


@dataclass(frozen=True)
class ResourceSchema:
    create_only: tuple[str, ...]  # JSON pointers, "/properties/ModelSource"
    names: tuple[str, ...]  # the properties that name the resource itself


@functools.lru_cache(maxsize=1)
def resource_schemas() -> tuple[Mapping[str, Any], Mapping[str, ResourceSchema]]:
    """(the data file's provenance, type -> schema facts) of ``cfn_schemas.json``."""
    data = json.loads(SCHEMAS_FILE.read_text())
    types = {
        t: ResourceSchema(tuple(e["createOnlyProperties"]), tuple(e["nameProperties"]))
        for t, e in data["types"].items()
    }
    return {k: v for k, v in data.items() if k != "types"}, types


_ABSENT = object()


def _at(properties: Any, pointer: str) -> Any:
    """The value at ``/properties/A/B`` (``*`` over a list: every item's), or ``_ABSENT``."""
    value = properties
    parts = pointer.split("/")[2:]
    for i, part in enumerate(parts):
        if part == "*" and isinstance(value, list):
            rest = "/properties/" + "/".join(parts[i + 1 :])
            return [_at(v, rest) if parts[i + 1 :] else v for v in value]
        if not isinstance(value, Mapping) or part not in value:
            return _ABSENT
        value = value[part]
    return value


def _properties(resource: Mapping[str, Any]) -> Mapping[str, Any]:
    props = resource.get("Properties")
    return props if isinstance(props, Mapping) else {}


def _named(resource: Mapping[str, Any], schema: ResourceSchema) -> dict[str, Any]:
    """The name properties the resource sets (pointer -> value)."""
    props = _properties(resource)
    return {p: v for p in schema.names if (v := _at(props, p)) is not _ABSENT and v not in (None, "")}


def _short(pointer: str) -> str:
    return pointer.removeprefix("/properties/").replace("/", ".")


# ----------------------------------------------------------------------------------------- (d) retained names


def retained_name_findings(assembly: Assembly) -> list[Finding]:
    """LZ-RETAINED-NAME-COLLISION for every retained resource whose name does not change with its stack."""
    _, schemas = resource_schemas()
    out = []
    for t in assembly.templates:
        for logical_id, res in sorted(t.resource_map.items()):
            schema = schemas.get(str(res.get("Type")))
            if schema is None or res.get("DeletionPolicy") not in RETAINING:
                continue
            for pointer, value in _named(res, schema).items():
                if "AWS::StackId" in json.dumps(value):
                    continue
                out.append(
                    finding(
                        RETAINED_NAME_COLLISION,
                        f"{t.name}/{logical_id} ({res.get('Type')}) is kept on stack deletion "
                        f"(DeletionPolicy {res.get('DeletionPolicy')}) and named {render(value)!r} "
                        f"({_short(pointer)}): deployed again after cdk destroy, its create fails on the one left "
                        "behind. End the name with the stack's suffix (naming, markers.STACK_SUFFIX), or leave it "
                        "to CloudFormation",
                        template=t.file,
                        stack=t.name,
                        logical_id=logical_id,
                        element=f"{_short(pointer)} {render(value)}",
                    )
                )
    return out


# ----------------------------------------------------------------------------------------- (c) replacements


def _changed(old: Mapping[str, Any], new: Mapping[str, Any], schema: ResourceSchema) -> list[tuple[str, Any, Any]]:
    """Create-only properties (not the name) that differ, with their old and new values."""
    out = []
    for pointer in schema.create_only:
        if pointer in schema.names:
            continue
        before, after = _at(_properties(old), pointer), _at(_properties(new), pointer)
        if before != after:
            out.append((pointer, before, after))
    return out


def _shown(value: Any) -> str:
    if value is _ABSENT:
        return "(absent)"
    text = value if isinstance(value, str) else json.dumps(render_document(value), sort_keys=True)
    return text if len(text) <= 240 else text[:237] + "..."


def _replacement(t: Stack, logical_id: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Finding | None:
    _, schemas = resource_schemas()
    schema = schemas.get(str(new.get("Type")))
    if schema is None or old.get("Type") != new.get("Type"):
        return None
    names = _named(new, schema)
    if not names or names != _named(old, schema):  # no name of its own, or renamed: a replacement can proceed
        return None
    changed = _changed(old, new, schema)
    if not changed:
        return None
    what = "; ".join(f"{_short(p)} {_shown(a)} -> {_shown(b)}" for p, a, b in changed)
    name = ", ".join(f"{_short(p)} {render(v)!r}" for p, v in names.items())
    return finding(
        FORCED_REPLACEMENT,
        f"{t.name}/{logical_id} ({new.get('Type')}, {name}): {what}. A create-only property changed, so "
        "CloudFormation must replace the resource, and it cannot replace one with a name of its own: the deployment "
        "would fail. Way out: give it a new name (for an application: a new application name), or remove it first "
        f"(deploy without it, or destroy {t.name}) and deploy again",
        template=t.file,
        stack=t.name,
        logical_id=logical_id,
        element=", ".join(_short(p) for p, _, _ in changed),
    )


def replacement_findings(old: Assembly, new: Assembly) -> list[Finding]:
    """LZ-FORCED-REPLACEMENT for every resource of ``new`` that a deployment over ``old`` would have to replace
    although it keeps its own name (same stack name and logical ID, same type)."""
    before = {t.name: t for t in old.templates}
    out = []
    for t in new.templates:
        previous = before.get(t.name)
        if previous is None:
            continue
        for logical_id, res in sorted(t.resource_map.items()):
            old_res = previous.resource_map.get(logical_id)
            if isinstance(old_res, Mapping):
                hit = _replacement(t, logical_id, old_res, res)
                out += [hit] if hit else []
    return out


# ----------------------------------------------------------------------------------------- accounts in policies


@dataclass(frozen=True)
class AccountMention:
    """One account a statement names: where (element), what (name kind: role, log-group, account ...)."""

    record: PolicyRecord
    index: int
    sid: str
    element: str
    kind: str
    account: str
    text: str


def _own(stack: Stack) -> set[str]:
    return {OWN_PLACEHOLDER} | ({stack.account} if stack.account else set())


def _arn_mention(text: str) -> tuple[str, str] | None:
    """(name kind, account) of an ARN of the services the rule reads, or None."""
    parts = plain_arn(text).split(":", 5)
    if len(parts) != 6 or parts[0] != "arn" or parts[2] not in ARN_SERVICES:
        return None
    service, account, resource = parts[2], parts[4], parts[5]
    if service == "s3":  # bucket ARNs carry no account field: an account ID inside the bucket's name
        found = ACCOUNT_ID.search(resource.split("/", 1)[0])
        return ("bucket", found.group(0)) if found else None
    if service in ("iam", "sts"):
        kind = resource.split("/", 1)[0]
        kind = {"assumed-role": "role"}.get(kind, kind)
        return (kind if kind in ("root", "role", "user", "policy") else "iam"), account
    if service == "logs":
        return "log-group", account
    if service == "events":
        return "event-bus", account
    return ("alias" if resource.startswith("alias/") else "key"), account


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """(path, string) of every string in an element (``Condition ArnLike kms:EncryptionContext:aws:logs:arn``)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _strings(v, f"{path} {k}")
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, path)


def _mentions(stmt: Mapping[str, Any]) -> Iterator[tuple[str, str, str, str]]:
    """(element, kind, account, text) of every account the statement names."""
    for element in ("Principal", "NotPrincipal", "Resource", "NotResource", "Condition"):
        for path, text in _strings(stmt.get(element), element):
            key = path.rsplit(" ", 1)[-1].lower()
            arn = _arn_mention(text)
            if arn is not None:
                yield path, arn[0], arn[1], text
            elif ACCOUNT_ID.fullmatch(text) and (key in ACCOUNT_KEYS or element in ("Principal", "NotPrincipal")):
                yield path, "account", text, text


def foreign_accounts(records: Iterable[PolicyRecord], assembly: Assembly) -> list[AccountMention]:
    """Every literal account a policy names that is not its stack's own (from the stack's environment)."""
    stacks = {(t.file, t.name): t for t in assembly.templates}
    out = []
    for record in records:
        stack = stacks.get((record.template, record.stack))
        own = _own(stack) if stack else {OWN_PLACEHOLDER}
        for i, stmt in enumerate(statements_of(record.document)):
            for element, kind, account, text in _mentions(stmt):
                if account.isdigit() and account not in own:
                    out.append(AccountMention(record, i, str(stmt.get("Sid", "")), element, kind, account, text))
    return out


def _admitted(mention: AccountMention, grants: Sequence[CrossAccountGrant]) -> CrossAccountGrant | None:
    r = mention.record
    return next((g for g in grants if g.admits(r.stack, r.kind, mention.kind, mention.account)), None)


def _foreign_finding(m: AccountMention) -> Finding:
    r = m.record
    return finding(
        FOREIGN_ACCOUNT,
        f"{r.kind} policy {r.name!r} ({r.stack}/{r.logical_id}), statement {m.sid or '#' + str(m.index)}, names "
        f"account {m.account} ({m.kind} in {m.element}: {m.text}); its stack deploys to another account and "
        "landing_zone/plan/grants.py declares no such grant",
        template=r.template,
        stack=r.stack,
        logical_id=r.logical_id,
        policy_id=r.id,
        statement_index=m.index,
        sid=m.sid,
        element=f"{m.element} {m.text}",
    )


def grants_section(
    records: Iterable[PolicyRecord], assembly: Assembly, grants: Sequence[CrossAccountGrant]
) -> list[dict[str, Any]]:
    """Each declared cross-account grant with its reason and the statements that use it (the report lists them)."""
    used: dict[str, list[str]] = {g.id: [] for g in grants}
    for m in foreign_accounts(records, assembly):
        grant = _admitted(m, grants)
        if grant is not None:
            where = f"{m.record.name} ({m.record.stack}), statement {m.sid or '#' + str(m.index)}: {m.kind} {m.account}"
            if where not in used[grant.id]:
                used[grant.id].append(where)
    return [{**g.as_dict(), "used_by": used[g.id]} for g in grants]


# ----------------------------------------------------------------------------------------- (a) key administration


def _principal_accounts(stmt: Mapping[str, Any]) -> list[str]:
    """The accounts an Allow statement's AWS principals belong to ('*' for any principal)."""
    out = []
    for kind, value in principal_entries(stmt.get("Principal")):
        if value == "*":
            out.append("*")
        elif kind == "AWS":
            plain = plain_arn(value)
            parts = plain.split(":")
            out.append(parts[4] if plain.startswith("arn:") and len(parts) > 5 else plain)
    return out


def _covers(stmt: Mapping[str, Any], action: str) -> bool:
    if "NotAction" in stmt:
        return not any(fnmatch.fnmatchcase(action.lower(), p.lower()) for p in as_list(stmt["NotAction"]))
    return any(fnmatch.fnmatchcase(action.lower(), p.lower()) for p in as_list(stmt.get("Action")))


def _key_problems(record: PolicyRecord, own: set[str]) -> list[str]:
    allows = [s for s in statements_of(record.document) if s.get("Effect") == "Allow"]
    administers = any(
        set(_principal_accounts(s)) & own and _covers(s, "kms:PutKeyPolicy") and not s.get("Condition") for s in allows
    )
    problems = [] if administers else ["no statement lets its own account administer it (kms:PutKeyPolicy)"]
    for s in allows:
        others = sorted({a for a in _principal_accounts(s) if a.isdigit() and a not in own})
        admin = [a for a in ADMIN_ACTIONS if _covers(s, a)]
        if others and admin:
            problems.append(
                f"statement {s.get('Sid') or '?'} makes account(s) {', '.join(others)} its administrator "
                f"({', '.join(admin[:3])}{' ...' if len(admin) > 3 else ''})"
            )
    return problems


def key_admin_findings(records: Iterable[PolicyRecord], assembly: Assembly) -> list[Finding]:
    """LZ-KEY-LOCKOUT for every key policy its own account cannot administer, or another account administers."""
    stacks = {(t.file, t.name): t for t in assembly.templates}
    out = []
    for record in records:
        if record.kind != "key":
            continue
        stack = stacks.get((record.template, record.stack))
        own = _own(stack) if stack else {OWN_PLACEHOLDER}
        for problem in _key_problems(record, own):
            shown = ", ".join(sorted(a for a in own if a != OWN_PLACEHOLDER)) or "AWS::AccountId"
            why = (
                "KMS refuses CreateKey when the creator could not PutKeyPolicy afterwards (BypassPolicyLockoutSafetyCheck)"
                if problem.startswith("no statement")
                else "a key of this stack's account would be another account's to administer"
            )
            out.append(
                finding(
                    KEY_LOCKOUT,
                    f"{record.title or record.name} ({record.stack}/{record.logical_id}, account {shown}): "
                    f"{problem}; {why}",
                    template=record.template,
                    stack=record.stack,
                    logical_id=record.logical_id,
                    policy_id=record.id,
                    element=problem,
                )
            )
    return out


# ----------------------------------------------------------------------------------------- all of it


def deployability_findings(
    records: Sequence[PolicyRecord], assembly: Assembly, grants: Sequence[CrossAccountGrant]
) -> list[Finding]:
    """LZ-KEY-LOCKOUT, LZ-FOREIGN-ACCOUNT (outside the declared grants) and LZ-RETAINED-NAME-COLLISION of one
    assembly (LZ-FORCED-REPLACEMENT needs the previous one: :func:`replacement_findings`)."""
    foreign = [_foreign_finding(m) for m in foreign_accounts(records, assembly) if _admitted(m, grants) is None]
    return [*key_admin_findings(records, assembly), *foreign, *retained_name_findings(assembly)]
