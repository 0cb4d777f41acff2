"""Generated resource names are checked against the services' limits (core/catalog/limits.yaml) while the plan is
built, so `validate` refuses what synth or deploy would: the error names the longest generated name, its length, the
limit and the config key to shorten.  The limits are read from the catalog here, never written into the test."""

from __future__ import annotations

import pytest

from landing_zone.core import naming
from landing_zone.core.catalog import load_catalog
from landing_zone.errors import ConfigError
from landing_zone.plan.checks import generated_names, name_problems, plan_names

LZ = "a" + "b" * 30 + "c"  # the longest name the `name` rule allows (32 characters)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _app_name_at_role_limit(catalog, lz: str) -> str:
    """An application name whose invoker role name is exactly as long as IAM allows."""
    room = catalog.limit("iam_role_name_max_length") - len(naming.invoker_role_name(lz, ""))
    assert 3 <= room < 32, room  # the application-name rule allows 3-32 characters
    return "x" * room


def test_an_invoker_role_name_just_at_the_limit_is_accepted(plan_for, catalog):
    app = _app_name_at_role_limit(catalog, LZ)
    plan = plan_for(name=LZ, applications=[{"name": app, "cost_center": "cc"}])
    role = naming.invoker_role_name(LZ, app)
    assert len(role) == catalog.limit("iam_role_name_max_length")
    assert role in {n.name for n in plan_names(plan)}


def test_an_invoker_role_name_one_over_the_limit_is_refused_naming_the_key_to_shorten(plan_for, catalog):
    app = _app_name_at_role_limit(catalog, LZ) + "y"
    limit = catalog.limit("iam_role_name_max_length")
    with pytest.raises(ConfigError) as info:
        plan_for(name=LZ, applications=[{"name": app, "cost_center": "cc"}])
    text = str(info.value)
    role = naming.invoker_role_name(LZ, app)
    assert f"applications[0].name: got {app!r}" in text
    assert f"IAM role name {role!r} ({limit + 1} characters)" in text
    assert f"longer than the {limit} AWS allows" in text
    assert "iam_role_name_max_length" in text
    assert "shorten applications[0].name (or name) by at least 1 character(s)" in text
    assert "Traceback" not in text


def test_a_default_application_blames_the_account_name_it_comes_from(plan_for, catalog):
    account = _app_name_at_role_limit(catalog, LZ) + "y"
    with pytest.raises(ConfigError) as info:
        plan_for(name=LZ, accounts=[{"id": "210987654321", "name": account}])
    assert f"accounts[0].name: got {account!r}" in str(info.value)


def test_the_check_reports_the_longest_name_once_per_key(catalog):
    names = [
        naming_entry("x" * 70, "iam_role_name_max_length", ("name", "n")),
        naming_entry("x" * 80, "iam_role_name_max_length", ("name", "n")),
    ]
    (problem,) = name_problems(names, catalog)
    assert "(80 characters)" in problem.allowed
    assert f"at least {80 - catalog.limit('iam_role_name_max_length')} character(s)" in problem.allowed


def test_a_bucket_name_s3_would_refuse_is_reported(catalog):
    (problem,) = name_problems([naming_entry("Not_A_Bucket", "s3_bucket_name_max_length", ("name", "n"))], catalog)
    assert "lowercase letters, digits, '.' and '-'" in problem.allowed


def test_an_application_name_with_two_hyphens_in_a_row_is_refused_for_its_inference_profile(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(applications=[{"name": "app--one", "cost_center": "cc"}])
    text = str(info.value)
    assert "applications[0].name: got 'app--one'" in text
    assert f"application inference profile name {naming.application_profile_name('kimi-lz', 'app--one')!r}" in text
    assert "no '--'" in text


def test_accepted_an_application_name_with_single_hyphens(plan_for):
    assert plan_for(applications=[{"name": "app-one", "cost_center": "cc"}]).applications


def test_every_name_limit_comes_from_the_catalog_with_a_source(plan_for, catalog):
    plan = plan_for("examples/us-organization.yaml", model_access={"accept_agreements": True})
    for name in plan_names(plan):
        limit = catalog.limits[name.limit]
        assert limit.source.count("https://") >= 1 and limit.as_of, name.limit


def test_names_depend_on_the_options_that_create_the_resources(plan_for):
    plain = {n.name for n in generated_names(plan_for().config, plan_for().applications)}
    assert naming.content_guardrail_name("kimi-lz") not in plain
    with_guardrail = plan_for(content_guardrail={"enabled": True})
    assert naming.content_guardrail_name("kimi-lz") in {n.name for n in plan_names(with_guardrail)}


def naming_entry(name: str, limit: str, field: tuple[str, str]):
    from landing_zone.plan.checks import GeneratedName

    return GeneratedName(name, limit, "test name", (field,))
