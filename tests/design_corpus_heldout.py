"""The HELD-OUT half of the designOutline() corpus (issue 17): never used to tune the reader.

Written first and committed before the reader was changed; agreement is reported on this half
only. Each entry is ``(name, outline, expected)`` with ``expected``:

- ``passed``: the verdict a careful human grader gives (bool);
- ``why``: the reason, in one sentence (what makes it pass or fail);
- ``voice``: how it is written (terse, verbose, non-native, outbox, event-log, queue, stuffed,
  contradicting, content-free, negation, qualifier, false-failure, plain-cost ...);
- ``contradiction`` (optional, True): the feedback must name a contradiction (every stuffed or
  self-contradicting outline has it).

Ground truth about the designs (from the sweep, module 05b): only intent-and-result +
{derived-key, stored-key, client-reference} + replay-and-lookup is clean; derived and stored keys
escalate to an operator past the provider's 24 h key retention (W2..W4), a client reference
does not (the search works forever). A good outline names one of those three designs and a
failure mode or trade-off that is true about it: a cost (an extra write, a lookup round trip,
latency, storage), the retention limit, the escalation past retention (derived/stored key only),
a dependency on what the provider supports. Everything else fails.
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT: list[Entry] = [
    # == good: passes ===========================================================================
    ("h-terse-1", {
        "checkpoint": "intent row before the charge, result row after",
        "idempotency": "key = hash(run id, step, args), same on every retry",
        "resumeProtocol": "unfinished intent: look it up by key at the PSP, resend only if absent",
        "tradeOff": "2 writes per call"},
     {"passed": True, "why": "the clean design, a plain cost", "voice": "terse"}),
    ("h-terse-2", {
        "checkpoint": "WAL entry before dispatch; result appended after.",
        "idempotency": "deterministic key from run+step+payload digest",
        "resumeProtocol": "replay; reconcile open intents via provider lookup",
        "failureMode": "extra lookup round trip per open intent at recovery"},
     {"passed": True, "why": "the clean design, a plain cost", "voice": "terse"}),
    ("h-verbose-1", {
        "checkpoint": "Before the agent ever talks to the payment provider, it writes a record "
                      "to the run's journal that says exactly which call it is about to make, "
                      "with the tool name, the arguments and the key it will use. This record "
                      "is committed and fsynced. Only then does the HTTP request go out. When "
                      "the provider answers, the receipt is appended as a second record.",
        "idempotency": "The idempotency key is computed from the run id, the position of the "
                       "step in the run and a digest of the canonical arguments, so that any "
                       "retry of the same logical call produces byte-for-byte the same key.",
        "resumeProtocol": "On restart the worker replays the journal from the beginning. Steps "
                          "with a recorded result are not executed again. For a step that has "
                          "an intent but no result, the worker first asks the provider whether "
                          "it knows a charge with that key; if it does, the receipt is recorded "
                          "and the run moves on; if it does not, the call is sent again with the "
                          "same key.",
        "failureMode": "Every external call now costs one more synchronous write before it "
                       "goes out, which adds latency to every tool call."},
     {"passed": True, "why": "the clean design; a cost stated plainly without any vocabulary "
                             "word", "voice": "verbose"}),
    ("h-verbose-2", {
        "checkpoint": "We journal each planned tool call (an 'intent') durably before sending "
                      "it, and we journal the response once it is received.",
        "idempotency": "A UUID is generated once when the intent is created, stored inside the "
                       "intent record, and reused as the Idempotency-Key header on every "
                       "attempt of that operation.",
        "resumeProtocol": "On resume we replay recorded results; for any intent that lacks a "
                          "result we query the provider by that stored key and only re-send "
                          "with the same key when the provider says it has never seen it.",
        "failureMode": "If we come back after the provider's 24-hour key retention, the lookup "
                       "cannot prove anything, so the run is parked for a human to decide."},
     {"passed": True, "why": "stored key, clean; escalation past retention is true",
      "voice": "verbose"}),
    ("h-nonnative-1", {
        "checkpoint": "We are writing the intent in the journal before to call the payment API, "
                      "and the result after it come back.",
        "idempotency": "The key is make from run id and step number and hash of payload, always "
                       "same for the retries.",
        "resumeProtocol": "When restart, for each intent without result we are asking to the "
                          "provider with the key if the charge exist. If exist we take the "
                          "receipt, if not we send again with same key.",
        "failureMode": "After 24 hours provider is forgetting the key, then nobody can know if "
                       "charge was done, operator must decide."},
     {"passed": True, "why": "clean design, true limit", "voice": "non-native"}),
    ("h-nonnative-2", {
        "checkpoint": "Intent is saved on disk before each tool calling; result is saved when "
                      "the call finish.",
        "idempotency": "Idempotency key is built from the workflow id plus the step, so retry "
                       "has the same key.",
        "resumeProtocol": "At restart we replay journal, and for open intent we check with the "
                          "provider by the key before any resend.",
        "tradeOff": "It is more slow, because each call need one more disk write."},
     {"passed": True, "why": "clean design, plain cost", "voice": "non-native"}),
    ("h-nonnative-3", {
        "checkpoint": "Before calling, we persist a pending record; after calling, we persist "
                      "the answer.",
        "idempotency": "we use the order id as idempotency key, it not change between attempts",
        "resumeProtocol": "for pending record without answer we make lookup at stripe with the "
                          "key; found = record it, not found = send again same key",
        "failureMode": "recovery is need one more request to stripe for every pending record"},
     {"passed": True, "why": "clean design, plain cost", "voice": "non-native"}),
    ("h-outbox-1", {
        "checkpoint": "Transactional outbox: the charge request is inserted into an outbox "
                      "table in the same transaction as the run's state, before anything is "
                      "sent; the relay writes the provider's response back into that row.",
        "idempotency": "The outbox row id, derived from run id and step, is sent as the "
                       "idempotency key on every delivery attempt.",
        "resumeProtocol": "On restart the relay picks up rows that have no response yet and "
                          "first asks the provider for a charge with that key; only if there "
                          "is none does it deliver the row again.",
        "tradeOff": "One more table and one more synchronous insert per outgoing call."},
     {"passed": True, "why": "outbox = intent before, result after; clean; plain cost",
      "voice": "outbox"}),
    ("h-outbox-2", {
        "checkpoint": "Outbox pattern. Pending row committed before the call, response stored "
                      "in the same row afterwards.",
        "idempotency": "Row key = sha256(run_id, step, body); it is the Idempotency-Key header.",
        "resumeProtocol": "Unacknowledged outbox rows are reconciled: look the key up at the "
                          "provider, record what it says, resend with the same key only if it "
                          "is unknown there.",
        "failureMode": "Past the 24 h key retention a lookup proves nothing, so those rows "
                       "are escalated to a person."},
     {"passed": True, "why": "outbox, pending row committed before the call; clean",
      "voice": "outbox"}),
    ("h-eventlog-1", {
        "checkpoint": "Event sourcing: a ChargeRequested event is appended to the run's event "
                      "log before the request leaves, and a ChargeSucceeded event after the "
                      "provider answers.",
        "idempotency": "Effect key derived from the run and step plus a payload digest, fixed "
                       "for all attempts.",
        "resumeProtocol": "Rebuild the run by folding the event log. A ChargeRequested without "
                          "a ChargeSucceeded is reconciled by fetching the charge from the "
                          "provider by key; resend only if it is not there.",
        "tradeOff": "The event log grows with every call and needs compaction eventually."},
     {"passed": True, "why": "event log with a requested event before the call; storage cost",
      "voice": "event-log"}),
    ("h-eventlog-2", {
        "checkpoint": "ActivityScheduled goes to the history before the activity is started; "
                      "ActivityCompleted when it returns.",
        "idempotency": "workflow id + activity id, stable across retries, passed as the key",
        "resumeProtocol": "Replay history; for a scheduled activity with no completion, call "
                          "the provider's GET endpoint with the key before retrying it.",
        "failureMode": "Two history writes per activity; also past the provider's retention "
                       "window the run needs an operator."},
     {"passed": True, "why": "temporal-style history; true cost and limit",
      "voice": "event-log"}),
    ("h-queue-1", {
        "checkpoint": "A 'charge requested' message is written to a durable queue and to the "
                      "journal before the worker calls the provider; the result is journaled "
                      "before the message is acked.",
        "idempotency": "The message carries a key derived from run id + step; every redelivery "
                       "uses that same key.",
        "resumeProtocol": "A redelivered message whose result is not journaled triggers a "
                          "lookup at the provider by key first; only an unknown key is sent "
                          "again.",
        "tradeOff": "At-least-once delivery means extra lookups on redelivery, and one more "
                    "write per call."},
     {"passed": True, "why": "queue phrasing of the clean design; true cost",
      "voice": "queue"}),
    ("h-client-ref-1", {
        "checkpoint": "Intent recorded before sending, receipt recorded after.",
        "idempotency": "No idempotency key: our provider does not deduplicate, so each charge "
                       "carries our own client reference (run id + step) in its metadata, "
                       "which we can search by.",
        "resumeProtocol": "For an unresolved intent, search the provider's charges by our "
                          "client reference; if one is found, record it; otherwise charge "
                          "again with the same reference.",
        "tradeOff": "A search request for each unresolved call at recovery, and we depend on "
                    "the provider's search API."},
     {"passed": True, "why": "client reference, clean; 'no idempotency key' is true and not a "
                             "contradiction", "voice": "negation"}),
    ("h-client-ref-2", {
        "checkpoint": "We write down what we're about to charge before we charge it, and the "
                      "receipt after.",
        "idempotency": "We tag every charge with our order reference so it can be found later.",
        "resumeProtocol": "Look for a charge tagged with our order reference; found means done, "
                          "not found means send it.",
        "failureMode": "Finding a charge costs an extra API call during recovery."},
     {"passed": True, "why": "client reference in plain words; clean; plain cost",
      "voice": "plain"}),
    ("h-plain-cost-1", {
        "checkpoint": "The intent goes into SQLite before the HTTP call and the result after.",
        "idempotency": "Key derived from run id, step index and the argument digest.",
        "resumeProtocol": "Look the charge up by the key before resending anything.",
        "tradeOff": "One more synchronous write per call."},
     {"passed": True, "why": "the issue's example of a cost stated plainly",
      "voice": "plain-cost"}),
    ("h-plain-cost-2", {
        "checkpoint": "Intent before the call, result after, both fsynced.",
        "idempotency": "Derived key: run + step + payload hash.",
        "resumeProtocol": "Reconcile by lookup, then resend with the same key if unknown.",
        "tradeOff": "Each payment waits for a disk flush before it is sent, so p99 latency goes "
                    "up by a few milliseconds."},
     {"passed": True, "why": "latency cost in own words", "voice": "plain-cost"}),
    ("h-window-words-1", {
        "checkpoint": "Intent journaled before dispatch, result after.",
        "idempotency": "A key derived from run, step and payload, reused on retries.",
        "resumeProtocol": "Replay; for an intent without result, ask the provider by key, then "
                          "resend with the same key only if it never saw it.",
        "failureMode": "If the machine dies after the provider took the money but before we "
                       "wrote the receipt down, and we only come back two days later, the "
                       "provider has forgotten the key and someone has to check by hand."},
     {"passed": True, "why": "a failure window described in words without W-numbers; true",
      "voice": "window-words"}),
    ("h-window-words-2", {
        "checkpoint": "Record 'about to charge' before the API call; record the receipt once "
                      "it returns.",
        "idempotency": "The same idempotency key on every attempt, derived from the run id and "
                       "the step.",
        "resumeProtocol": "Before resending an unfinished charge, query the provider with that "
                          "key.",
        "failureMode": "When the response is lost in transit and recovery happens after the "
                       "provider's retention, the charge cannot be verified automatically and "
                       "an operator is paged."},
     {"passed": True, "why": "window described in words; true escalation", "voice":
      "window-words"}),
    ("h-negation-ok-1", {
        "checkpoint": "Never call the provider before the intent is durably journaled; the "
                      "result is journaled after.",
        "idempotency": "Not a fresh key per attempt: the key is derived from run and step and "
                       "never changes.",
        "resumeProtocol": "Nothing is resent until the provider has been asked about the key.",
        "tradeOff": "An extra fsync per call."},
     {"passed": True, "why": "negations that protect the mechanism, read correctly",
      "voice": "negation"}),
    ("h-negation-ok-2", {
        "checkpoint": "No call leaves the process without an intent row committed first; the "
                      "result row follows the response.",
        "idempotency": "We don't mint random keys; the key is a hash of run id, step and "
                       "payload.",
        "resumeProtocol": "We don't retry blindly: an unresolved intent is looked up at the "
                          "provider by its key, and only resent if the provider has no record.",
        "failureMode": "Costs one lookup per unresolved intent on recovery."},
     {"passed": True, "why": "negated wrong choices, right choices read", "voice": "negation"}),
    ("h-negation-ok-3", {
        "checkpoint": "The journal gets the intent before the call (not after) and the result "
                      "after.",
        "idempotency": "Rather than a random UUID per request, a key derived from the run and "
                       "step.",
        "resumeProtocol": "Instead of resending, reconcile by looking the charge up; resend "
                          "with the same key only when it is missing.",
        "tradeOff": "Two journal writes per call instead of one."},
     {"passed": True, "why": "'rather than', 'instead of' scope read", "voice": "negation"}),
    ("h-structured-1", {
        "checkpoint": {"mechanism": "intent-and-result",
                       "detail": "intent written before the HTTP call, result after"},
        "idempotency": {"mechanism": "stored-key",
                        "detail": "uuid4 made once with the intent and journaled with it"},
        "resumeProtocol": {"mechanism": "replay-and-lookup",
                           "detail": "look up by the stored key before any resend"},
        "tradeOff": "One extra write per call."},
     {"passed": True, "why": "typed form of a clean design", "voice": "structured"}),
    ("h-structured-2", {
        "checkpoint": {"mechanism": "intent-and-result",
                       "detail": "pending row before the call, completed row after"},
        "idempotency": {"mechanism": "client-reference",
                        "detail": "our reference in the charge metadata, searchable"},
        "resumeProtocol": {"mechanism": "replay-and-lookup",
                           "detail": "search by reference, resend if not found"},
        "failureMode": "Recovery costs one search call per unresolved charge."},
     {"passed": True, "why": "typed form, client reference", "voice": "structured"}),
    ("h-bullets", {
        "checkpoint": "- before: intent (tool, args, key) -> journal\n- after: result -> "
                      "journal",
        "idempotency": "- key := sha256(run_id | step | canonical(args))\n- identical on every "
                       "retry",
        "resumeProtocol": "- replay journal\n- open intent -> GET charge by key\n  - found: "
                          "record\n  - missing: resend, same key",
        "tradeOff": "- +1 fsync per call\n- +1 round trip per open intent on recovery"},
     {"passed": True, "why": "bullet notation of the clean design", "voice": "terse"}),
    ("h-informal", {
        "checkpoint": "basically we jot down 'gonna charge X' in the db before hitting stripe, "
                      "then the receipt after",
        "idempotency": "key's just run id + step hashed with the body, so retries reuse it",
        "resumeProtocol": "on restart, anything with a 'gonna charge' but no receipt -> ask "
                          "stripe about that key first, only resend if stripe's never heard of "
                          "it",
        "tradeOff": "extra db write every call, bit slower"},
     {"passed": True, "why": "informal voice, clean design, plain cost", "voice": "informal"}),
    ("h-retention-limit", {
        "checkpoint": "Journal the intent before dispatch and the result after.",
        "idempotency": "Key derived from run + step + payload, unchanged across attempts.",
        "resumeProtocol": "Reconcile unresolved intents by lookup at the provider, resend with "
                          "the same key if unknown, escalate if the key may have expired.",
        "failureMode": "The provider keeps keys for 24 hours only; a recovery later than that "
                       "cannot be settled automatically."},
     {"passed": True, "why": "true retention limit", "voice": "plain"}),
    ("h-dependency-tradeoff", {
        "checkpoint": "Intent first, in the journal, then the call, then the result.",
        "idempotency": "Deterministic idempotency key from run id and step number.",
        "resumeProtocol": "Look the unresolved call up by its key at the provider before "
                          "resending it.",
        "tradeOff": "It only works with a provider that deduplicates by key and lets us look a "
                    "key up; a provider without that API would need a different design."},
     {"passed": True, "why": "a true trade-off: a dependency on the provider",
      "voice": "plain-cost"}),
    ("h-storage-tradeoff", {
        "checkpoint": "Every tool call gets an intent entry in the append-only journal before "
                      "it runs and a result entry after.",
        "idempotency": "Idempotency key from a SHA-256 over run, step and the canonical "
                       "payload.",
        "resumeProtocol": "Replay the journal; intents without a result are reconciled with the "
                          "provider by key before any resend.",
        "tradeOff": "Storage: two journal rows per call, kept for the life of the run."},
     {"passed": True, "why": "true storage cost", "voice": "plain-cost"}),
    ("h-order-first", {
        "resumeProtocol": "First reconcile: query the provider for the key of every intent "
                          "without a result; then continue the replay.",
        "tradeOff": "Recovery is slower, one request per open intent.",
        "idempotency": "The key is the order id plus the step name: the same value on every "
                       "retry.",
        "checkpoint": "The intent is persisted before calling out; the outcome once the call "
                      "returns."},
     {"passed": True, "why": "fields in another order", "voice": "plain"}),
    ("h-fsync-latency", {
        "checkpoint": "Durable intent record prior to each external call, durable result record "
                      "afterwards.",
        "idempotency": "Keys derived from run id + step; no randomness anywhere.",
        "resumeProtocol": "Ask the payment service whether it processed the key before doing "
                          "anything else with an unfinished step.",
        "failureMode": "The fsync before each call dominates the latency of fast tools."},
     {"passed": True, "why": "'prior to', 'no randomness' read; true cost", "voice": "verbose"}),
    ("h-german-ish", {
        "checkpoint": "Before the call the intent is written into the journal, after the call "
                      "the result.",
        "idempotency": "The key becomes from run-ID, step and payload-hash calculated and stays "
                       "by every retry the same.",
        "resumeProtocol": "By the restart, for every intent without result, the provider is "
                          "asked with the key; only if he knows it not, is sent again.",
        "tradeOff": "Per call one write more in the journal."},
     {"passed": True, "why": "non-native word order, clean design", "voice": "non-native"}),
    ("h-french-ish", {
        "checkpoint": "We register the intention in the journal before to do the call, and the "
                      "result after.",
        "idempotency": "The key is calculated from the run and the step, it is the same at each "
                       "retry.",
        "resumeProtocol": "At the reprise, for an intention without result, we interrogate the "
                          "provider with the key before to resend.",
        "failureMode": "After 24h the provider forgets the key, so a human must verify."},
     {"passed": True, "why": "non-native, 'intention', 'interrogate'; true limit",
      "voice": "non-native"}),
    ("h-escalate-mentioned-ok", {
        "checkpoint": "Intent journaled before dispatch, result after.",
        "idempotency": "Derived key from run and step and a payload digest.",
        "resumeProtocol": "Reconcile by lookup; resend with the same key if the provider does "
                          "not know it; escalate to an operator only when the key may have "
                          "expired.",
        "failureMode": "Late recoveries past retention end with an operator."},
     {"passed": True, "why": "escalation only as the last branch of a lookup", "voice":
      "plain"}),
    ("h-pending-row", {
        "checkpoint": "A pending payment row is committed before the provider is called; it is "
                      "updated to 'done' with the receipt afterwards.",
        "idempotency": "The pending row's id is derived from run + step and doubles as the "
                       "Idempotency-Key.",
        "resumeProtocol": "Pending rows left over after a crash are checked against the "
                          "provider by that id; confirmed ones are marked done, unknown ones "
                          "are sent again with the same id.",
        "tradeOff": "An extra commit per payment."},
     {"passed": True, "why": "pending row committed before the call (issue's example)",
      "voice": "plain"}),
    ("h-two-sentences-cost-and-limit", {
        "checkpoint": "write ahead: intent then call then result",
        "idempotency": "same key every attempt, computed from run/step/args",
        "resumeProtocol": "lookup by key, then resend or record",
        "failureMode": "costs a journal write per call. past the key retention, an operator has "
                       "to settle it."},
     {"passed": True, "why": "terse but each field has a relation", "voice": "terse"}),
    ("h-metadata-search", {
        "checkpoint": "Intent before call, result after, in the journal.",
        "idempotency": "Our own reference (run id and step) is stored in the charge's metadata "
                       "at the provider.",
        "resumeProtocol": "Search the provider's charges by that metadata before charging "
                          "again.",
        "tradeOff": "Depends on the provider's search being consistent; one search per "
                    "unresolved charge."},
     {"passed": True, "why": "client reference via metadata; true cost", "voice": "plain"}),
    ("h-checkpoint-long-key", {
        "checkpoint": "Two-phase journaling: phase one writes the intent (tool name, "
                      "arguments, key) and commits; phase two, after the call, writes the "
                      "outcome.",
        "idempotency": "An HMAC of run id, step and arguments, the same for every retry of "
                       "that step.",
        "resumeProtocol": "Replay; any phase-one entry without a phase-two entry is resolved by "
                          "a provider lookup on the key, resend only when absent.",
        "tradeOff": "Two commits per call."},
     {"passed": True, "why": "two-phase phrasing", "voice": "verbose"}),
    ("h-q-and-a", {
        "checkpoint": "When? Before the call (intent) and after it (result).",
        "idempotency": "How? A key derived from run id + step, reused on retries.",
        "resumeProtocol": "What happens to a sent-but-unrecorded call? We look it up at the "
                          "provider by its key; resend only if it is not there.",
        "failureMode": "What does it cost? One extra write per call and a lookup per open "
                       "call on recovery."},
     {"passed": True, "why": "question-and-answer voice", "voice": "informal"}),
    ("h-hmm-but-ok", {
        "checkpoint": "Journal the intent before the call and the result after, but both in "
                      "one SQLite file with synchronous=FULL.",
        "idempotency": "Derived key (run, step, payload digest).",
        "resumeProtocol": "Replay, then look up each open intent by key; resend if unknown.",
        "tradeOff": "One extra fsync per call."},
     {"passed": True, "why": "a 'but' clause that adds detail, does not undo the mechanism",
      "voice": "qualifier"}),
    ("h-only-if", {
        "checkpoint": "Intent journaled before dispatch, result journaled after.",
        "idempotency": "Key derived from run + step.",
        "resumeProtocol": "Resend only if a lookup by key at the provider says the charge does "
                          "not exist.",
        "failureMode": "One lookup round trip per crashed call."},
     {"passed": True, "why": "'only if' qualifies the resend, keeps the lookup",
      "voice": "qualifier"}),
    # == bad: fails =============================================================================
    ("h-bad-single-words", {
        "checkpoint": "intent", "idempotency": "derived key", "resumeProtocol": "lookup",
        "failureMode": "latency"},
     {"passed": False, "why": "a single vocabulary word per field: no mechanism described",
      "voice": "content-free"}),
    ("h-bad-single-words-2", {
        "checkpoint": "write-ahead", "idempotency": "idempotency key",
        "resumeProtocol": "reconcile", "tradeOff": "cost"},
     {"passed": False, "why": "words, not a design", "voice": "content-free"}),
    ("h-bad-memory-intent", {
        "checkpoint": "We create an intent object before each call and keep it in memory; "
                      "nothing is written to disk.",
        "idempotency": "Key derived from run id + step + payload.",
        "resumeProtocol": "Look up unresolved intents at the provider by key.",
        "failureMode": "One extra lookup per call on recovery."},
     {"passed": False, "why": "persists nothing yet mentions an intent (issue's example)",
      "voice": "qualifier", "contradiction": True}),
    ("h-bad-memory-intent-2", {
        "checkpoint": "The intent lives only in the worker's memory until the result arrives; "
                      "then both are written.",
        "idempotency": "Deterministic key from run + step.",
        "resumeProtocol": "Replay, and look up any open intent by key.",
        "tradeOff": "One write per call instead of two."},
     {"passed": False, "why": "intent held only in memory: result-only in effect",
      "voice": "qualifier"}),
    ("h-bad-derived-regenerated", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "The key is derived from run and step, plus a fresh random suffix "
                       "generated on every retry so the provider never rejects it.",
        "resumeProtocol": "Replay; look up the key at the provider, resend if not found.",
        "failureMode": "A lookup per open intent."},
     {"passed": False, "why": "derived from run and step but regenerated per retry (issue)",
      "voice": "qualifier"}),
    ("h-bad-derived-regenerated-2", {
        "checkpoint": "WAL: intent before, result after.",
        "idempotency": "We derive the key from the run id and the step, and append the attempt "
                       "number so each retry has its own key.",
        "resumeProtocol": "Query the provider for the key before resending.",
        "tradeOff": "Extra round trip on recovery."},
     {"passed": False, "why": "attempt number in the key: a new key per attempt",
      "voice": "qualifier"}),
    ("h-bad-nobody-asks", {
        "checkpoint": "Intent before dispatch, result after, in the journal.",
        "idempotency": "Key derived from run + step + payload digest.",
        "resumeProtocol": "On restart we resend every call that has no result. Nobody asks the "
                          "provider anything; the key should take care of it.",
        "failureMode": "One extra write per call."},
     {"passed": False, "why": "resends everything, says nobody asks the provider (issue)",
      "voice": "negation"}),
    ("h-bad-no-lookup", {
        "checkpoint": "Intent journaled before the call; result journaled after.",
        "idempotency": "The same idempotency key on every attempt, derived from run and step.",
        "resumeProtocol": "Replay, then re-send unfinished calls with the same key, without "
                          "looking anything up at the provider.",
        "tradeOff": "Simple: no lookup round trip."},
     {"passed": False, "why": "blind resend: duplicate charge past retention",
      "voice": "negation"}),
    ("h-bad-never-sent-key", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "We derive a key from run + step and keep it in the journal, but we "
                       "never send it to the provider.",
        "resumeProtocol": "Look the charge up at the provider by key before resending.",
        "failureMode": "A lookup per crashed call."},
     {"passed": False, "why": "a key kept but never sent: the provider cannot dedupe or be "
                             "asked", "voice": "qualifier", "contradiction": True}),
    ("h-bad-only-after", {
        "checkpoint": "We write the intent to the journal, but only after the provider has "
                      "answered.",
        "idempotency": "Key derived from the run, the step and the payload.",
        "resumeProtocol": "Replay the journal; look unresolved intents up by key.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "'only after' undoes the intent-before-call", "voice":
      "qualifier"}),
    ("h-bad-but-disabled", {
        "checkpoint": "We journal the intent before the call and the result after, but the "
                      "journal is an in-memory list that is lost when the process dies.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Replay the journal, look open intents up at the provider.",
        "failureMode": "Lookups cost a round trip."},
     {"passed": False, "why": "a 'but' clause: the journal is only in memory",
      "voice": "qualifier", "contradiction": True}),
    ("h-bad-stuffed-1", {
        "checkpoint": "intent before dispatch, write-ahead log, result after, snapshot, "
                      "journal, checkpoint after each step, WAL",
        "idempotency": "idempotency key derived from run + step, stable key, effect key, "
                       "client reference, uuid stored once",
        "resumeProtocol": "replay, reconcile, lookup, query the provider, escalate, compensate, "
                          "retry",
        "failureMode": "duplicate charge, lost effect, stuck run, latency, W1-W5"},
     {"passed": False, "why": "keyword stuffed", "voice": "stuffed", "contradiction": True}),
    ("h-bad-stuffed-2", {
        "checkpoint": "Journal intent before the call and result after (write-ahead, WAL, "
                      "snapshot every step, durable, fsync).",
        "idempotency": "Derived key / stored UUID / client reference / random per attempt, "
                       "whichever works.",
        "resumeProtocol": "Lookup, reconcile, replay, blind retry, saga compensation, operator.",
        "tradeOff": "Latency, storage, complexity, duplicates, lost payments."},
     {"passed": False, "why": "keyword stuffed: every choice at once", "voice": "stuffed",
      "contradiction": True}),
    ("h-bad-stuffed-3", {
        "checkpoint": "intent-and-result",
        "idempotency": "derived-key stored-key client-reference",
        "resumeProtocol": "replay-and-lookup",
        "failureMode": "duplicate lost stuck wrong cost limit"},
     {"passed": False, "why": "choice names pasted as text, stuffed failure mode",
      "voice": "stuffed", "contradiction": True}),
    ("h-bad-contradict-1", {
        "checkpoint": "Nothing is persisted; the agent is stateless.",
        "idempotency": "Key derived from run + step.",
        "resumeProtocol": "Replay the journal and look up open intents at the provider.",
        "failureMode": "One extra write per call."},
     {"passed": False, "why": "persists nothing, yet replays a journal and claims a write",
      "voice": "contradicting", "contradiction": True}),
    ("h-bad-contradict-2", {
        "checkpoint": "Intent journaled before dispatch, result after.",
        "idempotency": "Key derived from run id and step, the same every attempt.",
        "resumeProtocol": "Look it up by key, then resend if unknown.",
        "failureMode": "Because every retry gets a new random key, a lost response can charge "
                       "twice."},
     {"passed": False, "why": "failure mode contradicts the idempotency field",
      "voice": "contradicting", "contradiction": True}),
    ("h-bad-contradict-3", {
        "checkpoint": "We journal the intent before the call. We never write anything before "
                      "the call returns.",
        "idempotency": "Derived key from run + step + payload.",
        "resumeProtocol": "Lookup by key at the provider, resend if missing.",
        "tradeOff": "Extra write per call."},
     {"passed": False, "why": "two sentences that contradict each other",
      "voice": "contradicting", "contradiction": True}),
    ("h-bad-contradict-4", {
        "checkpoint": "Intent before, result after.",
        "idempotency": "No idempotency key at all; the provider doesn't support them.",
        "resumeProtocol": "Look the charge up at the provider by its idempotency key.",
        "failureMode": "A lookup per open intent."},
     {"passed": False, "why": "lookup by a key the design says it does not have",
      "voice": "contradicting", "contradiction": True}),
    ("h-bad-contradict-5", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "A random UUID per attempt, derived from the run and step.",
        "resumeProtocol": "Reconcile by lookup, resend with the same key.",
        "tradeOff": "One more write per call."},
     {"passed": False, "why": "random per attempt and derived in the same breath",
      "voice": "contradicting", "contradiction": True}),
    ("h-bad-false-safety", {
        "checkpoint": "Intent before dispatch, result after.",
        "idempotency": "Key derived from run + step.",
        "resumeProtocol": "Resend every unfinished call with the same key.",
        "failureMode": "None: the key makes resending always safe, a double charge is "
                       "impossible."},
     {"passed": False, "why": "blind retry; failure mode claims a safety the sweep refutes",
      "voice": "false-failure"}),
    ("h-bad-no-cost", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Key derived from run id + step + payload digest.",
        "resumeProtocol": "Look the charge up by key; resend with the same key if absent.",
        "failureMode": "There is no failure mode, this design is perfectly safe."},
     {"passed": False, "why": "names no cost at all (issue)", "voice": "false-failure"}),
    ("h-bad-no-cost-2", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Key derived from run id + step.",
        "resumeProtocol": "Reconcile by lookup before resend.",
        "tradeOff": "No downside that I can see."},
     {"passed": False, "why": "no trade-off named", "voice": "false-failure"}),
    ("h-bad-false-double", {
        "checkpoint": "Intent journaled before dispatch, result after.",
        "idempotency": "Stable key derived from run and step.",
        "resumeProtocol": "Lookup at the provider by key, resend with the same key if absent.",
        "failureMode": "A lost response always leads to a second charge."},
     {"passed": False, "why": "claims a duplicate the sweep never shows", "voice":
      "false-failure"}),
    ("h-bad-false-lost", {
        "checkpoint": "Intent before, result after, both durable.",
        "idempotency": "Our order reference in the metadata, searchable.",
        "resumeProtocol": "Search by reference; resend if not found.",
        "failureMode": "If the process crashes after the charge, the booking is lost for good."},
     {"passed": False, "why": "claims a lost effect the sweep never shows", "voice":
      "false-failure"}),
    ("h-bad-vague-1", {
        "checkpoint": "We save progress regularly.",
        "idempotency": "Make sure the payment is idempotent.",
        "resumeProtocol": "Resume from where it stopped.",
        "failureMode": "Crashes could cause issues."},
     {"passed": False, "why": "vague everywhere", "voice": "content-free"}),
    ("h-bad-vague-2", {
        "checkpoint": "Use a robust, production-grade persistence layer.",
        "idempotency": "Follow idempotency best practices.",
        "resumeProtocol": "Handle recovery gracefully.",
        "tradeOff": "Some overhead."},
     {"passed": False, "why": "buzzwords, no mechanism", "voice": "content-free"}),
    ("h-bad-vague-3", {
        "checkpoint": "TBD", "idempotency": "see above", "resumeProtocol": "n/a",
        "failureMode": "?"},
     {"passed": False, "why": "placeholders", "voice": "content-free"}),
    ("h-bad-result-only", {
        "checkpoint": "The tool's response is persisted as soon as the call returns.",
        "idempotency": "A key derived from run + step + payload.",
        "resumeProtocol": "Steps without a stored response are simply executed again.",
        "failureMode": "A crash after the charge but before saving the response repeats the "
                       "charge once the key has expired."},
     {"passed": False, "why": "result-only + blind retry: duplicate past retention",
      "voice": "plain"}),
    ("h-bad-result-only-2", {
        "checkpoint": "checkpoint after every tool call completes",
        "idempotency": "deterministic key from run+step",
        "resumeProtocol": "on resume, look up at the provider whatever was in flight",
        "tradeOff": "only one write per call"},
     {"passed": False, "why": "result-only: nothing in flight is known on resume",
      "voice": "terse", "contradiction": True}),
    ("h-bad-snapshot", {
        "checkpoint": "Every 5 seconds the whole agent state is pickled to disk.",
        "idempotency": "Derived key from run and step.",
        "resumeProtocol": "Load the latest pickle and continue.",
        "failureMode": "Up to 5 seconds of work is redone."},
     {"passed": False, "why": "snapshot: the model is asked again, duplicates",
      "voice": "plain"}),
    ("h-bad-random-attempt", {
        "checkpoint": "Intent row before the HTTP call, result row after.",
        "idempotency": "Each HTTP attempt generates a new UUID for the Idempotency-Key header.",
        "resumeProtocol": "Resend unfinished calls.",
        "failureMode": "Duplicates are possible when a response is lost."},
     {"passed": False, "why": "random key per attempt: duplicates", "voice": "plain"}),
    ("h-bad-fail-refund", {
        "checkpoint": "Intent journaled before the charge, result after.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Any unfinished call fails the run and we refund whatever has a "
                          "receipt.",
        "failureMode": "Customers may be charged without getting their booking."},
     {"passed": False, "why": "fail-and-compensate loses the order", "voice": "plain"}),
    ("h-bad-escalate-always", {
        "checkpoint": "Intent before dispatch, result after.",
        "idempotency": "Key derived from run and step.",
        "resumeProtocol": "Any call without a result is handed to the on-call engineer; the "
                          "worker never resends and never asks the provider.",
        "failureMode": "Every crash in the middle of a call needs a human."},
     {"passed": False, "why": "escalates what a lookup could settle: stuck runs",
      "voice": "negation"}),
    ("h-bad-no-checkpoint", {
        "checkpoint": "We don't checkpoint; the run is cheap to redo.",
        "idempotency": "Key from run id and step.",
        "resumeProtocol": "Start over from the beginning.",
        "failureMode": "Redoing the run costs some tokens."},
     {"passed": False, "why": "no checkpoint: the model answers again, new amount, duplicate",
      "voice": "negation", "contradiction": True}),
    ("h-bad-no-key", {
        "checkpoint": "Intent before, result after.",
        "idempotency": "We don't use idempotency keys.",
        "resumeProtocol": "Resend unfinished calls.",
        "failureMode": "A W3 crash charges twice."},
     {"passed": False, "why": "no key, blind resend", "voice": "negation"}),
    ("h-bad-not-until", {
        "checkpoint": "The intent is not recorded until the provider has confirmed the charge.",
        "idempotency": "Key derived from run + step.",
        "resumeProtocol": "Look up open intents by key.",
        "tradeOff": "Fewer writes."},
     {"passed": False, "why": "'not until' = result-only", "voice": "negation",
      "contradiction": True}),
    ("h-bad-fails-to", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "A key derived from run and step.",
        "resumeProtocol": "The worker skips the lookup and resends with the same key.",
        "failureMode": "One extra write per call."},
     {"passed": False, "why": "'skips the lookup': blind retry", "voice": "negation"}),
    ("h-bad-keyword-intent-only", {
        "checkpoint": "We have intents.",
        "idempotency": "We have keys.",
        "resumeProtocol": "We look things up.",
        "failureMode": "It can be slow."},
     {"passed": False, "why": "names words without saying when, from what, or what happens",
      "voice": "content-free"}),
    ("h-bad-nonnative-blind", {
        "checkpoint": "We save intent before calling and result after.",
        "idempotency": "Key is make from run and step.",
        "resumeProtocol": "When restart, we send again all calls without result, we not ask "
                          "the provider.",
        "failureMode": "Is more slow."},
     {"passed": False, "why": "blind resend in non-native English", "voice": "non-native"}),
    ("h-bad-outbox-blind", {
        "checkpoint": "Outbox row inserted before sending; marked sent after the response.",
        "idempotency": "Row id derived from run + step, sent as the key.",
        "resumeProtocol": "The relay simply re-delivers every row not marked sent.",
        "tradeOff": "An extra table."},
     {"passed": False, "why": "outbox with blind redelivery: duplicate past retention",
      "voice": "outbox"}),
    ("h-bad-queue-random", {
        "checkpoint": "The request goes on a durable queue before the call; the result is "
                      "stored after.",
        "idempotency": "Each delivery attempt gets its own fresh message id as the key.",
        "resumeProtocol": "Redeliver unacked messages.",
        "failureMode": "Duplicate charges after a lost response."},
     {"passed": False, "why": "queue with a fresh key per delivery", "voice": "queue"}),
    ("h-bad-eventlog-after", {
        "checkpoint": "A ChargeSucceeded event is appended once the provider answers; nothing "
                      "is written before.",
        "idempotency": "Effect key from run + step.",
        "resumeProtocol": "Fold the event log and re-run anything without a ChargeSucceeded.",
        "failureMode": "A crash before the event is written repeats the charge after the key "
                       "expired."},
     {"passed": False, "why": "event log written only after: result-only + blind",
      "voice": "event-log"}),
]
