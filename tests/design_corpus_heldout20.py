"""Held-out corpus HELDOUT20: 42 designOutline() answers, written blind to the grader.

Written blind (s13, writer20): its author read the lesson 05b notebook, lessons 04 and 05 and
minirt_course/scenarios/design_payment.py (the crash sweep), never the grader, its vocabulary,
its tests or the other corpora. It is measured once; do not tune the reader on it.

Invariant: 21 entries with ``passed: True`` (an outline whose design the sweep finds clean in
every window, recovered at once and after 25 h, with a failure mode or trade-off that is true
of it) and 21 with ``passed: False`` (a plausible mistake, named in ``why``); entry names are
unique. Each verdict is a careful human reading of the text, checked against the sweep rules of
design_payment.py (the five designs the author's own run of ``sweep_design`` found clean:
intent-and-result with a derived or stored key and a lookup or a same-key resend within
retention, and intent-and-result with a client reference and a lookup). Not guaranteed: that
the grader agrees (that is what is measured), nor that the voices cover every way learners write.
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT20: list[Entry] = [
    # ---------------------------------------------------------------- good: slack-thread
    ("h20-good-slack-breadcrumb-row",
     {"checkpoint": "ok so the way I'd do it: before we hit the payment API we write an "
                    "'about to charge' row to the run's journal and commit it. like actually "
                    "commit, not buffer it\nthen when the response comes back we write the "
                    "receipt as a second row\nif we die in between, that first row is the "
                    "breadcrumb",
      "idempotency": "key = hash of run id + step number + the charge args. same string every "
                     "time we retry that step, so the provider's dedup just works\nwe never "
                     "make up a new one on retry",
      "resumeProtocol": "on restart we replay the journal. anything with an 'about to charge' "
                        "row but no receipt -> ask the provider 'have you seen key X?'\nif yes, "
                        "take their receipt and move on\nif no and we're still inside their "
                        "24h, send it again w/ the same key\nif it's been longer than that, "
                        "stop and page someone, a 'no' from the lookup doesn't mean anything "
                        "by then",
      "failureMode": "downside: if the worker is down for more than a day, a crash mid-charge "
                     "means a human has to go dig through the provider dashboard. annoying "
                     "but it's one charge, not two"},
     {"passed": True, "why": "intent committed before the call, derived key, lookup then "
                             "same-key resend within 24 h, escalate past it; failure mode "
                             "(operator after a day-long outage) is true",
      "voice": "slack-thread"}),

    ("h20-good-slack-uuid-in-row",
     {"checkpoint": "we commit the intent row before sending anything. it has the tool name, "
                    "the args and the key.\nresult row gets written when the answer comes back",
      "idempotency": "the key is just a uuid4 BUT (important) we mint it once, when we create "
                     "the intent, and save it in that row\nretries read it back from the row, "
                     "they never mint their own",
      "resumeProtocol": "resume = replay, then for each open intent GET the charge by that "
                        "saved key\nfound -> done, record it\nmissing -> resend with the same "
                        "key, but only if the intent is < 24h old\nolder -> mark the run "
                        "uncertain and open an ops ticket",
      "tradeOff": "honestly the cost is one extra commit on every charge, before the network "
                  "call even starts. adds latency on the hot path. worth it imo"},
     {"passed": True, "why": "stored key kept in the committed intent, lookup then resend "
                             "within retention, escalate after; the extra pre-call write is a "
                             "true cost",
      "voice": "slack-thread"}),

    ("h20-good-slack-stripe-style",
     {"checkpoint": "journal the intent first, then call, then journal the result. that's it",
      "idempotency": "idempotency key derived from run_id:step:sha256(payload). deterministic, "
                     "nothing random in it",
      "resumeProtocol": "stripe has no 'get by idempotency key' so we don't look anything up\n"
                        "on resume we just resend the open call with the SAME key and stripe "
                        "hands back the original response if it already charged\nbut only if "
                        "the intent timestamp is less than 24h old. past that we don't send "
                        "at all, we park the run for a human",
      "failureMode": "catch: a crash before we even sent (intent written, request never left) "
                     "that sits >24h also gets parked. so a human ends up looking into a "
                     "charge that never happened"},
     {"passed": True, "why": "intent first, derived key, same-key resend only within the 24 h "
                             "window and escalation past it; the W2-past-retention escalation "
                             "with no charge is true of it",
      "voice": "slack-thread"}),

    ("h20-good-slack-reference-search",
     {"checkpoint": "intent rows go in before the call (committed), results after",
      "idempotency": "our provider doesn't dedupe at all, but it lets us attach a client "
                     "reference to a charge and search by it later. so every charge gets a "
                     "reference built from run + step, saved in the intent",
      "resumeProtocol": "restart: for each intent w/o a result, search the provider for that "
                        "reference\nfound = it happened, record it\nnot found = it didn't, "
                        "send it (same ref)\nnever send without searching first, because a "
                        "second send IS a second charge with these guys",
      "failureMode": "everything hinges on the search being accurate immediately. if the "
                     "search index lagged (stripe's does, up to a minute) a 'not found' could "
                     "be wrong and we'd charge twice. ours is read-your-writes so we're ok, "
                     "but that's the assumption"},
     {"passed": True, "why": "intent before the call, client reference kept forever by the "
                             "provider, search before any resend: clean even after 25 h; the "
                             "search-consistency assumption is a true limit",
      "voice": "slack-thread"}),

    # ---------------------------------------------------------------- good: textbook
    ("h20-good-textbook-two-records",
     {"checkpoint": "Definition: a checkpoint is the point at which progress becomes durable. "
                    "In this design there are two per effectful call. First, an intent record "
                    "(tool, arguments, effect key, timestamp) is committed to the run journal "
                    "before the request is dispatched. Second, the outcome is committed once "
                    "the response has been received. Consequently, any crash after the first "
                    "commit leaves evidence that the call may be in flight.",
      "idempotency": "An idempotency key is a name for one logical operation. Here it is "
                     "computed deterministically from the run identifier, the step index and "
                     "a digest of the payload; since all three are journaled, every attempt "
                     "presents the identical key.",
      "resumeProtocol": "On resumption the journal is replayed. For each intent lacking an "
                        "outcome, the provider is queried by key. If the effect exists, its "
                        "receipt is recorded. If it does not, and the intent is younger than "
                        "the provider's 24-hour key retention, the request is re-sent under the "
                        "same key. Otherwise the run is suspended for an operator, since the "
                        "absence of the key no longer implies the absence of the charge.",
      "failureMode": "Limitation: a crash in windows W2 to W4 that is recovered more than 24 "
                     "hours later cannot be settled automatically; it requires manual "
                     "reconciliation."},
     {"passed": True, "why": "intent-and-result, derived key, lookup with retention rule and "
                             "escalation; the stated limitation matches the escalated cells",
      "voice": "textbook"}),

    ("h20-good-textbook-resubmission",
     {"checkpoint": "Write-ahead journaling. Before dispatch, an intent entry is durably "
                    "stored; after the response, a result entry.",
      "idempotency": "The key is a random identifier generated exactly once, at the moment the "
                     "intent is created, and stored within the intent entry. It is therefore "
                     "invariant across attempts and across workers.",
      "resumeProtocol": "Reconciliation by re-submission. Since the provider exposes no "
                        "lookup, an unresolved intent is re-submitted with its stored key; the "
                        "provider, recognising the key, returns the original result instead of "
                        "charging again. This is permitted only while the intent's age is "
                        "below the provider's retention of 24 hours. Beyond that bound the run "
                        "is left in an uncertain state for human resolution.",
      "tradeOff": "The safety of re-submission depends on the provider retaining keys at least "
                  "as long as recovery takes; the slower the recovery, the more runs end with "
                  "an operator."},
     {"passed": True, "why": "stored key in the journaled intent, same-key resend only within "
                             "retention, escalate past it; the trade-off is true",
      "voice": "textbook"}),

    ("h20-good-textbook-client-reference",
     {"checkpoint": "Two durable records per call: an intent, committed before the request, "
                    "and an outcome, committed after it.",
      "idempotency": "The provider does not deduplicate requests. The design therefore relies "
                     "on a client reference: a value recorded in the intent and attached to "
                     "the charge, which the provider stores indefinitely and by which charges "
                     "can be searched. It is not an idempotency key in the strict sense.",
      "resumeProtocol": "For every intent without an outcome, the provider is searched for the "
                        "reference. A match is recorded as the outcome. The absence of a match, "
                        "given that references are never pruned, means the charge was not made, "
                        "and the request is sent once more with the same reference.",
      "failureMode": "Because the provider does not deduplicate, any path that re-sends without "
                     "searching first produces a second charge; correctness rests entirely on "
                     "the search being performed, and being consistent."},
     {"passed": True, "why": "intent-and-result, client reference with a search before every "
                             "resend: clean at once and after 25 h; the dependency on the "
                             "search is a true failure mode",
      "voice": "textbook"}),

    ("h20-good-textbook-decision-journaled",
     {"checkpoint": "The run is checkpointed at the granularity of a tool call, by intent-then-"
                    "result journaling: the intent is committed prior to the network request, "
                    "and the model's decision is journaled before either.",
      "idempotency": "Keys are derived, not generated: effect key = f(run id, step position, "
                     "canonical payload digest). Because the decision that fixes the amount is "
                     "itself journaled, the payload, and hence the key, is reproduced exactly "
                     "on replay.",
      "resumeProtocol": "Replay of the journal, followed by reconciliation of open intents "
                        "through a lookup by effect key; a negative lookup leads to a same-key "
                        "resend only within the 24 h retention window; past it, escalation to "
                        "an operator.",
      "tradeOff": "Cost: one additional synchronous journal write per effectful call, and one "
                  "provider round trip per open intent during recovery."},
     {"passed": True, "why": "intent journaled (decision too), derived key, lookup with "
                             "retention and escalation; the write and round-trip costs are true",
      "voice": "textbook"}),

    # ---------------------------------------------------------------- good: diagram-in-words
    ("h20-good-diagram-pipeline",
     {"checkpoint": "[decide] -> journal(decision) -> [intent: charge, key, args] -> COMMIT -> "
                    "provider.charge() -> journal(receipt) -> [book] -> ...",
      "idempotency": "key = run_id + step + digest(args) -> same string on attempt 1, 2, 3 -> "
                     "provider dedups on it",
      "resumeProtocol": "resume -> replay journal -> open intent? --no--> carry on\n"
                        "  |yes\n  v\nlookup(key) --found--> record receipt -> carry on\n"
                        "  |not found\n  v\nintent age < 24h? --yes--> resend(same key)\n"
                        "  |no\n  v\nUNCERTAIN -> operator",
      "failureMode": "crash in W3 + recovery after 25h -> lookup comes back empty (key pruned) "
                     "-> operator box. one charge, run waits."},
     {"passed": True, "why": "decision and intent committed before the call, derived key, "
                             "lookup, resend within 24 h, operator past it; failure mode true",
      "voice": "diagram-in-words"}),

    ("h20-good-diagram-boxes",
     {"checkpoint": "box 1 'intent' (written + committed) -> arrow to box 2 'POST /charges' -> "
                    "arrow to box 3 'result' (written). Box 1 always exists before box 2 starts.",
      "idempotency": "a new uuid is generated inside box 1 and stored in it. Box 2 reads it "
                     "from box 1. A retry of box 2 reads the same box 1 -> same uuid.",
      "resumeProtocol": "restart -> find a box 1 with no box 3 -> GET charge by uuid -> (hit) "
                        "fill box 3 from it | (miss, < 24h since box 1) resend box 2 with the "
                        "same uuid | (miss, >= 24h) stop, hand to an operator",
      "tradeOff": "box 1 is an extra trip to the database before every charge -> slower happy "
                  "path, in exchange for always knowing what might be in flight"},
     {"passed": True, "why": "intent committed first, uuid stored in it and reused, lookup, "
                             "resend within retention, escalate after; latency cost is true",
      "voice": "diagram-in-words"}),

    ("h20-good-diagram-age-gate",
     {"checkpoint": "intent --commit--> send --> result --commit--> next step",
      "idempotency": "key: (run, step, hash(payload)) --> Idempotency-Key header, identical on "
                     "every retry",
      "resumeProtocol": "open intent --> age check --(under 24h)--> resend, same key --> "
                        "provider returns its stored answer, or charges for the first time\n"
                        "            '--(over 24h)--> no send --> run UNCERTAIN --> operator",
      "failureMode": "there's no lookup in this picture, so a W2 crash (intent written, "
                     "nothing sent) that waits more than 24h still lands on the operator, who "
                     "finds no charge and has to resolve it by hand"},
     {"passed": True, "why": "intent first, derived key, same-key resend gated on the 24 h "
                             "window, escalation past it; the W2 late-escalation cost is true",
      "voice": "diagram-in-words"}),

    ("h20-good-diagram-reference-path",
     {"checkpoint": "intent(ref) -> commit -> charge(ref) -> result -> commit",
      "idempotency": "ref = 'A-42/run/step' chosen at intent time, stored in the intent -> "
                     "attached to the charge -> provider keeps it forever, searchable, NOT "
                     "deduplicated",
      "resumeProtocol": "open intent -> search(ref) -> found: record it as the result | not "
                        "found: charge(ref) once more -> record",
      "failureMode": "search -> send isn't atomic: if two workers resumed the same run at the "
                     "same moment, both could see 'not found' and both charge. we rely on one "
                     "worker per run (the lease)."},
     {"passed": True, "why": "intent-and-result, client reference kept forever, search before "
                             "resend: clean in every cell; the concurrency caveat is a true "
                             "limit of search-then-send",
      "voice": "diagram-in-words"}),

    # ---------------------------------------------------------------- good: ops-handbook
    ("h20-good-ops-sections",
     {"checkpoint": "3.1 Durability. Every payment step writes an INTENT record to the run "
                    "store and commits it before the payment request is issued. The RESULT "
                    "record is written on response. Operators: an INTENT without a RESULT "
                    "means 'possibly charged'; treat it as such.",
      "idempotency": "3.2 Keys. The Idempotency-Key is computed from run ID, step number and "
                     "payload hash. It is never generated at send time. Do not edit INTENT "
                     "records: the key must stay identical for every attempt.",
      "resumeProtocol": "3.3 Recovery. On worker restart the run is replayed. For each open "
                        "INTENT the worker queries the provider by key. Found: the receipt is "
                        "recorded. Not found and INTENT younger than 24 h: the request is "
                        "re-sent with the same key. INTENT older than 24 h: the run is set "
                        "UNCERTAIN and a ticket is raised (see 3.4).",
      "failureMode": "3.4 Known limitation. After an outage longer than 24 h, runs that "
                     "crashed mid-charge are not resolved automatically. On-call checks the "
                     "provider dashboard and resolves each one as happened / did not happen."},
     {"passed": True, "why": "committed intent, derived key, lookup, resend within 24 h, "
                             "escalate past it; the known limitation is true",
      "voice": "ops-handbook"}),

    ("h20-good-ops-reissue",
     {"checkpoint": "Step journaling is write-ahead: intent persisted and committed -> "
                    "provider call -> outcome persisted.",
      "idempotency": "Key source: generated once at intent creation (UUIDv4) and persisted in "
                     "the intent row. Workers MUST read the key from the row on retry; "
                     "generating a key in the HTTP client is prohibited.",
      "resumeProtocol": "Recovery procedure: for an unresolved intent less than 24 h old, "
                        "re-issue the identical request with the stored key (the provider "
                        "returns the original charge if there is one). If older, do not "
                        "re-issue; move the run to UNCERTAIN and page payments on-call.",
      "tradeOff": "Operational note: the re-issued request must carry exactly the original "
                  "parameters. The provider rejects a known key with different parameters, so "
                  "a run whose amount was edited by hand will not reconcile."},
     {"passed": True, "why": "stored key in the committed intent, same-key re-issue within "
                             "retention, escalation past it; the parameter-binding constraint "
                             "is true of a Stripe-like provider",
      "voice": "ops-handbook"}),

    ("h20-good-ops-runbook-steps",
     {"checkpoint": "Runbook PAY-RECOVERY. Precondition: every charge call is preceded by a "
                    "committed intent entry in the journal; results are journaled on return.",
      "idempotency": "Effect key is deterministic (run, step, args digest). Same key on all "
                     "retries and all workers.",
      "resumeProtocol": "1. Replay the journal. 2. For open intents, query the provider by "
                        "effect key. 3. If found, record it. 4. If not found and age < 24 h, "
                        "resend with the same key. 5. If age >= 24 h, halt the run as "
                        "UNCERTAIN and escalate to Tier 2.",
      "failureMode": "Escalation volume scales with outage length: every mid-charge crash not "
                     "recovered within 24 h produces a manual ticket."},
     {"passed": True, "why": "intent before the call, derived key, lookup/resend/escalate by "
                             "age; the ticket volume cost is true",
      "voice": "ops-handbook"}),

    ("h20-good-ops-reference-provider",
     {"checkpoint": "An intent is committed to the journal before each charge request; the "
                    "outcome is committed after.",
      "idempotency": "Provider X does not support idempotency keys. Each charge carries a "
                     "client reference (order-run-step) recorded in the intent. The provider "
                     "retains references indefinitely and they are searchable via its "
                     "reference search endpoint.",
      "resumeProtocol": "On recovery, search by reference for each unresolved intent. Match: "
                        "record the receipt. No match: re-send with the same reference. Never "
                        "re-send a charge without a completed search.",
      "tradeOff": "Recovery cost: one search call per open intent, and the search endpoint is a "
                  "hard dependency; if it is down, recovery blocks."},
     {"passed": True, "why": "intent-and-result, client reference retained forever, search "
                             "before resend: clean at once and after 25 h; the dependency "
                             "trade-off is true",
      "voice": "ops-handbook"}),

    # ---------------------------------------------------------------- good: short-and-confident
    ("h20-good-short-lookup",
     {"checkpoint": "Intent committed before the charge, result after. No exceptions.",
      "idempotency": "Key derived from run, step and payload digest. It never changes between "
                     "attempts.",
      "resumeProtocol": "Look open intents up by key first. Resend with the same key only if "
                        "not found and under 24 h; otherwise escalate.",
      "failureMode": "A mid-charge crash recovered after 24 h needs an operator. That is the "
                     "price of never charging twice."},
     {"passed": True, "why": "intent first, derived key, lookup, bounded resend, escalation; "
                             "the failure mode is true",
      "voice": "short-and-confident"}),

    ("h20-good-short-saved-key",
     {"checkpoint": "Write the intent, commit, then call. The result goes in after.",
      "idempotency": "Random key, minted once and saved in the intent. Retries reuse it.",
      "resumeProtocol": "Query the provider by the saved key. Found: record it. Missing "
                        "within 24 h: resend with the same key. Missing after that: hand it "
                        "to a human.",
      "tradeOff": "An extra database write before every charge. Slower, and safe."},
     {"passed": True, "why": "stored key in the committed intent, lookup, resend within the "
                             "window, human past it; the extra write is a true cost",
      "voice": "short-and-confident"}),

    ("h20-good-short-resend-window",
     {"checkpoint": "Intent before dispatch, outcome after.",
      "idempotency": "Deterministic key: run id + step + payload hash.",
      "resumeProtocol": "Resend the open call with its original key while the provider still "
                        "remembers it (24 h). Past that, no resend: escalate.",
      "failureMode": "Past 24 h every crash between intent and result goes to an operator, "
                     "even the ones where nothing was ever sent."},
     {"passed": True, "why": "intent first, derived key, same-key resend within retention and "
                             "escalation past it; the failure mode is true",
      "voice": "short-and-confident"}),

    # ---------------------------------------------------------------- good: keyword-stuffed
    ("h20-good-stuffed-wal-derived",
     {"checkpoint": "Durable write-ahead intent (WAL-style, fsync'd, transactional commit) "
                    "persisted pre-dispatch with tool/args/effect-key/timestamp; post-response "
                    "outcome event appended; event-sourced journal replay on restart.",
      "idempotency": "Deterministic, payload-bound effect key = H(run_id || step_index || "
                     "canonical_json_digest(args)); stable across attempts/workers/restarts; "
                     "sent as the Idempotency-Key header; provider-side dedup.",
      "resumeProtocol": "Replay-then-reconcile: unresolved intent -> read-only lookup by effect "
                        "key -> found => record receipt; not found && age < retention (24h) => "
                        "same-key redispatch; age >= retention => key may be pruned => "
                        "UNCERTAIN => human-in-the-loop escalation.",
      "failureMode": "Liveness vs safety trade-off: past-retention W2-W4 crashes give up "
                     "liveness (operator-gated) to keep at-most-once charging."},
     {"passed": True, "why": "jargon-heavy but one consistent design: intent pre-dispatch, "
                             "derived key, lookup, bounded resend, escalation; trade-off true",
      "voice": "keyword-stuffed"}),

    ("h20-good-stuffed-outbox-stored",
     {"checkpoint": "Intent-before-effect journaling (outbox-style row, atomic commit), then "
                    "result journaling; replayable event log.",
      "idempotency": "Stored idempotency key: UUIDv4 generated once per logical operation, "
                     "persisted in the intent row, reused verbatim by every retry/attempt/"
                     "worker; never regenerated.",
      "resumeProtocol": "Deterministic replay; reconcile unknown outcomes via lookup-by-key; "
                        "not found inside the 24h TTL/retention -> resend same key; outside the "
                        "TTL -> escalate (UNCERTAIN, operator resolution).",
      "tradeOff": "Latency/throughput overhead: +1 synchronous durable write per effect, +1 "
                  "lookup RTT per unresolved intent on recovery, plus operator toil for "
                  "post-TTL recoveries."},
     {"passed": True, "why": "dense but consistent: committed intent row with a stored key, "
                             "lookup, resend within TTL, escalate after; costs are true",
      "voice": "keyword-stuffed"}),

    # ================================================================ bad: slack-thread
    ("h20-bad-slack-receipt-only",
     {"checkpoint": "we keep it light: once the charge call returns we write the receipt to "
                    "the journal. one write per call, no 'pending' rows cluttering the table",
      "idempotency": "key derived from run + step + hash(args) so retries dedupe\nsame key "
                     "every time, nothing random",
      "resumeProtocol": "on restart replay the journal; for a charge step with no receipt, ask "
                        "the provider by key before resending, and resend if it's not there",
      "failureMode": "cost is basically nil, it's one write per call. and the key already "
                     "covers the crash-after-charge case"},
     {"passed": False, "why": "result-only checkpoint: a W3/W4 crash leaves no intent, so "
                              "recovered after 25 h the pruned key's lookup finds nothing and "
                              "the resend charges twice; the failure mode claims the key covers "
                              "it",
      "voice": "slack-thread"}),

    ("h20-bad-slack-client-wrapper-uuid",
     {"checkpoint": "intent row committed before the call, receipt after :+1:",
      "idempotency": "every request gets an Idempotency-Key header, our http client wrapper "
                     "generates a uuid for it on the way out. so every POST is tagged, "
                     "retries included",
      "resumeProtocol": "on resume look the open charge up by its key; if it's not there "
                        "resend, if the intent is older than 24h escalate instead",
      "failureMode": "worst case someone gets paged after a long outage"},
     {"passed": False, "why": "key per attempt: the wrapper mints a new uuid per request, so "
                              "the lookup by the logical key misses and the resend is a new "
                              "charge (W3/W4 duplicate even at once)",
      "voice": "slack-thread"}),

    # ---------------------------------------------------------------- bad: textbook
    ("h20-bad-textbook-resubmit-any-age",
     {"checkpoint": "An intent record is committed prior to dispatch and an outcome record "
                    "upon response.",
      "idempotency": "The key is derived from the run identifier, the step and a digest of the "
                     "payload, and is hence identical across attempts.",
      "resumeProtocol": "Because the provider deduplicates on the key, reconciliation reduces "
                        "to re-submission: every intent lacking an outcome is re-sent with its "
                        "key, irrespective of its age. A lookup is superfluous.",
      "failureMode": "The provider's deduplication guarantees that re-submission can never "
                     "produce a second charge."},
     {"passed": False, "why": "blind resend at any age: past the 24 h retention the key is "
                              "pruned and a W3/W4 resend charges twice; the failure mode claims "
                              "a safety the design lacks",
      "voice": "textbook"}),

    ("h20-bad-textbook-abort-and-refund",
     {"checkpoint": "Write-ahead: an intent is journaled before dispatch and the outcome after.",
      "idempotency": "A derived key (run, step, payload digest), stable across attempts.",
      "resumeProtocol": "Compensation semantics are adopted. An intent without an outcome is "
                        "treated as a failed step: the run is aborted and every preceding "
                        "effect that has a receipt is compensated (the charge refunded), "
                        "returning the system to a consistent state.",
      "tradeOff": "The customer may have to place the order again, but no money is ever left "
                  "taken."},
     {"passed": False, "why": "fail-and-compensate: a charge whose outcome is unknown has no "
                              "receipt, so W3/W4 leave an unrefunded charge (wrong result) and "
                              "W2 loses the order; the trade-off's 'no money left taken' is "
                              "false",
      "voice": "textbook"}),

    # ---------------------------------------------------------------- bad: diagram-in-words
    ("h20-bad-diagram-snapshot-gap",
     {"checkpoint": "state snapshot -> every 2 steps -> [decide, charge] buffered in memory -> "
                    "snapshot -> [book] -> ...",
      "idempotency": "key = run + step + hash(amount, currency, customer) -> same on retry",
      "resumeProtocol": "restart -> load last snapshot -> replay from there -> open calls -> "
                        "lookup(key) -> not found -> resend",
      "failureMode": "snapshot gap -> we may redo a step, but the key turns the redo into a "
                     "no-op"},
     {"passed": False, "why": "periodic snapshot loses the model's decision; asked again the "
                              "model gives another amount, so the derived key changes and the "
                              "redo is a second charge (W3-W5 at once); failure mode claims "
                              "the key protects it",
      "voice": "diagram-in-words"}),

    ("h20-bad-diagram-reference-resend",
     {"checkpoint": "intent -> commit -> charge -> result -> commit",
      "idempotency": "client ref 'order-run-step' -> stored with the charge by the provider -> "
                     "we can search by it later if we need to",
      "resumeProtocol": "open intent -> ref younger than 24h? -> resend charge(ref) -> provider "
                        "recognises the ref -> hands back the first charge\n"
                        "              -> ref older -> operator",
      "failureMode": "only the >24h branch ever needs a human"},
     {"passed": False, "why": "a client reference is searchable but not deduplicated: the "
                              "resend without a search is a second charge in W3/W4 at once",
      "voice": "diagram-in-words"}),

    # ---------------------------------------------------------------- bad: ops-handbook
    ("h20-bad-ops-always-escalate",
     {"checkpoint": "Intent committed before the charge; result committed after.",
      "idempotency": "Key derived from run / step / payload digest.",
      "resumeProtocol": "Policy: the system never settles an unknown payment automatically. Any "
                        "run with an open intent is moved to UNCERTAIN and assigned to the "
                        "payments on-call queue, whatever its age.",
      "tradeOff": "Higher on-call load, in exchange for zero risk of an automated double "
                  "charge."},
     {"passed": False, "why": "escalates even when recovered at once: W2-W4 runs sit stuck "
                              "for a human though a lookup within retention would settle them "
                              "(stuck at once is a failure)",
      "voice": "ops-handbook"}),

    ("h20-bad-ops-stateless-restart",
     {"checkpoint": "Workers are stateless. No run journal is kept; on failure the scheduler "
                    "restarts the run from the beginning.",
      "idempotency": "Effect key derived from order ID, step and payload hash; the provider "
                     "deduplicates repeated requests with the same key for 24 h.",
      "resumeProtocol": "Restart the workflow from step 0. Because keys are deterministic, "
                        "steps that already ran are deduplicated by the provider.",
      "failureMode": "Each restart costs one repeated model call."},
     {"passed": False, "why": "no checkpoint: the restarted run re-asks the model, which "
                              "answers another amount, so the derived key differs and W3-W5 "
                              "crashes charge twice",
      "voice": "ops-handbook"}),

    # ---------------------------------------------------------------- bad: short-and-confident
    ("h20-bad-short-trust-not-found",
     {"checkpoint": "Intent first, committed. Result after.",
      "idempotency": "Derived key: run, step, payload hash.",
      "resumeProtocol": "Look the charge up by key. Not found means not charged, so resend with "
                        "the same key. Simple.",
      "failureMode": "A lookup costs one extra request on recovery. Nothing else."},
     {"passed": False, "why": "trusts 'not found' at any age: after 25 h the key is pruned, "
                              "the W3/W4 lookup misses and the resend charges twice; no "
                              "retention rule",
      "voice": "short-and-confident"}),

    ("h20-bad-short-key-saved-with-receipt",
     {"checkpoint": "We record the call and its receipt together once the provider answers. "
                    "One atomic write.",
      "idempotency": "A UUID per operation, saved in that same record. Retries reuse it.",
      "resumeProtocol": "Replay, then look anything unfinished up by its UUID before resending.",
      "failureMode": "Past 24 h a crash mid-charge goes to an operator."},
     {"passed": False, "why": "result-only with a stored key: a W3/W4 crash loses the UUID "
                              "with the unwritten record, the retry mints a new one and charges "
                              "twice even at once",
      "voice": "short-and-confident"}),

    ("h20-bad-short-false-double-charge",
     {"checkpoint": "Intent committed before the charge, result after.",
      "idempotency": "Key from run id, step and payload digest.",
      "resumeProtocol": "Lookup by key; if missing and under 24 h, resend with the same key; "
                        "past that, escalate.",
      "failureMode": "A crash right after the provider commits, recovered immediately, charges "
                     "the customer twice."},
     {"passed": False, "why": "the design is clean in W3 at once (the lookup finds the charge); "
                              "the failure mode claims a double charge the sweep never shows, "
                              "so it is not true of the design",
      "voice": "short-and-confident"}),

    # ---------------------------------------------------------------- bad: keyword-stuffed
    ("h20-bad-stuffed-everything",
     {"checkpoint": "Event-sourced WAL + periodic snapshots + result journaling + outbox + a "
                    "checkpoint after each super-step, whichever the platform provides.",
      "idempotency": "Idempotency key (derived / UUID / client reference), deduplicated, "
                     "exactly-once.",
      "resumeProtocol": "Replay, lookup, retry with backoff, compensate via saga, escalate to "
                        "human-in-the-loop.",
      "failureMode": "Exactly-once semantics guaranteed in all crash windows W1-W5."},
     {"passed": False, "why": "keyword stuffing: each field names several exclusive "
                              "mechanisms and decides none; the failure mode claims a "
                              "guarantee",
      "voice": "keyword-stuffed"}),

    ("h20-bad-stuffed-middleware-token",
     {"checkpoint": "Transactional write-ahead intent log (durable, fsync, pre-dispatch) + "
                    "post-commit outcome event.",
      "idempotency": "Idempotency-Key header = UUIDv4 minted by the retrying HTTP middleware "
                     "(exponential backoff with jitter, 3 attempts), giving each request a "
                     "globally unique idempotency token.",
      "resumeProtocol": "Replay + reconcile: lookup-by-key, resend-within-retention (24h TTL), "
                        "else escalate to operator (UNCERTAIN).",
      "failureMode": "Post-TTL W2-W4 crashes require operator resolution."},
     {"passed": False, "why": "the key is minted per request by the retry middleware: every "
                              "resend is a new charge to the provider (W3/W4 duplicates at "
                              "once); the failure mode misses it",
      "voice": "keyword-stuffed"}),

    ("h20-bad-stuffed-merchant-reference",
     {"checkpoint": "Durable intent (outbox row) committed atomically pre-dispatch; outcome "
                    "appended post-response; replayable journal.",
      "idempotency": "Client-supplied correlation reference (order/run/step) attached as "
                     "merchant-reference metadata; persisted provider-side, queryable; used as "
                     "our idempotency token.",
      "resumeProtocol": "Reconcile-by-resend: unresolved intents re-dispatched with the same "
                        "reference within the 24h retention window (provider returns the "
                        "cached response); beyond retention -> escalate.",
      "failureMode": "Operator toil after long outages."},
     {"passed": False, "why": "a merchant reference is stored and searchable but not "
                              "deduplicated: the resend charges again in W3/W4 at once; the "
                              "design never searches",
      "voice": "keyword-stuffed"}),

    ("h20-bad-stuffed-no-mechanism",
     {"checkpoint": "Robust, durable, fault-tolerant state persistence aligned with "
                    "durable-execution best practices.",
      "idempotency": "End-to-end idempotency and exactly-once semantics across the payment flow.",
      "resumeProtocol": "Resilient, self-healing recovery with intelligent retries and "
                        "reconciliation.",
      "tradeOff": "Some added complexity and latency, balanced against reliability."},
     {"passed": False, "why": "buzzwords with no mechanism: nothing says when state is "
                              "written, what the key is made from, or what resume does with an "
                              "unknown call",
      "voice": "keyword-stuffed"}),

    # ---------------------------------------------------------------- bad: self-contradicting
    ("h20-bad-contra-intent-later",
     {"checkpoint": "The intent goes into the journal before the charge is sent. To keep the "
                    "charge path fast, though, we don't write anything to the database until "
                    "the provider has answered; then intent and receipt go in together.",
      "idempotency": "Key derived from run id, step and payload digest.",
      "resumeProtocol": "Replay; look unresolved intents up by key; resend with the same key "
                        "inside 24 h; escalate after.",
      "failureMode": "Past 24 h, a crash mid-charge waits for an operator."},
     {"passed": False, "contradiction": True,
      "why": "says intent before the call, then that nothing is written until the answer "
             "(result-only); built that way, W3/W4 recovered after 25 h charge twice",
      "voice": "self-contradicting"}),

    ("h20-bad-contra-nonce-suffix",
     {"checkpoint": "Intent committed before dispatch, result after.",
      "idempotency": "The key is derived from run + step + payload hash, so it is stable. On a "
                     "retry we append a fresh nonce so the provider doesn't reject the retry "
                     "as a duplicate.",
      "resumeProtocol": "Look the charge up by its key; if absent and under 24 h, resend; "
                        "otherwise escalate.",
      "failureMode": "Past retention, a human settles it."},
     {"passed": False, "contradiction": True,
      "why": "'stable' key undone by a nonce per retry: a key per attempt, so the provider "
             "cannot deduplicate and W3/W4 charge twice",
      "voice": "self-contradicting"}),

    ("h20-bad-contra-keyless-lookup",
     {"checkpoint": "Intent journaled before the call, outcome after.",
      "idempotency": "We don't send an idempotency key; the provider's charge API doesn't need "
                     "one.",
      "resumeProtocol": "On resume, look each open charge up by its idempotency key, and "
                        "resend only if it isn't found.",
      "failureMode": "None really; the lookup makes it safe."},
     {"passed": False, "contradiction": True,
      "why": "a lookup by a key that was never sent: there is nothing to find; the failure "
             "mode claims safety it does not have",
      "voice": "self-contradicting"}),

    ("h20-bad-contra-memory-then-replay",
     {"checkpoint": "No persistence: the worker holds run state in memory, and we accept "
                    "losing it on a crash.",
      "idempotency": "Deterministic key from run, step and payload.",
      "resumeProtocol": "After a crash, replay the journal up to the last recorded result, "
                        "then look the pending charge up by key.",
      "failureMode": "A crash only costs us re-running the remaining steps."},
     {"passed": False, "contradiction": True,
      "why": "replays a journal its own checkpoint says does not exist; with nothing persisted "
             "the model is re-asked, amount and key drift, and W3-W5 charge twice",
      "voice": "self-contradicting"}),

    ("h20-bad-contra-random-in-failure",
     {"checkpoint": "Intent, then result, both committed to the run store.",
      "idempotency": "Key derived from run id, step index and a hash of the arguments.",
      "resumeProtocol": "Lookup by key; resend with the same key if not found within 24 h; "
                        "beyond that, escalate.",
      "failureMode": "Because the key is a fresh random value per request, a retry after a "
                     "lost response can double charge."},
     {"passed": False, "contradiction": True,
      "why": "the failure mode says the key is random per request while the idempotency field "
             "derives it; one of the two fields is false",
      "voice": "self-contradicting"}),

    ("h20-bad-contra-ask-first-resend-first",
     {"checkpoint": "Write-ahead intent, committed before the call; result after.",
      "idempotency": "Key generated once and stored in the intent.",
      "resumeProtocol": "We never resend without looking up first. For an open intent we "
                        "resend with the same key straight away and look it up afterwards to "
                        "confirm. Past 24 h we still resend; the key protects us.",
      "failureMode": "Past 24 h a crash goes to an operator."},
     {"passed": False, "contradiction": True,
      "why": "'never resend without a lookup' vs 'resend straight away', and 'past 24 h we "
             "still resend' vs 'goes to an operator'; as written it resends past retention "
             "and W3/W4 charge twice after 25 h",
      "voice": "self-contradicting"}),
]
