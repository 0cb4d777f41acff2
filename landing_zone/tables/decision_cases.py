"""The standard request cases: requests with the decision the guardrails must give, for any configuration.

One table, two users: ``tests/cdk/test_scp_semantics.py`` (``CASES``, the table for examples/eu-sovereign.yaml)
and the review's decision matrix (``cases_for(plan)``, the same table with the account, name, models and
Regions of another configuration substituted).

The rows are data, ``landing_zone/tables/cases/*.yaml`` (schema: ``tables:CaseRow``, the same
request type as the red-team rows; docs/DEVELOPMENT.md).  Each row states a request — action, resource ARN, Region
(``aws:RequestedRegion``), principal (``aws:PrincipalARN``) and further condition keys — and the decision AWS
documents for it twice:

* ``scp``: evaluated against FullAWSAccess + the guardrail SCPs (organization mode), and
* ``boundary``: evaluated against the invoker roles' permissions boundary (single-account mode: an inference
  ceiling minus the same denies). ``None`` = not applicable: the boundary is only on invoker roles, so rows
  about the deployment, StackSets or automation roles are not evaluated against it.

A row may depend on a guardrail option (``guard``): the decision when the option's deny is active, and
``*_off`` when it is not (e.g. the global-profile rows are allowed with ``allow_global_inference: true``).
Rows that need something the configuration does not have (a compliant geographic profile, a compliant Mantle
route, a rejected geographic profile) are left out for it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from landing_zone.core.routing import PathKind
from landing_zone.plan import Plan
from landing_zone.tables import CaseRow, load_case_rows

__all__ = [
    "ACC",
    "ALLOW",
    "APP_ROLE",
    "AUTOMATION",
    "CASES",
    "DENY",
    "DEPLOYER",
    "EU_SOVEREIGN",
    "IMPLICIT",
    "KEY",
    "M",
    "OTHER",
    "STACKSETS",
    "TAGGED",
    "Case",
    "CaseParams",
    "Row",
    "case_rows",
    "build_cases",
    "cases_for",
    "fm",
    "mantle",
    "params_for",
]

ALLOW, DENY, IMPLICIT = "allow", "explicit_deny", "implicit_deny"
OTHER_MODEL = "anthropic.claude-opus-4-9"  # a model no configuration of this landing zone allows
UNLISTED_MANTLE_MODEL = "openai.gpt-oss-120b"

# Guards: the guardrail option a row depends on. The row's `scp`/`boundary` hold when the deny is active.
GUARD_GLOBAL = "global-profile-denied"  # allow_global_inference is false (or the global route is not compliant)
GUARD_API_KEYS = "deny_api_key_creation"
GUARD_BEARER = "deny_bearer_token_calls"
GUARD_TAMPER = "tamper_protection"
GUARD_REGION_ALL = "region_deny_all_services"  # this one is *inactive* by default
GUARD_TIERS = "priority-tier-denied"  # 'priority' is not in policy_guardrails.allowed_service_tiers (the default)
GUARD_AGENTCORE = "agentcore_controls"
GUARD_RETENTION = "data_retention.mode"  # set: inactive by default (not governed)


Row = CaseRow  # one row of the table (tables)


@dataclass(frozen=True)
class Case:
    case: str
    action: str
    resource: str
    region: str
    principal: str
    context: Mapping[str, str]
    expected: str  # organization mode (SCPs + FullAWSAccess)
    expected_boundary: str | None  # single-account mode (invoker permissions boundary); None: not applicable

    def as_tuple(self) -> tuple[str, str, str, str, str, dict[str, str], str]:
        return (self.case, self.action, self.resource, self.region, self.principal, dict(self.context), self.expected)

    def request_context(self) -> dict[str, Any]:
        return {"aws:RequestedRegion": self.region, **principal_context(self.principal), **self.context}


def principal_context(principal: str) -> dict[str, str]:
    """``aws:PrincipalARN`` and ``aws:PrincipalAccount`` (AWS sets both on every request; the perimeter SCP reads the
    account) of a principal ARN ``arn:aws:iam::ACCOUNT:...``."""
    return {"aws:PrincipalARN": principal, "aws:PrincipalAccount": principal.split(":")[4]}


@dataclass(frozen=True)
class CaseParams:
    """What the table needs from a configuration."""

    acc: str  # the deployment account
    name: str  # landing-zone name (tag value, role/stack prefixes)
    model: str  # the first allowed model
    home: str
    second: str  # another compliant Region (a source of the geographic profile when there is one)
    dest1: str  # compliant destinations of the geographic profile
    dest2: str
    dest2_note: str  # "opt-in, compliant" or "compliant"
    outside: str  # a non-compliant Region
    outside_dest: str  # non-compliant Regions for geographic legs, Converse and batch
    outside_dest2: str
    outside_dest2_city: str
    outside_converse: str
    outside_batch: str
    geo_profile_id: str | None  # compliant geographic profile of `model` callable from home, e.g. eu.moonshotai...
    rejected_profile_id: str | None  # a rejected geographic profile of `model`, e.g. us.moonshotai...
    rejected_source: str | None  # a source Region of it
    mantle_model: str | None  # a model compliant on Mantle
    deployer: str
    stacksets: str | None
    automation: str
    guards: frozenset[str] = frozenset(
        {GUARD_GLOBAL, GUARD_API_KEYS, GUARD_BEARER, GUARD_TAMPER, GUARD_TIERS, GUARD_AGENTCORE}
    )
    retention_mode: str | None = None  # data_retention.mode; None: not governed
    api_key_user: str | None = None  # the first of api_key_principal_arns (api_keys: short-term-only), made concrete

    def values(self) -> dict[str, str]:
        geo = (self.geo_profile_id or "none.none").split(".", 1)[0]
        rejected = (self.rejected_profile_id or "none.none").split(".", 1)[0]
        arn = f"arn:aws:bedrock:{{region}}:{self.acc}:inference-profile/{{profile}}"
        return {
            "acc": self.acc,
            "name": self.name,
            "M": self.model,
            "OTHER": OTHER_MODEL,
            "home": self.home,
            "second": self.second,
            "dest1": self.dest1,
            "dest2": self.dest2,
            "dest2_note": self.dest2_note,
            "outside": self.outside,
            "outside_dest": self.outside_dest,
            "outside_dest2": self.outside_dest2,
            "outside_dest2_city": self.outside_dest2_city,
            "outside_converse": self.outside_converse,
            "outside_batch": self.outside_batch,
            "geo": geo,
            "geo_profile": arn.format(region=self.home, profile=self.geo_profile_id),
            "geo_profile_second": arn.format(region=self.second, profile=self.geo_profile_id),
            "rgeo": rejected,
            "rejected_source": self.rejected_source or "",
            "rejected_profile": arn.format(region=self.rejected_source, profile=self.rejected_profile_id),
            "global_profile": arn.format(region=self.home, profile=f"global.{self.model}"),
            "app_profile": f"arn:aws:bedrock:{self.home}:{self.acc}:application-inference-profile/a1b2c3d4e5f6",
            "app_role": f"arn:aws:iam::{self.acc}:role/app-invoker",
            "deployer": self.deployer,
            "stacksets": self.stacksets or "",
            "automation": self.automation,
            "mantle_model": self.mantle_model or "",
            "key": f"arn:aws:kms:{self.home}:{self.acc}:key/1234abcd-12ab-34cd-56ef-1234567890ab",
            # the governed data retention mode (a placeholder when none is configured) and another one
            "retention_mode": self.retention_mode or "none",
            "other_retention": "provider_data_share" if self.retention_mode != "provider_data_share" else "default",
            "api_key_user": self.api_key_user or "",
        }


# The cases are data: landing_zone/tables/cases/*.yaml, validated by tables.CaseRow (docs/DEVELOPMENT.md).


@functools.cache
def case_rows() -> tuple[CaseRow, ...]:
    """The decision cases, read on first use (the CLI's commands that never evaluate them do not pay for it)."""
    return load_case_rows()


def _fill(text: str, values: Mapping[str, str]) -> str:
    return text.format(**values)


def build_cases(params: CaseParams) -> tuple[Case, ...]:
    """The table with ``params`` substituted; rows whose needs are not met are left out."""
    values = params.values()
    available = {
        "geo": params.geo_profile_id is not None,
        "rejected_geo": params.rejected_profile_id is not None and params.rejected_source is not None,
        "mantle": params.mantle_model is not None,
        "stacksets": params.stacksets is not None,
        "second": params.second != params.home,
        "short_term_keys": params.api_key_user is not None,
    }
    cases = []
    for row in case_rows():
        if not all(available[n] for n in row.needs):
            continue
        active = row.guard is None or row.guard in params.guards
        cases.append(
            Case(
                case=_fill(row.case, values),
                action=row.action,
                resource=_fill(row.resource, values),
                region=_fill(row.region, values),
                principal=_fill(row.principal, values),
                context={k: _fill(v, values) for k, v in row.context.items()},
                expected=row.scp if active else row.scp_off,
                expected_boundary=row.boundary if active else row.boundary_off,
            )
        )
    return tuple(cases)


# ----------------------------------------------------------------------------------------- parameters of a plan

_PREFERRED_OUTSIDE = {
    "outside_dest": "il-central-1",
    "outside_dest2": "eu-west-2",
    "outside_converse": "ap-northeast-1",
    "outside_batch": "us-west-2",
}
_STACKSETS_SUFFIX = "0123456789abcdef"


def _geo_routes(plan: Plan, model_id: str, home: str) -> tuple[Any, Any, Any]:
    """The model's routes, its compliant geographic profile sourced in ``home`` and a rejected one (or None)."""
    routes = next(mr.routes for mr in plan.routing.models if mr.model.id == model_id)
    ordered = sorted(routes, key=lambda r: r.invoke_id)
    geo = next(
        (r for r in ordered if r.kind is PathKind.GEOGRAPHIC_PROFILE and r.compliant and home in r.source_regions),
        None,
    )
    rejected = next(
        (r for r in ordered if r.kind is PathKind.GEOGRAPHIC_PROFILE and not r.compliant and r.source_regions), None
    )
    return routes, geo, rejected


def _compliant_picks(plan: Plan, geo: Any) -> tuple[str, str, str, str]:
    """``second`` (a compliant source Region), ``dest1``/``dest2`` (compliant destinations) and dest2's note."""
    home, compliant = plan.config.home_region, list(plan.config.compliant_regions)
    sources = set(geo.source_regions) if geo else set(compliant)
    destinations = set(geo.destination_regions) if geo else set(compliant)
    second = next((r for r in compliant if r != home and r in sources), next((r for r in compliant if r != home), home))
    dest1 = next((r for r in compliant if r not in (home, second) and r in destinations), second)
    dest2 = next((r for r in reversed(compliant) if r not in (home, second, dest1) and r in destinations), dest1)
    region_info = plan.catalog.regions
    note = "opt-in, compliant" if dest2 in region_info and region_info[dest2].opt_in else "compliant"
    return second, dest1, dest2, note


def _outside_picks(plan: Plan, rejected_source: str | None) -> tuple[str, dict[str, str], str]:
    """A non-compliant Region (the rejected profile's source first), one per ``_PREFERRED_OUTSIDE`` slot, and the
    city of ``outside_dest2``."""
    compliant, region_info = plan.config.compliant_regions, plan.catalog.regions
    outside_regions = [r for r in region_info if r not in compliant]
    outside = rejected_source if rejected_source and rejected_source not in compliant else outside_regions[0]
    used = {outside}
    picks: dict[str, str] = {}
    for slot, preferred in _PREFERRED_OUTSIDE.items():
        ok = preferred in outside_regions and preferred not in used
        choice = preferred if ok else next(r for r in outside_regions if r not in used)
        picks[slot] = choice
        used.add(choice)
    dest2 = picks["outside_dest2"]
    city_name = region_info[dest2].name if dest2 in region_info else dest2
    city = city_name[city_name.find("(") + 1 : city_name.rfind(")")] if "(" in city_name else city_name
    return outside, picks, city


def _mantle_model(plan: Plan, model_id: str) -> str | None:
    mantle_routes = [r for mr in plan.routing.models for r in mr.compliant_routes if r.kind is PathKind.MANTLE]
    own_mantle = [r for r in mantle_routes if r.model_id == model_id]
    return (own_mantle or mantle_routes)[0].invoke_id if (own_mantle or mantle_routes) else None


def _guards(plan: Plan, routes: Any) -> frozenset[str]:
    """The guard options whose deny is active in the plan's configuration."""
    config = plan.config
    g = config.policy_guardrails
    global_ok = any(r.kind is PathKind.GLOBAL_PROFILE and r.compliant for r in routes)
    guards = {
        GUARD_GLOBAL: not global_ok,
        GUARD_API_KEYS: g.deny_api_key_creation or g.api_keys == "short-term-only",
        # short-term-only denies a bearer call without a token type too (DenyLongTermBearerTokenCalls)
        GUARD_BEARER: g.deny_bearer_token_calls or g.api_keys == "short-term-only",
        GUARD_TAMPER: g.tamper_protection,
        GUARD_REGION_ALL: g.region_deny_all_services,
        GUARD_TIERS: "priority" not in g.allowed_service_tiers,
        GUARD_AGENTCORE: g.agentcore_controls,
        GUARD_RETENTION: config.data_retention.mode is not None,
    }
    return frozenset(k for k, on in guards.items() if on)


def params_for(plan: Plan) -> CaseParams:
    """The table's parameters for a validated plan (deterministic: config order, then catalog order)."""
    config = plan.config
    acc, home = config.deployment_account, config.home_region
    model = plan.models[0]
    routes, geo, rejected = _geo_routes(plan, model.id, home)
    second, dest1, dest2, note = _compliant_picks(plan, geo)
    rejected_source = sorted(rejected.source_regions)[0] if rejected else None
    outside, picks, city = _outside_picks(plan, rejected_source)
    g = config.policy_guardrails
    q = g.cdk_bootstrap_qualifier
    stacksets = (
        f"arn:aws:iam::{acc}:role/stacksets-exec-{_STACKSETS_SUFFIX}" if config.member_baseline.enabled else None
    )
    # Who deploys into `acc`: the StackSets execution role (member baseline), else the CDK execution role.
    deployer = stacksets or f"arn:aws:iam::{acc}:role/cdk-{q}-cfn-exec-role-{acc}-{home}"
    api_key_user = (
        g.api_key_principal_arns[0].replace("*", "x").replace("?", "x")
        if g.api_keys == "short-term-only" and g.api_key_principal_arns
        else None
    )
    return CaseParams(
        acc=acc,
        name=config.name,
        model=model.id,
        home=home,
        second=second,
        dest1=dest1,
        dest2=dest2,
        dest2_note=note,
        outside=outside,
        outside_dest=picks["outside_dest"],
        outside_dest2=picks["outside_dest2"],
        outside_dest2_city=city,
        outside_converse=picks["outside_converse"],
        outside_batch=picks["outside_batch"],
        geo_profile_id=geo.invoke_id if geo else None,
        rejected_profile_id=rejected.invoke_id if rejected else None,
        rejected_source=rejected_source,
        mantle_model=_mantle_model(plan, model.id),
        deployer=deployer,
        stacksets=stacksets,
        automation=f"arn:aws:iam::{acc}:role/{config.automation_role_prefix}invocation-logging",
        guards=_guards(plan, routes),
        retention_mode=config.data_retention.mode,
        api_key_user=api_key_user,
    )


def cases_for(plan: Plan) -> tuple[Case, ...]:
    return build_cases(params_for(plan))


# ----------------------------------------------------------------------------------------- examples/eu-sovereign.yaml

M = "moonshotai.kimi-k3.1-pro"
OTHER = OTHER_MODEL
ACC = "222222222222"
EU_SOVEREIGN = CaseParams(
    acc=ACC,
    name="kimi-eu",
    model=M,
    home="eu-central-1",
    second="eu-west-1",
    dest1="eu-west-3",
    dest2="eu-south-2",
    dest2_note="opt-in, compliant",
    outside="us-east-1",
    outside_dest="il-central-1",
    outside_dest2="eu-west-2",
    outside_dest2_city="London",
    outside_converse="ap-northeast-1",
    outside_batch="us-west-2",
    geo_profile_id=f"eu.{M}",
    rejected_profile_id=f"us.{M}",
    rejected_source="us-east-1",
    mantle_model=M,
    deployer=f"arn:aws:iam::{ACC}:role/cdk-kimilz-cfn-exec-role-{ACC}-eu-central-1",
    stacksets=None,
    automation=f"arn:aws:iam::{ACC}:role/kimi-eu-automation-invocation-logging",
    guards=frozenset(
        {GUARD_GLOBAL, GUARD_API_KEYS, GUARD_BEARER, GUARD_TAMPER, GUARD_TIERS, GUARD_AGENTCORE, GUARD_RETENTION}
    ),
    retention_mode="none",  # data_retention: {mode: none} (zero data retention)
)
_EU = EU_SOVEREIGN.values()
APP_ROLE = _EU["app_role"]
DEPLOYER = EU_SOVEREIGN.deployer
AUTOMATION = EU_SOVEREIGN.automation
STACKSETS = EU_SOVEREIGN.stacksets
TAGGED = {"aws:ResourceTag/landing-zone": EU_SOVEREIGN.name}
KEY = _EU["key"]

# (case, action, resource, region, principal, extra condition keys, expected decision) for eu-sovereign
CASES = [c.as_tuple() for c in build_cases(EU_SOVEREIGN)]


def fm(region: str, model: str = M) -> str:
    return f"arn:aws:bedrock:{region}::foundation-model/{model}"


def mantle(region: str, account: str = ACC) -> str:
    return f"arn:aws:bedrock-mantle:{region}:{account}:project/default"
