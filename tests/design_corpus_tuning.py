"""The TUNING half of the designOutline() corpus (issue 17): the reader was tuned on this half.

Same format and ground truth as :mod:`design_corpus_heldout` (read its docstring); written after
the held-out half was committed. Agreement on this half says little (the reader was fitted to
it); the held-out half is the measure.
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

TUNING: list[Entry] = [
    # == good: passes ===========================================================================
    ("t-terse-a", {
        "checkpoint": "intent journaled pre-call, result post-call",
        "idempotency": "run+step derived key, reused",
        "resumeProtocol": "lookup by key, resend if missing",
        "tradeOff": "+1 write/call"},
     {"passed": True, "why": "terse clean design", "voice": "terse"}),
    ("t-terse-b", {
        "checkpoint": "log intent -> call -> log result",
        "idempotency": "key = f(run, step, args); constant across retries",
        "resumeProtocol": "unresolved -> provider lookup by key -> record or resend same key",
        "failureMode": "recovery needs a lookup per unresolved call"},
     {"passed": True, "why": "arrow notation", "voice": "terse"}),
    ("t-verbose-a", {
        "checkpoint": "In our design nothing leaves the worker before a row describing it has "
                      "been committed to the journal. That row, the intent, carries the tool, "
                      "the arguments and the key. After the provider answers we commit the "
                      "answer as its own row.",
        "idempotency": "Keys are a pure function of the run id, the step position and the "
                       "canonical payload, which means the tenth retry of a step sends exactly "
                       "what the first attempt sent.",
        "resumeProtocol": "The resuming worker walks the journal. When it meets an intent with "
                          "no answer, it does not guess: it asks the provider for that key and "
                          "records whatever comes back; only a provider that has never seen "
                          "the key gets the call again, with the same key.",
        "failureMode": "The price is a synchronous commit in front of every outgoing call and "
                       "a round trip per unanswered intent during recovery."},
     {"passed": True, "why": "verbose clean design, cost in words", "voice": "verbose"}),
    ("t-verbose-b", {
        "checkpoint": "Each side effect is preceded by a durable intent record in Postgres, "
                      "and followed by a durable completion record.",
        "idempotency": "A UUIDv4 is minted exactly once, at the moment the intent record is "
                       "written, and is stored in it; every attempt reads it from there.",
        "resumeProtocol": "Recovery reads the intent records without completions and, for each, "
                          "retrieves the charge from the provider by the stored key; missing "
                          "ones are sent again with that key.",
        "tradeOff": "More writes, and a provider that forgets keys after 24 h means a very "
                    "late recovery must go to an operator."},
     {"passed": True, "why": "stored key; true limit", "voice": "verbose"}),
    ("t-nonnative-a", {
        "checkpoint": "Before each call we are saving the intent in database, and after we "
                      "save result.",
        "idempotency": "Key is coming from run id, step and hash of arguments. For retry it "
                       "stay same.",
        "resumeProtocol": "When worker start again, it look the intent without result, it ask "
                          "provider with key, and if provider not have it, it send again with "
                          "same key.",
        "tradeOff": "Need more one write for every call."},
     {"passed": True, "why": "non-native clean design", "voice": "non-native"}),
    ("t-nonnative-b", {
        "checkpoint": "Intent is journaling before the dispatch, result after the return.",
        "idempotency": "We take order id like idempotency key, never change on the retries.",
        "resumeProtocol": "For unfinished intent we check in the provider by key, before to "
                          "send again.",
        "failureMode": "If we recover after 24 hours, key is expired in the provider, must "
                       "escalate to human."},
     {"passed": True, "why": "non-native, true limit", "voice": "non-native"}),
    ("t-outbox-a", {
        "checkpoint": "We use an outbox: the outgoing payment is inserted in the outbox before "
                      "it is sent, and the reply is stored on the same row.",
        "idempotency": "Outbox message id = hash(run, step), used as the key for every send.",
        "resumeProtocol": "Rows with no reply are reconciled with the provider by that id; "
                          "resent only when the provider has none.",
        "tradeOff": "An extra insert per payment and a relay process to run."},
     {"passed": True, "why": "outbox, clean", "voice": "outbox"}),
    ("t-eventlog-a", {
        "checkpoint": "PaymentRequested is appended to the event stream before the call, "
                      "PaymentCompleted after.",
        "idempotency": "Derived from stream id and event sequence number; same on retry.",
        "resumeProtocol": "Projection finds PaymentRequested without PaymentCompleted and "
                          "queries the provider by key before any resend.",
        "failureMode": "Two events per payment; the stream grows."},
     {"passed": True, "why": "event stream, clean", "voice": "event-log"}),
    ("t-queue-a", {
        "checkpoint": "The worker journals the intent before taking any action on a dequeued "
                      "job and journals the result before acking it.",
        "idempotency": "Job key derived from run id + step, identical on redelivery.",
        "resumeProtocol": "On redelivery with an intent but no result, verify with the "
                          "provider by key first; resend only if unknown.",
        "tradeOff": "Redeliveries cost a lookup each."},
     {"passed": True, "why": "queue phrasing", "voice": "queue"}),
    ("t-client-ref-a", {
        "checkpoint": "Intent journaled before dispatch, result after.",
        "idempotency": "Our provider has no idempotency keys, so we put a client reference "
                       "(run id + step) on the charge and search by it.",
        "resumeProtocol": "Find the charge by client reference; if it is there, record it; if "
                          "not, charge with the same reference.",
        "failureMode": "A search call per unresolved charge during recovery."},
     {"passed": True, "why": "client reference", "voice": "negation"}),
    ("t-plain-cost-a", {
        "checkpoint": "Intent to the journal before the call, result after.",
        "idempotency": "Key derived from the run and the step.",
        "resumeProtocol": "Look unresolved calls up by key before resending.",
        "tradeOff": "Every call waits for one more disk write."},
     {"passed": True, "why": "cost stated plainly", "voice": "plain-cost"}),
    ("t-plain-cost-b", {
        "checkpoint": "The intent is written before calling, the result after.",
        "idempotency": "Same key on every attempt, computed from run id and step.",
        "resumeProtocol": "Check with the provider by key before resending.",
        "failureMode": "Throughput drops because of the synchronous journal write in front of "
                       "each call."},
     {"passed": True, "why": "throughput cost", "voice": "plain-cost"}),
    ("t-window-words-a", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Derived key (run, step, payload).",
        "resumeProtocol": "Ask the provider about the key before resending.",
        "failureMode": "A crash between the provider accepting the charge and our journal "
                       "recording it, recovered after the key has expired, cannot be settled "
                       "automatically; it waits for an operator."},
     {"passed": True, "why": "window in words", "voice": "window-words"}),
    ("t-negation-ok-a", {
        "checkpoint": "We never dispatch a call whose intent has not been journaled; its "
                      "result is journaled after.",
        "idempotency": "Never a new key on retry: the key is derived from run and step.",
        "resumeProtocol": "No resend without a lookup by key at the provider first.",
        "tradeOff": "One extra journal write per call."},
     {"passed": True, "why": "protective negations", "voice": "negation"}),
    ("t-negation-ok-b", {
        "checkpoint": "Not only the result: the intent is journaled before the call too.",
        "idempotency": "Not random: derived from the run id, step and payload digest.",
        "resumeProtocol": "Don't blindly retry; reconcile by lookup and resend with the same "
                          "key only if the provider has no charge for it.",
        "failureMode": "A lookup per unresolved intent."},
     {"passed": True, "why": "'not only', 'not random'", "voice": "negation"}),
    ("t-structured-a", {
        "checkpoint": {"mechanism": "intent-and-result",
                       "detail": "intent before the call, result after"},
        "idempotency": {"mechanism": "derived-key", "detail": "run + step + payload digest"},
        "resumeProtocol": {"mechanism": "replay-and-lookup",
                           "detail": "look up open intents by key, resend if unknown"},
        "failureMode": "Past the 24 h retention the run escalates to an operator."},
     {"passed": True, "why": "typed form", "voice": "structured"}),
    ("t-informal-a", {
        "checkpoint": "we note 'about to pay' before we pay and 'paid' after",
        "idempotency": "the key is the run id glued to the step number, same every time",
        "resumeProtocol": "if there's an 'about to pay' with no 'paid', we ask the provider "
                          "about the key; if they've got it we note 'paid', else we pay again "
                          "with that key",
        "tradeOff": "one more write per payment, so a bit slower"},
     {"passed": True, "why": "informal voice", "voice": "informal"}),
    ("t-limit-a", {
        "checkpoint": "Intent before, result after, journaled.",
        "idempotency": "Derived key from run + step + args.",
        "resumeProtocol": "Reconcile by lookup; resend with the same key if unknown.",
        "failureMode": "Key retention at the provider is 24 h; after that a lookup proves "
                       "nothing."},
     {"passed": True, "why": "retention limit", "voice": "plain"}),
    ("t-pending-a", {
        "checkpoint": "A 'pending' entry is committed before the call and replaced by the "
                      "outcome after.",
        "idempotency": "The pending entry's id (run + step) is the idempotency key.",
        "resumeProtocol": "Pending entries are resolved by a lookup at the provider, then "
                          "resent with the same id if the provider has nothing.",
        "tradeOff": "One more commit per call."},
     {"passed": True, "why": "pending entry before the call", "voice": "plain"}),
    ("t-prior-to", {
        "checkpoint": "Prior to calling the provider we persist the intent; subsequently the "
                      "result.",
        "idempotency": "Deterministic key: run id, step number, payload hash.",
        "resumeProtocol": "Unresolved intents are verified with the provider using the key "
                          "before a resend.",
        "tradeOff": "Added latency of one fsync per call."},
     {"passed": True, "why": "'prior to', 'subsequently'", "voice": "verbose"}),
    ("t-ask-stripe", {
        "checkpoint": "Journal the planned charge before hitting Stripe; journal Stripe's "
                      "response after.",
        "idempotency": "Idempotency-Key header = run id + ':' + step, reused on retries.",
        "resumeProtocol": "Ask Stripe whether it has a charge for that key before retrying; "
                          "retry with the same key only if not.",
        "failureMode": "Stripe prunes keys after 24 hours, so a recovery later than that is "
                       "left for an operator."},
     {"passed": True, "why": "stripe words", "voice": "plain"}),
    ("t-dependency", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Key derived from run and step, sent on every attempt.",
        "resumeProtocol": "Lookup by key at the provider, then resend or record.",
        "tradeOff": "Requires a provider that supports idempotency keys and key lookup."},
     {"passed": True, "why": "dependency trade-off", "voice": "plain-cost"}),
    ("t-complexity", {
        "checkpoint": "Intent committed before dispatch; result committed after.",
        "idempotency": "SHA-256 of run id, step and payload as the key.",
        "resumeProtocol": "Reconcile each open intent by asking the provider by key.",
        "tradeOff": "More moving parts: a reconcile path that must be tested separately, and "
                    "an extra write per call."},
     {"passed": True, "why": "complexity and write cost", "voice": "plain-cost"}),
    ("t-bullets-a", {
        "checkpoint": "* intent -> journal (before)\n* result -> journal (after)",
        "idempotency": "* key from run id + step\n* never regenerated",
        "resumeProtocol": "* replay\n* open intent: lookup by key; resend w/ same key if "
                          "absent",
        "failureMode": "* +1 fsync per call"},
     {"passed": True, "why": "bullets", "voice": "terse"}),
    ("t-spanish-ish", {
        "checkpoint": "We guard the intention in the journal before of the call, and the "
                      "result after.",
        "idempotency": "The key is derived of the run and the step; it is the same in each "
                       "retry.",
        "resumeProtocol": "In the restart, for each intention without result, we consult the "
                          "provider with the key before to send again.",
        "tradeOff": "One write more for each call."},
     {"passed": True, "why": "non-native", "voice": "non-native"}),
    # == bad: fails =============================================================================
    ("t-bad-words", {
        "checkpoint": "journal", "idempotency": "key", "resumeProtocol": "replay",
        "failureMode": "crash"},
     {"passed": False, "why": "single words", "voice": "content-free"}),
    ("t-bad-words-2", {
        "checkpoint": "intent and result", "idempotency": "stored key",
        "resumeProtocol": "replay and lookup", "tradeOff": "overhead"},
     {"passed": False, "why": "choice labels only", "voice": "content-free"}),
    ("t-bad-memory", {
        "checkpoint": "Intents are kept in a Python dict in the worker, written nowhere.",
        "idempotency": "Key derived from run + step.",
        "resumeProtocol": "Reconcile intents by lookup at the provider.",
        "tradeOff": "Fast: no disk writes."},
     {"passed": False, "why": "state held only in memory", "voice": "qualifier",
      "contradiction": True}),
    ("t-bad-regenerated", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "Key derived from run and step; on each retry we regenerate it with a "
                       "new timestamp.",
        "resumeProtocol": "Lookup by key, resend if unknown.",
        "failureMode": "One lookup per open intent."},
     {"passed": False, "why": "derived yet regenerated per retry", "voice": "qualifier"}),
    ("t-bad-nobody", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "Derived key, run + step.",
        "resumeProtocol": "Resend all unfinished calls; we never ask the provider what "
                          "happened.",
        "tradeOff": "An extra write."},
     {"passed": False, "why": "blind resend", "voice": "negation"}),
    ("t-bad-kept-not-sent", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "A key derived from run + step is stored in our journal only; the "
                       "provider does not receive it.",
        "resumeProtocol": "Look up the charge by key at the provider.",
        "failureMode": "A lookup per open intent."},
     {"passed": False, "why": "key never sent", "voice": "qualifier", "contradiction": True}),
    ("t-bad-but-after", {
        "checkpoint": "We write the intent, but only once the charge has succeeded.",
        "idempotency": "Key derived from run and step.",
        "resumeProtocol": "Look up open intents by key.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "'but only once' = result-only", "voice": "qualifier",
      "contradiction": True}),
    ("t-bad-stuffed-a", {
        "checkpoint": "intent, result, WAL, snapshot, journal, event log, outbox",
        "idempotency": "derived key, stored key, client reference, uuid, hash",
        "resumeProtocol": "lookup, replay, retry, compensate, escalate",
        "failureMode": "duplicates, lost payments, stuck runs, latency"},
     {"passed": False, "why": "stuffed", "voice": "stuffed", "contradiction": True}),
    ("t-bad-stuffed-b", {
        "checkpoint": "Intent before the call and result after, plus periodic snapshots every "
                      "10 s, plus result-only checkpoints.",
        "idempotency": "Derived key and also a fresh random key per attempt.",
        "resumeProtocol": "Lookup, and also blind retry, and also compensate.",
        "tradeOff": "Latency."},
     {"passed": False, "why": "several choices per field", "voice": "stuffed",
      "contradiction": True}),
    ("t-bad-contradict-a", {
        "checkpoint": "We don't persist anything.",
        "idempotency": "Key derived from run + step.",
        "resumeProtocol": "Replay the recorded steps from the journal and look up open "
                          "intents.",
        "failureMode": "Lookup round trip."},
     {"passed": False, "why": "no persistence yet replays a journal", "voice": "contradicting",
      "contradiction": True}),
    ("t-bad-contradict-b", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Key derived from run and step, never changes.",
        "resumeProtocol": "Reconcile by lookup.",
        "failureMode": "Since there is no idempotency key, a retry double charges."},
     {"passed": False, "why": "failure mode denies the key the idempotency field names",
      "voice": "contradicting", "contradiction": True}),
    ("t-bad-contradict-c", {
        "checkpoint": "The intent is journaled before the call. Actually we only write after "
                      "the call returns.",
        "idempotency": "Derived key.",
        "resumeProtocol": "Lookup by key, resend if missing.",
        "tradeOff": "One write."},
     {"passed": False, "why": "self-contradicting sentences", "voice": "contradicting",
      "contradiction": True}),
    ("t-bad-false-safe", {
        "checkpoint": "Intent before, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Just resend with the same key; the provider dedupes.",
        "failureMode": "Nothing can go wrong: duplicates are impossible with a stable key."},
     {"passed": False, "why": "blind; false safety", "voice": "false-failure"}),
    ("t-bad-no-downside", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run + step + payload.",
        "resumeProtocol": "Lookup by key, resend if absent.",
        "failureMode": "None."},
     {"passed": False, "why": "no failure mode", "voice": "false-failure"}),
    ("t-bad-false-dup", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key.  Run + step + payload digest.",
        "resumeProtocol": "Lookup by key at the provider, resend with the same key if missing.",
        "failureMode": "If we crash right after the charge, the customer pays twice."},
     {"passed": False, "why": "claims a duplicate the sweep never shows",
      "voice": "false-failure"}),
    ("t-bad-vague-a", {
        "checkpoint": "Persist state appropriately.",
        "idempotency": "Ensure idempotency.",
        "resumeProtocol": "Recover properly.",
        "failureMode": "Edge cases."},
     {"passed": False, "why": "vague", "voice": "content-free"}),
    ("t-bad-vague-b", {
        "checkpoint": "-", "idempotency": "-", "resumeProtocol": "-", "tradeOff": "-"},
     {"passed": False, "why": "dashes", "voice": "content-free"}),
    ("t-bad-result-only", {
        "checkpoint": "Each step's output is stored when the step finishes.",
        "idempotency": "Key from run id + step.",
        "resumeProtocol": "Re-run steps without stored output.",
        "failureMode": "A crash before the output is stored repeats the call."},
     {"passed": False, "why": "result-only, blind", "voice": "plain"}),
    ("t-bad-snapshot", {
        "checkpoint": "We snapshot the conversation every 3 turns.",
        "idempotency": "Key derived from run and step.",
        "resumeProtocol": "Restore the last snapshot, look up in-flight calls by key.",
        "tradeOff": "Up to 3 turns redone."},
     {"passed": False, "why": "snapshot", "voice": "plain", "contradiction": True}),
    ("t-bad-random", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "A new random idempotency key for each retry.",
        "resumeProtocol": "Resend.",
        "failureMode": "Double charge after a lost response."},
     {"passed": False, "why": "random per retry", "voice": "plain"}),
    ("t-bad-compensate", {
        "checkpoint": "Intent before, result after.",
        "idempotency": "Derived key.",
        "resumeProtocol": "Roll back: refund and fail the run whenever a call is unresolved.",
        "failureMode": "The customer loses the booking."},
     {"passed": False, "why": "fail-and-compensate", "voice": "plain"}),
    ("t-bad-escalate", {
        "checkpoint": "Intent journaled before dispatch, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Flag every unresolved call for manual review; no automatic "
                          "lookup.",
        "failureMode": "Humans must review crashes."},
     {"passed": False, "why": "escalate what a lookup settles", "voice": "negation"}),
    ("t-bad-no-checkpoint", {
        "checkpoint": "No journal at all.",
        "idempotency": "Key from run and step.",
        "resumeProtocol": "Run the whole thing again.",
        "failureMode": "Repeats work."},
     {"passed": False, "why": "no checkpoint", "voice": "negation", "contradiction": True}),
    ("t-bad-no-key-lookup", {
        "checkpoint": "Intent before, result after.",
        "idempotency": "No keys and no references.",
        "resumeProtocol": "Ask the provider about the charge before resending.",
        "failureMode": "A lookup per recovery."},
     {"passed": False, "why": "lookup with nothing to look up by", "voice": "contradicting",
      "contradiction": True}),
    ("t-bad-without-asking", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "Derived key.",
        "resumeProtocol": "Resend without asking the provider.",
        "tradeOff": "Fast recovery."},
     {"passed": False, "why": "'without asking' = blind", "voice": "negation"}),
    ("t-bad-fails-to-record", {
        "checkpoint": "The worker fails to record the intent before the call; it only records "
                      "the result.",
        "idempotency": "Derived key.",
        "resumeProtocol": "Look up open intents.",
        "failureMode": "One lookup."},
     {"passed": False, "why": "'fails to record' the intent", "voice": "negation",
      "contradiction": True}),
    ("t-bad-outbox-after", {
        "checkpoint": "The outbox row is inserted after the provider answered.",
        "idempotency": "Row id = hash(run, step).",
        "resumeProtocol": "Redeliver unsent rows.",
        "tradeOff": "An extra table."},
     {"passed": False, "why": "outbox after the call: result-only", "voice": "outbox"}),
    ("t-bad-nonnative-random", {
        "checkpoint": "Intent is saving before call and result after.",
        "idempotency": "For each retry we make new uuid for the key.",
        "resumeProtocol": "We are asking provider with the key.",
        "failureMode": "Is a little slow."},
     {"passed": False, "why": "new uuid per retry", "voice": "non-native",
      "contradiction": True}),
    # == issue 17, stop 2: variants for the classes HELDOUT5 showed (other words, same idea) ====
    # class: the lookup named by its object ("search by the reference", "check the key")
    ("t2-lookup-object-1", {
        "checkpoint": "An intent row is committed before the request goes out; the receipt is "
                      "committed when it comes back.",
        "idempotency": "Each charge carries our merchant reference, built from run id and step.",
        "resumeProtocol": "For a row with no receipt, query the charges list for that merchant "
                          "reference; record a hit, or charge again with the same reference.",
        "tradeOff": "Recovery pays one provider search per open row."},
     {"passed": True, "why": "lookup named by its object (query for the reference)",
      "voice": "plain"}),
    ("t2-lookup-object-2", {
        "checkpoint": "Before paying, the worker persists the planned charge; after, its outcome.",
        "idempotency": "Key computed from run id, step and args digest; never changes.",
        "resumeProtocol": "Planned charge without outcome: verify that key with the processor "
                          "first, then either store what it reports or resend using the same "
                          "key.",
        "failureMode": "Every call waits for a durable write before it leaves."},
     {"passed": True, "why": "'verify that key with the processor'", "voice": "plain"}),
    ("t2-lookup-object-3", {
        "checkpoint": "Journal first, then call: intent before, result after.",
        "idempotency": "Key: run + step, same value each attempt.",
        "resumeProtocol": "Resume time, open intent, to the gateway we go and confirm the key; "
                          "found then record, not found then send again with it.",
        "failureMode": "Each resume adds one request per open intent."},
     {"passed": True, "why": "non-native order, 'confirm the key'", "voice": "non-native"}),
    # class: a cost in plain words
    ("t2-cost-words-1", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run id and step, reused on retries.",
        "resumeProtocol": "Ask the provider about the key for each open intent before resending.",
        "tradeOff": "Every payment pays for a synchronous commit on the hot path."},
     {"passed": True, "why": "'every payment pays for a synchronous commit'",
      "voice": "plain-cost"}),
    ("t2-cost-words-2", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run id and step, reused on retries.",
        "resumeProtocol": "Ask the provider about the key for each open intent before resending.",
        "tradeOff": "It adds a few milliseconds to each charge, and the journal keeps growing."},
     {"passed": True, "why": "'adds a few milliseconds'", "voice": "plain-cost"}),
    ("t2-cost-words-3", {
        "checkpoint": "Intent write to journal call before; result write call after.",
        "idempotency": "Key from run id and step make, retry same key.",
        "resumeProtocol": "Restart, intent without result, ask provider the key, then decide.",
        "failureMode": "Each call one more disk write, little bit slow."},
     {"passed": True, "why": "non-native cost", "voice": "non-native"}),
    # class: a field that asserts a mechanism and denies it
    ("t2-bad-self-deny-1", {
        "checkpoint": "The intent is persisted before the charge. We keep no database, though.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Look up each open intent at the provider by key.",
        "failureMode": "One lookup per open intent."},
     {"passed": False, "why": "persisted, yet no database", "voice": "contradicting",
      "contradiction": True}),
    ("t2-bad-self-deny-2", {
        "checkpoint": "Write-ahead intent, then the result. Actually nothing gets persisted.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Look up each open intent at the provider by key.",
        "failureMode": "One lookup per open intent."},
     {"passed": False, "why": "write-ahead, yet nothing persisted", "voice": "contradicting",
      "contradiction": True}),
    ("t2-bad-self-deny-3", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Reconcile open intents by key. We do not contact the provider on "
                          "resume; we simply send them again.",
        "failureMode": "One extra write per call."},
     {"passed": False, "why": "reconcile, yet the provider is never contacted",
      "voice": "contradicting", "contradiction": True}),
    # class: a failure mode that denies another field
    ("t2-bad-fm-denies-1", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Look up by key at the provider, resend if unknown.",
        "failureMode": "Since no intent is ever recorded, a restart cannot tell what was paid."},
     {"passed": False, "why": "failure mode: no intent is recorded", "voice": "contradicting",
      "contradiction": True}),
    ("t2-bad-fm-denies-2", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Look up by key at the provider, resend if unknown.",
        "failureMode": "We never check with the provider, so a lost reply means a second "
                       "charge."},
     {"passed": False, "why": "failure mode: the provider is never checked",
      "voice": "contradicting", "contradiction": True}),
    ("t2-bad-fm-denies-3", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Look up by key at the provider, resend if unknown.",
        "tradeOff": "We have no journal, so it is fast, but a crash forgets everything."},
     {"passed": False, "why": "trade-off: no journal", "voice": "contradicting",
      "contradiction": True}),
    # the same classes must not misfire on a W1 description or a double negation
    ("t2-w1-described", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run + step, same on every retry.",
        "resumeProtocol": "Never resend without asking the provider about the key first.",
        "failureMode": "A crash before the intent is written: nothing is written yet, so the "
                       "call simply runs later; the cost is one extra write per call."},
     {"passed": True, "why": "W1 described and a double negation", "voice": "negation"}),
    # class: the lookup said as finding out ("see whether", "poll the status", "settle against")
    ("t2-lookup-findout-1", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run id and step, reused on every retry.",
        "resumeProtocol": "See whether the processor already holds a charge under that key; "
                          "if not, send it again with the same key.",
        "tradeOff": "The charge is delayed by the journal write."},
     {"passed": True, "why": "'see whether the processor holds'; 'delayed by'",
      "voice": "plain"}),
    ("t2-lookup-findout-2", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run id and step, reused on every retry.",
        "resumeProtocol": "Open intents are settled against the gateway's records by key; only "
                          "the ones it never saw are resent.",
        "tradeOff": "Recovery has a dependency on the gateway being up."},
     {"passed": True, "why": "'settled against the gateway'; dependency", "voice": "plain"}),
    ("t2-lookup-findout-3", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run id and step, reused on every retry.",
        "resumeProtocol": "Poll the payment's status at the PSP with the key, then record it or "
                          "resend with that key.",
        "failureMode": "If the PSP is down, recovery cannot finish until it is back."},
     {"passed": True, "why": "'poll the status'; provider down", "voice": "plain"}),
    ("t2-bad-lookup-denied-1", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run id and step.",
        "resumeProtocol": "Nobody checks whether it went through: the call is simply repeated.",
        "tradeOff": "One extra write per call."},
     {"passed": False, "why": "'nobody checks whether': blind", "voice": "negation"}),
    ("t2-bad-lookup-denied-2", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run id and step.",
        "resumeProtocol": "We never see if the PSP has it; open intents are resent right away.",
        "tradeOff": "One extra write per call."},
     {"passed": False, "why": "'never see if the PSP has it': blind", "voice": "negation"}),
    # class: the order said as a sequence ("appended, then the call", "written first")
    ("t2-sequence-1", {
        "checkpoint": "PaymentRequested event appended, then the call, then PaymentSettled "
                      "appended.",
        "idempotency": "Key from stream id and sequence number, stable across redeliveries.",
        "resumeProtocol": "Ask the provider about the key of every request without a settled "
                          "event; resend with that key only if unknown.",
        "tradeOff": "Writes double: two events per payment."},
     {"passed": True, "why": "sequence with 'then'; 'writes double'", "voice": "event-log"}),
    ("t2-sequence-2", {
        "checkpoint": "We insert status 'pending', then call, then update the row to "
                      "'succeeded'.",
        "idempotency": "The row id (derived from run and step) is the idempotency key.",
        "resumeProtocol": "Pending rows: query the provider for that key; mark succeeded or "
                          "resend with it.",
        "tradeOff": "The table takes space and each tool call now does a database write first."},
     {"passed": True, "why": "pending row then call", "voice": "outbox"}),
    ("t2-sequence-3", {
        "checkpoint": "The plan for the charge is written to SQLite first, the answer when it "
                      "comes.",
        "idempotency": "Key made of run id and step number, same on each attempt.",
        "resumeProtocol": "A plan without answer: find out from the provider if it went "
                          "through, resend with the same key if not.",
        "failureMode": "More complex recovery code."},
     {"passed": True, "why": "'plan written first'", "voice": "plain"}),
    ("t2-bad-sequence-1", {
        "checkpoint": "We call first, then the row is inserted with the result.",
        "idempotency": "Derived key from run id and step.",
        "resumeProtocol": "Ask the provider about the key for open rows.",
        "tradeOff": "One insert per call."},
     {"passed": False, "why": "call first, row after: result-only", "voice": "plain"}),
    ("t2-bad-zero-cost", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run id and step, reused on every retry.",
        "resumeProtocol": "Ask the provider about the key before resending.",
        "tradeOff": "Zero cost, zero risk."},
     {"passed": False, "why": "claims no cost", "voice": "false-failure"}),
    # class: code and markdown in the fields (the order of statements, a code comment)
    ("t2-code-1", {
        "checkpoint": "journal.write(intent); provider.charge(); journal.write(result)",
        "idempotency": "key = sha256(f'{run_id}:{step}:{payload}')  # identical on each retry",
        "resumeProtocol": "if provider.lookup(key): record(found) else: resend(key)",
        "tradeOff": "1 more fsync per call"},
     {"passed": True, "why": "code one-liners", "voice": "terse"}),
    ("t2-code-2", {
        "checkpoint": "1. write intent\n2. call provider\n3. write result",
        "idempotency": "```\nkey := hash(run_id, step_no) // same for each retry\n```",
        "resumeProtocol": "```\nfor intent in journal.open_intents():\n    found = "
                          "provider.get_by_key(intent.key)\n    record(found) if found else "
                          "resend(intent)\n```",
        "failureMode": "- cost: one journal write per call\n- limit: keys expire after 24 h"},
     {"passed": True, "why": "numbered steps and code blocks", "voice": "terse"}),
    ("t2-bad-code-random", {
        "checkpoint": "journal.write(intent); provider.charge(); journal.write(result)",
        "idempotency": "```python\nkey = uuid4()  # inside the retry loop\n```",
        "resumeProtocol": "if provider.lookup(key): record(found) else: resend(key)",
        "tradeOff": "1 more fsync per call"},
     {"passed": False, "why": "uuid4 inside the retry loop", "voice": "terse",
      "contradiction": True}),
    ("t2-bad-code-result-only", {
        "checkpoint": "```\nresp = provider.charge(args)\njournal.append(Result(step, resp))\n```",
        "idempotency": "key = hash(run_id, step), same for each retry",
        "resumeProtocol": "```\nfor step in journal.unfinished():\n    resend(step)\n```",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "result-only in code, blind resend", "voice": "terse"}),
    # class: object-first word order
    ("t2-order-1", {
        "checkpoint": "In the journal the intent first goes, and the result after the call "
                      "comes.",
        "idempotency": "Run id with step number together make the key; retries reuse it.",
        "resumeProtocol": "Intent without result: the provider we ask, by key. If it has, "
                          "record; if not, same key resend.",
        "failureMode": "For each call one journal write more."},
     {"passed": True, "why": "object-first order", "voice": "non-native"}),
    ("t2-order-2", {
        "checkpoint": "Before charge, a record in the database we make; when charge is done, "
                      "the result we add.",
        "idempotency": "The key, it is built from run id and step; when we retry it does not "
                       "change.",
        "resumeProtocol": "Pending record found: PSP we query with key; answer no, then again "
                          "send with same key.",
        "tradeOff": "Each payment waits for database write."},
     {"passed": True, "why": "object-first order", "voice": "non-native"}),
    # class: the resume protocol contradicts the idempotency field
    ("t2-bad-resume-new-key-1", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run id and step.",
        "resumeProtocol": "Look the key up at the provider; if unknown, resend it with a fresh "
                          "key.",
        "tradeOff": "One lookup per open intent."},
     {"passed": False, "why": "resend with a fresh key", "voice": "contradicting",
      "contradiction": True}),
    ("t2-bad-resume-new-key-2", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Stable key: order number plus step.",
        "resumeProtocol": "Ask the PSP about each open intent; the unknown ones are retried "
                          "under a different idempotency key.",
        "tradeOff": "One lookup per open intent."},
     {"passed": False, "why": "retried under a different key", "voice": "contradicting",
      "contradiction": True}),
    # == a fresh batch written before running it (issue 17, stop 2). Measured once before the
    # fixes it prompted: good 6/10, bad fail 10/11 (the writer knows the reader: an optimistic
    # figure). Then fitted.
    ("t3-good-window-words", {
        "checkpoint": "Right before we talk to the payment service we store a row saying what "
                      "we are about to do; when it answers we store the answer.",
        "idempotency": "The row's id doubles as the idempotency key: it is a hash of run and "
                       "step, so resending reuses it.",
        "resumeProtocol": "A row with a question and no answer means we ask the payment service"
                          " whether it knows that key, and act on what it says.",
        "failureMode": "If we die after the provider charged but before writing the answer, and"
                       " only come back after the provider has dropped the key, nobody can "
                       "prove whether the charge happened, so it goes to a person."},
     {"passed": True, "why": "failure window and limit told in words", "voice": "plain"}),
    ("t3-good-between", {
        "checkpoint": "Two durable writes per call: the pending call first, the outcome second.",
        "idempotency": "Deterministic key from the workflow id and activity index.",
        "resumeProtocol": "Consult the provider with that key for each pending call; record or "
                          "re-send accordingly.",
        "failureMode": "A crash between the call and writing the result costs a provider round "
                       "trip on recovery."},
     {"passed": True, "why": "'the pending call first, the outcome second'", "voice": "plain-cost"}),
    ("t3-good-metadata", {
        "checkpoint": "Intent first (durably), then the API call, then the result.",
        "idempotency": "No idempotency key: the charge's metadata carries our order id + step.",
        "resumeProtocol": "For an open intent, list the provider's charges filtered by that "
                          "metadata; if one exists record it, else charge again.",
        "tradeOff": "Searching by metadata is slower than a key lookup and needs the provider's"
                    " search API."},
     {"passed": True, "why": "metadata reference, searched", "voice": "plain"}),
    ("t3-good-extid", {
        "checkpoint": "Before the HTTP request the worker commits an intent row; after it "
                      "commits the response.",
        "idempotency": "We send an external id (run id:step) that the PSP stores with the "
                       "payment.",
        "resumeProtocol": "On restart we fetch the payment by external id from the PSP; not "
                          "found means we send again with the same external id.",
        "failureMode": "Recovery depends on the PSP's lookup by external id being available."},
     {"passed": True, "why": "external id fetched from the PSP", "voice": "plain"}),
    ("t3-good-queue", {
        "checkpoint": "The charge command is written to a durable queue table together with the"
                      " run state before the consumer sends it; the consumer writes the reply "
                      "back.",
        "idempotency": "Message id = digest(run, step), the same on every redelivery, and "
                       "passed to the provider as its idempotency key.",
        "resumeProtocol": "Messages without a reply are reconciled with the provider by message"
                          " id before redelivery.",
        "tradeOff": "An extra table, a consumer process to operate, and one insert on every "
                    "call."},
     {"passed": True, "why": "durable queue table", "voice": "queue"}),
    ("t3-good-terse-2", {
        "checkpoint": "WAL: intent, call, result.",
        "idempotency": "key = H(run, step); stable",
        "resumeProtocol": "open intent -> GET by key -> record | resend(same key)",
        "tradeOff": "+1 fsync/call"},
     {"passed": True, "why": "terse WAL", "voice": "terse"}),
    ("t3-good-spanish-english", {
        "checkpoint": "Before of calling the provider, we save the intention in the journal, "
                      "and after we save the result.",
        "idempotency": "The key is formed with the run id and the step, is the same in all the "
                       "retries.",
        "resumeProtocol": "When it restarts, for each intention without result we ask to the "
                          "provider by the key; if it don't have it, we send again with the "
                          "same key.",
        "tradeOff": "It adds one write more for each call."},
     {"passed": True, "why": "Spanish-English ('before of calling', 'ask to the provider')", "voice": "non-native"}),
    ("t3-good-german-english", {
        "checkpoint": "Before the call the intent is into the journal written, after the call "
                      "the result.",
        "idempotency": "The key becomes from run-id and step computed and stays by every retry "
                       "the same.",
        "resumeProtocol": "At restart becomes for every open intent the provider with the key "
                          "asked; only if he it not knows, is resent.",
        "failureMode": "Per call an additional journal write."},
     {"passed": True, "why": "German-English verb-final order", "voice": "non-native"}),
    ("t3-good-stored-uuid", {
        "checkpoint": "Intent written before the call (including a freshly minted UUID), result"
                      " after.",
        "idempotency": "The UUID lives in the intent row; retries read it back instead of "
                       "making a new one.",
        "resumeProtocol": "Ask the provider about the UUID of each open intent; resend with it "
                          "only when unknown.",
        "failureMode": "The journal grows by one row per call and recovery costs one provider "
                       "query per open intent."},
     {"passed": True, "why": "UUID lives in the intent row, read back", "voice": "plain"}),
    ("t3-good-eventlog", {
        "checkpoint": "ChargeIntended goes to the event log before the request; ChargeReturned "
                      "after.",
        "idempotency": "Key is the log position of ChargeIntended, fixed forever.",
        "resumeProtocol": "Every ChargeIntended without ChargeReturned is checked at the "
                          "provider by key; missing ones are resent with the same key.",
        "tradeOff": "Two appends per charge and a replay that must query the provider."},
     {"passed": True, "why": "key = log position", "voice": "event-log"}),
    ("t3-bad-stuffed", {
        "checkpoint": "Intents, snapshots and result checkpoints, whichever fits.",
        "idempotency": "Derived, stored or random keys depending on the tool.",
        "resumeProtocol": "Look up, retry, refund or escalate.",
        "failureMode": "Duplicates, lost charges or stuck runs."},
     {"passed": False, "why": "keyword soup", "voice": "stuffed", "contradiction": True}),
    ("t3-bad-no-persist", {
        "checkpoint": "The intent is announced in a log line before the call, but nothing is "
                      "persisted.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Look up open intents at the provider by key.",
        "tradeOff": "One lookup per intent."},
     {"passed": False, "why": "announced in a log line, nothing persisted", "voice": "contradicting", "contradiction": True}),
    ("t3-bad-key-regenerated", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived from run and step, but the client recomputes it with the "
                       "current timestamp on each retry.",
        "resumeProtocol": "Ask the provider about the key before resending.",
        "tradeOff": "Extra write per call."},
     {"passed": False, "why": "timestamp on each retry", "voice": "qualifier"}),
    ("t3-bad-blind-honest", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Resend everything that lacks a result; we do not query the provider "
                          "at all.",
        "failureMode": "Past 24 h the provider forgets the key and a resend charges twice."},
     {"passed": False, "why": "'we do not query the provider'", "voice": "negation"}),
    ("t3-bad-content-free", {
        "checkpoint": "We make sure state is durable.",
        "idempotency": "Calls are idempotent.",
        "resumeProtocol": "The system recovers gracefully.",
        "tradeOff": "Some trade-offs exist."},
     {"passed": False, "why": "content-free", "voice": "content-free"}),
    ("t3-bad-self-contra-resume", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "We check with the provider by key. The provider is never contacted "
                          "during recovery.",
        "tradeOff": "Extra write per call."},
     {"passed": False, "why": "checks with the provider, which is never contacted", "voice": "contradicting", "contradiction": True}),
    ("t3-bad-memory-intent", {
        "checkpoint": "The intent sits in a Python list until the response arrives; then both "
                      "go to the database.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Look up open intents by key at the provider.",
        "tradeOff": "One database write per call."},
     {"passed": False, "why": "intent in a Python list until the response", "voice": "qualifier"}),
    ("t3-bad-fm-contra", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run + step, same on retries.",
        "resumeProtocol": "Ask the provider by key before resending.",
        "failureMode": "Since we do not journal anything, a crash loses the run."},
     {"passed": False, "why": "failure mode: we do not journal anything", "voice": "contradicting", "contradiction": True}),
    ("t3-bad-snapshot", {
        "checkpoint": "Every five minutes the agent state is pickled to disk.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Unpickle the latest state and continue.",
        "failureMode": "Up to five minutes of work is redone."},
     {"passed": False, "why": "periodic pickle", "voice": "plain"}),
    ("t3-bad-key-not-sent", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "A key derived from run + step is stored in the journal, but the request"
                       " to the provider does not include it.",
        "resumeProtocol": "Resend open intents with the same request.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "key never sent to the provider", "voice": "qualifier"}),
    ("t3-bad-false-safe", {
        "checkpoint": "Result journaled after the call returns.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Re-execute steps without a result.",
        "failureMode": "None; the key makes every retry safe forever."},
     {"passed": False, "why": "result-only, blind, false safety", "voice": "false-failure"}),
    # == a second fresh batch, written before running it. Measured once before the fixes it
    # prompted: good 8/10, bad fail 7/10. Then fitted.
    ("t4-good-ledger", {
        "checkpoint": "Our own ledger gets an 'about to charge' line, fsynced, and only after "
                      "that do we hit the payment API; its reply is appended as a second line.",
        "idempotency": "Idempotency token = run id concatenated with step index; a retry never "
                       "invents a new token.",
        "resumeProtocol": "Any 'about to charge' line without a reply line triggers a status "
                          "query to the payment API with the token; we copy its answer, or "
                          "resubmit with that token when it has nothing.",
        "tradeOff": "An fsync sits in front of every payment."},
     {"passed": True, "why": "'about to charge' line; token concatenated", "voice": "plain"}),
    ("t4-good-db-tx", {
        "checkpoint": "In one DB transaction we mark the step as 'sending' before the network "
                      "call, and in a second one we mark it 'done' with the receipt.",
        "idempotency": "The step's primary key (run, step) is what we pass as the idempotency "
                       "key, so every retry carries the identical value.",
        "resumeProtocol": "Steps stuck in 'sending' are resolved by asking the provider for "
                          "that idempotency key; we resend only when the provider has no "
                          "record.",
        "failureMode": "Two transactions per call instead of one."},
     {"passed": True, "why": "'sending' / 'done' states", "voice": "plain"}),
    ("t4-good-french-english", {
        "checkpoint": "We register the intention in the journal before to call the API, and the"
                      " result after the call.",
        "idempotency": "The key is calculated from the run id and the step; it rests the same "
                       "for all the retries.",
        "resumeProtocol": "At the restart, for each intention without result, we interrogate "
                          "the provider with the key; if he does not know it, we resend with "
                          "the same key.",
        "failureMode": "Each call costs one supplementary write in the journal."},
     {"passed": True, "why": "French-English ('before to call', 'interrogate the provider')", "voice": "non-native"}),
    ("t4-good-passive", {
        "checkpoint": "An intent is made durable before any request is issued; a result is made"
                      " durable once the response is received.",
        "idempotency": "Keys are derived deterministically from the run and step and are reused"
                       " verbatim by every retry.",
        "resumeProtocol": "Unresolved intents are looked up at the provider by key; a resend "
                          "happens only for keys the provider does not recognise.",
        "tradeOff": "Latency: each request waits on a durable write."},
     {"passed": True, "why": "passive voice throughout", "voice": "verbose"}),
    ("t4-good-bullets", {
        "checkpoint": "- before call: intent row (args, key)\n- after call: result row",
        "idempotency": "- key: sha256(run_id, step, payload)\n- unchanged across attempts",
        "resumeProtocol": "- intent w/o result: query provider by key\n- found: record\n- not "
                          "found: resend, same key",
        "tradeOff": "- 2 writes per call\n- recovery needs the provider online"},
     {"passed": True, "why": "bullets in every field", "voice": "terse"}),
    ("t4-good-retention", {
        "checkpoint": "Intent persisted ahead of the call; result persisted after.",
        "idempotency": "Key from run and step, deterministic.",
        "resumeProtocol": "Reconcile each open intent against the provider using the key, then "
                          "record or resend with the same key.",
        "failureMode": "The provider keeps keys for 24 hours; a resume later than that cannot "
                       "tell a charge from no charge and is escalated to an operator."},
     {"passed": True, "why": "retention limit in words", "voice": "plain"}),
    ("t4-good-client-ref-search", {
        "checkpoint": "Pending charge saved to the DB before the request; the receipt saved "
                      "after.",
        "idempotency": "We do not rely on a key; each charge carries our order reference in its"
                       " description field.",
        "resumeProtocol": "For a pending charge, search the provider's charges for our order "
                          "reference; record a match, or create the charge again with the same "
                          "reference.",
        "tradeOff": "A search request per pending charge, and searches are eventually "
                    "consistent."},
     {"passed": True, "why": "order reference in the description, searched", "voice": "plain"}),
    ("t4-good-short-words", {
        "checkpoint": "Write down what we will do, then do it, then write down what came back.",
        "idempotency": "The same key each time, made from the run and step.",
        "resumeProtocol": "If we wrote down what we would do but not what came back, we ask the"
                          " provider about the key first and resend only if it has no record.",
        "tradeOff": "Writing things down first makes each call a little slower."},
     {"passed": True, "why": "plain short words ('write down what we will do')", "voice": "plain"}),
    ("t4-good-kafka", {
        "checkpoint": "A ChargeRequested record is produced to the journal topic and "
                      "acknowledged before the charge is attempted; ChargeCompleted is produced"
                      " afterwards.",
        "idempotency": "The record key is run:step and is reused as the provider's idempotency "
                       "key on every attempt.",
        "resumeProtocol": "On consumer restart, requested-but-not-completed records are checked"
                          " with the provider by key before anything is re-attempted.",
        "tradeOff": "A broker round trip before each charge."},
     {"passed": True, "why": "journal topic", "voice": "queue"}),
    ("t4-good-activity", {
        "checkpoint": "The workflow history records ActivityScheduled before the activity runs "
                      "and ActivityCompleted after.",
        "idempotency": "Activity id (workflow id + sequence) is the idempotency key, identical "
                       "across retries.",
        "resumeProtocol": "Replaying the history, a scheduled activity with no completion is "
                          "first checked against the provider by activity id; only if the "
                          "provider never saw it is the activity retried.",
        "tradeOff": "History grows with every activity, and replay costs a provider check per "
                    "open activity."},
     {"passed": True, "why": "workflow history", "voice": "event-log"}),
    ("t4-bad-memory", {
        "checkpoint": "The intent is kept in a variable until the provider answers, then we "
                      "write both.",
        "idempotency": "Key from run and step.",
        "resumeProtocol": "Ask the provider about the key of each open intent.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "intent kept in a variable until the answer", "voice": "qualifier"}),
    ("t4-bad-timestamp", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Key = run id + step + time.time(), recomputed when we retry.",
        "resumeProtocol": "Ask the provider about the key before resending.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "time.time() in the key", "voice": "qualifier"}),
    ("t4-bad-after", {
        "checkpoint": "We write the intent and the result in one row, after the provider "
                      "responds.",
        "idempotency": "Key from run and step, stable.",
        "resumeProtocol": "Ask the provider about the key of each open intent.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "intent and result in one row, after", "voice": "qualifier"}),
    ("t4-bad-blind-2", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Key from run and step, stable.",
        "resumeProtocol": "Every intent without a result is simply sent again; checking with "
                          "the provider would be too slow.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "lookup rejected as too slow", "voice": "negation"}),
    ("t4-bad-blind-3", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Key from run and step, stable.",
        "resumeProtocol": "We skip the lookup and resend open intents straight away.",
        "tradeOff": "Fast recovery, one write per call."},
     {"passed": False, "why": "'we skip the lookup'", "voice": "negation"}),
    ("t4-bad-stuffed-2", {
        "checkpoint": "Write-ahead log, snapshots, and result caching.",
        "idempotency": "Idempotency keys (derived or random).",
        "resumeProtocol": "Replay, look up, retry blindly, or escalate.",
        "tradeOff": "Latency, duplicates, lost effects."},
     {"passed": False, "why": "keyword soup", "voice": "stuffed", "contradiction": True}),
    ("t4-bad-fm-denies-key", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Key from run and step, stable.",
        "resumeProtocol": "Ask the provider about the key before resending.",
        "failureMode": "Because every retry gets a brand-new key, the provider cannot "
                       "deduplicate."},
     {"passed": False, "why": "failure mode: a brand-new key per retry", "voice": "contradicting", "contradiction": True}),
    ("t4-bad-refund", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Key from run and step, stable.",
        "resumeProtocol": "An open intent is treated as failed: refund whatever might have been"
                          " charged and cancel the order.",
        "failureMode": "The customer may lose the booking."},
     {"passed": False, "why": "compensate an uncertain charge", "voice": "plain"}),
    ("t4-bad-vague-2", {
        "checkpoint": "We persist everything important.",
        "idempotency": "Keys prevent duplicates.",
        "resumeProtocol": "We pick up where we left off.",
        "tradeOff": "It is robust."},
     {"passed": False, "why": "content-free", "voice": "content-free"}),
    ("t4-bad-no-key-lookup", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "We do not use keys or references of any kind.",
        "resumeProtocol": "Ask the provider whether the charge went through.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "lookup with nothing to look up by", "voice": "contradicting", "contradiction": True}),
    # == a third fresh batch, written before running it. Measured once before the fixes it
    # prompted: good 8/8, bad fail 9/12. Then fitted.
    ("t5-good-outbox-tx", {
        "checkpoint": "The outbox pattern: the charge request is inserted into the outbox in "
                      "the same transaction that advances the run, and a relay performs it; the"
                      " provider's reply is written back to that outbox row.",
        "idempotency": "Outbox row id, computed from run id and step, is forwarded as the "
                       "Idempotency-Key header.",
        "resumeProtocol": "The relay, on restart, asks the provider about every row that has no"
                          " reply, by row id, and only performs the unknown ones again.",
        "tradeOff": "A relay process to keep alive and one extra insert per charge."},
     {"passed": True, "why": "outbox in the run's transaction, relay asks first", "voice": "outbox"}),
    ("t5-good-numbers", {
        "checkpoint": "t0: append intent; t1: call; t2: append result.",
        "idempotency": "key(run, step) - pure, so attempt 1 and attempt 7 send the same bytes.",
        "resumeProtocol": "intent at t0 but no t2 -> ask provider(key) -> record | resend(key).",
        "failureMode": "About 2 ms more per call for the t0 fsync."},
     {"passed": True, "why": "t0/t1/t2 timeline; cost in ms", "voice": "terse"}),
    ("t5-good-honest-limit", {
        "checkpoint": "Every outgoing payment is preceded by a durable intent record and "
                      "followed by a durable result record.",
        "idempotency": "The idempotency key is a digest of run id, step and payload, so retries"
                       " are byte-identical.",
        "resumeProtocol": "Recovery looks each dangling intent up at the provider by its key "
                          "and either records the found charge or resends with the same key.",
        "failureMode": "Our safety leans entirely on the provider honouring keys; a provider "
                       "that ignores them would let a resend charge twice."},
     {"passed": True, "why": "limit: relies on the provider honouring keys", "voice": "plain"}),
    ("t5-good-review", {
        "checkpoint": "Intent durably journaled ahead of the request; result journaled on "
                      "return.",
        "idempotency": "Stable key from run and step.",
        "resumeProtocol": "Unresolved intents are checked against the provider by key; after "
                          "the provider's retention window they are flagged for manual review "
                          "instead of resent.",
        "tradeOff": "Late recoveries need a human, and each call pays one journal write."},
     {"passed": True, "why": "manual review past retention", "voice": "plain"}),
    ("t5-good-italian-english", {
        "checkpoint": "Before to do the call we write the intent on the journal, after we write"
                      " the result.",
        "idempotency": "The key we make it from run id and step, it remains equal at every "
                       "retry.",
        "resumeProtocol": "At the restart, for the intents without result, we go to ask at the "
                          "provider with the key; if it has not, we send again with the same "
                          "key.",
        "failureMode": "There is one write more on the journal for every call."},
     {"passed": True, "why": "Italian-English ('before to do the call')", "voice": "non-native"}),
    ("t5-good-json", {
        "checkpoint": "{\"before_call\": \"journal intent\", \"after_call\": \"journal result\"}",
        "idempotency": "{\"key\": \"sha256(run_id, step, payload)\", \"on_retry\": \"same key\"}",
        "resumeProtocol": "{\"open_intent\": \"look up key at provider\", \"found\": \"record\", "
                          "\"missing\": \"resend same key\"}",
        "tradeOff": "{\"cost\": \"one extra journal write per call\"}"},
     {"passed": True, "why": "JSON in every field", "voice": "terse"}),
    ("t5-good-storage", {
        "checkpoint": "Intent saved to Postgres before we call the provider; result saved "
                      "after.",
        "idempotency": "Key derived from run and step.",
        "resumeProtocol": "Open intents: query the provider by key, then record or resend with "
                          "the same key.",
        "tradeOff": "Storage: every call leaves two rows behind, so the table needs pruning."},
     {"passed": True, "why": "storage cost, pruning", "voice": "plain-cost"}),
    ("t5-good-round-trip", {
        "checkpoint": "Intent committed before dispatch; result committed after.",
        "idempotency": "Key derived from the run id and the step number.",
        "resumeProtocol": "Consult the provider by key for each uncommitted result; resend with"
                          " the same key only if it has none.",
        "tradeOff": "Recovery is one network round trip per open intent slower."},
     {"passed": True, "why": "'one network round trip per open intent slower'", "voice": "plain-cost"}),
    ("t5-bad-contra-key", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "The key is derived from run and step. We don't send any idempotency key"
                       " to the provider.",
        "resumeProtocol": "Ask the provider by key before resending.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "derived key, yet never sent", "voice": "contradicting", "contradiction": True}),
    ("t5-bad-contra-resume", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Query the provider by key for open intents; recovery never talks to "
                          "the provider.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "query the provider, yet never talks to it", "voice": "contradicting", "contradiction": True}),
    ("t5-bad-contra-checkpoint", {
        "checkpoint": "Intents are journaled before each call, although in practice we do not "
                      "persist anything.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Query the provider by key for open intents.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "journaled, yet nothing persisted", "voice": "contradicting", "contradiction": True}),
    ("t5-bad-fm-blind", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Query the provider by key for open intents, resend if unknown.",
        "failureMode": "Since recovery never asks the provider, a lost reply after the charge "
                       "means we pay twice."},
     {"passed": False, "why": "failure mode: recovery never asks the provider", "voice": "contradicting", "contradiction": True}),
    ("t5-bad-fm-memory", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Query the provider by key for open intents, resend if unknown.",
        "failureMode": "All state lives only in memory, so a crash forgets the intents."},
     {"passed": False, "why": "failure mode: state only in memory", "voice": "contradicting", "contradiction": True}),
    ("t5-bad-stuffed-3", {
        "checkpoint": "Intent-and-result, result-only or periodic snapshot: all three are used.",
        "idempotency": "Derived keys plus random per-attempt keys.",
        "resumeProtocol": "Lookup, blind retry, compensation.",
        "tradeOff": "Depends."},
     {"passed": False, "why": "keyword soup", "voice": "stuffed", "contradiction": True}),
    ("t5-bad-lookup-no-key", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "No keys at all; the provider deduplicates nothing.",
        "resumeProtocol": "Look up open intents at the provider.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "lookup with no key", "voice": "contradicting", "contradiction": True}),
    ("t5-bad-late-intent", {
        "checkpoint": "The intent is written to the journal right after the provider confirms "
                      "the charge.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Look up open intents at the provider by key.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "intent written after the provider confirms", "voice": "qualifier"}),
    ("t5-bad-buzz", {
        "checkpoint": "Enterprise-grade persistence layer.",
        "idempotency": "Idempotency best practices.",
        "resumeProtocol": "Self-healing recovery.",
        "failureMode": "Edge cases."},
     {"passed": False, "why": "buzzwords", "voice": "content-free"}),
    ("t5-bad-per-request", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "A fresh idempotency key is generated for each HTTP request the client "
                       "sends.",
        "resumeProtocol": "Look up open intents at the provider by key.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "fresh key per HTTP request", "voice": "qualifier"}),
    ("t5-bad-blind-polite", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "We simply replay everything from the journal, calls included, and "
                          "trust the key.",
        "failureMode": "After 24 h the key is forgotten and the replayed call charges again."},
     {"passed": False, "why": "replay calls included", "voice": "plain"}),
    ("t5-bad-compensate", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Any open intent is assumed failed and compensated with a refund.",
        "failureMode": "A refund may be issued for a charge that never happened."},
     {"passed": False, "why": "compensate an uncertain charge", "voice": "plain"}),
    # == a fourth fresh batch, adversarial on purpose (wishes, order of resend and lookup,
    # async intents), written before running it. Measured once before the fixes it prompted:
    # good 2/6, bad fail 8/12. Then fitted.
    ("t6-good-1", {
        "checkpoint": "A durable 'charge planned' entry precedes the HTTP call; a 'charge done'"
                      " entry follows it.",
        "idempotency": "The entry's deterministic id (run + step) is the key we send.",
        "resumeProtocol": "Planned-but-not-done entries are resolved by a provider lookup on "
                          "that key, then recorded or resent with it.",
        "tradeOff": "The planned entry adds a blocking write before every HTTP call."},
     {"passed": True, "why": "'charge planned' entry precedes the call", "voice": "plain"}),
    ("t6-good-2", {
        "checkpoint": "We persist the intent; only once it is durable does the worker contact "
                      "the provider. The response is persisted afterwards.",
        "idempotency": "Key = run id ++ step, never regenerated.",
        "resumeProtocol": "We check every unanswered intent with the provider by key before "
                          "doing anything else with it.",
        "failureMode": "Keys expire at the provider after a day, so a resume that late has to "
                       "be settled by a person."},
     {"passed": True, "why": "'only once it is durable does the worker contact'", "voice": "verbose"}),
    ("t6-good-3", {
        "checkpoint": "Intent row, then request, then result row.",
        "idempotency": "Row key reused as the provider idempotency key; identical on every "
                       "retry.",
        "resumeProtocol": "If a row has no result, we first ask the provider whether that key "
                          "was charged; we resend with the same key only on a 'not found'.",
        "tradeOff": "Three steps instead of one: more code and one more write."},
     {"passed": True, "why": "'identical on every retry'", "voice": "terse"}),
    ("t6-good-4", {
        "checkpoint": "Journal the intent before sending, the reply after.",
        "idempotency": "Idempotency key hashed from run, step and the request body.",
        "resumeProtocol": "Retrieve the charge from the provider by that key for each intent "
                          "without a reply; resend only when there is none.",
        "failureMode": "If the provider is unreachable during recovery, the run waits."},
     {"passed": True, "why": "'retrieve the charge by that key'; provider unreachable", "voice": "plain"}),
    ("t6-good-5", {
        "checkpoint": "Step A: log intent (durable). Step B: call. Step C: log result.",
        "idempotency": "Key: digest(run, step); same across all tries.",
        "resumeProtocol": "Crash between B and C: ask provider by key, then log or redo B with "
                          "the same key.",
        "tradeOff": "Step A is an extra durable write on each call."},
     {"passed": True, "why": "steps A/B/C, window named by steps", "voice": "terse"}),
    ("t6-good-6", {
        "checkpoint": "Intent is stored before the call and the result after it.",
        "idempotency": "Client reference (run id + step) set on the charge.",
        "resumeProtocol": "Find the charge at the provider by that client reference; record it,"
                          " or charge again with the same reference if nothing is found.",
        "tradeOff": "A search call per uncertain charge."},
     {"passed": True, "why": "client reference; 'per uncertain charge' is not a claim", "voice": "plain"}),
    ("t6-bad-resend-then-check", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Resend every open intent first, and afterwards check with the "
                          "provider whether it worked.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "resend first, check afterwards", "voice": "qualifier"}),
    ("t6-bad-hypothetical-intent", {
        "checkpoint": "Ideally we would journal an intent before the call, but for now we only "
                      "journal the result.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Ask the provider by key about open intents.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "'ideally we would journal an intent', only the result", "voice": "qualifier"}),
    ("t6-bad-planned", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "We plan to add a provider lookup later; for now open intents are "
                          "resent.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "'we plan to add a lookup later'", "voice": "qualifier"}),
    ("t6-bad-key-salt", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Run id + step + a random salt chosen at each attempt.",
        "resumeProtocol": "Ask the provider by key about open intents.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "random salt per attempt", "voice": "qualifier"}),
    ("t6-bad-key-counter", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Run id, step and the retry counter form the key.",
        "resumeProtocol": "Ask the provider by key about open intents.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "retry counter in the key", "voice": "qualifier"}),
    ("t6-bad-async-intent", {
        "checkpoint": "The intent is written asynchronously in the background while the call is"
                      " already in flight; the result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Ask the provider by key about open intents.",
        "tradeOff": "No latency added."},
     {"passed": False, "why": "intent written asynchronously while the call is in flight", "voice": "qualifier"}),
    ("t6-bad-fm-contra-cost", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Ask the provider by key about open intents.",
        "tradeOff": "There is no extra write at all, since we never write before calling."},
     {"passed": False, "why": "trade-off: we never write before calling", "voice": "contradicting", "contradiction": True}),
    ("t6-bad-escalate-always", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Any open intent is handed to an operator; we never look anything up.",
        "failureMode": "An operator has to settle every crash."},
     {"passed": False, "why": "escalate everything, never look up", "voice": "plain"}),
    ("t6-bad-memory-dict", {
        "checkpoint": "Intents go into a dict on the worker before the call; results go to the "
                      "database after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Ask the provider by key about open intents.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "intents into a dict on the worker", "voice": "qualifier"}),
    ("t6-bad-only-key", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step, sent every time.",
        "resumeProtocol": "Just resend: the key takes care of duplicates.",
        "failureMode": "Nothing can go wrong."},
     {"passed": False, "why": "blind resend trusting the key; no failure", "voice": "false-failure"}),
    ("t6-bad-stuffed-4", {
        "checkpoint": "Journal intent before, result after; also snapshots every minute; also "
                      "nothing in memory.",
        "idempotency": "Derived key; also a new UUID per attempt.",
        "resumeProtocol": "Lookup and also blind retry.",
        "tradeOff": "Latency."},
     {"passed": False, "why": "several mechanisms per field", "voice": "stuffed", "contradiction": True}),
    ("t6-bad-mixed-lang-blind", {
        "checkpoint": "Intent before call write, after call result write.",
        "idempotency": "Key from run and step make.",
        "resumeProtocol": "Restart: open intent, again send, provider ask not needed.",
        "failureMode": "One write more each call."},
     {"passed": False, "why": "'provider ask not needed'", "voice": "non-native"}),
    # == a fifth fresh batch, written before running it. Measured once before the fixes it
    # prompted: good 5/7, bad fail 6/10. Then fitted.
    ("t7-good-1", {
        "checkpoint": "Prior to any side effect, the worker durably notes its intention (tool, "
                      "args, key). The effect's outcome is noted once known.",
        "idempotency": "Keys come from hashing the run id together with the step ordinal; "
                       "retries therefore present the provider with the very same key.",
        "resumeProtocol": "For an intention lacking an outcome, the worker interrogates the "
                          "provider by key and adopts the provider's answer; absent any record,"
                          " it re-issues the call with that key.",
        "tradeOff": "Each side effect now costs a synchronous disk flush."},
     {"passed": True, "why": "formal register ('interrogates the provider', 'adopts its answer')", "voice": "verbose"}),
    ("t7-good-2", {
        "checkpoint": "intent -> fsync -> POST /charges -> result -> fsync",
        "idempotency": "Idempotency-Key: sha256(run_id + step)",
        "resumeProtocol": "dangling intent -> GET /charges?idempotency_key=K -> 200: record / "
                          "404: POST again with K",
        "tradeOff": "two fsyncs per charge"},
     {"passed": True, "why": "HTTP verbs and status codes", "voice": "terse"}),
    ("t7-good-3", {
        "checkpoint": "The agent marks the step 'in progress' in SQLite before it pays, and "
                      "'finished' with the receipt afterwards.",
        "idempotency": "The key is the step's row id, which is derived from run and step and "
                       "never changes.",
        "resumeProtocol": "Steps left 'in progress' are checked with the payment provider by "
                          "key; confirmed ones are marked finished, unknown ones are paid again"
                          " with the same key.",
        "failureMode": "If recovery runs more than 24 h later the provider no longer remembers "
                       "the key, so those steps must be decided by an operator."},
     {"passed": True, "why": "'in progress' / 'finished' marks; retention limit", "voice": "plain"}),
    ("t7-good-4", {
        "checkpoint": "Before we charge we save a note that we are going to charge; after we "
                      "save the answer.",
        "idempotency": "Key = order number + step, the same every time we try.",
        "resumeProtocol": "If there is a note but no answer, first we ask the provider with the"
                          " key. If it says yes, we save that. If it says no, we try again with"
                          " the same key.",
        "tradeOff": "We write twice for every charge, which is a bit slower."},
     {"passed": True, "why": "short plain words ('a note that we are going to charge')", "voice": "plain"}),
    ("t7-good-5", {
        "checkpoint": "Journaling happens on both sides of the call: intent in front, result "
                      "behind.",
        "idempotency": "Deterministic: run/step/payload digest.",
        "resumeProtocol": "Resolve each open intent with a provider lookup by key before any "
                          "resend.",
        "tradeOff": "Write amplification: two journal records per call."},
     {"passed": True, "why": "'intent in front, result behind'; write amplification", "voice": "plain-cost"}),
    ("t7-good-6", {
        "checkpoint": "Outbox entry (payload + key) committed atomically with the step; the "
                      "dispatcher stores the provider response on the entry.",
        "idempotency": "Entry key = hash(run, step), reused for all dispatch attempts.",
        "resumeProtocol": "The dispatcher reconciles unanswered entries with the provider by "
                          "key, re-dispatching only those the provider never received.",
        "tradeOff": "A dispatcher to operate and an outbox table that must be cleaned up."},
     {"passed": True, "why": "outbox with a dispatcher; cost: something to operate", "voice": "outbox"}),
    ("t7-good-7", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Stored key: a UUID created when the intent is journaled, then reused.",
        "resumeProtocol": "Check the UUID with the provider for each open intent; resend with "
                          "it only if unknown.",
        "failureMode": "We trust the provider to deduplicate on the key; if it did not, a "
                       "resend could double charge."},
     {"passed": True, "why": "stored UUID; limit: trusts the provider to deduplicate", "voice": "plain"}),
    ("t7-bad-1", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Open intents are resent; a lookup is unnecessary because the key "
                          "protects us.",
        "failureMode": "None."},
     {"passed": False, "why": "lookup called unnecessary; no failure mode", "voice": "negation"}),
    ("t7-bad-2", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived from run and step, except that the HTTP library replaces it "
                       "with its own UUID on every retry.",
        "resumeProtocol": "Look up open intents by key at the provider.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "HTTP library replaces the key on every retry", "voice": "qualifier"}),
    ("t7-bad-3", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Look up open intents by key at the provider, but only when an "
                          "operator asks for it; otherwise resend.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "lookup only when an operator asks", "voice": "qualifier"}),
    ("t7-bad-4", {
        "checkpoint": "We write the intent to a log file but do not fsync it before the call.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Look up open intents by key at the provider.",
        "tradeOff": "No fsync cost."},
     {"passed": False, "why": "intent not fsynced before the call", "voice": "qualifier"}),
    ("t7-bad-5", {
        "checkpoint": "State is saved to Redis without persistence every few seconds.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Reload the last saved state and continue.",
        "failureMode": "A few seconds of work may be redone."},
     {"passed": False, "why": "Redis without persistence, periodic", "voice": "plain"}),
    ("t7-bad-6", {
        "checkpoint": "Journal the intent before the call and the result after; the journal "
                      "lives in /tmp on the container.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Look up open intents by key at the provider.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "journal in /tmp on the container", "voice": "qualifier"}),
    ("t7-bad-7", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "The key is random, but we generate it only once per process start.",
        "resumeProtocol": "Look up open intents by key at the provider.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "random key once per process start", "voice": "qualifier"}),
    ("t7-bad-8", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Look up open intents by key; if the provider says nothing, resend "
                          "with the same key.",
        "failureMode": "A duplicate charge in W3, a lost booking in W4, and a stuck run in W2."},
     {"passed": False, "why": "failure mode names every outcome", "voice": "false-failure"}),
    ("t7-bad-9", {
        "checkpoint": "A checkpoint.",
        "idempotency": "A key.",
        "resumeProtocol": "A lookup.",
        "tradeOff": "A cost."},
     {"passed": False, "why": "one word per field", "voice": "content-free"}),
    ("t7-bad-10", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Resend open intents. We also query the provider, but we do not wait "
                          "for its answer before resending.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "resend does not wait for the lookup", "voice": "qualifier"}),
    # == a sixth fresh batch, written before running it. Measured once before the fixes it
    # prompted: good 4/6, bad fail 5/10 (one bad entry dropped afterwards: 'resend anyway
    # if the provider does not answer within a second' resends with the same key, and the
    # sweep has no provider timeouts, so its verdict was not clear). Then fitted.
    ("t8-good-1", {
        "checkpoint": "We always leave a durable breadcrumb (what we're about to charge, with "
                      "the key) before hitting the PSP, and drop a second one with the PSP's "
                      "reply.",
        "idempotency": "The key is a fingerprint of run id, step and amount, so any retry "
                       "reproduces it exactly.",
        "resumeProtocol": "A breadcrumb with no reply: ask the PSP what it did with that key, "
                          "store its answer, and re-charge with the same key only when it says "
                          "it never saw it.",
        "tradeOff": "Every charge is gated on a disk write, and recovery talks to the PSP once "
                    "per orphan breadcrumb."},
     {"passed": True, "why": "'durable breadcrumb', 'orphan breadcrumb'", "voice": "verbose"}),
    ("t8-good-2", {
        "checkpoint": "Write-ahead: an intent record hits the disk before the request; the "
                      "result record after the response.",
        "idempotency": "An idempotency key composed of run id and step; retries resend it "
                       "unchanged.",
        "resumeProtocol": "For any intent lacking a result we issue a status request to the "
                          "provider with that key and then either persist the status or "
                          "resubmit with the same key.",
        "failureMode": "A provider outage during recovery blocks the run until the provider is "
                       "reachable again."},
     {"passed": True, "why": "status request; provider outage blocks recovery", "voice": "plain"}),
    ("t8-good-3", {
        "checkpoint": "Commit intent. Then charge. Then commit result.",
        "idempotency": "Key is f(run, step). Deterministic.",
        "resumeProtocol": "Open intent? Ask provider by key. Known: commit result. Unknown: "
                          "charge again, same key.",
        "tradeOff": "Extra commit per charge."},
     {"passed": True, "why": "terse imperative steps", "voice": "terse"}),
    ("t8-good-4", {
        "checkpoint": "Die Absicht wird vor dem Aufruf ins Journal geschrieben - sorry, in "
                      "English: the intent is journaled before the call and the result after.",
        "idempotency": "Derived key from run id and step, the same on every retry.",
        "resumeProtocol": "On resume we ask the provider about the key of every open intent and"
                          " resend with that key only if it is unknown.",
        "tradeOff": "One more journal write per call."},
     {"passed": True, "why": "starts in German, then English", "voice": "non-native"}),
    ("t8-good-5", {
        "checkpoint": "Event-sourced: ChargeAttempted is stored before the request and "
                      "ChargeResulted after the response.",
        "idempotency": "Key = aggregate id + event version, which is deterministic for the "
                       "step.",
        "resumeProtocol": "A ChargeAttempted without ChargeResulted makes the recovery query "
                          "the provider by key; it records the found charge or retries with "
                          "that key.",
        "tradeOff": "Event store growth and one extra append per charge."},
     {"passed": True, "why": "event-sourced; key = aggregate id + event version", "voice": "event-log"}),
    ("t8-good-6", {
        "checkpoint": "Intent first, durably; call second; result third.",
        "idempotency": "Provider-side dedup via a key derived from run and step.",
        "resumeProtocol": "Resume replays the journal; each open intent is verified at the "
                          "provider by key, and only unverified ones are sent again.",
        "failureMode": "A resume later than the provider's key retention cannot verify anything"
                       " and ends with an operator."},
     {"passed": True, "why": "ordinals: intent first, call second, result third", "voice": "terse"}),
    ("t8-bad-1", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "The key is derived from run and step when the run starts; each retry "
                       "appends the attempt number.",
        "resumeProtocol": "Ask the provider by key about open intents.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "each retry appends the attempt number", "voice": "qualifier"}),
    ("t8-bad-2", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "The worker re-executes every step without a result, and a nightly "
                          "job later compares our journal with the provider's report.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "re-execute now, a nightly job compares later", "voice": "qualifier"}),
    ("t8-bad-3", {
        "checkpoint": "Results are journaled; intents are just logged to stdout before the "
                      "call.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Ask the provider by key about open intents.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "intents only logged to stdout", "voice": "qualifier"}),
    ("t8-bad-5", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Ask the provider by key about open intents.",
        "failureMode": "This design has no weaknesses."},
     {"passed": False, "why": "claims no weaknesses", "voice": "false-failure"}),
    ("t8-bad-6", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "The idempotency key is a new random UUID, stored nowhere.",
        "resumeProtocol": "Ask the provider by key about open intents.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "random UUID stored nowhere", "voice": "qualifier"}),
    ("t8-bad-7", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "We mark open intents as failed and move on; the customer can retry "
                          "the order.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "mark failed and move on", "voice": "plain"}),
    ("t8-bad-8", {
        "checkpoint": "We keep a write-ahead log, but it is only written when the process shuts"
                      " down cleanly.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Ask the provider by key about open intents.",
        "tradeOff": "Fast: no writes on the hot path."},
     {"passed": False, "why": "WAL written only at clean shutdown", "voice": "qualifier"}),
    ("t8-bad-9", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Replay the journal; open intents are retried blindly, then "
                          "reconciled with the provider.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "retried blindly, then reconciled", "voice": "qualifier"}),
    ("t8-bad-10", {
        "checkpoint": "Intent journaled before the call, result after. No wait, we don't "
                      "journal intents.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Ask the provider by key about open intents.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "self-correction: 'no wait, we don't journal intents'", "voice": "contradicting", "contradiction": True}),
    # == a seventh fresh batch, written before running it. Measured once before the fixes it
    # prompted: good 3/5, bad fail 6/10. Then fitted.
    ("t9-good-1", {
        "checkpoint": "No call is made unless its intent row is already on disk; the result row"
                      " is added when the call returns.",
        "idempotency": "The intent row's id, a hash of run and step, is the idempotency key; a "
                       "retry reads it from the row.",
        "resumeProtocol": "An intent row without a result row: look the key up with the "
                          "provider and act on the answer (record or resend with the same key).",
        "tradeOff": "One fsync in front of every call; lookups on recovery."},
     {"passed": True, "why": "'no call is made unless its intent row is on disk'", "voice": "negation"}),
    ("t9-good-2", {
        "checkpoint": "We journal 'about to call X with args A and key K' and only then call X;"
                      " the reply is journaled too.",
        "idempotency": "K = sha256(run, step, A): the same K no matter how often we try.",
        "resumeProtocol": "Journal says 'about to call' but no reply: we ask the provider "
                          "whether K was charged. Yes: record. No: call again with K.",
        "failureMode": "Crash after the provider charged but before the reply is journaled, "
                       "recovered after the provider forgot K: nobody can tell, an operator "
                       "decides."},
     {"passed": True, "why": "journal 'about to call X'; window and limit in words", "voice": "verbose"}),
    ("t9-good-3", {
        "checkpoint": "Pre-call intent + post-call result, both fsynced.",
        "idempotency": "Derived, not random: run id and step.",
        "resumeProtocol": "Provider lookup by key for unresolved intents; resend only on "
                          "not-found.",
        "tradeOff": "Two fsyncs per call, so throughput halves on slow disks."},
     {"passed": True, "why": "terse; 'throughput halves'", "voice": "terse"}),
    ("t9-good-4", {
        "checkpoint": "The worker appends the planned charge to its journal and waits for the "
                      "append to be durable; then it calls the provider; then it appends the "
                      "outcome.",
        "idempotency": "Planned charge id = run + step; the provider gets it as the idempotency"
                       " key every time.",
        "resumeProtocol": "Planned charges without an outcome are matched against the provider "
                          "by that id; matches are recorded, the rest charged again with the "
                          "same id.",
        "tradeOff": "Waiting for the durable append adds latency to each charge."},
     {"passed": True, "why": "planned charge appended, waits for durability; then the call", "voice": "plain"}),
    ("t9-good-5", {
        "checkpoint": "Intent is journaled before calling; result is journaled after calling.",
        "idempotency": "The key is built from the order number and the step, so it does not "
                       "vary between tries.",
        "resumeProtocol": "For intents that have no result, we request the provider's record "
                          "for the key; we resend with the same key only when the provider has "
                          "no record.",
        "tradeOff": "Depending on the provider's lookup endpoint during recovery."},
     {"passed": True, "why": "'request the provider's record for the key'; depending on the provider", "voice": "plain"}),
    ("t9-bad-1", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Resend every open intent right away; asking the provider is "
                          "optional.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "'asking the provider is optional'", "voice": "negation"}),
    ("t9-bad-2", {
        "checkpoint": "We journal the intent after the call succeeds, and the result right "
                      "after that.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Look up open intents by key.",
        "tradeOff": "Two writes per call."},
     {"passed": False, "why": "intent journaled after the call succeeds", "voice": "qualifier"}),
    ("t9-bad-3", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "The key is derived from run and step, but a retry uses a different step"
                       " number.",
        "resumeProtocol": "Look up open intents by key.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "a retry uses a different step number", "voice": "qualifier"}),
    ("t9-bad-4", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Look up open intents by key.",
        "failureMode": "The journal is never fsynced, so after a power loss the intent can be "
                       "missing."},
     {"passed": False, "why": "failure mode: the journal is never fsynced", "voice": "contradicting", "contradiction": True}),
    ("t9-bad-5", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Escalate every open intent to a human without asking the provider.",
        "failureMode": "Humans are slow."},
     {"passed": False, "why": "escalate everything without asking the provider", "voice": "plain"}),
    ("t9-bad-6", {
        "checkpoint": "Journal.",
        "idempotency": "Key.",
        "resumeProtocol": "Replay.",
        "tradeOff": "Disk."},
     {"passed": False, "why": "one word per field", "voice": "content-free"}),
    ("t9-bad-7", {
        "checkpoint": "Snapshot of the whole agent after every tool call.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Load the snapshot and redo the last tool call.",
        "failureMode": "A crash during a tool call redoes it."},
     {"passed": False, "why": "snapshot, redo the last call", "voice": "plain"}),
    ("t9-bad-8", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "The key is kept in our journal and not passed along with the charge "
                       "request.",
        "resumeProtocol": "Look up open intents by key.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "key kept in our journal, not passed along", "voice": "qualifier"}),
    ("t9-bad-9", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Look up open intents by key; the lookup is skipped when the run is "
                          "in a hurry.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "lookup skipped when in a hurry", "voice": "contradicting", "contradiction": True}),
    ("t9-bad-10", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "A UUID generated by the payment SDK at each call.",
        "resumeProtocol": "Look up open intents by key.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "UUID generated by the SDK at each call", "voice": "qualifier"}),
    # == an eighth fresh batch (mostly good outlines that negate the WRONG mechanism), written
    # before running it. Measured once before the fixes it prompted: good 7/8, bad fail 3/4.
    ("t10-good-1", {
        "checkpoint": "Nothing goes to the provider until an intent entry is safely on disk; "
                      "when the reply comes, it is recorded next to the intent.",
        "idempotency": "We never use random keys: the key is computed from run id and step and "
                       "stays the same on retries.",
        "resumeProtocol": "We never resend blindly; for every intent without a reply we first "
                          "ask the provider by key, then record or resend with the same key.",
        "tradeOff": "Each call waits for one disk write; not free, but cheap."},
     {"passed": True, "why": "negations that deny the wrong mechanism ('never resend blindly')", "voice": "negation"}),
    ("t10-good-2", {
        "checkpoint": "Intent before, result after, both in the SQLite journal; not in memory.",
        "idempotency": "Not random per attempt: derived from run and step.",
        "resumeProtocol": "Not a blind retry: look up by key first, then resend only if "
                          "unknown.",
        "tradeOff": "Not zero-cost: one extra write per call."},
     {"passed": True, "why": "'not in memory', 'not random per attempt', 'not a blind retry'", "voice": "negation"}),
    ("t10-good-3", {
        "checkpoint": "Every effect is announced in the journal before it is performed and "
                      "confirmed in the journal afterwards.",
        "idempotency": "The announcement carries a key derived from the run and the step, "
                       "reused if the effect is retried.",
        "resumeProtocol": "An announced but unconfirmed effect is checked with the provider "
                          "using that key; the provider's answer decides between recording and "
                          "retrying with the same key.",
        "failureMode": "If the crash happens after the provider charged and recovery comes "
                       "after the key expired, the outcome is unknowable and the run is "
                       "escalated."},
     {"passed": True, "why": "'announced' and 'confirmed' effects", "voice": "verbose"}),
    ("t10-good-4", {
        "checkpoint": "I would write an intent record before calling the provider and a result "
                      "record once it replies.",
        "idempotency": "I would derive the key from the run id and the step, so every retry "
                       "reuses it.",
        "resumeProtocol": "I would look each open intent up at the provider by key and only "
                          "resend, with the same key, when the provider has nothing.",
        "tradeOff": "I would pay one extra write per call."},
     {"passed": True, "why": "proposal voice ('I would ...')", "voice": "plain"}),
    ("t10-good-5", {
        "checkpoint": "Intent is written to the DB ahead of the API call; the API response is "
                      "written after.",
        "idempotency": "Key derived from run and step, never from the clock or a random source.",
        "resumeProtocol": "On restart we don't blindly retry: we query the API for each key "
                          "without a response, record what it returns, and resend the missing "
                          "ones with their key.",
        "tradeOff": "A crash recovery takes one API query per missing response."},
     {"passed": True, "why": "'we don't blindly retry'; key 'never from the clock'", "voice": "negation"}),
    ("t10-good-6", {
        "checkpoint": "Before: intent. After: result. Both durable.",
        "idempotency": "Run+step hash. Never changes.",
        "resumeProtocol": "Open intent: look up by key. Found: record. Missing: resend same "
                          "key.",
        "tradeOff": "Slower by one write."},
     {"passed": True, "why": "terse with colons", "voice": "terse"}),
    ("t10-good-7", {
        "checkpoint": "A pending record is committed before the provider is contacted and "
                      "completed after the response.",
        "idempotency": "Without a random component: sha256 of run, step and arguments.",
        "resumeProtocol": "No resend happens before the provider has been asked about the key.",
        "failureMode": "Late resumes beyond the provider's retention period require a human "
                       "decision."},
     {"passed": True, "why": "'no resend happens before the provider has been asked'", "voice": "negation"}),
    ("t10-good-8", {
        "checkpoint": "There is no call without an intent journaled first; the result is "
                      "journaled after.",
        "idempotency": "There is no random key: it is derived from run and step.",
        "resumeProtocol": "There is no resend without a provider lookup by key first.",
        "tradeOff": "There is one extra journal write per call."},
     {"passed": True, "why": "'there is no X without Y' in every field", "voice": "negation"}),
    ("t10-bad-1", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "We would look up the key, but in this version we just resend.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "'we would look up the key, but we just resend'", "voice": "qualifier"}),
    ("t10-bad-2", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "Derived key, regenerated from a fresh seed each time we retry.",
        "resumeProtocol": "Look up by key.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "regenerated from a fresh seed each retry", "voice": "qualifier"}),
    ("t10-bad-3", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Look up by key at the provider, resend if missing.",
        "failureMode": "None that I can see."},
     {"passed": False, "why": "no failure mode", "voice": "false-failure"}),
    ("t10-bad-4", {
        "checkpoint": "We don't write an intent; results are journaled after each call.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Resend steps without results.",
        "failureMode": "A crash after the charge but before the result is journaled charges "
                       "twice after 24 h."},
     {"passed": False, "why": "no intent, blind resend", "voice": "plain"}),
    # == a ninth fresh batch (typos, British spelling, chatty register), written before running
    # it. Measured once before the fixes it prompted: good 3/6, bad fail 4/6.
    ("t11-good-1", {
        "checkpoint": "The intent is journalled before the call and the result is journalled "
                      "afterwards.",
        "idempotency": "Key derived from run id and step; it is reused on every retry.",
        "resumeProtocol": "On resume, open intents are looked up at the provider by key; "
                          "unknown ones are resent with the same key.",
        "tradeOff": "An additional journal write per call."},
     {"passed": True, "why": "British 'journalled'", "voice": "plain"}),
    ("t11-good-2", {
        "checkpoint": "intnet is writen to the jounral befor the call, result after",
        "idempotency": "key derrived from run id + step, same on evry retry",
        "resumeProtocol": "for open intents we check with the provder by key and resend with "
                          "same key if its unknown",
        "tradeOff": "one extra write per call"},
     {"passed": True, "why": "typos in every field", "voice": "non-native"}),
    ("t11-good-3", {
        "checkpoint": "So basically what I'd do is, before the agent fires off the payment "
                      "request, it saves a little record saying 'hey, I'm about to pay X with "
                      "key K', and once the payment API answers, it saves the answer too.",
        "idempotency": "K is just a hash of the run id and the step number, so if we retry, "
                       "it's the exact same K.",
        "resumeProtocol": "When the agent comes back up and sees an 'about to pay' record with "
                          "no answer, it asks the payment API 'did you see K?' and either saves"
                          " that answer or pays again with K.",
        "tradeOff": "Honestly the main cost is one more write before every payment, so a bit of"
                    " extra latency."},
     {"passed": True, "why": "chatty spoken register", "voice": "verbose"}),
    ("t11-good-4", {
        "checkpoint": "Intent: persisted pre-dispatch. Result: persisted post-dispatch.",
        "idempotency": "Key: f(run_id, step_idx), pure.",
        "resumeProtocol": "Unresolved intent => provider.get(key) => persist | redispatch(key).",
        "tradeOff": "Latency: +1 durable write per dispatch."},
     {"passed": True, "why": "arrows and provider.get(key)", "voice": "terse"}),
    ("t11-good-5", {
        "checkpoint": "Our journal gets the intent first; the charge only goes out after that "
                      "write is committed; the charge's result is journaled on return.",
        "idempotency": "We use the order id plus step as the idempotency key; nothing random.",
        "resumeProtocol": "Recovery checks each uncommitted result with Stripe by idempotency "
                          "key and only re-sends, with that key, if Stripe has no charge.",
        "failureMode": "Stripe keeps idempotency keys for 24 h; recoveries later than that go "
                       "to the on-call engineer."},
     {"passed": True, "why": "'checks each uncommitted result with Stripe'; on-call", "voice": "plain"}),
    ("t11-good-6", {
        "checkpoint": "The call is wrapped: journal intent, call, journal result.",
        "idempotency": "Key from run and step (deterministic).",
        "resumeProtocol": "Wrapped calls that never got their result are settled by asking the "
                          "provider about the key first.",
        "tradeOff": "The wrapper costs one journal write per call."},
     {"passed": True, "why": "'the call is wrapped'", "voice": "plain"}),
    ("t11-bad-1", {
        "checkpoint": "The intent is journalled after the call returns, together with the "
                      "result.",
        "idempotency": "Key derived from run id and step.",
        "resumeProtocol": "Open intents are looked up by key.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "intent journalled after the call", "voice": "qualifier"}),
    ("t11-bad-2", {
        "checkpoint": "intnet writen befor the call, result after",
        "idempotency": "key derrived from run id + step",
        "resumeProtocol": "just resnd evrything without result, dont ask the provder",
        "tradeOff": "one extra write per call"},
     {"passed": False, "why": "typos; blind resend", "voice": "non-native"}),
    ("t11-bad-3", {
        "checkpoint": "So the agent just keeps everything in its context window and we trust "
                      "the model to remember what it paid.",
        "idempotency": "Key derived from run id and step.",
        "resumeProtocol": "Ask the provider about the key.",
        "tradeOff": "No extra writes."},
     {"passed": False, "why": "state in the model's context window", "voice": "qualifier"}),
    ("t11-bad-4", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Key derived from run id and step, salted with the worker's hostname, "
                       "which changes when the pod is rescheduled.",
        "resumeProtocol": "Ask the provider about the key.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "key salted with the hostname, changes on reschedule", "voice": "qualifier"}),
    ("t11-bad-5", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Key derived from run id and step.",
        "resumeProtocol": "Ask the provider about the key, and regardless of the answer resend "
                          "with the same key.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "resend regardless of the lookup's answer", "voice": "qualifier"}),
    ("t11-bad-6", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Key derived from run id and step.",
        "resumeProtocol": "Ask the provider about the key.",
        "failureMode": "It could fail in many ways."},
     {"passed": False, "why": "content-free failure mode", "voice": "content-free"}),
    # == a tenth fresh batch, written before running it. Measured once before the fixes it
    # prompted: good 4/5, bad fail 5/7.
    ("t12-good-1", {
        "checkpoint": "We adopt a write-ahead discipline: the intended charge is logged "
                      "durably, then executed, then its outcome logged.",
        "idempotency": "Idempotency key = HMAC(run id, step), identical for all executions of "
                       "the step.",
        "resumeProtocol": "Recovery scans for logged-but-unfinished charges and queries the PSP"
                          " for each key; a hit is logged, a miss is re-executed with the key.",
        "tradeOff": "Write-ahead logging adds an fsync to the critical path."},
     {"passed": True, "why": "'write-ahead discipline', HMAC key", "voice": "verbose"}),
    ("t12-good-2", {
        "checkpoint": "Step 1 of every tool call is a journal append describing the call; step "
                      "3, after the call, appends its result.",
        "idempotency": "The description includes a key made from the run id and the step index,"
                       " kept for retries.",
        "resumeProtocol": "A description with no result: the provider is queried for the key; "
                          "we then append the result or redo the call with the key.",
        "failureMode": "If the journal disk is full, no call can start."},
     {"passed": True, "why": "numbered steps of a tool call; disk-full limit", "voice": "plain"}),
    ("t12-good-3", {
        "checkpoint": "Intent journaled synchronously before the charge; result journaled on "
                      "return.",
        "idempotency": "Key derived from run id and step.",
        "resumeProtocol": "For each intent without a result, look the charge up at the provider"
                          " by key before considering a resend.",
        "failureMode": "Recovery that happens more than a day later cannot rely on the "
                       "provider's key memory and must escalate."},
     {"passed": True, "why": "a day later: escalate", "voice": "plain"}),
    ("t12-good-4", {
        "checkpoint": "Intent durably stored prior to the API request; response stored after.",
        "idempotency": "Same key on retries, made of run id and step.",
        "resumeProtocol": "Stored intent without stored response -> ask the API whether that "
                          "key was processed -> store the answer or resend with the key.",
        "tradeOff": "Every API request now needs a storage round trip first."},
     {"passed": True, "why": "arrows; 'storage round trip first'", "voice": "terse"}),
    ("t12-good-5", {
        "checkpoint": "A 'reservation' row for the charge is inserted before calling the PSP; "
                      "the PSP result updates that row.",
        "idempotency": "The reservation id (run + step) is sent as the idempotency key.",
        "resumeProtocol": "Open reservations are confirmed against the PSP by id; unconfirmed "
                          "ones are charged again with the same id.",
        "tradeOff": "An extra row and an extra update per charge."},
     {"passed": True, "why": "'reservation' row", "voice": "outbox"}),
    ("t12-bad-1", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step.",
        "resumeProtocol": "Charges without a result are pushed back onto the queue and executed"
                          " again by the next worker.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "pushed back onto the queue and executed again", "voice": "queue"}),
    ("t12-bad-2", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, unless the payload changed, in which "
                       "case a random one.",
        "resumeProtocol": "Look the charge up by key.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "random key unless the payload is unchanged", "voice": "qualifier"}),
    ("t12-bad-3", {
        "checkpoint": "We store the agent's chat history in Postgres after each turn.",
        "idempotency": "Key derived from run id and step.",
        "resumeProtocol": "Reload the chat history and let the model continue.",
        "tradeOff": "One write per turn."},
     {"passed": False, "why": "chat history after each turn", "voice": "plain"}),
    ("t12-bad-4", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step.",
        "resumeProtocol": "Look the charge up by key.",
        "failureMode": "The design is bulletproof; no crash can hurt it."},
     {"passed": False, "why": "'bulletproof'", "voice": "false-failure"}),
    ("t12-bad-5", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Every attempt mints its own key.",
        "resumeProtocol": "Look the charge up by the latest key.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "every attempt mints its own key", "voice": "qualifier"}),
    ("t12-bad-6", {
        "checkpoint": "Intent journaled before the charge, result after; the journal is wiped "
                      "on every restart.",
        "idempotency": "Key derived from run id and step.",
        "resumeProtocol": "Look the charge up by key.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "journal wiped on every restart", "voice": "qualifier"}),
    ("t12-bad-7", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step.",
        "resumeProtocol": "The unresolved charge is cancelled and the order is refunded without"
                          " checking the provider.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "refund without checking", "voice": "plain"}),

    # ---- t13: the classes HELDOUT6/7's misses showed, in new words, written before running ----
    ("t13-good-code-go", {
        "checkpoint": "tx.Exec(insertPending, runID, step, key); tx.Commit(); resp, err := "
                      "psp.Charge(ctx, amount, key); tx2.Exec(markDone, resp.ID)",
        "idempotency": "key := sha256.Sum256([]byte(runID + \"/\" + step)) // stable across "
                       "retries",
        "resumeProtocol": "for _, p := range pendingRows() { c := psp.FindByKey(p.Key); if c != "
                          "nil { markDone(p, c) } else { psp.Charge(ctx, p.Amount, p.Key) } }",
        "tradeOff": "one extra commit per charge, one FindByKey per pending row on restart"},
     {"passed": True, "why": "commit then charge in code, stable key, find before same-key "
      "resend", "voice": "code"}),
    ("t13-good-queue-goes-only-once", {
        "checkpoint": "The charge message goes onto the queue only once the ledger row saying "
                      "'charging' has been committed; the consumer stores the receipt on that row.",
        "idempotency": "The dedup token is the row's id, itself a hash of run id and step, so "
                       "every redelivery carries the same token.",
        "resumeProtocol": "A 'charging' row without a receipt makes the consumer ask the PSP "
                          "for a charge with that token before it charges again with the same "
                          "token.",
        "tradeOff": "One more committed row per charge and a PSP query per open row."},
     {"passed": True, "why": "row committed before the message, stable token, query first",
      "voice": "queue"}),
    ("t13-good-nonnative-make-of", {
        "checkpoint": "Before to pay, the worker write in the journal the intention with the key;"
                      " after the pay it write the result.",
        "idempotency": "The key is make of the number of the run and the name of the step, and "
                       "for each retry it stay the same.",
        "resumeProtocol": "If intention is without result, the worker ask the provider with the "
                          "key; if the charge exist it write it, if not it send again with same "
                          "key.",
        "failureMode": "Each call cost one write more in the journal."},
     {"passed": True, "why": "non-native: intent first, run+step key, lookup", "voice":
      "non-native"}),
    ("t13-good-remove-only-after", {
        "checkpoint": "We commit an 'about to charge' entry before calling the PSP, and remove "
                      "the job from the queue only after the receipt is in the table.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "An entry without receipt is checked with the PSP by key; only a "
                          "miss is charged again, with the same key.",
        "tradeOff": "An extra committed entry per charge."},
     {"passed": True, "why": "'only after' is about removing the job, not the entry",
      "voice": "queue"}),
    ("t13-good-request-id-separate", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "The idempotency key is sha256(run id, step). Each attempt also carries a "
                       "fresh request id for the logs, which is separate from the idempotency "
                       "key.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "tradeOff": "One more journal write per call."},
     {"passed": True, "why": "the fresh id is the log's request id, not the key", "voice":
      "verbose"}),
    ("t13-good-status-api-unreachable", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "failureMode": "If the PSP's status API is unreachable, the run waits and cannot proceed "
                       "past the charge until it answers."},
     {"passed": True, "why": "a true limit (the lookup depends on the status API)", "voice":
      "plain"}),
    ("t13-good-table-resume", {
        "checkpoint": "| moment | write |\n|---|---|\n| before the charge | intent |\n| after "
                      "| result |",
        "idempotency": "| key | sha256(run, step) |\n| retries | same key |",
        "resumeProtocol": "| state | action |\n|---|---|\n| intent, no result | ask PSP by key "
                          "|\n| found | record |\n| missing | resend, same key |",
        "tradeOff": "| cost | one extra write per call |"},
     {"passed": True, "why": "tables: the cell boundary ends the 'no'", "voice": "markdown"}),
    ("t13-bad-stuffed-id-list", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "UUIDv5, HMAC, run id, step, digest, dedup window.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "contradiction": True, "why": "idempotency is a word list", "voice":
      "stuffed"}),
    ("t13-bad-stuffed-engine", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Recovery is handled by a robust reconciliation and replay engine "
                          "with compensation, lookup and human escalation.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "contradiction": True, "why": "resume names mechanisms, does none",
      "voice": "stuffed"}),
    ("t13-bad-stuffed-class", {
        "checkpoint": "@transactional @outbox @journaled\nclass Payment: pass",
        "idempotency": "@idempotent(key='auto')",
        "resumeProtocol": "@reconciled @resumable",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "contradiction": True, "why": "decorators only", "voice": "stuffed"}),
    ("t13-bad-salt-per-request", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key = run id + step + a random salt, so that each request is unique.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the key.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "a random salt makes every request's key new", "voice":
      "qualifier"}),
    ("t13-bad-builtin-hash", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "key = hash((run, step)), computed in the worker on each attempt, and "
                       "the same for the same run and step.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the key.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "Python's hash() differs after a restart", "voice": "code"}),
    ("t13-bad-background-flush", {
        "checkpoint": "Before the charge the intent goes into an in-process buffer that a "
                      "background thread flushes to disk every 500 ms; the result is committed "
                      "after the call.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "tradeOff": "One more write per call, but asynchronous."},
     {"passed": False, "why": "the intent is not durable before the call", "voice": "verbose"}),
    ("t13-bad-contra-row-after", {
        "checkpoint": "A pending row is committed before the charge, the receipt after it.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Since nothing is recorded until the PSP replies, a restarted run "
                          "simply charges again with the same key.",
        "tradeOff": "One more row per charge."},
     {"passed": False, "contradiction": True, "why": "resume denies the pending row",
      "voice": "contradicting"}),
    ("t13-bad-contra-immediate-resend", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "An open intent is looked up at the PSP by key before any resend.",
        "failureMode": "After a restart the charge is resent immediately and the PSP dedups "
                       "it, so the cost is one extra request."},
     {"passed": False, "contradiction": True, "why": "failure mode says the resend comes first",
      "voice": "contradicting"}),
    ("t13-bad-keys-never-expire", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "failureMode": "Keys never expire at our PSP, so a late resume is as safe as an early "
                       "one; the cost is a lookup per open intent."},
     {"passed": False, "why": "the provider forgets keys after 24 h", "voice": "false-failure"}),
    ("t13-bad-contra-no-status-endpoint", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "We check the charge with the PSP by key, although the PSP exposes no "
                          "status endpoint, so in practice we resend with the key.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "contradiction": True, "why": "lookup and no lookup endpoint", "voice":
      "contradicting"}),

    # ---- t14: new voices for the same classes, written before running (stop s4) -------------
    ("t14-good-question-form", {
        "checkpoint": "What do we write before the charge? An intent entry, committed to SQLite "
                      "before the request leaves. And after? The charge id.",
        "idempotency": "What is the key made of? sha256 of run id and step. Does a retry change "
                       "it? No, it is the same key every time.",
        "resumeProtocol": "What does a restart do with an intent that has no charge id? It asks "
                          "the provider for a charge with that key; if there is one it records "
                          "it, if not it sends the charge again with the same key.",
        "failureMode": "What does it cost? One extra committed write per charge, and one "
                       "provider query per open intent when we restart."},
     {"passed": True, "why": "questions and answers", "voice": "plain"}),
    ("t14-good-runbook", {
        "checkpoint": "1) insert intent row (run, step, key, amount) and commit; 2) call the "
                      "PSP; 3) write the charge id into the row.",
        "idempotency": "The key is sha256(run_id + step), computed from the row, never random.",
        "resumeProtocol": "1) select rows with no charge id; 2) for each, query the PSP by key; "
                          "3) found: copy the charge id; not found: call again with the same key.",
        "tradeOff": "Step 1 adds a commit to every charge; recovery adds a PSP query per row."},
     {"passed": True, "why": "numbered runbook", "voice": "terse"}),
    ("t14-good-nonnative-german", {
        "checkpoint": "Before the payment call we are writing the intent into the journal and "
                      "wait for the flush; after the answer we are writing the result also.",
        "idempotency": "The key we build from run-id and step-name with SHA-256; by repetition "
                       "it stays identical.",
        "resumeProtocol": "By restart, for each intent without result we are asking the "
                          "provider with the key whether the charge exists; exists -> we record "
                          "it; not exists -> we send again with the same key.",
        "failureMode": "The flush before every call makes each payment some milliseconds "
                       "slower."},
     {"passed": True, "why": "non-native German word order", "voice": "non-native"}),
    ("t14-good-window-words", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "failureMode": "If the process dies after the provider took the money but before we "
                       "wrote the receipt, and we only come back two days later, the provider "
                       "no longer knows the key, so the run has to wait for a person."},
     {"passed": True, "why": "W4 past retention in words, escalation", "voice": "plain"}),
    ("t14-good-cdc", {
        "checkpoint": "The step inserts a 'charge requested' row in Postgres and commits; a CDC "
                      "connector turns the committed row into the call, so nothing is sent "
                      "that is not already durable. The reply is written back to the row.",
        "idempotency": "The row's idempotency key is a hash of run id and step, computed when "
                       "the row is inserted and read back for every send.",
        "resumeProtocol": "On restart, rows without a reply are checked against the provider "
                          "by their key before the connector may send them again, with the "
                          "same key.",
        "tradeOff": "Another moving part (the CDC connector) and a delay of a second or so "
                    "before each charge goes out."},
     {"passed": True, "why": "CDC outbox", "voice": "outbox"}),
    ("t14-good-negation-at-no-point", {
        "checkpoint": "At no point is a charge sent before its intent is durable in the journal;"
                      " the result is appended afterwards.",
        "idempotency": "Key derived from run id and step; at no point is a new one made for a "
                       "retry.",
        "resumeProtocol": "Open intents are looked up at the provider by key; we never resend "
                          "without that lookup.",
        "tradeOff": "One more journal write per call."},
     {"passed": True, "why": "negations that keep the design", "voice": "plain"}),
    ("t14-bad-redis-no-persistence", {
        "checkpoint": "The intent goes into Redis before the charge, with persistence switched "
                      "off, and the result goes there after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "tradeOff": "One more write per call, but Redis is fast."},
     {"passed": False, "why": "Redis without persistence loses the intent", "voice":
      "qualifier"}),
    ("t14-bad-key-kept-not-sent", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "A key derived from run id and step is stored in the intent, but it is "
                       "not passed to the PSP with the charge.",
        "resumeProtocol": "Look the charge up by key; record it, or resend.",
        "tradeOff": "One more write per call."},
     {"passed": False, "why": "the key is never sent", "voice": "qualifier"}),
    ("t14-bad-resend-then-ask", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "An open intent is charged again right away; afterwards we ask the "
                          "PSP whether there are two charges and refund one.",
        "tradeOff": "One more write per call."},
     {"passed": False, "why": "resend before the lookup", "voice": "qualifier"}),
    ("t14-bad-stuffed-sentence-list", {
        "checkpoint": "We rely on journaling, WAL, outbox and snapshots.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "tradeOff": "One more write per call."},
     {"passed": False, "contradiction": True, "why": "a sentence that lists mechanisms",
      "voice": "stuffed"}),
    ("t14-bad-stuffed-tradeoff-only-words", {
        "checkpoint": "Intent, WAL, fsync, outbox, event log.",
        "idempotency": "Deterministic, idempotent, exactly-once, dedup, SHA-256.",
        "resumeProtocol": "Reconciliation, replay, lookup, escalation.",
        "tradeOff": "latency, storage, retention"},
     {"passed": False, "contradiction": True, "why": "every field a word list", "voice":
      "stuffed"}),
    ("t14-bad-contra-key-changes", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend.",
        "failureMode": "Because each retry gets a new key, the lookup can miss the first "
                       "charge, which costs a duplicate now and then."},
     {"passed": False, "contradiction": True, "why": "failure mode says the key changes",
      "voice": "contradicting"}),
    ("t14-bad-contra-no-intent-in-failure", {
        "checkpoint": "A pending row is committed before the charge, the receipt after it.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Pending rows are checked with the PSP by key before any resend.",
        "failureMode": "Since the pending row is only written when the PSP answers, a crash "
                       "during the call leaves nothing to check."},
     {"passed": False, "contradiction": True, "why": "failure mode denies the pending row",
      "voice": "contradicting"}),
    ("t14-bad-content-free-failure", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "failureMode": "Nothing is perfect, there are always edge cases to keep an eye on."},
     {"passed": False, "why": "names no failure and no cost", "voice": "content-free"}),

    # ---- t15: bad designs in the right words, good ones in unusual words (stop s4) ----------
    ("t15-bad-intent-after-send", {
        "checkpoint": "We send the charge and, while it is in flight, append the intent to the "
                      "journal; the result follows when the PSP replies.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "the intent is written while the call is in flight", "voice":
      "qualifier"}),
    ("t15-bad-key-from-clock", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "The key combines the run id with the wall-clock time of the send.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the key.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "the send time changes per attempt", "voice": "qualifier"}),
    ("t15-bad-lookup-by-operator-only", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Open intents are resent with the same key; an operator may look the "
                          "charge up later if a customer complains.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "blind resend; the lookup is after the fact", "voice":
      "qualifier"}),
    ("t15-bad-journal-tmp", {
        "checkpoint": "Intent and result are appended to a journal file under /tmp before and "
                      "after the call.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "tradeOff": "One more write per call."},
     {"passed": False, "why": "/tmp does not survive the restart", "voice": "qualifier"}),
    ("t15-bad-never-asks", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Replay the journal; intents with no result are sent again with the "
                          "same key, and at no point do we ask the PSP anything.",
        "failureMode": "Past 24 h the PSP forgets the key and the resend charges twice."},
     {"passed": False, "why": "a blind same-key resend duplicates past 24 h (its failure mode "
      "says so truly, but the design still duplicates)", "voice": "plain"}),
    ("t15-bad-uuid-each-call", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "We stamp every outgoing call with uuid4() as its idempotency key.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the key.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "a new uuid per call", "voice": "qualifier"}),
    ("t15-bad-contra-stateless", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "tradeOff": "The worker is stateless and keeps nothing on disk, so it is cheap to run."},
     {"passed": False, "contradiction": True, "why": "trade-off denies the journal", "voice":
      "contradicting"}),
    ("t15-good-ledger-words", {
        "checkpoint": "We pencil the charge into our ledger (committed, fsynced) before asking "
                      "the bank for it, and ink it in with the bank's reference once it answers.",
        "idempotency": "The token handed to the bank is a digest of run id and step, so asking "
                       "twice hands over the same token.",
        "resumeProtocol": "A pencilled line without a bank reference: ask the bank whether it "
                          "knows the token; if yes ink it in, if no ask for the charge again "
                          "with the same token.",
        "tradeOff": "An extra fsynced ledger write per charge."},
     {"passed": True, "why": "ledger metaphor", "voice": "verbose"}),
    ("t15-good-terse-arrows", {
        "checkpoint": "intent(fsync) -> charge -> result(fsync)",
        "idempotency": "key = H(run, step); fixed",
        "resumeProtocol": "intent w/o result -> GET /charges?key=K -> 200 record | 404 re-POST K",
        "tradeOff": "2 fsyncs/charge"},
     {"passed": True, "why": "arrows and HTTP", "voice": "terse"}),
    ("t15-good-escalate-past-retention", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Within a day of the crash, look the charge up by key and resend "
                          "with the same key if absent; later than that, park the run as "
                          "uncertain for an operator.",
        "failureMode": "Late recoveries wait for a human, which can take hours."},
     {"passed": True, "why": "lookup with escalation past retention", "voice": "plain"}),

    # ---- t16: more voices, written before running (stop s4) --------------------------------
    ("t16-good-french", {
        "checkpoint": "Avant l'appel we write the intention in the journal (fsync), and after "
                      "the response we write the result.",
        "idempotency": "The key is calculated with the run id and the step (sha256); it is the "
                       "same at each new try.",
        "resumeProtocol": "At the restart, for an intention without result, we demand to the "
                          "provider if the charge exists with this key; if yes we note it, if no "
                          "we send again with the same key.",
        "failureMode": "It costs one more write on the disk for each call."},
     {"passed": True, "why": "French-English mix", "voice": "non-native"}),
    ("t16-good-sql-words", {
        "checkpoint": "INSERT the intent and COMMIT, then call the provider; UPDATE the row "
                      "with the charge id when it answers.",
        "idempotency": "idempotency_key = encode(sha256(run_id || ':' || step), 'hex') in the "
                       "INSERT, so every retry reuses it.",
        "resumeProtocol": "SELECT intents WHERE charge_id IS NULL; for each, GET the charge by "
                          "its key from the provider; found: UPDATE; not found: call again with "
                          "the same key.",
        "tradeOff": "A COMMIT per charge before the network call."},
     {"passed": True, "why": "SQL words", "voice": "code"}),
    ("t16-good-plain-cost-words", {
        "checkpoint": "We make a note on disk that we are about to pay, and only then pay; the "
                      "receipt is noted afterwards.",
        "idempotency": "The number we give the provider comes from the run and the step, so "
                       "asking again gives the same number.",
        "resumeProtocol": "If there is a note but no receipt, we first ask the provider whether "
                          "that number was already paid, and only pay again with the same "
                          "number if it was not.",
        "tradeOff": "Paying now takes a disk write longer than before."},
     {"passed": True, "why": "no course words at all", "voice": "plain"}),
    ("t16-bad-note-after-pay", {
        "checkpoint": "We pay first and make a note on disk right after the provider says yes.",
        "idempotency": "The number we give the provider comes from the run and the step.",
        "resumeProtocol": "If there is a note but no receipt, we ask the provider whether that "
                          "number was paid before paying again.",
        "tradeOff": "One disk write per payment."},
     {"passed": False, "why": "the note is written after the payment", "voice": "plain"}),
    ("t16-bad-key-per-worker", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Each worker process draws its own random prefix at startup and appends "
                       "the step number to it.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the key.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "a restarted worker draws a new prefix", "voice": "qualifier"}),
    ("t16-bad-lookup-skipped-when-busy", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Usually we look the charge up by key first, but when the PSP is "
                          "slow we skip that and resend straight away.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "the lookup is skipped sometimes", "voice": "qualifier"}),
    ("t16-bad-contra-two-answers", {
        "checkpoint": "Intent journaled before the charge, result after. Actually we only "
                      "journal the result, to keep it simple.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "contradiction": True, "why": "the checkpoint says two things",
      "voice": "contradicting"}),
    ("t16-bad-failure-no-cost", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "failureMode": "None that we know of; the design handles every crash."},
     {"passed": False, "why": "claims no failure and no cost", "voice": "false-failure"}),

    # ---- t17: failure modes and trade-offs in plain words, written before running ----
    ("t17-good-cost-wait", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "failureMode": 'Every payment now waits for the disk before it goes out.'},
     {"passed": True, "why": 'a cost in plain words', "voice": "plain"}),
    ("t17-good-cost-money", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "failureMode": 'We pay for a bigger database because every call leaves two rows behind.'},
     {"passed": True, "why": 'storage cost in plain words', "voice": "plain"}),
    ("t17-good-window-days", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "failureMode": "Come back after the provider has forgotten the key and a charge whose "
                       "reply was lost can only be settled by a person."},
     {"passed": True, "why": 'past retention, escalation, in words', "voice": "plain"}),
    ("t17-good-cost-restart", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "failureMode": "Restarts are slower: each unfinished payment needs a question to the "
                       "provider first."},
     {"passed": True, "why": 'recovery cost', "voice": "plain"}),
    ("t17-good-dependency", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "failureMode": "Recovery depends on the provider's search being up; while it is not, "
                       "unfinished payments stay parked."},
     {"passed": True, "why": 'dependency and parking', "voice": "plain"}),
    ("t17-bad-claims-safe", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "failureMode": 'There is no way for this to go wrong.'},
     {"passed": False, "why": 'claims safety, no cost', "voice": "false-failure"}),
    ("t17-bad-claims-double", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "failureMode": 'A crash after the charge always bills the customer twice.'},
     {"passed": False, "why": 'claims a duplicate the sweep refutes', "voice": "false-failure"}),
    ("t17-bad-vague", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "failureMode": 'Some things might go wrong sometimes, as usual.'},
     {"passed": False, "why": 'content-free', "voice": "content-free"}),
    ("t17-bad-denies-lookup", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "failureMode": "Since we never ask the provider anything on restart, recovery is instant; "
                       "the only cost is one write per call."},
     {"passed": False, "contradiction": True, "why": "failure mode denies the lookup", "voice": "contradicting"}),

    # ---- t18: bad designs that use the right words, written before running (stop s4) --------
    ("t18-bad-intent-same-txn-as-result", {
        "checkpoint": "The intent and the charge id are committed together in one transaction "
                      "once the provider has replied.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "tradeOff": "One transaction per call."},
     {"passed": False, "why": "the intent is written with the result", "voice": "qualifier"}),
    ("t18-bad-key-not-persisted-regenerated", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "A uuid4 is generated for the charge and kept in a local variable; a "
                       "restarted worker generates another one.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the key.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "the uuid is not journaled", "voice": "qualifier"}),
    ("t18-bad-resume-refund-blind", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "For an open intent we assume the charge went through and refund it, "
                          "without checking with the provider.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "refund without knowing a charge exists", "voice": "plain"}),
    ("t18-bad-key-includes-attempt", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "key = sha256(run_id, step, attempt) so that the provider can tell the "
                       "tries apart.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the key.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "the attempt number changes the key", "voice": "code"}),
    ("t18-bad-lookup-after-resend", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Open intents are charged again with the same key, and once that "
                          "returns we look up both charges to reconcile.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "the lookup comes after the resend", "voice": "qualifier"}),
    ("t18-bad-memory-dict", {
        "checkpoint": "Before the call the intent is put in self.pending (a dict); after the "
                      "call the result replaces it.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "tradeOff": "Fast, nothing touches the disk."},
     {"passed": False, "why": "the intent lives in a dict", "voice": "code"}),
    ("t18-bad-contra-failure-new-key", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "failureMode": "The resend uses a freshly generated key, so the provider may see it as "
                       "a new charge."},
     {"passed": False, "contradiction": True, "why": "failure mode says the key is new",
      "voice": "contradicting"}),
    ("t18-good-intent-kept-locally-then-fsynced", {
        "checkpoint": "The intent is built in memory, then appended to the journal and fsynced; "
                      "only then is the charge sent. The result is appended afterwards.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "tradeOff": "One fsync per charge."},
     {"passed": True, "why": "in memory only while being built; durable before the call",
      "voice": "verbose"}),

    # ---- t19: good designs in unusual words, written before running (stop s4) ---------------
    ("t19-good-diary", {
        "checkpoint": "Like a diary: before the agent spends money it writes down, on disk and "
                      "synced, what it is about to spend; when the money is spent it writes down "
                      "the receipt.",
        "idempotency": "The label on each spend is cut from the run's name and the step's name, "
                       "so a second try carries the very same label.",
        "resumeProtocol": "On waking up, a diary line with no receipt means 'maybe spent': the "
                          "agent asks the payment provider about that label, writes down the "
                          "receipt if the provider has one, and otherwise spends again under the "
                          "same label.",
        "tradeOff": "Each spend waits for one synced diary line."},
     {"passed": True, "why": "diary metaphor", "voice": "verbose"}),
    ("t19-good-terse-symbols", {
        "checkpoint": "durable intent < call < durable result",
        "idempotency": "key := digest(run, step); constant across attempts",
        "resumeProtocol": "intent && !result => provider.lookup(key) ? record : resend(key)",
        "tradeOff": "+1 durable write / call"},
     {"passed": True, "why": "symbols for order", "voice": "terse"}),
    ("t19-good-passive-voice", {
        "checkpoint": "An intent is durably recorded by the worker before any charge is "
                      "attempted; the outcome is recorded by it after the reply.",
        "idempotency": "A key is derived by the worker from the run id and the step; the same "
                       "key is used by every attempt.",
        "resumeProtocol": "Unresolved intents are looked up at the provider by key; a charge "
                          "that is found is recorded, one that is not is resent with the same "
                          "key.",
        "tradeOff": "Latency is added by the extra durable write."},
     {"passed": True, "why": "passive voice", "voice": "plain"}),
    ("t19-good-spanish-2", {
        "checkpoint": "Primero guardamos the intent in the journal, before calling the provider;"
                      " after the response we guardamos the result.",
        "idempotency": "The key is the hash of run id and step, always the same in the retries.",
        "resumeProtocol": "If there is intent without result, we consult the provider by the "
                          "key; if the charge exists we record it, if not we send it again with "
                          "the same key.",
        "failureMode": "Each call has one more write, so a little more latency."},
     {"passed": True, "why": "Spanish-English mix", "voice": "non-native"}),
    ("t19-good-event-sourcing", {
        "checkpoint": "PaymentRequested is appended to the event store and acknowledged before "
                      "the command handler calls the PSP; PaymentSucceeded is appended with the "
                      "charge id afterwards.",
        "idempotency": "The PSP key is the aggregate id plus the event's sequence number, both "
                       "stable, so replays send the same key.",
        "resumeProtocol": "When a stream ends in PaymentRequested, the handler queries the PSP "
                          "for a payment under that key; if one exists it appends "
                          "PaymentSucceeded, otherwise it calls the PSP again with the key.",
        "tradeOff": "An extra event append per payment."},
     {"passed": True, "why": "event sourcing words", "voice": "event-log"}),

    # ---- t20: right in three fields, wrong in one, written before running (stop s4) ---------
    ("t20-bad-visibility-timeout-blind", {
        "checkpoint": "A 'charging' record is committed before the message is handed to the "
                      "worker; the worker writes the receipt to it afterwards.",
        "idempotency": "The key is sha256(run_id, step), carried in the message.",
        "resumeProtocol": "When the visibility timeout expires the broker redelivers the "
                          "message and the worker simply charges again with the key.",
        "failureMode": "Redeliveries cost an extra charge request each."},
     {"passed": False, "why": "redelivery resends without a lookup (duplicates past 24 h)",
      "voice": "queue"}),
    ("t20-bad-checkpoint-every-10s", {
        "checkpoint": "The whole agent state is pickled to disk every ten seconds.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "tradeOff": "A pickle every ten seconds."},
     {"passed": False, "why": "a periodic snapshot misses charges between snapshots", "voice":
      "plain"}),
    ("t20-bad-key-from-response", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "We use the charge id the provider returns as our key for later calls.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the key.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "no key exists before the first reply", "voice": "plain"}),
    ("t20-bad-resume-from-top", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "A crashed run is started again from the first step, as a new run.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "starting over as a new run ignores the journal", "voice":
      "plain"}),
    ("t20-good-wal-2pc-plain", {
        "checkpoint": "Like a database WAL: the 'prepare' record is forced to disk, then the "
                      "provider is called, then the 'commit' record with its answer is written.",
        "idempotency": "The request id is a pure function of run and step, so a redo sends "
                       "the same id.",
        "resumeProtocol": "A prepare without a commit is in doubt: ask the provider for the "
                          "outcome under that id; commit it if found, redo with the same id if "
                          "not.",
        "failureMode": "An in-doubt step blocks while the provider's status API is down."},
     {"passed": True, "why": "WAL/2PC words", "voice": "outbox"}),

    # ---- t21: a last mixed batch, written before running, measured once (stop s4) -----------
    ("t21-good-kotlin", {
        "checkpoint": "journal.write(Intent(runId, step, amount, key)).sync() happens before "
                      "psp.charge(amount, key); journal.write(Result(chargeId)) after it.",
        "idempotency": "val key = sha256(\"$runId:$step\") - stable, never regenerated.",
        "resumeProtocol": "openIntents().forEach { val c = psp.findByKey(it.key); if (c != null)"
                          " record(c) else psp.charge(it.amount, it.key) }",
        "tradeOff": "A synced journal write per charge."},
     {"passed": True, "why": "Kotlin-ish code", "voice": "code"}),
    ("t21-good-plain-short", {
        "checkpoint": "Write down the planned charge, wait until it is on disk, then charge; "
                      "write down the receipt after.",
        "idempotency": "The charge's key is the run id joined with the step name; it never "
                       "changes.",
        "resumeProtocol": "Planned but no receipt: ask the provider about that key first, then "
                          "either write down its receipt or charge again with the same key.",
        "tradeOff": "Charging waits for the disk each time."},
     {"passed": True, "why": "plain short sentences", "voice": "terse"}),
    ("t21-good-italian-2", {
        "checkpoint": "Prima of the call we save the intent in the database with commit, after "
                      "the call we save the result.",
        "idempotency": "The key come from run id and step, is always the same for the retries.",
        "resumeProtocol": "If we find intent without result we ask to the provider with the key;"
                          " if the charge is there we save it, otherwise we repeat the charge "
                          "with the same key.",
        "failureMode": "More one write for each call, so it is a bit slower."},
     {"passed": True, "why": "Italian-English mix", "voice": "non-native"}),
    ("t21-good-queue-sqs", {
        "checkpoint": "The worker commits a 'charging' row before calling the PSP and deletes "
                      "the SQS message only after the receipt row is committed.",
        "idempotency": "PSP key = sha256(run_id/step); a redelivered message yields the same "
                       "key.",
        "resumeProtocol": "A redelivered message whose row says 'charging' first looks the "
                          "charge up at the PSP by key; found: write the receipt; not found: "
                          "charge with the same key.",
        "failureMode": "If the message's visibility timeout is shorter than a slow PSP call, "
                       "two workers can hold it; the shared key keeps that to one charge "
                       "within 24 h, and an extra lookup each time."},
     {"passed": True, "why": "SQS words", "voice": "queue"}),
    ("t21-bad-cached-key", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "A random key is cached in the worker's memory for the step and reused "
                       "while the worker lives.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the key.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "a restart loses the cached key", "voice": "qualifier"}),
    ("t21-bad-optimistic", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "We assume an open intent failed and simply send it again with the "
                          "same key.",
        "failureMode": "A resend costs an extra request."},
     {"passed": False, "why": "blind resend; duplicates past 24 h, not named", "voice":
      "plain"}),
    ("t21-bad-stuffed-colon-list", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Strategy: reconcile, lookup, replay, escalate, compensate.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "contradiction": True, "why": "a labelled word list", "voice":
      "stuffed"}),
    ("t21-bad-contra-snapshot-and-intent", {
        "checkpoint": "We journal an intent before each charge. The journal is only a snapshot "
                      "taken every minute, though.",
        "idempotency": "Key derived from run id and step, reused on every attempt.",
        "resumeProtocol": "Look the charge up by key; record it, or resend with the same key.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "contradiction": True, "why": "intent per charge vs a minutely snapshot",
      "voice": "contradicting"}),
    # == issue 17, stop s11: the classes HELDOUT11's misses showed, in other words ==========
    # (1) the past-retention branch said as "if older" / "otherwise" / "else", the age as a
    # comparison ("age < 24 h", "elapsed < 86400")
    ("t22-good-within-if-older", {
        "checkpoint": "The charge's intent is committed to the journal before the request, its "
                      "answer after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "A pending charge is resent with its key when it is less than 24 hours "
                          "old; if it is older, on-call gets a ticket and nothing is resent.",
        "tradeOff": "Past a day every open charge becomes a ticket, even one that never left; "
                    "one more write per call."},
     {"passed": True, "why": "retry within retention, the past branch said 'if it is older'",
      "voice": "plain"}),
    ("t22-good-within-elapsed-comparison", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "elapsed = now - intent.created\nelapsed < 86400 -> resend with "
                          "intent.key\nelse -> mark UNCERTAIN for an operator",
        "failureMode": "Recovered after a day, a charge cut in W2-W4 waits for an operator; one "
                       "more journal write per call."},
     {"passed": True, "why": "retry within retention as a comparison in seconds, past it 'else'",
      "voice": "pseudo-code"}),
    ("t22-bad-within-otherwise-resend-too", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "If the open charge is under 24 h old we resend it with its key; "
                          "otherwise we resend it too, with the same key.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "resent at any age: past 24 h a W3/W4 resend charges twice, not "
      "named", "voice": "plain"}),
    ("t22-bad-within-comparison-both-resend", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "age < 24 h -> resend with the same key; age >= 24 h -> resend with "
                          "the same key as well",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "both branches resend: a blind retry, duplicates past 24 h not "
      "named", "voice": "terse"}),
    # (2) a key made once and carried in an event, a message or the history
    ("t22-good-stored-guid-in-message", {
        "checkpoint": "The PaymentRequested message is committed to the outbox before anything "
                      "is sent to the provider; the reply is committed when it arrives.",
        "idempotency": "The token is a GUID drawn when the PaymentRequested message is first "
                       "published; it travels inside that message, and every redelivery copies it "
                       "from the message instead of drawing another.",
        "resumeProtocol": "A request without a reply is looked up at the provider by its token: "
                          "found, record it; not found, resend with the same token; past 24 h "
                          "escalate to an operator instead.",
        "tradeOff": "An outbox write before every call, and late recoveries go to an operator."},
     {"passed": True, "why": "stored key carried in the outbox message, lookup, escalation",
      "voice": "outbox"}),
    ("t22-good-stored-key-evaluated-once", {
        "checkpoint": "append(Started(step, args, key)); fsync; then call the provider; "
                      "append(Finished(step, reply)).",
        "idempotency": "key = uuid4() is evaluated once, when the step's Started entry is "
                       "appended; the key is part of that entry and every resend reads it from "
                       "there.",
        "resumeProtocol": "For a Started without Finished, look the key up at the provider; hit: "
                          "append Finished; miss: resend with the same key; after 24 h: flag it "
                          "for a human.",
        "failureMode": "One fsync per call, and a run resumed after a day may wait for a human."},
     {"passed": True, "why": "a uuid made once and kept in the Started entry", "voice":
      "event-log"}),
    ("t22-bad-stored-guid-drawn-each-time", {
        "checkpoint": "The PaymentRequested message is committed to the outbox before anything "
                      "is sent to the provider; the reply is committed when it arrives.",
        "idempotency": "The token is a GUID drawn each time the PaymentRequested message is "
                       "published and carried in its header.",
        "resumeProtocol": "A request without a reply is looked up at the provider by its token: "
                          "found, record it; not found, resend it.",
        "tradeOff": "An outbox write before every call."},
     {"passed": False, "why": "a new token per publish: the lookup asks for a key the provider "
      "never saw", "voice": "outbox"}),
    ("t22-bad-uuid-per-attempt-in-event", {
        "checkpoint": "append(Started(step, args)); fsync; then call the provider; "
                      "append(Finished(step, reply)).",
        "idempotency": "A uuid is generated for each attempt and carried in that attempt's "
                       "AttemptStarted event.",
        "resumeProtocol": "For a Started without Finished, resend it.",
        "failureMode": "One fsync per call."},
     {"passed": False, "why": "a fresh key per attempt, kept in an event, still new on every "
      "retry: W3/W4 charge twice", "voice": "event-log"}),
    # (3) our own reference the provider stores and lets us search by: a client reference
    ("t22-good-ref-filter-on-it", {
        "checkpoint": "An intent row is committed before each charge request and the PSP's "
                      "answer after it.",
        "idempotency": "No dedup keys exist at this PSP. We attach our own reference (order id "
                       "and step) to each charge; the PSP keeps it on the charge and we can "
                       "filter charges on it at any age.",
        "resumeProtocol": "Before any resend, list the charges filtered on that reference; adopt "
                          "a match, and send the charge only if there is none.",
        "tradeOff": "An extra list call per open intent, and the PSP itself never rejects a "
                    "second charge, so that call must never be skipped."},
     {"passed": True, "why": "client reference searched before any resend: clean even late",
      "voice": "plain"}),
    ("t22-good-ref-kept-forever", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "The provider ignores duplicates entirely; what it does keep is our "
                       "reference string '<run>:<step>' on each payment, and it lets us look "
                       "payments up by that reference for ever.",
        "resumeProtocol": "An intent without a result: search the provider for the reference; "
                          "record a hit, and charge (with the same reference) only on a miss.",
        "failureMode": "A search per unfinished charge when resuming; the provider accepts a "
                       "second charge, so the search is what keeps us safe."},
     {"passed": True, "why": "client reference and a search before resend", "voice": "plain"}),
    ("t22-bad-ref-resent-blind", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Our own reference (run and step) goes on each charge, which the "
                       "provider stores and lets us search by.",
        "resumeProtocol": "Open intents are sent again with the same reference.",
        "failureMode": "One more journal write per call."},
     {"passed": False, "why": "a reference is not deduplicated: a blind resend after W3 charges "
      "twice at once", "voice": "plain"}),
    # (4) a key written as code among mechanism words is a composition, not stuffing
    ("t22-good-key-code-hmac", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "effect_key = hmac_sha256(secret, f'{run_id}:{step}:{digest(args)}'); "
                       "replaying the journal recomputes the identical effect key.",
        "resumeProtocol": "An intent without a result is looked up at the provider by that key; "
                          "found: record it; missing: resend with the same key; after 24 h: "
                          "escalate to an operator.",
        "failureMode": "One more journal write per call; late recoveries go to an operator."},
     {"passed": True, "why": "a derived key written as code next to 'replaying', 'same key'",
      "voice": "code"}),
    ("t22-bad-key-code-no-args-stuffed", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "k = uuid4()  # idempotent, deduplicated, exactly-once, "
                       "collision-free",
        "resumeProtocol": "An intent without a result is looked up at the provider by that key; "
                          "found: record it; missing: resend with the same key.",
        "failureMode": "One more journal write per call."},
     {"passed": False, "contradiction": True, "why": "a bare uuid4() and a list of adjectives: "
      "nothing says what the key is made of", "voice": "stuffed"}),
    ("t22-bad-key-code-time", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "key = sha256(run_id + str(time.time()))  # deterministic, replay-safe, "
                       "same key",
        "resumeProtocol": "An intent without a result is looked up at the provider by its key; "
                          "missing: resend it.",
        "failureMode": "One more journal write per call."},
     {"passed": False, "why": "the clock is part of the key: every attempt sends a new one",
      "voice": "code"}),
    # (5) the send time inside the key, in code or in words
    ("t22-bad-key-attempted-at", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Idempotency-Key: hmac(secret, run_id + '/' + step + '/' + attemptedAt), "
                       "stable for a given attempt.",
        "resumeProtocol": "Open intents are looked up at the provider by key; if none is found "
                          "they are resent.",
        "failureMode": "A lookup per open intent."},
     {"passed": False, "why": "the attempt's time is in the key: each attempt sends a new one",
      "voice": "stripe-headers"}),
    ("t22-bad-key-hashed-with-send-time", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "The key is the order id hashed together with the time the request is "
                       "sent, so two orders never share a key.",
        "resumeProtocol": "Open intents are looked up at the provider by key; if none is found "
                          "they are resent.",
        "failureMode": "A lookup per open intent."},
     {"passed": False, "why": "the send time in the key: a resend carries another key",
      "voice": "plain"}),
    ("t22-good-key-send-time-only-logged", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "sha256(order_id + ':' + step_name), computed the same way on every "
                       "attempt; the send time is logged next to it but is not part of it.",
        "resumeProtocol": "Open intents are looked up at the provider by key; if none is found "
                          "they are resent with the same key, and after 24 h an operator "
                          "decides instead.",
        "failureMode": "A lookup per open intent; past 24 h an operator decides."},
     {"passed": True, "why": "the send time is beside the key, not in it", "voice": "code"}),
    # (6) a resend "under a freshly generated key" against a key that never changes
    ("t22-bad-resend-newly-minted-key", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look the open intent up by key; if the provider has no record, we "
                          "resend it under a newly minted key.",
        "failureMode": "A lookup per open intent; past 24 h an operator decides."},
     {"passed": False, "contradiction": True, "why": "the resend's new key contradicts the derived key",
      "voice": "contradicting"}),
    ("t22-bad-resubmit-another-random-token", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "A uuid made once per operation and stored in the intent row.",
        "resumeProtocol": "Ask the provider about the stored uuid; when it knows nothing, "
                          "resubmit the charge with another random token.",
        "failureMode": "A lookup per open intent; past 24 h an operator decides."},
     {"passed": False, "contradiction": True, "why": "the resubmit's new token contradicts the stored key",
      "voice": "contradicting"}),
    ("t22-good-resend-never-under-fresh-key", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look the open intent up by key; if missing, resend it under the same "
                          "key, never under a freshly generated key; past 24 h escalate to an "
                          "operator.",
        "failureMode": "A lookup per open intent; past 24 h an operator decides."},
     {"passed": True, "why": "the fresh key is named only to be ruled out", "voice": "plain"}),
    # (9) a trade-off said as a burden: "no one can rebuild it", "support has to search"
    ("t22-good-burden-no-one-can-rebuild", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "A random key made once per operation and stored in the intent row; "
                       "resends read it back.",
        "resumeProtocol": "Look the open intent up by its stored key; record a hit, resend on a "
                          "miss with that key; past 24 h escalate to an operator.",
        "tradeOff": "Since the key is random, no one can rebuild it from the order; on-call "
                    "must dig it out of the journal to match a charge."},
     {"passed": True, "why": "a stored key's true burden", "voice": "plain"}),
    ("t22-good-burden-support-has-to-search", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Each charge carries our client reference (run id and step); the "
                       "provider stores it and can be searched by it, but does not dedup on it.",
        "resumeProtocol": "Search the provider by the reference before any resend; adopt a "
                          "match, send only when there is none.",
        "tradeOff": "Support has to search the provider by reference whenever a customer asks "
                    "about a payment."},
     {"passed": True, "why": "client reference and search: clean; the burden is a true cost",
      "voice": "plain"}),
    ("t22-bad-burden-blind-resend", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Open intents are resent with the same key.",
        "tradeOff": "Support has to read the key from the journal to find a charge."},
     {"passed": False, "why": "blind resend: duplicates past 24 h, not named", "voice":
      "plain"}),
    # (7) a failure mode that says it finds none: "could not find any downside"
    ("t22-bad-none-seen-no-downside", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look the open intent up by key; record a hit, resend on a miss with "
                          "the same key; past 24 h escalate to an operator.",
        "failureMode": "To be honest we could not find any downside: the intent, the key and "
                       "the lookup cover every window."},
     {"passed": False, "why": "no cost named (there is the extra write, the late escalation)",
      "voice": "hedged"}),
    ("t22-bad-none-seen-single-drawback", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look the open intent up by key; record a hit, resend on a miss with "
                          "the same key; past 24 h escalate to an operator.",
        "tradeOff": "I don't think of a single drawback or cost; it looks safe to me."},
     {"passed": False, "why": "says it has no drawback: the late escalation and the write are "
      "real", "voice": "hedged"}),
    ("t22-good-none-seen-cheaper-way", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look the open intent up by key; record a hit, resend on a miss with "
                          "the same key; past 24 h escalate to an operator.",
        "tradeOff": "I can't see a cheaper way: the price is one synchronous write per call, and "
                    "late recoveries go to an operator."},
     {"passed": True, "why": "'can't see a cheaper way', then the true costs", "voice":
      "hedged"}),
    # (8) an operator's hand-off is not a claimed wrong result
    ("t22-good-orphan-until-on-call", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look the open intent up by key; record a hit, resend on a miss with "
                          "the same key; past 24 h escalate to an operator.",
        "failureMode": "A charge left without its booking for more than a day stays orphaned "
                       "until on-call handles it; one more write per call."},
     {"passed": True, "why": "the orphan is the escalated late recovery, handed to on-call",
      "voice": "plain"}),
    ("t22-bad-orphan-claimed", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look the open intent up by key; record a hit, resend on a miss with "
                          "the same key; past 24 h escalate to an operator.",
        "failureMode": "Now and then a charge is orphaned, with no booking behind it; that is "
                       "the price."},
     {"passed": False, "why": "claims a wrong result the sweep never shows", "voice": "plain"}),
    # (10) a lookup only the other provider has is not the charge's resume protocol
    ("t22-bad-lookup-only-at-airline", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Reservations are confirmed through the airline's status endpoint. "
                          "Unpaid charges without a receipt are sent again with the same key.",
        "failureMode": "An extra call per open charge."},
     {"passed": False, "why": "the charge is resent blind; duplicates past 24 h, not named",
      "voice": "two-providers"}),
    ("t22-bad-lookup-only-booking-service", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Only the booking service can be searched, so open bookings are looked "
                          "up there; open charges are resent with the same key whenever we come "
                          "back.",
        "tradeOff": "A search per open booking."},
     {"passed": False, "why": "the charge is resent blind; duplicates past 24 h, not named",
      "voice": "two-providers"}),
    ("t22-good-lookup-at-both-providers", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "The hotel API and the PSP both have a lookup: every open call is "
                          "looked up by its key first; a miss is resent with the same key; after "
                          "24 h it goes to an operator.",
        "tradeOff": "A lookup per open call, and late recoveries wait for an operator."},
     {"passed": True, "why": "both providers are asked before any resend", "voice":
      "two-providers"}),
    # (11) the key described in another field, the idempotency field saying "that key"
    ("t22-good-key-in-checkpoint-field", {
        "checkpoint": "Before the call we commit an intent row holding the idempotency key, which "
                      "is sha256 of the run id and the step; the reply is committed after.",
        "idempotency": "The PSP dedups on this key for 24 h, and this key is also what we query "
                       "it by.",
        "resumeProtocol": "An intent without a reply is queried by key at the PSP: found, record "
                          "it; missing, resend with the same key; past 24 h, escalate to an "
                          "operator.",
        "tradeOff": "One more commit per call; late recoveries go to an operator."},
     {"passed": True, "why": "derived key said in the checkpoint field, 'this key' in "
      "idempotency", "voice": "mechanism in the wrong field"}),
    ("t22-bad-fresh-key-in-checkpoint-field", {
        "checkpoint": "Before each attempt we commit an intent row holding a fresh random "
                      "idempotency key for that attempt; the reply is committed after.",
        "idempotency": "The PSP dedups on that key for 24 h.",
        "resumeProtocol": "An intent without a reply is queried by key at the PSP: found, record "
                          "it; missing, resend.",
        "tradeOff": "One more commit per call."},
     {"passed": False, "why": "the key the checkpoint describes is new per attempt", "voice":
      "mechanism in the wrong field"}),
    ("t22-bad-that-key-nowhere-said", {
        "checkpoint": "An intent row with the idempotency key is committed before the call, the "
                      "result after.",
        "idempotency": "The provider deduplicates on that key.",
        "resumeProtocol": "An intent without a result is queried by key at the provider; if "
                          "missing it is resent with the same key.",
        "tradeOff": "One more commit per call."},
     {"passed": False, "why": "no field says what the key is made of", "voice":
      "content-free"}),
    # -- t23 (stop s12): the coordinator's attacks on the merged reader, then HELDOUT12B's
    # classes after its one measurement, each in words other than the corpus's
    # (A) a resend said to go out past the key's retention, after a lookup
    ("t23-bad-lookup-then-resend-past-a-day", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Each open charge is looked up by its key; when nothing is found it is "
                          "sent again with the same key, also when the intent is older than a "
                          "day.",
        "tradeOff": "One lookup per open charge on recovery."},
     {"passed": False, "why": "past 24 h the provider forgot the key: the resend charges twice",
      "voice": "plain"}),
    ("t23-bad-lookup-resend-regardless-of-age", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Query the PSP by key; missing -> resend with that key, regardless of "
                          "how old the intent is.",
        "tradeOff": "One query per open charge."},
     {"passed": False, "why": "resent at any age: a W3/W4 crash recovered after 25 h charges "
      "twice", "voice": "terse"}),
    ("t23-bad-lookup-both-age-branches-resend", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "We ask the provider about each open charge by key. If it has none and "
                          "the charge is under 24 h old we resend with the same key; else we "
                          "resend with the same key as well.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "both branches resend: past 24 h a duplicate", "voice": "plain"}),
    ("t23-bad-downtime-does-not-matter", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "get_charge(key): found -> store the receipt; missing -> resend(key). "
                          "Since we always ask first, the length of the outage never matters.",
        "tradeOff": "A round trip per recovered call."},
     {"passed": False, "why": "'how long we were down never matters': resends past 24 h",
      "voice": "code"}),
    ("t23-good-lookup-resend-young-escalate-old", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Each open charge is looked up by its key; if nothing is found and it is "
                          "younger than a day it is resent with the same key, and when it is "
                          "older an operator settles it instead.",
        "tradeOff": "Past a day a person has to settle each open charge."},
     {"passed": True, "why": "lookup, resend within retention, escalate past it", "voice":
      "plain"}),
    # (B) mechanism words passed as a call's arguments
    ("t23-bad-stuffed-call-arguments", {
        "checkpoint": "persist(intent, journal, wal, fsync)",
        "idempotency": "make_key(uuid, stored, derived, deterministic)",
        "resumeProtocol": "recover(replay, lookup, reconcile, escalate)",
        "failureMode": "risk(duplicate, W3, retention)"},
     {"passed": False, "why": "mechanism words as arguments, no design", "voice": "stuffed",
      "contradiction": True}),
    # (C) the intent's age said as a number; (D) "below" the window
    ("t23-good-ages-as-numbers", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "A charge intent that is 3 hours old and has no result is resent with "
                          "its key; one that is 2 days old is never resent, it is parked for a "
                          "human.",
        "tradeOff": "No lookup first, so we depend on the provider's dedup; old ones need a "
                    "person."},
     {"passed": True, "why": "retry within retention by example ages, escalate past it",
      "voice": "event-log"}),
    ("t23-bad-ages-as-numbers-both-resent", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "A charge intent that is 3 hours old and has no result is resent with "
                          "its key; one that is 2 days old is resent with its key too.",
        "tradeOff": "One more journal write per call."},
     {"passed": False, "why": "the 2-day-old intent is resent: past retention a duplicate",
      "voice": "event-log"}),
    ("t23-good-below-the-window", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Open charges below the provider's 24 h key window are resent with the "
                          "recorded key. Those past the window are not resent; they go to the "
                          "on-call queue.",
        "failureMode": "Correctness inside the window rests on the provider's dedup; past it, a "
                       "person resolves it."},
     {"passed": True, "why": "retry within retention said 'below the window'", "voice":
      "formal-spec"}),
    # (E) "stuck with" a kind of provider; (F) "we'd have to" is a hypothetical
    ("t23-good-stuck-with-searchable-gateways", {
        "checkpoint": "The intent, with our order reference, is committed before the charge; the "
                      "receipt after.",
        "idempotency": "Our own order reference, made from run id and step, is stored on the "
                       "charge by the gateway, which lets us search by it.",
        "resumeProtocol": "For an open intent, search the gateway by that reference: found, keep "
                          "that receipt; not found, charge again with the same reference.",
        "tradeOff": "A search per recovered charge, and we are stuck with gateways that offer "
                    "search by reference; without that we'd have to page someone instead."},
     {"passed": True, "why": "client reference with lookup; 'stuck with gateways' is a limit, "
      "not a stuck run", "voice": "casual"}),
    # (G) a key drawn "one time"
    ("t23-good-uuid-drawn-one-time", {
        "checkpoint": "Intent row committed before the request, result row after.",
        "idempotency": "We draw a random uuid a single time, together with the intent, and keep "
                       "it in that row; every retry sends that uuid.",
        "resumeProtocol": "Open intents are looked up by that uuid; found, record it; not found "
                          "and under 24 h old, resend with it; older, escalate to an operator.",
        "failureMode": "Each call costs one extra write before it goes out."},
     {"passed": True, "why": "stored key drawn once, with lookup", "voice": "casual"}),
    # (I) a lookup a person makes is an escalation
    ("t23-bad-support-looks-it-up", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "An open charge is left alone by the worker; support then looks it up "
                          "on the PSP dashboard and decides what to do.",
        "tradeOff": "Slow, a person handles every crash, but never wrong."},
     {"passed": False, "why": "every open charge escalated, even at once: stuck runs", "voice":
      "casual"}),
    ("t23-good-worker-looks-up-operator-past-a-day", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "The worker looks each open charge up by key: found, record it; missing "
                          "and under 24 h, resend with the same key; past 24 h an operator checks "
                          "the dashboard and decides.",
        "tradeOff": "Past a day a person has to decide."},
     {"passed": True, "why": "the runtime's lookup; only past retention a person", "voice":
      "plain"}),
    # -- t24 (stop s12): HELDOUT13's classes after its one measurement, in other words
    ("t24-good-it-hangs-on-the-endpoint", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Open charges are looked up by key; found, record it; missing and under "
                          "24 h, resend with the same key; older, escalate to an operator.",
        "tradeOff": "It all hangs on the provider's lookup endpoint being reachable; one extra "
                    "call per open charge."},
     {"passed": True, "why": "'hangs on' is a dependency, not a hung run", "voice": "casual"}),
    ("t24-good-reconcile-through-resending", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "There is no lookup, so we reconcile through resending: an open charge "
                          "goes out again with its key while it is under 24 h old; past that it "
                          "is never resent and an operator settles it.",
        "tradeOff": "Every recovery inside the window is a real request."},
     {"passed": True, "why": "retry within retention; 'reconcile through resending' is no "
      "lookup", "voice": "plain"}),
    ("t24-good-after-this-point-escalate", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "We send it again with the same key while the provider still knows "
                          "keys (one day). After this point we stop and hand the run to on-call.",
        "tradeOff": "Long outages end with a person."},
     {"passed": True, "why": "retry within retention, the past branch 'after this point'",
      "voice": "non-native"}),
    ("t24-bad-resend-weeks-later-too", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look the charge up by its key; when it is missing, resend it with "
                          "that key, even if the run stopped weeks ago.",
        "tradeOff": "A lookup per open charge."},
     {"passed": False, "why": "resent weeks later, past the 24 h retention: a duplicate",
      "voice": "plain"}),
    ("t24-good-redelivered-within-a-day", {
        "checkpoint": "The outbox row with its key is committed with the order, before the worker "
                      "calls the PSP; the reply is written back to the row.",
        "idempotency": "A uuid made when the row is inserted and stored in it; every delivery "
                       "uses it.",
        "resumeProtocol": "Rows with no reply are redelivered with their key only while they are "
                          "younger than 24 h; older rows are not redelivered, an operator takes "
                          "them.",
        "tradeOff": "No lookup: every redelivery is a real request."},
     {"passed": True, "why": "outbox, stored key, retry within retention", "voice": "outbox"}),
    ("t24-good-reference-they-let-us-find", {
        "checkpoint": "The intent, with our reference, is committed before the charge; the "
                      "result after.",
        "idempotency": "The PSP offers no idempotency key; each charge carries our reference, "
                       "which the PSP keeps and lets us find.",
        "resumeProtocol": "An open intent is not resent right away: first we find the charge by "
                          "that reference, record it if it is there, resend only if it is not.",
        "tradeOff": "One search per open intent."},
     {"passed": True, "why": "client reference with a lookup before the resend", "voice":
      "plain"}),
    ("t24-good-code-reads-row-key", {
        "checkpoint": "row = journal.insert_intent(args)  # committed, then the call",
        "idempotency": "row.key = uuid4() at insert time; retries use the row key and never "
                       "generate a new uuid again",
        "resumeProtocol": "hit = psp.lookup(row.key); if hit: record(hit) elif row.age < 24h: "
                          "send(row) else: escalate(row)",
        "tradeOff": "The key cannot be recomputed, so it lives only in the row."},
     {"passed": True, "why": "stored key read from the row, lookup, escalate past 24 h", "voice":
      "code"}),
    ("t24-good-risk-two-workers-race", {
        "checkpoint": "Intent with our reference committed before the charge, result after.",
        "idempotency": "Our own reference, from run id and step, stored on the charge by the "
                       "provider, which we can search by.",
        "resumeProtocol": "Search by the reference first; found, keep it; not found, charge "
                          "again with the same reference.",
        "failureMode": "If two workers pick up the same open intent concurrently, both searches "
                       "miss and the card is charged twice."},
     {"passed": True, "why": "a true risk the sweep does not model (a race)", "voice": "plain"}),
    ("t24-bad-safe-design-claims-w3-double", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Open charges are looked up by key; found, record it; missing and under "
                          "24 h, resend with the same key; older, escalate to an operator.",
        "failureMode": "A crash in W3 charges the customer twice."},
     {"passed": False, "why": "claims a duplicate the design does not have, with no cause "
      "outside the sweep", "voice": "plain"}),
    ("t24-bad-retry-count-in-key-code", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "idem = f\"{order_id}:{retry_count}\"",
        "resumeProtocol": "if psp.get(idem) is None: psp.charge(idem)",
        "tradeOff": "A lookup per open charge."},
     {"passed": False, "why": "the retry count is in the key: a new key per attempt", "voice":
      "code"}),
    ("t24-good-does-not-eliminate-people", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Open charges are looked up by key; found, record it; missing and under "
                          "24 h, resend with the same key; older, escalate to an operator.",
        "failureMode": "This does not eliminate the on-call person: a charge open for over a "
                       "day still lands with them."},
     {"passed": True, "why": "'does not eliminate' keeps the person: the late escalation",
      "voice": "plain"}),
    ("t24-good-initially-result-only-now-intent", {
        "checkpoint": "Initially I only stored the result, which was a mistake. The intent is now "
                      "committed before the charge and the result after.",
        "idempotency": "Originally a new uuid per request; I replaced that. The key is now "
                       "derived from run id and step and never changes.",
        "resumeProtocol": "Open charges are looked up by key; found, record it; missing and under "
                          "24 h, resend with the same key; older, escalate to an operator.",
        "tradeOff": "One more write per call."},
     {"passed": True, "why": "drafts the learner says they changed are not the design", "voice":
      "contradicting"}),
    ("t24-bad-failure-says-key-is-new", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Open charges are looked up by key; found, record it; missing and under "
                          "24 h, resend with the same key; older, escalate to an operator.",
        "failureMode": "The key is a new random token each time, so a W4 retry may charge "
                       "twice."},
     {"passed": False, "why": "the failure mode's key contradicts the derived key", "voice":
      "contradicting", "contradiction": True}),
    # -- t25 (stop s12): HELDOUT14's classes after its one measurement, in other words
    ("t25-good-ref-search-lag-2nd-charge", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Our own reference, from run id and step, is stored on each charge by the "
                       "PSP, which lets us search by it; it does not dedupe on it.",
        "resumeProtocol": "Search the PSP by the reference for each open intent: hit, keep it; "
                          "miss, send it.",
        "failureMode": "If the PSP's index is stale, a miss becomes a 2nd charge."},
     {"passed": True, "why": "a true risk outside the sweep ('stale' index), said '2nd charge'",
      "voice": "terse"}),
    ("t25-good-reconciliation-done-by-resending", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "A uuid generated once with the intent and stored in it; retries read it "
                       "back.",
        "resumeProtocol": "Reconciliation is carried out by resending with the stored key; this "
                          "is only done while the intent is under 24 h old. Older ones go to an "
                          "operator, never resent.",
        "tradeOff": "The resend must carry the same parameters; late ones need a person."},
     {"passed": True, "why": "retry within retention, its condition in the next clause", "voice":
      "formal-spec"}),
    ("t25-good-code-send-call-in-resume", {
        "checkpoint": "journal.append(intent); journal.sync()  # before the request",
        "idempotency": "key = sha256(run_id, step, args) -- the same on every attempt",
        "resumeProtocol": "for i in open_intents(): post(i.key) if i.age < ttl else page_oncall(i)",
        "tradeOff": "# one sync per call; past the ttl a person decides"},
     {"passed": True, "why": "a same-key post inside the ttl, a person past it (code)", "voice":
      "code"}),
    ("t25-good-events-no-automatic-resend", {
        "checkpoint": "ChargeRequested is appended (committed) before the call; ChargeSettled "
                      "after.",
        "idempotency": "Key derived from the workflow id and the step number.",
        "resumeProtocol": "The replay finds ChargeRequested with nothing after it. Inside the "
                          "provider's 24 h window, re-issue with that key. Otherwise flag it for "
                          "review; no automatic resend.",
        "failureMode": "Late recoveries land in the review queue, even ones that never reached "
                       "the provider."},
     {"passed": True, "why": "retry within retention; 'the replay finds' is our own journal; a "
      "review queue is the escalation", "voice": "event-log"}),
    ("t25-bad-events-resend-regardless", {
        "checkpoint": "ChargeRequested is appended (committed) before the call; ChargeSettled "
                      "after.",
        "idempotency": "Key derived from the workflow id and the step number.",
        "resumeProtocol": "The replay finds ChargeRequested with nothing after it and re-issues "
                          "it with that key.",
        "failureMode": "One extra append per call."},
     {"passed": False, "why": "resent at any age without a lookup: a duplicate after 25 h",
      "voice": "event-log"}),
    # -- t26 (stop s13): HELDOUT15's classes after its one measurement (15/21 good passed, 19/21
    # bad failed), each in words other than the corpus's
    # (A) the double negation "never send before asking", the asking verb in other words
    ("t26-good-never-send-before-consulting", {
        "checkpoint": "The pending charge row, key included, is committed before the PSP is "
                      "called; the PSP's answer is committed after.",
        "idempotency": "Key derived from the run id and the step index; every retry sends it "
                       "unchanged.",
        "resumeProtocol": "After a restart we never resubmit before consulting the PSP about that key: "
                          "a charge it knows becomes our result, an unknown key inside 24 h is "
                          "resent as is, older ones go to an operator.",
        "tradeOff": "One PSP round trip per open row at restart; late rows wait for a person."},
     {"passed": True, "why": "lookup before any resend (double negation), retention respected",
      "voice": "plain"}),
    ("t26-good-never-resend-before-searching-ref", {
        "checkpoint": "Intent journaled with its reference before the charge request; the "
                      "confirmation journaled after.",
        "idempotency": "A merchant reference made from the run and step, which the processor "
                       "stores and lets us search on; it does not dedupe on it.",
        "resumeProtocol": "On restart we don't resubmit before searching the processor for the "
                          "charge's reference; a hit is adopted, an empty search means it never "
                          "happened and we submit once more.",
        "failureMode": "Correctness hangs on that search; each open charge costs one search at "
                       "restart."},
     {"passed": True, "why": "client reference searched before any resend: clean at any age",
      "voice": "plain"}),
    ("t26-bad-never-resend-before-searching-own-log", {
        "checkpoint": "Intent journaled with its key before the charge request; the "
                      "confirmation journaled after.",
        "idempotency": "Key derived from the run and step, identical on every attempt.",
        "resumeProtocol": "We never resubmit before searching our own journal for the key; when "
                          "the journal shows no confirmation we submit again with it.",
        "failureMode": "One journal scan per restart."},
     {"passed": False, "why": "the search is our own journal, the provider is never asked: a "
      "same-key resend at any age charges twice after 25 h", "voice": "plain"}),
    # (B) the provider said not to be called while recovering, beside a lookup
    ("t26-bad-lookup-but-psp-untouched-on-restart", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, stable across retries.",
        "resumeProtocol": "Open intents are looked up by their key first. On a restart nobody "
                          "pings the PSP, mind you: the worker just replays what has no result.",
        "failureMode": "A lookup per open intent."},
     {"passed": False, "contradiction": True, "why": "a lookup and 'nobody pings the PSP on a "
      "restart' in one field: the resend is blind", "voice": "self-contradicting"}),
    ("t26-bad-reconcile-yet-no-provider-call-in-recovery", {
        "checkpoint": "Intent journaled before dispatch, result after.",
        "idempotency": "A key made once per operation and kept in the intent row.",
        "resumeProtocol": "Reconcile each open intent by key, then resend it. We don't hit the "
                          "gateway at all during recovery, so the resend is the only call.",
        "failureMode": "Reconciliation costs a lookup per open intent."},
     {"passed": False, "contradiction": True, "why": "reconciles and never calls the gateway "
      "during recovery: which is it?", "voice": "self-contradicting"}),
    ("t26-good-lookup-never-call-again-past-a-day", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, stable across retries.",
        "resumeProtocol": "Open intents are looked up by key at the PSP: a charge found is "
                          "recorded, a miss under 24 h is resent with the key; past 24 h we "
                          "never call the PSP again for it and page an operator.",
        "failureMode": "A lookup per open intent; late ones wait for the operator."},
     {"passed": True, "why": "'never call the PSP again' past retention is the escalation, not "
      "a denial of the lookup", "voice": "plain"}),
    # (C) the age of the intent said not to be looked at, after a lookup's miss is resent
    ("t26-bad-miss-resent-age-unchecked", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Every open intent is looked up by key; a miss is resent with that key, "
                          "and we don't look at when the intent was written.",
        "tradeOff": "One lookup per open intent."},
     {"passed": False, "why": "a miss resent at any age: past 24 h the provider forgot the key "
      "and a W3/W4 charge is made twice", "voice": "plain"}),
    ("t26-bad-miss-resent-timestamp-ignored", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Ask the provider by key. Not there: re-send with the same key, "
                          "without checking the intent's age, since the lookup already said no.",
        "tradeOff": "One lookup per open intent."},
     {"passed": False, "why": "'not found' trusted at any age: a duplicate after 25 h",
      "voice": "terse"}),
    ("t26-good-miss-resent-age-checked", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Every open intent is looked up by key; a miss is resent with that key "
                          "while the intent is under 24 h old, and past that it goes to an "
                          "operator.",
        "tradeOff": "One lookup per open intent; late ones need a person."},
     {"passed": True, "why": "the twin that checks the age", "voice": "plain"}),
    # (D) a resend said NOT to happen blindly, before the conditional same-key resend
    ("t26-good-not-blind-then-young-resend", {
        "checkpoint": "The intent goes in the journal, with the key, before the request; the "
                      "result after.",
        "idempotency": "Key derived from run id, step and a digest of the arguments.",
        "resumeProtocol": "An open intent is never retried on the spot. The worker resends it "
                          "with its stored key only while it is less than a day old; older ones "
                          "are parked for an operator.",
        "failureMode": "Parked intents hold the order until an operator looks."},
     {"passed": True, "why": "retry within retention after a negated blind retry", "voice":
      "plain"}),
    ("t26-good-not-resent-blindly-outbox", {
        "checkpoint": "An outbox row (key, body, sent_at NULL) is committed with the state "
                      "change; the relay sends it and writes the receipt into the row.",
        "idempotency": "The row's key is derived from the run, the step and the body digest.",
        "resumeProtocol": "Rows without a receipt aren't simply resubmitted: the relay "
                          "resubmits the row's key only while the row is younger than the "
                          "provider's retention; otherwise it flags the row for review.",
        "failureMode": "Flagged rows block their order until someone checks."},
     {"passed": True, "why": "retry within retention, a negated resend before it", "voice":
      "outbox"}),
    ("t26-bad-not-blind-then-young-resend-older-too", {
        "checkpoint": "The intent goes in the journal, with the key, before the request; the "
                      "result after.",
        "idempotency": "Key derived from run id, step and a digest of the arguments.",
        "resumeProtocol": "An open intent is never retried on the spot. The worker resends it "
                          "with its stored key while it is less than a day old; older ones are "
                          "resent too.",
        "failureMode": "One extra journal write per call."},
     {"passed": False, "why": "both branches resend: past 24 h a duplicate", "voice": "plain"}),
    # (E) a failure mode that says what waits, not what is lost: "until then not booked",
    # "sits unfinished"
    ("t26-good-until-then-room-unbooked", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, stable across retries.",
        "resumeProtocol": "Look every open intent up by key: found -> record; missing and under "
                          "24 h -> resend with the key; older -> hand it to support.",
        "failureMode": "Support settles late ones by hand. Until that happens the room is not "
                       "booked."},
     {"passed": True, "why": "the room waits for support: the escalation, not a lost booking",
      "voice": "plain"}),
    ("t26-good-booking-stays-pending", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, stable across retries.",
        "resumeProtocol": "Under 24 h old: resend the open charge with its key. Older: no "
                          "resend, raise a ticket for the on-call.",
        "failureMode": "Past a day the booking stays pending until the ticket is answered."},
     {"passed": True, "why": "a late run waits for a person: a true limit", "voice": "terse"}),
    ("t26-bad-never-booked-claimed", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, stable across retries.",
        "resumeProtocol": "Look every open intent up by key: found -> record; missing and under "
                          "24 h -> resend with the key; older -> hand it to support.",
        "failureMode": "A crash in W3 means the room is never booked."},
     {"passed": False, "why": "claims a lost booking the sweep never shows", "voice": "plain"}),
    ("t26-bad-blind-only-sits-unfinished", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, stable across retries.",
        "resumeProtocol": "Every open intent is resent with its key on restart.",
        "failureMode": "A restart leaves the order sitting unfinished for a moment."},
     {"passed": False, "why": "blind same-key resend charges twice after 25 h; the failure mode "
      "does not name it", "voice": "plain"}),
    # (F) a trade-off said as what correctness rests on; a lagged search; both workers charge
    ("t26-good-correctness-rests-on-search", {
        "checkpoint": "Intent (with the client reference) journaled before the charge; result "
                      "after.",
        "idempotency": "Client reference built from run and step; the provider keeps it and "
                       "lets us search by it, without deduplicating.",
        "resumeProtocol": "Search the provider by that reference for every open intent; adopt a "
                          "hit, charge again with the same reference on an empty result.",
        "failureMode": "It all hinges on the provider's search being complete."},
     {"passed": True, "why": "reference + search: clean at any age; the dependency is a true "
      "limit", "voice": "plain"}),
    ("t26-good-search-fell-behind", {
        "checkpoint": "Intent (with the client reference) journaled before the charge; result "
                      "after.",
        "idempotency": "Client reference built from run and step; the provider keeps it and "
                       "lets us search by it, without deduplicating.",
        "resumeProtocol": "Search the provider by that reference for every open intent; adopt a "
                          "hit, charge again with the same reference on an empty result.",
        "failureMode": "Should the provider's index ever fall behind its writes, an empty "
                       "result would be false and we would bill twice."},
     {"passed": True, "why": "a lagging index is outside the sweep", "voice": "plain"}),
    ("t26-bad-rests-on-search-but-no-search", {
        "checkpoint": "Intent (with the client reference) journaled before the charge; result "
                      "after.",
        "idempotency": "Client reference built from run and step; the provider keeps it and "
                       "lets us search by it, without deduplicating.",
        "resumeProtocol": "Every open intent is charged again with the same reference.",
        "failureMode": "Everything rests on the provider's search being accurate."},
     {"passed": False, "why": "a reference is not deduplicated: the resend charges twice in "
      "W3/W4, unnamed", "voice": "plain"}),
    # -- t26-attack (stop s13): a stranger's outlines the reader got wrong after HELDOUT15's
    # fixes, each fixed by a general rule
    # (G) a key that changes per attempt, said sideways: made "once" per try, a counter bumped
    # on every send, the client's request number, the name of the pod that sends it
    ("t26-attack-bad-uuid-once-per-attempt", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "A UUID generated once per attempt and sent as the idempotency key.",
        "resumeProtocol": "Look each open intent up by its key at the provider; found -> record; "
                          "missing under 24 h -> resend; older -> an operator.",
        "failureMode": "One lookup per open intent; late ones need a person."},
     {"passed": False, "why": "'once per attempt' is a new key on every attempt: the lookup asks "
      "for a key the first send never carried", "voice": "plain"}),
    ("t26-attack-bad-counter-bumped-per-send", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "sha256 of run id and step, plus a counter we bump on every send.",
        "resumeProtocol": "Look each open intent up by its key at the provider; found -> record; "
                          "missing under 24 h -> resend; older -> an operator.",
        "failureMode": "One lookup per open intent; late ones need a person."},
     {"passed": False, "why": "the counter changes the key on every attempt", "voice": "plain"}),
    ("t26-attack-bad-client-request-number-in-key", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key = run id + step + the request's sequence number in the HTTP client.",
        "resumeProtocol": "Look each open intent up by its key at the provider; found -> record; "
                          "missing under 24 h -> resend; older -> an operator.",
        "failureMode": "One lookup per open intent; late ones need a person."},
     {"passed": False, "why": "a per-request number makes every attempt's key different",
      "voice": "terse"}),
    ("t26-attack-bad-name-of-the-sending-pod", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, prefixed with the name of the pod "
                       "that sends it.",
        "resumeProtocol": "Look each open intent up by its key at the provider; found -> record; "
                          "missing under 24 h -> resend; older -> an operator.",
        "failureMode": "One lookup per open intent; late ones need a person."},
     {"passed": False, "why": "a resumed run on another pod sends another key", "voice": "plain"}),
    ("t26-attack-good-key-made-once-per-operation", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "A UUID generated once per operation, stored in the intent, read back by "
                       "every retry.",
        "resumeProtocol": "Look each open intent up by its key at the provider; found -> record; "
                          "missing under 24 h -> resend; older -> an operator.",
        "failureMode": "One lookup per open intent; late ones need a person."},
     {"passed": True, "why": "the twin: once per operation, stored", "voice": "plain"}),
    ("t26-attack-bad-thread-ident-in-key", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "sha256(run_id, step, threading.get_ident())",
        "resumeProtocol": "Look each open intent up by its key at the provider; found -> record; "
                          "missing under 24 h -> resend; older -> an operator.",
        "failureMode": "One lookup per open intent; late ones need a person."},
     {"passed": False, "why": "the sending thread's id differs after a restart", "voice": "code"}),
    # (H) a resend at any age, said sideways: "even when it comes back the next week",
    # "however stale", "charge again"
    ("t26-attack-bad-resend-even-next-week", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Whatever has no result is looked up by key; on a miss we resend with "
                          "that key, even when the worker only comes back the next week.",
        "failureMode": "One lookup per open intent."},
     {"passed": False, "why": "a resend a week later: the key is long forgotten, W3/W4 charge "
      "twice", "voice": "plain"}),
    ("t26-attack-bad-charge-again-however-stale", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Ask the provider by key; when it answers 'unknown' we charge again "
                          "with the key, however stale the intent.",
        "failureMode": "One lookup per open intent."},
     {"passed": False, "why": "'unknown' trusted at any age: a duplicate after 25 h", "voice":
      "plain"}),
    ("t26-attack-bad-resend-long-after-retention", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Open intents are looked up by key; when the provider has nothing we "
                          "resend with the key, long after the retention too.",
        "failureMode": "One lookup per open intent."},
     {"passed": False, "why": "a resend past the retention charges W3/W4 twice", "voice":
      "plain"}),
    ("t26-attack-bad-miss-resent-at-any-time", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look up by key; a miss is resent with the key at any time.",
        "failureMode": "A duplicate can never happen; one lookup per open intent."},
     {"passed": False, "why": "a miss resent at any age, and a false safety", "voice": "terse"}),
    # (I) a timeless dedup claimed sideways: "however long the outage ... recognise the key",
    # "the provider's dedup has no expiry"
    ("t26-attack-bad-recognised-however-long", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look each open intent up by its key at the provider; found -> record; "
                          "missing under 24 h -> resend; older -> an operator.",
        "failureMode": "However long the outage, the provider will recognise the key when we "
                       "come back; the cost is one lookup."},
     {"passed": False, "why": "the key is pruned after 24 h: the 25 h recoveries refute it",
      "voice": "plain"}),
    ("t26-attack-bad-dedup-has-no-expiry", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look each open intent up by its key at the provider; found -> record; "
                          "missing under 24 h -> resend; older -> an operator.",
        "failureMode": "The provider's dedup has no expiry, so a late resume is harmless; the "
                       "cost is one extra write per call."},
     {"passed": False, "why": "a false timeless dedup: 24 h retention", "voice": "plain"}),
    ("t26-attack-good-reference-has-no-expiry", {
        "checkpoint": "Intent (with its client reference) journaled before the charge; result "
                      "after.",
        "idempotency": "A client reference from run and step; the provider stores it and lets "
                       "us search by it.",
        "resumeProtocol": "Search the provider by reference for each open intent; adopt a hit, "
                          "charge again with the same reference on none.",
        "failureMode": "References carry no expiry, so late resumes are fine; the price is a "
                       "search per open intent."},
     {"passed": True, "why": "a reference is searchable forever: true of this design", "voice":
      "plain"}),
    # (J) "nobody ever has to" step in, said of a design that escalates late runs
    ("t26-attack-bad-nobody-touches-a-run", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look each open intent up by its key at the provider; found -> record; "
                          "missing under 24 h -> resend; older -> an operator.",
        "failureMode": "Every crash heals itself; nobody ever has to touch a run by hand. The "
                       "cost is one write per call."},
     {"passed": False, "contradiction": True, "why": "late runs go to an operator: 'nobody ever "
      "has to' is false", "voice": "plain"}),
    ("t26-attack-bad-no-one-needs-to-step-in", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Under 24 h old: resend the open charge with its key. Older: no "
                          "resend, the on-call gets a ticket.",
        "failureMode": "No one needs to step in manually; each call costs a journal write."},
     {"passed": False, "contradiction": True, "why": "the on-call is the escalation the "
      "failure mode denies", "voice": "terse"}),
    # (K) the intent's place before the call in other verbs ("before we dial out to the PSP")
    ("t26-attack-good-before-dialling-out", {
        "checkpoint": "Before we dial out to the PSP a 'pending' line lands in the journal and "
                      "is fsynced; the PSP's answer lands after it.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look each open intent up by its key at the provider; found -> record; "
                          "missing under 24 h -> resend; older -> an operator.",
        "failureMode": "One fsync per call; late ones wait for a person."},
     {"passed": True, "why": "the pending line is durable before the call", "voice": "plain"}),
    ("t26-attack-good-before-going-out", {
        "checkpoint": "A pending row is committed before the request goes out to the gateway; "
                      "the gateway's reply is committed after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look each open intent up by its key at the provider; found -> record; "
                          "missing under 24 h -> resend; older -> an operator.",
        "failureMode": "One commit per call; late ones wait for a person."},
     {"passed": True, "why": "a pending row committed before the request", "voice": "plain"}),
    # (L) the pre-call record kept in a dict of the worker: lost with the crash
    ("t26-attack-bad-intent-in-pending-dict", {
        "checkpoint": "The intent goes into the worker's pending dict before the call; the "
                      "result is committed to the journal after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look each open intent up by its key at the provider; found -> record; "
                          "missing under 24 h -> resend; older -> an operator.",
        "failureMode": "One commit per call; late ones wait for a person."},
     {"passed": False, "contradiction": True, "why": "a dict dies with the worker: nothing "
      "durable before the call", "voice": "plain"}),
    ("t26-attack-bad-intent-in-hashmap", {
        "checkpoint": "Each planned charge is put in a hash map of open calls before the "
                      "request. The response is journaled after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look each open intent up by its key at the provider; found -> record; "
                          "missing under 24 h -> resend; older -> an operator.",
        "failureMode": "One commit per call; late ones wait for a person."},
     {"passed": False, "why": "the pre-call record lives in memory only", "voice": "plain"}),
    # (D2, attack) the conditional resend said as "fresher than the PSP's key memory" and
    # "replay the request", its other branch "if it is staler"
    ("t26-attack-good-fresher-than-key-memory", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Unfinished charge: if its intent is fresher than the PSP's 24-hour "
                          "key memory, replay the request with the same key and let the PSP "
                          "dedupe; if it is staler, freeze the run and ping the on-call.",
        "failureMode": "Stale runs freeze until the on-call answers."},
     {"passed": True, "why": "retry within retention in other words", "voice": "plain"}),
    ("t26-attack-bad-fresher-than-key-memory-staler-too", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Unfinished charge: if its intent is fresher than the PSP's 24-hour "
                          "key memory, replay the request with the same key; if it is staler, "
                          "replay the request with it as well.",
        "failureMode": "One extra journal write per call."},
     {"passed": False, "why": "both branches resend: a duplicate after 25 h", "voice": "plain"}),
    # (H2, attack) a resend at an age past 24 h said as a number ("even 36 hours later")
    ("t26-attack-bad-resend-even-36-hours-later", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look up by key; a miss is resent with the key, even 36 hours later.",
        "failureMode": "One lookup per open intent."},
     {"passed": False, "why": "36 h is past the 24 h retention: W3/W4 charge twice", "voice":
      "terse"}),
    ("t26-attack-good-resend-up-to-20-hours", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look up by key; a miss is resent with the key while the intent is "
                          "under 20 hours old; past 24 h never resent, an operator decides.",
        "failureMode": "One lookup per open intent; late ones wait for the operator."},
     {"passed": True, "why": "the twin: a resend only inside the retention", "voice": "terse"}),
    # (I2, attack) a key retention beyond 24 h claimed ("the provider keeps keys for a week")
    ("t26-attack-bad-keys-kept-a-week", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look up by key; a miss is resent with the key.",
        "failureMode": "The provider keeps keys for a week, so late resends are deduplicated; "
                       "one lookup per open intent."},
     {"passed": False, "why": "the provider keeps keys 24 h: the 25 h recoveries refute it",
      "voice": "plain"}),
    ("t26-attack-bad-keys-retained-30-days", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look each open intent up by its key at the provider; found -> record; "
                          "missing under 24 h -> resend; older -> an operator.",
        "failureMode": "Keys are retained 30 days at the PSP; the cost is one lookup."},
     {"passed": False, "why": "a false retention claim", "voice": "terse"}),
    # (J2, attack) people said to be kept out ("humans stay out of the loop entirely")
    ("t26-attack-bad-humans-stay-out-of-the-loop", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look each open intent up by its key at the provider; found -> record; "
                          "missing under 24 h -> resend; older -> an operator.",
        "failureMode": "Humans stay out of the loop entirely; the cost is a write per call."},
     {"passed": False, "contradiction": True, "why": "older intents go to an operator",
      "voice": "plain"}),
    ("t26-attack-good-operator-steps-in-late", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Look each open intent up by its key at the provider; found -> record; "
                          "missing under 24 h -> resend; older -> an operator.",
        "failureMode": "People stay in the loop for late runs: an operator steps in past 24 h."},
     {"passed": True, "why": "the twin: the escalation said as a cost", "voice": "plain"}),

    # -- t27: stop s13, HELDOUT16 and HELDOUT17's disagreements fixed by class (issue 17) ------
    # (1) a key that changes per attempt said sideways: the hashed payload carries the clock;
    # a new identifier "per HTTP attempt"
    ("t27-bad-key-payload-carries-clock", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "sha256 over run id, step and the request dict, and the request dict "
                       "contains sent_at = datetime.now() so support can see when it left.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator has to settle the open charges."},
     {"passed": False, "why": "the send time is inside the hashed payload: a new key on every "
      "attempt, so the lookup misses a W3 charge", "voice": "plain"}),
    ("t27-good-key-payload-time-journaled", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "sha256 over run id, step and the payload; the payload includes the "
                       "decision's timestamp, which is journaled with the intent and read back, "
                       "so the key is the same on every attempt.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator has to settle the open charges."},
     {"passed": True, "why": "a time journaled once is part of a stable payload", "voice":
      "plain"}),
    ("t27-bad-key-new-per-network-try", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "The client library stamps a new random token as Idempotency-Key per "
                       "network attempt, like a fresh receipt number at every till.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend; "
                          "older goes to an operator.",
        "failureMode": "Past 24 h an operator has to settle the open charges."},
     {"passed": False, "contradiction": True, "why": "a new key per network attempt: the lookup "
      "asks about a key the provider never saw", "voice": "plain"}),
    # (2) a resend past the retention said sideways: a retry schedule longer than 24 h; a miss
    # taken as proof with no age bound
    ("t27-bad-resend-schedule-three-days", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Ask the provider by key; when it has nothing, the job goes back on "
                          "the queue and we keep retrying with the same key for up to three "
                          "days.",
        "failureMode": "A payment may be delayed by days when the provider is flaky."},
     {"passed": False, "why": "resends go on for three days: past 24 h the key is forgotten and "
      "a W3 charge is made twice", "voice": "queue"}),
    ("t27-good-lookup-retried-not-resent", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Ask the provider by key; if it has nothing and the intent is under "
                          "24 h old, resend with the same key; older intents go to an operator "
                          "and are never resent.",
        "failureMode": "A lookup that times out is retried for up to three days before an "
                       "operator is paged; that is slow."},
     {"passed": True, "why": "the long retry is of the lookup, in the failure mode; the resend "
      "is bounded", "voice": "queue"}),
    ("t27-bad-miss-means-never-charged", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Stored UUID created with the intent, reused on every attempt.",
        "resumeProtocol": "Query the provider with the stored UUID. A hit is recorded. An empty "
                          "answer means the payment never went through, so we resend it with "
                          "the same UUID.",
        "failureMode": "Resume waits on one provider round trip per open intent."},
     {"passed": False, "why": "a miss trusted at any age: past 24 h the key is pruned and the "
      "resend charges twice", "voice": "plain"}),
    ("t27-good-miss-means-never-charged-young", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Stored UUID created with the intent, reused on every attempt.",
        "resumeProtocol": "Query the provider with the stored UUID. A hit is recorded. An empty "
                          "answer means the payment never went through, so we resend it with "
                          "the same UUID; that holds only under 24 h, older intents are "
                          "escalated.",
        "failureMode": "Resume waits on one provider round trip per open intent."},
     {"passed": True, "why": "the same words with the age bound", "voice": "plain"}),
    # (3) a resend said both ways in one field; a late resend after the escalation
    ("t27-bad-contra-no-resend-then-resend", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "The worker does not retry a charge. A lookup by key that finds "
                          "nothing is resent with the same key; past 24 h it escalates.",
        "failureMode": "Operators handle anything older than a day."},
     {"passed": False, "contradiction": True, "why": "'does not retry a charge' and 'is resent' "
      "in one field", "voice": "contradicting"}),
    ("t27-bad-contra-late-miss-final", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Lookup by key, resend if missing under 24 h; after 24 h we page an "
                          "operator, and because by then an empty lookup is conclusive the "
                          "runtime resends it too.",
        "failureMode": "Operators are paged for anything older than a day."},
     {"passed": False, "contradiction": True, "why": "late resends on a miss said to be "
      "conclusive: past 24 h a duplicate", "voice": "contradicting"}),
    # (4) a failure mode claiming what the design lacks: a lost payment in W1, no person ever
    ("t27-bad-false-never-gets-charged", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look up by key; if missing under 24 h resend with the same key; "
                          "older: escalate.",
        "failureMode": "A crash right before the intent is written means the customer never "
                       "gets charged at all."},
     {"passed": False, "why": "in W1 the replay runs the step afresh: nothing is lost; the "
      "failure mode is false", "voice": "plain"}),
    ("t27-bad-false-no-outage-needs-anyone", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look up by key; if missing under 24 h resend with the same key; "
                          "older: escalate.",
        "failureMode": "Not one payment, whatever the length of the outage, ends up with "
                       "support."},
     {"passed": False, "why": "past 24 h the design escalates to an operator", "voice":
      "plain"}),
    # (5) the intent made durable only after the provider answered
    ("t27-bad-contra-fsync-after-answer", {
        "checkpoint": "Intent appended before the call, but we only fsync the journal once "
                      "the provider answers, to save a sync.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look up by key; if missing under 24 h resend with the same key; "
                          "older: escalate.",
        "failureMode": "Past 24 h an operator settles open charges."},
     {"passed": False, "contradiction": True, "why": "the intent is durable only after the "
      "call: result-only", "voice": "contradicting"}),

    # (6) a trade-off said as a dependency or a constraint
    ("t27-good-tradeoff-leans-wholly-on-dedup", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "No lookup is used: an open intent under 24 h old is resent with its "
                          "key; older ones go to an operator and are never resent.",
        "tradeOff": "Everything depends entirely on the provider honouring the key; and the "
                    "resend has to carry exactly the same amount and fields."},
     {"passed": True, "why": "a dependency and a constraint are true limits of a same-key resend",
      "voice": "plain"}),
    ("t27-good-tradeoff-only-as-good-as-journal", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "The design is only as good as the journal's fsync: a disk that lies "
                       "about durability loses the intent."},
     {"passed": True, "why": "a true dependency of the intent journal", "voice": "plain"}),
    ("t27-good-reference-race-both-create", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "A client reference made once per charge and kept in the intent; the "
                       "provider stores it forever and can be searched by it.",
        "resumeProtocol": "Search the provider by the reference before any send; create the "
                          "charge only when nothing is found.",
        "failureMode": "Should two resumers race on one run, both could find nothing and both "
                       "create the charge; a per-run lock must be held."},
     {"passed": True, "why": "a race between two resumers is outside the sweep and true of a "
      "reference", "voice": "plain"}),
    ("t27-good-reference-recheck-after-miss", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "A client reference made once per charge and kept in the intent; the "
                       "provider stores it forever and can be searched by it.",
        "resumeProtocol": "Search the provider by the reference before any send; create the "
                          "charge only when nothing is found.",
        "tradeOff": "The search index trails writes by seconds, so a miss is searched again a "
                    "minute later before creating."},
     {"passed": True, "why": "a second search is a true cost", "voice": "plain"}),
    # (7) a cause denied with its subject
    ("t27-good-no-crash-leads-to-second-charge", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "One synchronous write per call; in exchange nothing between the write "
                       "and the reply leads to a second charge."},
     {"passed": True, "why": "the second charge is denied, the cost is true", "voice": "plain"}),
    ("t27-bad-second-charge-claimed", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "A crash between the write and the reply leads to a second charge."},
     {"passed": False, "why": "the sweep shows no duplicate: the failure mode is false", "voice":
      "plain"}),
    # (8) a stored key said sideways: drawn once, made at insert time, a random part in the intent
    ("t27-good-key-rolled-once", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "The token is random, rolled once when the intent row is written, and "
                       "every retry reads it from that row.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator has to settle open charges."},
     {"passed": True, "why": "a random key made once and journaled", "voice": "plain"}),
    ("t27-good-key-uuid-made-at-write", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "A GUID generated at write time sits in the intent; it is the "
                       "Idempotency-Key of every attempt.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator has to settle open charges."},
     {"passed": True, "why": "a key generated when the intent is written, kept in it", "voice":
      "plain"}),
    ("t27-good-key-step-plus-uuid-in-intent", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "The key is the step name plus a uuid that lives inside the intent "
                       "record; resends read both back.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator has to settle open charges."},
     {"passed": True, "why": "the random part is journaled with the intent", "voice": "plain"}),
    # (9) an intent named as 'payment planned'
    ("t27-good-payment-planned-row", {
        "checkpoint": "The worker writes a 'payment planned' row with its key and commits; the "
                      "outcome row follows when the provider replies.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator has to settle open charges."},
     {"passed": True, "why": "a planned-payment row committed before the call is the intent",
      "voice": "queue"}),
    # (11) a resend said as the same request made again, escalation named in code
    ("t27-good-code-raise-needs-operator", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "if open(i):\n  if i.age < 24h: provider.charge(i.body, key=i.key)\n"
                          "  else: raise OperatorRequired(i)",
        "tradeOff": "# the same body must be sent again; late ones wait for a person"},
     {"passed": True, "why": "a same-key resend under 24 h, a person past it (code)", "voice":
      "code"}),
    ("t27-good-fire-same-request-again", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "The provider keeps keys for a day, so within that day we fire the "
                          "same request again with the key; after the day we stop and hand it "
                          "to an operator.",
        "tradeOff": "Late intents become manual work."},
     {"passed": True, "why": "a same-key resend within the day, a person after it", "voice":
      "plain"}),
    # (12) "reconcile" said of a resend in a field that denies a lookup
    ("t27-good-reconcile-by-replaying-post", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "The PSP offers no status endpoint, so reconciliation means we repeat "
                          "the same request with the same key while the intent is under 24 h "
                          "old; past that the run is escalated.",
        "tradeOff": "Late intents become manual work."},
     {"passed": True, "why": "retry within retention, its 'reconciliation' is the resend",
      "voice": "plain"}),
    # (13) an incident told before its remediation
    ("t27-good-postmortem-then-fix", {
        "checkpoint": "What went wrong: we only saved a snapshot every other step and lost the "
                      "charge's receipt. The fix: the intent is committed before every call "
                      "and the result after it.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator has to settle open charges."},
     {"passed": True, "why": "the design is the fix; the snapshot is the incident", "voice":
      "postmortem"}),
    ("t27-bad-postmortem-fix-still-wrong", {
        "checkpoint": "What went wrong: the intent was lost in a crash. The fix: we now write "
                      "the intent only after the provider answers, in one transaction with "
                      "the result.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator has to settle open charges."},
     {"passed": False, "contradiction": True, "why": "the fix is result-only", "voice":
      "postmortem"}),
    # (14) a negative pronoun as a subject
    ("t27-good-nothing-only-in-ram", {
        "checkpoint": "The intent is committed before the call and the result after; nothing "
                      "stays only in RAM while the request is out.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator has to settle open charges."},
     {"passed": True, "why": "'only in RAM' is denied by its subject", "voice": "plain"}),
    # (15) a quoted phrase in a failure mode is a mention
    ("t27-good-quoted-no-key", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "No lookup is used: an open intent under 24 h old is resent with its "
                          "key; older ones go to an operator and are never resent.",
        "tradeOff": "After a day we cannot tell 'no key reached them' from 'charged and "
                    "forgotten', so a person decides."},
     {"passed": True, "why": "the quoted phrase names a state, not the design", "voice": "plain"}),
    # (16) "blocks nothing" is not a stuck run
    ("t27-good-reference-blocks-nothing", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "A client reference made once per charge and kept in the intent; the "
                       "provider stores it forever and can be searched by it.",
        "resumeProtocol": "Search the provider by the reference before any send; create the "
                          "charge only when nothing is found.",
        "failureMode": "The reference blocks nothing by itself: a code path that skips the "
                       "search would charge twice."},
     {"passed": True, "why": "a risk outside the sweep; 'blocks nothing' is no stuck run",
      "voice": "plain"}),
    # (17) stop s13 attacks: a stranger's wording; each was graded wrong before its rule
    ("t27-attack-bad-resend-sideways-tomorrow", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look up by key; if nothing is there, resend with the same "
                          "key, whether the worker comes back in a minute or the next "
                          "morning after a weekend outage.",
        "failureMode": "One lookup per open intent."},
     {"passed": False, "why": "a same-key resend also 'the next morning': past 24 h a "
              "duplicate",
      "voice": "attack"}),
    ("t27-attack-bad-key-sideways-salted", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key = hmac(secret, run id + step), where the secret is "
                       "rotated at every process start.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, "
                          "resend with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator has to settle open charges."},
     {"passed": False, "why": "a secret rotated at every process start: a restarted worker "
              "sends a new key",
      "voice": "attack"}),
    ("t27-attack-bad-key-sideways-counter", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key = run id + step + how many times we have tried so far.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, "
                          "resend with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator has to settle open charges."},
     {"passed": False, "why": "the attempt count is part of the key",
      "voice": "attack"}),
    ("t27-attack-bad-fm-claims-timeless", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, "
                          "resend with the same key; older goes to an operator.",
        "failureMode": "The key protects us however long the outage lasts; one "
                       "lookup per open intent."},
     {"passed": False, "why": "claims the key protects 'however long the outage': past 24 h"
              " it escalates",
      "voice": "attack"}),
    ("t27-attack-good-unusual-ledger-words", {
        "checkpoint": "Before money moves, a line 'about to take 42 EUR, tag T' is "
                      "made durable; when the processor answers, a second line "
                      "records its answer.",
        "idempotency": "T is computed from the run and the step number alone, so a "
                       "retry produces the very same T.",
        "resumeProtocol": "A first line without a second: ask the processor about T. "
                          "Known: copy its answer. Unknown and the line is younger than"
                          " a day: send again with T. Older: leave it for a human.",
        "failureMode": "Lines older than a day need a human."},
     {"passed": True, "why": "intent before money moves, a tag from run and step, lookup, "
              "a day's bound, a human",
      "voice": "attack"}),
    ("t27-attack-good-unusual-no-lookup", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "We never ask the provider. An open intent younger than the "
                          "provider's 24 h memory is sent again with its key; an older "
                          "one is handed to an operator untouched.",
        "tradeOff": "Late intents are manual work."},
     {"passed": True, "why": "retry within retention, no lookup",
      "voice": "attack"}),
    ("t27-attack-good-unusual-stored", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "A random token is minted the moment the intent is written "
                       "and sits in that intent; attempts never mint their own.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, "
                          "resend with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator has to settle open charges."},
     {"passed": True, "why": "a token minted when the intent is written, kept in it",
      "voice": "attack"}),
    ("t27-attack-bad-resend-sideways-two-days", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look up by key; when it is missing we resend with the same "
                          "key, which the provider dedups for 48 hours.",
        "failureMode": "One lookup per open intent."},
     {"passed": False, "why": "a resend trusted to a 48 h dedup the provider does not have "
              "(it keeps keys 24 h)",
      "voice": "attack"}),
    ("t27-attack-bad-result-only-sideways", {
        "checkpoint": "The intent row is inserted in the same commit as the "
                      "provider's answer.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, "
                          "resend with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator has to settle open charges."},
     {"passed": False, "why": "the intent is written in the same commit as the answer: "
              "result-only",
      "voice": "attack"}),
    ("t27-attack-bad-resend-after-weekend", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Query by key. Missing: resend with the key, be it an hour or"
                          " three days since the crash.",
        "failureMode": "A lookup per open intent."},
     {"passed": False, "why": "a same-key resend 'be it an hour or three days' after the "
              "crash",
      "voice": "attack"}),
    ("t27-attack-bad-key-includes-attempt-sideways", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "The key is the run id, the step and the retry ordinal.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, "
                          "resend with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator has to settle open charges."},
     {"passed": False, "why": "the retry ordinal is part of the key",
      "voice": "attack"}),
    ("t27-attack-bad-key-from-clock-sideways", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key = run id + step + the wall-clock second at which the "
                       "request goes out.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, "
                          "resend with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator has to settle open charges."},
     {"passed": False, "why": "the second at which the request goes out is part of the key",
      "voice": "attack"}),
    ("t27-attack-bad-fm-safety-claim2", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, "
                          "resend with the same key; older goes to an operator.",
        "failureMode": "Late recoveries are handled automatically like any other; "
                       "the only cost is one write per call."},
     {"passed": False, "why": "claims late recoveries settle themselves: past 24 h they "
              "escalate",
      "voice": "attack"}),
    ("t27-attack-bad-key-new-on-redeploy", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key = run id + step + the build number of the worker image, "
                       "which changes with every deploy.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, "
                          "resend with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator has to settle open charges."},
     {"passed": False, "why": "the build number in the key changes with every deploy",
      "voice": "attack"}),
    ("t27-attack-bad-resend-when-provider-back", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look up by key; if missing, resend with the same key as soon"
                          " as the provider is reachable again, however long that "
                          "takes.",
        "failureMode": "A lookup per open intent."},
     {"passed": False, "why": "a same-key resend 'however long that takes': past 24 h a "
              "duplicate",
      "voice": "attack"}),
    ("t27-attack-bad-resend-sideways-ignore-age", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look up by key; on a miss we resend with the same key and do"
                          " not look at how old the intent is.",
        "failureMode": "A lookup per open intent."},
     {"passed": False, "why": "the resend ignores the intent's age: past 24 h a duplicate",
      "voice": "attack"}),
    # a negative pronoun as the subject of a claim: "nobody is ever paged"
    ("t27-attack-bad-fm-nobody-is-ever-paged", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "A duplicate is impossible and nobody is ever paged, even after a long "
                       "outage."},
     {"passed": False, "why": "past 24 h the design escalates to an operator: the denial is "
      "false", "voice": "attack"}),
    ("t27-attack-good-fm-nobody-paged-inside-a-day", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Inside a day nobody is paged; past it an operator is paged for every "
                       "open charge."},
     {"passed": True, "why": "the page past 24 h is named", "voice": "attack"}),
    # ------------------------------------------------------------------ t28 (stop s13): the
    # classes HELDOUT18 and HELDOUT19 showed, in new words (measured before their fixes)
    # a person asked "to" check the provider: the run waits, nothing is looked up
    ("t28-bad-escalate-all-engineer-to-look", {
        "checkpoint": "The intent is committed to the journal before the charge; the result "
                      "after.",
        "idempotency": "Key derived from run id, step and a payload digest, the same on every "
                       "retry.",
        "resumeProtocol": "Any intent without a result parks the run and we ask an engineer to "
                          "look at the provider's dashboard.",
        "failureMode": "Recovery is slower, but a double charge cannot happen."},
     {"passed": False, "why": "every open intent waits for a person, even at once inside the "
      "retention: stuck in W2-W4", "voice": "terse"}),
    ("t28-bad-escalate-all-ops-to-verify", {
        "checkpoint": "Intent row committed before the HTTP call, result row after.",
        "idempotency": "hash(run_id, step, payload) as the Idempotency-Key, stable across "
                       "retries.",
        "resumeProtocol": "On restart an unresolved charge stops the run; we get ops to verify it "
                          "with the PSP and they decide.",
        "failureMode": "Ops load grows with every crash."},
     {"passed": False, "why": "a person settles every open intent, even at once: stuck in W2-W4",
      "voice": "terse"}),
    ("t28-good-lookup-then-operator-to-check", {
        "checkpoint": "The intent is committed to the journal before the charge; the result "
                      "after.",
        "idempotency": "Key derived from run id, step and a payload digest, the same on every "
                       "retry.",
        "resumeProtocol": "On resume the worker looks the open intent up at the provider by key; "
                          "if it is missing and under 24 h old it resends with the same key; an "
                          "older one goes to an operator to check the provider by hand.",
        "failureMode": "Past 24 h an operator has to settle every open charge."},
     {"passed": True, "why": "the runtime looks up; only past the retention a person checks",
      "voice": "terse"}),
    # a random key kept on a named in-process object: a restarted worker makes another
    ("t28-bad-key-on-paymentcall-instance", {
        "checkpoint": "Intent journaled and committed before the charge, result after.",
        "idempotency": "key = uuid4() generated in the worker and held in the PaymentCall "
                       "instance; the retry loop reuses that instance, so retries share it.",
        "resumeProtocol": "Look the intent up by key; if missing and under 24 h, resend with the "
                          "same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator settles open charges."},
     {"passed": False, "why": "the key lives in the process: after a crash the new worker makes "
      "another uuid, the lookup misses and the resend charges twice", "voice": "code"}),
    ("t28-bad-key-on-session-object", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "A random token created at dispatch and kept on the client session "
                       "object, so in-process retries send it again.",
        "resumeProtocol": "Look the intent up by key; if missing and under 24 h, resend with the "
                          "same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator settles open charges."},
     {"passed": False, "why": "the token is not in the intent: a restarted worker has another",
      "voice": "terse"}),
    ("t28-good-uuid-stored-in-intent-row", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "A uuid generated once and stored in the intent row; every retry reads it "
                       "back from there.",
        "resumeProtocol": "Look the intent up by key; if missing and under 24 h, resend with the "
                          "same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator settles open charges."},
     {"passed": True, "why": "the key is journaled with the intent", "voice": "terse"}),
    # a resend said safe without condition, with no age bound anywhere in the field
    ("t28-bad-resend-always-safe-stable-key", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look the open intent up by key; on a miss resend with the same key. "
                          "Retrying is always safe since the key never changes.",
        "failureMode": "A lookup round trip per open intent on recovery."},
     {"passed": False, "why": "no age bound: past 24 h the key is forgotten and the resend "
      "charges again", "voice": "terse"}),
    ("t28-bad-resend-unconditionally-safe", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Replay; a charge the provider does not know is resent, and because of "
                          "the key that is unconditionally safe.",
        "failureMode": "A lookup round trip per open intent on recovery."},
     {"passed": False, "why": "no age bound: past 24 h a duplicate", "voice": "terse"}),
    ("t28-good-resend-safe-inside-the-day", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, identical on every retry.",
        "resumeProtocol": "Look the open intent up by key; on a miss and within 24 h resend with "
                          "the same key, which is always safe inside that window; older intents "
                          "go to an operator.",
        "failureMode": "Past 24 h an operator settles every open charge."},
     {"passed": True, "why": "the safe resend is bounded by the retention", "voice": "terse"}),
    # the time in an age test is not the time in the key
    ("t28-good-age-test-elapsed-since-created", {
        "checkpoint": "Insert the intent row (key, created_at) and commit before the HTTP call; "
                      "store the response after.",
        "idempotency": "key = sha1(run_id + step + body), the same on every attempt.",
        "resumeProtocol": "For each open row, GET the charge by key. Found: store it. Not found "
                          "and now() - created_at under 24 h: resend with key. Otherwise mark "
                          "the run for an operator.",
        "failureMode": "Rows older than 24 h wait for an operator."},
     {"passed": True, "why": "now() is compared with the intent's age, not put in the key",
      "voice": "sql"}),
    ("t28-good-age-test-timestamp-younger-than", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "Look the open intent up by key; resend with that key only when the "
                          "intent's timestamp is younger than the provider's 24 h retention, "
                          "otherwise escalate to an operator.",
        "failureMode": "An operator has to settle every charge left open past a day."},
     {"passed": True, "why": "the timestamp is the intent's age", "voice": "terse"}),
    ("t28-bad-key-hashes-now", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "key = sha1(run_id + step + now()), recomputed on every attempt.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the key; older goes to an operator.",
        "failureMode": "Rows older than 24 h wait for an operator."},
     {"passed": False, "why": "the current time is in the key: every attempt has a new one",
      "voice": "code"}),
    # a cost or limit said plainly: our own store's availability, a search that must be fresh,
    # a run waiting for someone
    ("t28-good-cost-journal-outage-stops-payments", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "tradeOff": "When our event store is unavailable no payment can start, since the intent "
                    "must be written first."},
     {"passed": True, "why": "a true limit: the journal gates every charge", "voice": "terse"}),
    ("t28-good-cost-assumes-lookup-up-to-date", {
        "checkpoint": "Journal the intent before sending, outcome after.",
        "idempotency": "A client reference built from run id and step, kept by the provider "
                       "with the charge.",
        "resumeProtocol": "Search the provider by reference first; send only if nothing is "
                          "found.",
        "failureMode": "Assumes the provider's lookup is always up to date."},
     {"passed": True, "why": "clean design; the search-freshness dependency is true",
      "voice": "terse"}),
    ("t28-bad-cost-fresh-search-blind-retry", {
        "checkpoint": "Journal the intent before sending, outcome after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Any open intent is resent at once with its key, whenever we come "
                          "back.",
        "failureMode": "Needs a search that is never stale."},
     {"passed": False, "why": "a blind resend: past 24 h a duplicate the failure mode does not "
      "name", "voice": "terse"}),
    ("t28-good-fm-waits-on-somebody", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "The weak spot is the late resume: past a day every half-done charge "
                       "idles until somebody looks, and it waits on somebody even if nothing "
                       "was sent."},
     {"passed": True, "why": "the late escalation named as a wait for a person", "voice": "terse"}),
    # a double charge named as what the design guards against or as the worse evil
    ("t28-good-fm-guards-us-against-duplicate", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "A client reference from run id and step, stored by the provider.",
        "resumeProtocol": "Search by reference first, always; send only if absent.",
        "tradeOff": "One provider search per open intent on recovery; that search guards us "
                    "against a double charge, so it must be accurate."},
     {"passed": True, "why": "the duplicate is what the search prevents; the cost is true",
      "voice": "terse"}),
    ("t28-good-fm-duplicate-far-worse", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "tradeOff": "An extra durable write per call and operator time past a day; I'll pay "
                    "that, a duplicate charge would be far worse."},
     {"passed": True, "why": "the duplicate is the rejected alternative", "voice": "terse"}),
    ("t28-bad-guarded-words-blind-retry", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Key derived from run id and step, the same on every retry.",
        "resumeProtocol": "Every open intent is resent with its key straight away on restart, "
                          "however long we were down.",
        "tradeOff": "The key is what stands between us and a double charge; one extra write "
                    "per call."},
     {"passed": False, "why": "a resend at any age: past 24 h a duplicate", "voice": "terse"}),
    # a call, not the key, said never sent
    ("t28-good-fm-charges-that-never-went-out", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator is paged even for a request that was never sent."},
     {"passed": True, "why": "'never sent' is of the request, not the key", "voice": "terse"}),
    ("t28-bad-fm-key-never-sent", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator is paged; the key itself is never sent to the "
                       "provider."},
     {"passed": False, "why": "a key never sent is no key: contradicts the idempotency field",
      "voice": "self-contradicting"}),
    # the next sentence bounds the resend by the retention
    ("t28-good-resend-next-sentence-safe-only-within", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "After a crash every open charge is sent again with its journaled key. "
                          "This is safe only within the provider's 24 h key window; an intent "
                          "older than that is not resent, it goes to an operator.",
        "failureMode": "Past a day every open charge waits for an operator."},
     {"passed": True, "why": "the resend is bounded by the retention in the next sentence",
      "voice": "terse"}),
    ("t28-bad-resend-next-sentence-no-late-branch", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "After a crash every open charge is sent again with its journaled key. "
                          "This works because the provider remembers keys.",
        "failureMode": "An extra write per call."},
     {"passed": False, "why": "no age bound: past 24 h a duplicate", "voice": "terse"}),
    # "the saga is parked": the saga named as the run, not a compensation; "instead of" negates
    ("t28-good-saga-held-rather-than-rolled-back", {
        "checkpoint": "The saga writes its outbox entry with the key before the dispatcher "
                      "sends it; the receipt is journaled when it comes back.",
        "idempotency": "Key derived from saga id, step and payload digest.",
        "resumeProtocol": "An entry without a receipt is looked up by key; if missing and under "
                          "24 h old it is re-sent with the same key. Older, the saga is held "
                          "for an operator rather than rolled back.",
        "failureMode": "A held saga blocks the booking until a human settles the charge."},
     {"passed": True, "why": "lookup, young resend, escalate; the rollback is rejected",
      "voice": "actor-or-saga"}),
    ("t28-bad-saga-compensates-open-charge", {
        "checkpoint": "The saga writes its outbox entry with the key before the dispatcher "
                      "sends it; the receipt is journaled when it comes back.",
        "idempotency": "Key derived from saga id, step and payload digest.",
        "resumeProtocol": "An entry without a receipt fails the saga, which runs its "
                          "compensations backwards: refund what has a receipt.",
        "failureMode": "A failed saga refunds the customer."},
     {"passed": False, "why": "fail and compensate: a charge sent but not recorded is never "
      "refunded", "voice": "actor-or-saga"}),
    # a draft and its replacement in one sentence
    ("t28-good-draft-then-turn-in-one-sentence", {
        "checkpoint": "My original plan stored only the result after the call, which loses a "
                      "crash mid-call, so instead: the intent is committed to the journal before "
                      "the call and the result after it.",
        "idempotency": "I first tried a random key per request, but that is wrong. What I'd "
                       "actually do: derive the key from run id, step and payload digest, the "
                       "same on every attempt.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator settles every open charge."},
     {"passed": True, "why": "the drafts are rejected; the final design is right",
      "voice": "self-correcting"}),
    ("t28-bad-draft-turn-to-result-only", {
        "checkpoint": "My first idea was to commit the intent before the call, but that is an "
                      "extra write, so instead: we write the result once the call returns.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator settles every open charge."},
     {"passed": False, "why": "the final design writes only the result: W3/W4 lose the charge's "
      "trace", "voice": "self-correcting"}),
    # a negation inside a relative clause does not deny the main verb; a bare "never resend
    # anything" beside a resend is a contradiction
    ("t28-bad-contra-never-retry-anything-but-resent", {
        "checkpoint": "Intent committed to the journal before the call; result after it.",
        "idempotency": "A UUID made once per operation and stored with the intent.",
        "resumeProtocol": "We don't retry anything. On restart, charges which the provider does "
                          "not report are retried with the stored key.",
        "failureMode": "Escalated runs need a human."},
     {"passed": False, "why": "contradiction: no retry, then a retry, with no age bound",
      "voice": "self-contradicting", "contradiction": True}),
    ("t28-good-relative-clause-negation-young-resend", {
        "checkpoint": "Intent committed to the journal before the call; result after it.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "Open intents are looked up by key. Ones that the provider doesn't "
                          "know are resent with the same key while under 24 h old; older ones go "
                          "to an operator.",
        "failureMode": "Past 24 h an operator settles every open charge."},
     {"passed": True, "why": "the negation is the relative clause's", "voice": "terse"}),
    # the key made at the moment of sending: anew for every attempt
    ("t28-bad-stuffed-key-minted-when-request-goes-out", {
        "checkpoint": "Write-ahead intent commit before the provider call, outcome committed "
                      "after; replayable journal.",
        "idempotency": "Idempotency-Key header, a ULID minted by the SDK when the request goes "
                       "out, for provider-side dedup.",
        "resumeProtocol": "Reconcile open intents by lookup-by-key, same-key resend within 24h, "
                          "escalation to an operator beyond it.",
        "failureMode": "Operator toil past retention."},
     {"passed": False, "why": "the key is made per send: a retry has a new one",
      "voice": "keyword-stuffed"}),
    ("t28-bad-key-stamped-at-time-of-dispatch", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "A random key stamped on the request at the moment of dispatch.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator settles open charges."},
     {"passed": False, "why": "a key per dispatch: every attempt has a new one",
      "voice": "terse"}),
    ("t28-good-key-made-once-before-send", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "A random key generated once and journaled with the intent before the "
                       "request is sent; every resend reads it back.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator settles open charges."},
     {"passed": True, "why": "the key is made once and journaled", "voice": "terse"}),
    # t28-attack-*: a stranger's attack on the reader fitted to HELDOUT18/19 (stop s13): 14
    # outlines, 8 wrong verdicts (5 bad ones passing), fixed by class
    ("t28-attack-bad-resend-after-long-weekend", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "Look the open intent up by key; a miss is resent with the same key, "
                          "even if the worker only returns after a long weekend.",
        "failureMode": "A lookup per open intent on recovery."},
     {"passed": False, "why": "a resend after a long weekend: past 24 h a duplicate",
      "voice": "attack"}),
    ("t28-attack-bad-resend-when-ops-restarts-monday", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "Whenever the service comes back, be it minutes or days later, open "
                          "intents the provider cannot find are resent with their key.",
        "failureMode": "A lookup per open intent on recovery."},
     {"passed": False, "why": "a resend days later: past 24 h a duplicate", "voice": "attack"}),
    ("t28-attack-bad-key-includes-worker-boot-id", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key = run id + step + the worker's boot id, so keys never collide "
                       "across machines.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                       "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator settles open charges."},
     {"passed": False, "why": "the boot id changes on restart: a new key after the crash",
      "voice": "attack"}),
    ("t28-attack-bad-key-salted-per-dispatch", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "sha256(run_id, step, payload, salt) where the salt is drawn fresh "
                       "each time the dispatcher fires the request.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator settles open charges."},
     {"passed": False, "why": "a fresh salt per dispatch: a new key every attempt",
      "voice": "attack"}),
    ("t28-attack-bad-fm-late-recoveries-self-heal", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "One extra write per call; even a resume two days later sorts itself "
                       "out without anyone's help."},
     {"passed": False, "why": "past 24 h the design escalates: 'without anyone's help' is false",
      "voice": "attack"}),
    ("t28-attack-bad-fm-provider-never-forgets", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "Every open intent is resent with its key on restart.",
        "failureMode": "An extra write per call; the provider's memory of a key outlasts any "
                       "outage we could have."},
     {"passed": False, "why": "a blind resend; the key is forgotten after 24 h", "voice": "attack"}),
    ("t28-attack-bad-intent-after-dispatch-sideways", {
        "checkpoint": "The request is handed to the HTTP client, and while it is in flight we "
                      "record the intent; the result is stored when it lands.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator settles open charges."},
     {"passed": False, "why": "the intent is written after the call left: W2 loses it",
      "voice": "attack"}),
    ("t28-attack-bad-escalate-all-hand-to-finance", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "An intent with no outcome is never touched by the worker; finance "
                          "gets a ticket for each one and reconciles it against the PSP.",
        "failureMode": "Finance has to reconcile by hand."},
     {"passed": False, "why": "every open intent goes to a person, even inside the retention",
      "voice": "attack"}),
    ("t28-attack-good-unusual-words-ledger-first", {
        "checkpoint": "Before money moves, a 'pending' line goes into our ledger table and is "
                      "committed; the PSP call comes after, and its answer replaces the "
                      "pending line.",
        "idempotency": "The dedup token is the ledger line's natural key: run, step, body hash. "
                       "Rebuilt identically on any retry.",
        "resumeProtocol": "Pending lines are checked against the PSP by token. Known there: "
                          "copy the answer. Unknown and less than a day old: send again with "
                          "the token. Older: freeze the run and open a ticket.",
        "failureMode": "A ticket per pending line older than a day, and a PSP read per "
                       "pending line on restart."},
     {"passed": True, "why": "intent, derived key, lookup, young resend, escalate",
      "voice": "attack"}),
    ("t28-attack-good-actor-mailbox", {
        "checkpoint": "The payment actor persists a ChargeIntended event (with its key) and "
                      "only then messages the gateway; ChargeSucceeded is persisted on reply.",
        "idempotency": "Key = hash of actor id, sequence number and payload; the same on every "
                       "replay.",
        "resumeProtocol": "On restart the actor replays its events; a ChargeIntended with no "
                          "outcome is queried at the gateway by key; absent and within 24 h it "
                          "is sent again with that key; beyond that the actor waits for an "
                          "operator.",
        "failureMode": "Beyond 24 h the actor waits for an operator even when nothing was "
                       "charged."},
     {"passed": True, "why": "intent event, derived key, lookup then young resend, escalate",
      "voice": "attack"}),
    ("t28-attack-good-terse-checklist", {
        "checkpoint": "1) persist intent+key 2) call 3) persist outcome",
        "idempotency": "key = f(run, step, args), deterministic",
        "resumeProtocol": "open intent -> query provider by key -> hit: record; miss <24h: "
                          "same-key resend; miss >=24h: escalate",
        "failureMode": "escalation past 24h; one query per open intent"},
     {"passed": True, "why": "the whole safe design in arrows", "voice": "attack"}),
    ("t28-attack-good-fm-plain-cost-bookkeeping", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "tradeOff": "More bookkeeping: every charge leaves two rows behind, and someone has to "
                    "sort out the ones stranded past a day."},
     {"passed": True, "why": "true costs said plainly", "voice": "attack"}),
    ("t28-attack-bad-resend-ignores-clock", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "Look the open intent up by key; when the provider says it has "
                          "nothing, we resend with the same key, no matter what the clock says.",
        "failureMode": "A lookup per open intent on recovery."},
     {"passed": False, "why": "the resend ignores the intent's age: past 24 h a duplicate",
      "voice": "attack"}),
    ("t28-attack-bad-key-new-on-restart-sideways", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Each worker process stamps its own key on a charge when it picks the "
                       "step up; within one process retries keep it.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator settles open charges."},
     {"passed": False, "why": "a restarted worker stamps another key: the lookup misses and "
      "the resend charges twice", "voice": "attack"}),
    # a second round of the attack (4 outlines, 2 bad ones passing, fixed by class)
    ("t28-attack-bad-resend-following-day", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "Look the open intent up by key; a miss is resent with the same key, "
                          "including when we only get to it the following day.",
        "failureMode": "A lookup per open intent on recovery."},
     {"passed": False, "why": "a resend the following day", "voice": "attack"}),
    ("t28-attack-bad-key-includes-retry-count-sideways", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id and step, with the number of tries so far "
                       "appended so each try is traceable.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "Past 24 h an operator settles open charges."},
     {"passed": False, "why": "the try count changes the key", "voice": "attack"}),
    ("t28-attack-bad-fm-no-human-ever", {
        "checkpoint": "Intent committed before the charge, result after.",
        "idempotency": "Key derived from run id, step and payload digest; stable across retries.",
        "resumeProtocol": "Look the open intent up by key; if missing and under 24 h, resend "
                          "with the same key; older goes to an operator.",
        "failureMode": "One extra write per call, and recovery is fully hands-off at any age."},
     {"passed": False, "why": "past 24 h it escalates: hands-off is false", "voice": "attack"}),
    ("t28-attack-good-plain-words", {
        "checkpoint": "We note down what we are about to charge, and make sure that note is "
                      "safely on disk, before we ask the bank for money; the bank's answer is "
                      "noted after.",
        "idempotency": "The charge carries a label worked out from the run and the step, so "
                       "asking twice gives the same label.",
        "resumeProtocol": "After a crash we ask the bank whether it knows that label; if it "
                          "does we keep its answer; if not and the note is less than a day old "
                          "we ask again with the same label; older notes go to a person.",
        "failureMode": "Notes older than a day wait for a person, and each charge costs a disk "
                       "write."},
     {"passed": True, "why": "the whole safe design in plain words", "voice": "attack"}),
]
