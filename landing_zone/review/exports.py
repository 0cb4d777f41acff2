"""The findings for auditors' tools (issue 34): CSV, AWS Security Hub (ASFF), and each rule's help link, tags and
security severity (``data/rule_help.yaml``) for SARIF and ASFF.

* ``policy-review.csv`` — one row per finding, with the rule's help link and the control mapping of the claim it
  concerns; a spreadsheet opens it as is.
* ``policy-review.asff.json`` — the findings in the AWS Security Finding Format, ready for
  ``aws securityhub batch-import-findings --findings file://policy-review.asff.json`` (BatchImportFindings takes at
  most 100 findings per call: split larger files). Times are the assembly's synthesis time (the review has no
  clock), or 1970-01-01 when the assembly does not record it; the product ARN is the account's default custom
  integration (``product/<account>/default``) in the home Region. ASFF syntax:
  https://docs.aws.amazon.com/securityhub/latest/userguide/securityhub-findings-format-syntax.html
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import yaml

__all__ = ["CSV_COLUMNS", "findings_asff", "findings_csv", "rule_help"]

DATA = Path(__file__).with_name("data")
CSV_COLUMNS = (
    "level",
    "rule",
    "title",
    "message",
    "element",
    "template",
    "stack",
    "logical_id",
    "sid",
    "line",
    "security_severity",
    "help_uri",
    "rationale",
)
_EPOCH = "1970-01-01T00:00:00.000Z"


@cache
def _help() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DATA / "rule_help.yaml").read_text(encoding="utf-8"))
    return data


def rule_help(rule_id: str, level: str) -> dict[str, Any]:
    """{url, tags, security_severity} of a rule, by the longest matching prefix of rule_help.yaml."""
    data = _help()
    prefix = max((p for p in data["prefixes"] if rule_id.startswith(p)), key=len, default=None)
    entry = data["prefixes"].get(prefix, {}) if prefix else {}
    return {
        "url": entry.get("url", ""),
        "tags": list(entry.get("tags") or []),
        "security_severity": str(entry.get("security_severity") or data["default_security_severity"][level]),
    }


def findings_csv(d: Mapping[str, Any]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for f in d["findings"]:
        h = rule_help(f["rule"], f["level"])
        row = {**f, "security_severity": h["security_severity"], "help_uri": h["url"]}
        writer.writerow(["" if row.get(c) is None else str(row.get(c)) for c in CSV_COLUMNS])
    return out.getvalue()


def _when(d: Mapping[str, Any]) -> str:
    at = str(d["summary"]["provenance"].get("synthesized_at") or "")
    if re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", at):
        return at
    return _EPOCH


def findings_asff(d: Mapping[str, Any]) -> list[dict[str, Any]]:
    config = d["config"]
    account = next((a for a in config["known_accounts"] if re.fullmatch(r"\d{12}", a)), "000000000000")
    region = config["home_region"]
    when = _when(d)
    out = []
    for f in d["findings"]:
        h = rule_help(f["rule"], f["level"])
        where = f"{f.get('template') or 'assembly'}/{f.get('logical_id') or '-'}"
        digest = hashlib.sha256(f"{f['rule']}|{where}|{f.get('sid')}|{f['message']}".encode()).hexdigest()[:32]
        out.append(
            {
                "SchemaVersion": "2018-10-08",
                "Id": f"{config['name']}/{f['rule']}/{digest}",
                "ProductArn": f"arn:aws:securityhub:{region}:{account}:product/{account}/default",
                "GeneratorId": f"kimi-landing-zone-review/{f['rule']}",
                "AwsAccountId": account,
                "Types": ["Software and Configuration Checks/Industry and Regulatory Standards"],
                "CreatedAt": when,
                "UpdatedAt": when,
                "Severity": {"Label": "HIGH" if f["level"] == "blocking" else "LOW"},
                "Title": f"{f['rule']}: {f['title']}"[:256],
                "Description": f["message"][:1024],
                "Remediation": {"Recommendation": {"Text": (f.get("rationale") or "")[:512], "Url": h["url"]}},
                "ProductFields": {"review/level": f["level"], "review/configuration": config["name"]},
                "Resources": [{"Type": "Other", "Id": where[:512], "Region": region}],
                "Compliance": {"Status": "FAILED" if f["level"] == "blocking" else "WARNING"},
                "RecordState": "ACTIVE",
                "Workflow": {"Status": "NEW"},
            }
        )
    return out
