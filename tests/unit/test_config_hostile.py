"""Hostile and malformed configuration input: every case is one ConfigError naming the key (or the file and
line) and the problem, never a hang, a traceback or a value silently reinterpreted.

Small files live in tests/fixtures/hostile/; large and deep ones are generated here in tmp_path."""

from __future__ import annotations

import json
import time

import pytest

from landing_zone.core import datafile as config_loading
from landing_zone.core.config import (
    LANDING_ZONE_TAGS_MAX,
    MAX_MONTHLY_USD,
    TAGS_MAX_PER_RESOURCE,
    read_cdk_json_defaults,
    read_config_file,
)
from landing_zone.core.datafile import MAX_CONFIG_BYTES, MAX_NESTING_DEPTH
from landing_zone.errors import MAX_SHOWN_PROBLEMS, ConfigError
from tests.conftest import FIXTURES

HOSTILE = FIXTURES / "hostile"


def problems_of(exc: ConfigError) -> dict[str, str]:
    return {p.path: str(p) for p in exc.problems}


def refused(plan_for, *args, **kwargs) -> dict[str, str]:
    with pytest.raises(ConfigError) as info:
        plan_for(*args, **kwargs)
    return problems_of(info.value)


# -- files that cannot be read as a configuration --------------------------------------------------------------
FILE_CASES = [
    # file, where the problem is reported, a fragment of the message
    ("alias-bomb.yaml", "config (line 2, column 4)", "got the anchor &a; YAML anchors, aliases and merge keys"),
    ("merge-key.yaml", "config (line 2, column 7)", "got the anchor &base"),
    ("not-utf8.yaml", "config (line 2)", "got the byte 0xe9 at offset 74, which is not UTF-8; the file must be UTF-8"),
    ("utf16.yaml", "config (line 1)", "got the byte 0xff at offset 0, which is not UTF-8"),
    ("landing-zone-null.yaml", "landing_zone", "got null; must be a mapping of config keys"),
    ("top-level-list.yaml", "config", "got a list; the file must hold a mapping of config keys"),
    ("top-level-scalar.yaml", "config", "got a text value; the file must hold a mapping of config keys"),
    (
        "duplicate-key.yaml",
        "cost.workload.requests_per_day",
        "got the key 'requests_per_day' twice (lines 4 and 6); a key may appear once per mapping",
    ),
    (
        "duplicate-key.json",
        "allow_global_inference",
        'twice in one object (lines where "allow_global_inference" is a key: 3, 4)',
    ),
    ("python-tag.yaml", "config (line 1, column 7)", "the YAML tag '!!python/object/apply:os.system' is not allowed"),
    ("binary-tag.yaml", "config (line 1, column 7)", "the YAML tag '!!binary' is not allowed"),
    ("tab-indent.yaml", "config (line 2, column 1)", "a tab: YAML indents with spaces only"),
    ("two-documents.yaml", "config (line 2, column 1)", "expected a single document"),
]


@pytest.mark.parametrize(("name", "path", "fragment"), FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_unreadable_files_are_one_problem_naming_the_file_and_the_place(name, path, fragment):
    with pytest.raises(ConfigError) as info:
        read_config_file(HOSTILE / name)
    assert str(info.value).startswith(f"invalid config file {HOSTILE / name}: 1 problem(s)")
    problems = problems_of(info.value)
    assert path in problems, problems
    assert fragment in problems[path]


def test_alias_bomb_is_refused_at_the_first_anchor_before_anything_is_built(monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("the YAML document was composed or constructed")

    monkeypatch.setattr(config_loading._ConfigYamlLoader, "get_single_node", never)
    monkeypatch.setattr(config_loading._ConfigYamlLoader, "construct_document", never)
    start = time.perf_counter()
    with pytest.raises(ConfigError, match="anchor &a"):
        read_config_file(HOSTILE / "alias-bomb.yaml")
    assert time.perf_counter() - start < 2  # before: minutes and 5.5 GB


def test_a_file_over_the_size_cap_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    big = tmp_path / "big.yaml"
    big.write_text("# padding\n" * (MAX_CONFIG_BYTES // 10 + 1))
    monkeypatch.setattr(config_loading, "parse_data", lambda *a, **k: pytest.fail("parsed"))
    with pytest.raises(ConfigError) as info:
        read_config_file(big)
    (problem,) = info.value.problems
    assert str(problem) == (
        f"config: got a file of {big.stat().st_size:,} bytes; a config file may hold at most 1,048,576 bytes (1 MiB, "
        "MAX_CONFIG_BYTES in landing_zone/core/datafile.py): a real configuration is a few kilobytes"
    )


@pytest.mark.parametrize("levels", [MAX_NESTING_DEPTH + 1, 10_000])
def test_deeply_nested_yaml_is_refused_with_the_cap(tmp_path, levels):
    deep = tmp_path / "deep.yaml"
    deep.write_text("tags: " + "[" * levels + "]" * levels + "\n")
    with pytest.raises(ConfigError) as info:
        read_config_file(deep)
    (problem,) = info.value.problems
    # the top-level mapping is level 1, so the 64th '[' (after "tags: ") is one too many
    assert problem.path == f"config (line 1, column {6 + MAX_NESTING_DEPTH})"
    assert "a config may nest lists and mappings at most 64 levels deep" in str(problem)


def test_deeply_nested_block_mappings_are_refused(tmp_path):
    deep = tmp_path / "deep-block.yaml"
    deep.write_text("".join(f"{'  ' * i}k:\n" for i in range(300)))
    with pytest.raises(ConfigError, match="at most 64 levels deep"):
        read_config_file(deep)


def test_deeply_nested_json_is_refused_without_a_recursion_error(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text('{"tags": ' + "[" * 100_000 + "]" * 100_000 + ', "s": "[[[[ in a string ]"}')
    with pytest.raises(ConfigError) as info:
        read_config_file(deep)
    assert "at most 64 levels deep" in str(info.value)
    shallow = tmp_path / "shallow.json"
    shallow.write_text(json.dumps({"name": "[" * 100 + "{{{ brackets in strings do not count"}))
    assert read_config_file(shallow)["name"].startswith("[[[")


def test_deep_values_from_code_or_cdk_context_are_refused_without_recursion(plan_for):
    value: list = []
    for _ in range(5_000):
        value = [value]
    problems = refused(plan_for, tags={"a": value})
    assert problems == {
        "tags.a": "tags.a: got more than 64 levels of nesting; a config may nest lists and mappings "
        "at most 64 levels deep"
    }


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_an_integer_with_thousands_of_digits_is_refused(tmp_path, suffix):
    f = tmp_path / f"long{suffix}"
    f.write_text(json.dumps({"cost": {"workload": {"requests_per_day": "X"}}}).replace('"X"', "9" * 5000))
    with pytest.raises(ConfigError) as info:
        read_config_file(f)
    assert "Traceback" not in str(info.value)
    assert len(str(info.value)) < 600


def test_a_directory_or_a_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="is a directory, not a regular file: give the path of a YAML or JSON file"):
        read_config_file(tmp_path)
    with pytest.raises(ConfigError, match="the file does not exist"):
        read_config_file(tmp_path / "nope.yaml")


def test_empty_file_and_utf8_byte_order_mark_are_fine(tmp_path):
    (tmp_path / "empty.yaml").write_text("")
    assert read_config_file(tmp_path / "empty.yaml") == {}
    (tmp_path / "bom.yaml").write_bytes("\ufeffname: kimi-bom\n".encode())
    assert read_config_file(tmp_path / "bom.yaml") == {"name": "kimi-bom"}


def test_hostile_cdk_json_is_a_config_error_naming_it(tmp_path):
    dup = tmp_path / "cdk.json"
    dup.write_text('{"context": {"landing_zone": {"name": "a-lz", "name": "b-lz"}}}')
    with pytest.raises(ConfigError, match=r"(?s)invalid cdk.json file .*name: got the key 'name' twice"):
        read_cdk_json_defaults(dup)
    dup.write_text('{"context": {"landing_zone": "not a mapping"}}')
    with pytest.raises(ConfigError, match="context.landing_zone: got 'not a mapping'; must be a mapping"):
        read_cdk_json_defaults(dup)


def test_catalog_overlays_are_read_under_the_same_rules(plan_for):
    problems = refused(plan_for, catalog_overlays=[str(HOSTILE / "alias-bomb.yaml")])
    assert problems["catalog_overlays[0] (line 2, column 4)"].endswith("write the values out")


# -- YAML 1.2 scalars: what you write is what you get ----------------------------------------------------------
def test_yaml_scalars_follow_the_1_2_core_schema(tmp_path):
    f = tmp_path / "scalars.yaml"
    f.write_text("a: 010\nb: 1e3\nc: 2024-01-01\nd: on\ne: True\nf: ~\ng: 0x1F\nh: 1_000\ni: 0o17\nj: 12:30\n")
    assert read_config_file(f) == {
        "a": 10,
        "b": 1000.0,
        "c": "2024-01-01",
        "d": "on",
        "e": True,
        "f": None,
        "g": 31,
        "h": 1000,
        "i": 15,
        "j": "12:30",
    }


# -- no silent reinterpretation --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("source", "path", "got"),
    [
        ("string-boolean.yaml", "allow_global_inference", "'yes'"),
        ("yaml11-boolean.yaml", "policy_guardrails.tamper_protection", "'off'"),
    ],
)
def test_booleans_take_real_booleans_only(plan_for, source, path, got):
    problems = refused(plan_for, HOSTILE / source)
    assert (
        problems[path] == f"{path}: got {got}; must be true or false (quoted text and yes/no/on/off are not booleans)"
    )


@pytest.mark.parametrize("value", ["true", 1, 0, "1", None])
def test_security_switches_refuse_anything_but_true_or_false(plan_for, value):
    problems = refused(plan_for, policy_guardrails={"deny_bearer_token_calls": value}, cost={"kill_switch": value})
    assert "must be true or false" in problems["policy_guardrails.deny_bearer_token_calls"]
    assert "must be true or false" in problems["cost.kill_switch"]


def test_numbers_refuse_booleans_nan_and_infinity(plan_for):
    problems = refused(plan_for, HOSTILE / "boolean-number.yaml")
    assert problems["cost.budget_headroom"] == "cost.budget_headroom: got true; must be a number, not true/false"
    assert problems["cost.notify_actual_percent[1]"].endswith("got true; must be a number, not true/false")
    problems = refused(plan_for, HOSTILE / "nan-inf.yaml")
    for path, got in [
        ("cost.workload.requests_per_day", "nan"),
        ("cost.monthly_budget_usd", "inf"),
        ("cost.anomaly_threshold_usd", "'-inf'"),
    ]:
        assert problems[path].startswith(f"{path}: got {got}; must be a finite number")


# -- AWS limits up front ----------------------------------------------------------------------------------------
def test_tags_follow_the_aws_rules(plan_for):
    problems = refused(plan_for, HOSTILE / "bad-tags.yaml")
    assert problems["tags.aws:created-by"].endswith(
        "a tag key cannot start with 'aws:' (in any case): the prefix is reserved for AWS"
    )
    assert "cannot start with 'aws:'" in problems["tags.AWS:Team"]
    assert problems['tags.""'] == "tags.\"\": got the key ''; a tag key cannot be empty"
    assert "a key the landing zone sets itself" in problems["tags.landing-zone"]
    assert problems["tags.owner"].endswith("may hold only letters, digits, spaces and + - = . _ : / @ (found '<', '>')")
    assert problems["tags.long-value"].endswith("a tag value has at most 256 characters, this one has 268")
    assert len(problems["tags.long-value"]) < 400  # the value is echoed cut short


def test_tags_leave_room_for_the_landing_zones_own(plan_for):
    room = TAGS_MAX_PER_RESOURCE - LANDING_ZONE_TAGS_MAX
    assert plan_for(tags={f"k{i}": "v" for i in range(room)}).config.tags["k0"] == "v"
    problems = refused(plan_for, tags={f"k{i}": "v" for i in range(60)})
    assert problems["tags"].startswith(
        f"tags: got 60 tags; at most {room}: AWS allows 50 tags per resource and the "
        "landing zone puts up to 5 of its own"
    )
    assert plan_for(tags={"team": "platform été", "path": "a/b:c=d+e@f_g.h-i"}).config.tags["team"] == "platform été"


def test_cost_centers_become_tags_and_follow_the_rules(plan_for):
    problems = refused(plan_for, applications=[{"name": "bot", "cost_center": "cc#1"}])
    assert problems["applications[0].cost_center"].endswith("(found '#') (it becomes the cost-center tag)")


@pytest.mark.parametrize(
    ("overrides", "path", "fragment"),
    [
        (
            {"cost": {"workload": {"requests_per_day": 1e39}}},
            "cost.workload.requests_per_day",
            "got 1e+39; must be less than or equal to 1000000000",
        ),
        (
            {"cost": {"workload": {"input_tokens_per_request": 2_000_000}}},
            "cost.workload.input_tokens_per_request",
            "less than or equal to 1048576",
        ),
        ({"cost": {"monthly_budget_usd": 1e13}}, "cost.monthly_budget_usd", "less than or equal to 10000000000"),
        ({"cost": {"anomaly_threshold_usd": 1e300}}, "cost.anomaly_threshold_usd", "less than or equal to 10000000000"),
        (
            {"accounts": [{"id": "210987654321", "name": "prod", "monthly_budget_usd": 1e20}]},
            "accounts[0].monthly_budget_usd",
            "less than or equal to 10000000000",
        ),
        (
            {
                "cost": {
                    "workload": {
                        "requests_per_day": 1e9,
                        "input_tokens_per_request": 1e6,
                        "output_tokens_per_request": 48_576,
                    }
                }
            },
            "cost.workload",
            f"exceeds {MAX_MONTHLY_USD:,} USD, the most the landing zone sets",
        ),
        (
            {"cost": {"workload": {"input_tokens_per_request": 1_000_000, "output_tokens_per_request": 100_000}}},
            "cost.workload.input_tokens_per_request",
            "a request would hold 1,100,000 tokens, more than the largest "
            "context window of the configured models (1,048,576 tokens)",
        ),
        (
            {"cost": {"workload": {"requests_per_day": 0}}},
            "cost.workload.requests_per_day",
            "the computed monthly budget would be 0 USD",
        ),
    ],
)
def test_workload_and_money_have_upper_bounds_that_keep_budgets_and_alarms_valid(plan_for, overrides, path, fragment):
    problems = refused(plan_for, **overrides)
    assert fragment in problems[path], problems


def test_the_largest_allowed_workload_still_gives_plain_budget_and_threshold_numbers(plan_for):
    from landing_zone.cost.alarms import hourly_threshold_usd

    plan = plan_for(
        cost={
            "workload": {
                "requests_per_day": 1e9,
                "input_tokens_per_request": 60_000,
                "output_tokens_per_request": 12_000,
            },
            "alarm_factor": 100,
        }
    )
    budget = plan.budget.usd
    assert 1e9 < budget <= MAX_MONTHLY_USD
    threshold = hourly_threshold_usd(budget, plan.prices.hours_per_month, 100)
    for amount in (budget, threshold):
        assert "e" not in f"{amount:.2f}" and "e" not in json.dumps(round(amount, 2))


# -- messages a person can act on -------------------------------------------------------------------------------
def test_every_cross_field_problem_is_reported_at_its_own_key(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(HOSTILE / "cross-field.yaml")
    problems = problems_of(info.value)
    assert set(problems) == {
        "home_region",
        "applications[0].account",
        "applications[1].name",
        "network.availability_zones[0]",
        "network.availability_zones[1]",
    }
    assert problems["home_region"] == (
        "home_region: got 'eu-west-1'; not in compliant_regions [eu-central-1, eu-west-3]: the landing zone's own "
        "endpoints, keys and logs must live in a compliant Region; add eu-west-1 to compliant_regions or choose "
        "home_region from them"
    )
    assert problems["applications[0].account"].endswith(
        "not the name or ID of an entry of accounts: did you mean 'eu-prod'?"
    )
    assert "repeats applications[0].name" in problems["applications[1].name"]
    assert "(top level)" not in str(info.value)
    assert max(len(line) for line in str(info.value).splitlines()) < 400  # never a dump of the merged config


def test_nearest_region_and_model_are_suggested(plan_for):
    problems = refused(plan_for, HOSTILE / "typo-region-model.yaml")
    assert problems["home_region"].endswith("not a known commercial Region: did you mean 'eu-west-1' or 'us-west-1'?")
    assert problems["compliant_regions[1]"].endswith("did you mean 'eu-central-1' or 'me-central-1'?")
    assert problems["models[0]"].endswith("not in the catalog: did you mean 'kimi-k3.1-pro' or 'kimi-k3-1-pro'?")
    far = refused(plan_for, home_region="xx-nowhere-9")["home_region"]
    assert "none is close" in far and len(far) < 250


def test_type_mismatches_are_in_plain_words(plan_for):
    problems = refused(
        plan_for,
        accounts="abc",
        network="x",
        tags=[1],
        compliant_regions=None,
        cost={"alarm_period_seconds": 300.5, "budget_headroom": float("inf"), "workload": {"requests_per_day": "lots"}},
    )
    assert problems["accounts"] == "accounts: got 'abc'; must be a list, not a text value"
    assert problems["network"] == "network: got 'x'; must be a mapping of keys (`key: value`), not a text value"
    assert problems["tags"] == "tags: got [1]; must be a mapping of keys (`key: value`), not a list"
    assert problems["cost.alarm_period_seconds"].endswith("must be a whole number (no fractional part)")
    assert problems["cost.workload.requests_per_day"].endswith("must be a number, not a text value")
    assert (
        problems["cost.budget_headroom"]
        == "cost.budget_headroom: got inf; must be a finite number (not NaN or infinity)"
    )
    text = "\n".join(problems.values())
    for pydantic_words in ("valid tuple", "instance of", "valid dictionary", "Input should"):
        assert pydantic_words not in text


def test_a_misplaced_or_misspelt_key_says_where_it_belongs(plan_for):
    problems = refused(plan_for, requests_per_day=5, netwrok={})
    assert problems["requests_per_day"].endswith("unknown key here: it belongs under cost.workload.requests_per_day")
    assert problems["netwrok"].endswith("unknown key: did you mean 'network'?")


def test_echoed_values_are_cut_and_the_list_of_problems_is_capped(plan_for):
    problems = refused(plan_for, name="x" * 5000)
    assert len(problems["name"]) < 400 and "(5,000 characters)" in problems["name"]
    with pytest.raises(ConfigError) as info:
        plan_for(**{f"unknown_{i}": i for i in range(500)})
    lines = str(info.value).splitlines()
    assert lines[0].endswith("500 problem(s)") and len(lines) == MAX_SHOWN_PROBLEMS + 2
    assert lines[-1] == f"  ... and {500 - MAX_SHOWN_PROBLEMS} more (fix these first)"


def test_a_long_list_of_bad_entries_lists_the_first_20_then_says_there_are_more(plan_for):
    problems = refused(plan_for, compliant_regions=[f"xx-{i}" for i in range(10_000)])
    assert set(problems) == {f"compliant_regions[{i}]" for i in range(20)} | {"compliant_regions"}
    assert problems["compliant_regions"] == (
        "compliant_regions: got more than 20 problems; only the first 20 are listed: fix these and validate again"
    )


# -- placeholders ------------------------------------------------------------------------------------------------
def test_placeholders_are_exposed_on_the_plan(plan_for):
    plan = plan_for(organization=None)
    assert [(p.path, p.got) for p in plan.placeholders] == [("accounts[0].id", "111111111111")]
    assert plan.placeholder_warning == (
        "1 placeholder value(s) left in the configuration: a placeholder account ID at accounts[0].id "
        "('111111111111'). The configuration is valid and synthesizes; replace them with your own before deploying"
    )
    default = plan_for()  # the default is an organization with example IDs, said as such
    assert [p.path for p in default.placeholders] == [
        "accounts[0].id",
        "organization.management_account_id",
        "organization.organization_id",
    ]
    eu = plan_for(FIXTURES.parent.parent / "examples" / "eu-sovereign.yaml")
    found = {p.path: p.allowed for p in eu.placeholders}
    assert found["organization.management_account_id"] == "a placeholder account ID"
    assert found["applications[1].trusted_principal_arns[0]"] == "a placeholder account ID"
    assert found["organization.organization_id"] == "an example organization ID"
    assert found["cost.alert_emails[0]"].startswith("an e-mail address at a reserved example domain")


def test_real_looking_values_are_not_placeholders(plan_for):
    plan = plan_for(
        accounts=[{"id": "210987654321", "name": "prod"}],
        cost={"alert_emails": ["finops@corp.test"]},
        organization={"management_account_id": "310987654321", "organization_id": "o-a1b2c3d4e5"},
    )
    assert plan.placeholders == () and plan.placeholder_warning is None
