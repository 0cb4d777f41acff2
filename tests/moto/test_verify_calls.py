"""How many calls one verify run makes (collect once, evaluate many): what a service can list in one call is listed
once per run and every item is looked up in the listing, so a run against a real account asks less and is throttled
less.  One run of the EU example against its deployment in moto, every botocore call counted; the rows themselves are
pinned by the other tests of verify (the answers do not change, only how often AWS is asked)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import botocore.client
import pytest
from botocore.exceptions import ClientError

from tests.moto.conftest import Calls
from tests.moto.harness import Deployed

pytestmark = pytest.mark.moto


def fail_operation(
    monkeypatch: pytest.MonkeyPatch, operation: str, when: Callable[[Any, dict[str, Any]], bool]
) -> list[dict[str, Any]]:
    """``operation`` answers InternalFailure (no answer) when ``when(client, params)`` holds; the parameters of each
    call so refused are appended to the list returned."""
    make = botocore.client.BaseClient._make_api_call
    refused: list[dict[str, Any]] = []

    def failing(self: Any, name: str, params: dict[str, Any]) -> Any:
        if name == operation and when(self, params):
            refused.append(params)
            error: Any = {
                "Error": {"Code": "InternalFailure", "Message": "injected"},
                "ResponseMetadata": {"HTTPStatusCode": 500},
            }
            raise ClientError(error, name)
        return make(self, name, params)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", failing)
    return refused


def _run(cli: Callable, verify_args: Callable) -> list[dict[str, Any]]:
    code, stdout, _ = cli(verify_args("--json"))
    assert code == 0
    return list(json.loads(stdout)["checks"])


def test_event_rules_are_listed_once_per_account_region_and_bus(
    deployed: Deployed, cli, verify_args, counted: Calls
) -> None:
    rules = deployed.assembly.resources("AWS::Events::Rule")
    buses = {(r.stack.account, r.stack.region, json.dumps(r.prop("EventBusName", "default"))) for r in rules}
    assert len(rules) > len(buses) > 1  # several rules share a bus; the rules are in more than one account/Region
    _run(cli, verify_args)
    assert counted[("events", "DescribeRule")] == 0
    assert counted[("events", "ListRules")] == len(buses)
    assert counted[("events", "ListTargetsByRule")] == len(rules)  # no bulk API for targets
