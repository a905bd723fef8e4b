"""HELDOUT10: a blind corpus of designOutline() answers (stop s7, helper writer11).

Written blind: the author read only lesson 05b, lessons 04/05, the crash sweep in
minirt_course/scenarios/design_payment.py and issue 17, never the grader, its reader, its
tests or the earlier corpora. Each verdict is a careful human's, judged against the sweep's
semantics (intent before dispatch + a key per logical operation + look up before resend is the
only family that survives every window, at once and 25 h later; escalation past retention with
one charge counts as survived). Measured once: do not tune the grader against it.

Invariant: unique names; ``passed`` is a human verdict. Incomplete: the deadline cut it at 30
entries (15 good, 15 bad) of the 100 asked for.
It does not guarantee the grader can read every phrasing (that is what it measures), nor that a
verdict would survive designs outside design_payment's four choices.
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT10: list[Entry] = [
    # ---------------------------------------------------------------- good (passed: True)
    ("h10-good-story-first-we", {
        "checkpoint": "first we write a row 'charge about to be sent' with the args and the key "
                      "into the run's journal, commit it, then call the payment API, and when it "
                      "answers we write the receipt next to it. same thing again for the hotel.",
        "idempotency": "the key is run id + step number + a hash of the payload, so when we come "
                       "back to the same step we compute exactly the same key again",
        "resumeProtocol": "then on restart we replay the journal; a step that has the 'about to "
                          "send' row but no receipt, we ask the provider by that key first. found "
                          "-> we take that receipt. not found -> resend, same key. if the intent "
                          "is older than 24h we stop and ask a human instead",
        "failureMode": "if we crash and only come back after the provider forgot the key (24h) the "
                       "run just sits there waiting for an operator to check the charge by hand"},
     {"passed": True, "why": "intent before call, derived key, lookup then resend, escalate past "
                             "retention; failure mode (operator wait after 24 h) is true",
      "voice": "story of one run, lowercase"}),
    ("h10-good-terse-cost", {
        "checkpoint": "Intent journaled before dispatch; result journaled after.",
        "idempotency": "Key = sha256(run_id, step, payload). Stable across attempts.",
        "resumeProtocol": "Unresolved intent: look up by key; miss within retention: resend same "
                          "key; beyond retention: escalate.",
        "tradeOff": "Two synchronous journal writes per side-effecting call."},
     {"passed": True, "why": "the right design; the cost named (an extra write per call) is real",
      "voice": "terse"}),
    ("h10-good-second-person", {
        "checkpoint": "You record what you are about to do (tool, arguments, key) in the journal "
                      "and make sure it is on disk before you ever touch the payment API. When the "
                      "response comes back you record that too.",
        "idempotency": "You give the charge a name that doesn't change: you build it from the run "
                       "id, the step and a digest of the arguments, and you send it as the "
                       "Idempotency-Key header every time you try.",
        "resumeProtocol": "When you wake up and find an intent with no result, you don't resend "
                          "straight away. You ask the provider whether it knows that key. If it "
                          "does, you keep its receipt. If it doesn't and you're still inside its "
                          "retention window, you resend with the same key.  Past the window you "
                          "hand it to an operator.",
        "failureMode": "You pay latency: every charge waits for a durable write first, and a "
                       "resume costs you an extra lookup request."},
     {"passed": True, "why": "correct design in the second person; latency and lookup cost are "
                             "true costs", "voice": "second person"}),
    ("h10-good-nonnative", {
        "checkpoint": "Before to call the payment we are saving in the journal the intention "
                      "(which tool, which arguments, which key), after the call we save also the "
                      "result. Same for the booking of hotel.",
        "idempotency": "The key we make it from run id and step and the hash of payload, so it is "
                       "always same for the same operation, also when we retry.",
        "resumeProtocol": "At restart, for each intention without result we are asking first to "
                          "the provider with the key if the charge exist. If exist we take it, if "
                          "not exist we send again with the same key. When is more old than the "
                          "retention of the provider we not send, we escalate to operator.",
        "failureMode": "When the crash is longer than 24 hours the provider is forgetting the key, "
                       "so the run is stopping and one person must look manually."},
     {"passed": True, "why": "right design; true failure mode past retention", "voice":
      "non-native English"}),
    ("h10-good-bullets", {
        "checkpoint": "- step starts -> append INTENT{tool, args, key} to journal, fsync\n"
                      "- call provider\n- append RESULT{receipt} to journal",
        "idempotency": "- key = f'{run_id}:{step}:{digest(args)}'\n- same key on every retry\n"
                       "- sent as Idempotency-Key",
        "resumeProtocol": "- replay journal\n- INTENT without RESULT -> GET by key\n"
                          "  - found: record receipt, continue\n"
                          "  - not found & < 24h: resend same key\n"
                          "  - not found & > 24h: mark uncertain, page operator",
        "failureMode": "- > 24h outage: crash in W2-W4 ends up with a human\n"
                       "- one fsync before every external call"},
     {"passed": True, "why": "right design as bullets; both listed costs are true",
      "voice": "bullet lists"}),
    ("h10-good-stored-uuid", {
        "checkpoint": "The intent event is committed to the event log before we dispatch; it "
                      "carries a UUID we generate at that moment. The outcome event follows the "
                      "call.",
        "idempotency": "That UUID is generated once per logical operation and lives in the intent "
                       "event; retries read it back from the log instead of generating a new one.",
        "resumeProtocol": "Replay the log. For an intent with no outcome, query the provider with "
                          "the stored UUID; if it has the charge, record it; if not, send again "
                          "with the same UUID (only while the provider still keeps keys); "
                          "otherwise escalate.",
        "tradeOff": "The key is only as durable as the log: the intent write must reach disk "
                    "before the HTTP request, which adds a write to every call's latency."},
     {"passed": True, "why": "stored key journaled with the intent, lookup first: safe; the cost "
                             "named is true", "voice": "event log"}),
    ("h10-good-client-ref", {
        "checkpoint": "Journal the intent, with a client reference of our own, before calling; "
                      "journal the provider's reply afterwards.",
        "idempotency": "The provider doesn't deduplicate for us, but it stores our client "
                       "reference on each charge and lets us search by it. So the reference is "
                       "our handle, not a dedup key.",
        "resumeProtocol": "On restart, for an intent with no reply, search the provider for the "
                          "reference. Found: that's our charge, record it. Not found: it never "
                          "happened, send it again with the same reference.",
        "failureMode": "Since the provider never refuses a duplicate, we can never skip the search: "
                       "a resend without asking first would charge twice, and every resume pays "
                       "a search request."},
     {"passed": True, "why": "client reference + intent + lookup is clean even after 25 h; the "
                             "failure mode (must always search first, extra request) is true",
      "voice": "reasoned prose, client reference"}),
    ("h10-good-qa", {
        "checkpoint": "Q: what is durable before the charge? A: the intent row (tool, args, key). "
                      "Q: after? A: the receipt.",
        "idempotency": "Q: how does the provider know it's a retry? A: same key each time, built "
                       "from run id, step and an args hash.",
        "resumeProtocol": "Q: restart with an intent and no receipt? A: look it up by key. Hit: "
                          "use it. Miss: resend with that key if we're within 24 h, else escalate.",
        "failureMode": "Q: where does it still hurt? A: a crash recovered after the 24 h "
                       "retention can't be settled automatically, an operator has to."},
     {"passed": True, "why": "right design as Q&A; true failure mode", "voice": "Q&A"}),
    ("h10-good-pseudocode", {
        "checkpoint": "journal.append(Intent(step, tool, args, key)); journal.flush()  # before\n"
                      "res = provider.call(args, key)\njournal.append(Result(step, res))",
        "idempotency": "key = hash((run_id, step, canonical_json(args)))  # deterministic",
        "resumeProtocol": "for it in journal.intents_without_result():\n"
                          "    r = provider.lookup(it.key)\n"
                          "    if r: journal.append(Result(it.step, r))\n"
                          "    elif now - it.at < RETENTION: resend(it.args, it.key)\n"
                          "    else: mark_uncertain(it)  # operator",
        "failureMode": "# cost: mark_uncertain() path means a human in the loop after 24h downtime"},
     {"passed": True, "why": "right design in pseudo-code; the operator path past retention is "
                             "true", "voice": "pseudo-code"}),
    ("h10-good-stripe-headers", {
        "checkpoint": "Persist the pending charge (incl. the Idempotency-Key value) in our DB and "
                      "commit before POST /v1/charges; persist the charge id from the response.",
        "idempotency": "Idempotency-Key: <run_id>-<step>-<sha1(body)>. Same header value on any "
                       "retry of that request, so Stripe returns the original response.",
        "resumeProtocol": "On boot: pending rows with no charge id -> GET the charge by that key "
                          "(search). If it's there, store it. If not, and the row is < 24 h old, "
                          "POST again with the same Idempotency-Key. Older: flag for manual review.",
        "tradeOff": "Stripe prunes keys after 24 h, so anything that was pending longer than that "
                    "is manual review, never automatic."},
     {"passed": True, "why": "pending row before POST, derived key, lookup, manual review past "
                             "24 h: safe, and the trade-off is true", "voice": "Stripe headers"}),
    ("h10-good-hedged", {
        "checkpoint": "I think the safest is to write the intent to the journal before we call "
                      "the API (and the result after), so at least we know we might have sent it.",
        "idempotency": "Probably a key derived from the run id, the step and the payload hash, "
                       "so it should be identical each attempt.",
        "resumeProtocol": "If I understand correctly, on resume we'd look the charge up by that key "
                          "before doing anything; resend with the same key only if it's not found "
                          "and we're inside retention, otherwise leave it for an operator.",
        "failureMode": "I guess the weak point is a long outage: after 24 h the lookup can't prove "
                       "anything so it stays stuck until someone checks."},
     {"passed": True, "why": "hedged wording, right design, true failure mode", "voice": "hedged"}),
    ("h10-good-two-providers", {
        "checkpoint": "Intent before, result after, for both calls: the charge and the room "
                      "booking each get an intent row in the journal before we send them.",
        "idempotency": "Payments supports Idempotency-Key, we send a key derived from run+step+args. "
                       "The hotel API has no such header but takes our booking reference and can "
                       "be queried by it, so the reference is derived the same way.",
        "resumeProtocol": "Resume: for each intent without a result, ask the provider that owns "
                          "it (charge lookup by key, booking lookup by reference); found -> "
                          "record, not found -> resend with the same key/reference; charge "
                          "past 24 h -> escalate.",
        "failureMode": "The two providers differ: for the payment side a restart later than 24 h "
                       "needs a human; and every resume makes one lookup request per open call."},
     {"passed": True, "why": "mixes two providers correctly; lookup before resend on both, true "
                             "costs", "voice": "two providers"}),
    ("h10-good-outbox", {
        "checkpoint": "Transactional outbox: the charge request (with its key) is inserted into "
                      "the outbox table in the same transaction as the run's step state, before "
                      "anything is sent; the relay marks it done with the provider's reply.",
        "idempotency": "Outbox rows carry a key derived from run id + step + payload digest; the "
                       "relay always sends that key.",
        "resumeProtocol": "After a crash, rows that are sent-but-not-done are first looked up at "
                          "the provider by key; a miss inside the retention window means resend "
                          "with the key, a miss outside it goes to the dead-letter queue for an "
                          "operator.",
        "failureMode": "Dead-lettered rows (crash + more than 24 h down) need manual "
                       "reconciliation; the outbox also adds a DB write per call."},
     {"passed": True, "why": "outbox = intent before dispatch; derived key; lookup; operator past "
                             "retention; costs true", "voice": "outbox"}),
    ("h10-good-workflow-engine", {
        "checkpoint": "Like Temporal: the activity is scheduled in the history (with input) "
                      "before it runs, and its completion is recorded in the history afterwards.",
        "idempotency": "Idempotency key = workflow run id + activity id (+ input hash), passed to "
                       "the payment API; identical on every retry of the activity.",
        "resumeProtocol": "When the worker replays the history and finds a scheduled activity "
                          "with no completion, the activity first queries the provider by key; "
                          "only a confirmed miss within retention is retried with the same key. "
                          "Beyond retention it fails to a human task.",
        "tradeOff": "Each activity costs history writes before and after, and very long outages "
                    "turn into human tasks."},
     {"passed": True, "why": "workflow-engine phrasing of the right design; trade-off true",
      "voice": "workflow engine"}),
    ("h10-good-typos", {
        "checkpoint": "Wrtie the intent (tool + args + key) to the jornal befor the call, and "
                      "the resutl after it returns.",
        "idempotency": "Key derived from run id, step and payload hash - same on evry attempt.",
        "resumeProtocol": "Replay; for an intent w/o result, lookup the charge by key first. "
                          "Found: use it. Not found: resend same key (within retnetion). Past "
                          "retention: escalate to an operater.",
        "failureMode": "Past the 24h retention a crash between send and record needs an operater."},
     {"passed": True, "why": "typos but the right design and a true failure mode",
      "voice": "typos"}),
    # ---------------------------------------------------------------- bad (passed: False)
    ("h10-bad-timestamp-in-key", {
        "checkpoint": "Intent row in the journal before the call, result row after.",
        "idempotency": "Key derived from the run id, the step and the request timestamp, hashed "
                       "together so it is unique for the operation.",
        "resumeProtocol": "On resume look the charge up by key; not found within retention -> "
                          "resend with the key; past retention -> escalate.",
        "failureMode": "Past 24 h the run waits for an operator."},
     {"passed": False, "why": "key-per-attempt: the request timestamp changes on every attempt, "
                              "so the 'derived' key is new each retry and W3/W4 charge twice",
      "voice": "terse, sounds derived"}),
    ("h10-bad-result-only-story", {
        "checkpoint": "first the agent calls the payment API, then when the answer comes back we "
                      "save the receipt in the journal, then we go on to the hotel booking and "
                      "save that too.",
        "idempotency": "every call gets a key from run id + step + hash of args so retries are "
                       "recognised by the provider",
        "resumeProtocol": "on restart we replay and for anything not in the journal we look it up "
                          "by key before resending",
        "failureMode": "a crash right after the provider answered means we call again, but the key "
                       "makes it safe"},
     {"passed": False, "why": "result-only: no intent, so a W3/W4 crash recovered after 25 h is "
                              "resent under a pruned key; 'the key makes it safe' is false",
      "voice": "story of one run"}),
    ("h10-bad-memory-only", {
        "checkpoint": "The agent keeps a dict of pending calls and their results in the process; "
                      "it is updated before and after each call.",
        "idempotency": "Idempotency key from run id and step and payload digest.",
        "resumeProtocol": "When the process restarts, look at the pending calls and check each "
                          "with the provider by key before resending.",
        "failureMode": "More memory per running agent."},
     {"passed": False, "why": "memory-only: the pending dict dies with the process, so there is "
                              "nothing to resume from; the model is asked again and drifts",
      "voice": "plain prose"}),
    ("h10-bad-blind-resend", {
        "checkpoint": "We journal the intent before the charge and the result after it.",
        "idempotency": "Derived key (run, step, payload hash), identical on each attempt.",
        "resumeProtocol": "Any intent without a result is simply sent again with the same key; "
                          "the provider dedups it so no need to ask.",
        "tradeOff": "One extra journal write per call."},
     {"passed": False, "why": "blind resend: trusts the provider's dedup, which ends at 24 h, so "
                              "a W3/W4 crash recovered 25 h later charges twice",
      "voice": "confident prose"}),
    ("h10-bad-stuffed-1", {
        "checkpoint": "Durable checkpoint with write-ahead intent journaling and exactly-once "
                      "semantics.",
        "idempotency": "Idempotency keys, deduplication, idempotent retries.",
        "resumeProtocol": "Replay, reconcile, lookup, escalate as appropriate.",
        "failureMode": "Retention, W3, W4, operator."},
     {"passed": False, "why": "keyword-stuffed: every term is present but no field says what is "
                              "written when, how the key is formed or what resume does in order",
      "voice": "buzzword list"}),
    ("h10-bad-contradict-no-journal", {
        "checkpoint": "We don't persist anything, the agent is fast enough to just start over.",
        "idempotency": "Key from run id + step + payload digest.",
        "resumeProtocol": "Replay the journal and look up unresolved intents by key.",
        "failureMode": "Replays cost a few ms."},
     {"passed": False, "why": "self-contradicting: resume replays a journal the checkpoint says "
                              "is never written; with nothing saved the model is asked again",
      "voice": "casual"}),
    ("h10-bad-but-only-after", {
        "checkpoint": "The intent is written to the journal, but only once the provider has "
                      "confirmed the charge, together with the receipt.",
        "idempotency": "Same derived key on every attempt (run id, step, payload hash).",
        "resumeProtocol": "For intents without a result: look up by key, resend if not found, "
                          "escalate past retention.",
        "failureMode": "Operator needed after a 24 h outage."},
     {"passed": False, "why": "undone by 'only once the provider has confirmed': that is "
                              "result-only, so W3/W4 leave no intent and a late resume resends",
      "voice": "subtle one-clause flaw"}),
    ("h10-bad-vague", {
        "checkpoint": "State is saved regularly so nothing is lost.",
        "idempotency": "Payments are idempotent.",
        "resumeProtocol": "The agent picks up where it left off.",
        "failureMode": "Some edge cases might need attention."},
     {"passed": False, "why": "content-free: no mechanism in any field, and the failure mode "
                              "names nothing", "voice": "vague"}),
    ("h10-bad-false-safety", {
        "checkpoint": "Intent journaled before each call, result after.",
        "idempotency": "Key derived from run id, step and payload digest.",
        "resumeProtocol": "Look unresolved intents up by key; resend with the same key if not "
                          "found; escalate when older than the provider's retention.",
        "failureMode": "None: with this design every crash is recovered automatically and no run "
                       "ever needs a human."},
     {"passed": False, "why": "false failure mode: the design is right but past 24 h W2-W4 "
                              "escalate to an operator, which the claim denies",
      "voice": "over-confident"}),
    ("h10-bad-snapshot", {
        "checkpoint": "Like LangGraph: the whole agent state is checkpointed every couple of "
                      "steps (every super-step), not around each call.",
        "idempotency": "Key is derived from run id, step and the charge payload.",
        "resumeProtocol": "Restore the last checkpoint and look up each call after it by key "
                          "before re-running it.",
        "failureMode": "Up to two steps of work can be redone."},
     {"passed": False, "why": "snapshot: the model's decision is lost with the snapshot, the "
                              "re-asked model picks another amount, so the derived key differs "
                              "and a second charge goes through", "voice": "framework reference"}),
    ("h10-bad-retry-suffix", {
        "checkpoint": "Write intent before, outcome after, into the journal table.",
        "idempotency": "Key = run_id + ':' + step + ':' + attempt_number, so we can see in the "
                       "provider's dashboard which retry it was.",
        "resumeProtocol": "Look the call up by key; if not found resend; after 24 h escalate.",
        "failureMode": "Dashboard gets one entry per attempt."},
     {"passed": False, "why": "key-per-attempt: the attempt number makes each retry a new key; "
                              "the lookup by the new key misses and W3 charges twice",
      "voice": "subtle one-clause flaw"}),
    ("h10-bad-escalate-always", {
        "checkpoint": "Intent before the charge and the result after, in the journal.",
        "idempotency": "Derived key from run id, step and args hash.",
        "resumeProtocol": "We never auto-resolve: any intent without a result parks the run as "
                          "uncertain and pages the on-call to decide, even right after the crash.",
        "failureMode": "Someone has to look at every crash."},
     {"passed": False, "why": "escalate always: even a crash recovered at once is left stuck, "
                              "although a lookup could settle it; the run never finishes alone",
      "voice": "ops-minded"}),
    ("h10-bad-refund-and-fail", {
        "checkpoint": "Journal intent and result around every call.",
        "idempotency": "Key derived from run, step and payload hash.",
        "resumeProtocol": "If a call has no recorded outcome, fail the run and refund whatever "
                          "has a receipt; a failed order is better than a wrong one.",
        "tradeOff": "We lose some orders."},
     {"passed": False, "why": "fail-and-compensate: a charge given up in W3 has no receipt, so "
                              "nothing refunds it and it stands; other windows lose the order",
      "voice": "saga"}),
    ("h10-bad-ref-blind", {
        "checkpoint": "We write the intent, with our own order reference, before sending; the "
                      "response after.",
        "idempotency": "Our order reference is stored by the provider on the charge, which is "
                       "enough for it to spot retries.",
        "resumeProtocol": "Resend every unfinished call with its reference.",
        "failureMode": "None that we know of."},
     {"passed": False, "why": "client reference treated as a dedup key and resent blindly: the "
                              "provider does not deduplicate references, W3 charges twice; no "
                              "failure mode", "voice": "plausible misunderstanding"}),
    ("h10-bad-no-key", {
        "checkpoint": "Every call is logged before and after in a write-ahead journal.",
        "idempotency": "We don't send a key; the payment API is called with just amount, "
                       "currency and customer.",
        "resumeProtocol": "Replay the log; unfinished calls are retried.",
        "failureMode": "Possible double charge if we crash after the provider commits."},
     {"passed": False, "why": "no key and a retry: W3/W4 charge twice; the failure mode is honest "
                              "but the design fails", "voice": "honest but wrong"}),
]
