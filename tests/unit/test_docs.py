"""The README and docs/ stay true: links resolve, the README's numbers are the plan's, its commands are the CLI's."""

from __future__ import annotations

import re

import pytest

from landing_zone.assembly import Assembly
from landing_zone.plan.deployment import deployment_steps, format_steps, removal_steps
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


def _removal_section() -> str:
    return (ROOT / "docs" / "DEPLOY.md").read_text().split("\n## Remove the landing zone\n", 1)[1].split("\n## ", 1)[0]


def test_the_removal_in_deploy_md_is_what_deploy_plan_remove_prints(plan_for):
    """The order the page gives is the one `deploy-plan --remove` prints, and the one `make e2e` runs."""
    block = _removal_section().split("```\n", 2)[1].split("```", 1)[0]
    prompt, _, shown = block.partition("\n")
    assert prompt == "$ python -m landing_zone deploy-plan --remove"
    plan = plan_for()
    assert shown == format_steps(plan, removal_steps(plan), removal=True)


# Retained resource types, as the table of "What is retained" names them in its first column.
RETAINED_KIND = {"AWS::KMS::Key": "KMS key", "AWS::Logs::LogGroup": "Log group", "AWS::S3::Bucket": "S3 bucket"}


@pytest.mark.parametrize("name", [None, "multi-account-100", "self-hosting"], ids=str)
def test_every_retained_resource_is_in_the_removal_table_and_the_table_lists_nothing_else(synth, name):
    """Each resource a template retains (DeletionPolicy: Retain) has a row of its kind naming its stack (the
    StackSet's instance stacks for the member template), and each kind of the table is retained somewhere."""
    rows = [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in _removal_section().split("### What is retained", 1)[1].splitlines()
        if line.startswith("| ") and not line.startswith("| retained")
    ]
    lz_ = synth(None if name is None else ROOT / "examples" / f"{name}.yaml")
    assembly = Assembly.load(lz_.outdir)
    retained = [
        (res.type, "instance stacks" if stack.stack_set else stack.name.removeprefix(f"{lz_.plan.config.name}-"))
        for stack in assembly.templates
        for res in stack.resources()
        if stack.resource_map[res.logical_id].get("DeletionPolicy") == "Retain"
    ]
    assert retained
    missing = [
        (kind, part)
        for kind, part in retained
        if not any(RETAINED_KIND[kind].lower() in row[0].lower() and part in row[1] for row in rows)
    ]
    assert not missing, f"retained but not in docs/DEPLOY.md's table: {missing}"
    kinds = {RETAINED_KIND[kind] for kind, _ in retained}
    assert all(any(k.lower() in row[0].lower() for k in RETAINED_KIND.values()) for row in rows)
    if name is None:  # the default: every row but the member baseline's and self-hosting's is retained here
        assert kinds == set(RETAINED_KIND.values())
