"""``preflight`` against an organization that already exists (moto; Stubber for GetAccountDataRetention and
GetAnomalyMonitors): it must find every conflict that organization holds, and nothing in a clean one.

The organization (tests/moto/preflight_org.py) is the EU example's: management account, the configured OU with the
two accounts, Control Tower-like SCPs (a Region deny leaving out one destination Region of the configured ``eu.``
profile, a CloudTrail protection), two customer SCPs per target, another team's invocation logging configuration,
data retention mode and SERVICE anomaly monitor, ``CDKToolkit`` stacks of the default qualifier, an AWS Config
recorder and a delegated administrator.  Every expectation is derived from that state and the plan.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from landing_zone.aws import use_client_factory
from landing_zone.preflight import Report, Severity, intent, preflight
from landing_zone.preflight.organization import CONTROL_TOWER, CUSTOMER, FULL_AWS_ACCESS
from tests.conftest import ROOT
from tests.moto.preflight_org import (
    MANAGEMENT_PROFILE,
    OrgState,
    attach,
    cdk_toolkit_stack,
    denied_destination,
    existing_organization,
)

EU = ROOT / "examples" / "eu-sovereign.yaml"


@pytest.fixture(scope="module")
def plan(plan_for):
    return plan_for(EU)


def run(plan, state: OrgState, **kwargs) -> Report:
    kwargs.setdefault("management_profile", MANAGEMENT_PROFILE)
    with use_client_factory(state.factory()):
        return preflight(plan, **kwargs)


def conflicts(report: Report) -> set[tuple[str, str]]:
    return {(f.check, f.where) for f in report.findings if f.severity is Severity.CONFLICT}


def one(report: Report, check: str, severity: Severity = Severity.CONFLICT):
    found = [f for f in report.findings if f.check == check and f.severity is severity]
    assert len(found) == 1, found
    return found[0]


def attached_to(state: OrgState, plan, target: str) -> list[str]:
    org = state.moto("organizations", plan.config.organization.management_account_id)
    return [
        p["Name"] for p in org.list_policies_for_target(TargetId=target, Filter="SERVICE_CONTROL_POLICY")["Policies"]
    ]


# --------------------------------------------------------------------------------------------------
# The organization of the issue: every conflict, and only those
# --------------------------------------------------------------------------------------------------


def test_preflight_finds_every_conflict_of_an_existing_organization(plan, aws_mock):
    state = existing_organization(plan)
    report = run(plan, state)
    cfg = plan.config
    dep, mgmt, home = cfg.deployment_account, cfg.organization.management_account_id, cfg.home_region
    (ou,) = cfg.organization.target_ids
    expected = {
        ("scp-route", f"account {dep}"),  # Control Tower's Region deny leaves out a destination of the eu. profile
        ("invocation-logging", f"account {dep} {home}"),  # another team's configuration
        ("data-retention", f"account {dep} {home}"),  # 'default', set by someone else; the config sets another mode
        ("anomaly-monitor", f"account {dep}"),  # another SERVICE monitor
    }
    if (
        intent.toolkit_stack_name(plan) == intent.DEFAULT_TOOLKIT_STACK
    ):  # the bootstrap would re-parameterise CDKToolkit
        expected |= {("cdk-bootstrap", f"account {dep} {home}"), ("cdk-bootstrap", f"account {mgmt} {home}")}
    after_deploy = len(attached_to(state, plan, ou)) + len(intent.landing_zone_scps(plan, ou))
    if after_deploy > intent.scp_quota(plan):
        expected.add(("scp-slots", f"target {ou}"))
    assert conflicts(report) == expected
    assert not [f for f in report.findings if f.severity is Severity.UNCHECKED]
    assert report.exit_code == 1
    state.assert_all_asked()


def test_the_region_deny_fails_the_destination_it_leaves_out_and_nothing_else(plan, aws_mock):
    """Attacker/neighbour of the evaluation: the left-out destination leg is denied; the profile's source leg, its
    other destinations, the Mantle path and the deploy's IAM calls (a global service Control Tower exempts) are not."""
    profile, excluded = denied_destination(plan)
    report = run(plan, existing_organization(plan))
    finding = one(report, "scp-route")
    assert finding.found.startswith(f"{profile} destination {excluded} (as ")
    assert "aws-guardrails-AbCdEf/GRREGIONDENY (Control Tower, at ou-abcd-11111111)" in finding.found
    assert finding.found.count(" destination ") == 1 and " from " not in finding.found
    assert f"remove {excluded} from compliant_regions" in finding.resolve
    assert "Control Tower owns aws-guardrails-*" in finding.resolve
    assert not [f for f in report.findings if f.check == "deploy-denied"]


def test_slot_arithmetic_counts_what_is_attached_directly_and_not_what_is_inherited(plan, aws_mock):
    state = existing_organization(plan)
    (ou,) = plan.config.organization.target_ids
    report = run(plan, state)
    rows = {r.target: r for r in report.slots}
    # the OU and the governed accounts the layout attaches to directly (each a target of its own)
    assert list(rows) == list(intent.attachment_targets(plan))
    row = rows[ou]
    names = attached_to(state, plan, ou)
    assert row.kinds == {
        FULL_AWS_ACCESS: [n for n in names if n == "FullAWSAccess"],
        CONTROL_TOWER: sorted(n for n in names if n.startswith("aws-guardrails-")),
        CUSTOMER: sorted(n for n in names if n.startswith("corp-")),
    }
    assert row.landing_zone == [name for name, _ in intent.landing_zone_scps(plan, ou)]
    assert row.total == len(names) + len(row.landing_zone)  # the root's FullAWSAccess is inherited: no slot here
    assert row.over == max(0, row.total - intent.scp_quota(plan))
    for account in plan.config.account_ids:  # the guardrails of the perimeter, on the governed accounts themselves
        assert rows[account].landing_zone == [name for name, _ in intent.landing_zone_scps(plan, account)]
        assert len(rows[account].landing_zone) > len(row.landing_zone) >= 1


def test_a_full_target_is_a_conflict_that_says_by_how_much_and_what_can_move(plan_for, aws_mock):
    plan = plan_for(EU, policy_guardrails={"scp_max_per_target": 10, "scp_max_characters": 10240})
    state = existing_organization(plan)
    (ou,) = plan.config.organization.target_ids
    org = state.moto("organizations", plan.config.organization.management_account_id)
    fits = run(plan, state)
    free = intent.scp_quota(plan) - {r.target: r for r in fits.slots}[ou].total
    assert ("scp-slots", f"target {ou}") not in conflicts(fits) and free >= 0
    for i in range(free + 2):  # two more than the target has room for
        statement = {"Effect": "Deny", "Action": f"gamelift:Op{i}", "Resource": "*"}
        attach(org, f"corp-extra-{i}", {"Version": "2012-10-17", "Statement": [statement]}, [ou])
    full = one(run(plan, state), "scp-slots")
    assert "exceeds the quota by 2" in full.deploy
    assert "move 2 of your own SCPs" in full.resolve and "corp-deny-root-user" in full.resolve


def test_a_clean_organization_exits_0(plan, aws_mock, cli):
    state = existing_organization(
        plan,
        control_tower=False,
        customer_scps=False,
        foreign_logging=False,
        foreign_retention=None,
        foreign_monitor=False,
        cdk_toolkit=False,
        delegated_admin=False,
    )  # a recording AWS Config recorder (Control Tower's) stays: the EU example's Config rules need one
    with use_client_factory(state.factory()):
        code, out, err = cli(["preflight", "--config", str(EU), "--management-profile", MANAGEMENT_PROFILE])
    assert code == 0, out + err
    assert "0 conflict, 0 unchecked" in out and "OK: nothing blocks the deploy" in out


def test_preflight_exits_1_with_every_conflict_in_json(plan, aws_mock, cli):
    state = existing_organization(plan)
    with use_client_factory(state.factory()):
        code, out, err = cli(["preflight", "--config", str(EU), "--management-profile", MANAGEMENT_PROFILE, "--json"])
    assert code == 1, err
    data = json.loads(out)
    assert data["ok"] is False
    in_process = run(plan, state)  # the same organization, asked again
    assert {(f["check"], f["where"]) for f in data["findings"] if f["severity"] == "conflict"} == conflicts(in_process)
    assert len(data["findings"]) == len(in_process.findings)
    assert data["scps_applying"][plan.config.deployment_account][0]["kind"] == FULL_AWS_ACCESS


# --------------------------------------------------------------------------------------------------
# SCPs: the customer's, attacker/neighbour pairs of the evaluation
# --------------------------------------------------------------------------------------------------


def test_a_customer_model_deny_fails_every_runtime_path_and_not_mantle(plan, aws_mock):
    """A customer SCP allowing only Anthropic models on the account: every runtime leg of Kimi is denied (named),
    while the Mantle path, which the statement does not cover, is not reported."""
    state = existing_organization(plan, control_tower=False)
    org = state.moto("organizations", plan.config.organization.management_account_id)
    deny_others = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "OnlyAnthropic",
                "Effect": "Deny",
                "Action": ["bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"],
                "NotResource": [
                    "arn:aws:bedrock:*::foundation-model/anthropic.*",
                    "arn:aws:bedrock:*:*:inference-profile/*anthropic.*",
                ],
            }
        ],
    }
    attach(org, "corp-bedrock-model-allowlist", deny_others, [plan.config.deployment_account])
    report = run(plan, state)
    routes = [f for f in report.findings if f.check == "scp-route"]
    assert routes and all("corp-bedrock-model-allowlist/OnlyAnthropic (customer" in f.found for f in routes)
    runtime = [r for r in plan.routing.compliant_routes() if r.endpoint == "runtime"]
    assert {f.found.split(" ")[0] for f in routes} == {r.invoke_id for r in runtime}
    assert not [f for f in routes if "Mantle" in f.found]


def test_a_statement_the_evaluator_cannot_read_is_unchecked_only_where_it_applies(plan, aws_mock):
    state = existing_organization(plan, control_tower=False)
    org = state.moto("organizations", plan.config.organization.management_account_id)

    def ip_deny(action: str) -> dict:
        condition = {"NotIpAddress": {"aws:SourceIp": "192.0.2.0/24"}}
        statement = {
            "Sid": "CorpNetworkOnly",
            "Effect": "Deny",
            "Action": action,
            "Resource": "*",
            "Condition": condition,
        }
        return {"Version": "2012-10-17", "Statement": [statement]}

    attach(org, "corp-s3-from-office", ip_deny("s3:*"), [plan.config.deployment_account])
    assert not [f for f in run(plan, state).findings if f.check == "scp-unreadable"]
    attach(org, "corp-bedrock-from-office", ip_deny("bedrock:*"), [plan.config.deployment_account])
    report = run(plan, state)
    unread = [f for f in report.findings if f.check == "scp-unreadable"]
    assert unread and all(f.severity is Severity.UNCHECKED for f in unread)
    assert all("corp-bedrock-from-office/CorpNetworkOnly" in f.found and "NotIpAddress" in f.found for f in unread)
    assert not [f for f in unread if "corp-s3-from-office" in f.found]
    assert report.exit_code == 1


def test_a_level_without_an_allow_denies_the_landing_zone_and_its_deploy(plan, aws_mock):
    """FullAWSAccess detached from the account and an allow-list without Bedrock: nothing the landing zone does there
    is allowed (implicit deny at that level), its deploy included."""
    state = existing_organization(plan, control_tower=False, customer_scps=False)
    dep = plan.config.deployment_account
    org = state.moto("organizations", plan.config.organization.management_account_id)
    allow_ec2 = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "ec2:*", "Resource": "*"}]}
    attach(org, "corp-allow-ec2-only", allow_ec2, [dep])
    org.detach_policy(PolicyId="p-FullAWSAccess", TargetId=dep)
    report = run(plan, state)
    assert {f.check for f in report.findings if f.severity is Severity.CONFLICT} >= {"scp-route", "deploy-denied"}
    assert all(
        f"no SCP attached to {dep} allows it" in f.found
        for f in report.findings
        if f.check in ("scp-route", "deploy-denied")
    )


# --------------------------------------------------------------------------------------------------
# Accounts: what the landing zone wrote itself is no conflict; credentials of the wrong account are no answer
# --------------------------------------------------------------------------------------------------


def test_the_landing_zones_own_settings_are_no_conflict(plan, aws_mock):
    """After a deploy: its own logging configuration, monitor, retention mode and bootstrap are notes."""
    from landing_zone.core import naming
    from landing_zone.core.markers import STACK_SUFFIX

    cfg = plan.config
    dep, home = cfg.deployment_account, cfg.home_region
    state = existing_organization(
        plan, control_tower=False, customer_scps=False, foreign_logging=False, foreign_monitor=False,
        cdk_toolkit=False, foreign_retention=cfg.data_retention.mode,
    )  # fmt: skip
    state.moto("bedrock", dep, home).put_model_invocation_logging_configuration(
        loggingConfig={
            "s3Config": {"bucketName": naming.invocation_logs_bucket_name(cfg.name).replace(STACK_SUFFIX, "4f2a9c1e")}
        }
    )
    state.monitors[dep] = [
        {
            "MonitorArn": f"arn:aws:ce::{dep}:anomalymonitor/own",
            "MonitorName": naming.anomaly_monitor_name(cfg.name),
            "MonitorType": "DIMENSIONAL",
            "MonitorDimension": "SERVICE",
        }
    ]
    for account in (dep, cfg.organization.management_account_id):
        cloudformation = state.moto("cloudformation", account, home)
        cdk_toolkit_stack(
            cloudformation, cfg.policy_guardrails.cdk_bootstrap_qualifier, intent.toolkit_stack_name(plan)
        )
    report = run(plan, state)
    assert not report.blocking, list(report.blocking)
    notes = {f.check for f in report.findings if f.severity is Severity.NOTE}
    assert {"invocation-logging", "anomaly-monitor", "data-retention", "cdk-bootstrap"} <= notes


def test_credentials_of_another_account_are_unchecked_not_read(plan, aws_mock):
    state = existing_organization(plan)
    other = next(a for a in plan.config.account_ids if a != plan.config.deployment_account)
    state.accounts["dev"] = other
    report = run(plan, state, profile="dev")
    dep = plan.config.deployment_account
    finding = one(report, "credentials", Severity.UNCHECKED)
    assert finding.where == f"account {dep}" and f"account {other}'s" in finding.found
    assert f"--account-profile {dep}=PROFILE" in finding.resolve
    assert not [f for f in report.findings if f.where.startswith(f"account {dep} ") and f.check != "credentials"]
    assert report.exit_code == 1


def test_a_target_the_organization_does_not_have_is_a_conflict(plan_for, aws_mock):
    plan = plan_for(EU)
    state = existing_organization(plan)
    wider = plan_for(EU, organization={"target_ids": ["ou-abcd-11111111", "ou-abcd-99999999"]})
    report = run(wider, state)
    finding = one(report, "target")
    assert finding.where == "target ou-abcd-99999999" and "fails to attach" in finding.deploy


def test_an_unknown_account_profile_is_a_usage_error(aws_mock, cli):
    code, out, err = cli(["preflight", "--config", str(EU), "--account-profile", "999999999999=x"])
    assert code == 2
    assert "--account-profile[0]: got '999999999999'; not an account of the configuration" in err


# --------------------------------------------------------------------------------------------------
# The real client factory: no credentials, and AWS_ENDPOINT_URL
# --------------------------------------------------------------------------------------------------


def _no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_WEB_IDENTITY_TOKEN_FILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.delenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", raising=False)
    monkeypatch.delenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", raising=False)


def test_no_credentials_is_a_usage_error(monkeypatch: pytest.MonkeyPatch, cli):
    _no_credentials(monkeypatch)
    code, out, err = cli(["preflight", "--config", str(EU)])
    assert code == 2
    assert err.startswith("error: preflight needs AWS credentials: no usable credentials") and "Traceback" not in err


class _Recorder(BaseHTTPRequestHandler):
    seen: list[str] = []

    def do_POST(self) -> None:  # http.server's name for the handler of POST
        _Recorder.seen.append(self.headers.get("Authorization", ""))
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b"<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>no</Message></Error></ErrorResponse>"
        self.send_response(403)
        self.send_header("Content-Type", "text/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Recorder.seen = []
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def test_aws_endpoint_url_is_where_preflight_asks(monkeypatch: pytest.MonkeyPatch, endpoint: str, cli):
    """With the real client factory, every call goes to AWS_ENDPOINT_URL (here a recorder answering AccessDenied):
    signed requests arrive there, and each read is reported as unchecked, never as an answer."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
    code, out, err = cli(["preflight", "--config", str(EU), "--json"])
    assert code == 1, err
    assert _Recorder.seen and all(a.startswith("AWS4-HMAC-SHA256 Credential=testing/") for a in _Recorder.seen)
    data = json.loads(out)
    assert data["findings"] and all(f["severity"] == "unchecked" for f in data["findings"])
    assert any("unauthorised: AccessDenied" in f["found"] for f in data["findings"])


def _eu_default_applications(tmp_path):
    """The EU example with its ``applications`` left out (one default application per account); ``applications: []``
    is refused as an empty list that would silently mean that default."""
    from landing_zone.core.config import read_config_file

    raw = {k: v for k, v in read_config_file(EU).items() if k != "applications"}
    path = tmp_path / "eu-default-applications.json"
    path.write_text(json.dumps(raw))
    return path


def test_member_baseline_reads_every_member_and_needs_a_stacksets_delegated_administrator(plan_for, aws_mock, tmp_path):
    """With the member baseline every account of `accounts` is a workload account (read with its own profile), and
    a StackSet administrator other than the management account must be delegated for StackSets: one delegated for
    AWS Config only is a conflict; the management account itself needs none (the neighbour)."""
    from unittest import mock

    admin = "555555555555"
    eu = _eu_default_applications(tmp_path)
    # (the EU example's AWS Config rules are refused with the member baseline: its template does not carry them)
    plan = plan_for(
        eu, member_baseline={"enabled": True, "administrator_account_id": admin}, detection={"config_rules": False}
    )
    state = existing_organization(plan, control_tower=False, customer_scps=False, foreign_logging=False,
                                  foreign_retention=None, foreign_monitor=False, cdk_toolkit=False)  # fmt: skip
    org = state.moto("organizations", plan.config.organization.management_account_id)
    with mock.patch("moto.organizations.utils.make_random_account_id", return_value=admin):
        org.create_account(Email="admin@example.com", AccountName="stacksets-admin")
    org.register_delegated_administrator(AccountId=admin, ServicePrincipal="config-multiaccountsetup.amazonaws.com")
    members = plan.config.account_ids
    profiles = {account: f"member-{i}" for i, account in enumerate([*members, admin])}
    state.accounts.update({profile: account for account, profile in profiles.items()})
    report = run(plan, state, account_profiles=profiles)
    finding = one(report, "delegated-administrator")
    assert finding.where == f"account {admin}" and "member.org.stacksets.cloudformation.amazonaws.com" in finding.found
    read = {f.where for f in report.findings if f.check == "invocation-logging"}
    assert read == {f"account {m} {plan.config.home_region}" for m in members}
    assert not [f for f in report.findings if f.severity is Severity.UNCHECKED]
    in_management = plan_for(eu, member_baseline={"enabled": True}, detection={"config_rules": False})
    assert not [
        f
        for f in run(in_management, state, account_profiles=profiles).findings
        if f.check == "delegated-administrator" and f.severity is Severity.CONFLICT
    ]


def test_single_account_mode_reads_the_account_and_no_organization(plan_for, aws_mock):
    """Without an organization block there is nothing to ask Organizations; the account's own settings still are."""
    plan = plan_for(ROOT / "examples" / "us-single-account.yaml")
    account = plan.config.deployment_account
    state = OrgState({None: account})
    state.moto("bedrock", account, plan.config.home_region).put_model_invocation_logging_configuration(
        loggingConfig={
            "cloudWatchConfig": {"logGroupName": "/corp/bedrock", "roleArn": f"arn:aws:iam::{account}:role/x"}
        }
    )
    report = run(plan, state, management_profile=None)
    assert conflicts(report) == {("invocation-logging", f"account {account} {plan.config.home_region}")}
    assert not report.slots and not report.applying
    assert not [f for f in report.findings if f.severity is Severity.UNCHECKED]


def test_account_profiles_are_given_by_id_or_name_once_each(plan):
    from landing_zone.cli.flags import check_all
    from landing_zone.cli.preflight import _account_profiles
    from landing_zone.errors import ConfigError

    dev = plan.config.accounts[1]
    management = plan.config.organization.management_account_id
    assert _account_profiles(plan, [(dev.name, "dev"), (management, "m")]) == ({dev.id: "dev", management: "m"}, [])
    _, refused = _account_profiles(plan, [(dev.name, "dev"), (dev.id, "other")])
    with pytest.raises(ConfigError, match=r"--account-profile\[1\]: got '333333333333'; given twice"):
        check_all(refused)


def _recorder(plan, report: Report):
    (finding,) = [f for f in report.findings if f.check == "config-recorder"]
    assert finding.where == f"account {plan.config.deployment_account} {plan.config.home_region}"
    return finding


def test_config_rules_without_a_recorder_are_a_conflict(plan, aws_mock):
    finding = _recorder(plan, run(plan, existing_organization(plan, config_recorder=False)))
    assert finding.severity is Severity.CONFLICT
    assert "the deploy would fail" in finding.deploy and "detection.config_rules: false" in finding.resolve
    assert all(name in finding.deploy for name in plan.policies.detection.config_rule_names.values())


def test_config_rules_on_a_stopped_recorder_are_a_warning_note(plan, aws_mock):
    finding = _recorder(plan, run(plan, existing_organization(plan, config_recording=False)))
    assert finding.severity is Severity.NOTE
    assert "WARNING: it is not recording" in finding.deploy


def test_config_rules_on_a_recording_recorder_are_a_note(plan, aws_mock):
    finding = _recorder(plan, run(plan, existing_organization(plan)))
    assert finding.severity is Severity.NOTE
    assert "run on it (recording: default)" in finding.deploy


def test_without_config_rules_no_recorder_is_only_a_note(plan_for, aws_mock):
    plan = plan_for(EU, detection={"config_rules": False})
    assert plan.policies.detection.config_rules == ()
    finding = _recorder(plan, run(plan, existing_organization(plan, config_recorder=False)))
    assert finding.severity is Severity.NOTE and "creates no recorder" in finding.deploy
