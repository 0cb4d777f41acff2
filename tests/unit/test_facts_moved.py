"""Facts that moved (issue 35, deliverable 9): each in the catalog with its source and date, and what the landing
zone does with it (pure: plans and catalogs, no synth)."""

from __future__ import annotations

import pytest

from landing_zone.core.catalog import load_catalog
from landing_zone.core.catalog.metrics import load_metric_catalog
from landing_zone.core.catalog.prices import load_price_catalog
from landing_zone.errors import ConfigError
from landing_zone.plan.requirements import retention_region_problems
from landing_zone.review.matrices import routing_matrix

K3 = "moonshotai.kimi-k3"
K3_CARD = "https://docs.aws.amazon.com/bedrock/latest/userguide/model-card-moonshot-ai-kimi-k3.html"
EU_ONLY = {
    "organization": None,
    "home_region": "eu-central-1",
    "compliant_regions": ["eu-central-1", "eu-west-1", "eu-west-3", "eu-north-1"],
    "models": ["kimi-k3"],
}


# -- Kimi K3's model card -------------------------------------------------------------------------------------------
def test_k3_is_catalogued_as_its_card_says():
    k3 = load_catalog().models[K3]
    assert sorted(p.id for p in k3.inference_profiles) == ["global.moonshotai.kimi-k3", "us.moonshotai.kimi-k3"]
    assert k3.in_region_regions == () and k3.mantle_regions == () and k3.endpoints == ("runtime",)
    assert K3_CARD in k3.source and "2026-09-18" in k3.source
    tiers = k3.service_tiers
    assert tiers is not None and tiers.verified and K3_CARD in tiers.source
    assert tiers.offered == ("priority", "flex") and "reserved" not in tiers.offered
    assert tiers.apis == ("chat-completions", "responses")


def test_k3_prices_and_tier_prices_come_from_its_card():
    prices = load_price_catalog()
    us, world = prices.price_sources["bedrock-kimi-k3-us"], prices.price_sources["bedrock-kimi-k3-global"]
    assert (world.input_usd_per_million, world.output_usd_per_million) == (3.00, 15.00)
    assert (world.cache_read_usd_per_million, world.cache_write_usd_per_million) == (0.30, 3.75)
    for name in ("input", "output", "cache_read", "cache_write"):  # the US profile: +10 %
        field = f"{name}_usd_per_million"
        assert getattr(us, field) == pytest.approx(getattr(world, field) * 1.10)
    for entry in ("bedrock-kimi-k3-us", "bedrock-kimi-k3-global"):
        priority, flex = prices.tier_rule(entry, "priority"), prices.tier_rule(entry, "flex")
        assert (priority.multiplier, flex.multiplier) == (1.75, 0.5)
        assert priority.verified and flex.verified and K3_CARD in priority.source and K3_CARD in flex.source


def test_k3_priority_is_priced_from_the_card_and_reserved_is_refused(plan_for):
    us = {
        "organization": None,
        "models": ["kimi-k3"],
        "compliant_regions": ["us-east-1", "us-east-2", "us-west-1", "us-west-2", "ca-central-1"],
    }
    plan = plan_for(**us, policy_guardrails={"allowed_service_tiers": ["default", "priority", "flex"]})
    priced = plan.model_prices.by_tier[(K3, "geographic-profile", "priority")]
    assert priced.input_usd_per_million == pytest.approx(3.30 * 1.75) and priced.verified
    assert plan.model_prices.by_tier[(K3, "geographic-profile", "flex")].output_usd_per_million == pytest.approx(8.25)
    # legal, but a Converse or Invoke request cannot select it: said out loud
    said = [w for w in plan.warnings if w.startswith("service tier priority of moonshotai.kimi-k3")]
    assert said and "selectable only on Chat Completions and Responses" in said[0]
    with pytest.raises(ConfigError, match=r"allowed_service_tiers\[1\]: got 'reserved'"):
        plan_for(**us, policy_guardrails={"allowed_service_tiers": ["default", "reserved"]})
    assert not [w for w in plan_for(**us).warnings if w.startswith("service tier")]


def test_an_eu_only_configuration_has_no_compliant_k3_path(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(**EU_ONLY)
    (problem,) = info.value.problems
    assert problem.path == "models[0]" and problem.got == "kimi-k3"
    assert (
        "Its only path from home_region eu-central-1 is the global profile global.moonshotai.kimi-k3, which may "
        "process data in any commercial Region" in problem.allowed
    )
    assert "allow_global_inference: true is the explicit exception that admits it" in problem.allowed


def test_with_the_global_exception_the_review_lists_every_destination(plan_for):
    plan = plan_for(**EU_ONLY, allow_global_inference=True)
    (row,) = [r for r in routing_matrix(plan) if r["invoke_id"] == "global.moonshotai.kimi-k3"]
    assert row["decision"] == "allowed"
    assert row["destination_regions"] == list(plan.catalog.commercial_regions())
    assert {"us-east-1", "ap-southeast-2", "sa-east-1", "me-central-1"} <= set(row["destination_regions"])


# -- Kimi K3.1 Pro ----------------------------------------------------------------------------------------------------
def test_k31_pro_stays_unverified_and_moonshots_prices_carry_cache_writes():
    assert not load_catalog().models["moonshotai.kimi-k3.1-pro"].verified
    prices = load_price_catalog()
    api, fast = prices.price_sources["kimi-api"], prices.price_sources["kimi-api-highspeed"]
    assert (api.input_usd_per_million, api.output_usd_per_million, api.cache_read_usd_per_million) == (2.0, 10.0, 0.2)
    assert api.cache_write_usd_per_million == api.input_usd_per_million  # 5-minute cache
    assert api.cache_write_1h_usd_per_million == 2 * api.input_usd_per_million  # 1-hour cache
    assert (fast.input_usd_per_million, fast.output_usd_per_million, fast.cache_read_usd_per_million) == (4, 20, 0.2)
    for entry in (api, fast):
        assert "platform.kimi.ai" in entry.source and "2026-10-25/26" in entry.source and not entry.verified


# -- data retention is set per Region ---------------------------------------------------------------------------------
def test_data_retention_is_catalogued_per_region():
    setting = load_catalog().data_retention_setting
    assert setting is not None and setting.scope == "region" and setting.unconfigured_mode == "inherit"
    assert "data-retention.html" in setting.source and setting.as_of.isoformat() == "2026-12-04"


def test_a_mode_must_govern_every_region_where_inference_may_start(plan_for):
    """The mode is applied in home_region; another source Region would stay at inherit.  (The schema refuses such a
    source Region today; this rule keeps the mode honest if that ever changes.)"""
    plan = plan_for(organization=None, data_retention={"mode": "none"})
    assert retention_region_problems(plan.config, plan.catalog) == []
    wider = plan.config.model_copy(update={"inference_source_regions": ("us-east-1", "us-west-2")})
    (problem,) = retention_region_problems(wider, plan.catalog)
    assert (problem.path, problem.got) == ("data_retention.mode", "none")
    assert "may be started in us-west-2" in problem.allowed and "remains at inherit" in problem.allowed
    unset = plan_for(organization=None).config.model_copy(
        update={"inference_source_regions": ("us-east-1", "us-west-2")}
    )
    assert retention_region_problems(unset, plan.catalog) == []


# -- Invocations counts requests that later failed ----------------------------------------------------------------------
def test_the_invocations_metric_is_catalogued_as_counting_failed_requests():
    runtime = load_metric_catalog().for_endpoint("runtime")
    semantics = runtime.metric_semantics["invocations"]
    assert "failed" in semantics.counts and "monitoring-runtime-metrics.html" in semantics.source
    assert semantics.as_of == "2026-12-04"


@pytest.mark.parametrize(
    "config",
    [
        {},
        {
            "cost": {
                "quota_alarms": {
                    "overrides": {
                        "kimi-k3.1-pro": {
                            "cross_region_tokens_per_minute": 1e6,
                            "tokens_per_day": 1e9,
                            "source": "test",
                        }
                    }
                }
            }
        },
    ],
)
def test_no_alarm_divides_by_a_request_count_and_the_dashboard_says_what_it_counts(plan_for, config):
    plan = plan_for(**config)
    runtime, mantle = plan.metrics.for_endpoint("runtime"), plan.metrics.for_endpoint("mantle")
    request_counts = {runtime.other_metrics["invocations"], mantle.other_metrics["invocations"]}
    alarm_metrics = {m.metric_name for a in plan.cost_alarms.alarms for m in a.metrics}
    alarm_metrics |= {m.metric_name for spec in plan.quota_alarms.specs for m in spec.metrics}
    assert alarm_metrics and not alarm_metrics & request_counts
    titled = [
        g.title
        for g in plan.dashboard.graphs
        if any(m.metric_name == runtime.other_metrics["invocations"] for line in g.lines for m in line.metrics)
    ]
    assert titled == ["Invocations per minute by model / profile (failed requests included)"]


def test_a_mode_written_through_one_endpoint_is_said_for_applications_on_the_other(plan_for):
    """The handler writes bedrock's setting; bedrock-mantle has its own PutAccountDataRetention (catalog
    data_retention_setting.endpoints).  An application on Mantle gets a warning; one on the runtime does not."""
    eu_mantle = {
        "organization": None,
        "home_region": "eu-central-1",
        "compliant_regions": ["eu-central-1", "eu-west-1", "eu-west-3", "eu-north-1"],
    }
    on_mantle = plan_for(**eu_mantle, data_retention={"mode": "none"})
    (said,) = [w for w in on_mantle.warnings if "written through bedrock:PutAccountDataRetention only" in w]
    assert "applications workload call Mantle" in said and "the SCP denies setting it to another mode than none" in said
    assert not [w for w in plan_for(**eu_mantle).warnings if "PutAccountDataRetention only" in w]  # no mode
    # us-east-1 with no Mantle Project (mantle_projects defaults to auto, which gives the app one, hence a Mantle
    # path): the runtime path only
    on_runtime = plan_for(organization=None, data_retention={"mode": "none"}, access={"mantle_projects": False})
    assert not [w for w in on_runtime.warnings if "PutAccountDataRetention only" in w]
    with_project = plan_for(organization=None, data_retention={"mode": "none"})
    assert [w for w in with_project.warnings if "PutAccountDataRetention only" in w], "a project is a Mantle path"
