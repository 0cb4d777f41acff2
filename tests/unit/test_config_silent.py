"""Configurations accepted in silence (issue 35, deliverable 8): one rule per class, each tested with several inputs
(the one the outside look found among them) and the legitimate configuration next to it.

Every refusal is one ConfigError naming the key, the value received and what is allowed; a legal but surprising
input is a warning on the plan."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import Field, ValidationError

from landing_zone.core.config import LandingZoneConfig, PrincipalArn, problems_from_validation_error
from landing_zone.core.config.schema import _Strict
from landing_zone.errors import ConfigError
from tests.conftest import ROOT

SINGLE = {"organization": None}
EU = {"home_region": "eu-central-1", "compliant_regions": ["eu-central-1", "eu-west-1", "eu-west-3", "eu-north-1"]}
# Kimi K3 has no Mantle path: its us. profile sources and destinations (models.yaml)
K3_US = {
    "models": ["kimi-k3"],
    "compliant_regions": ["us-east-1", "us-east-2", "us-west-1", "us-west-2", "ca-central-1"],
}


def refused(plan_for, *args: Any, **overrides: Any) -> dict[str, str]:
    with pytest.raises(ConfigError) as info:
        plan_for(*args, **overrides)
    assert "Traceback" not in str(info.value)
    return {p.path: str(p) for p in info.value.problems}


def app(name: str = "chat", **fields: Any) -> dict[str, Any]:
    return {"name": name, "cost_center": "cc-1", **fields}


# -- features configured where they cannot act ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("overrides", "path", "fragment"),
    [
        # the outside look's input: projects asked for in a home Region without the CloudFormation type
        (
            {**EU, "access": {"mantle_projects": True}},
            "access.mantle_projects",
            "CloudFormation has no AWS::BedrockMantle::Project in home_region eu-central-1",
        ),
        # ... and where no application's model is on Mantle (Kimi K3 is bedrock-runtime only)
        (
            {**K3_US, "access": {"mantle_projects": True}},
            "access.mantle_projects",
            "no application's model (moonshotai.kimi-k3) has a compliant Mantle path from home_region us-east-1",
        ),
        # the outside look's second input: projects without the Mantle endpoint
        (
            {"access": {"mantle_projects": True}, "network": {"endpoints": ["bedrock-runtime", "bedrock"]}},
            "network.endpoints",
            "has no bedrock-mantle endpoint, and these applications have a path through it: workload (mantle: its "
            "Mantle Project and spend alarm would be created for it)",
        ),
        # a Mantle-only application without the Mantle endpoint
        (
            {**EU, "network": {"endpoints": ["bedrock-runtime"]}},
            "network.endpoints",
            "has no bedrock-mantle endpoint, and these applications have a path through it: workload (mantle: Mantle "
            "only)",
        ),
        # batch roles without the control-plane endpoint
        (
            {
                "applications": [app(batch_role_arns=["arn:aws:iam::111111111111:role/batch"])],
                "network": {"endpoints": ["bedrock-runtime", "bedrock-mantle"]},
            },
            "network.endpoints",
            "has no bedrock endpoint, and these applications have a path through it: chat (batch: batch_role_arns)",
        ),
        # a runtime application without the runtime endpoint
        (
            {"network": {"endpoints": ["bedrock-mantle"]}},
            "network.endpoints",
            "has no bedrock-runtime endpoint, and these applications have a path through it: workload (runtime)",
        ),
    ],
    ids=[
        "projects-no-cfn-type",
        "projects-no-mantle-model",
        "projects-no-endpoint",
        "mantle-only-no-endpoint",
        "batch-no-endpoint",
        "runtime-no-endpoint",
    ],
)
def test_a_feature_is_refused_where_it_cannot_act(plan_for, overrides, path, fragment):
    problems = refused(plan_for, **SINGLE, **overrides)
    assert fragment in problems[path], problems


def test_the_neighbours_act(plan_for):
    """The same features where they have what they need; without the endpoint requirement a path needs none."""
    with_projects = plan_for(**SINGLE, access={"mantle_projects": True})
    assert all(a.mantle_project for a in with_projects.applications)
    assert (
        plan_for(
            **SINGLE,
            access={"mantle_projects": True, "require_vpc_endpoint": False},
            network={"endpoints": ["bedrock-runtime"]},
        )
        .applications[0]
        .mantle_project
    )
    plan_for(**SINGLE, **EU)  # Mantle only, with the endpoint
    plan_for(**SINGLE, **K3_US)  # no Mantle and no projects asked for
    plan_for(**SINGLE, network={"endpoints": ["bedrock-runtime"]})  # a runtime application needs only its endpoint


# -- budgets that contradict each other -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("overrides", "path", "fragment"),
    [
        (
            {
                "cost": {"per_application_budgets": True, "monthly_budget_usd": 1000},
                "applications": [app(monthly_budget_usd=1500), app("search")],
            },
            "applications[0].monthly_budget_usd",
            "got 1500.0; above the landing zone's monthly budget of 1,000.00 USD (cost.monthly_budget_usd)",
        ),
        (
            {"applications": [app(monthly_budget_usd=100)]},
            "applications[0].monthly_budget_usd",
            "got 100.0; set, but cost.per_application_budgets is false, so it has no effect",
        ),
        (
            {"accounts": [{"id": "210987654321", "name": "prod", "monthly_budget_usd": 100}]},
            "accounts[0].monthly_budget_usd",
            "set, but member_baseline.enabled is false, so it has no effect",
        ),
        (
            {"accounts": [{"id": "210987654321", "name": "prod", "alert_emails": ["ops@corp.test"]}]},
            "accounts[0].alert_emails",
            "set, but member_baseline.enabled is false, so it has no effect (the addresses are parameters",
        ),
    ],
    ids=["above-landing-zone", "per-application-off", "account-budget-no-baseline", "account-alerts-no-baseline"],
)
def test_budgets_that_cannot_act_are_refused(plan_for, overrides, path, fragment):
    problems = refused(plan_for, **SINGLE, **overrides)
    assert fragment in problems[path], problems


def test_application_budgets_summing_past_the_landing_zones_are_a_warning(plan_for):
    apps = [app(monthly_budget_usd=600), app("search", monthly_budget_usd=600)]
    over = plan_for(**SINGLE, cost={"per_application_budgets": True, "monthly_budget_usd": 1000}, applications=apps)
    (warning,) = [w for w in over.warnings if w.startswith("the application budgets sum")]
    assert warning.startswith(
        "the application budgets sum to 1,200.00 USD (chat 600.00, search 600.00), above the landing zone's monthly "
        "budget of 1,000.00 USD (cost.monthly_budget_usd)"
    )
    within = plan_for(**SINGLE, cost={"per_application_budgets": True, "monthly_budget_usd": 1200}, applications=apps)
    assert not [w for w in within.warnings if w.startswith("the application budgets sum")]


def test_settings_of_a_feature_that_is_off_are_a_warning(plan_for):
    plan = plan_for(**SINGLE, self_hosting={"enabled": False, "capacity": "on-demand"})
    assert "self_hosting.capacity is set, but self_hosting.enabled is false, so it has no effect" in "\n".join(
        plan.warnings
    )
    assert not [w for w in plan_for(**SINGLE).warnings if "so it has no effect" in w]


# -- lists -----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("overrides", "path", "fragment"),
    [
        (
            {"inference_source_regions": ["us-east-1", "us-east-1"]},
            "inference_source_regions[1]",
            "repeats inference_source_regions[0]",
        ),
        (
            {"compliant_regions": ["us-east-1", "us-west-2", "us-east-1"]},
            "compliant_regions[2]",
            "repeats compliant_regions[0]",
        ),
        (
            {"organization": {"management_account_id": "999999999999", "target_ids": ["ou-root-11111111"] * 2}},
            "organization.target_ids[1]",
            "repeats target_ids[0]",
        ),
        (
            {
                "content_guardrail": {
                    "enabled": True,
                    "organization_policy": True,
                    "canary_target_ids": ["ou-root-11111111", "ou-root-11111111"],
                }
            },
            "content_guardrail.canary_target_ids[1]",
            "repeats canary_target_ids[0]",
        ),
        (
            {"network": {"endpoints": ["bedrock-runtime", "bedrock", "bedrock-runtime"]}},
            "network.endpoints[2]",
            "repeats endpoints[0]",
        ),
        (
            {"cost": {"alert_emails": ["FinOps@Corp.test", "FinOps@corp.TEST"]}},
            "cost.alert_emails[1]",
            "the domain of an e-mail address is not case-sensitive",
        ),
        ({"cost": {"notify_actual_percent": [80, 80]}}, "cost.notify_actual_percent[1]", "repeats"),
        (
            {"applications": [app(sso_permission_sets=["Dev", "Dev"])]},
            "applications[0].sso_permission_sets[1]",
            "repeats sso_permission_sets[0]",
        ),
        (
            {
                "policy_guardrails": {
                    "cdk_bootstrap_qualifier": "kimilz",
                    "deployment_principal_arns": [
                        "arn:aws:iam::210987654321:role/BreakGlass",
                        "arn:aws:iam::210987654321:role/breakglass",
                    ],
                }
            },
            "policy_guardrails.deployment_principal_arns[1]",
            "IAM names are not distinguished by case",
        ),
    ],
    ids=[
        "source-regions",
        "compliant-regions",
        "targets",
        "canary-targets",
        "endpoints",
        "emails-domain-case",
        "percentages",
        "permission-sets",
        "principals-case",
    ],
)
def test_lists_hold_each_entry_once(plan_for, overrides, path, fragment):
    problems = refused(plan_for, **overrides)
    assert fragment in problems[path], problems
    assert problems[path].endswith("list each entry once")


def test_api_key_principals_are_one_partition_and_compared_as_iam_does(plan_for):
    keys = {"cdk_bootstrap_qualifier": "kimilz", "api_keys": "short-term-only"}
    # the outside look's inputs: another partition, and two spellings of one role
    problems = refused(
        plan_for, policy_guardrails={**keys, "api_key_principal_arns": ["arn:aws-cn:iam::210987654321:role/app"]}
    )
    assert problems["policy_guardrails.api_key_principal_arns[0]"].endswith(
        "an ARN of the partition 'aws-cn', but the landing zone is in 'aws' (the partition of home_region us-east-1): "
        "a principal or resource of another partition can never be part of this landing zone; allowed: an ARN that "
        "starts with 'arn:aws:'"
    )
    problems = refused(
        plan_for,
        policy_guardrails={
            **keys,
            "api_key_principal_arns": ["arn:aws:iam::210987654321:role/App", "arn:aws:iam::210987654321:role/app"],
        },
    )
    assert (
        "repeats api_key_principal_arns[0] ('arn:aws:iam::210987654321:role/App', compared as the service does: "
        "IAM names are not distinguished by case" in problems["policy_guardrails.api_key_principal_arns[1]"]
    )
    # the same rule on every ARN of the configuration, wherever it is
    problems = refused(
        plan_for,
        **SINGLE,
        applications=[
            app(
                trusted_principal_arns=["arn:aws-us-gov:iam::111111111111:role/caller"],
                batch_role_arns=["arn:aws-cn:iam::111111111111:role/batch"],
            )
        ],
    )
    assert set(problems) == {"applications[0].trusted_principal_arns[0]", "applications[0].batch_role_arns[0]"}
    # neighbours: two roles, and one role in two accounts, are different principals
    plan_for(
        policy_guardrails={
            **keys,
            "api_key_principal_arns": [
                "arn:aws:iam::210987654321:role/app",
                "arn:aws:iam::210987654321:role/app2",
                "arn:aws:iam::310987654321:role/app",
            ],
        }
    )


def test_an_empty_list_is_not_an_omitted_one(plan_for):
    problems = refused(plan_for, inference_source_regions=[])
    assert problems["inference_source_regions"] == (
        "inference_source_regions: got []; an empty list is not the same as leaving the key out: omitted, it takes "
        "its default (omitted: [home_region]), and [] would silently mean the same; leave the key out, or list at "
        "least one entry"
    )
    assert plan_for().config.source_regions == ("us-east-1",)
    assert plan_for(inference_source_regions=["us-east-1"]).config.source_regions == ("us-east-1",)


@pytest.mark.parametrize(
    ("overrides", "path", "meaning"),
    [
        ({"applications": []}, "applications", "one application per account, named after the account"),
        (
            {"applications": [app(trusted_principal_arns=[])]},
            "applications[0].trusted_principal_arns",
            "any principal of `account` that its own IAM lets assume the role",
        ),
        ({"network": {"availability_zones": []}}, "network.availability_zones", "the first `az_count` AZs"),
        ({"cost": {"workload": {"split": []}}}, "cost.workload.split", "the whole workload on models[0]"),
        (
            {"member_baseline": {"enabled": True, "target_ou_ids": []}},
            "member_baseline.target_ou_ids",
            "the OUs in organization.target_ids",
        ),
    ],
    ids=["applications", "trusted-principals", "availability-zones", "workload-split", "baseline-ous"],
)
def test_an_empty_list_whose_omission_means_more_than_none_is_refused(plan_for, overrides, path, meaning):
    """``trusted_principal_arns: []`` read as omitted would trust every principal of the account: the widest
    default, reached by writing the narrowest-looking value."""
    problems = refused(plan_for, **overrides)
    assert f"{path}: got []; an empty list is not the same as leaving the key out" in problems[path], problems
    assert f"(omitted: {meaning}" in problems[path]


def test_an_empty_list_that_means_none_is_accepted(plan_for):
    """The neighbours: lists whose omission means "none" take [] as the same none."""
    plan = plan_for(
        **SINGLE,
        applications=[app(sso_permission_sets=[], batch_role_arns=[])],
        cost={"alert_emails": [], "kill_switch_reset_principal_arns": []},
    )
    assert plan.applications[0].app.sso_permission_sets == () and plan.applications[0].app.batch_role_arns == ()
    assert plan_for(**SINGLE).applications[0].app.name == "workload"  # omitted: one per account


# Lists whose omission means "none" ([] means the same); every other list that says what omitting it means carries
# rules.WhenOmitted or is optional (None when omitted), so [] cannot silently mean a default.
EMPTY_MEANS_NONE = {
    "cost.alert_subscriber_principal_arns",
    "cost.kill_switch_reset_principal_arns",
    "policy_guardrails.deployment_principal_arns",
    "policy_guardrails.deployer_principal_arns",
    "applications.batch_role_arns",
}


def test_every_list_that_has_a_default_meaning_refuses_the_empty_list():
    """Found by the schema's own words: a list field whose description says what omitting it means is either
    marked (``[]`` refused) or declared above as meaning "none" — a new field cannot slip between."""
    import re

    from landing_zone.core.config import rules

    unmarked: set[str] = set()

    def walk(model: type, prefix: str) -> None:
        for name, field in model.model_fields.items():
            listed = rules._list_item(field.annotation)
            said = re.search(r"[Oo]mitted", field.description or "")
            if listed is not None and said and not listed[1] and rules.when_omitted(field) is None:
                unmarked.add(f"{prefix}{name}")
            inner = listed[0] if listed is not None else rules._leaf(field.annotation)
            if isinstance(inner, type) and issubclass(inner, _Strict):
                walk(inner, f"{prefix}{name}.")

    walk(LandingZoneConfig, "")
    assert unmarked == EMPTY_MEANS_NONE


# -- numbers and booleans of their type --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("overrides", "path", "got"),
    [
        ({"cost": {"workload": {"requests_per_day": "10000"}}}, "cost.workload.requests_per_day", "10000"),
        ({"cost": {"alarm_period_seconds": "300"}}, "cost.alarm_period_seconds", "300"),
        ({"cost": {"monthly_budget_usd": "1500.50"}}, "cost.monthly_budget_usd", "1500.50"),
        ({"cost": {"notify_actual_percent": [50, "80"]}}, "cost.notify_actual_percent[1]", "80"),
        ({"cost": {"workload": {"tier_split": {"default": "1"}}}}, "cost.workload.tier_split.default", "1"),
        ({"network": {"az_count": "3"}}, "network.az_count", "3"),
    ],
    ids=["requests", "period", "budget", "list-entry", "mapping-value", "integer"],
)
def test_numbers_written_as_text_are_refused(plan_for, overrides, path, got):
    problems = refused(plan_for, **overrides)
    assert problems[path] == (
        f"{path}: got {got!r}; a number written as text (in quotes): numbers are never read from text; remove the "
        f"quotes (write {got} instead of {got!r})"
    )


def test_text_that_is_no_number_and_real_numbers_are_unchanged(plan_for):
    assert refused(plan_for, cost={"workload": {"requests_per_day": "lots"}})[
        "cost.workload.requests_per_day"
    ].endswith("must be a number, not a text value")
    assert plan_for(cost={"workload": {"requests_per_day": 10000}}).config.cost.workload.requests_per_day == 10000


# -- the rules are by type: a field added later has them without code of its own ---------------------------------------
class _Later(_Strict):
    """A section another change might add: a list of principals, an optional list, a number, a switch."""

    reset_principal_arns: tuple[PrincipalArn, ...] = ()
    regions: tuple[str, ...] | None = Field(default=None, description="Omitted: every compliant Region.")
    count: int = 1
    on: bool = False
    weights: Annotated[dict[str, float], Field(default_factory=dict)]


@pytest.mark.parametrize(
    ("data", "path", "fragment"),
    [
        (
            {"reset_principal_arns": ["arn:aws:iam::210987654321:role/A", "arn:aws:iam::210987654321:role/a"]},
            "reset_principal_arns[1]",
            "IAM names are not distinguished by case",
        ),
        ({"regions": []}, "regions", "omitted, it takes its default (omitted: every compliant Region)"),
        ({"count": "2"}, "count", "remove the quotes (write 2 instead of '2')"),
        ({"on": "true"}, "on", "must be true or false (quoted text and yes/no/on/off are not booleans)"),
        ({"weights": {"a": "0.5"}}, "weights.a", "a number written as text"),
    ],
)
def test_a_new_field_gets_the_rules_of_its_type(data, path, fragment):
    with pytest.raises(ValidationError) as info:
        _Later.model_validate(data)
    problems = {p.path: str(p) for p in problems_from_validation_error(info.value, _Later)}
    assert fragment in problems[path], problems


def test_every_list_of_plain_values_in_the_schema_refuses_a_repeated_entry():
    """The schema's lists of plain values, found by type: each one refuses a repeated entry (no field is left out
    because nobody wrote a check for it)."""
    from landing_zone.core.config import rules

    found: dict[str, tuple[type, str]] = {}

    def walk(model: type, prefix: str) -> None:
        for name, field in model.model_fields.items():
            listed = rules._list_item(field.annotation)
            if listed is not None and rules._is_plain(listed[0]):
                found[f"{prefix}{name}"] = (model, name)
            inner = listed[0] if listed is not None else rules._leaf(field.annotation)
            if isinstance(inner, type) and issubclass(inner, _Strict):
                walk(inner, f"{prefix}{name}.")

    walk(LandingZoneConfig, "")
    assert {
        "compliant_regions",
        "inference_source_regions",
        "models",
        "organization.target_ids",
        "content_guardrail.canary_target_ids",
        "policy_guardrails.api_key_principal_arns",
        "applications.trusted_principal_arns",
        "member_baseline.target_ou_ids",
        "network.subnet_ids",
        "accounts.alert_emails",
        "cost.notify_forecast_percent",
    } <= set(found)
    for path, (model, name) in found.items():
        entry = 5 if "percent" in name else "x"
        problems = list(rules.list_problems(model.model_construct(**{name: (entry, entry)})))
        assert [(loc, rule.split(":")[0]) for loc, _, rule in problems] == [((name, 1), f"repeats {name}[0]")], path


# -- mappings keyed by model hold each model once ----------------------------------------------------------------------
PRICES = {"input_usd_per_million_tokens": 1, "output_usd_per_million_tokens": 4, "source": "contract of 2026-12-01"}


@pytest.mark.parametrize(
    ("cost", "path"),
    [
        (
            {"price_overrides": {"kimi-k3.1-pro": PRICES, "moonshotai.kimi-k3.1-pro": PRICES}},
            "cost.price_overrides.moonshotai.kimi-k3.1-pro",
        ),
        (
            {"price_source": {"moonshotai.kimi-k3.1-pro": "bedrock", "kimi-k3.1-pro": "kimi-api"}},
            "cost.price_source.kimi-k3.1-pro",
        ),
        (
            {
                "tier_price_overrides": {
                    "kimi-k3.1-pro": {"priority": {"multiplier": 2, "source": "contract"}},
                    "moonshotai.kimi-k3.1-pro": {"flex": {"multiplier": 0.5, "source": "contract"}},
                }
            },
            "cost.tier_price_overrides.moonshotai.kimi-k3.1-pro",
        ),
        (
            {
                "quota_alarms": {
                    "overrides": {
                        "kimi-k3.1-pro": {"tokens_per_day": 1e9, "source": "Service Quotas"},
                        "moonshotai.kimi-k3.1-pro": {"tokens_per_day": 2e9, "source": "Service Quotas"},
                    }
                }
            },
            "cost.quota_alarms.overrides.moonshotai.kimi-k3.1-pro",
        ),
    ],
    ids=["price-overrides", "price-source", "tier-prices", "quota-overrides"],
)
def test_a_mapping_keyed_by_model_names_each_model_once(plan_for, cost, path):
    """An alias and its ID are one model: a mapping holding both has two entries of which one is never read."""
    problems = refused(plan_for, cost=cost)
    first = "moonshotai.kimi-k3.1-pro" if path.endswith("source.kimi-k3.1-pro") else "kimi-k3.1-pro"
    assert (
        f"names the same model as the key {first!r} (an alias and its ID, moonshotai.kimi-k3.1-pro" in problems[path]
    ), problems


def test_a_workload_split_names_each_model_once_by_the_model_it_names(plan_for):
    """The list twin of the mapping rule: two parts for one model (alias and ID) would be priced apart."""
    parts = [
        {"model": "kimi-k3.1-pro", "share_of_requests": 0.5},
        {"model": "moonshotai.kimi-k3.1-pro", "share_of_requests": 0.5},
    ]
    problems = refused(plan_for, cost={"workload": {"split": parts}})
    assert problems["cost.workload.split[1].model"] == (
        "cost.workload.split[1].model: got 'moonshotai.kimi-k3.1-pro'; names the same model as split[0] "
        "(moonshotai.kimi-k3.1-pro): merge the parts"
    )
    one = plan_for(cost={"workload": {"split": [{"model": "kimi-k3.1-pro", "share_of_requests": 1}]}})
    assert [p.model for p in one.config.cost.workload.split] == ["kimi-k3.1-pro"]


# -- an error names the key that holds the problem, not the section around it ---------------------------------------------
@pytest.mark.parametrize(
    ("workload", "path", "fragment"),
    [
        (
            {"split": [{"model": "kimi-k3.1-pro", "share_of_requests": 0.5}]},
            "cost.workload.split",
            "got share_of_requests 0.5; the share_of_requests values sum to 0.5; they must sum to 1",
        ),
        (
            {"cached_input_fraction": 0.8, "cache_write_fraction": 0.5},
            "cost.workload.cache_write_fraction",
            "got 0.5; cached_input_fraction + cache_write_fraction = 1.3",
        ),
        (
            {"split": [{"model": "kimi-k3.1-pro", "share_of_requests": 1, "cache_write_fraction": 0.9}]},
            "cost.workload.split[0].cache_write_fraction",
            "got 0.9; cached_input_fraction + cache_write_fraction = 1.4",
        ),
        ({"tier_split": {"default": 0.5}}, "cost.workload.tier_split", "the shares sum to 0.5; they must sum to 1"),
        ({"tier_split": {"default": 1.5}}, "cost.workload.tier_split.default", "got 1.5; not a share in (0, 1]"),
    ],
    ids=["split-sum", "cache-shares", "part-cache-shares", "tier-sum", "tier-share"],
)
def test_a_workload_problem_names_its_key_not_the_workload(plan_for, workload, path, fragment):
    """Before: every one of these was reported at cost.workload, with the whole section as the value received."""
    problems = refused(plan_for, cost={"workload": workload})
    assert set(problems) == {path} and fragment in problems[path], problems


def test_a_mapping_keyed_by_model_with_one_key_per_model_is_read(plan_for):
    plan = plan_for(cost={"price_overrides": {"kimi-k3.1-pro": PRICES}, "price_source": {"kimi-k3.1-pro": "bedrock"}})
    (price,) = {p.input_usd_per_million for p in plan.model_prices.by_path.values()}
    assert price == 1


def test_every_mapping_keyed_by_model_in_the_schema_has_the_rule():
    """Found by the schema's own words: a mapping whose description says its keys are model IDs or aliases is typed
    ``Mapping[ModelKey, ...]``, so the rule reaches it (and one typed so says so)."""
    import re

    from landing_zone.core.config import model_keys, rules

    said, typed = set(), set()

    def walk(model: type, prefix: str) -> None:
        for name, field in model.model_fields.items():
            path = f"{prefix}{name}"
            if model_keys.is_model_keyed(field.annotation):
                typed.add(path)
            if "Mapping" in str(field.annotation) and re.search(
                r"model (ID )?(or|\(alias or ID\))|ID or alias|alias or ID", field.description or ""
            ):
                said.add(path)
            listed = rules._list_item(field.annotation)
            inner = listed[0] if listed is not None else rules._leaf(field.annotation)
            if isinstance(inner, type) and issubclass(inner, _Strict):
                walk(inner, f"{prefix}{name}.")

    walk(LandingZoneConfig, "")
    assert typed == {
        "cost.price_source",
        "cost.price_overrides",
        "cost.tier_price_overrides",
        "cost.quota_alarms.overrides",
    }
    assert said == typed


# -- a file has one role -----------------------------------------------------------------------------------------------
OVERLAY = ROOT / "tests" / "fixtures" / "overlay-eu-with-il.yaml"


def test_a_configuration_listed_as_its_own_catalog_overlay_is_refused(plan_for, tmp_path):
    config = tmp_path / "lz.yaml"
    config.write_text(f"name: kimi-self\ncatalog_overlays: [{config}]\n")
    problems = refused(plan_for, config)
    assert problems["catalog_overlays[0]"].startswith(
        f"catalog_overlays[0]: got '{config}'; holds configuration keys (catalog_overlays, name): it is a "
        "configuration file (the configuration itself, or cdk.json), not a catalog overlay"
    )
    # with a models list it used to end in a traceback (AttributeError: 'list' object has no attribute 'items')
    config.write_text(f"models: [kimi]\ncatalog_overlays: [{config}]\n")
    assert "catalog_overlays[0]" in refused(plan_for, config)


@pytest.mark.parametrize(
    ("overlays", "fragment"),
    [
        ([str(ROOT / "cdk.json")], "holds configuration keys (landing_zone): it is a configuration file"),
        ([str(OVERLAY), str(OVERLAY.relative_to(ROOT))], "the same file as catalog_overlays[0]"),
        ([str(ROOT / "tests" / "fixtures" / "per-application-budgets.yaml")], "holds configuration keys"),
    ],
    ids=["cdk-json", "same-file-twice", "another-configuration"],
)
def test_a_catalog_overlay_is_a_catalog_overlay(plan_for, monkeypatch, overlays, fragment):
    monkeypatch.chdir(ROOT)
    problems = refused(plan_for, catalog_overlays=overlays)
    assert fragment in problems[f"catalog_overlays[{len(overlays) - 1}]"], problems


def test_a_real_overlay_is_read(plan_for):
    regions = ["eu-central-1", "eu-west-1", "il-central-1"]
    plan = plan_for(**SINGLE, home_region="eu-central-1", compliant_regions=regions, catalog_overlays=[str(OVERLAY)])
    assert plan.catalog.models["moonshotai.kimi-k3.1-pro"].source == "test fixture"


def test_a_key_left_out_is_reported_as_nothing_not_as_an_empty_list(plan_for):
    """member_baseline without OUs: the value received is nothing (the key was not written), not `[]`."""
    problems = refused(plan_for, member_baseline={"enabled": True}, organization={"target_ids": ["r-abcd"]})
    assert problems["member_baseline.target_ou_ids"].startswith(
        "member_baseline.target_ou_ids: got nothing, and no OU ID in organization.target_ids; member_baseline.enabled "
        "needs target OUs"
    ), problems
