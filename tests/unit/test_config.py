"""The config contract: defaults, merging, and exact error messages (field, value got, what is allowed)."""

from __future__ import annotations

import json

import pydantic
import pytest

from landing_zone.core.config import deep_merge, json_schema, read_config_file
from landing_zone.errors import ConfigError
from tests.conftest import FIXTURES


def problems_of(exc: ConfigError) -> dict[str, str]:
    return {p.path: str(p) for p in exc.problems}


def test_defaults_from_cdk_json_are_valid_and_secure(plan_for):
    cfg = plan_for().config
    assert cfg.allow_global_inference is False
    assert cfg.self_hosting.enabled is False
    assert cfg.models == ("kimi-k3.1-pro",)
    assert cfg.home_region in cfg.compliant_regions
    assert cfg.network.endpoints == ("bedrock-runtime", "bedrock-mantle", "bedrock")


def test_config_is_frozen(plan_for):
    cfg = plan_for().config
    with pytest.raises(pydantic.ValidationError, match="frozen"):
        cfg.name = "other"  # type: ignore[misc]


def test_file_overrides_defaults_and_lists_replace(plan_for):
    cfg = plan_for(FIXTURES.parent.parent / "examples" / "eu-sovereign.yaml").config
    assert cfg.home_region == "eu-central-1"
    assert cfg.compliant_regions[0] == "eu-central-1"
    # the file did not set network.endpoints: the cdk.json default survives the merge
    assert cfg.network.endpoints == ("bedrock-runtime", "bedrock-mantle", "bedrock")
    assert cfg.network.vpc_cidr == "10.60.0.0/16"


def test_deep_merge_merges_mappings_and_replaces_lists():
    merged = deep_merge({"a": {"b": 1, "c": [1, 2]}, "d": 1}, {"a": {"c": [3]}, "e": 2})
    assert merged == {"a": {"b": 1, "c": [3]}, "d": 1, "e": 2}


def test_every_problem_of_a_bad_file_is_reported_at_once(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(FIXTURES / "bad-config.yaml")
    problems = problems_of(info.value)
    assert set(problems) == {
        "home_region",
        "compliant_regions[1]",
        "models[0]",
        "accounts[0].id",
        "accounts[0].name",
        "network.vpc_cidr",
        "network.endpoints[1]",
        "cost.price_source",
        "cost.workload.cached_input_fraction",
        "cost.alert_emails[0]",
        "unexpected_key",
    }
    assert problems["cost.alert_emails[0]"] == "cost.alert_emails[0]: got 'not-an-email'; must be an e-mail address"
    assert problems["accounts[0].id"] == (
        "accounts[0].id: got 12345; must be a 12-digit AWS account ID written as a string (quote it in YAML)"
    )
    assert problems["cost.price_source"] == (
        "cost.price_source: got 'cheapest'; unknown price source 'cheapest' (allowed: bedrock, kimi-api, "
        "kimi-api-highspeed)"
    )
    assert problems["network.endpoints[1]"] == (
        "network.endpoints[1]: got 'bedrock-telepathy'; must be 'bedrock-runtime', 'bedrock-mantle' or 'bedrock'"
    )
    assert (
        problems["models[0]"] == "models[0]: got 'kimi-k9'; not in the catalog: did you mean 'kimi-k3' or 'kimi-k2.5'?"
    )
    assert problems["unexpected_key"].startswith(
        "unexpected_key: got true; unknown key (allowed keys here: access, accounts,"
    )
    assert problems["home_region"] == (
        "home_region: got 'eu-central-9'; not a known commercial Region: did you mean 'eu-central-2' or 'eu-central-1'?"
    )
    assert str(info.value).startswith("invalid configuration (cdk.json defaults + ")
    assert "11 problem(s)" in str(info.value)


def test_home_region_must_be_compliant(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(home_region="eu-west-1")
    (problem,) = info.value.problems
    assert problem.path == "home_region"
    assert str(problem).startswith(
        "home_region: got 'eu-west-1'; not in compliant_regions [us-east-1, us-east-2, us-west-2]: the landing zone's own"
    )
    assert "add eu-west-1 to compliant_regions or choose home_region from them" in str(problem)


@pytest.mark.parametrize(
    ("overrides", "path", "fragment"),
    [
        ({"name": "Kimi_LZ"}, "name", "lowercase letters"),
        ({"compliant_regions": ["us-east-1", "us-east-1"]}, "compliant_regions[1]", "repeats compliant_regions[0]"),
        ({"models": ["kimi-k3.1-pro", "moonshotai.kimi-k3.1-pro"]}, "models[1]", "names the same model as models[0]"),
        ({"accounts": []}, "accounts", "at least 1 item"),
        (
            {"accounts": [{"id": "111111111111", "name": "a-b-c"}, {"id": "111111111111", "name": "d-e-f"}]},
            "accounts[1].id",
            "unique",
        ),
        ({"network": {"vpc_id": "vpc-0123456789abcdef0"}}, "network.subnet_ids", "subnet_ids is empty"),
        ({"network": {"flow_log_retention_days": 100}}, "network.flow_log_retention_days", "allowed: 1, 3, 5, 7, 14"),
        (
            {"organization": {"management_account_id": "444444444444", "target_ids": ["ou-bad"]}},
            "organization.target_ids[0]",
            "an OU ID (ou-...-...)",
        ),
        (
            {"organization": {"management_account_id": "444444444444", "organization_id": "org-1"}},
            "organization.organization_id",
            "o-",
        ),
        ({"cost": {"monthly_budget_usd": -5}}, "cost.monthly_budget_usd", "greater than 0"),
        ({"deployment_account_id": 123}, "deployment_account_id", "12-digit"),
        ({"allow_global_inference": "perhaps"}, "allow_global_inference", "must be true or false"),
    ],
)
def test_single_invalid_values_name_field_value_and_rule(plan_for, overrides, path, fragment):
    with pytest.raises(ConfigError) as info:
        plan_for(**overrides)
    problems = problems_of(info.value)
    assert path in problems, problems
    assert fragment in problems[path]


def test_model_offered_nowhere_compliant_is_a_config_error_that_says_where_it_is_offered(plan_for):
    # Kimi K2 Thinking is offered in-Region only, and in no EU Region.
    with pytest.raises(ConfigError) as info:
        plan_for(
            home_region="eu-central-1",
            compliant_regions=["eu-central-1", "eu-west-1"],
            models=["kimi-k2-thinking"],
        )
    (problem,) = info.value.problems
    assert problem.path == "models[0]"
    assert problem.got == "kimi-k2-thinking"
    text = str(problem)
    assert "no compliant invocation path within compliant_regions [eu-central-1, eu-west-1]" in text
    assert "in-Region: ap-northeast-1, ap-south-1, sa-east-1, us-east-1, us-east-2, us-west-2" in text


def test_missing_file_and_invalid_yaml_are_config_errors(tmp_path):
    with pytest.raises(ConfigError) as info:
        read_config_file(tmp_path / "nope.yaml")
    assert "the file does not exist" in str(info.value)
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    with pytest.raises(ConfigError) as info:
        read_config_file(bad)
    assert "not valid YAML" in str(info.value)
    scalar = tmp_path / "scalar.yaml"
    scalar.write_text("just a string\n")
    with pytest.raises(ConfigError) as info:
        read_config_file(scalar)
    assert "must hold a mapping" in str(info.value)


def test_json_config_files_are_accepted(tmp_path, plan_for):
    f = tmp_path / "c.json"
    f.write_text(json.dumps({"landing_zone": {"name": "json-lz"}}))
    assert plan_for(f).config.name == "json-lz"


def test_json_schema_documents_the_contract():
    schema = json_schema()
    props = schema["properties"]
    for key in (
        "name",
        "home_region",
        "compliant_regions",
        "allow_global_inference",
        "models",
        "accounts",
        "organization",
        "network",
        "cost",
        "self_hosting",
    ):
        assert key in props, key
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == {"home_region", "compliant_regions", "accounts"}


# --------------------------------------------------------------------------------------------------
# Contract prices: cost.price_overrides
# --------------------------------------------------------------------------------------------------


def test_a_contract_price_replaces_the_catalog_figure_everywhere(plan_for):
    contract = {
        "moonshotai.kimi-k3.1-pro": {
            "output_usd_per_million_tokens": 9.0,
            "input_usd_per_million_tokens": 2.5,
            "source": "AWS private pricing addendum, signed 2026-10-01",
        }
    }
    base, plan = plan_for(), plan_for(cost={"price_overrides": contract})
    prices = plan.token_prices
    assert (prices.input_usd_per_million, prices.output_usd_per_million) == (2.5, 9.0)
    assert prices.cache_read_usd_per_million == base.token_prices.cache_read_usd_per_million
    assert prices.verified and "AWS private pricing addendum" in prices.source
    assert plan.budget.usd < base.budget.usd  # the budget follows the contract
    (alarm,) = plan.cost_alarms.spend  # and so do the alarms
    assert "FILL(m0_out, 0) * 9 " in alarm.expression and "FILL(m0_in, 0) * 2.5 " in alarm.expression
    assert not any(w.startswith("unverified prices") for w in plan.warnings)


def test_a_contract_price_needs_a_source_a_price_and_a_configured_model(plan_for):
    bad = {
        "moonshotai.kimi-k3.1-pro": {"output_usd_per_million_tokens": 9.0},
        "kimi-k2.5": {"source": "no figure given"},
    }
    with pytest.raises(ConfigError) as info:
        plan_for(cost={"price_overrides": bad})
    text = str(info.value)
    assert "cost.price_overrides.moonshotai.kimi-k3.1-pro.source" in text
    with pytest.raises(ConfigError, match=r"cost\.price_overrides\.cheapest: got 'cheapest'; a model of `models`"):
        plan_for(cost={"price_overrides": {"cheapest": {"output_usd_per_million_tokens": 1.0, "source": "a friend"}}})
    assert "give at least one of input_usd_per_million_tokens" in text
