"""A SECOND held-out set of designOutline() answers (issue 17), never used to tune the reader.

Why a second one: the first held-out half (:mod:`design_corpus_heldout`) was measured once
(good pass 33/40, bad fail 40/42 at commit d353d30) and the reader was then fixed for the
misreadings it showed, so it no longer measures an untuned reader. This set was written and
committed after that first measurement and BEFORE those fixes; it is the untuned measure.
Same format and ground truth as :mod:`design_corpus_heldout` (read its docstring).
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT2: list[Entry] = [
    # == good: passes ===========================================================================
    ("h2-terse-1", {
        "checkpoint": "persist intent first, call second, persist outcome third",
        "idempotency": "key from (run_id, step_no, digest(args)); never regenerated",
        "resumeProtocol": "open intent => query provider by key => record or resend same key",
        "tradeOff": "extra write + fsync per call"},
     {"passed": True, "why": "terse clean design", "voice": "terse"}),
    ("h2-terse-2", {
        "checkpoint": "intent committed pre-dispatch, receipt committed post-response",
        "idempotency": "stable effect key: run + step + payload hash",
        "resumeProtocol": "reconcile unresolved intents by provider lookup before any resend",
        "failureMode": "reconciliation adds a round trip per unresolved intent"},
     {"passed": True, "why": "terse clean design", "voice": "terse"}),
    ("h2-verbose-1", {
        "checkpoint": "My rule is simple: the world never learns about a call before the "
                      "journal does. So I append an intent entry and commit it, then I "
                      "send the request, and when the answer comes back I append it as the "
                      "result entry of the same step.",
        "idempotency": "I compute the key from three things that do not change when I retry: "
                       "the run id, the step number and a hash of the arguments. A retry "
                       "therefore carries exactly the key of the first attempt.",
        "resumeProtocol": "A restarted worker replays the entries in order. Finished steps "
                          "give back their recorded result. An intent without a result is "
                          "the dangerous case: I ask the payment provider whether it has a "
                          "charge under that key and record it if so; if it has none, I send "
                          "again with the same key.",
        "failureMode": "If the restart comes more than a day later, the provider no longer "
                       "remembers the key, so the question has no reliable answer and the "
                       "run has to stop for an operator."},
     {"passed": True, "why": "verbose clean design, limit in words", "voice": "verbose"}),
    ("h2-verbose-2", {
        "checkpoint": "For each tool call there are two durable writes in the run's SQLite "
                      "journal: an intent written and committed before the request is "
                      "issued, and the result written after the response arrives.",
        "idempotency": "The provider deduplicates on an idempotency key that we derive from "
                       "the run, the step and the canonical payload, so the same logical "
                       "charge always carries the same key.",
        "resumeProtocol": "Resuming means replaying the journal; for every intent that has "
                          "no result we first look the charge up by its key at the provider, "
                          "and only when the provider has no such charge do we resend it with "
                          "the same key.",
        "tradeOff": "The cost is latency: every call waits for an extra commit before it is "
                    "sent."},
     {"passed": True, "why": "verbose clean design, plain cost", "voice": "verbose"}),
    ("h2-nonnative-1", {
        "checkpoint": "Before we do the call we write one intent row in database; after the "
                      "call we write the result row.",
        "idempotency": "Key we calculate with run id, step and the hash of arguments, so every "
                       "retry use same key.",
        "resumeProtocol": "After crash, for every intent row without result row, we ask the "
                          "provider about this key; if he has the charge we write result, if "
                          "not we send again with the same key.",
        "tradeOff": "Each call has one write more, so it is little more slow."},
     {"passed": True, "why": "non-native clean design", "voice": "non-native"}),
    ("h2-nonnative-2", {
        "checkpoint": "Intent is write to the journal before the tool run, the result when it "
                      "finish.",
        "idempotency": "One idempotency key per step, made from run and step, we don't change "
                       "it for retry.",
        "resumeProtocol": "On restart we see the intents without result and we look them up "
                          "in the provider by the key, then resend only what is missing.",
        "failureMode": "Provider keep keys only 24h, after this the lookup say nothing and "
                       "human must check."},
     {"passed": True, "why": "non-native clean design, true limit", "voice": "non-native"}),
    ("h2-nonnative-3", {
        "checkpoint": "Pending record first (durable), then call, then complete record.",
        "idempotency": "The idempotency key is the order number plus step, same for all the "
                       "tries.",
        "resumeProtocol": "For pending records we verify at the provider with the key before "
                          "to repeat the call.",
        "tradeOff": "Recovery is more long because of the verification requests."},
     {"passed": True, "why": "non-native clean design", "voice": "non-native"}),
    ("h2-outbox-1", {
        "checkpoint": "Outbox: the payment command row is committed to the outbox table "
                      "before the relay sends it; the relay stores the response on that row.",
        "idempotency": "The command row carries a key computed from run id and step; the relay "
                       "sends that key on each delivery.",
        "resumeProtocol": "When the relay restarts it finds rows without a response and asks "
                          "the provider for a charge under the row's key; it redelivers only "
                          "rows the provider does not know.",
        "tradeOff": "A relay process and an outbox table to operate, plus a lookup per "
                    "unanswered row on restart."},
     {"passed": True, "why": "outbox clean design", "voice": "outbox"}),
    ("h2-outbox-2", {
        "checkpoint": "transactional outbox, row inserted before send, response written back "
                      "after",
        "idempotency": "outbox row id = deterministic hash of run and step, used as key",
        "resumeProtocol": "relay reconciles unanswered rows with the provider by key first",
        "failureMode": "one more insert per outgoing call"},
     {"passed": True, "why": "outbox terse", "voice": "outbox"}),
    ("h2-eventlog-1", {
        "checkpoint": "We append a PaymentIntended event before calling the gateway and a "
                      "PaymentRecorded event after it replies.",
        "idempotency": "The idempotency key is derived from the aggregate id and the event "
                       "sequence number, so it is identical on every retry.",
        "resumeProtocol": "Replaying the stream, a PaymentIntended with no PaymentRecorded "
                          "makes us query the gateway by the key; resend only if it has "
                          "nothing.",
        "tradeOff": "Two events per payment, and the stream has to be snapshotted now and "
                    "then to keep replays fast."},
     {"passed": True, "why": "event log clean design", "voice": "event-log"}),
    ("h2-queue-1", {
        "checkpoint": "The consumer writes an intent to the journal before it calls the "
                      "provider and the result before it acknowledges the message.",
        "idempotency": "Message key = run id + step, unchanged across redeliveries.",
        "resumeProtocol": "A redelivered message with an intent but no result: check with the "
                          "provider by key, then record or resend with the same key.",
        "failureMode": "Redelivery storms cost one provider lookup per message."},
     {"passed": True, "why": "queue phrasing", "voice": "queue"}),
    ("h2-client-ref-1", {
        "checkpoint": "Intent journaled before the call, result journaled after.",
        "idempotency": "Our PSP has no idempotency keys; we send our own client reference "
                       "(run id plus step) with the charge and can list charges by it.",
        "resumeProtocol": "For an intent without result we list the PSP's charges by our "
                          "client reference; if one exists we record it, otherwise we charge "
                          "with the same reference.",
        "tradeOff": "A list request per unresolved intent on recovery."},
     {"passed": True, "why": "client reference", "voice": "plain"}),
    ("h2-plain-cost-1", {
        "checkpoint": "Journal entry for the intent before the request, and for the result "
                      "after.",
        "idempotency": "A key derived from run id, step and payload.",
        "resumeProtocol": "For an unresolved intent, look it up at the provider by key and "
                          "resend with the same key only if not found.",
        "tradeOff": "We pay one synchronous disk write before every external call."},
     {"passed": True, "why": "plain cost", "voice": "plain-cost"}),
    ("h2-plain-cost-2", {
        "checkpoint": "intent before the call and result after, both in the journal",
        "idempotency": "derived key from run + step + payload digest",
        "resumeProtocol": "lookup by key at the provider, then resend or record",
        "tradeOff": "the journal doubles in size compared with writing only results"},
     {"passed": True, "why": "storage cost", "voice": "plain-cost"}),
    ("h2-window-words", {
        "checkpoint": "Intent journaled before dispatch, result after.",
        "idempotency": "Derived key from run, step and payload; the same on retries.",
        "resumeProtocol": "Look the key up at the provider before resending.",
        "failureMode": "The risky moment is after the provider charged but before our result "
                       "is written; recovered late, past the key retention, that run needs "
                       "an operator to decide."},
     {"passed": True, "why": "window in words", "voice": "window-words"}),
    ("h2-negation-ok-1", {
        "checkpoint": "No request goes out before its intent is committed; the result is "
                      "committed when the response arrives.",
        "idempotency": "Never a random key: it is derived from the run id and step.",
        "resumeProtocol": "Never resend before asking the provider about the key.",
        "tradeOff": "One commit more per call."},
     {"passed": True, "why": "protective negations", "voice": "negation"}),
    ("h2-negation-ok-2", {
        "checkpoint": "We do not wait for the result to write something: the intent is "
                      "journaled before the call, the result after.",
        "idempotency": "Not per attempt: one key per logical call, derived from run and step.",
        "resumeProtocol": "No blind resend: look up by key first, resend with the same key if "
                          "the provider has nothing.",
        "failureMode": "A lookup per open intent when recovering."},
     {"passed": True, "why": "negations around the right choices", "voice": "negation"}),
    ("h2-structured-1", {
        "checkpoint": {"mechanism": "intent-and-result",
                       "detail": "an intent row committed before each call and a result row "
                                 "after"},
        "idempotency": {"mechanism": "derived-key",
                        "detail": "hash of run id, step and arguments"},
        "resumeProtocol": {"mechanism": "replay-and-lookup",
                           "detail": "query the provider by key before a resend"},
        "failureMode": "Past the provider's key retention a late recovery waits for an "
                       "operator."},
     {"passed": True, "why": "typed form", "voice": "structured"}),
    ("h2-informal-1", {
        "checkpoint": "first thing: scribble the intent into sqlite, then call, then scribble "
                      "the result",
        "idempotency": "key's a hash of run id + step + args, so retries reuse it",
        "resumeProtocol": "on boot, every intent with no result -> go ask the provider about "
                          "the key, record if found, resend same key if not",
        "tradeOff": "costs an extra sqlite commit per call"},
     {"passed": True, "why": "informal", "voice": "informal"}),
    ("h2-limit-1", {
        "checkpoint": "Intent written durably before the call, result after.",
        "idempotency": "Derived key: run + step + payload digest, reused on retries.",
        "resumeProtocol": "Reconcile by lookup at the provider, resend with the same key if "
                          "unknown.",
        "failureMode": "Keys expire at the provider after 24 hours; recoveries later than that "
                       "cannot be decided by the lookup and escalate."},
     {"passed": True, "why": "limit", "voice": "plain"}),
    ("h2-stored-1", {
        "checkpoint": "Intent with its key journaled before the call; result after.",
        "idempotency": "A random UUID generated once when the intent is journaled and stored "
                       "in it; retries read it back.",
        "resumeProtocol": "Look the stored key up at the provider; resend with it if unknown.",
        "tradeOff": "The key must be read from the journal before every retry, one more read."},
     {"passed": True, "why": "stored key", "voice": "plain"}),
    ("h2-q-and-a", {
        "checkpoint": "When is progress durable? Intent: before the call. Result: after.",
        "idempotency": "What is the key? run id + step + args digest; it never changes.",
        "resumeProtocol": "Sent but unrecorded? Ask the provider by key; found: record; not "
                          "found: resend with the same key.",
        "tradeOff": "Cost? One more journal write per call."},
     {"passed": True, "why": "Q&A voice", "voice": "informal"}),
    # == bad: fails =============================================================================
    ("h2-bad-labels", {
        "checkpoint": "intent + result", "idempotency": "derived-key",
        "resumeProtocol": "lookup", "failureMode": "fsync"},
     {"passed": False, "why": "labels only", "voice": "content-free"}),
    ("h2-bad-memory-intent", {
        "checkpoint": "An intent is created before every call, but it only lives in RAM.",
        "idempotency": "Key derived from run and step.",
        "resumeProtocol": "Look up unresolved intents by key at the provider.",
        "tradeOff": "No disk writes, so it is fast."},
     {"passed": False, "why": "intent only in RAM", "voice": "qualifier", "contradiction": True}),
    ("h2-bad-regenerated", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived from run id and step, with a new nonce appended on every "
                       "attempt.",
        "resumeProtocol": "Look the key up at the provider, then resend.",
        "failureMode": "A lookup per open intent."},
     {"passed": False, "why": "derived yet regenerated per attempt", "voice": "qualifier"}),
    ("h2-bad-nobody", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Key derived from run + step.",
        "resumeProtocol": "We just resend whatever has no result; nobody checks with the "
                          "provider.",
        "failureMode": "One extra write per call."},
     {"passed": False, "why": "blind resend", "voice": "negation"}),
    ("h2-bad-key-not-sent", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "A key is derived from run and step and saved with the intent; it is "
                       "not sent with the request.",
        "resumeProtocol": "Reconcile by looking the key up at the provider.",
        "tradeOff": "A lookup per open intent."},
     {"passed": False, "why": "key never sent", "voice": "qualifier", "contradiction": True}),
    ("h2-bad-after-only", {
        "checkpoint": "The intent is written to the journal, though only after the provider "
                      "has replied.",
        "idempotency": "Key derived from run + step.",
        "resumeProtocol": "Look open intents up at the provider by key.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "only after = result-only", "voice": "qualifier",
      "contradiction": True}),
    ("h2-bad-stuffed", {
        "checkpoint": "intent, result, snapshot, WAL, outbox, event log, checkpoint after "
                      "each step",
        "idempotency": "derived key, stored uuid, client reference, random key per attempt",
        "resumeProtocol": "replay, lookup, reconcile, blind retry, compensate, escalate",
        "failureMode": "duplicates, lost effects, stuck runs, wrong results, latency"},
     {"passed": False, "why": "stuffed", "voice": "stuffed", "contradiction": True}),
    ("h2-bad-stuffed-2", {
        "checkpoint": "Write-ahead intent before the call and a periodic snapshot every 10 "
                      "seconds and a result-only journal.",
        "idempotency": "A derived key, or a stored UUID, or a client reference.",
        "resumeProtocol": "Lookup by key, blind retry, or refund.",
        "tradeOff": "Some latency."},
     {"passed": False, "why": "several exclusive choices per field", "voice": "stuffed",
      "contradiction": True}),
    ("h2-bad-contradict-1", {
        "checkpoint": "We keep no journal.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Replay the journal, then look up unresolved intents.",
        "failureMode": "A lookup per intent."},
     {"passed": False, "why": "no journal yet replays one", "voice": "contradicting",
      "contradiction": True}),
    ("h2-bad-contradict-2", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Key derived from run id and step, reused on retries.",
        "resumeProtocol": "Lookup by key, resend with the same key if missing.",
        "failureMode": "We send no idempotency key, so a retry after a lost response charges "
                       "twice."},
     {"passed": False, "why": "failure mode denies the key", "voice": "contradicting",
      "contradiction": True}),
    ("h2-bad-contradict-3", {
        "checkpoint": "The intent is journaled before the call. In fact we write nothing until "
                      "the call returns.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Lookup by key then resend if missing.",
        "tradeOff": "One write."},
     {"passed": False, "why": "two sentences contradict", "voice": "contradicting",
      "contradiction": True}),
    ("h2-bad-false-safe", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Resend every unfinished call with its key.",
        "failureMode": "With the same key a resend can never double charge."},
     {"passed": False, "why": "blind; false safety", "voice": "false-failure"}),
    ("h2-bad-no-cost", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "Derived key from run and step and payload.",
        "resumeProtocol": "Look up by key, resend with the same key if missing.",
        "failureMode": "This design has no failure modes."},
     {"passed": False, "why": "no cost named", "voice": "false-failure"}),
    ("h2-bad-false-dup", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Look up by key, resend with the same key if missing.",
        "failureMode": "A crash right after the charge always charges the customer twice."},
     {"passed": False, "why": "false duplicate", "voice": "false-failure"}),
    ("h2-bad-vague", {
        "checkpoint": "Store things safely.",
        "idempotency": "Prevent duplicates somehow.",
        "resumeProtocol": "Pick up again after a crash.",
        "failureMode": "Might not be perfect."},
     {"passed": False, "why": "vague", "voice": "content-free"}),
    ("h2-bad-result-only", {
        "checkpoint": "We persist the provider's answer right after the call returns.",
        "idempotency": "Key derived from run and step.",
        "resumeProtocol": "Steps without an answer are run again.",
        "failureMode": "A crash before the answer is saved repeats the call."},
     {"passed": False, "why": "result-only + blind", "voice": "plain"}),
    ("h2-bad-snapshot", {
        "checkpoint": "Snapshot of the agent's state every minute.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Restore the latest snapshot and resend unfinished calls.",
        "failureMode": "Up to a minute of work is repeated."},
     {"passed": False, "why": "snapshot", "voice": "plain"}),
    ("h2-bad-random", {
        "checkpoint": "Intent before, result after, journaled.",
        "idempotency": "Each attempt sends a freshly generated UUID as the key.",
        "resumeProtocol": "Resend unfinished calls after a crash.",
        "failureMode": "Lost responses can lead to double charges."},
     {"passed": False, "why": "random per attempt", "voice": "plain"}),
    ("h2-bad-escalate", {
        "checkpoint": "Intent before, result after, journaled.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Every unfinished call is left for an operator; we never query the "
                          "provider.",
        "failureMode": "Operators handle every crash in the middle of a call."},
     {"passed": False, "why": "escalate what a lookup settles", "voice": "negation"}),
    ("h2-bad-compensate", {
        "checkpoint": "Intent before, result after, journaled.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "An unfinished call aborts the run and refunds what was charged.",
        "failureMode": "The booking is given up even when the charge succeeded."},
     {"passed": False, "why": "compensate", "voice": "plain"}),
    ("h2-bad-nonnative-blind", {
        "checkpoint": "We are saving intent before the call and the result after.",
        "idempotency": "Key is from run and step, same for retry.",
        "resumeProtocol": "After crash we send again every call without result, no asking to "
                          "the provider.",
        "tradeOff": "Is one more write."},
     {"passed": False, "why": "blind resend", "voice": "non-native"}),
]
