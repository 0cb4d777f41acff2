"""The routing resolver: which paths are compliant, which are rejected, and why."""

from __future__ import annotations

import json

import pytest

from landing_zone.core.catalog import load_catalog
from landing_zone.core.routing import PathKind, format_table, resolve_routes
from landing_zone.errors import ConfigError
from tests.conftest import FIXTURES

EU = ["eu-central-1", "eu-west-1", "eu-west-3", "eu-north-1", "eu-south-1", "eu-south-2"]


def routes_by(decision, kind, invoke_id=None):
    return [
        r
        for mr in decision.models
        for r in mr.routes
        if r.kind is kind and (invoke_id is None or r.invoke_id == invoke_id)
    ]


def test_us_config_admits_the_us_profile_and_mantle_and_rejects_eu_and_global(plan_for):
    decision = plan_for().routing
    (us,) = routes_by(decision, PathKind.GEOGRAPHIC_PROFILE, "us.moonshotai.kimi-k3.1-pro")
    (eu,) = routes_by(decision, PathKind.GEOGRAPHIC_PROFILE, "eu.moonshotai.kimi-k3.1-pro")
    (glob,) = routes_by(decision, PathKind.GLOBAL_PROFILE)
    assert us.compliant and us.source_regions == ("us-east-1", "us-east-2", "us-west-2")
    assert not eu.compliant and "not in compliant_regions" in eu.reason
    assert not glob.compliant and glob.reason.startswith("allow_global_inference is false")
    mantle = {r.source_regions[0]: r.compliant for r in routes_by(decision, PathKind.MANTLE)}
    assert mantle == {"us-east-1": True, "us-west-2": True, "eu-central-1": False}


def test_geo_profile_with_one_non_compliant_destination_is_rejected():
    catalog = load_catalog([FIXTURES / "overlay-eu-with-il.yaml"])
    model = catalog.resolve_model("kimi-k3.1-pro")
    decision = resolve_routes(
        models=[model], home_region="eu-central-1", compliant_regions=EU, allow_global_inference=False, catalog=catalog
    )
    (eu,) = routes_by(decision, PathKind.GEOGRAPHIC_PROFILE)
    assert not eu.compliant
    assert eu.reason == "destination Region(s) il-central-1 not in compliant_regions"
    assert decision.unroutable_models()[0].model.id == model.id


def test_declaring_israel_compliant_admits_that_profile():
    # e.g. an EU controller relying on the EU adequacy decision for Israel
    catalog = load_catalog([FIXTURES / "overlay-eu-with-il.yaml"])
    decision = resolve_routes(
        models=[catalog.resolve_model("kimi-k3.1-pro")],
        home_region="eu-central-1",
        compliant_regions=[*EU, "il-central-1"],
        allow_global_inference=False,
        catalog=catalog,
    )
    (eu,) = routes_by(decision, PathKind.GEOGRAPHIC_PROFILE)
    assert eu.compliant
    assert eu.source_regions == ("eu-central-1", "eu-west-1")


def test_only_compliant_source_regions_are_kept_for_an_admitted_profile():
    catalog = load_catalog()
    decision = resolve_routes(
        models=[catalog.resolve_model("kimi-k3.1-pro")],
        home_region="eu-central-1",
        compliant_regions=["eu-central-1", "eu-west-1", "eu-west-3", "eu-north-1", "eu-south-1", "eu-south-2"],
        allow_global_inference=False,
        catalog=catalog,
    )
    (eu,) = routes_by(decision, PathKind.GEOGRAPHIC_PROFILE, "eu.moonshotai.kimi-k3.1-pro")
    assert eu.compliant and set(eu.source_regions) == {"eu-central-1", "eu-west-1", "eu-west-3", "eu-north-1"}


def test_profile_with_compliant_destinations_but_no_compliant_source_is_rejected():
    catalog = load_catalog()
    decision = resolve_routes(
        models=[catalog.resolve_model("kimi-k3.1-pro")],
        home_region="eu-south-1",
        compliant_regions=EU,  # eu-south-1/2 are destinations but not sources of the eu. profile ...
        allow_global_inference=False,
        catalog=catalog,
    )
    (eu,) = routes_by(decision, PathKind.GEOGRAPHIC_PROFILE, "eu.moonshotai.kimi-k3.1-pro")
    assert eu.compliant  # ... yet the profile still has compliant sources (eu-central-1 etc.)
    narrow = resolve_routes(
        models=[catalog.resolve_model("kimi-k3.1-pro")],
        home_region="eu-south-1",
        compliant_regions=["eu-south-1", "eu-south-2"],
        allow_global_inference=False,
        catalog=catalog,
    )
    (eu2,) = routes_by(narrow, PathKind.GEOGRAPHIC_PROFILE, "eu.moonshotai.kimi-k3.1-pro")
    assert not eu2.compliant  # destinations outside eu-south-* are not compliant in the narrow set


def test_global_profile_only_with_allow_global_inference(plan_for):
    plan = plan_for(allow_global_inference=True)
    (glob,) = routes_by(plan.routing, PathKind.GLOBAL_PROFILE)
    assert glob.compliant
    assert glob.source_regions == ("us-east-1", "us-east-2", "us-west-2")
    assert "il-central-1" in glob.destination_regions


def test_in_region_paths_follow_compliant_regions(plan_for):
    plan = plan_for(models=["kimi-k2-thinking"])
    decisions = {r.source_regions[0]: r.compliant for r in routes_by(plan.routing, PathKind.IN_REGION)}
    assert decisions == {
        "us-east-1": True,
        "us-east-2": True,
        "us-west-2": True,
        "ap-northeast-1": False,
        "ap-south-1": False,
        "sa-east-1": False,
    }


def test_application_model_compliant_only_away_from_home_region_is_an_error(plan_for):
    plan = plan_for(home_region="us-east-2", models=["kimi-k3.1-pro"], network={"endpoints": ["bedrock-runtime"]})
    assert plan.applications[0].route.invoke_id == "us.moonshotai.kimi-k3.1-pro"  # callable from us-east-2
    with pytest.raises(ConfigError) as info:
        plan_for(home_region="us-west-1", compliant_regions=["us-west-1", "us-east-1"], models=["kimi-k2-thinking"])
    (problem,) = info.value.problems
    # blamed on the key the user wrote, not on the derived default application
    assert problem.path == "home_region" and problem.got == "us-west-1"
    assert "no compliant runtime path of moonshot.kimi-k2-thinking is callable from home_region us-west-1" in str(
        problem
    )
    assert "compliant paths from there: none" in str(problem)
    assert "its compliant runtime paths are callable from us-east-1" in str(problem)


def test_unverified_entries_are_named_in_warnings(plan_for):
    warnings = plan_for().warnings
    assert any("catalog model 'moonshotai.kimi-k3.1-pro' is unverified" in w for w in warnings)
    assert any(
        w.startswith("unverified prices in budget and alarms: moonshotai.kimi-k3.1-pro (bedrock)") for w in warnings
    )


def test_verified_overlay_silences_the_model_warning(plan_for):
    plan = plan_for(
        catalog_overlays=[str(FIXTURES / "overlay-eu-with-il.yaml")],
        home_region="eu-central-1",
        compliant_regions=[*EU, "il-central-1"],
    )
    assert not any("catalog model" in w for w in plan.warnings)


def test_missing_overlay_file_is_a_config_error(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(catalog_overlays=["does-not-exist.yaml"])
    assert info.value.problems[0].path == "catalog_overlays"


def test_rows_and_table_show_every_route_with_a_decision(plan_for):
    decision = plan_for().routing
    rows = decision.as_rows()
    assert len(rows) == sum(len(mr.routes) for mr in decision.models)
    assert {r["decision"] for r in rows} == {"allowed", "rejected"}
    json.dumps(rows)  # serialisable
    table = format_table(decision)
    assert "ALLOWED" in table and "REJECTED" in table and "us.moonshotai.kimi-k3.1-pro" in table
