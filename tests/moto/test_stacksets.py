"""member_baseline (one StackSet for 100 accounts): verify the roll-out from the administrator account, and the
baseline inside one member account with that account's parameter overrides (``--stackset-member``)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from landing_zone.assembly import Assembly
from landing_zone.aws import use_client_factory
from landing_zone.verify import verify
from tests.conftest import ROOT
from tests.moto.harness import (
    MANAGEMENT_PROFILE,
    Deployed,
    MotoAccounts,
    deploy_intent,
    member_parameters,
)

pytestmark = pytest.mark.moto

MULTI = ROOT / "examples" / "multi-account-100.yaml"
ADMIN = "444444444444"
MEMBER = "100000000003"  # monthly_budget_usd: 2800 in the example
STACK_SET = "kimi-org-member-baseline"


@pytest.fixture(scope="module")
def multi(synth):
    return synth(MULTI)


@pytest.fixture
def admin(multi, aws_mock) -> Iterator[Deployed]:
    assembly = Assembly.load(multi.outdir)
    accounts = MotoAccounts({None: ADMIN, MANAGEMENT_PROFILE: ADMIN}, multi.plan.config.home_region)
    state = deploy_intent(assembly, multi.plan, accounts)
    with use_client_factory(state.factory()):
        yield state


@pytest.fixture
def member(multi, aws_mock) -> Iterator[Deployed]:
    assembly = Assembly.load(multi.outdir)
    accounts = MotoAccounts({None: MEMBER}, multi.plan.config.home_region)
    state = deploy_intent(assembly.member_view(), multi.plan, accounts, parameters=member_parameters(assembly, MEMBER))
    with use_client_factory(state.factory()):
        yield state


def test_rollout_is_checked_from_the_administrator_account(admin, multi) -> None:
    report = verify(multi.outdir, plan=multi.plan, management_profile=MANAGEMENT_PROFILE)
    assert report.ok, report.text()
    checks = [r.check for r in report.results]
    assert checks.count("scp-attachment") == 4 * checks.count("scp-content")  # every SCP on four target OUs
    instances = next(r for r in report.results if r.check == "stackset-instances")
    assert instances.actual == "100 CURRENT" and "100 named account instance(s)" in instances.expected
    admin.accounts.assert_stubs_consumed()


def test_outdated_and_missing_instances_are_reported(admin, multi) -> None:
    instances = admin.fake.stack_instances[STACK_SET]
    instances[0]["Status"], instances[0]["StatusReason"] = (
        "OUTDATED",
        "Account 100000000000 should have 'AWSCloudFormationStackSetExecutionRole'",
    )
    del instances[5]
    report = verify(multi.outdir, plan=multi.plan, management_profile=MANAGEMENT_PROFILE)
    bad = [r for r in report.results if not r.passed]
    assert [(r.check, r.status.value) for r in bad] == [("stackset-instances", "MISSING")]
    assert (
        "missing: 100000000005/eu-central-1" in bad[0].detail and "100000000000/eu-central-1: OUTDATED" in bad[0].detail
    )


def test_member_account_holds_the_baseline_with_its_own_parameters(member, multi, cli) -> None:
    code, stdout, _ = cli(
        ["verify", "--assembly", str(multi.outdir), "--config", str(MULTI), "--stackset-member", "--json"]
    )
    data = json.loads(stdout)
    assert code == 0, [r for r in data["checks"] if r["status"] != "PASS"]
    rows = {(r["check"], r["resource"]): r for r in data["checks"]}
    assert (
        rows[("budget", "kimi-org-bedrock-monthly")]["expected"] == "2800 USD MONTHLY COST"
    )  # this account's override
    subscriptions = [r for r in data["checks"] if r["check"] == "sns-subscription"]
    assert len(subscriptions) == 1  # AlertEmail2/3 are empty for this account: their subscriptions do not exist
    assert {r["check"] for r in data["checks"]} >= {
        "kms-key",
        "vpc-endpoint-policy",
        "invocation-logging-s3",
        "budget-action",
    }
    member.accounts.assert_stubs_consumed()


def test_member_budget_differing_from_the_accounts_override_is_drift(member, multi) -> None:
    budgets = member.client("budgets")
    spec = budgets.describe_budget(AccountId=MEMBER, BudgetName="kimi-org-bedrock-monthly")["Budget"]
    notifications = budgets.describe_notifications_for_budget(AccountId=MEMBER, BudgetName="kimi-org-bedrock-monthly")[
        "Notifications"
    ]
    budgets.delete_budget(AccountId=MEMBER, BudgetName="kimi-org-bedrock-monthly")
    budgets.create_budget(
        AccountId=MEMBER,
        Budget={
            **{k: spec[k] for k in ("BudgetName", "BudgetType", "TimeUnit", "FilterExpression")},
            "BudgetLimit": {"Amount": "9362.25", "Unit": "USD"},
        },  # the template default
        NotificationsWithSubscribers=[
            {"Notification": n, "Subscribers": [{"SubscriptionType": "EMAIL", "Address": "x@example.com"}]}
            for n in notifications
        ],
    )
    report = verify(multi.outdir, plan=multi.plan, stackset_member=True)
    bad = {(r.check, r.status.value) for r in report.results if not r.passed}
    assert ("budget", "DRIFT") in bad
    assert next(r for r in report.results if r.check == "budget").actual == "9362.25 USD MONTHLY COST"


def test_member_without_the_instance_stack_cannot_resolve_parameters(member, multi) -> None:
    member.forget_stack(f"StackSet-{STACK_SET}")  # the instance stack is gone, its resources are still there
    report = verify(multi.outdir, plan=multi.plan, stackset_member=True)
    budget = next(r for r in report.results if r.check == "budget")
    assert budget.status.value == "ERROR" and "no stack instance of StackSet kimi-org-member-baseline" in budget.detail
    status = next(r for r in report.results if r.check == "stack-status")
    assert status.status.value == "MISSING" and "no stack instance of StackSet" in status.detail
    # what the missing instance stack would hold is there, but not as a deployment: nothing of it passes
    assert not [r for r in report.results if r.passed and r.source.startswith(f"StackSet-{STACK_SET}/")]
    assert report.exit_code == 1


def test_stackset_member_on_an_assembly_without_stacksets_is_a_usage_error(eu, cli) -> None:
    from tests.moto.conftest import EU

    code, _, stderr = cli(["verify", "--assembly", str(eu.outdir), "--config", str(EU), "--stackset-member"])
    assert code == 2 and "no StackSet template in the assembly" in stderr


def test_the_member_detection_rules_are_verified_in_the_member_account(member, multi, cli) -> None:
    """detection (on by default in organization mode): the member template's EventBridge rules are read back in the
    member account (events-rule, -pattern, -targets), and one disabled there is drift."""
    from landing_zone.plan.detection import member_rules

    args = ["verify", "--assembly", str(multi.outdir), "--config", str(MULTI), "--stackset-member", "--json"]
    planned = {
        f"rule kimi-org-detect-{r.id}" for r in member_rules(multi.plan.config, multi.plan.policies.detection.rules)
    }
    rows = [r for r in json.loads(cli(args)[1])["checks"] if r["check"] == "events-rule"]
    assert {r["resource"] for r in rows} == planned and {r["status"] for r in rows} == {"PASS"}
    events = member.client("events", management=False, region=multi.plan.config.home_region)
    events.disable_rule(Name="kimi-org-detect-ec2-security-group")
    code, stdout, _ = cli(args)
    bad = [(r["check"], r["resource"]) for r in json.loads(stdout)["checks"] if r["status"] != "PASS"]
    assert (code, bad) == (1, [("events-rule", "rule kimi-org-detect-ec2-security-group")])
