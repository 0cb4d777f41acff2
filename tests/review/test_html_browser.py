"""The HTML report in a real headless browser.

The browser is found on this machine ($CHROMIUM, then chromium / chromium-browser / google-chrome on PATH); when
there is none, the test set-up installs Debian's Chromium with tests/support/ensure_chromium.sh (root and apt).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.review.conftest import run_cli

pytestmark = pytest.mark.browser

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
ENSURE = ROOT / "tests" / "support" / "ensure_chromium.sh"
EU = ROOT / "examples" / "eu-sovereign.yaml"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def chromium() -> Path:
    """A headless-capable Chromium: found, or installed by the test set-up (never by the product)."""
    configured = os.environ.get("CHROMIUM")
    if configured and Path(configured).is_file():
        return Path(configured)
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return Path(found)
    done = subprocess.run(["bash", str(ENSURE)], capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, f"could not install chromium:\n{done.stdout}\n{done.stderr}"
    return Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def report(synth, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report")
    assert (
        run_cli(
            ["review", "--assembly", str(synth(EU).outdir), "--out", str(out), "--config", str(EU), "--no-scanners"]
        )
        == 0
    )
    return out


def browse(chromium: Path, page: Path, profile: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(chromium), *FLAGS, f"--user-data-dir={profile}", *extra, page.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )


class Collect(HTMLParser):
    """ids, the rows of every table by id, and the text of every section."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.rows: dict[str, int] = {}
        self.text: dict[str, list[str]] = {}
        self.links: list[str] = []
        self._table: str | None = None
        self._section: str | None = None
        self._in_body = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "section":
            self._section = a.get("id")
        if tag == "table":
            self._table = a.get("id")
        if tag == "tbody":
            self._in_body = True
        if tag == "tr" and self._table and self._in_body:
            self.rows[self._table] = self.rows.get(self._table, 0) + 1
        for key in ("href", "src"):
            if a.get(key):
                self.links.append(a[key])

    def handle_endtag(self, tag):
        if tag == "table":
            self._table, self._in_body = None, False

    def handle_data(self, data):
        if self._section:
            self.text.setdefault(self._section, []).append(data)


def test_the_report_renders_in_chromium_with_inventory_and_both_matrices(chromium, report, tmp_path):
    done = browse(chromium, report / "policy-review.html", tmp_path / "profile", "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert "<html" in dom[:200] and dom.rstrip().endswith("</html>") and "Policy review: kimi-eu" in dom
    data = json.loads((report / "policy-review.json").read_text())
    page = Collect()
    page.feed(dom)
    for section in (
        "summary",
        "findings",
        "inventory",
        "routing-matrix",
        "decision-matrix",
        "cdk-nag",
        "scanners",
        "diff",
        "rules",
    ):
        assert section in page.ids, section
    policies = [i for i in page.ids if i.startswith("policy-")]
    assert len(policies) == len(data["policies"]) == data["summary"]["policies"]
    assert page.rows["routing-table"] == len(data["routing_matrix"]) > 0
    assert page.rows["decision-table"] == data["decision_matrix"]["cases"] >= 40
    assert page.rows["acknowledgments-table"] == len(data["cdk_nag"]["acknowledgments"]) > 0
    # the first screen: the qualifiers under the verdict, the provenance, one row per finding with its reason
    assert ("qualifiers" in page.ids) == data["summary"]["qualified"]
    assert page.rows["provenance-table"] == 6
    assert page.rows.get("findings-table", 0) == len(data["findings"])
    inventory = " ".join(page.text["inventory"])
    assert "kimi-eu-guardrails-regions" in inventory and "kimi-eu-invoker-boundary" in inventory
    assert "only when aws:RequestedRegion is not one of eu-central-1, eu-north-1" in inventory
    assert "MISMATCH" not in " ".join(page.text["decision-matrix"])
    # self-contained: only in-page anchors, no external stylesheet, script or image
    assert all(link.startswith("#") for link in page.links), [link for link in page.links if not link.startswith("#")]
    assert not re.search(r"<(script|link|img|iframe)\b", (report / "policy-review.html").read_text())


def test_screenshot(chromium, report, tmp_path):
    """A picture for people (kept in the test's tmp dir): the page lays out at a laptop width."""
    shot = tmp_path / "policy-review.png"
    done = browse(
        chromium, report / "policy-review.html", tmp_path / "profile", f"--screenshot={shot}", "--window-size=1400,1800"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert shot.stat().st_size > 20_000
