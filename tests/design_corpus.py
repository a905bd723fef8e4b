"""Outlines written as learners write them, good and bad, with the verdict each must get.

Each entry: ``(name, outline, expected)``. ``expected`` lists only what the entry is about:
``level1`` (concrete), ``design`` (the three choices read, or None: nothing could be run),
``no_duplicate``, ``no_lost_or_stuck``, ``failure_consistent``, ``contradiction`` (at least one
reported) and ``passed``. tests/test_design_outline.py grades every entry and checks each key.

A note on the designs: the payment run is crashed in W1..W5 of the charge and of the booking and
recovered at once and 25 h later (past the provider's 24 h key retention). A key derived from
run + step + payload, journaled intents and lookup before resend is clean at once and escalates
past retention (accepted: nobody can settle it then); the same design with a blind resend, or
with the result journaled only after the call, charges twice after 25 h.
"""

from __future__ import annotations

from typing import Any

GOOD_CHECKPOINT = "Journal the intent (tool, args, effect key) before dispatch and the result after."
GOOD_KEY = "Idempotency key derived from run id + step + SHA-256 of the canonical payload."
GOOD_RESUME = ("Replay the journal from the top; for an intent without a result, look the charge "
               "up by its key at the provider: found -> record the receipt, not found within "
               "retention -> resend with the same key, past retention -> escalate.")
GOOD_FAILURE = ("Past the provider's 24 h key retention a lookup proves nothing: a crash in W2-W4 "
                "recovered that late leaves the run uncertain for an operator.")
RIGHT = ("intent-and-result", "derived-key", "replay-and-lookup")


def good(**change: Any) -> dict[str, Any]:
    """The reference outline with some fields changed (None removes a field)."""
    base = {"checkpoint": GOOD_CHECKPOINT, "idempotency": GOOD_KEY,
            "resumeProtocol": GOOD_RESUME, "failureMode": GOOD_FAILURE}
    base.update(change)
    return {k: v for k, v in base.items() if v is not None}


CORPUS: list[tuple[str, Any, dict[str, Any]]] = [
    # -- designs that pass ------------------------------------------------------------------
    ("textbook", good(), {"level1": True, "design": RIGHT, "passed": True}),
    ("write-ahead-paraphrase", {
        "checkpoint": "Write-ahead log: a 'started' record goes to SQLite before we call the API, "
                      "the response is appended when it comes back.",
        "idempotency": "key = hash of (workflow id, step number, request body), reused on every "
                       "retry",
        "resumeProtocol": "On restart, replay recorded steps; for a started-but-unfinished call, "
                          "query Stripe for the key first and only resend if it's not there.",
        "tradeOff": "Two fsyncs per tool call, and one extra round trip per unfinished call on "
                    "recovery."},
     {"design": RIGHT, "passed": True}),
    ("client-reference", {
        "checkpoint": "We record the intent in the journal before sending, and the result after.",
        "idempotency": "Each charge carries our client reference (run id + step), which the "
                       "provider stores and lets us search by.",
        "resumeProtocol": "Replay; for an unresolved intent, search the provider by our "
                          "reference: found -> take that receipt, not found -> resend.",
        "failureMode": "Every recovery costs one search request per unresolved call, an extra "
                       "round trip."},
     {"design": ("intent-and-result", "client-reference", "replay-and-lookup"), "passed": True}),
    ("structured-form", {
        "checkpoint": {"mechanism": "intent-and-result",
                       "detail": "an intent row before the HTTP call, a result row after"},
        "idempotency": {"mechanism": "derived-key",
                        "detail": "sha256 over run id, step and the canonical arguments"},
        "resumeProtocol": {"mechanism": "replay-and-lookup",
                           "detail": "ask the provider by key before any resend"},
        "tradeOff": "Two journal writes per call instead of one."},
     {"design": RIGHT, "passed": True}),
    ("order-id-as-key", good(
        checkpoint="Every tool call is written to the journal twice: an intent before sending "
                   "and the outcome after.",
        idempotency="Use the order id as the idempotency key, the same on every attempt.",
        resumeProtocol="Reconcile: ask the provider about the key before any resend; escalate "
                       "if the key may have expired.",
        failureMode="If recovery comes after the 24h retention, the run is stuck waiting for a "
                    "human."),
     {"design": RIGHT, "passed": True}),
    ("snake-case-keys", {"checkpoint": GOOD_CHECKPOINT, "idempotency": GOOD_KEY,
                         "resume_protocol": GOOD_RESUME,
                         "trade_off": "extra latency: an fsync before every call"},
     {"design": RIGHT, "passed": True}),
    ("negated-random-key", good(
        idempotency="Not a random key per attempt: a key derived from the run, the step and the "
                    "payload digest."),
     {"design": RIGHT, "passed": True}),
    ("instead-of-retrying", good(
        resumeProtocol="Instead of retrying blindly, look the charge up by its key, and resend "
                       "with the same key only if the provider has never seen it."),
     {"design": RIGHT, "passed": True}),
    ("never-resend-without-lookup", good(
        resumeProtocol="Replay from the journal. Never resend without a lookup at the provider "
                       "first."),
     {"design": RIGHT, "passed": True}),
    ("stored-uuid", good(
        idempotency="A UUID generated once per logical operation and journaled with the intent, "
                    "sent as Idempotency-Key on every attempt."),
     {"design": ("intent-and-result", "stored-key", "replay-and-lookup"), "passed": True}),
    ("cost-only-trade-off", good(failureMode=None,
                                 tradeOff="Slower: two fsyncs per call and a lookup on recovery."),
     {"passed": True, "failure_consistent": True}),
    ("structured-detail-disagrees", good(
        checkpoint={"mechanism": "intent-and-result", "detail": "we snapshot every minute"}),
     {"design": RIGHT, "passed": True}),
    ("review-prompt-words", good(
        checkpoint="Record 'about to charge' before calling the payment API, and the receipt "
                   "once it returns."),
     {"design": RIGHT, "passed": True}),
    ("temporal-style", {
        "checkpoint": "ActivityTaskScheduled is recorded before the activity runs, "
                      "ActivityTaskCompleted after it.",
        "idempotency": "We pass the workflow ID plus activity ID as the key.",
        "resumeProtocol": "Re-run the workflow from the top; completed steps return their "
                          "recorded results; an unfinished charge is checked against Stripe by "
                          "idempotency key.",
        "failureMode": "One extra round trip per unfinished call on recovery; past 24 h the run "
                       "waits for an operator."},
     {"design": RIGHT, "passed": True}),
    ("hash-notation", good(
        idempotency="Idempotency-Key = sha256(run_id:step:canonical_json(args))",
        resumeProtocol="Use GET /charges?idempotency_key=... before re-sending."),
     {"design": RIGHT, "passed": True}),
    # -- vague or unreadable: level 1 fails, nothing runs -----------------------------------------
    ("seed-vague", {"checkpoint": "save the state", "idempotency": "make it idempotent",
                    "resumeProtocol": "retry on failure", "failureMode": "handle errors"},
     {"level1": False, "design": None, "passed": False, "no_duplicate": False}),
    ("vague-database", {"checkpoint": "use a database", "idempotency": "idempotency",
                        "resumeProtocol": "resume where it left off", "failureMode": "errors"},
     {"level1": False, "design": None, "passed": False}),
    ("missing-resume", good(resumeProtocol=None), {"level1": False, "design": None}),
    ("empty-strings", {"checkpoint": "", "idempotency": " ", "resumeProtocol": "",
                       "failureMode": ""},
     {"level1": False, "design": None, "passed": False}),
    ("wrong-types", good(checkpoint=["journal", "intent"], resumeProtocol=42),
     {"level1": False, "design": None}),
    ("journal-without-timing", good(checkpoint="An append-only event journal in SQLite."),
     {"level1": False, "design": None}),
    ("replay-only", good(resumeProtocol="Replay the journal from the top."),
     {"level1": False, "design": None}),
    ("vague-failure-mode", good(failureMode="Things can go wrong."),
     {"level1": False, "design": RIGHT, "no_duplicate": True, "no_lost_or_stuck": True,
      "passed": False}),
    ("uuid4-from-where", good(idempotency="Use uuid4() as the idempotency key."),
     {"level1": False, "design": None}),
    ("not-a-mapping", "journal everything, use keys, look up on restart",
     {"level1": False, "design": None, "passed": False}),
    ("keyword-soup", good(idempotency="derived key from run and step, a UUID stored once, a "
                                      "random key per attempt, a client reference"),
     {"level1": False, "design": None, "passed": False}),
    ("unknown-mechanism", good(checkpoint={"mechanism": "wal", "detail": "a write-ahead log"}),
     {"level1": False, "design": None}),
    # -- concrete designs that break ------------------------------------------------------------
    ("random-per-attempt", good(
        idempotency="A fresh UUID as Idempotency-Key for every request.",
        failureMode="A crash in W3 could double charge."),
     {"level1": True, "design": ("intent-and-result", "random-per-attempt", "replay-and-lookup"),
      "no_duplicate": False, "failure_consistent": True, "contradiction": True,
      "passed": False}),
    ("blind-retry-same-key", good(
        resumeProtocol="Replay, and resend every unfinished call with the same key.",
        failureMode="Resending with the same key is safe: duplicates are impossible."),
     {"design": ("intent-and-result", "derived-key", "blind-retry"), "no_duplicate": False,
      "no_lost_or_stuck": True, "failure_consistent": False, "passed": False}),
    ("result-only", good(
        checkpoint="We save each tool's result in the journal after the call returns.",
        failureMode="After 24 h the provider forgets the key, so a re-run could charge twice."),
     {"design": ("result-only", "derived-key", "replay-and-lookup"), "no_duplicate": False,
      "failure_consistent": True, "contradiction": True, "passed": False}),
    ("snapshot-every-30s", {
        "checkpoint": "We snapshot the agent state to S3 every 30 seconds.",
        "idempotency": "Idempotency key from run id + step + args hash.",
        "resumeProtocol": "Load the latest snapshot and re-run unfinished steps.",
        "failureMode": "We might lose up to 30 s of work."},
     {"level1": True, "design": ("periodic-snapshot", "derived-key", "blind-retry"),
      "no_duplicate": False, "failure_consistent": False, "passed": False}),
    ("snapshot-every-minute", good(
        checkpoint="We store the agent's messages list in Redis every minute.",
        failureMode="A W3 crash before the next snapshot could charge twice."),
     {"design": ("periodic-snapshot", "derived-key", "replay-and-lookup"),
      "no_duplicate": False, "failure_consistent": True, "contradiction": True,
      "passed": False}),
    ("in-memory-no-key", {
        "checkpoint": "Keep everything in memory, no checkpoint.",
        "idempotency": "No idempotency key.",
        "resumeProtocol": "Restart the run from the beginning.",
        "failureMode": "If the process dies after the charge, the customer is charged twice."},
     {"design": ("none", "none", "blind-retry"), "no_duplicate": False,
      "failure_consistent": True, "contradiction": True, "passed": False}),
    ("escalate-only", good(
        resumeProtocol="On restart, mark any call without a result as uncertain and page an "
                       "operator; never retry automatically.",
        failureMode="W2-W4 crashes need a human to settle them."),
     {"design": ("intent-and-result", "derived-key", "escalate"), "no_duplicate": True,
      "no_lost_or_stuck": False, "failure_consistent": True, "passed": False}),
    ("fail-and-refund", good(
        resumeProtocol="Mark the run failed and refund the charge (saga compensation).",
        failureMode="The order may be abandoned even when the charge went through."),
     {"design": ("intent-and-result", "derived-key", "fail-and-compensate"),
      "no_lost_or_stuck": False, "failure_consistent": True, "passed": False}),
    ("lookup-without-key", good(
        idempotency="No idempotency key (our PSP doesn't support them).",
        resumeProtocol="Look the charge up at the provider before retrying.",
        failureMode="A lookup round trip per recovery."),
     {"design": ("intent-and-result", "none", "replay-and-lookup"), "contradiction": True,
      "no_lost_or_stuck": False, "failure_consistent": False, "passed": False}),
    ("stored-uuid-result-only", {
        "checkpoint": "Persist the output of each step when it completes.",
        "idempotency": "A random UUID created once per operation.",
        "resumeProtocol": "Re-execute unfinished steps.",
        "failureMode": "A crash before the result is persisted re-executes the call."},
     {"level1": True, "design": ("result-only", "stored-key", "blind-retry"),
      "no_duplicate": False, "failure_consistent": False, "passed": False}),
    ("false-alarm", good(failureMode="A crash in W3 double charges the customer."),
     {"design": RIGHT, "no_duplicate": True, "failure_consistent": False, "passed": False}),
    ("reference-blind-retry", good(
        idempotency="We put our order reference in the charge's metadata and can search for it.",
        resumeProtocol="Retry any unfinished call.",
        failureMode="Retrying after a lost response may double charge."),
     {"design": ("intent-and-result", "client-reference", "blind-retry"),
      "no_duplicate": False, "failure_consistent": True, "passed": False}),
]
