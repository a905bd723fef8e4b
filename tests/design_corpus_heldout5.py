"""A FIFTH held-out set of designOutline() answers (issue 17), never used to tune the reader.

Written and committed after the fourth held-out set was measured (good 10/12, bad fail 13/13)
and BEFORE the reader was fixed for what that set showed. Same format and ground truth as
:mod:`design_corpus_heldout`.
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT5: list[Entry] = [
    # == good: passes ===========================================================================
    ("h5-rfc", {
        "checkpoint": "The runtime MUST durably record an intent (tool, arguments, key) before "
                      "it issues the call, and MUST record the result after the call returns.",
        "idempotency": "The key MUST be derived from the run id, the step and the payload "
                       "digest, and MUST NOT change between attempts.",
        "resumeProtocol": "On resume, for an intent without a result, the runtime MUST query "
                          "the provider by the key and MUST NOT resend unless the provider "
                          "reports no such charge.",
        "tradeOff": "Every call incurs one additional durable write."},
     {"passed": True, "why": "RFC-style MUST/MUST NOT", "voice": "verbose"}),
    ("h5-markdown", {
        "checkpoint": "**Before** the call: write the intent to the journal. **After** the "
                      "call: write the result.",
        "idempotency": "`key = hash(run_id, step, payload)`, *identical* across retries.",
        "resumeProtocol": "Intent w/o result -> **look up** the key at the provider -> record "
                          "it, or resend with the *same* key.",
        "failureMode": "_Cost_: one more journal write per call."},
     {"passed": True, "why": "markdown emphasis", "voice": "terse"}),
    ("h5-indian-english", {
        "checkpoint": "Kindly note we are persisting the intent prior to invoking the API and "
                      "the response thereafter.",
        "idempotency": "Key is generated from run id and step itself, it will be same only "
                       "for all retries.",
        "resumeProtocol": "On restart we will do the needful: for every intent without response "
                          "we check with provider using the key, and resend with same key only "
                          "if it is not existing.",
        "tradeOff": "Little bit latency is there because of one extra write per call."},
     {"passed": True, "why": "Indian English idiom", "voice": "non-native"}),
    ("h5-chinese-english", {
        "checkpoint": "Call before, intent write to journal; call after, result write to "
                      "journal.",
        "idempotency": "Key use run id and step make, every retry same key.",
        "resumeProtocol": "Restart time, intent no result, go provider check the key; have "
                          "then record, no have then send again same key.",
        "failureMode": "Every call more one journal write."},
     {"passed": True, "why": "topic-comment word order", "voice": "non-native"}),
    ("h5-llm-ish", {
        "checkpoint": "Great question! To ensure durability, the system writes an intent "
                      "record to the journal before dispatching each tool call, and then "
                      "writes the result record once the call completes.",
        "idempotency": "To prevent duplicate charges, an idempotency key is deterministically "
                       "derived from the run ID, the step index and a hash of the payload, "
                       "ensuring retries reuse the same key.",
        "resumeProtocol": "Upon resumption, the system replays the journal and, for any intent "
                          "lacking a result, queries the payment provider using the "
                          "idempotency key before deciding whether to resend with the same "
                          "key.",
        "tradeOff": "This approach introduces additional latency due to the extra journal "
                    "write per call."},
     {"passed": True, "why": "assistant-style prose", "voice": "verbose"}),
    ("h5-checklist", {
        "checkpoint": "[x] intent journaled before dispatch [x] result journaled after",
        "idempotency": "[x] key derived from run + step [x] same key on every retry",
        "resumeProtocol": "[x] look up unresolved intents by key [x] resend same key if "
                          "unknown",
        "tradeOff": "[x] +1 journal write per call"},
     {"passed": True, "why": "checklist", "voice": "terse"}),
    ("h5-client-ref-4", {
        "checkpoint": "The intent is committed before the request and the result after.",
        "idempotency": "We stamp each charge with an external reference (run id + step) that "
                       "the provider indexes for search.",
        "resumeProtocol": "Search by that external reference at the provider; record what is "
                          "found, or charge again with the same reference.",
        "failureMode": "One search per unresolved charge on recovery."},
     {"passed": True, "why": "external reference", "voice": "plain"}),
    ("h5-stored-3", {
        "checkpoint": "Intent (with a UUID generated at that moment) goes to the journal before "
                      "the call; the result after.",
        "idempotency": "That UUID is generated once per operation and read back from the "
                       "journal for every retry.",
        "resumeProtocol": "For an intent with no result, look the UUID up at the provider; "
                          "resend with it only if the provider never saw it.",
        "tradeOff": "One extra journal write per call."},
     {"passed": True, "why": "stored key", "voice": "plain"}),
    ("h5-outbox-4", {
        "checkpoint": "Outbox row committed with the run state before any network I/O; reply "
                      "written to the row afterwards.",
        "idempotency": "Row key derived from run and step, sent as the idempotency key.",
        "resumeProtocol": "Rows without a reply are checked against the provider by key "
                          "before the relay delivers them again.",
        "tradeOff": "A relay to run, and one insert per call."},
     {"passed": True, "why": "outbox", "voice": "outbox"}),
    ("h5-limit-3", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key (run id, step, args digest), unchanged across retries.",
        "resumeProtocol": "Reconcile open intents by asking the provider about the key; resend "
                          "with the same key if it is unknown.",
        "failureMode": "After the provider's 24-hour key retention the answer means nothing, "
                       "so such late recoveries are escalated."},
     {"passed": True, "why": "limit", "voice": "plain"}),
    ("h5-plain-cost-5", {
        "checkpoint": "Intent to disk before the call, result to disk after.",
        "idempotency": "Same key for every attempt: run id + step.",
        "resumeProtocol": "Lookup by key at the provider before any resend.",
        "tradeOff": "Disk write in the hot path of every call."},
     {"passed": True, "why": "cost in words", "voice": "plain-cost"}),
    ("h5-queue-2", {
        "checkpoint": "Before publishing the charge command we journal an intent; the consumer's "
                      "reply is journaled when it arrives.",
        "idempotency": "Command key = hash(run, step), carried on every redelivery.",
        "resumeProtocol": "Unanswered commands are verified with the provider by key; only "
                          "unknown ones are published again.",
        "failureMode": "Each redelivery costs a provider lookup."},
     {"passed": True, "why": "queue", "voice": "queue"}),
    # == bad: fails =============================================================================
    ("h5-bad-rfc-blind", {
        "checkpoint": "The runtime MUST record an intent before the call and the result after.",
        "idempotency": "The key MUST be derived from run id and step.",
        "resumeProtocol": "On resume the runtime MUST resend every call without a result and "
                          "MUST NOT contact the provider first.",
        "tradeOff": "Extra write per call."},
     {"passed": False, "why": "blind resend in RFC style", "voice": "negation"}),
    ("h5-bad-llm-stuffed", {
        "checkpoint": "The system leverages a robust combination of write-ahead intents, "
                      "periodic snapshots and result-only checkpoints for maximum durability.",
        "idempotency": "It uses derived keys, stored UUIDs and client references to cover all "
                       "cases.",
        "resumeProtocol": "It reconciles via lookup, retries blindly when needed, compensates "
                          "with refunds and escalates to operators.",
        "tradeOff": "Some latency, duplicates and stuck runs in rare edge cases."},
     {"passed": False, "why": "assistant-style keyword soup", "voice": "stuffed",
      "contradiction": True}),
    ("h5-bad-memory-2", {
        "checkpoint": "The intent is held in process memory and only flushed to disk at "
                      "shutdown.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Look up open intents at the provider by key.",
        "tradeOff": "No per-call writes."},
     {"passed": False, "why": "held in memory until shutdown: a crash loses it",
      "voice": "qualifier", "contradiction": True}),
    ("h5-bad-per-try", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived from run and step, salted with a random value per try.",
        "resumeProtocol": "Look up the key, then resend.",
        "failureMode": "One lookup per open intent."},
     {"passed": False, "why": "random salt per try", "voice": "qualifier"}),
    ("h5-bad-chinese-blind", {
        "checkpoint": "Call before, intent write journal; call after, result write journal.",
        "idempotency": "Key use run id and step make.",
        "resumeProtocol": "Restart time, intent no result, directly send again, not ask "
                          "provider.",
        "failureMode": "Every call more one write."},
     {"passed": False, "why": "blind resend", "voice": "non-native"}),
    ("h5-bad-contradict-9", {
        "checkpoint": "We journal every intent before the call; we have no journal.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Look up open intents by key.",
        "failureMode": "A lookup per intent."},
     {"passed": False, "why": "journal and no journal", "voice": "contradicting",
      "contradiction": True}),
    ("h5-bad-contradict-10", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Look up by key, resend if missing.",
        "failureMode": "Because the intent is never written down, a crash loses track of the "
                       "charge."},
     {"passed": False, "why": "failure mode denies the checkpoint", "voice": "contradicting",
      "contradiction": True}),
    ("h5-bad-false-safe-3", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Always resend unfinished calls.",
        "failureMode": "Resending is harmless; a second charge cannot happen."},
     {"passed": False, "why": "blind; false safety", "voice": "false-failure"}),
    ("h5-bad-no-cost-4", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Look up by key, resend with the same key if missing.",
        "failureMode": "I could not think of any."},
     {"passed": False, "why": "no failure mode", "voice": "false-failure"}),
    ("h5-bad-vague-5", {
        "checkpoint": "Industry-standard durable execution.",
        "idempotency": "Exactly-once semantics.",
        "resumeProtocol": "Automatic recovery.",
        "tradeOff": "Complexity."},
     {"passed": False, "why": "buzzwords", "voice": "content-free"}),
    ("h5-bad-result-only-4", {
        "checkpoint": "Only the result is journaled, when the call returns.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "A step without a journaled result is executed again.",
        "failureMode": "A crash before the result is journaled executes the call again."},
     {"passed": False, "why": "result-only + blind", "voice": "plain"}),
    ("h5-bad-snapshot-3", {
        "checkpoint": "A checkpoint of the whole conversation is written every 30 seconds.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Load the last checkpoint and continue.",
        "failureMode": "Up to 30 seconds of work is lost."},
     {"passed": False, "why": "periodic snapshot", "voice": "plain"}),
]
