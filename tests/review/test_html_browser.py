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
    # blocking findings in Findings, advisories in the appendix (issue 34)
    assert page.rows.get("findings-table", 0) + page.rows.get("hygiene-table", 0) == len(data["findings"])
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


FIRST_SCREEN_PROBE = """<script>
(function () {
  var h = window.innerHeight, out = {width: window.innerWidth, height: h, visible: {}};
  function seen(el) { var r = el.getBoundingClientRect(); return r.top >= 0 && r.top < h && r.height > 0; }
  var table = document.getElementById('residency-table');
  out.visible['residency-table'] = !!table && seen(table);
  var rows = table ? Array.prototype.slice.call(table.tBodies[0].rows) : [];
  out.visible['residency-rows'] = rows.filter(seen).map(function (r) {
    return r.cells[0].textContent + ' ' + r.cells[1].textContent; });
  var who = Array.prototype.slice.call(document.querySelectorAll('#residency p')).filter(function (p) {
    return p.textContent.indexOf('Who can invoke:') === 0; });
  out.visible['who-can-invoke'] = who.length === 1 && seen(who[0]);
  var changes = document.getElementById('changes-summary-table');
  out.visible['changes-rows'] = changes ? Array.prototype.slice.call(changes.tBodies[0].rows).filter(seen).length : 0;
  document.body.setAttribute('data-first-screen', JSON.stringify(out));
})();
</script>"""


def test_the_first_screen_at_1400px_answers_where_a_prompt_is_processed_and_who_can_invoke(chromium, report, tmp_path):
    """Issue 34: in a 1400 x 900 viewport (headless Chromium's window is 143 px taller than its viewport) the first
    screen shows the residency sheet (every allowed path: where it starts and is
    processed) and who can invoke. A copy of the page carries a probe script (the report itself has none)."""
    page = tmp_path / "probe.html"
    page.write_text((report / "policy-review.html").read_text().replace("</body>", FIRST_SCREEN_PROBE + "</body>"))
    done = browse(chromium, page, tmp_path / "profile", "--window-size=1400,1043", "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    match = re.search(r'data-first-screen="([^"]*)"', done.stdout)
    assert match, "the probe did not run"
    probe = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert probe["width"] == 1400 and probe["height"] <= 900, probe
    data = json.loads((report / "policy-review.json").read_text())
    allowed = [f"{p['path']} {p['invoke_id']}" for p in data["residency"]["paths"] if p["allowed"]]
    assert probe["visible"]["residency-table"] and probe["visible"]["who-can-invoke"], probe
    assert probe["visible"]["residency-rows"] == allowed, probe


def test_the_first_screen_shows_the_weakenings_since_the_baseline(chromium, synth, tmp_path):
    """With --baseline, the first screen also lists every weakening (a widened exemption, a removed deny), above the
    residency sheet, whose first row stays in view."""
    from landing_zone.cli.review import write_reports
    from landing_zone.review.report import build_review
    from tests.review.test_auditor import _weaken

    s = synth(EU)
    current = _weaken(Path(s.outdir), tmp_path / "cdk.out")
    data = build_review(current, s.plan, scanners=False, proofs=False, baseline=s.outdir).data
    write_reports(data, tmp_path / "report")
    page = tmp_path / "probe.html"
    html = (tmp_path / "report" / "policy-review.html").read_text()
    page.write_text(html.replace("</body>", FIRST_SCREEN_PROBE + "</body>"))
    done = browse(chromium, page, tmp_path / "profile", "--window-size=1400,1043", "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    probe = json.loads(re.search(r'data-first-screen="([^"]*)"', done.stdout).group(1).replace("&quot;", '"'))
    weakenings = [c for c in data["changes"]["changes"] if c["weakening"]]
    assert len(weakenings) == 2 and probe["visible"]["changes-rows"] == 2, probe
    assert probe["visible"]["residency-table"] and probe["visible"]["residency-rows"], probe
