"""The request tables as data (landing_zone/tables): every row loads, every name resolves, a bad row is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from landing_zone.policies import condition_keys, sids
from landing_zone.tables import NO_STATEMENT, TableError, load_attack_rows, load_case_rows

GOOD = """\
- id: r1
  goal: 1
  path: invoke outside
  stops: REGIONS
  attack: {who: attacker, action: "bedrock:InvokeModel", resource: x, context: {"=PROFILE_KEY": p}}
  legit_path: invoke inside
  legit: {who: app_role, action: "bedrock:InvokeModel", resource: y}
"""


def _folder(tmp_path: Path, text: str) -> Path:
    (tmp_path / "01-test.yaml").write_text(text)
    return tmp_path


def test_every_row_of_the_package_loads_with_unique_ids_and_known_sids():
    rows = load_attack_rows()
    assert len(rows) >= 146
    assert len({r.id for r in rows}) == len(rows)
    known = {v for k, v in vars(sids).items() if k.isupper()} | {NO_STATEMENT}
    assert {r.stops for r in rows} <= known
    assert all(r.residual for r in rows if r.stops == NO_STATEMENT)


def test_names_resolve_to_the_builders_constants(tmp_path):
    (row,) = load_attack_rows(_folder(tmp_path, GOOD))
    assert row.stops == sids.REGIONS == "DenyBedrockOutsideCompliantRegions"
    assert row.attack.context == {condition_keys.PROFILE_KEY: "p"}


@pytest.mark.parametrize(
    ("old", "new", "field", "value"),
    [
        ("stops: REGIONS", "stops: DenyBedrockOutsideCompliantRegions", "stops", "DenyBedrockOutsideCompliantRegions"),
        ('"=PROFILE_KEY"', '"=NO_SUCH_KEY"', "attack.context", "=NO_SUCH_KEY"),
        ("goal: 1", "goal: 7", "goal", "7"),
        ("path: invoke outside", "path: invoke outside\n  colour: red", "colour", "red"),
        ("legit_path: invoke inside", "legit_path: invoke inside\n  needs: [moon]", "needs", "moon"),
    ],
)
def test_a_bad_row_names_file_row_field_and_value(tmp_path, old, new, field, value):
    folder = _folder(tmp_path, GOOD.replace(old, new))
    with pytest.raises(TableError) as error:
        load_attack_rows(folder)
    message = str(error.value)
    assert "01-test.yaml" in message and "row 'r1'" in message and field in message and value in message, message


def test_a_repeated_id_is_refused(tmp_path):
    with pytest.raises(TableError, match="r1.*used once"):
        load_attack_rows(_folder(tmp_path, GOOD + GOOD))


CASE = """\
- id: c1
  case: in-Region call
  action: "bedrock:InvokeModel"
  resource: x
  principal: "{app_role}"
  context: {"=PROFILE_KEY": p}
  scp: explicit_deny
  boundary: null
"""


def test_every_decision_case_of_the_package_loads_with_unique_ids():
    rows = load_case_rows()
    assert len(rows) >= 70
    assert len({r.id for r in rows}) == len(rows)


def test_a_case_row_resolves_its_keys_and_keeps_a_null_boundary(tmp_path):
    (row,) = load_case_rows(_folder(tmp_path, CASE))
    assert row.context == {condition_keys.PROFILE_KEY: "p"}
    assert (row.scp, row.boundary, row.boundary_off) == ("explicit_deny", None, "implicit_deny")


def test_a_bad_case_names_file_row_field_and_value(tmp_path):
    with pytest.raises(TableError) as error:
        load_case_rows(_folder(tmp_path, CASE.replace("scp: explicit_deny", "scp: maybe")))
    message = str(error.value)
    assert "01-test.yaml" in message and "row 'c1'" in message and "scp" in message and "maybe" in message, message
