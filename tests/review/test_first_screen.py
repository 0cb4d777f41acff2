"""The first screen of the review: the verdict with its qualifiers, the provenance block, the reason next to every
finding, and an inventory titled by what each policy is — in all four outputs."""

from __future__ import annotations

import html as html_module
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from landing_zone import __version__
from landing_zone.review.report import build_review, headline, qualifiers
from landing_zone.review.rules import RULES
from tests.review.conftest import run_cli

DISCOVER = "run `python -m landing_zone discover`"


@pytest.fixture(scope="module")
def default_reports(synth, tmp_path_factory) -> tuple[Path, object]:
    """The four reports of the default configuration (reviewed from its recorded configuration, no scanners)."""
    synthesized = synth(None)
    out = tmp_path_factory.mktemp("first-screen")
    assert run_cli(["review", "--assembly", str(synthesized.outdir), "--out", str(out), "--no-scanners"]) == 0
    return out, synthesized


def outputs(out: Path) -> tuple[dict, str, str, dict]:
    return (
        json.loads((out / "policy-review.json").read_text()),
        (out / "policy-review.md").read_text(),
        (out / "policy-review.html").read_text(),
        json.loads((out / "policy-review.sarif").read_text()),
    )


# ----------------------------------------------------------------------------------------- 1. qualified verdict


def test_the_verdict_says_what_it_rests_on(default_reports):
    out, synthesized = default_reports
    data, markdown, html, sarif = outputs(out)
    plan = synthesized.plan
    unverified = [m.id for m in plan.models if not m.verified]
    placeholders = [p.path for p in plan.placeholders]
    assert unverified and len(placeholders) == 3  # the defaults ship an unverified model and placeholder accounts

    s = data["summary"]
    assert s["verdict"] == "pass" and s["qualified"] is True
    assert [q["kind"] for q in s["qualifiers"]] == [
        "unverified-routing",
        "unverified-prices",
        "placeholders",
        "scanners-not-run",
        "cdk-nag-not-run",  # the tests synthesize without the packs
    ]
    texts = {q["kind"]: q["text"] for q in s["qualifiers"]}
    assert texts["unverified-routing"] == f"routing data unverified (model {', '.join(unverified)}: {DISCOVER})"
    assert texts["placeholders"].startswith(f"3 placeholder values ({', '.join(placeholders)})")
    assert s["headline"] == "PASS — qualified: " + "; ".join(q["text"] for q in s["qualifiers"])

    # Markdown: the verdict is the first thing under the title, the qualifiers right under it, then the contents
    lines = markdown.splitlines()
    assert lines[0] == "# Policy review: kimi-lz"
    assert lines[2].startswith("**Verdict: PASS — qualified** · 0 blocking, ")
    contents = next(i for i, line in enumerate(lines) if line.startswith("**Contents:**"))
    under_verdict = "\n".join(lines[3:contents])
    for q in s["qualifiers"]:
        assert f"- {q['text']}" in under_verdict
    # the auditor's first section (residency sheet) follows right after the contents (issue 34)
    assert contents < lines.index("## Residency and data flow") < 30 < lines.index("## Summary")

    # HTML: the qualifiers are in the header, right after the verdict line
    header = html[html.index("<header>") : html.index("</header>")]
    assert "PASS — qualified" in header and 'id="qualifiers"' in header
    for q in s["qualifiers"]:
        assert q["text"] in html_module.unescape(header)

    # SARIF: run properties
    props = sarif["runs"][0]["properties"]
    assert props["qualified"] is True and props["qualifiers"] == s["qualifiers"]
    assert props["headline"] == s["headline"]


def test_a_verdict_with_nothing_unchecked_is_unqualified_and_the_record_can_qualify_it():
    """Verified catalog data, contract prices, no placeholders, scanners and packs run: a plain PASS.  A model the
    synth recorded as unverified still qualifies it, even when the catalog was verified since."""
    plan = SimpleNamespace(
        models=(SimpleNamespace(id="moonshotai.kimi-k3.1-pro", verified=True),),
        model_prices=SimpleNamespace(unverified=()),  # every model at contract prices
        placeholders=(),
    )
    proven = {"properties": [{"id": "P1", "status": "holds"}], "proven": ["P1"]}
    checked = ({"ran": True}, {"report_found": True, "packs_run": ["AwsSolutions"]}, proven)
    assert qualifiers(plan, None, *checked) == []
    # without the proofs (--no-proofs) the guardrail properties are only sampled: said on the verdict line
    assert qualifiers(plan, None, *checked[:2]) == [
        {"kind": "proofs-not-run", "text": "guardrail properties not proven (--no-proofs): sampled only"}
    ]
    acknowledged = {"properties": [{"id": "P2", "status": "not-proven", "acknowledged": True}], "proven": []}
    assert [q["kind"] for q in qualifiers(plan, None, *checked[:2], acknowledged)] == ["proofs-acknowledged"]
    assert headline("pass", []) == "PASS" and headline("fail", []) == "FAIL"

    record = {"unverified": ["catalog model 'moonshotai.kimi-k3.1-pro' is unverified (source; as of 2026-12-01)"]}
    assert qualifiers(plan, record, *checked) == [
        {"kind": "unverified-routing", "text": f"routing data unverified (model moonshotai.kimi-k3.1-pro: {DISCOVER})"}
    ]
    assert qualifiers(plan, {"placeholders": [f"accounts[{i}].id" for i in range(5)]}, *checked) == [
        {
            "kind": "placeholders",
            "text": "5 placeholder values (accounts[0].id, accounts[1].id, accounts[2].id and 2 more): replace "
            "before deploying",
        }
    ]


# ----------------------------------------------------------------------------------------- 2. why, in the row


def test_every_finding_row_shows_why_and_the_logical_id_in_full(default_reports):
    out, _ = default_reports
    data, markdown, html, sarif = outputs(out)
    assert data["findings"]
    rows = [line for line in markdown.splitlines() if line.startswith("| advisory |") or "**BLOCKING**" in line]
    assert len(rows) == len(data["findings"])
    for f, row in zip(data["findings"], rows, strict=True):
        rule = RULES[f["rule"]]
        assert f["rationale"] == rule.rationale and rule.rationale
        assert f"`{f['rule']}`" in row and rule.rationale in row  # same row, not in the rules table at the end
        if f["logical_id"]:
            assert f"`{f['logical_id']}`" in row  # whole, as a code span

    # the invoker boundary: the cdk-nag acknowledgment's reason is in the row of the finding it explains
    boundary = [f for f in data["findings"] if f["rule"] == "LZ-WILDCARD-IN-BOUNDARY"]
    assert boundary
    for f in boundary:
        (j,) = [j for j in f["justifications"] if j["tool"] == "cdk-nag"]
        assert j["ids"] == ["AwsSolutions-IAM5[Resource::*]"] and "ceiling, not a grant" in j["reason"]
        row = next(r for r in rows if f"`{f['logical_id']}`" in r and (f["sid"] or "") in r)
        assert f"**acknowledged in cdk-nag** (AwsSolutions-IAM5[Resource::*]): {j['reason']}" in row

    # HTML: one row per finding, each with the rationale and the full logical ID (wrapped, not cut)
    # blocking findings in the Findings table, the advisory ones in the appendix's (issue 34), in that order
    html_rows = []
    for table_id in ("findings-table", "hygiene-table"):
        if f'id="{table_id}"' in html:
            start = html.index(f'id="{table_id}"')
            html_rows += html[start : html.index("</table>", start)].split("<tr>")[2:]  # header row first
    assert len(html_rows) == len(data["findings"])
    for f, row in zip(data["findings"], html_rows, strict=True):
        assert "<p>" + f["rationale"].replace("'", "&#x27;") + "</p>" in row
        if f["logical_id"]:
            assert f"<code>{f['logical_id']}</code>" in row
    assert "#findings-table td { overflow-wrap:anywhere; }" in html

    # SARIF: the rationale is the rule's help; the acknowledgments travel with the result
    driver = sarif["runs"][0]["tool"]["driver"]
    assert all(r["help"]["text"] == RULES[r["id"]].rationale for r in driver["rules"])
    results = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "LZ-WILDCARD-IN-BOUNDARY"]
    assert results and all(r["properties"]["justifications"] for r in results)


# ----------------------------------------------------------------------------------------- 3. inventory titles


def test_the_inventory_is_titled_by_name_and_purpose(default_reports):
    out, _ = default_reports
    data, markdown, html, _ = outputs(out)
    titles = {p["logical_id"] + ":" + p["kind"]: p["title"] for p in data["policies"]}
    by_title = {p["title"]: p for p in data["policies"]}
    expected = [
        "kimi-lz-invoke-workload — permissions of role kimi-lz-invoker-workload",
        "kimi-lz-invoker-boundary — permissions boundary of role kimi-lz-invoker-workload",
        "role kimi-lz-invoker-workload — trust policy: who may assume the role",
        "kimi-lz-guardrails-perimeter — service control policy of the accounts under ou-root-11111111",
        "kimi-lz-guardrails-regions — service control policy of the accounts under 111111111111",
        "bucket kimi-lz-access-logs-<AWS::StackId suffix> — bucket policy",  # retained: named with the suffix
        "topic kimi-lz-cost-alerts — topic policy",
        "KMS key alias/kimi-lz/logs — key policy",
        "VPC endpoint com.amazonaws.us-east-1.bedrock-runtime — endpoint policy: what may pass through the endpoint",
        "function kimi-lz-invocation-logging — permission for role kimi-lz-automation-logging-provider to call "
        "lambda:InvokeFunction",
    ]
    for title in expected:
        assert title in by_title, f"{title!r} not among:\n" + "\n".join(sorted(titles.values()))
    # no title is a hashed logical ID: every policy is named by the template's names or its construct path
    hashed = [p["title"] for p in data["policies"] if p["logical_id"] in p["title"]]
    assert hashed == []
    # ... and the logical ID (with the construct path) is the secondary line
    invoke = by_title[expected[0]]
    assert invoke["construct_path"].startswith("kimi-lz-access/")
    heading = f"#### {expected[0]}"
    after = markdown[markdown.index(heading) :].splitlines()
    assert after[2] == f"`managed` · logical ID `{invoke['logical_id']}` · construct {invoke['construct_path']}"
    assert f'<b class="ids">{expected[0]}</b>' in html
    assert re.search(rf'<span class="secondary mono muted ids">{invoke["logical_id"]} · ', html)


# ----------------------------------------------------------------------------------------- 4. provenance


def test_the_summary_carries_the_provenance(default_reports):
    out, synthesized = default_reports
    data, markdown, html, sarif = outputs(out)
    record = json.loads((Path(synthesized.outdir) / "landing-zone.json").read_text())
    p = data["summary"]["provenance"]
    assert p["recorded"] is True and p["assembly"] == str(synthesized.outdir)
    assert p["config_origin"] == record["origin"]
    assert p["config_sha256"] == record["config_sha256"] and len(p["config_sha256"]) == 64
    assert p["commit"] == record["provenance"]["commit"]
    assert p["synthesized_at"] == record["provenance"]["generated_at"]
    assert p["synthesized_with"] == {
        k: record["provenance"][k] for k in ("landing_zone", "python", "aws_cdk_lib", "cdk_nag", "cdk_cli")
    }
    assert p["review"] == {"landing_zone": __version__, "cfn_lint": "not run", "checkov": "not run"}

    summary = markdown[markdown.index("## Summary") : markdown.index("**Configuration**")]
    assert f"| configuration | {record['origin']}, sha256 {record['config_sha256'][:12]} |" in summary
    assert record["config_sha256"] not in markdown  # the full hash is in the JSON
    assert f"| commit | {record['provenance']['commit']}" in summary
    assert f"| synthesized at | {record['provenance']['generated_at']} |" in summary
    assert f"aws-cdk-lib {record['provenance']['aws_cdk_lib']}" in summary
    assert f"| review generated by | landing_zone {__version__}; cfn-lint not run, checkov not run |" in summary
    assert 'id="provenance-table"' in html and record["config_sha256"][:12] in html
    assert sarif["runs"][0]["properties"]["provenance"] == p
    assert sarif["runs"][0]["tool"]["driver"]["version"] == __version__


def test_uncommitted_changes_and_a_missing_record_are_said(synth, assembly_copy, tmp_path):
    synthesized = synth(None)
    copy = assembly_copy(synthesized.outdir)
    record_path = copy / "landing-zone.json"
    record = json.loads(record_path.read_text())
    record["provenance"]["work_tree_changed"] = True
    record_path.write_text(json.dumps(record))
    assert run_cli(["review", "--assembly", str(copy), "--out", str(tmp_path / "a"), "--no-scanners"]) == 0
    _, markdown, html, _ = outputs(tmp_path / "a")
    assert f"| commit | {record['provenance']['commit']} **with uncommitted changes** |" in markdown
    assert "with uncommitted changes" in html

    record_path.unlink()  # an assembly of an older synth
    data = build_review(copy, synthesized.plan, scanners=False, proofs=False).data
    p = data["summary"]["provenance"]
    assert p["recorded"] is False and p["commit"] == p["config_sha256"] == "not recorded"
    assert p["review"]["landing_zone"] == __version__
    from landing_zone.review.render_html import render_html
    from landing_zone.review.render_md import render_markdown

    assert "| synthesized | not recorded: the assembly has no landing-zone.json" in render_markdown(data)
    assert "not recorded" in render_html(data)
    # the placeholders still qualify the verdict without the record: they come from the configuration
    assert "placeholders" in [q["kind"] for q in data["summary"]["qualifiers"]]
