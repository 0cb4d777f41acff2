"""The proven properties P1-P6 (:mod:`landing_zone.prove.proofs`): each one's obligations over the symbolic
request, decided by the prover, with the helpers that build them (ARN formats, the legitimate requests)."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence

import z3

from landing_zone.actiondb import lookup as action_db
from landing_zone.actiondb.source import NONE_DOCUMENTED, is_read, second_authorization
from landing_zone.actiondb.space import read_actions
from landing_zone.core.catalog.action_space import PROTECTED_SERVICES
from landing_zone.core.routing import PathKind
from landing_zone.plan import Plan
from landing_zone.policies import guardrails as g
from landing_zone.policies.alert_subscriptions import SUBSCRIBE_ACTIONS
from landing_zone.policies.evaluator import Request, policy_statements
from landing_zone.policies.invoke import MANTLE_INVOKE_ACTIONS, RUNTIME_INVOKE_ACTIONS, SERVICE_TIERS
from landing_zone.policies.protected import ProtectedResource, inventory
from landing_zone.prove.model import (
    AGENTCORE_SG_KEY,
    AGENTCORE_SUBNETS_KEY,
    API_KEY_CREATION,
    BEDROCK_PREFIXES,
    CREDENTIAL_SERVICE_KEY,
    DESCRIBING_KEYS,
    GATEWAY_AUTHORIZER_KEY,
    MANTLE_KEY,
    MANTLE_TIER_KEY,
    MODEL_RESOURCE_TYPES,
    NOT_MODEL_USE,
    PRINCIPAL,
    PROFILE_KEY,
    PROPERTIES,
    REGION,
    SERVICE_TIER_KEY,
    SOURCE_VPCE,
    TAG_KEY,
    TAG_KEYS,
    ProofInputs,
    PropertyResult,
)
from landing_zone.prove.prover import (
    Encoder,
    Guard,
    SymbolicRequest,
    action_matches,
)
from landing_zone.prove.prover import (
    caseless_re as _caseless,
)
from landing_zone.prove.run import (
    _PRINCIPAL_ARN,
    UNLISTED,
    _allowed_models,
    _allowed_profiles,
    _arn_format_re,
    _fill_format,
    _inference_regions,
    _mantle_models,
    _Run,
)
from landing_zone.tables.attacks import attacks_for
from landing_zone.tables.decision_cases import ALLOW, cases_for

# ------------------------------------------------------------------------------------------------- properties


def _outside(enc: Encoder, regions: Sequence[str]) -> z3.BoolRef:
    return z3.And(enc.request.key(REGION).present, z3.Not(enc.one_of(REGION, regions)))


def _p1(run: _Run) -> PropertyResult:
    start = time.perf_counter()
    gr = run.inputs.guardrails
    regions = _inference_regions(run.inputs.plan)
    listed = 0
    for prefix in BEDROCK_PREFIXES:
        known = run.known(prefix)
        listed += len(known)
        for group in run.groups(known):
            enc = run.prover.encoder.for_action(group[0])
            run.check(
                f"{group[0]} outside the compliant Regions",
                z3.And(enc.action_premise(), _outside(enc, regions)),
                z3.Not(enc.allowed(gr)),
                [gr],
                Request(group[0], "*", {REGION: "xx-outside-1"}),
                group,
            )
        enc = run.prover.encoder.for_other(prefix, known)
        run.check(
            f"any {prefix}: action not in the action database, outside the compliant Regions",
            z3.And(enc.action_premise(), _outside(enc, regions)),
            z3.Not(enc.allowed(gr)),
            [gr],
            Request(f"{prefix}:{UNLISTED}", "*", {REGION: "xx-outside-1"}),
        )
    note = (
        f"{listed} known actions (action database and policy literals), grouped by the statements they match, and "
        "one symbolic obligation per prefix for every other action; a request without aws:RequestedRegion is not "
        "considered (AWS sets it on every request)"
    )
    return run.done("P1", start, note=note)


def _model_actions(rt_name: str) -> list[str]:
    """The Bedrock actions that use a model: they require a resource of type ``rt_name`` (and are not named like
    :data:`NOT_MODEL_USE`)."""
    return [
        a.full
        for a in action_db.actions_of_service("bedrock")
        if not NOT_MODEL_USE.match(a.name) and any(rt.name == rt_name and rt.required for rt in a.resource_types)
    ]


def _unlisted(rt_name: str, res: z3.SeqRef, models: Sequence[str], profiles: Sequence[str]) -> tuple[z3.BoolRef, str]:
    """The resource is not an allow-listed model (of its resource type), and that in words."""
    if rt_name == "foundation-model":
        unlisted = z3.And([z3.Not(z3.SuffixOf(z3.StringVal("foundation-model/" + m), res)) for m in models])
        return unlisted, "a foundation model that is not allowed"
    if rt_name == "inference-profile":
        unlisted = z3.And(
            *[z3.Not(z3.SuffixOf(z3.StringVal("/" + p), res)) for p in profiles],
            *[z3.Not(z3.SuffixOf(z3.StringVal("." + m), res)) for m in models],
        )
        return unlisted, "a system inference profile of a model that is not allowed"
    return z3.BoolVal(True), f"any {rt_name} (not an allow-listed model)"


def _p2(run: _Run) -> PropertyResult:
    start = time.perf_counter()
    plan = run.inputs.plan
    gr = run.inputs.guardrails
    home = plan.config.home_region
    # every Region a request on a model may carry and not be denied by P1's statements: the compliant Regions (the
    # destination legs), the source Regions, and "unspecified" (the global leg) when global inference is allowed
    regions = _p2_regions(plan)
    second = second_authorization()
    relying = sorted(a for a, e in second.items() if e["second_authorization"] != NONE_DOCUMENTED)
    undocumented = sorted(a for a, e in second.items() if e["second_authorization"] == NONE_DOCUMENTED)
    models, profiles = _allowed_models(plan), _allowed_profiles(plan)
    db = {rt.name: rt for a in action_db.actions_of_service("bedrock") for rt in a.resource_types}
    resource_id = {"foundation-model": "not-allowed.model", "inference-profile": "xx.not-allowed.model"}
    for rt_name in MODEL_RESOURCE_TYPES:
        if rt_name not in db:
            continue
        actions = _model_actions(rt_name)
        for group in run.groups(actions):
            enc = run.prover.encoder.for_action(group[0])
            res = enc.request.resource
            # the resource as a concatenation of the format's parts (z3 decides those faster than a regular
            # expression); the last part is the resource ID
            fits = z3.InRe(res, _arn_format_re(db[rt_name].arn))
            unlisted, what = _unlisted(rt_name, res, models, profiles)
            witness = Request(
                group[0], _fill_format(db[rt_name].arn, home, resource_id.get(rt_name, "x")), {REGION: home}
            )
            run.check(
                f"{group[0]} on {what}",
                z3.And(enc.action_premise(), enc.one_of(REGION, regions), fits, unlisted),
                z3.Not(enc.allowed(gr)),
                [gr],
                witness,
                group,
            )
    mantle = _mantle_models(plan)
    mantle_actions = [a.full for a in action_db.actions_of_service("bedrock-mantle") if MANTLE_KEY.lower() in a.keys]
    for group in run.groups(mantle_actions):
        enc = run.prover.encoder.for_action(group[0])
        kv = enc.request.key(MANTLE_KEY)
        other_model = z3.And(
            kv.present, z3.Not(z3.Or([kv.values[0] == z3.StringVal(m) for m in mantle])) if mantle else z3.BoolVal(True)
        )
        run.check(
            f"{group[0]} with bedrock-mantle:Model not allowed on Mantle",
            z3.And(enc.action_premise(), enc.one_of(REGION, regions), other_model),
            z3.Not(enc.allowed(gr)),
            [gr],
            Request(group[0], "*", {REGION: home, MANTLE_KEY: "not-allowed.model"}),
            group,
        )
    note = (
        f"in every Region a request may name and not be denied by Region ({', '.join(regions)}: the compliant and "
        f"the source Regions); model resource types {', '.join(MODEL_RESOURCE_TYPES)}; actions named "
        f"{NOT_MODEL_USE.pattern} use no model and are left out; model-taking actions with no resource type rest on "
        f"a second authorization (bedrock:InvokeModel on the model: {', '.join(relying)}) or are confined by Region "
        f"only ({', '.join(undocumented)}; actiondb/data/second_authorization.yaml)"
    )
    return run.done("P2", start, note=note)


def _p2_regions(plan: Plan) -> list[str]:
    return sorted(set(_inference_regions(plan)) | set(plan.config.source_regions))


def _sample(entry: ProtectedResource, rt: str, arn_format: str, region: str) -> str:
    for sample_rt, arn in entry.samples:
        if sample_rt == rt:
            return arn
    for pattern in entry.arn_patterns:
        return pattern.replace("*", "x").replace("?", "x")
    return _fill_format(arn_format, region, "x")


def _not_exempt(
    enc: Encoder, action: str | None, also: Sequence[tuple[Sequence[str], list[str]]], exempt: list[str]
) -> z3.BoolRef:
    """The caller is an IAM principal of an account that the SCP does not exempt for this action."""
    who = next((w for acts, w in also if action is not None and action_matches(action, acts)), exempt)
    kv = enc.request.key(PRINCIPAL)
    an_arn = z3.InRe(kv.values[0], _PRINCIPAL_ARN)  # aws:PrincipalARN is an IAM ARN of an account
    return z3.And(kv.present, an_arn, z3.Not(enc.value_like(PRINCIPAL, who)))


def _rt_format(db: Mapping[str, action_db.Action], rt: str, service: str) -> str:
    """The ARN format of a resource type, by the action database (else the usual shape)."""
    return next(
        (t.arn for a in db.values() for t in a.resource_types if t.name == rt),
        f"arn:aws:{service}:${{Region}}:${{Account}}:{rt}/${{Id}}",
    )


def _changing_actions(db: Mapping[str, action_db.Action], rt: str) -> list[str]:
    """The actions on a resource type that change it: not rated Read or List, not a reviewed use action."""
    return [
        name
        for name, a in db.items()
        if any(t.name == rt for t in a.resource_types)
        and not is_read(action_db.access_level(a))
        and not action_matches(name, g.USE_ACTIONS)
    ]


def _protected_where(enc: Encoder, way: str, rt_format: str, entry: ProtectedResource, name: str) -> z3.BoolRef:
    """A resource of the type (in an account) that a name pattern covers (``name``), or that carries the
    landing-zone tag with the configuration's name (``tag``)."""
    of_type = z3.InRe(enc.request.resource, _arn_format_re(rt_format, account=True))
    if way == "name":
        return z3.And(of_type, enc.resource_in(entry.arn_patterns))
    return z3.And(of_type, enc.equals(TAG_KEY, name))


def _tagging_actions() -> list[str]:
    """The actions of the protected services that can set or remove a tag key (they take aws:TagKeys)."""
    return sorted(
        {a.full for s in PROTECTED_SERVICES for a in action_db.actions_of_service(s) if TAG_KEYS.lower() in a.keys}
    )


def _p3_not_applicable(inputs: ProofInputs) -> str | None:
    """Why P3 does not apply (no SCP binds an administrator, or tamper protection is off), else None."""
    if inputs.mode != "scp":
        return "single-account mode: no SCP binds an administrator"
    if not inputs.plan.config.policy_guardrails.tamper_protection:
        return "tamper_protection is off"
    return None


def _ways(entry: ProtectedResource) -> list[str]:
    """How the inventory recognises the resources of an entry: by name, by tag, or both."""
    return (["name"] if entry.by_name else []) + (["tag"] if entry.by_tag else [])


def _p3(run: _Run) -> PropertyResult:
    """Tamper protection from the protected-resource inventory (landing_zone.policies.protected)."""
    start = time.perf_counter()
    inputs = run.inputs
    config = inputs.plan.config
    why = _p3_not_applicable(inputs)
    if why is not None:
        return PropertyResult("P3", PROPERTIES["P3"], (), 0.0, applies=False, note=why)
    gr = inputs.guardrails
    ex = g.exemptions(config)
    exempt = list(ex.exempt)
    # who else may: the log writers append to the log groups; the documented alert subscribers add recipients (e-mail
    # or HTTPS: DenyAlertSubscribeProtocols, a red-team pair), which changes nothing the landing zone made
    also = (
        (g.LOG_WRITE_ACTIONS, [*exempt, *g.log_writer_roles(config)]),
        (SUBSCRIBE_ACTIONS, [*exempt, *config.cost.alert_subscriber_principal_arns]),
    )
    home = config.home_region
    attacker = "arn:aws:iam::999999999999:role/attacker"
    skipped_tag = 0

    def not_exempt(enc: Encoder, action: str | None) -> z3.BoolRef:
        return _not_exempt(enc, action, also, exempt)

    for entry in inventory(config, ex.protected_roles):
        if entry.recognised_by == "none":
            continue
        # reads from the database's access levels (Read or List), not from the SCP's exempt list; an action the
        # database does not list yet is a read when its verb's every listed action is (the rule of actiondb.space)
        reads = read_actions(entry.service)
        db = {a.full: a for a in action_db.actions_of_service(entry.service)}
        ways = _ways(entry)
        for rt in entry.resource_types:
            rt_format = _rt_format(db, rt, entry.service)
            changes = _changing_actions(db, rt)
            for way in ways:
                acts = changes
                if way == "tag":
                    acts = [a for a in changes if action_db.key_applies(TAG_KEY, db[a])]
                    skipped_tag += len(changes) - len(acts)
                for group in run.groups(acts):
                    enc = run.prover.encoder.for_action(group[0])
                    context: dict[str, str | list[str]] = {PRINCIPAL: attacker}
                    if way == "tag":
                        context[TAG_KEY] = config.name
                    where = _protected_where(enc, way, rt_format, entry, config.name)
                    run.check(
                        f"{entry.what} [{rt}, by {way}]: {group[0]}",
                        z3.And(enc.action_premise(), where, not_exempt(enc, group[0])),
                        z3.Not(enc.allowed(gr)),
                        [gr],
                        Request(group[0], _sample(entry, rt, rt_format, home), context),
                        group,
                    )
        # an action AWS adds to the service later: on the names (its resource type is unknown)
        if entry.by_name and entry.arn_patterns:
            enc = run.prover.encoder.for_other(entry.service, run.known(entry.service))
            run.check(
                f"{entry.what} [by name]: any {entry.service}: action not in the action database",
                z3.And(
                    enc.action_premise(),
                    z3.Not(enc.action_in(reads)),
                    z3.Not(enc.action_in(g.USE_ACTIONS)),
                    enc.resource_in(entry.arn_patterns),
                    not_exempt(enc, None),
                ),
                z3.Not(enc.allowed(gr)),
                [gr],
                Request(
                    f"{entry.service}:{UNLISTED}",
                    entry.arn_patterns[0].replace("*", "x").replace("?", "x"),
                    {PRINCIPAL: attacker},
                ),
            )
    # account-level settings (no resource type: authorised on "*")
    for action in g.ACCOUNT_SETTING_ACTIONS:
        enc = run.prover.encoder.for_action(action)
        run.check(
            f"account setting: {action}",
            z3.And(enc.action_premise(), not_exempt(enc, action)),
            z3.Not(enc.allowed(gr)),
            [gr],
            Request(action, "*", {PRINCIPAL: attacker}),
        )
    # setting or removing the landing-zone tag key, in any spelling (IAM tag keys are case-insensitive)
    tagging = _tagging_actions()
    for group in run.groups(tagging):
        enc = run.prover.encoder.for_action(group[0])
        kv = enc.request.key(TAG_KEYS)
        hit = [z3.InRe(v, _caseless(g.LANDING_ZONE_TAG)) for v in kv.values]
        where = z3.And(kv.present, z3.Or([z3.And(kv.active(i), h) for i, h in enumerate(hit)]))
        run.check(
            f"the landing-zone tag key (any spelling): {group[0]}",
            z3.And(enc.action_premise(), where, not_exempt(enc, None)),
            z3.Not(enc.allowed(gr)),
            [gr],
            Request(group[0], "*", {PRINCIPAL: attacker, TAG_KEYS: [g.LANDING_ZONE_TAG.upper()]}),
            group,
        )
    return run.done(
        "P3",
        start,
        note=f"from the protected-resource inventory; every action the IAM action database does not rate Read or "
        "List (its access levels, not the SCP's exempt list), other than the reviewed use actions; an action the "
        "database does not list is a read when its verb's every listed action is; "
        f"non-exempt: aws:PrincipalARN not like {', '.join(exempt)}; {skipped_tag} (action, entry) pairs without "
        "aws:ResourceTag support are left to the name patterns",
    )


def _legit_requests(plan: Plan, mode: str) -> list[tuple[str, Request]]:
    out: dict[tuple[str, str, str], tuple[str, Request]] = {}
    for case in cases_for(plan):
        expected = case.expected if mode == "scp" else case.expected_boundary
        if expected == ALLOW:
            req = Request(case.action, case.resource, case.request_context())
            out.setdefault(
                (req.action.lower(), req.resource, json.dumps(req.context, sort_keys=True)), (case.case, req)
            )
    if mode == "scp":
        for attack in attacks_for(plan)[0]:
            legit = attack.legit
            req = Request(legit.action, legit.resource, legit.request_context())
            label = f"red-team neighbour: {attack.legit_path}"
            out.setdefault((req.action.lower(), req.resource, json.dumps(req.context, sort_keys=True)), (label, req))
    return list(out.values())


def _describes(key: str) -> bool:
    """A key that says what the request asks for (tags, tier, retention mode): absent unless a row names it."""
    return key.startswith(("aws:resourcetag/", "aws:requesttag/")) or key == TAG_KEYS.lower() or key in DESCRIBING_KEYS


def _p4(run: _Run) -> PropertyResult:
    start = time.perf_counter()
    gr = run.inputs.guardrails
    for label, req in _legit_requests(run.inputs.plan, run.inputs.mode):
        enc = run.prover.encoder.for_action(req.action)
        fixed = [enc.action_premise(), enc.request.resource == z3.StringVal(req.resource)]
        named = {k.lower() for k in req.context}
        service, _, name = req.action.lower().partition(":")
        known = next((a for a in action_db.actions_of_service(service) if a.name.lower() == name), None)
        for k, kv in enc.request.keys.items():
            if k in named:
                continue
            describes = (
                k.startswith(("aws:resourcetag/", "aws:requesttag/")) or k == TAG_KEYS.lower() or k in DESCRIBING_KEYS
            )
            never_sent = not k.startswith("aws:") and known is not None and not action_db.key_applies(k, known)
            if describes or never_sent:
                fixed.append(z3.Not(kv.present))
        for key, value in req.context.items():
            values = list(value) if isinstance(value, list | tuple) else [str(value)]
            if key.lower() not in enc.request.keys:
                continue  # a key no policy names cannot change the decision
            fixed_kv = enc.request.key(key)
            count = z3.BoolVal(True) if fixed_kv.count is None else fixed_kv.count == len(values)
            fixed.append(
                z3.And(fixed_kv.present, count, *[fixed_kv.values[i] == z3.StringVal(v) for i, v in enumerate(values)])
            )
        run.check(label, z3.And(fixed), enc.allowed(gr), [gr], req)
    return run.done(
        "P4",
        start,
        note="each legitimate request of the standard cases and red-team neighbours; keys it does not name vary "
        "freely, except resource/request tags, aws:TagKeys, the service tier and data retention mode keys (they say "
        "which resource and what is asked: absent as the row states) and service keys the IAM action database does "
        "not list for the action (never sent)",
    )


def _p5_models_ok(plan: Plan) -> list[str]:
    """The model resources compliant inference may name: allowed foundation models in the compliant Regions (and
    the global profiles' destinations when global inference is allowed), their system profiles, application
    profiles and batch jobs."""
    compliant = sorted(plan.config.compliant_regions)
    fm_regions = list(compliant)
    if plan.config.allow_global_inference:
        fm_regions.append("")
        fm_regions += [
            r
            for mr in plan.routing.models
            for rt in mr.compliant_routes
            if rt.kind is PathKind.GLOBAL_PROFILE
            for r in rt.destination_regions
        ]
    models_ok = [
        f"arn:aws:bedrock:{r}::foundation-model/{m}" for r in sorted(set(fm_regions)) for m in _allowed_models(plan)
    ]
    models_ok += [f"arn:aws:bedrock:{r}:*:inference-profile/{p}" for r in compliant for p in _allowed_profiles(plan)]
    models_ok += [f"arn:aws:bedrock:{r}:*:application-inference-profile/*" for r in compliant]
    models_ok += [f"arn:aws:bedrock:{r}:*:model-invocation-job/*" for r in compliant]
    return models_ok


def _allowed_actions(identity: Guard) -> tuple[set[str], set[str], bool]:
    """What an identity policy's Allows name: the database actions (each of a wildcard), the service prefixes of
    its wildcards (their unknown actions), and whether any Allow is symbolic (a wildcard service or NotAction)."""
    concrete: set[str] = set()
    prefixes: set[str] = set()
    symbolic = False
    for name, doc in identity.documents:
        for stmt in policy_statements(name, dict(doc)):
            if stmt.effect != "Allow":
                continue
            if stmt.action_element != "Action":
                symbolic = True
                continue
            for pattern in stmt.actions:
                service, _, rest = pattern.lower().partition(":")
                if "*" not in pattern and "?" not in pattern:
                    concrete.add(pattern.lower())
                elif "*" in service or "?" in service or not rest:
                    symbolic = True
                else:
                    concrete.update(a.full.lower() for a in action_db.expand(pattern))
                    prefixes.add(service)
    return concrete, prefixes, symbolic


def _p5(run: _Run) -> PropertyResult:
    start = time.perf_counter()
    inputs = run.inputs
    plan = inputs.plan
    if not inputs.invokers:
        return PropertyResult("P5", PROPERTIES["P5"], (), 0.0, applies=False, note="no invoker role in the assembly")
    regions = _inference_regions(plan)
    models_ok = _p5_models_ok(plan)
    mantle = _mantle_models(plan)
    ceiling = (*g.INVOKER_CEILING_ACTIONS, "iam:PassRole")
    layers = [inputs.guardrails] + ([inputs.boundary] if inputs.boundary and inputs.mode == "scp" else [])

    def obligation(enc: Encoder, identity: Guard, label: str, witness: Request, members: Sequence[str]) -> None:
        bedrock = enc.action_in([f"{p}:*" for p in BEDROCK_PREFIXES])
        compliant_request = z3.And(
            enc.action_in(ceiling),
            z3.Implies(bedrock, enc.one_of(REGION, regions)),
            z3.Implies(enc.action_in(g.MODEL_ACTIONS), enc.resource_in(models_ok)),
            z3.Implies(
                enc.action_in(g.MANTLE_MODEL_ACTIONS), enc.one_of(MANTLE_KEY, mantle) if mantle else z3.BoolVal(False)
            ),
        )
        via_endpoint = enc.request.key(SOURCE_VPCE).present
        endpoint_ok = z3.Or([enc.allowed(e) for e in inputs.endpoints]) if inputs.endpoints else z3.BoolVal(False)
        effective = z3.And(
            enc.allowed(identity), *[enc.allowed(x) for x in layers], z3.Implies(via_endpoint, endpoint_ok)
        )
        run.check(
            label,
            enc.action_premise(),
            z3.Implies(effective, compliant_request),
            [identity, *layers, *inputs.endpoints],
            witness,
            members,
        )

    for identity in inputs.invokers:
        who = identity.name.removeprefix("identity ")
        # an action no Allow of the identity policy matches is not allowed: only the ones it names are proof
        # obligations (each database action of a wildcard, and the prefix's unknown actions symbolically)
        concrete, prefixes, symbolic = _allowed_actions(identity)
        for group in run.groups(sorted(concrete)):
            enc = run.prover.encoder.for_action(group[0])
            obligation(enc, identity, f"{who}: {group[0]}", Request(group[0], "*", {}), group)
        for prefix in sorted(prefixes):
            enc = run.prover.encoder.for_other(prefix, run.known(prefix))
            obligation(
                enc,
                identity,
                f"{who}: any {prefix}: action not in the action database",
                Request(f"{prefix}:{UNLISTED}", "*", {}),
                (),
            )
        if symbolic:
            obligation(
                run.prover.encoder,
                identity,
                f"{who}: any action (a wildcard service or NotAction in an Allow)",
                Request("sts:getcalleridentity", "*", {}),
                (),
            )
    return run.done(
        "P5",
        start,
        note="per action the invoker's identity policy allows (database actions of its wildcards grouped by the "
        "statements they match, unknown actions of a prefix symbolically); the endpoint policies apply to requests "
        "that carry aws:SourceVpce (any endpoint)",
    )


def _single_value_outside(enc: Encoder, key: str, allowed: Sequence[str]) -> z3.BoolRef:
    """The request carries ``key`` with one value, and that value is none of ``allowed``."""
    kv = enc.request.key(key)
    single = z3.BoolVal(True) if kv.count is None else kv.count == 1
    return z3.And(kv.present, single, *[kv.values[0] != z3.StringVal(v) for v in allowed])


def _p6_api_keys(run: _Run, gr: Guard) -> bool:
    """The API-key obligations of ``policy_guardrails.api_keys`` (api-keys-permissions.html; the statements of
    :func:`landing_zone.policies.guardrails.api_key_statements`); False when the settings deny no API-key use."""
    settings = run.inputs.plan.config.policy_guardrails
    short_term = settings.api_keys == "short-term-only"
    governs = False
    if short_term or settings.deny_api_key_creation:
        governs = True
        enc = run.prover.encoder.for_action(API_KEY_CREATION)
        run.check(
            f"{API_KEY_CREATION} for a Bedrock service (service name bedrock*)",
            z3.And(enc.action_premise(), enc.value_like(CREDENTIAL_SERVICE_KEY, ["bedrock*"])),
            z3.Not(enc.allowed(gr)),
            [gr],
            Request(API_KEY_CREATION, "*", {CREDENTIAL_SERVICE_KEY: "bedrock.amazonaws.com"}),
        )
    for action in g.BEARER_ACTIONS:
        enc = run.prover.encoder.for_action(action)
        if not short_term:
            if settings.deny_bearer_token_calls:
                governs = True
                run.check(
                    f"{action} (api_keys: none)",
                    enc.action_premise(),
                    z3.Not(enc.allowed(gr)),
                    [gr],
                    Request(action, "*", {}),
                )
            continue
        governs = True
        key = g.BEARER_TYPE_KEYS[action]
        run.check(
            f"{action} with a key that is not short-term",
            z3.And(enc.action_premise(), z3.Not(enc.equals(key, "SHORT_TERM"))),
            z3.Not(enc.allowed(gr)),
            [gr],
            Request(action, "*", {key: "LONG_TERM"}),
        )
        run.check(
            f"{action} by a principal not in api_key_principal_arns",
            z3.And(enc.action_premise(), z3.Not(enc.value_like(PRINCIPAL, settings.api_key_principal_arns))),
            z3.Not(enc.allowed(gr)),
            [gr],
            Request(action, "*", {key: "SHORT_TERM", PRINCIPAL: "arn:aws:iam::111122223333:role/not-listed"}),
        )
    return governs


def _p6(run: _Run) -> PropertyResult:
    start = time.perf_counter()
    gr = run.inputs.guardrails
    settings = run.inputs.plan.config.policy_guardrails
    tiers = sorted(settings.allowed_service_tiers)
    governs_tiers = not set(SERVICE_TIERS) <= set(tiers)
    # the AgentCore denies are SCP statements only (the invoker ceiling leaves AgentCore out of the boundary)
    governs_agentcore = settings.agentcore_controls and run.inputs.mode == "scp"
    governs_api_keys = _p6_api_keys(run, gr)
    if not governs_tiers and not governs_agentcore and not governs_api_keys:
        return PropertyResult(
            "P6",
            PROPERTIES["P6"],
            (),
            0.0,
            applies=False,
            note="every service tier allowed, no AgentCore control and no API-key deny in these guardrails",
        )
    if governs_tiers:
        for actions, key in ((RUNTIME_INVOKE_ACTIONS, SERVICE_TIER_KEY), (MANTLE_INVOKE_ACTIONS, MANTLE_TIER_KEY)):
            for action in actions:
                enc = run.prover.encoder.for_action(action)
                run.check(
                    f"{action} on a service tier outside {tiers}",
                    z3.And(enc.action_premise(), _single_value_outside(enc, key, tiers)),
                    z3.Not(enc.allowed(gr)),
                    [gr],
                    Request(action, "*", {key: "priority" if "priority" not in tiers else "flex"}),
                )
    if governs_agentcore:
        for action in g.AGENTCORE_GATEWAY_ACTIONS:
            enc = run.prover.encoder.for_action(action)
            run.check(
                f"{action} with GatewayAuthorizerType NONE",
                z3.And(enc.action_premise(), enc.equals(GATEWAY_AUTHORIZER_KEY, "NONE")),
                z3.Not(enc.allowed(gr)),
                [gr],
                Request(action, "*", {GATEWAY_AUTHORIZER_KEY: "NONE"}),
            )
        for action in g.AGENTCORE_VPC_ACTIONS:
            enc = run.prover.encoder.for_action(action)
            run.check(
                f"{action} without subnets or security groups",
                z3.And(enc.action_premise(), enc.absent(AGENTCORE_SUBNETS_KEY), enc.absent(AGENTCORE_SG_KEY)),
                z3.Not(enc.allowed(gr)),
                [gr],
                Request(action, "*", {}),
            )
    note = (
        "every principal, every Region and resource; a request that names no tier runs on the default tier (no key: "
        "not denied, by design)"
        + ("" if governs_agentcore else "; AgentCore: not in these guardrails (SCPs only), not proven here")
    )
    return run.done("P6", start, note=note)


# Two halves of about equal solve time (bench/prove_bench.py): with two cores, ``prove_all(jobs=2)`` runs one per
# process (the solver is single-threaded; a counterexample, a timeout or an error is the same in either process).


def symbolic_request(inputs: ProofInputs) -> SymbolicRequest:
    """The symbolic request over every condition key the documents name, the keys the properties state and the
    keys the legitimate requests carry."""
    extra = [REGION, PRINCIPAL, SOURCE_VPCE, PROFILE_KEY, MANTLE_KEY, TAG_KEY, TAG_KEYS]
    for _, req in _legit_requests(inputs.plan, inputs.mode):
        extra += list(req.context)
    return SymbolicRequest.for_documents(inputs.documents, extra_keys=extra)
