"""verify's building blocks without an account: policies compared as IAM reads them (compare.py), and which service
answers mean "could not ask" (live.py)."""

from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError

from landing_zone.verify.compare import document_diff, normalize_policy, same_document, short_hash
from landing_zone.verify.live import could_not_ask

POLICY = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Sid": "Invoke",
            "Effect": "Allow",
            "Principal": {"AWS": ["arn:aws:iam::111111111111:root", "arn:aws:iam::222222222222:root"]},
            "Action": ["bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"],
            "Resource": ["arn:aws:bedrock:*::foundation-model/a", "arn:aws:bedrock:*::foundation-model/b"],
            "Condition": {"Bool": {"aws:SecureTransport": "true"}},
        },
        {"Sid": "Read", "Effect": "Allow", "Principal": "*", "Action": "bedrock:GetInferenceProfile", "Resource": "*"},
    ],
}


def _variant(**changes: object) -> dict:
    policy = json.loads(json.dumps(POLICY))
    for key, value in changes.items():
        policy["Statement"][0][key] = value
    return policy


EQUIVALENT = {
    "statements reordered": {**POLICY, "Statement": list(reversed(POLICY["Statement"]))},
    "no Version": {"Statement": POLICY["Statement"]},
    "as JSON text": json.dumps(POLICY),
    "action list reordered and upper-cased": _variant(
        Action=["BEDROCK:INVOKEMODELWITHRESPONSESTREAM", "Bedrock:InvokeModel"]
    ),
    "resource list reordered": _variant(Resource=list(reversed(POLICY["Statement"][0]["Resource"]))),
    "principal list reordered": _variant(
        Principal={"AWS": ["arn:aws:iam::222222222222:root", "arn:aws:iam::111111111111:root"]}
    ),
    "boolean as a JSON boolean": _variant(Condition={"Bool": {"aws:SecureTransport": True}}),
    "single statement, not a list": {"Version": "2012-10-17", "Statement": POLICY["Statement"][0]},
}
SINGLE = {"Version": "2012-10-17", "Statement": [POLICY["Statement"][0]]}

DIFFERENT = {
    "statement added": {
        **POLICY,
        "Statement": [*POLICY["Statement"], {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}],
    },
    "statement removed": {**POLICY, "Statement": POLICY["Statement"][:1]},
    "action added": _variant(Action=[*POLICY["Statement"][0]["Action"], "bedrock:CreateModelInvocationJob"]),
    "resource widened": _variant(Resource="*"),
    "effect changed": _variant(Effect="Deny"),
    "condition dropped": _variant(Condition={}),
    "another language version": {**POLICY, "Version": "2008-10-17"},
}


@pytest.mark.parametrize("variant", list(EQUIVALENT), ids=list(EQUIVALENT))
def test_equivalent_policies_are_the_same(variant: str) -> None:
    live = EQUIVALENT[variant]
    expected = SINGLE if variant == "single statement, not a list" else POLICY
    assert same_document(expected, live)
    assert same_document(live, expected)


@pytest.mark.parametrize("variant", list(DIFFERENT), ids=list(DIFFERENT))
def test_a_changed_statement_is_not_the_same(variant: str) -> None:
    assert not same_document(POLICY, DIFFERENT[variant])


def test_the_hash_names_the_meaning_not_the_spelling() -> None:
    assert short_hash(POLICY) == short_hash(EQUIVALENT["statements reordered"]) == short_hash(json.dumps(POLICY))
    assert short_hash(POLICY) != short_hash(DIFFERENT["action added"])


def test_the_diff_shows_statements_not_spelling() -> None:
    assert document_diff(POLICY, EQUIVALENT["no Version"]) == "(- synthesized only, + live only, ~ changed)"
    assert document_diff(POLICY, EQUIVALENT["action list reordered and upper-cased"]).count("\n") == 0
    diff = document_diff(POLICY, DIFFERENT["action added"])
    assert "~ Invoke.Action: synthesized" in diff and "bedrock:CreateModelInvocationJob" in diff  # as written
    diff = document_diff(POLICY, DIFFERENT["statement added"])
    assert '+ {"Action":"s3:*","Effect":"Allow","Resource":"*"}' in diff


def test_documents_that_are_not_policies_are_only_made_canonical() -> None:
    assert normalize_policy({"b": [2, 1], "a": True}) == {"a": "true", "b": ["1", "2"]}
    assert not same_document({"Action": "S3:GetObject"}, {"Action": "s3:getobject"})  # not a policy: case counts


def _client_error(code: str, status: int = 400, message: str = "") -> ClientError:
    return ClientError(
        {"Error": {"Code": code, "Message": message}, "ResponseMetadata": {"HTTPStatusCode": status}}, "Operation"
    )


@pytest.mark.parametrize(
    "error, description",
    [
        (_client_error("InternalFailure", 500, "API action not yet implemented"), "no answer: InternalFailure"),
        (_client_error("NotImplemented", 501), "no answer: NotImplemented"),
        (_client_error("ServiceUnavailable", 503), "no answer: ServiceUnavailable"),
        (_client_error("SomethingOdd", 502), "no answer: SomethingOdd"),
        (_client_error("AccessDeniedException", 403), "unauthorised: AccessDeniedException"),
    ],
)
def test_service_failures_are_could_not_ask(error: ClientError, description: str) -> None:
    assert (could_not_ask(error) or "").startswith(description)


@pytest.mark.parametrize("code", ["NoSuchEntity", "ValidationError", "ResourceNotFoundException", "NoSuchBucket"])
def test_answers_about_the_resource_are_not_failures(code: str) -> None:
    assert could_not_ask(_client_error(code, 404)) is None
