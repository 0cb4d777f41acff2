"""Deploy once per worker, restore for each test: moto's state right after ``deploy_intent``.

Deploying the landing zone's intent into moto takes about a hundred and thirty API calls (2-4 s on 2 cores), and
most moto tests start from the same deployment of the same assembly.  Each test still gets a fresh ``mock_aws`` and a
state of its own: the first deployment of an (assembly, plan, accounts, parameters) in a worker is made as before and
a deep copy of every moto backend it touched is kept; a later deployment of the same inputs into an *empty* mock
restores a new deep copy of that state instead of making the calls again.  The test may change the copy as it
likes (drift, deleted resources, stubbed failures): the kept state is never handed out, and the Python side of the
deployment (``FakeServices``, the physical IDs) is copied too.  A deployment into a mock that already holds state
(e.g. a StackSet member next to its management account) runs the calls, as does any input not seen before.

One piece of moto's state lives outside the backends and is rebuilt after each restore: a subnet's address allocator
(``Subnet._base_avail_ip_iterator``, a ``functools.cache`` keyed by the subnet object, so a copied subnet would start
again at the CIDR's first host, which AWS reserves; see ``_resume_subnet_allocators``).

``LZ_MOTO_SNAPSHOTS=0`` turns the reuse off (every deployment makes its calls), to tell a harness problem from a
restore problem.
"""

from __future__ import annotations

import copy
import copyreg
import dataclasses
import hashlib
import json
import os
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from moto.core.base_backend import BackendDict
from moto.ssm.models import ParameterDict

MAX_KEPT = 16  # states kept per worker (a state is a few MB; 6 evicted states a later test needed again)
_KEPT: OrderedDict[tuple, tuple[list[BackendDict], list[dict], Any, Any]] = OrderedDict()
STATS = {"deployed": 0, "restored": 0}


def _new_parameter_dict(account_id: str, region_name: str) -> ParameterDict:
    return ParameterDict(account_id, region_name)


# moto's SSM ParameterDict is a defaultdict whose __init__ takes (account, Region): copy.deepcopy cannot rebuild it
# from defaultdict's own reduction.
copyreg.pickle(
    ParameterDict,
    lambda d: (_new_parameter_dict, (d.account_id, d.region_name), dict(d.__dict__), None, iter(d.items())),
)


def _enabled() -> bool:
    return os.environ.get("LZ_MOTO_SNAPSHOTS", "1") != "0"


def moto_is_empty() -> bool:
    return not any(len(regions) for bd in BackendDict._instances for regions in bd.values())


def _capture() -> tuple[list[BackendDict], list[dict]]:
    """Every backend dictionary in use and a deep copy of its accounts' per-Region backends (one copy, so that
    objects shared between services stay shared)."""
    dicts = list(BackendDict._instances)
    memo = {id(bd): bd for bd in dicts}
    return dicts, copy.deepcopy([{acct: dict(regions) for acct, regions in bd.items()} for bd in dicts], memo)


def _restore(dicts: list[BackendDict], state: list[dict]) -> None:
    BackendDict.reset()
    memo = {id(bd): bd for bd in dicts}
    for bd, accounts in zip(dicts, copy.deepcopy(state, memo), strict=True):
        for account, regions in accounts.items():
            dict.update(bd[account], regions)  # bd[account] makes the account's dictionary and registers bd
    _resume_subnet_allocators()


def _resume_subnet_allocators() -> None:
    """Each restored subnet's next automatic address is the one the deployed subnet would hand out.

    moto 5.2.5 draws a subnet's addresses from one iterator over the CIDR's hosts, cached per subnet object outside
    the backend (``@cache`` on ``Subnet._base_avail_ip_iterator``): a new subnet consumes the first three hosts as
    AWS-reserved (``aws_reserved_ips``, e.g. 10.0.0.1-3), and each automatic address (an ENI without ``Ip``, a
    Resolver endpoint's address) takes the next host not already in use.  The deep copy holds a new subnet object
    with no cached iterator, so moto would start again at the first host and hand out a reserved address
    (CreateResolverEndpoint: "IP address '10.60.0.1' ... is reserved").  The iterator is advanced past the reserved
    hosts here; moto itself skips the addresses the copy records as in use (``_subnet_ips``)."""
    from moto.ec2.models import ec2_backends

    for regions in ec2_backends.values():
        for backend in regions.values():
            for subnets in backend.subnets.values():
                for subnet in subnets.values():
                    hosts = subnet._base_avail_ip_iterator()
                    for _ in subnet.aws_reserved_ips:
                        next(hosts)


def _key(assembly: Any, plan: Any, accounts: Any, parameters: dict[str, str] | None) -> tuple:
    stacks = [
        (s.name, s.file, s.account, s.region, s.stack_set, s.nested_in, dict(s.tags), s.template)
        for s in (*assembly.stacks, *assembly.members, *assembly.unlisted)
    ]
    digest = hashlib.sha256(json.dumps(stacks, sort_keys=True, default=str).encode()).hexdigest()
    who = None if accounts is None else (tuple(sorted(accounts.accounts.items(), key=str)), accounts.default_region)
    return (str(assembly.path), digest, id(plan), who, tuple(sorted((parameters or {}).items())))


def deploy_once(
    deploy: Callable[..., Any], assembly: Any, plan: Any, accounts: Any, parameters: dict[str, str] | None
) -> Any:
    """``deploy(assembly, plan, accounts, parameters=...)`` (-> Deployed), or the restored state of an earlier
    identical call."""
    if not (_enabled() and moto_is_empty()):
        return deploy(assembly, plan, accounts, parameters=parameters)
    key = _key(assembly, plan, accounts, parameters)
    if key in _KEPT:
        _KEPT.move_to_end(key)
        dicts, state, kept, _plan = _KEPT[key]
        _restore(dicts, state)
        STATS["restored"] += 1
        fresh = accounts or type(kept.accounts)(dict(kept.accounts.accounts), kept.accounts.default_region)
        return dataclasses.replace(
            kept, assembly=assembly, accounts=fresh, fake=copy.deepcopy(kept.fake), ids=copy.deepcopy(kept.ids)
        )
    deployed = deploy(assembly, plan, accounts, parameters=parameters)
    STATS["deployed"] += 1
    dicts, state = _capture()
    kept = dataclasses.replace(deployed, fake=copy.deepcopy(deployed.fake), ids=copy.deepcopy(deployed.ids))
    # the plan is kept with its state: its id() is part of the key and must not be reused by another object
    _KEPT[key] = (dicts, state, kept, plan)
    while len(_KEPT) > MAX_KEPT:
        _KEPT.popitem(last=False)
    return deployed
