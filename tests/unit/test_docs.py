"""The README and docs/ stay true: links resolve, the README's numbers are the plan's, its commands are the CLI's."""

from __future__ import annotations

import re

from landing_zone.plan.deployment import deployment_steps
from tests.conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return "#" + text.replace(" ", "-")


def test_every_relative_link_and_anchor_resolves():
    broken = []
    for page in PAGES:
        for target, anchor in LINK.findall(page.read_text()):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            path = (page.parent / target).resolve()
            if not path.exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and path.suffix == ".md":
                headings = {_anchor(h) for h in re.findall(r"^#+ (.+)$", path.read_text(), flags=re.M)}
                if anchor not in headings:
                    broken.append(f"{page.name}: {target}{anchor}")
    assert not broken, "\n".join(broken)


def test_the_readme_fits_on_a_few_screens():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200


def test_the_readme_numbers_are_the_default_plans(plan_for):
    plan = plan_for()
    text = (ROOT / "README.md").read_text()
    assert f"{plan.budget.estimate.daily_usd:,.2f} USD/day" in text
    assert f"{plan.budget.usd:,.2f} USD monthly budget" in text
    assert f"{plan.cost_alarms.threshold_usd_per_hour:,.2f} USD/hour" in text


def test_the_readme_deploy_commands_are_what_deploy_plan_prints(plan_for):
    text = (ROOT / "README.md").read_text()
    shown = [line for line in text.splitlines() if line.startswith(("cdk bootstrap ", "cdk deploy "))]
    assert shown == [s.command for s in deployment_steps(plan_for())]
