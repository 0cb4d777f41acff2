"""The review report's "Detection" section: what is detected, where it is delivered, what only ``verify`` checks, and
per tamper-relevant class of the threat model whether it is prevented, detected or a residual risk.

Everything but the class names and the residual text is read from the plan: the rules
(:mod:`landing_zone.policies.detection`), the statements that deny their calls, and the stacks of the assembly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from landing_zone.assembly import Assembly
from landing_zone.core import naming
from landing_zone.plan import Plan
from landing_zone.plan.detection import (
    GLOBAL_EVENTS_REGION,
    MEMBER_BASELINE_RESIDUAL,
    member_rules,
    workload_forwarders,
)
from landing_zone.policies.detection import EventRule
from landing_zone.review.sections import renders

__all__ = ["ACCOUNT_SETTINGS_STATES", "CONFIG_RULE_CHECKS", "THREAT_CLASSES", "VERIFY_ONLY", "detection_section"]

# What an event rule cannot see, because it is a state, not a call: `verify` reads it back (docs/VERIFY.md names
# each check).  An event rule notices the *change* that leads there (the rule in the second column, if any).
VERIFY_ONLY: tuple[tuple[str, str], ...] = (
    ("invocation logging's destination (bucket, log group, role) is the landing zone's", "account-settings-bedrock"),
    ("the data retention mode in home_region is the configured one", "account-settings-bedrock"),
    ("the enforced guardrail is the landing zone's, at its version", "account-settings-bedrock"),
    ("endpoint policies and key policies are the synthesized ones", "ec2-vpc-endpoint, kms-key"),
    ("the VPC's default security group and network ACL admit nothing", "ec2-security-group, ec2-network-acl"),
    ("the protected resources carry the landing-zone tag", "denied-* (DenyLandingZoneTagChanges)"),
    ("the detection rules are enabled, with their event pattern and targets", ""),
    ("a change made before the rules existed, or while CloudTrail was not logging", ""),
)

# The states of VERIFY_ONLY that an AWS Config rule (``detection.config_rules``; landing_zone.policies.config_rules)
# also checks continuously, by the rule's id, with what of the state it covers.
CONFIG_RULE_CHECKS: Mapping[str, tuple[str, str]] = {
    "the VPC's default security group and network ACL admit nothing": ("default-sg-closed", "the security group"),
    "the protected resources carry the landing-zone tag": ("tags", "stacks, buckets, VPCs, subnets, security groups"),
}
# The states of VERIFY_ONLY that the account-settings rule (custom Lambda; landing_zone.policies.config_checks) checks
# when its parameters name the setting (a setting the configuration leaves alone is not checked): the parameter that
# says so, and what of the state it covers (with a managed rule's, when both check part of a state).
ACCOUNT_SETTINGS_STATES: Mapping[str, tuple[str, str]] = {
    VERIFY_ONLY[0][0]: ("logBucket", "bucket and prefix, log group, role, data types"),
    VERIFY_ONLY[1][0]: ("retentionMode", "the mode"),
    VERIFY_ONLY[2][0]: ("guardrailId", "the guardrail's ID and pinned version"),
    VERIFY_ONLY[3][0]: ("keyPolicies", "each interface endpoint's and key's policy, by digest"),
    VERIFY_ONLY[4][0]: ("vpcId", "the network ACL: no subnet on the default one"),
}

# The threat model's tamper-relevant classes (docs/THREAT_MODEL.md): the detection rules that watch each (by id; an id
# ending in '-' is a prefix), the IAM actions of the class where a rule watches more than it, and what stays residual.
# Prevention is read from the SCP statements that name those actions (else from the rules' statements).
THREAT_CLASSES: tuple[tuple[str, tuple[str, ...], tuple[str, ...], str], ...] = (
    (
        "invocation logging removed or redirected",
        ("account-settings-bedrock",),
        ("bedrock:PutModelInvocationLoggingConfiguration", "bedrock:DeleteModelInvocationLoggingConfiguration"),
        "the management account and the exempt principals are not denied: detected",
    ),
    (
        "data retention mode changed (bedrock and bedrock-mantle)",
        ("account-settings-bedrock", "account-settings-bedrock-mantle"),
        ("bedrock:PutAccountDataRetention", "bedrock-mantle:PutAccountDataRetention"),
        "the management account and the exempt principals: detected; Mantle project-level retention is denied, and "
        "its denied attempts alert",
    ),
    (
        "enforced guardrail removed, guardrail weakened or deleted",
        ("account-settings-bedrock", "bedrock-guardrail"),
        (
            "bedrock:PutEnforcedGuardrailConfiguration",
            "bedrock:DeleteEnforcedGuardrailConfiguration",
            "bedrock:UpdateGuardrail",
            "bedrock:DeleteGuardrail",
        ),
        "exempt principals: detected",
    ),
    (
        "long-term Bedrock API key created",
        ("bedrock-api-keys",),
        ("iam:CreateServiceSpecificCredential",),
        "the management account: detected",
    ),
    (
        "SCP detached, updated or deleted; SCP policy type disabled",
        ("organizations-policy", "organizations-root"),
        ("organizations:DisablePolicyType",),
        "the management account is bound by no SCP: detected only (a member account's attempt is denied)",
    ),
    (
        "VPC endpoint, its security group, routes or DNS attributes changed",
        ("ec2-vpc-endpoint", "ec2-security-group", "ec2-route-table", "ec2-vpc"),
        (),
        "Firewall Manager's service-linked role (no SCP applies to it): detected",
    ),
    ("network ACL changed", ("ec2-network-acl",), (), "the VPC's default ACL carries no tag: detected only"),
    (
        "Resolver rule, DNS Firewall, query-log or private hosted zone associated with the VPC",
        ("route53resolver-association", "route53-hostedzone"),
        (),
        "no condition key names the VPC: detected only",
    ),
    ("key policy or bucket policy rewritten", ("kms-key", "s3-bucket"), (), "exempt principals: detected"),
    ("an attempt an SCP statement denied", ("denied-",), (), "none: every landing-zone statement has a rule"),
    (
        "the detection rules disabled or their target removed",
        (),
        (),
        "prevented by name (DenyLandingZoneTampering on <name>-*); a disabled rule alerts nothing: verify's event-rule "
        "checks find it (state, pattern, targets), so the management account and exempt principals remain residual "
        "only between two runs of verify",
    ),
    (
        "an AWS Config rule deleted, or the account's recorder stopped",
        (),
        (),
        "residual: a Config rule's ARN carries its ID, so no name deny reaches it, and the recorder is not the landing "
        "zone's (preflight reports it); the states fall back to verify's runs",
    ),
    (
        "the default bus's statement for the management account removed",
        (),
        (),
        "residual: the default bus is shared, so its policy is not protected; Organizations events then stop arriving",
    ),
    (
        "CloudTrail stopped or its management events excluded",
        (),
        (),
        "residual: the rules see only what CloudTrail delivers (Control Tower's organization trail protects its own)",
    ),
)


def _where(plan: Plan, rule: EventRule) -> str:
    """Where the rule alerts, and (``detection.central_event_bus_arn``) which stacks deliver its events to the central
    bus: each stack its own events (EventBridge does not send an event received from another account on to a third)."""
    cfg = plan.config
    central = cfg.detection.central_event_bus_arn
    if central is None or cfg.member_baseline.enabled:
        return _where_alerted(plan, rule)
    if rule.placement == "management":
        stacks = [naming.stack_name(cfg.name, "detection-management")]
    else:
        stacks = [naming.stack_name(cfg.name, "detection")]
        stacks += [naming.stack_name(cfg.name, f.part) for f in workload_forwarders(cfg) if f.carries(rule)]
    verb = "deliver" if len(stacks) > 1 else "delivers"
    return f"{_where_alerted(plan, rule)}; {', '.join(stacks)} {verb} them to {central}"


def _where_alerted(plan: Plan, rule: EventRule) -> str:
    cfg = plan.config
    if cfg.member_baseline.enabled:
        stack_set = naming.member_baseline_stack_set_name(cfg.name)
        topic = naming.alerts_topic_name(cfg.name)
        return f"each member account's {stack_set} instance ({cfg.home_region}) alerts its own {topic}"
    home = f"{naming.stack_name(cfg.name, 'detection')} ({cfg.deployment_account}, {cfg.home_region})"
    topic = naming.alerts_topic_name(cfg.name)
    if rule.placement == "management" and cfg.organization is not None:
        return (
            f"{naming.stack_name(cfg.name, 'detection-management')} ({cfg.organization.management_account_id}, "
            f"us-east-1) forwards to {home}, which alerts {topic}"
        )
    via = ""
    global_sources = rule.global_sources if rule.sources else ()
    forwarders = workload_forwarders(cfg)
    if global_sources and cfg.home_region != GLOBAL_EVENTS_REGION:
        forwarder = naming.stack_name(cfg.name, "detection-global")
        via = f"; {', '.join(global_sources)} arrive in us-east-1 and {forwarder} forwards them"
    regional = [f for f in forwarders if f.regional and f.carries(rule)]
    if regional:
        stacks = ", ".join(f"{naming.stack_name(cfg.name, f.part)} ({f.region})" for f in regional)
        via += f"; calls made in the other source Regions are forwarded by {stacks}"
    return f"{home} alerts {topic}{via}"


def _naming(statements: Sequence[Mapping[str, Any]], actions: Sequence[str]) -> set[str]:
    """The Sids of the statements whose Action names one of ``actions`` itself."""
    wanted = {a.lower() for a in actions}
    out = set()
    for stmt in statements:
        listed = stmt.get("Action", [])
        listed = [listed] if isinstance(listed, str) else listed
        if wanted & {a.lower() for a in listed}:
            out.add(str(stmt["Sid"]))
    return out


def _matched(rules: Sequence[Mapping[str, Any]], ids: Sequence[str]) -> list[Mapping[str, Any]]:
    """The rules named by ``ids`` (an id ending in '-' is a prefix)."""
    return [r for r in rules if any(r["id"] == i or (i.endswith("-") and r["id"].startswith(i)) for i in ids)]


def _threat_rows(
    plan: Plan, rules: Sequence[Mapping[str, Any]], planned: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Per class: the statements that prevent it, the deployed ``rules`` that detect it, and the residual (with the
    member baseline, also the ``planned`` rules its template does not carry)."""
    scps = plan.policies.scps
    statements = [s for d in scps.documents for s in d["Statement"]] if scps is not None else []
    rows = []
    for what, ids, actions, residual in THREAT_CLASSES:
        matched = _matched(rules, ids)
        if actions:
            prevented = sorted(_naming(statements, actions))
        else:
            prevented = sorted({s for r in matched for s in r["statements"]})
        missing = sorted({r["id"] for r in _matched(planned, ids)} - {r["id"] for r in matched})
        if missing:  # the member baseline's template does not carry these
            residual = (
                f"{residual if matched else 'not detected'}; with the member baseline, not watched "
                f"({', '.join(missing)}): {MEMBER_BASELINE_RESIDUAL}"
            )
        rows.append(
            {
                "class": what,
                "prevented_by": prevented,
                "detected_by": [r["id"] for r in matched],
                "residual": residual,
            }
        )
    return rows


def _verify_only(plan: Plan) -> list[dict[str, str]]:
    """Each state verify checks, the event rule that notices the change, and the AWS Config rule (its deployed name
    and what it covers) that checks it between two runs of verify ("" without one)."""
    detection = plan.policies.detection
    names = detection.config_rule_names if detection is not None else {}
    settings = detection.account_settings_rule if detection is not None else None
    out = []
    for state, change_rule in VERIFY_ONLY:
        checks = [CONFIG_RULE_CHECKS.get(state, ("", ""))]
        parameter, what = ACCOUNT_SETTINGS_STATES.get(state, ("", ""))
        if settings is not None and parameter in settings.parameters:
            checks.append((settings.id, what))
        config_rule = "; ".join(f"{names[rule_id]} ({covers})" for rule_id, covers in checks if rule_id in names)
        out.append({"state": state, "change_rule": change_rule, "config_rule": config_rule})
    return out


def detection_section(plan: Plan, assembly: Assembly | None = None) -> dict[str, Any]:
    """The section's data (also in the JSON report): ``on``; each rule with what it watches, the statements that
    deny its calls, and where its alert is delivered; what only verify checks; the per-class table."""
    detection = plan.policies.detection
    stacks = sorted(s.name for s in assembly.stacks) if assembly is not None else []
    if detection is None:
        return {
            "on": False,
            "why": "detection is off (detection.enabled false, or single-account mode with it omitted): nothing is "
            "watched between two runs of verify",
            "rules": [],
            "verify_only": _verify_only(plan),
            "classes": [],
            "stacks": [],
        }
    member = plan.config.member_baseline.enabled
    deployed = member_rules(plan.config, detection.rules) if member else detection.rules
    rules = [{**r.as_dict(), "where": _where(plan, r)} for r in deployed]
    return {
        "on": True,
        "why": f"with the member baseline, {MEMBER_BASELINE_RESIDUAL}" if member else "",
        "rules": rules,
        "verify_only": _verify_only(plan),
        "classes": _threat_rows(plan, rules, [r.as_dict() for r in detection.rules]),
        "stacks": [s for s in stacks if "-detection" in s],
    }


def _rule_rows(d: Mapping[str, Any]) -> list[list[str]]:
    return [
        [
            r["id"],
            r["what"],
            ", ".join(r["statements"]) or "none (detection only)",
            "denied attempts" if r["denied"] else "calls, allowed or denied",
            r["where"],
        ]
        for r in d["rules"]
    ]


def _class_rows(d: Mapping[str, Any]) -> list[list[str]]:
    return [
        [c["class"], ", ".join(c["prevented_by"]) or "—", ", ".join(c["detected_by"]) or "—", c["residual"]]
        for c in d["classes"]
    ]


def _state_rows(d: Mapping[str, Any]) -> list[list[str]]:
    return [[v["state"], v["change_rule"] or "—", v["config_rule"] or "— (verify only)"] for v in d["verify_only"]]


STATES_HEADING = "States verify checks, and the AWS Config rules that check them between its runs"
STATE_HEADERS = ("state", "the change is detected by", "continuously checked by (AWS Config rule)")
RULE_HEADERS = ("rule", "watches", "prevented by", "matches", "delivered")
CLASS_HEADERS = ("class", "prevented by", "detected by", "residual")
INTRO = (
    "EventBridge rules on CloudTrail management events (docs/DETECTION.md): each alert names the statement, the "
    "principal and the resource. Events show a change while it happens; verify reads the state."
)


def _md_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    def cell(v: str) -> str:
        return v.replace("|", "\\|").replace("\n", " ")

    return [
        "| " + " | ".join(headers) + " |",
        "|" + "|".join("---" for _ in headers) + "|",
        *("| " + " | ".join(cell(c) for c in row) + " |" for row in rows),
        "",
    ]


@renders("md", "detection")
def _md(report: Mapping[str, Any]) -> list[str]:
    d = report["detection"]
    if not d["on"]:
        out = [d["why"] + ".", "", "What only verify checks:", ""]
        return out + [f"- {v['state']}" for v in d["verify_only"]] + [""]
    out = [INTRO + (f" Note: {d['why']}." if d["why"] else ""), "", "### Prevented, detected, residual", ""]
    out += _md_table(CLASS_HEADERS, _class_rows(d))
    out += ["### Rules", "", *_md_table(RULE_HEADERS, _rule_rows(d)), f"### {STATES_HEADING}", ""]
    return out + _md_table(STATE_HEADERS, _state_rows(d))


def _html_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


@renders("html", "detection")
def _html(report: Mapping[str, Any]) -> str:
    d = report["detection"]
    verify = _html_table(STATE_HEADERS, _state_rows(d))
    if not d["on"]:
        return f"<p>{escape(d['why'])}.</p><h3>{STATES_HEADING}</h3>{verify}"
    note = f" Note: {d['why']}." if d["why"] else ""
    return (
        f"<p>{escape(INTRO + note)}</p><h3>Prevented, detected, residual</h3>{_html_table(CLASS_HEADERS, _class_rows(d))}"
        f"<h3>Rules</h3>{_html_table(RULE_HEADERS, _rule_rows(d))}<h3>{STATES_HEADING}</h3>{verify}"
    )
