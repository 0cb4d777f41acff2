"""One rule for whitespace and case (docs/CONFIG.md, "Whitespace and case"): a value is taken exactly as written.
An identifier with whitespace at its start or end, or in the wrong case, is refused with the exact spelling as a
did-you-mean, never silently cleaned; free text (guardrail message, price source note, tag values) keeps its spaces.
Tag keys are compared with the landing zone's own keys, and with each other, without regard to case."""

from __future__ import annotations

import pytest

from landing_zone.errors import ConfigError

REFUSED = {
    # input (overrides of the cdk.json defaults): (key, value shown, allowed text)
    "model alias with a trailing space and capitals": (
        {"models": ["Kimi-K3.1-Pro "]},
        "models[0]",
        "'Kimi-K3.1-Pro '",
        "not in the catalog as written: model IDs and aliases are exact (aliases are lowercase; values are never "
        "trimmed or lower-cased); did you mean 'kimi-k3.1-pro'?",
    ),
    "model alias in capitals": (
        {"models": ["KIMI-K3.1-PRO"]},
        "models[0]",
        "'KIMI-K3.1-PRO'",
        "did you mean 'kimi-k3.1-pro'?",
    ),
    "model ID in capitals": (
        {"models": ["MoonshotAI.Kimi-K3.1-Pro"]},
        "models[0]",
        "'MoonshotAI.Kimi-K3.1-Pro'",
        "did you mean 'moonshotai.kimi-k3.1-pro'?",
    ),
    "application model in capitals": (
        {"applications": [{"name": "app", "cost_center": "cc", "model": "Kimi-K3.1-Pro"}]},
        "applications[0].model",
        "'Kimi-K3.1-Pro'",
        "did you mean 'kimi-k3.1-pro'?",
    ),
    "Region in capitals": ({"home_region": "US-EAST-1"}, "home_region", "'US-EAST-1'", "did you mean 'us-east-1'?"),
    "Region with a leading space": (
        {"compliant_regions": [" us-east-1", "us-east-2", "us-west-2"]},
        "compliant_regions[0]",
        "' us-east-1'",
        "Region codes are lowercase, with nothing around them (values are never trimmed or lower-cased); did you "
        "mean 'us-east-1'?",
    ),
    "source Region in capitals": (
        {"inference_source_regions": ["Us-East-1"]},
        "inference_source_regions[0]",
        "'Us-East-1'",
        "did you mean 'us-east-1'?",
    ),
    "account ID with a trailing space": (
        {"accounts": [{"id": "210987654321 ", "name": "prod"}]},
        "accounts[0].id",
        "'210987654321 '",
        "did you mean '210987654321'?",
    ),
    "name with capitals and a space": (
        {"name": "Kimi-LZ "},
        "name",
        "'Kimi-LZ '",
        "has whitespace at its start or end: values are taken exactly as written, never trimmed (docs/CONFIG.md, "
        "'Whitespace and case'); did you mean 'kimi-lz'?",
    ),
    "name in capitals": ({"name": "Kimi-LZ"}, "name", "'Kimi-LZ'", "did you mean 'kimi-lz'?"),
    "e-mail with a trailing space": (
        {"cost": {"alert_emails": ["finops@example.org "]}},
        "cost.alert_emails[0]",
        "'finops@example.org '",
        "did you mean 'finops@example.org'?",
    ),
    "cost center with spaces": (
        {"applications": [{"name": "app", "cost_center": " cc-1 "}]},
        "applications[0].cost_center",
        "' cc-1 '",
        "did you mean 'cc-1'?",
    ),
    "choice in the wrong case": (
        {"cost": {"budget_scope": "Account"}},
        "cost.budget_scope",
        "'Account'",
        "must be 'auto', 'tagged' or 'account'; did you mean 'account'?",
    ),
    "tag key differing only in case from landing-zone": (
        {"tags": {"Landing-Zone": "mine"}},
        "tags.Landing-Zone",
        "'Landing-Zone'",
        "a key the landing zone sets itself (landing-zone, managed-by, application, cost-center) (it differs from "
        "'landing-zone' only in case or whitespace): tag keys are compared without regard to case",
    ),
    "tag key MANAGED-BY": (
        {"tags": {"MANAGED-BY": "me"}},
        "tags.MANAGED-BY",
        "'MANAGED-BY'",
        "a key the landing zone sets",
    ),
    "two tag keys differing only in case": (
        {"tags": {"Env": "a", "env": "b"}},
        "tags.env",
        "the key 'env'",
        "differs from the key 'Env' only in case",
    ),
    "tag key with a trailing space": (
        {"tags": {"team ": "x"}},
        "tags.team ",
        "the key 'team '",
        "did you mean 'team'?",
    ),
    "tag key with the aws: prefix in capitals": (
        {"tags": {"AWS:owner": "x"}},
        "tags.AWS:owner",
        "the key 'AWS:owner'",
        "cannot start with 'aws:' (in any case)",
    ),
    "tag key over 128 characters": ({"tags": {"k" * 129: "x"}}, "tags.", "the key", "at most 128 characters"),
    "tag value with a forbidden character": ({"tags": {"team": "a;b"}}, "tags.team", "'a;b'", "found ';'"),
}


@pytest.mark.parametrize("case", REFUSED, ids=list(REFUSED))
def test_refused_with_the_key_the_value_and_the_exact_spelling(plan_for, case):
    overrides, key, shown, allowed = REFUSED[case]
    with pytest.raises(ConfigError) as info:
        plan_for(**overrides)
    lines = [line.strip() for line in str(info.value).splitlines() if line.strip().startswith(f"- {key}")]
    assert lines, str(info.value)
    assert any(f"got {shown}" in line and allowed in line for line in lines), lines


ACCEPTED = {
    # the exact spellings of the refused values above
    "model alias": {"models": ["kimi-k3.1-pro"]},
    "model ID": {"models": ["moonshotai.kimi-k3.1-pro"]},
    "application model": {"applications": [{"name": "app", "cost_center": "cc", "model": "kimi-k3.1-pro"}]},
    "Region": {"home_region": "us-east-1", "inference_source_regions": ["us-east-1"]},
    "name": {"name": "kimi-lz"},
    "choice": {"cost": {"budget_scope": "account"}},
    "tag keys that differ from the landing zone's by more than case": {"tags": {"landing-zone-owner": "x", "Env": "a"}},
    "free text keeps its spaces": {
        "content_guardrail": {"enabled": True, "blocked_message": "  Blocked by policy.  "},
        "tags": {"team": " spaced value "},
    },
}


@pytest.mark.parametrize("case", ACCEPTED, ids=list(ACCEPTED))
def test_accepted_exact_spellings(plan_for, case):
    plan = plan_for(**ACCEPTED[case])
    assert plan.config.name


def test_free_text_is_kept_exactly_as_written(plan_for):
    plan = plan_for(
        content_guardrail={"enabled": True, "blocked_message": "  Blocked by policy.  "}, tags={"team": " x "}
    )
    assert plan.config.content_guardrail.blocked_message == "  Blocked by policy.  "
    assert plan.config.tags["team"] == " x "
