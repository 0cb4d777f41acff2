"""The assembly describes itself: landing-zone.json records the configuration a synth was made from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from landing_zone.assembly import PLAN_RECORD_FILE, AssemblyError, load_assembly
from landing_zone.plan.record import check_matches, config_digest, plan_from_record, plan_record
from tests.conftest import ROOT

EU = ROOT / "examples" / "eu-sovereign.yaml"
OVERLAY = ROOT / "tests" / "fixtures" / "overlay-eu-with-il.yaml"


def test_the_record_rebuilds_the_same_plan(plan_for):
    plan = plan_for(EU)
    record = json.loads(json.dumps(plan_record(plan)))  # what lands on disk
    again = plan_from_record(record, where="test")
    assert config_digest(again.source) == record["config_sha256"] == config_digest(plan.source)
    assert again.routing.as_rows() == plan.routing.as_rows() == record["routing"]["routes"]
    assert again.config == plan.config
    assert "as recorded in test" in again.source.origin


def test_the_record_says_who_made_it_and_from_what(plan_for):
    record = plan_record(plan_for(EU))
    prov = record["provenance"]
    assert set(prov) >= {"commit", "generated_at", "landing_zone", "python", "aws_cdk_lib", "cdk_nag", "cdk_cli"}
    assert prov["aws_cdk_lib"][0].isdigit() and prov["generated_at"].endswith("+00:00")
    assert record["name"] == "kimi-eu" and len(record["config_sha256"]) == 64


def test_overlays_are_recorded_by_content_not_by_path(plan_for, tmp_path):
    """The hash must not change with the directory a config is synthesized from."""
    copy = tmp_path / "elsewhere.yaml"
    copy.write_text(OVERLAY.read_text())
    regions = ["eu-central-1", "eu-west-1", "eu-west-3", "il-central-1"]  # the overlay adds an il-central-1 leg
    here = plan_for(EU, catalog_overlays=[str(OVERLAY)], compliant_regions=regions)
    there = plan_for(EU, catalog_overlays=[str(copy)], compliant_regions=regions)
    assert config_digest(here.source) == config_digest(there.source)
    rebuilt = plan_from_record(plan_record(there), where="test")  # the overlay file itself is not needed
    assert rebuilt.catalog.models.keys() == there.catalog.models.keys()


def test_an_edited_record_is_refused(plan_for):
    record = plan_record(plan_for(EU))
    record["config"] = {**record["config"], "compliant_regions": ["eu-central-1", "us-east-1"]}
    with pytest.raises(AssemblyError, match="does not match its own hash"):
        plan_from_record(record, where="--assembly x")


def test_a_different_config_given_for_an_assembly_is_refused(plan_for):
    record = plan_record(plan_for(EU))
    check_matches(plan_for(EU), record, where="--assembly x")  # the same one passes
    with pytest.raises(AssemblyError, match="synthesized from a different configuration"):
        check_matches(plan_for(ROOT / "examples" / "us-single-account.yaml"), record, where="--assembly x")


def test_the_synthesized_assembly_carries_the_record(synth):
    assembly = load_assembly(synth(EU).outdir)
    assert assembly.plan_record is not None and assembly.plan_record["name"] == "kimi-eu"
    assert (Path(assembly.path) / PLAN_RECORD_FILE).is_file()
