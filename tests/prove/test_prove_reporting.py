"""What a proof report says about its obligations (issue 35): a verdict per obligation that tells a timeout from a
solver that gave up, and counterexamples that carry only the condition keys that matter.  Pure: no synth."""

from __future__ import annotations

import z3

from landing_zone.policies.evaluator import Request
from landing_zone.prove.proofs import GAVE_UP_FRACTION, Obligation, ProofReport, PropertyResult
from landing_zone.prove.prover import Guard, ProofResult, Prover, SymbolicRequest


def _obligation(status: str, seconds: float, timeout_s: float = 10.0) -> Obligation:
    return Obligation(f"{status} after {seconds} s", ProofResult(status, seconds, reason="r"), timeout_s=timeout_s)  # type: ignore[arg-type]


def test_an_undecided_obligation_that_stopped_early_gave_up_and_one_that_used_its_budget_timed_out() -> None:
    assert _obligation("unknown", 0.2).verdict == "gave-up"
    assert _obligation("unknown", 0.99).verdict == "gave-up"  # within a second of a 10 s budget
    assert _obligation("unknown", 10.0 * GAVE_UP_FRACTION).verdict == "timeout"
    assert _obligation("unknown", 10.4).verdict == "timeout"
    assert _obligation("holds", 0.1).verdict == "holds"
    assert _obligation("unknown", 0.2).as_dict()["status"] == "gave-up"


def test_a_property_lists_the_obligations_that_hold_and_those_that_do_not() -> None:
    holds, gave_up = _obligation("holds", 0.1), _obligation("unknown", 0.1)
    prop = PropertyResult("P1", "t", (holds, gave_up), 0.2)
    d = prop.as_dict()
    assert d["holds"] == [holds.label]
    assert [o["label"] for o in d["not_holding"]] == [gave_up.label]
    assert d["verdicts"] == {"gave-up": 1, "holds": 1}
    report = ProofReport("src", "scp", (prop,))
    assert f"holds: {holds.label}" not in report.text()
    assert f"holds: {holds.label}" in report.text(every_obligation=True)
    assert f"gave-up: {gave_up.label}" in report.text()
    assert "1 gave-up, 1 holds" in report.text()


def test_a_counterexample_carries_only_the_keys_that_matter() -> None:
    """A deny outside eu-central-1 for everyone but one role, the priority tier or one endpoint, with other keys in
    the request: a counterexample to "every request outside eu-central-1 is denied" needs the Region and one way
    out (aws:PrincipalARN, bedrock:ServiceTier or aws:SourceVpce: the solver may pick any), and nothing else, though
    its model may set every key."""
    doc = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": "*", "Resource": "*"},
            {
                "Effect": "Deny",
                "Action": "bedrock:*",
                "Resource": "*",
                "Condition": {
                    "StringNotEquals": {"aws:RequestedRegion": "eu-central-1"},
                    "ArnNotLike": {"aws:PrincipalARN": "arn:aws:iam::*:role/exempt"},
                    "StringNotEqualsIfExists": {"bedrock:ServiceTier": "priority", "aws:SourceVpce": "vpce-1"},
                },
            },
        ],
    }
    guard = Guard.policies("p", [("p", doc)])
    prover = Prover(SymbolicRequest.for_documents(guard.documents, extra_keys=["aws:SourceIp"]), timeout_ms=10_000)
    enc = prover.encoder.for_action("bedrock:InvokeModel")
    region = enc.request.key("aws:RequestedRegion")
    premise = z3.And(enc.action_premise(), region.present, region.values[0] != z3.StringVal("eu-central-1"))
    result = prover.check(premise, z3.Not(enc.allowed(guard)), guards=[guard])
    assert result.status == "fails" and result.counterexample is not None
    c = result.counterexample
    ways_out = {"aws:PrincipalARN", "bedrock:ServiceTier", "aws:SourceVpce"}
    assert len(c.context) == 2 and "aws:RequestedRegion" in c.context, c.context
    assert set(c.context) - {"aws:RequestedRegion"} <= ways_out, c.context
    # minimal: without its way out, the same request is denied
    (way_out,) = set(c.context) - {"aws:RequestedRegion"}
    without = {k: v for k, v in c.context.items() if k != way_out}
    assert not guard.decide(Request(c.action, c.resource, without)), (way_out, c.context)
    assert result.replay_agrees
    # and it is a counterexample: the evaluator allows it
    assert guard.decide(Request(c.action, c.resource, dict(c.context)))
