"""``landing_zone/review/cfn_schemas.json`` is the CloudFormation resource provider schemas' word, not a hand list:
it equals what ``cfn_schema_refresh.py`` derives from the schemas the pinned cfn-lint ships (run with the scanners'
Python, as the review runs cfn-lint), and it covers every resource type the landing zone synthesizes."""

from __future__ import annotations

import json
import subprocess

import pytest

from landing_zone.assembly import load_assembly
from landing_zone.review.deployability import SCHEMAS_FILE, resource_schemas
from landing_zone.review.scanners import scanner_python
from tests.conftest import EXAMPLES, ROOT

REFRESH = ROOT / "landing_zone" / "review" / "cfn_schema_refresh.py"


@pytest.mark.scanners
def test_the_data_file_is_what_the_schemas_cfn_lint_ships_say():
    done = subprocess.run(
        [scanner_python(), str(REFRESH), "--check"], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    fresh, stored = json.loads(done.stdout), json.loads(SCHEMAS_FILE.read_text())
    fresh.pop("generated"), stored.pop("generated")  # the day it was written
    assert fresh == stored, "run `make cfn-schemas` (cfn-lint or its schemas changed)"


def test_the_data_file_says_where_it_comes_from_and_when():
    provenance, types = resource_schemas()
    assert provenance["cfn_lint"] and provenance["schema_date"] and provenance["generated"]
    assert "cfn-lint" in provenance["source"] and provenance["region"] == "us-east-1"
    profile = types["AWS::Bedrock::ApplicationInferenceProfile"]
    assert "/properties/ModelSource" in profile.create_only and profile.names == ("/properties/InferenceProfileName",)
    assert types["AWS::EC2::VPCEndpoint"].names == ()  # its ServiceName names the service, not the endpoint


@pytest.mark.parametrize("example", [None, *EXAMPLES], ids=lambda p: getattr(p, "stem", "default"))
def test_every_resource_type_the_landing_zone_synthesizes_is_in_the_data_file(synth, example):
    _, types = resource_schemas()
    synthesized = {
        str(r.get("Type"))
        for t in load_assembly(synth(example).outdir).templates
        for r in t.resource_map.values()
        if str(r.get("Type")).startswith("AWS::")
    }
    assert synthesized - set(types) == set(), "run `make cfn-schemas ADD='<the types>'`"
