"""``make e2e`` step ``events`` (tests/e2e/e2e.sh): two detection events delivered, end to end, in the emulator.

The emulator has EventBridge and SNS but no CloudTrail delivery, so the step puts two records shaped as CloudTrail's
"AWS API Call via CloudTrail" events on the deployment account's default bus (PutEvents; the detection rules filter on
``detail-type`` and ``detail`` only, never on ``source``, so a custom source reaches them) — one change no SCP can
prevent (invocation logging deleted by an exempt principal), and one attempt an SCP statement denied (a bucket policy
rewrite) — and reads the alerts topic through an SQS queue it subscribes for the
step (removed afterwards). Each alert must name its statement, the principal and the resource.

  events RUN          exit 0 when both alerts arrive within 60 s, each naming statement, principal and resource
"""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any

from landing_zone.assembly import Assembly
from tests.e2e.accounts import NAME, Run, client

PRINCIPAL = "arn:aws:iam::100000000002:role/e2e-break-glass"
EVENTS: tuple[tuple[str, dict[str, Any], tuple[str, ...]], ...] = (
    (
        "invocation logging deleted (allowed: an exempt principal)",
        {
            "eventSource": "bedrock.amazonaws.com",
            "eventName": "DeleteModelInvocationLoggingConfiguration",
            "userIdentity": {"arn": PRINCIPAL},
            "requestParameters": {"e2e": "logging-config"},
        },
        ("DenyAccountSettingChanges", PRINCIPAL, "logging-config"),
    ),
    (
        "a bucket policy rewrite an SCP statement denied",
        {
            "eventSource": "s3.amazonaws.com",
            "eventName": "PutBucketPolicy",
            "userIdentity": {"arn": PRINCIPAL},
            "requestParameters": {"bucketName": f"{NAME}-invocation-logs-e2e"},
            "errorCode": "AccessDenied",
            "errorMessage": f"User: {PRINCIPAL} is not authorized to perform: s3:PutBucketPolicy on resource: "
            f"arn:aws:s3:::{NAME}-invocation-logs-e2e with an explicit deny in a service control policy",
        },
        ("DenyLandingZoneTampering", PRINCIPAL, f"{NAME}-invocation-logs-e2e"),
    ),
)


def _topic_arn(assembly: Assembly) -> tuple[str, str]:
    """(account, alerts topic ARN) of the detection stack's deployment (its rules' target)."""
    for stack in assembly.stacks:
        if stack.name != f"{NAME}-detection":
            continue
        for resource in stack.template.get("Resources", {}).values():
            if resource.get("Type") == "AWS::Events::Rule":
                assert stack.account and stack.region
                topic = f"arn:aws:sns:{stack.region}:{stack.account}:{NAME}-cost-alerts"
                return stack.account, topic
    raise SystemExit(f"no {NAME}-detection stack with a rule in the assembly: is detection on in this variant?")


def cmd_events(run_dir: str) -> int:
    run = Run(run_dir)
    account, topic_arn = _topic_arn(run.assembly)
    sqs, sns, bus = client("sqs", account), client("sns", account), client("events", account)
    queue_url = sqs.create_queue(QueueName=f"{NAME}-e2e-detection")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    subscription = sns.subscribe(TopicArn=topic_arn, Protocol="sqs", Endpoint=queue_arn, ReturnSubscriptionArn=True)
    failures: list[str] = []
    try:
        entries = [
            {
                "Source": "lz.e2e",
                "DetailType": "AWS API Call via CloudTrail",
                "Detail": json.dumps(detail),
                "EventBusName": "default",
            }
            for _, detail, _ in EVENTS
        ]
        put = bus.put_events(Entries=entries)
        if put.get("FailedEntryCount"):
            failures.append(f"PutEvents refused {put['FailedEntryCount']} entries: {put['Entries']}")
        wanted = [needles for _, _, needles in EVENTS]
        bodies = _receive(sqs, queue_url, wanted=wanted, seconds=60)
        for why, _, needles in EVENTS:
            hit = next((b for b in bodies if all(n in b for n in needles)), None)
            print(f"{'ok  ' if hit else 'FAIL'} {why}: {hit or 'no alert naming ' + ', '.join(needles)}")
            if hit is None:
                failures.append(why)
    finally:
        sns.unsubscribe(SubscriptionArn=subscription["SubscriptionArn"])
        sqs.delete_queue(QueueUrl=queue_url)
    for f in failures:
        print(f"FAIL {f}")
    return 1 if failures else 0


def _receive(sqs: Any, queue_url: str, *, wanted: list[tuple[str, ...]], seconds: int) -> list[str]:
    """The alert texts that reached the queue (SNS wraps each in an envelope: its Message), until one names each of
    ``wanted`` (every string of it) or ``seconds`` pass."""
    bodies: list[str] = []
    deadline = time.monotonic() + seconds

    def done() -> bool:
        return all(any(all(n in b for n in needles) for b in bodies) for needles in wanted)

    while not done() and time.monotonic() < deadline:
        got = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=5)
        for message in got.get("Messages", []):
            body = message["Body"]
            with contextlib.suppress(ValueError, AttributeError):  # not an SNS envelope: the text itself
                body = str(json.loads(body).get("Message", body))
            bodies.append(body)
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
    return bodies
