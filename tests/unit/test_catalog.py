"""Catalog integrity: every entry has provenance, every Region exists, overlays replace entries."""

from __future__ import annotations

import shutil

import pytest

from landing_zone.core.catalog import CATALOG_DIR, load_catalog
from landing_zone.errors import CatalogError
from tests.conftest import FIXTURES


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_kimi_k31_pro_is_catalogued_and_marked_unverified(catalog):
    model = catalog.resolve_model("kimi-k3.1-pro")
    assert model is not None and model.id == "moonshotai.kimi-k3.1-pro"
    assert model.provider == "Moonshot AI"
    assert model.verified is False
    assert set(model.endpoints) == {"runtime", "mantle"}
    assert {p.scope for p in model.inference_profiles} == {"geographic", "global"}


def test_documented_moonshot_models_keep_their_documented_id_prefixes(catalog):
    assert catalog.resolve_model("kimi-k2-thinking").id == "moonshot.kimi-k2-thinking"
    assert catalog.resolve_model("kimi-k2.5").id == "moonshotai.kimi-k2.5"
    thinking = catalog.resolve_model("moonshot.kimi-k2-thinking")
    assert set(thinking.in_region_regions) == {
        "us-east-1",
        "us-east-2",
        "us-west-2",
        "ap-northeast-1",
        "ap-south-1",
        "sa-east-1",
    }
    assert thinking.inference_profiles == ()


def test_aliases_are_case_insensitive_and_unknown_names_resolve_to_none(catalog):
    assert catalog.resolve_model("KIMI-K3.1-PRO").id == "moonshotai.kimi-k3.1-pro"
    assert catalog.resolve_model("gpt-5") is None


def test_every_entry_has_provenance(catalog):
    for model in catalog.models.values():
        assert model.source and model.as_of, model.id
    for name, limit in catalog.limits.items():
        assert limit.source and limit.as_of, name
    assert catalog.regions_provenance.source


def test_every_referenced_region_is_a_known_commercial_region(catalog):
    known = set(catalog.commercial_regions())
    for model in catalog.models.values():
        referenced = set(model.in_region_regions) | set(model.mantle_regions)
        for p in model.inference_profiles:
            referenced |= set(p.source_regions) | set(catalog.destinations(p))
        assert referenced <= known, (model.id, referenced - known)


def test_global_profile_destinations_expand_to_every_commercial_region(catalog):
    model = catalog.resolve_model("kimi-k3.1-pro")
    (global_profile,) = [p for p in model.inference_profiles if p.scope == "global"]
    assert catalog.destinations(global_profile) == catalog.commercial_regions()
    assert "il-central-1" in catalog.destinations(global_profile)


def test_limits_carry_the_2026_scp_quotas_and_the_unchanged_rcp_quotas(catalog):
    """15 May 2026: 10 SCPs per root, OU or account and 10,240 characters; RCPs stay at 5 and 5,120."""
    assert catalog.limit("scp_max_characters") == 10240
    assert catalog.limit("scp_max_per_target") == 10
    assert catalog.limit("rcp_max_characters") == 5120
    assert catalog.limit("rcp_max_per_target") == 5
    assert catalog.limit("metric_math_max_metrics") == 10


def test_overlay_replaces_a_model_entry(catalog):
    overlaid = load_catalog([FIXTURES / "overlay-eu-with-il.yaml"])
    model = overlaid.resolve_model("kimi-k3.1-pro")
    assert model.verified is True
    assert model.inference_profiles[0].destination_regions == ("eu-central-1", "eu-west-1", "il-central-1")
    # the shipped catalog is untouched
    assert catalog.resolve_model("kimi-k3.1-pro").verified is False


@pytest.mark.parametrize(
    ("mutation", "message"),
    [
        (("in_region_regions: []", "in_region_regions: [mars-north-1]"), "unknown Region 'mars-north-1'"),
        (("- id: us.moonshotai.kimi-k3.1-pro", "- id: us.other-model"), "must be '<prefix>.moonshotai.kimi-k3.1-pro'"),
        (('destination_regions: ["*"]', "destination_regions: [us-east-1]"), "global profiles route to every Region"),
        (("aliases: [kimi-k2.5]", "aliases: [kimi-k3.1-pro]"), "is already used by"),
    ],
)
def test_inconsistent_catalog_is_rejected_with_the_entry_named(tmp_path, mutation, message):
    for name in ("regions.yaml", "limits.yaml", "global_services.yaml"):
        shutil.copy(CATALOG_DIR / name, tmp_path / name)
    text = (CATALOG_DIR / "models.yaml").read_text()
    old, new = mutation
    assert old in text
    (tmp_path / "models.yaml").write_text(text.replace(old, new, 1))
    with pytest.raises(CatalogError) as info:
        load_catalog(catalog_dir=tmp_path)
    assert message in str(info.value)


# --------------------------------------------------------------------------------------------------
# Provenance that travels with the repository
# --------------------------------------------------------------------------------------------------
import re as _re  # noqa: E402

_URL = _re.compile(r"https://[\w.-]+\.[a-z]{2,}(/\S*)?")
_DATE = _re.compile(r"\b20\d\d-\d\d-\d\d\b")
_TITLE = _re.compile(r"'[^']{8,}'")


def _sources(node, path=""):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "source" and isinstance(value, str):
                yield f"{path}.source", value
            else:
                yield from _sources(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _sources(value, f"{path}[{i}]")


def test_every_catalog_source_is_a_public_citation():
    """A URL, or a publication's title with a date: never a file a user of the repository does not have."""
    import yaml as _yaml

    checked = 0
    for path in sorted(CATALOG_DIR.glob("*.yaml")):
        for where, source in _sources(_yaml.safe_load(path.read_text()), path.name):
            checked += 1
            assert "FACTS.md" not in source and "../" not in source, (where, source)
            assert _URL.search(source) or (_TITLE.search(source) and _DATE.search(source)), (where, source)
    assert checked >= 20


def test_no_shipped_file_cites_the_private_facts_file():
    from tests.conftest import ROOT

    offenders = [
        str(p.relative_to(ROOT))
        for p in [*ROOT.glob("landing_zone/**/*"), *ROOT.glob("docs/*"), *ROOT.glob("examples/*"), ROOT / "README.md"]
        if p.is_file() and p.suffix in (".py", ".yaml", ".md") and "shared/FACTS.md" in p.read_text()
    ]
    assert not offenders


def test_a_catalog_file_edited_in_place_is_validated_again(tmp_path):
    """load_catalog_file keeps a validated file's model; an edit that keeps the size and the modification time is
    still seen, and a file that does not validate is refused every time it is read."""
    import os

    from landing_zone.core.catalog.schema import FileModel, Text, load_catalog_file

    class Source(FileModel):
        source: Text

    def refused(field: str, got: object, allowed: str) -> Exception:
        return CatalogError(f"{field}: got {got!r}, allowed: {allowed}")

    path = tmp_path / "sources.yaml"
    path.write_text("source: aaaa\n")
    stamp = path.stat().st_mtime_ns
    first = load_catalog_file(Source, path, error=refused)
    assert first.source == "aaaa" and load_catalog_file(Source, path, error=refused) is first  # kept
    path.write_text("source: bbbb\n")  # same size
    os.utime(path, ns=(stamp, stamp))  # same modification time
    assert load_catalog_file(Source, path, error=refused).source == "bbbb"
    path.write_text("source: ''\n")
    for _ in range(2):
        with pytest.raises(CatalogError, match=r"source: got ''"):
            load_catalog_file(Source, path, error=refused)
