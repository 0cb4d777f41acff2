"""The protected-resource inventory as data (landing_zone/policies/protected.yaml): every row loads, a bad row is named,
and the fill honours each switch."""

from __future__ import annotations

from pathlib import Path

import pytest

from landing_zone.policies.protected import InventoryError, inventory, load_protected_rows, role_patterns

GOOD = """\
- id: r1
  what: S3 buckets
  owner: landing zone
  service: s3
  resource_types: [bucket]
  recognised_by: name
  arn_patterns: ["arn:{partition}:s3:::{name}-*"]
  samples: [{type: bucket, arn: "arn:{partition}:s3:::{name}-logs-{account}"}]
"""


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "protected.yaml"
    path.write_text(text)
    return path


def test_every_row_of_the_package_loads_with_unique_ids_and_one_role_row():
    rows = load_protected_rows()
    assert len(rows) >= 20
    assert len({r.id for r in rows}) == len(rows)
    assert [r.id for r in rows if r.exempt_roles] == ["roles"]


@pytest.mark.parametrize(
    ("old", "new", "field", "value"),
    [
        ("recognised_by: name", "recognised_by: label", "recognised_by", "label"),
        ("service: s3", "service: s3\n  colour: red", "colour", "red"),
        ("{name}-*", "{nmae}-*", "arn_patterns", "{nmae}-*"),
        ("-logs-{account}", "-logs-{prefix}", "samples.0.arn", "{prefix}"),
        ('["arn:{partition}:s3:::{name}-*"]', '[{value: "x", when: moon}]', "arn_patterns", "moon"),
        ("id: r1", "id: r1\n  when: always", "when", "always"),
    ],
)
def test_a_bad_row_names_file_row_field_and_value(tmp_path, old, new, field, value):
    with pytest.raises(InventoryError) as error:
        load_protected_rows(_file(tmp_path, GOOD.replace(old, new)))
    message = str(error.value)
    assert "protected.yaml" in message and "row 'r1'" in message and field in message and value in message, message


def test_a_repeated_id_and_a_non_list_are_refused(tmp_path):
    with pytest.raises(InventoryError, match="r1.*used once"):
        load_protected_rows(_file(tmp_path, GOOD + GOOD))
    with pytest.raises(InventoryError, match="expected a list of rows, got dict"):
        load_protected_rows(_file(tmp_path, "id: r1\n"))


def test_the_switches_add_their_rows_and_items(plan_for):
    base = plan_for(**{"member_baseline": {"enabled": False}, "self_hosting": {"enabled": False}}).config
    kinds = {e.resource_types[0]: e for e in inventory(base)}
    assert "cluster" not in kinds and kinds["stack"].resource_types == ("stack",)
    assert not any("StackSet-" in p for p in kinds["function"].arn_patterns)
    exempt = "arn:aws:iam::123456789012:role/breakglass"
    assert role_patterns(base, (exempt,))[-1] == exempt
    assert role_patterns(base, ()) == kinds["role"].arn_patterns


def test_stacksets_and_self_hosting_switch_their_items_on(plan_for):
    stacksets = {e.resource_types[0]: e for e in inventory(plan_for("examples/multi-account-100.yaml").config)}
    assert stacksets["stack"].resource_types == ("stack", "stackset")
    assert [p.startswith("StackSet-") for p in (a.rsplit(":", 1)[-1] for a in stacksets["function"].arn_patterns)] == [
        False,
        True,
    ]
    hosting = {e.resource_types[0]: e for e in inventory(plan_for("examples/self-hosting.yaml").config)}
    assert "cluster" in hosting and any("/aws/eks/" in p for p in hosting["log-group"].arn_patterns)
