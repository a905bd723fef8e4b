"""Held-out corpus HELDOUT18: 42 designOutline() answers, written blind to the grader.

Written blind (s13, writer18): its author read the lesson 05b notebook, lessons 04 and 05 and
minirt_course/scenarios/design_payment.py (the crash sweep), never the grader, its vocabulary,
its tests or the other corpora. It is measured once; do not tune the reader on it.

Invariant: 21 entries with ``passed: True`` (an outline whose design the sweep finds clean in
every window, recovered at once and after 25 h, with a failure mode or trade-off that is true
of it) and 21 with ``passed: False`` (a plausible mistake, named in ``why``); entry names are
unique. Voices: email-to-team 7, checklist 7, sql-and-transactions 7, actor-or-saga 6,
very-terse 6, keyword-stuffed 5, self-contradicting 4. Each verdict is a careful human reading
of the text, checked against the sweep rules of design_payment.py. Not guaranteed: that the
grader agrees (that is what is measured), nor that the voices cover every way learners write.
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT18: list[Entry] = [
    # ------------------------------------------------------------------ email-to-team (4 good)
    ("h18-good-email-stripe-style-resend",
     {"checkpoint": "Hi all, proposal for the charge step: before we hit the payment API we "
                    "commit a row to the run journal saying 'about to charge order X for Y', "
                    "including the key we will send. Only after that commit does the request go "
                    "out. When the response comes back we write it next to that row.",
      "idempotency": "The Idempotency-Key is computed from the run id, the step number and a "
                     "hash of the charge arguments, so a retry from any worker produces exactly "
                     "the same key as the first attempt.",
      "resumeProtocol": "Our provider behaves like Stripe, so I'd skip a separate lookup: on "
                        "restart, any journaled charge without a response is resent with the "
                        "stored key, which just returns the original result if it went through. "
                        "That only holds while the provider remembers the key (24h), so if the "
                        "intent is older than that we don't resend at all; the run parks and we "
                        "get paged.",
      "tradeOff": "Cost: if a worker is down for more than a day, every charge it had in flight "
                  "needs a person to check the provider dashboard, even the ones that never "
                  "left the box. Cheers, Marta"},
     {"passed": True, "why": "intent committed before the call, derived key, same-key resend only "
                             "inside retention and escalation past it (retry-within-retention); "
                             "the trade-off (operator past a day, W2 included) is true",
      "voice": "email-to-team"}),
    ("h18-good-email-lookup-first",
     {"checkpoint": "Team, the rule I want us to follow: nothing talks to the payment provider "
                    "until the journal has durably recorded what we intend to send. So: write "
                    "the intent, commit, call, then write the outcome.",
      "idempotency": "Every charge gets a key built from things that never change for that "
                     "operation: run id, step position, digest of the payload. No timestamps, no "
                     "attempt counters in it.",
      "resumeProtocol": "When a worker picks up a run and finds an intent with no outcome, it "
                        "first asks the provider 'do you have a charge under this key?'. If yes, "
                        "we record that receipt and move on. If no and we're still within the "
                        "provider's 24 hour key window, we resend with the same key. If the "
                        "intent is older than that, a 'no' proves nothing, so the run stops and "
                        "waits for someone on the payments rota.",
      "failureMode": "Any run that crashed mid-charge and only comes back after a day ends up "
                     "waiting on a human. Also every charge now costs an extra durable write "
                     "before the HTTP call, so p99 latency goes up a bit."},
     {"passed": True, "why": "intent before dispatch, derived key, lookup then same-key resend "
                             "within retention, escalate past it; both costs are true",
      "voice": "email-to-team"}),
    ("h18-good-email-stored-uuid",
     {"checkpoint": "Quick write-up of what I implemented on the branch: the worker inserts the "
                    "pending charge (tool, arguments, key) into the journal and commits before "
                    "dispatching. The provider's reply is appended afterwards.",
      "idempotency": "We mint a UUID once, when that pending entry is created, and it is saved "
                     "in the entry. Retries and other workers read the key back from the journal "
                     "instead of generating a new one.",
      "resumeProtocol": "Resume replays the journal. For a pending charge with no reply we query "
                        "the provider by the saved key; found means done, not found within the "
                        "24h retention means resend with that key, and past 24h we escalate to "
                        "an operator instead of guessing.",
      "failureMode": "The key only exists in our journal, so if someone wipes or restores an "
                     "old copy of the journal we lose the ability to match it to the provider. "
                     "And beyond retention it's manual work."},
     {"passed": True, "why": "stored key made once and journaled with the intent before the "
                             "call, lookup then resend within retention, escalation past it; the "
                             "failure modes are true of it",
      "voice": "email-to-team"}),
    ("h18-good-email-client-reference",
     {"checkpoint": "Hey folks, for the new provider (no idempotency keys, sadly) I'd still "
                    "write the intent to the journal and commit it before calling, result "
                    "after.",
      "idempotency": "They let us attach our own reference string to a charge and search by it "
                     "later. We set it to run id + step + payload hash. It is NOT deduplicated "
                     "on their side, it's only something we can look for.",
      "resumeProtocol": "Because they don't dedupe, resume must never resend without asking: for "
                        "an intent without a result we search their charges for our reference. "
                        "Found: take that as the receipt. Not found: it never happened, send it "
                        "(same reference). They keep references forever, so this works however "
                        "late we come back.",
      "tradeOff": "Everything hangs on the search being correct and up to date; a search index "
                  "that lags behind would turn 'not found' into a double charge. It also costs "
                  "a round trip on every recovery."},
     {"passed": True, "why": "intent before the call, client reference with lookup before any "
                             "resend: clean even after 25 h since references are kept; the "
                             "trade-off (depends on search freshness, extra round trip) is true",
      "voice": "email-to-team"}),
    # ------------------------------------------------------------------ email-to-team (3 bad)
    ("h18-bad-email-result-in-one-txn",
     {"checkpoint": "Hi team, to keep the journal consistent I'd like the call record and the "
                    "provider's response to be written together, atomically, in one "
                    "transaction right after the API returns. No half-written rows ever.",
      "idempotency": "Key = hash(run id, step, payload). Stable across retries.",
      "resumeProtocol": "On restart we replay; a step that has no row simply runs again with the "
                        "same key and the provider deduplicates it.",
      "failureMode": "A crash between the call and the commit means we call again, but the key "
                     "makes that harmless."},
     {"passed": False, "why": "result-only checkpoint: nothing records that a charge was sent, so "
                              "a W3/W4 crash recovered after 25 h resends under a pruned key and "
                              "charges twice; the failure mode claims a safety it lacks",
      "voice": "email-to-team"}),
    ("h18-bad-email-always-escalate",
     {"checkpoint": "All, I'd journal every tool call as an intent before sending it and record "
                    "the response afterwards, both committed in SQLite.",
      "idempotency": "Derived key from run id, step and a digest of the arguments.",
      "resumeProtocol": "Payments are too sensitive to automate recovery, so my proposal is that "
                        "any charge found with an intent but no response is never resent or "
                        "queried by the worker: the run goes straight to the ops queue and a "
                        "human decides.",
      "failureMode": "Humans are slower than code, but we will never double charge."},
     {"passed": False, "why": "escalate on every unknown outcome: a crash in W2-W4 recovered at "
                              "once leaves the run stuck although the provider could settle it; "
                              "the sweep counts that as stuck, not escalated",
      "voice": "email-to-team"}),
    ("h18-bad-email-lookup-then-resend-any-age",
     {"checkpoint": "Folks, journal first: intent (with key) committed before the call goes "
                    "out, response appended when it arrives.",
      "idempotency": "The key is derived from run, step and payload digest, identical on every "
                     "retry.",
      "resumeProtocol": "For unfinished charges we look the key up at the provider. If they have "
                        "it we take their receipt; if they don't, it didn't happen, so we resend "
                        "with the same key. This is safe no matter how long the worker was down, "
                        "since the key is the same.",
      "failureMode": "One extra lookup call per recovered charge."},
     {"passed": False, "why": "trusts 'not found' at any age: after 25 h the key is pruned, the "
                              "lookup finds nothing and the resend charges a second time in "
                              "W3/W4",
      "voice": "email-to-team"}),
    # ------------------------------------------------------------------ checklist (4 good)
    ("h18-good-checklist-five-steps",
     {"checkpoint": "1. Append intent {tool, args, key} to journal. 2. Commit. 3. Only then "
                    "call the provider. 4. Append the result and commit again.",
      "idempotency": "1. Key = f(run_id, step_index, sha256(args)). 2. Compute it before step 1 "
                     "above and store it with the intent. 3. Never put the attempt number or "
                     "the clock into it.",
      "resumeProtocol": "1. Replay the journal. 2. For each intent lacking a result, call "
                        "lookup(key). 3. Found: write it as the result. 4. Not found and intent "
                        "younger than 24h: resend with the same key. 5. Older: stop the run as "
                        "uncertain and open a ticket for an operator.",
      "failureMode": "1. Crashes left longer than the 24h key retention cannot be settled "
                     "automatically and wait on a person."},
     {"passed": True, "why": "intent before the call, derived key stored with it, lookup then "
                             "same-key resend within retention, escalation past it; true failure "
                             "mode",
      "voice": "checklist"}),
    ("h18-good-checklist-short",
     {"checkpoint": "(1) Durable intent record written and committed before every charge; "
                    "(2) outcome recorded after.",
      "idempotency": "(1) One key per logical charge, derived from run id + step + args digest; "
                     "(2) same key on every retry and every worker.",
      "resumeProtocol": "(1) Ask the provider by key first. (2) Resend with that key only if "
                        "not found and the intent is under 24 hours old. (3) Otherwise hand to "
                        "an operator.",
      "tradeOff": "(1) An extra synchronous write on the hot path of every call. (2) The "
                  "provider has to expose a lookup-by-key endpoint."},
     {"passed": True, "why": "all four pieces present; both trade-offs (extra write, needs a "
                             "lookup endpoint) are true",
      "voice": "checklist"}),
    ("h18-good-checklist-no-lookup",
     {"checkpoint": "Must: the intent row (with its key) is committed before the HTTP request; "
                    "the response is committed after it.",
      "idempotency": "Must: the idempotency key is a pure function of run id, step and request "
                     "body hash, so it is reproducible and identical across attempts.",
      "resumeProtocol": "Must: for an intent with no response, resend the identical request "
                        "with the identical key while the intent is younger than the provider's "
                        "24 h retention (the provider replays its saved answer). Must not: "
                        "resend once it is older; mark the run uncertain for an operator.",
      "failureMode": "Must accept: the resend must carry byte-identical parameters, and a W2 "
                     "crash found after a day is escalated even though nothing was charged."},
     {"passed": True, "why": "retry-within-retention with intent and derived key: clean at once, "
                             "escalated past retention; both failure modes are true",
      "voice": "checklist"}),
    ("h18-good-checklist-stored-key",
     {"checkpoint": "- [x] journal entry 'charge pending' committed before the provider is "
                    "called\n- [x] receipt appended once it returns",
      "idempotency": "- [x] random key generated exactly once, at the moment the pending entry "
                     "is written, and saved inside it\n- [x] retries reuse the saved key",
      "resumeProtocol": "- [x] pending without receipt -> look it up by the saved key\n- [x] "
                        "absent and < 24h -> resend with saved key\n- [x] absent and >= 24h -> "
                        "escalate to a human, do not resend",
      "failureMode": "- [ ] not solved: a run resumed after the 24h window sits uncertain until "
                     "someone checks the provider by hand"},
     {"passed": True, "why": "stored key journaled with the intent before the call, lookup, "
                             "resend within retention, escalation past it; true failure mode",
      "voice": "checklist"}),
    # ------------------------------------------------------------------ checklist (3 bad)
    ("h18-bad-checklist-key-in-retry-loop",
     {"checkpoint": "1. Write the intent to the journal. 2. Commit. 3. Call. 4. Write result.",
      "idempotency": "1. The HTTP client wrapper sets an Idempotency-Key header with uuid4() "
                     "on each request it sends. 2. The provider dedupes on that header.",
      "resumeProtocol": "1. Replay. 2. Look up unfinished charges by key. 3. Resend if not "
                        "found within 24h. 4. Escalate otherwise.",
      "failureMode": "1. Past the 24h window a human has to step in."},
     {"passed": False, "why": "key made per attempt in the client: the lookup by the logical key "
                              "finds nothing and the resend carries a new key, so W3/W4 charge "
                              "twice",
      "voice": "checklist"}),
    ("h18-bad-checklist-no-cost",
     {"checkpoint": "1. Intent committed to the journal before the call. 2. Result committed "
                    "after.",
      "idempotency": "1. Key derived from run id, step and payload digest. 2. Same on retries.",
      "resumeProtocol": "1. Lookup by key. 2. Not found inside the 24h retention: resend with "
                        "the same key. 3. Past retention: escalate.",
      "failureMode": "1. None that I can find: every crash window is handled automatically "
                     "and no order is ever charged twice or left unresolved."},
     {"passed": False, "why": "the design is right but the failure mode is a false safety: past "
                              "retention W2-W4 are escalated and wait unresolved for an operator",
      "voice": "checklist"}),
    ("h18-bad-checklist-refund-on-doubt",
     {"checkpoint": "1. Journal intent before every tool call. 2. Journal result after.",
      "idempotency": "1. Derived key: run id + step + args hash.",
      "resumeProtocol": "1. On resume, any charge without a recorded result is treated as "
                        "failed. 2. Mark the run failed. 3. Run compensations: refund the "
                        "charges we have receipts for, cancel bookings. 4. Tell the customer to "
                        "retry.",
      "failureMode": "1. We may lose the order, but the customer is never left out of pocket."},
     {"passed": False, "why": "fail-and-compensate: a W3 charge has no receipt, so nothing "
                              "refunds it and the failed run leaves a standing charge; the "
                              "failure mode claims a safety it lacks",
      "voice": "checklist"}),
    # ------------------------------------------------------------------ sql-and-transactions (4 good)
    ("h18-good-sql-intent-row",
     {"checkpoint": "Table step_intents(run_id, step, tool, args_json, effect_key, sent_at, "
                    "result_json NULL). INSERT the row and COMMIT before the HTTP request; "
                    "UPDATE result_json in a second transaction when the response arrives.",
      "idempotency": "effect_key = run_id || ':' || step || ':' || sha256(args_json), computed "
                     "before the INSERT; it is the Idempotency-Key header on every attempt.",
      "resumeProtocol": "SELECT * FROM step_intents WHERE run_id = ? AND result_json IS NULL. "
                        "For each row: GET /charges?key=effect_key. Hit: UPDATE result_json. "
                        "Miss and now() - sent_at < 24h: resend with effect_key. Miss and older: "
                        "set the run to UNCERTAIN and leave it for an operator.",
      "failureMode": "Two commits per call instead of one, and rows older than the provider's "
                     "24h retention cannot be decided by the worker."},
     {"passed": True, "why": "intent row committed before dispatch with a derived key, lookup, "
                             "resend within retention, escalation past it; true costs",
      "voice": "sql-and-transactions"}),
    ("h18-good-sql-stored-key-column",
     {"checkpoint": "BEGIN; INSERT INTO outbox(run_id, step, payload, idem_key, created_at, "
                    "status='pending'); COMMIT; then the dispatcher sends it. The provider "
                    "response is written with UPDATE outbox SET status='done', receipt=? in its "
                    "own transaction.",
      "idempotency": "idem_key is gen_random_uuid() evaluated once, in that INSERT, so the "
                     "value lives in the row; every send of the row uses the column value.",
      "resumeProtocol": "On startup: rows with status='pending' are checked against the "
                        "provider's lookup by idem_key. Found -> mark done with the receipt. Not "
                        "found and created_at within the last 24h -> send again with idem_key. "
                        "Not found and older -> status='needs_operator'; the worker never "
                        "resends those.",
      "tradeOff": "The outbox write is on the critical path of every charge, and pending rows "
                  "past 24h need manual reconciliation."},
     {"passed": True, "why": "stored key generated once in the committed intent row, lookup, "
                             "resend within retention, escalation past it; true trade-off",
      "voice": "sql-and-transactions"}),
    ("h18-good-sql-reference-column",
     {"checkpoint": "payments_journal(run_id, step, client_ref, amount, intent_committed_at, "
                    "receipt). The intent is its own committed transaction before we call the "
                    "provider; receipt is filled in afterwards.",
      "idempotency": "client_ref is derived (run_id, step, payload hash) and sent as the "
                     "provider's reference field. Their API doesn't dedupe on it, but it is "
                     "stored with the charge and searchable.",
      "resumeProtocol": "WHERE receipt IS NULL: search the provider by client_ref before doing "
                        "anything. A match becomes the receipt. No match means it was never "
                        "charged, so send it now with the same client_ref. The provider keeps "
                        "references indefinitely, so the age of the row does not matter.",
      "failureMode": "Since the reference is not a dedupe key, two workers recovering the same "
                     "run at the same moment could both see 'no match' and both charge; we rely "
                     "on the run lease to keep that from happening."},
     {"passed": True, "why": "intent before the call, client reference with lookup first: clean "
                             "at once and after 25 h; the concurrency caveat is a true limit",
      "voice": "sql-and-transactions"}),
    ("h18-good-sql-two-phase-journal",
     {"checkpoint": "Two writes per tool call: (a) INSERT INTO journal(kind='intent', ...) "
                    "committed before dispatch, (b) INSERT INTO journal(kind='result', ...) "
                    "committed after. The model's decision is also a journal row, so replay "
                    "never asks the model twice.",
      "idempotency": "Key stored in the intent row, computed as hash(run_id, position, "
                     "canonical_json(args)); deterministic, so every retry sends the same one.",
      "resumeProtocol": "Replay the rows in order; an intent with no matching result triggers a "
                        "provider lookup by key, then a same-key resend only if the intent's "
                        "timestamp is inside the 24 h retention; outside it, the run is left "
                        "UNCERTAIN for an operator.",
      "failureMode": "If the run store is down we cannot charge at all, because the intent "
                     "insert has to succeed first: availability of the journal bounds "
                     "availability of payments."},
     {"passed": True, "why": "intent and result journaled, decision kept, derived key, lookup "
                             "then resend within retention, escalation past it; the availability "
                             "cost is true",
      "voice": "sql-and-transactions"}),
    # ------------------------------------------------------------------ sql-and-transactions (3 bad)
    ("h18-bad-sql-key-at-dispatch",
     {"checkpoint": "INSERT INTO outbox(run_id, step, payload, status='pending') and COMMIT "
                    "before sending; UPDATE status='sent', response=? afterwards.",
      "idempotency": "The dispatcher sets idem_key = uuid4() when it picks a pending row up and "
                     "sends it in the header; the provider deduplicates on it.",
      "resumeProtocol": "Pending rows are picked up again by the dispatcher after a restart and "
                        "sent, provided they are less than 24 hours old; older ones are flagged "
                        "for an operator.",
      "failureMode": "Rows older than a day need a human."},
     {"passed": False, "why": "the key is generated by the dispatcher each time it picks the row "
                              "up, not stored in the row: a resumed dispatch sends a new key, so "
                              "a W3/W4 crash charges twice even at once",
      "voice": "sql-and-transactions"}),
    ("h18-bad-sql-attempt-in-key",
     {"checkpoint": "journal(run_id, step, attempt, args, result). An intent row with "
                    "result NULL is committed before each attempt; result is set after.",
      "idempotency": "idem_key = sha256(run_id || step || attempt): deterministic and unique "
                     "per row, so no collisions.",
      "resumeProtocol": "For rows with result NULL we call the provider's lookup with that "
                        "row's idem_key; on a miss within 24h we insert a new attempt row and "
                        "send; past 24h we escalate.",
      "failureMode": "Escalated runs past 24 h wait on an operator."},
     {"passed": False, "why": "the attempt number is in the key, so each retry is a different key "
                              "to the provider: the resend after a W3 crash is a second charge",
      "voice": "sql-and-transactions"}),
    ("h18-bad-sql-reference-blind-resend",
     {"checkpoint": "BEGIN; INSERT intent(run_id, step, ref, payload); COMMIT; call; BEGIN; "
                    "UPDATE intent SET receipt = ?; COMMIT.",
      "idempotency": "ref = run_id:step:payload_hash, passed to the provider as its "
                     "client_reference field, which it stores on the charge.",
      "resumeProtocol": "SELECT intents WHERE receipt IS NULL and resend each with the same ref, "
                        "so the provider can match it to the original.",
      "failureMode": "A resend costs one more API call."},
     {"passed": False, "why": "a client reference is not deduplicated; resending it blindly after "
                              "a W3/W4 crash makes a second charge even at once",
      "voice": "sql-and-transactions"}),
    # ------------------------------------------------------------------ actor-or-saga (3 good)
    ("h18-good-actor-activity",
     {"checkpoint": "The workflow engine records a 'scheduled' event for the charge activity in "
                    "the workflow history, persisted before the activity worker is allowed to "
                    "run it; the activity's completion is recorded as a second event.",
      "idempotency": "The activity uses workflowRunId + activityId + a digest of its input as the "
                     "idempotency key; both ids are fixed once the activity is scheduled, so "
                     "retries reuse them.",
      "resumeProtocol": "When the workflow is replayed and the charge activity is scheduled but "
                        "not completed, the activity first asks the payment service whether a "
                        "charge exists for that key. If not, and we are within the provider's "
                        "24h key retention, it charges with the key; beyond that it fails into "
                        "a manual-review signal and the workflow waits for a human.",
      "failureMode": "Workflows idle for over a day with a charge in flight block on manual "
                     "review."},
     {"passed": True, "why": "scheduled event persisted before the call (intent), derived key, "
                             "lookup then resend within retention, escalation past it; true "
                             "failure mode",
      "voice": "actor-or-saga"}),
    ("h18-good-actor-payment-actor",
     {"checkpoint": "A PaymentActor per order persists an event 'ChargeRequested(key, amount)' "
                    "to its event log and waits for the write to be acknowledged before it "
                    "messages the provider gateway. 'ChargeSucceeded(receipt)' is persisted when "
                    "the reply arrives.",
      "idempotency": "The key is generated by the actor when it creates ChargeRequested and lives "
                     "inside that event, so a restarted actor recovers the same key from its log.",
      "resumeProtocol": "On recovery the actor replays its log; if the last event is "
                        "ChargeRequested, it queries the gateway by key. Known: persist "
                        "ChargeSucceeded. Unknown and the event is younger than 24h: send again "
                        "with the key. Older: switch to an AwaitingOperator state and stop.",
      "tradeOff": "Each charge waits for one extra persisted event before the network call, "
                  "and long outages turn into operator work."},
     {"passed": True, "why": "event (intent) persisted before the call with a stored key, lookup, "
                             "resend within retention, escalation past it; true trade-off",
      "voice": "actor-or-saga"}),
    ("h18-good-saga-forward-recovery",
     {"checkpoint": "Saga step 'charge' writes its outbox entry (call, key, registered refund) "
                    "in the same local commit as the saga state, before the dispatcher sends "
                    "it; the receipt is journaled on reply.",
      "idempotency": "The forward key is derived from saga id + step + payload digest; the "
                     "refund's key is derived from the forward key.",
      "resumeProtocol": "Recovery is forward, not backward: an outbox entry without a receipt is "
                        "looked up by its key; if it isn't there and the entry is less than 24h "
                        "old it is re-sent with the same key. If it is older the saga is parked "
                        "for an operator instead of being compensated blindly.",
      "failureMode": "A parked saga holds the booking step hostage until a human confirms the "
                     "charge, which can take hours."},
     {"passed": True, "why": "intent in the outbox before dispatch, derived key, lookup then "
                             "resend within retention, escalation past it (no blind "
                             "compensation); true failure mode",
      "voice": "actor-or-saga"}),
    # ------------------------------------------------------------------ actor-or-saga (3 bad)
    ("h18-bad-saga-compensate-unknown",
     {"checkpoint": "Each saga step's intent is persisted before the call and its result after, "
                    "in the saga log.",
      "idempotency": "Forward and compensation keys derived from saga id and step.",
      "resumeProtocol": "If the orchestrator restarts and finds a step without a result, it "
                        "assumes the step failed and runs the saga backwards: refund each "
                        "completed charge, cancel bookings, and mark the order failed.",
      "failureMode": "The order is lost when this happens and the customer has to place it "
                     "again, but money is always returned."},
     {"passed": False, "why": "fail-and-compensate: a charge committed in W3/W4 has no receipt, "
                              "so it is never refunded and stands on a failed run; 'money is "
                              "always returned' is false",
      "voice": "actor-or-saga"}),
    ("h18-bad-actor-snapshot",
     {"checkpoint": "The agent graph's checkpointer saves a snapshot of the whole state every "
                    "couple of super-steps, which keeps the store traffic low.",
      "idempotency": "Key from thread id + node index + hash of the charge arguments the model "
                     "produced, so it is deterministic.",
      "resumeProtocol": "Resume from the last snapshot, then look up any charge by key before "
                        "repeating it; resend within 24h, escalate past.",
      "failureMode": "We may redo a couple of nodes after a crash."},
     {"passed": False, "why": "periodic snapshot loses the model's decision: on resume the model "
                              "answers with another amount, so the derived key differs and the "
                              "charge happens twice",
      "voice": "actor-or-saga"}),
    ("h18-bad-actor-in-memory",
     {"checkpoint": "The order actor keeps its progress (charge requested, receipt) in its own "
                    "state; the supervisor restarts it when it crashes and it carries on from "
                    "that state.",
      "idempotency": "Key derived from order id, step name and amount.",
      "resumeProtocol": "After the restart the actor re-sends whatever it had not got a reply "
                        "for, with the same key, so the provider deduplicates.",
      "failureMode": "Restarts cost a few hundred milliseconds."},
     {"passed": False, "why": "actor state is in memory: a crashed worker loses it, so nothing is "
                              "journaled (no checkpoint) and a late recovery re-decides and "
                              "re-charges",
      "voice": "actor-or-saga"}),
    # ------------------------------------------------------------------ very-terse (3 good)
    ("h18-good-terse-lookup",
     {"checkpoint": "Intent committed before the call; result after.",
      "idempotency": "Key = run id + step + args hash, every attempt.",
      "resumeProtocol": "Look up by key; resend same key under 24h; else escalate.",
      "failureMode": "Late recoveries wait for an operator."},
     {"passed": True, "why": "all four pieces, tersely; true failure mode",
      "voice": "very-terse"}),
    ("h18-good-terse-resend-window",
     {"checkpoint": "Write-ahead intent row per charge, then result.",
      "idempotency": "Deterministic key from run, step, payload digest.",
      "resumeProtocol": "Same-key resend inside provider retention; past it, page a human.",
      "tradeOff": "Extra write per call; manual work past 24h."},
     {"passed": True, "why": "retry-within-retention with intent and derived key: clean or "
                             "escalated everywhere; true trade-off",
      "voice": "very-terse"}),
    ("h18-good-terse-reference",
     {"checkpoint": "Journal the intent before sending, outcome after.",
      "idempotency": "Client reference from run id and step, stored by provider.",
      "resumeProtocol": "Search by reference first; send only if absent.",
      "failureMode": "Needs a search that is never stale."},
     {"passed": True, "why": "intent, client reference, lookup before send: clean even after "
                             "25 h; the search-freshness dependency is true",
      "voice": "very-terse"}),
    # ------------------------------------------------------------------ very-terse (3 bad)
    ("h18-bad-terse-labels",
     {"checkpoint": "Write-ahead log.",
      "idempotency": "Idempotency keys.",
      "resumeProtocol": "Lookup, then retry.",
      "failureMode": "Retention."},
     {"passed": False, "why": "labels without mechanisms: no key derivation, no ordering of the "
                              "write against the call, no rule for past the retention window",
      "voice": "very-terse"}),
    ("h18-bad-terse-fresh-key",
     {"checkpoint": "Intent journaled before each request.",
      "idempotency": "Fresh uuid4 Idempotency-Key on each request.",
      "resumeProtocol": "Query provider by key, resend if missing.",
      "failureMode": "Slightly more provider calls."},
     {"passed": False, "why": "a new key per request: the provider cannot dedupe the resend and "
                              "W3/W4 charge twice; the failure mode misses it",
      "voice": "very-terse"}),
    ("h18-bad-terse-blind-resend",
     {"checkpoint": "Intent before call, result after, both durable.",
      "idempotency": "Key derived from run, step and args.",
      "resumeProtocol": "Resend unfinished calls with their key; provider dedupes.",
      "failureMode": "No double charges, ever."},
     {"passed": False, "why": "blind resend with no age limit: after 25 h the key is pruned and "
                              "the resend charges twice; 'never' is a false safety",
      "voice": "very-terse"}),
    # ------------------------------------------------------------------ keyword-stuffed (2 good)
    ("h18-good-stuffed-but-right",
     {"checkpoint": "Durable write-ahead journal (WAL-style, fsync'd, transactional outbox "
                    "semantics): the intent event with tool, args and effect key is committed "
                    "BEFORE dispatch; the result/receipt event is committed AFTER; the model "
                    "decision is journaled too for deterministic replay.",
      "idempotency": "Deterministic, payload-bound idempotency key (run id + step position + "
                     "canonical args digest), identical across attempts, workers and restarts; "
                     "sent as the Idempotency-Key header; exactly-once effect via provider-side "
                     "dedup.",
      "resumeProtocol": "Deterministic replay of the event log; reconcile every unresolved "
                        "intent by lookup-by-key BEFORE any resend; resend with the same key only "
                        "within the provider's retention window (24 h); past retention raise "
                        "EffectKeyMayBePruned and park the run UNCERTAIN for human-in-the-loop "
                        "operator resolution.",
      "failureMode": "Past retention, W2/W3/W4 crashes need operator resolution (liveness cost); "
                     "one extra synchronous durable write per call (latency cost)."},
     {"passed": True, "why": "jargon-heavy but every mechanism is right and ordered; both costs "
                             "true",
      "voice": "keyword-stuffed"}),
    ("h18-good-stuffed-stored-key",
     {"checkpoint": "Event-sourced, append-only, ACID journal with write-ahead intent records "
                    "(pre-dispatch commit) and post-dispatch outcome records.",
      "idempotency": "Idempotent operation identity: a UUIDv4 minted once per logical operation "
                     "at intent-creation time and persisted in the intent record (stored key, "
                     "never regenerated per attempt, never per retry).",
      "resumeProtocol": "Crash recovery = replay + reconciliation: lookup by the persisted key; "
                        "found -> materialize receipt; not found within 24h TTL -> idempotent "
                        "same-key resend; not found beyond TTL -> escalate to an operator "
                        "(UNCERTAIN state, no automatic resend).",
      "tradeOff": "Latency (pre-dispatch commit), coupling to a provider lookup API, and "
                  "operator toil for post-TTL unknowns."},
     {"passed": True, "why": "stuffed wording but a correct design: stored key in the intent, "
                             "lookup, resend within retention, escalate past; true trade-offs",
      "voice": "keyword-stuffed"}),
    # ------------------------------------------------------------------ keyword-stuffed (3 bad)
    ("h18-bad-stuffed-no-mechanism",
     {"checkpoint": "Robust, durable, fault-tolerant, event-sourced checkpointing with "
                    "exactly-once semantics and transactional consistency.",
      "idempotency": "End-to-end idempotency: idempotency keys, deduplication, at-most-once and "
                     "exactly-once guarantees across the payment pipeline.",
      "resumeProtocol": "Resilient recovery via replay, reconciliation, retries with exponential "
                        "backoff, circuit breakers and a dead letter queue.",
      "failureMode": "Eventual consistency trade-offs under network partitions (CAP)."},
     {"passed": False, "why": "keyword stuffing: no statement of when anything is written, how "
                              "the key is made, or what happens to an unknown charge or past "
                              "retention",
      "voice": "keyword-stuffed"}),
    ("h18-bad-stuffed-every-resume",
     {"checkpoint": "WAL intent record committed pre-dispatch, outcome record post-dispatch.",
      "idempotency": "Payload-bound derived idempotency key (run id, step, args digest).",
      "resumeProtocol": "Full recovery toolbox: blind retry with backoff, lookup-by-key "
                        "reconciliation, saga compensation (refund), and escalation to an "
                        "operator, all applied to unresolved intents.",
      "failureMode": "Defence in depth: every failure is covered by at least one recovery path."},
     {"passed": False, "why": "the resume field names every exclusive choice at once (blind "
                              "retry, lookup, compensate, escalate) with no rule between them, "
                              "and the failure mode is a false safety",
      "voice": "keyword-stuffed", "contradiction": True}),
    ("h18-bad-stuffed-hidden-per-attempt",
     {"checkpoint": "Transactional outbox with write-ahead intent commit before the provider "
                    "call, receipt committed after; deterministic replay.",
      "idempotency": "Idempotency-Key header for provider-side dedup, generated as a "
                     "time-ordered UUIDv7 by the HTTP client at send time for traceability.",
      "resumeProtocol": "Reconcile unresolved intents by lookup-by-key, same-key resend within "
                        "the 24h retention window, escalation to an operator beyond it.",
      "failureMode": "Operator toil after retention expiry."},
     {"passed": False, "why": "the key is minted by the HTTP client at send time, so every attempt "
                              "has a new key: lookup finds nothing and the resend charges twice "
                              "in W3/W4",
      "voice": "keyword-stuffed"}),
    # ------------------------------------------------------------------ self-contradicting (1 good)
    ("h18-good-selfcorrecting",
     {"checkpoint": "My first idea was to write the result after the call, but that leaves no "
                    "trace if we die mid-call, so instead: the intent goes into the journal and "
                    "is committed before the call, and the result is added after.",
      "idempotency": "I'd started with a fresh UUID per request, which is wrong (the provider "
                     "would see each retry as new). Final answer: the key is derived from run id, "
                     "step and a payload digest, the same for every attempt.",
      "resumeProtocol": "On resume, an intent without a result is looked up by that key. If the "
                        "provider doesn't have it and the intent is under 24 hours old, resend "
                        "with the same key; if it's older, don't resend, escalate to a person.",
      "failureMode": "What's left: a crash that's only recovered after a day can't be decided "
                     "by the runtime, so it waits for a person."},
     {"passed": True, "why": "reasons aloud past two rejected ideas but settles on the right "
                             "design in every field; true failure mode; not a contradiction",
      "voice": "self-contradicting"}),
    # ------------------------------------------------------------------ self-contradicting (3 bad)
    ("h18-bad-contra-replay-without-journal",
     {"checkpoint": "We don't persist anything per step; keeping the run stateless makes "
                    "scaling trivial.",
      "idempotency": "Key derived from run id, step and arguments.",
      "resumeProtocol": "Replay the journal up to the last completed step, then look up the "
                        "in-flight charge by key before resending.",
      "failureMode": "A lookup per recovered charge."},
     {"passed": False, "why": "replays a journal the checkpoint says does not exist; with nothing "
                              "persisted the model re-decides a new amount and the charge repeats",
      "voice": "self-contradicting", "contradiction": True}),
    ("h18-bad-contra-key-random-in-failure",
     {"checkpoint": "Intent journaled and committed before the call, result after.",
      "idempotency": "Key derived from run id + step + args digest, stable across attempts.",
      "resumeProtocol": "Look the charge up by key; resend with the same key within 24 h; "
                        "escalate past that.",
      "failureMode": "Because the key is random on each attempt, a lookup after a crash can miss "
                     "the original charge and we might charge twice in W3."},
     {"passed": False, "why": "the failure mode says the key is random per attempt while the "
                              "idempotency field derives it; the two fields contradict each other",
      "voice": "self-contradicting", "contradiction": True}),
    ("h18-bad-contra-lookup-no-key",
     {"checkpoint": "Intent row committed before the charge, result row after.",
      "idempotency": "We don't send any key or reference to the provider; their API doesn't "
                     "take one and we keep our requests plain.",
      "resumeProtocol": "For an unfinished charge, look it up at the provider by its key and "
                        "resend only if it isn't found.",
      "failureMode": "Recovery needs the provider's lookup to be available."},
     {"passed": False, "why": "looks a charge up by a key the idempotency field says is never "
                              "sent; with no key the lookup cannot find it and the resend charges "
                              "twice",
      "voice": "self-contradicting", "contradiction": True}),
]
