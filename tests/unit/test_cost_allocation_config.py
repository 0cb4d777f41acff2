"""The issue 26 configuration keys: defaults, and bad values named with field, value and what is allowed."""

from __future__ import annotations

import pytest

from landing_zone.errors import ConfigError


def test_defaults(plan_for) -> None:
    cost = plan_for().config.cost
    assert cost.activate_cost_allocation_tags is True and cost.per_application_budgets is False


@pytest.mark.parametrize(
    ("overrides", "path", "value"),
    [
        ({"cost": {"per_application_budgets": "yes"}}, "cost.per_application_budgets", "yes"),
        ({"cost": {"activate_cost_allocation_tags": 1}}, "cost.activate_cost_allocation_tags", "1"),
        (
            {"applications": [{"name": "chat", "cost_center": "cc", "monthly_budget_usd": -5}]},
            "applications[0].monthly_budget_usd",
            "-5",
        ),
    ],
)
def test_bad_values_name_field_value_and_allowed(plan_for, overrides, path, value) -> None:
    with pytest.raises(ConfigError) as info:
        plan_for(**overrides)
    text = str(info.value)
    assert path in text and value in text, text
    (problem,) = [p for p in info.value.problems if p.path == path]
    assert problem.allowed  # what is allowed
