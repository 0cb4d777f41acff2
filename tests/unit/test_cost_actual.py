"""``cost actual``: the month's estimate from token metrics against the Cost Explorer bill.

Cost Explorer, Bedrock and CloudWatch answer through botocore Stubbers whose *requests are pinned*
(``expected_params``): a request with another tag key, another service filter, other metric series or another
period fails the test.  The responses carry token sums and billed amounts; the estimates asserted are computed here
by hand from the catalogued prices (3 / 0.75 / 3.75 / 12 USD per 1M for Kimi K3.1 Pro), not read back from the code.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from datetime import UTC, date, datetime
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from landing_zone.aws import use_client_factory
from landing_zone.cli import main
from landing_zone.finops.actual import actual_report, format_actual, parse_month

NOVEMBER = parse_month("2026-11", date(2026, 12, 2))
PROFILE_ARN = "arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/abc123"
BEDROCK_SERVICES = ["Amazon Bedrock", "Kimi K3.1 Pro (Amazon Bedrock Edition)"]

# The spend alarms' three series of the default configuration, in their order: the direct geographic-profile path
# (m0), Mantle (m1), the application profile 'workload' (m2, dimension value: the profile's ARN).
GEO = ("AWS/Bedrock", "ModelId", "us.moonshotai.kimi-k3.1-pro")
MANTLE = ("AWS/BedrockMantle", "Model", "moonshotai.kimi-k3.1-pro")
APP = ("AWS/Bedrock", "ModelId", PROFILE_ARN)
RUNTIME_METRICS = {
    "in": "InputTokenCount",
    "cr": "CacheReadInputTokenCount",
    "cw": "CacheWriteInputTokenCount",
    "out": "OutputTokenCount",
}
MANTLE_METRICS = {"in": "TotalInputTokens", "out": "TotalOutputTokens"}


def _query(metric_id: str, series: tuple[str, str, str], metric_name: str) -> dict[str, Any]:
    namespace, dimension, value = series
    return {
        "Id": metric_id,
        "MetricStat": {
            "Metric": {
                "Namespace": namespace,
                "MetricName": metric_name,
                "Dimensions": [{"Name": dimension, "Value": value}],
            },
            "Period": 86400,
            "Stat": "Sum",
        },
        "ReturnData": True,
    }


QUERIES = (
    [_query(f"m0_{k}", GEO, n) for k, n in RUNTIME_METRICS.items()]
    + [_query(f"m1_{k}", MANTLE, n) for k, n in MANTLE_METRICS.items()]
    + [_query(f"m2_{k}", APP, n) for k, n in RUNTIME_METRICS.items()]
)


def _period(month: Any) -> dict[str, str]:
    return {"Start": month.start.isoformat(), "End": month.end.isoformat()}


def _day(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


class Cloud:
    """Pinned requests and canned answers, one Stubber per client the code asks for."""

    def __init__(
        self,
        month: Any,
        *,
        tag: dict[str, Any] | None,
        billed: dict[str, str],
        metric_pages: list[dict[str, list[float]]],
        estimated: bool = False,
        with_profile: bool = True,
    ) -> None:
        self.month, self.tag, self.billed, self.pages = month, tag, billed, metric_pages
        self.estimated, self.with_profile = estimated, with_profile
        self.stubbers: list[Stubber] = []
        self.asked: list[tuple[str, str | None]] = []

    def _ce(self, stubber: Stubber) -> None:
        stubber.add_response(
            "list_cost_allocation_tags",
            {"CostAllocationTags": [self.tag] if self.tag else []},
            {"TagKeys": ["application"], "Type": "UserDefined"},
        )
        stubber.add_response(
            "get_dimension_values",
            {
                "DimensionValues": [
                    {"Value": "Amazon Bedrock", "Attributes": {}},
                    {"Value": "Amazon Bedrock AgentCore", "Attributes": {}},
                    {"Value": "Kimi K3.1 Pro (Amazon Bedrock Edition)", "Attributes": {}},
                ],
                "ReturnSize": 3,
                "TotalSize": 3,
            },
            {
                "TimePeriod": _period(self.month),
                "Dimension": "SERVICE",
                "SearchString": "Bedrock",
                "Context": "COST_AND_USAGE",
            },
        )
        stubber.add_response(
            "get_cost_and_usage",
            {
                "ResultsByTime": [
                    {
                        "TimePeriod": _period(self.month),
                        "Total": {},
                        "Groups": [
                            {"Keys": [f"application${k}"], "Metrics": {"UnblendedCost": {"Amount": v, "Unit": "USD"}}}
                            for k, v in self.billed.items()
                        ],
                        "Estimated": self.estimated,
                    }
                ]
            },
            {
                "TimePeriod": _period(self.month),
                "Granularity": "MONTHLY",
                "Metrics": ["UnblendedCost"],
                "Filter": {"Dimensions": {"Key": "SERVICE", "Values": BEDROCK_SERVICES}},
                "GroupBy": [{"Type": "TAG", "Key": "application"}],
            },
        )

    def _bedrock(self, stubber: Stubber) -> None:
        summaries = [
            {
                "inferenceProfileName": "other-lz-workload",
                "inferenceProfileArn": PROFILE_ARN.replace("abc123", "zzz999"),
                "inferenceProfileId": "zzz999",
                "models": [{"modelArn": "arn:aws:bedrock:us-east-1::foundation-model/moonshotai.kimi-k3.1-pro"}],
                "status": "ACTIVE",
                "type": "APPLICATION",
            }
        ]
        if self.with_profile:
            summaries.append(
                {**summaries[0], "inferenceProfileName": "kimi-lz-workload", "inferenceProfileArn": PROFILE_ARN}
            )
        stubber.add_response(
            "list_inference_profiles", {"inferenceProfileSummaries": summaries}, {"typeEquals": "APPLICATION"}
        )

    def _cloudwatch(self, stubber: Stubber) -> None:
        queries = QUERIES if self.with_profile else QUERIES[:6]
        for number, page in enumerate(self.pages):
            request: dict[str, Any] = {
                "MetricDataQueries": queries,
                "StartTime": _day(self.month.start),
                "EndTime": _day(self.month.end),
            }
            if number:
                request["NextToken"] = f"page-{number}"
            answer: dict[str, Any] = {
                "MetricDataResults": [
                    {
                        "Id": i,
                        "Label": i,
                        "Timestamps": [_day(self.month.start)] * len(v),
                        "Values": v,
                        "StatusCode": "Complete",
                    }
                    for i, v in page.items()
                ]
            }
            if number + 1 < len(self.pages):
                answer["NextToken"] = f"page-{number + 1}"
            stubber.add_response("get_metric_data", answer, request)

    def factory(self, service: str, *, region: str | None = None, profile: str | None = None) -> Any:
        self.asked.append((service, region))
        client = boto3.client(service, region_name=region)
        stubber = Stubber(client)
        {"ce": self._ce, "bedrock": self._bedrock, "cloudwatch": self._cloudwatch}[service](stubber)
        stubber.activate()
        self.stubbers.append(stubber)
        return client

    @contextlib.contextmanager
    def answering(self) -> Iterator[Cloud]:
        with use_client_factory(self.factory):
            yield self
        for stubber in self.stubbers:
            stubber.assert_no_pending_responses()  # every pinned request was made


# November: 1.0 B input + 1.0 B cache read + 0.25 B output tokens through the 'workload' profile, two pages of daily
# sums; a little direct traffic and some Mantle.
NOVEMBER_METRICS = [
    {"m0_in": [4e6, 6e6], "m0_out": [5e6], "m1_in": [1e8], "m2_in": [6e8], "m2_cr": [1e9]},
    {"m0_cr": [], "m0_cw": [], "m1_out": [2e7], "m2_in": [4e8], "m2_cw": [], "m2_out": [2.5e8]},
]
ACTIVE_SINCE_OCTOBER = {
    "TagKey": "application",
    "Type": "UserDefined",
    "Status": "Active",
    "LastUpdatedDate": "2026-10-15T08:00:00Z",
    "LastUsedDate": "2026-11-30T00:00:00Z",
}


@pytest.fixture(scope="module")
def plan(plan_for):
    return plan_for()


def test_a_closed_month_per_application_and_path(plan):
    cloud = Cloud(
        NOVEMBER,
        tag=ACTIVE_SINCE_OCTOBER,
        billed={"workload": "7000.00", "": "900.00"},
        metric_pages=NOVEMBER_METRICS,
    )
    with cloud.answering():
        report = actual_report(plan, NOVEMBER, profile="P")
    assert ("ce", "us-east-1") in cloud.asked and ("cloudwatch", "us-east-1") in cloud.asked
    rows = {(r.application, r.path): r for r in report.rows}
    app = rows[("workload", "geographic-profile us.moonshotai.kimi-k3.1-pro")]
    # 1e9 x 3 + 1e9 x 0.75 + 0 x 3.75 + 2.5e8 x 12, per 1M tokens
    assert app.estimate_usd == pytest.approx(3000 + 750 + 3000)
    assert app.billed_usd == 7000 and app.difference_usd == pytest.approx(250)
    direct = rows[("", "geographic-profile us.moonshotai.kimi-k3.1-pro")]
    assert direct.estimate_usd == pytest.approx(1e7 * 3 / 1e6 + 5e6 * 12 / 1e6)  # 90
    mantle = rows[("", "mantle moonshotai.kimi-k3.1-pro")]
    assert mantle.estimate_usd == pytest.approx(1e8 * 3 / 1e6 + 2e7 * 12 / 1e6)  # 540
    assert report.untagged_billed_usd == 900
    assert report.estimate_usd == pytest.approx(6750 + 90 + 540)
    assert report.billed_usd == pytest.approx(7900)
    assert report.services == tuple(BEDROCK_SERVICES)  # AgentCore is not token spend
    assert not report.month.partial
    assert not [n for n in report.notes if "tag" in n and "activated" in n]
    text = format_actual(report)
    assert "2026-11: 2026-11-01 to 2026-11-30" in text
    assert "Kimi K3.1 Pro (Amazon Bedrock Edition)" in text
    assert "+250.00 (+3.7%)" in text  # 7,000 billed against 6,750 estimated
    assert "(no tag) together" in text and "+270.00" in text  # 900 against 90 + 540


def test_a_month_in_progress_with_partial_data_and_a_tag_activated_late(plan):
    today = date(2026, 12, 2)
    december = parse_month(None, today)
    assert (december.start, december.end, december.partial) == (date(2026, 12, 1), date(2026, 12, 3), True)
    late = {**ACTIVE_SINCE_OCTOBER, "LastUpdatedDate": "2026-12-02T09:30:00Z"}
    cloud = Cloud(
        december,
        tag=late,
        billed={"": "41.10"},  # nothing tagged yet: everything is untagged
        metric_pages=[{"m2_in": [3e6], "m2_out": [1e6]}],  # one day of metrics, the rest has no data points
        estimated=True,
    )
    with cloud.answering():
        report = actual_report(plan, december, profile=None)
    app = next(r for r in report.rows if r.application == "workload")
    assert app.estimate_usd == pytest.approx(3e6 * 3 / 1e6 + 1e6 * 12 / 1e6)  # 21
    assert app.billed_usd is None and app.difference_usd is None  # no tagged cost yet: no made-up zero
    notes = " | ".join(report.notes)
    assert "activated on 2026-12-02, after 2026-12 began" in notes
    assert "2026-12 is not over: 2 day(s) to 2026-12-02" in notes
    assert "marks these figures as estimated" in notes
    assert "(month to date)" in format_actual(report)


@pytest.mark.parametrize(
    ("tag", "expected"),
    [
        ({**ACTIVE_SINCE_OCTOBER, "Status": "Inactive"}, "is Inactive: Cost Explorer does not split the bill"),
        (None, "is not listed (ce:ListCostAllocationTags)"),
    ],
)
def test_an_inactive_or_unknown_tag_is_said(plan, tag, expected):
    cloud = Cloud(NOVEMBER, tag=tag, billed={"": "7900.00"}, metric_pages=NOVEMBER_METRICS)
    with cloud.answering():
        report = actual_report(plan, NOVEMBER, profile="P")
    assert any(expected in n for n in report.notes)
    assert report.untagged_billed_usd == 7900


def test_an_undeployed_application_profile_is_named_not_guessed(plan):
    cloud = Cloud(
        NOVEMBER, tag=ACTIVE_SINCE_OCTOBER, billed={"": "10.00"}, metric_pages=[{"m0_in": [1e6]}], with_profile=False
    )
    with cloud.answering():
        report = actual_report(plan, NOVEMBER, profile="P")
    app = next(r for r in report.rows if r.application == "workload")
    assert app.estimate_usd is None
    assert any("no application inference profile named 'kimi-lz-workload'" in n for n in report.notes)


def test_a_wrong_request_fails_the_stub(plan):
    """The Stubber pins the request: a GetCostAndUsage grouped by another tag key is not answered."""
    from botocore.exceptions import StubAssertionError

    from landing_zone.finops.actual import billed_by_tag

    client = boto3.client("ce", region_name="us-east-1")
    with Stubber(client) as stubber:
        stubber.add_response(
            "get_cost_and_usage",
            {"ResultsByTime": []},
            {
                "TimePeriod": _period(NOVEMBER),
                "Granularity": "MONTHLY",
                "Metrics": ["UnblendedCost"],
                "Filter": {"Dimensions": {"Key": "SERVICE", "Values": BEDROCK_SERVICES}},
                "GroupBy": [{"Type": "TAG", "Key": "application"}],
            },
        )
        with pytest.raises(StubAssertionError):
            billed_by_tag(client, NOVEMBER, BEDROCK_SERVICES, "cost-center")


# --------------------------------------------------------------------------------------------------
# The command line (in-process, so the stubbed client factory applies)
# --------------------------------------------------------------------------------------------------


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_cli_prints_estimate_billed_and_difference():
    cloud = Cloud(
        NOVEMBER, tag=ACTIVE_SINCE_OCTOBER, billed={"workload": "7000.00", "": "900.00"}, metric_pages=NOVEMBER_METRICS
    )
    with cloud.answering():
        code, out, err = _run("cost", "actual", "--profile", "P", "--month", "2026-11")
    assert code == 0, err
    assert "application" in out and "billed - estimate" in out
    assert "workload" in out and "6,750.00" in out and "7,000.00" in out
    assert "total" in out and "7,380.00" in out and "7,900.00" in out


@pytest.mark.parametrize("month", ["2026-13", "2026-1", "november", "2999-01"])
def test_a_bad_month_exits_2_naming_flag_value_and_form(month):
    code, out, err = _run("cost", "actual", "--month", month)
    assert code == 2 and not out
    assert f"argument --month: got '{month}'; allowed: YYYY-MM (e.g. 2026-11)" in err


def test_no_credentials_exit_2_with_one_line(monkeypatch):
    for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    code, out, err = _run("cost", "actual", "--month", "2026-11")
    assert code == 2 and not out
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("error: cost actual: ce:ListCostAllocationTags: no usable credentials")


def test_cost_with_flags_still_works_beside_the_sub_command():
    code, out, err = _run(
        "cost",
        "--requests-per-day",
        "100",
        "--input-tokens",
        "1000",
        "--output-tokens",
        "100",
        "--cached-fraction",
        "0",
        "--price-source",
        "bedrock",
        "--json",
    )
    assert code == 0, err
    assert '"daily_usd": 0.42' in out  # 100 x (1000 x 3 + 100 x 12) / 1e6
