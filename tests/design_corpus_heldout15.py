"""Held-out corpus HELDOUT15: 42 designOutline() answers, written blind to the grader.

Written blind (stop s12, writer15): its author read the lesson 05b notebook, lessons 04 and 05,
minirt_course/scenarios/design_payment.py (the crash sweep) and the first 20 lines of
tests/design_corpus_heldout11b.py (the format), never the grader, its vocabulary, its tests or
the other corpora. It is measured once; do not tune the reader on it.

Invariant: 21 entries with ``passed: True`` (an outline whose design the sweep finds clean in
every window, recovered at once and after 25 h, with a failure mode or trade-off that is true
of it) and 21 with ``passed: False`` (a plausible mistake, named in ``why``); entry names are
unique. Each verdict is a careful human reading of the text, checked against the sweep rules of
design_payment.py (the five clean designs of the sweep: intent-and-result with a derived or a
stored key and replay-and-lookup or retry-within-retention, and intent-and-result with a client
reference and replay-and-lookup). Not guaranteed: that the grader agrees (that is what is
measured), nor that the voices cover every way learners write.
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT15: list[Entry] = [
    # ------------------------------------------------------------------ good: story
    ("h15-good-story-night-shift",
     {"checkpoint": "Before the worker even opens the connection to the payment API it commits "
                    "a row saying 'about to charge order A-42, 42.00 EUR, under key X'. Only "
                    "once that row is on disk does the request go out; the receipt is written "
                    "as a second row when it comes back.",
      "idempotency": "X is computed from the run id, the step number and a hash of the charge "
                     "arguments, so the worker that picks the run up tomorrow computes the very "
                     "same X.",
      "resumeProtocol": "Say the box dies right after the provider charged the card. The new "
                        "worker replays, sees the 'about to charge' row with no receipt next to "
                        "it, and asks the provider whether it has a charge under X. It does, so "
                        "we just record that receipt and move on to the booking. If the "
                        "provider had said no and the row is less than a day old, we'd send "
                        "again with X; if it's older than the provider's 24 hours, we stop and "
                        "page someone.",
      "failureMode": "If nobody restarts the worker until the next day, that same crash ends "
                     "with the run parked for a human: one charge, but not finished."},
     {"passed": True,
      "why": "intent before dispatch, derived key, lookup then same-key resend inside 24 h, "
             "escalate past it: clean; past-retention parking is a true cost",
      "voice": "story"}),

    ("h15-good-story-friday-deploy",
     {"checkpoint": "We found this out during a Friday deploy that killed a pod mid-payment. "
                    "Now every tool call first appends an intent record (tool, args, key) to "
                    "the run's journal and commits it; the outcome is appended after the "
                    "response.",
      "idempotency": "The key is a random UUID, but it is minted exactly once, when the intent "
                     "is written, and it lives in that intent record. Every later attempt reads "
                     "it back from there instead of making a new one.",
      "resumeProtocol": "The replacement pod replays the journal, finds the intent with no "
                        "outcome, and queries the provider by the stored UUID. Found: take that "
                        "receipt. Not found and still within the provider's key retention: send "
                        "again with the same UUID. Past retention: leave it uncertain for "
                        "on-call.",
      "tradeOff": "Two synchronous writes per charge instead of one, which adds latency to "
                  "every payment."},
     {"passed": True,
      "why": "stored key journaled with the intent, lookup-first resume with retention cutoff: "
             "clean; the extra write is a real cost",
      "voice": "story"}),

    ("h15-good-story-terse",
     {"checkpoint": "Intent committed to the journal before the charge goes out, result after.",
      "idempotency": "Key = hash(run id, step, args); identical on every retry and every worker.",
      "resumeProtocol": "On restart, an open intent is checked with the provider by that key; "
                        "resend with the same key only if it's not there and the intent is "
                        "under 24 h old, otherwise hand it to a person.",
      "failureMode": "A crash just after the intent is written but before anything is sent, "
                     "noticed 25 hours later, still goes to a person even though nothing was "
                     "charged."},
     {"passed": True,
      "why": "the canonical clean design; W2 past retention really is escalated with zero "
             "charges, so the failure mode is true",
      "voice": "story"}),

    ("h15-good-story-stripe-no-lookup",
     {"checkpoint": "I wrote it like an outbox: the charge intent and its key are committed in "
                    "one transaction with the run's state, then the worker sends it, then the "
                    "receipt is recorded.",
      "idempotency": "The Idempotency-Key header carries the run/step/payload-digest key from "
                     "the intent, never something generated in the HTTP retry loop.",
      "resumeProtocol": "Our provider is Stripe-like and can't be searched by key, so when the "
                        "worker comes back and sees an intent with no receipt it just resends "
                        "the identical request with the identical key, which Stripe answers "
                        "with the original charge, but only if the intent is younger than the "
                        "24 h key window (with a margin). Older than that it does not send; the "
                        "run goes UNCERTAIN for an operator.",
      "failureMode": "The resend must carry exactly the same parameters, otherwise the provider "
                     "rejects the reused key; and past the window a person has to settle it "
                     "from the dashboard."},
     {"passed": True,
      "why": "intent-and-result, derived key, retry-within-retention then escalate: clean in "
             "every window; both stated costs are true",
      "voice": "story"}),

    ("h15-good-story-reference-shop",
     {"checkpoint": "The agent records the intent to charge, including the reference it is "
                    "about to put on the order, in its journal before submitting; the "
                    "confirmation is recorded after.",
      "idempotency": "Our processor has no idempotency keys, only a merchant reference field it "
                     "stores with the charge and lets us search on. We set it to a value "
                     "derived from the run and step, written in the intent.",
      "resumeProtocol": "When the agent wakes up after a crash with an unconfirmed intent, it "
                        "searches the processor for that reference first. If the charge is "
                        "there it adopts it; only if the search comes back empty does it "
                        "submit again with the same reference.",
      "failureMode": "The reference does not stop a second charge on its own: everything rests "
                     "on the search being accurate. Two workers resuming the same run at once "
                     "could both see nothing and both charge."},
     {"passed": True,
      "why": "intent-and-result + client reference + lookup is clean even after 25 h (search "
             "never expires); the concurrency limit is true and outside the sweep",
      "voice": "story"}),

    # ------------------------------------------------------------------ good: q-and-a
    ("h15-good-qa-four-questions",
     {"checkpoint": "When does progress become durable? Before the call: the intent (tool, "
                    "arguments, key, timestamp) is journaled and committed, and the result is "
                    "journaled when it arrives.",
      "idempotency": "What does the provider dedupe on? A key built from run id + step index + "
                     "digest of the payload. Does it change on retry? No.",
      "resumeProtocol": "What happens to an intent with no result? Look it up at the provider "
                        "by the key. Found: use it. Not found, intent younger than 24 h: resend, "
                        "same key. Older: escalate, don't send.",
      "failureMode": "What still hurts? After a day-long outage, every crash that left an open "
                     "charge needs an operator."},
     {"passed": True,
      "why": "intent-first, derived key, lookup, retention-bounded resend, escalation: clean; "
             "true failure mode",
      "voice": "q-and-a"}),

    ("h15-good-qa-why-not-uuid",
     {"checkpoint": "Q: what's on disk if we crash mid-call? A: the intent record, written and "
                    "fsynced before the request, plus nothing else for that call yet.",
      "idempotency": "Q: why not a UUID per request? A: because the retry would look like a new "
                     "charge. We do use a UUID, but one per logical charge, created once and "
                     "saved inside that intent record.",
      "resumeProtocol": "Q: and on restart? A: replay, then for the open intent call the "
                        "provider's lookup with the saved UUID; resend with it only when the "
                        "lookup misses and we're inside the key retention; otherwise the run "
                        "waits for a human.",
      "tradeOff": "Q: cost? A: the key is only as durable as the journal: it costs a bigger "
                  "intent row, and a resume needs one extra round trip to the provider."},
     {"passed": True,
      "why": "stored key kept by the intent checkpoint, lookup-first resume with escalation "
             "past retention: clean; the costs named are real",
      "voice": "q-and-a"}),

    ("h15-good-qa-short",
     {"checkpoint": "Journal first? Yes: intent before dispatch, result after.",
      "idempotency": "Same key every attempt? Yes, derived from run, step and payload hash.",
      "resumeProtocol": "Unknown outcome? Resend with that key while the provider still "
                        "remembers it (under 24 h); after that, escalate, never resend.",
      "failureMode": "Where does it break? A crash in W2-W4 recovered after the 24 h window "
                     "is left for an operator."},
     {"passed": True,
      "why": "intent-and-result, derived key, retry-within-retention: clean, W2-W4 past "
             "retention escalated, as stated",
      "voice": "q-and-a"}),

    ("h15-good-qa-reference",
     {"checkpoint": "Is the intent saved before the call? Yes, in the run journal with the "
                    "reference that will be sent; the outcome goes in after the response.",
      "idempotency": "Key or reference? A reference: the provider stores it and lets us search "
                     "by it, but would happily accept a second charge with it.",
      "resumeProtocol": "So how do we avoid paying twice? On resume we never send before "
                        "searching the provider for that reference; a hit is recorded as the "
                        "result, a miss means it was never charged and we send it.",
      "failureMode": "Why is a 25 h delay fine here? The provider keeps references forever, "
                     "so the search still answers. The price is that correctness depends "
                     "entirely on that search; a lagging search index would cause a double "
                     "charge."},
     {"passed": True,
      "why": "client reference with lookup before every resend: clean in all windows at once "
             "and after 25 h; the dependency on the search is a true limit",
      "voice": "q-and-a"}),

    # ------------------------------------------------------------------ good: runbook
    ("h15-good-runbook-oncall",
     {"checkpoint": "1. Worker writes the intent event (tool, args, effect key) and commits. "
                    "2. Worker sends the request. 3. Worker writes the result event.",
      "idempotency": "Effect key = run_id + step + sha256(canonical args). Never regenerate it; "
                     "read it from the intent event.",
      "resumeProtocol": "On resume, for each intent without a result: (a) call the provider's "
                        "lookup with the effect key; (b) if found, write it as the result; "
                        "(c) if not found and intent age < 24 h minus margin, resend with the "
                        "same key; (d) otherwise mark the run UNCERTAIN and open a ticket.",
      "failureMode": "Operator step for (d): search the provider's records for the key or the "
                     "order, resolve the effect as happened or not happened. Until then the "
                     "order is not booked."},
     {"passed": True,
      "why": "canonical clean design written as a procedure; the operator wait is true",
      "voice": "runbook"}),

    ("h15-good-runbook-stored",
     {"checkpoint": "Persist intent -> dispatch -> persist outcome. The intent write is a "
                    "committed transaction before any network I/O.",
      "idempotency": "Generate one random key per operation at intent time; store it in the "
                     "intent row. Retries and restarts reuse the stored value.",
      "resumeProtocol": "Restart checklist: replay journal; for open intents query provider by "
                        "stored key; hit -> record receipt; miss inside retention -> resend "
                        "same key; miss past retention -> do not resend, escalate.",
      "tradeOff": "Costs one extra durable write per effect and a provider that exposes a "
                  "lookup endpoint."},
     {"passed": True,
      "why": "stored key with intent checkpoint and lookup/escalate: clean; costs are true",
      "voice": "runbook"}),

    ("h15-good-runbook-no-lookup",
     {"checkpoint": "Step 1: commit the intent (with the key and the time it was created) to "
                    "the journal. Step 2: call the provider. Step 3: commit the result.",
      "idempotency": "Key derived from run id, step position and payload digest; sent as the "
                     "idempotency key header on every attempt.",
      "resumeProtocol": "If the process restarts between steps 1 and 3: check the intent's "
                        "age. Younger than the provider's 24 h key retention (less a safety "
                        "margin): resend with the same key; the provider returns the original "
                        "charge if there was one. Older: stop, leave the run uncertain, page "
                        "the payments on-call.",
      "failureMode": "Between hour 24 and the page being answered the order sits unfinished; "
                     "we accept that rather than risk a second charge."},
     {"passed": True,
      "why": "intent-and-result, derived key, retry-within-retention: clean; the waiting "
             "order is a true trade-off",
      "voice": "runbook"}),

    ("h15-good-runbook-terse",
     {"checkpoint": "intent row committed pre-dispatch; result row post-response",
      "idempotency": "per-operation key, derived from run/step/args hash, reused for all "
                     "attempts",
      "resumeProtocol": "open intent: lookup by key first; resend same key only on a miss within "
                        "24 h; past 24 h escalate to a human",
      "failureMode": "each payment pays one extra synchronous write; day-old crashes need a "
                     "human"},
     {"passed": True,
      "why": "terse but complete canonical design; both costs true",
      "voice": "runbook"}),

    # ------------------------------------------------------------------ good: workflow-engine
    ("h15-good-wf-temporal",
     {"checkpoint": "Like Temporal's event history: the ActivityTaskScheduled event (our "
                    "intent, with the activity input and key) is persisted before the "
                    "activity runs; ActivityTaskCompleted with the receipt is persisted after.",
      "idempotency": "Workflow run ID + activity ID + hash of the input, as Temporal suggests; "
                     "passed to the payment API as its idempotency key, the same on every "
                     "activity retry.",
      "resumeProtocol": "When the workflow is replayed on a new worker and the charge activity "
                        "has a scheduled event but no completion, the activity first asks the "
                        "payment API whether that key already has a charge; only if not, and "
                        "only within the API's 24 h key retention, does it charge with the same "
                        "key. Past that it fails to a manual-review signal instead of "
                        "charging.",
      "failureMode": "Manual review is needed whenever a worker was down for more than a day "
                     "in the middle of a charge."},
     {"passed": True,
      "why": "intent before dispatch (scheduled event), derived key, lookup then bounded "
             "resend, escalation: clean; true failure mode",
      "voice": "workflow-engine"}),

    ("h15-good-wf-restate",
     {"checkpoint": "Restate-style durable step: the journal entry for the charge, including "
                    "the key, is recorded before the side effect is executed, and its result "
                    "is recorded afterwards.",
      "idempotency": "The key is generated once (a UUID) inside a journaled step, so on replay "
                     "the journal hands back the same UUID instead of generating a new one.",
      "resumeProtocol": "Replay to the open charge entry, then reconcile with the provider by "
                        "lookup on that UUID before doing anything else; resend with it only on "
                        "a miss while the provider still retains keys (24 h), and escalate to "
                        "an operator beyond that.",
      "tradeOff": "Every charge costs a round trip to the journal before the API call, and "
                  "recovery costs a lookup."},
     {"passed": True,
      "why": "stored key journaled with the intent, lookup-first resume, escalation past "
             "retention: clean; costs true",
      "voice": "workflow-engine"}),

    ("h15-good-wf-dbos-fixed",
     {"checkpoint": "DBOS only records a step's output after it runs, which is not enough for "
                    "a payment, so the charge is split: a first step durably records the "
                    "intent and key, then a second step calls the provider and its output (the "
                    "receipt) is recorded.",
      "idempotency": "Key derived from the workflow ID, the step number and the digest of the "
                     "charge payload, identical on every execution of the step.",
      "resumeProtocol": "On recovery, a recorded intent with no recorded receipt is looked up "
                        "by key at the provider; a miss is resent with the same key only within "
                        "24 h; otherwise the workflow is left uncertain for an operator.",
      "failureMode": "One more database write per payment, and charges older than the key "
                     "window become operator work."},
     {"passed": True,
      "why": "intent recorded before dispatch (not DBOS's result-only shape), derived key, "
             "lookup/escalate: clean; true costs",
      "voice": "workflow-engine"}),

    ("h15-good-wf-activity-reference",
     {"checkpoint": "Activity input and a client reference are journaled before the activity "
                    "is dispatched; the activity result afterwards.",
      "idempotency": "The payment gateway only supports a client reference (searchable, not "
                     "deduplicated), set from workflow id + activity id.",
      "resumeProtocol": "A replayed workflow with an unfinished charge activity runs a lookup "
                        "activity first: search the gateway by the reference; if a charge is "
                        "found, complete with it, otherwise dispatch the charge.",
      "tradeOff": "An extra search call on every recovery, and we trust the gateway's search to "
                  "be up to date."},
     {"passed": True,
      "why": "client reference + intent + lookup-before-send: clean at once and after 25 h; "
             "costs true",
      "voice": "workflow-engine"}),

    # ------------------------------------------------------------------ good: sql-and-schemas
    ("h15-good-sql-intents-table",
     {"checkpoint": "INSERT INTO effect_intents(run_id, step, tool, args_json, effect_key, "
                    "created_at) is committed before the HTTP call; UPDATE ... SET result_json, "
                    "status='done' after the response.",
      "idempotency": "effect_key = run_id || ':' || step || ':' || sha256(args_json); a "
                     "UNIQUE(run_id, step) constraint means it is computed once and reused.",
      "resumeProtocol": "SELECT * FROM effect_intents WHERE status='open'. For each row: GET "
                        "/charges?idempotency_key=effect_key. Found -> store result. Missing "
                        "and now() - created_at < 24h -> POST again with the same key. "
                        "Otherwise set status='uncertain' and notify a human.",
      "failureMode": "Rows set to 'uncertain' after a long outage need manual reconciliation "
                     "against the provider's records."},
     {"passed": True,
      "why": "intent row before the call, derived key, lookup then bounded resend, escalate: "
             "clean; true failure mode",
      "voice": "sql-and-schemas"}),

    ("h15-good-sql-stored-uuid",
     {"checkpoint": "BEGIN; INSERT INTO journal(kind='intent', run_id, position, payload, "
                    "idem_key); COMMIT; then call the provider; then INSERT INTO "
                    "journal(kind='result', ...).",
      "idempotency": "idem_key is gen_random_uuid() evaluated once, in that intent INSERT. "
                     "Retries SELECT it back rather than generating another.",
      "resumeProtocol": "On resume, intents lacking a matching result row are reconciled: look "
                        "the key up at the provider; resend with the same idem_key only if "
                        "absent and the intent's created_at is inside the provider's 24 h "
                        "retention; past that, flag the run for an operator and send nothing.",
      "tradeOff": "An extra committed transaction on the hot path of every payment."},
     {"passed": True,
      "why": "stored key written with the committed intent, lookup-first, escalation: clean; "
             "the extra transaction is true",
      "voice": "sql-and-schemas"}),

    ("h15-good-sql-outbox",
     {"checkpoint": "Transactional outbox: the order state change and an outbox row "
                    "(effect_key, request body, sent_at NULL) are written in one transaction; "
                    "the dispatcher sends it and writes the receipt into the row.",
      "idempotency": "The outbox row's effect_key is derived from run, step and the body "
                     "digest; the dispatcher always sends that column as the idempotency key.",
      "resumeProtocol": "Rows with no receipt are not resent blindly: the dispatcher re-sends "
                        "the same key only while the row is younger than the provider's 24 h "
                        "retention, relying on the provider's dedup; older rows move to a "
                        "needs_review table for a person.",
      "failureMode": "needs_review rows block the order until someone checks the provider "
                     "dashboard."},
     {"passed": True,
      "why": "intent (outbox row) committed before dispatch, derived key, retry within "
             "retention then escalate: clean; true failure mode",
      "voice": "sql-and-schemas"}),

    ("h15-good-sql-reference-column",
     {"checkpoint": "journal table: one 'intent' row with client_ref written and committed "
                    "before the charge request, one 'result' row after it returns.",
      "idempotency": "client_ref = 'A42-' || run_id || '-' || step, stored by the provider in "
                     "its charges table and searchable; the provider does not deduplicate on "
                     "it.",
      "resumeProtocol": "For an intent with no result: SELECT from the provider's search "
                        "endpoint WHERE reference = client_ref. A row found becomes our result "
                        "row; no row means the charge never happened, so we send it again.",
      "failureMode": "If the provider's search ever lagged behind its writes, a 'no row' would "
                     "be wrong and we would charge twice; our provider's search is immediate."},
     {"passed": True,
      "why": "intent + client reference + lookup: clean in every window (reference kept "
             "forever); the lagging-search caveat is a true limit",
      "voice": "sql-and-schemas"}),

    # ================================================================== bad
    # ------------------------------------------------------------------ bad: story
    ("h15-bad-story-dbos-result-only",
     {"checkpoint": "Like DBOS, each step's output is saved once the step returns, so a "
                    "finished charge is never redone.",
      "idempotency": "Key from run id, step and payload hash, the same every retry.",
      "resumeProtocol": "When our worker crashed after the charge, the next one replayed, saw no "
                        "saved output for the charge step, checked the provider by key, found "
                        "the charge and saved it. No double charge.",
      "failureMode": "The journal write after each step adds a bit of latency."},
     {"passed": False,
      "why": "result-only checkpoint: no intent records that the charge was sent or when, so a "
             "W3/W4 crash recovered after 25 h resends under a pruned key and charges twice",
      "voice": "story"}),

    ("h15-bad-story-snapshot",
     {"checkpoint": "The agent's whole state, including the model's plan, is snapshotted "
                    "every couple of steps, LangGraph-checkpointer style.",
      "idempotency": "Idempotency key derived from run id, step and the charge payload.",
      "resumeProtocol": "Last week a worker died right after the charge went through. The new "
                        "worker loaded the latest snapshot, re-ran from there, looked up the "
                        "key at the provider and resent only when it was missing.",
      "failureMode": "A crash between snapshots redoes a little work, which is cheap."},
     {"passed": False,
      "why": "periodic snapshot loses the model's decision; re-asked, the model picks another "
             "amount, so the derived key differs and the lookup misses: duplicate charge in "
             "W3-W5 even at once; the failure mode calls that cheap",
      "voice": "story"}),

    ("h15-bad-qa-blind-resend",
     {"checkpoint": "Where is progress saved? In the journal: the intent before the call, the "
                    "result after.",
      "idempotency": "What makes the resend safe? A key derived from run, step and payload, "
                     "sent every time.",
      "resumeProtocol": "What does the resumed run do with an unfinished charge? It just sends "
                        "it again with the same key: the provider deduplicates, so there's no "
                        "need to ask it anything first.",
      "failureMode": "Any downside? None that matters: with the same key the provider can "
                     "never charge twice."},
     {"passed": False,
      "why": "blind same-key resend with no retention limit: after 25 h the key is pruned and a "
             "W3/W4 crash charges twice; the failure mode claims a safety it lacks",
      "voice": "q-and-a"}),

    ("h15-bad-qa-give-up-refund",
     {"checkpoint": "Is the intent journaled first? Yes, before dispatch, with the result "
                    "after.",
      "idempotency": "Which key? Derived from the run and step and the payload digest.",
      "resumeProtocol": "And an unknown outcome? We don't gamble: the run is failed and every "
                        "charge that has a receipt is refunded, so the customer is never left "
                        "paying for nothing.",
      "failureMode": "Cost? Some orders get cancelled that could have gone through."},
     {"passed": False,
      "why": "fail-and-compensate: a W3/W4 charge has no receipt, so nothing refunds it (wrong "
             "result) and a W2 crash loses the order; the claim that the customer never pays "
             "for nothing is false",
      "voice": "q-and-a"}),

    # ------------------------------------------------------------------ bad: runbook
    ("h15-bad-runbook-trust-not-found",
     {"checkpoint": "1. Commit intent with key. 2. Send. 3. Commit result.",
      "idempotency": "Key = run id + step + payload hash; reused on every attempt.",
      "resumeProtocol": "On resume: look each open intent up by key. If the provider returns "
                        "the charge, record it. If it returns nothing, the charge never "
                        "happened: resend with the same key. No need to check how old the "
                        "intent is.",
      "failureMode": "A lookup per open intent on every restart."},
     {"passed": False,
      "why": "treats 'not found' as proof regardless of age: after 25 h the key is pruned, the "
             "lookup misses a real W3/W4 charge and the resend charges twice",
      "voice": "runbook"}),

    ("h15-bad-runbook-always-page",
     {"checkpoint": "Intent event committed before the provider call; result event after.",
      "idempotency": "Derived effect key (run, step, args digest), sent on every attempt.",
      "resumeProtocol": "Any intent without a result -> mark the run UNCERTAIN and page the "
                        "on-call engineer. Never resend and never query the provider "
                        "automatically; a human decides every time.",
      "failureMode": "It is the safest option: no crash can cause a stuck or double-charged "
                     "order."},
     {"passed": False,
      "why": "escalate-always leaves every W2-W4 crash stuck even when recovered at once, while "
             "the failure mode claims no crash can cause a stuck order",
      "voice": "runbook"}),

    ("h15-bad-runbook-reference-resend",
     {"checkpoint": "Write the intent, including the client reference, before sending; write "
                    "the result after.",
      "idempotency": "Every charge carries a client reference (order id + step) that the "
                     "provider stores on the charge.",
      "resumeProtocol": "On restart: if the intent is less than 24 h old, resend it with the "
                        "same reference; if older, escalate to a person.",
      "failureMode": "Orders whose crash was noticed after a day need a human."},
     {"passed": False,
      "why": "a client reference is not deduplicated: resending it without searching first "
             "charges twice in W3/W4 even at once",
      "voice": "runbook"}),

    # ------------------------------------------------------------------ bad: workflow-engine
    ("h15-bad-wf-in-memory-state",
     {"checkpoint": "The workflow keeps its progress in the worker's in-memory state object, "
                    "which the engine passes from step to step.",
      "idempotency": "Idempotency key derived from the workflow id and step number.",
      "resumeProtocol": "If the worker restarts, the workflow starts again from the top and "
                        "looks each charge up by its key before sending.",
      "failureMode": "Restarts redo the model call, which costs tokens."},
     {"passed": False,
      "why": "nothing durable (memory only): the restarted run re-asks the drifting model, gets "
             "another amount and key, the lookup misses and it charges twice",
      "voice": "workflow-engine"}),

    ("h15-bad-wf-activity-attempt",
     {"checkpoint": "The engine records ActivityTaskScheduled before running the activity and "
                    "the completion after.",
      "idempotency": "Key = workflow id + activity id + activity attempt number, so every try "
                     "is uniquely identified.",
      "resumeProtocol": "On replay the activity is retried; before charging it checks the "
                        "payment API for the key, and if the key is unknown, charges.",
      "failureMode": "Past the API's 24 h window a check can come back empty."},
     {"passed": False,
      "why": "the attempt number makes a new key per retry: the retry checks and sends under a "
             "key the first attempt never used, so W3/W4 charge twice",
      "voice": "workflow-engine"}),

    ("h15-bad-wf-no-key",
     {"checkpoint": "Durable execution: the charge step's intent is journaled before it runs "
                    "and its output afterwards.",
      "idempotency": "The engine guarantees exactly-once steps, so we don't send any "
                     "idempotency key to the provider.",
      "resumeProtocol": "On recovery the engine re-executes the unfinished step.",
      "tradeOff": "Simpler code, since there is no key management at all."},
     {"passed": False,
      "why": "no key and a blind re-execution: a W3/W4 crash charges twice; 'exactly-once "
             "steps' is not true of an external call",
      "voice": "workflow-engine"}),

    # ------------------------------------------------------------------ bad: sql-and-schemas
    ("h15-bad-sql-after-response",
     {"checkpoint": "One INSERT INTO tool_calls(run_id, step, request, response, effect_key) "
                    "after the provider responds, in a single transaction, so a row is never "
                    "half-written.",
      "idempotency": "effect_key = sha256(run_id || step || request), the same every time.",
      "resumeProtocol": "Steps with no tool_calls row are looked up by effect_key at the "
                        "provider and resent with it if missing.",
      "failureMode": "None: a row is either fully there or not there."},
     {"passed": False,
      "why": "result-only: nothing records the call before it is sent, so after 25 h a W3/W4 "
             "crash resends under a pruned key and charges twice; 'none' is a false safety",
      "voice": "sql-and-schemas"}),

    ("h15-bad-sql-default-uuid",
     {"checkpoint": "intents table written before the HTTP call, results table after.",
      "idempotency": "The request builder fills idempotency_key with uuid4() each time it "
                     "builds the request; the column default is also uuid4().",
      "resumeProtocol": "SELECT intents LEFT JOIN results WHERE results.id IS NULL; for each, "
                        "query the provider by idempotency_key and resend if it's not found.",
      "failureMode": "A resend after 24 h could be a new charge."},
     {"passed": False,
      "why": "the key is rebuilt per request, not kept from the intent, so the lookup misses "
             "and the resend charges twice in W3/W4 even at once",
      "voice": "sql-and-schemas"}),

    # ------------------------------------------------------------------ bad: keyword-stuffed
    ("h15-bad-kw-everything",
     {"checkpoint": "Write-ahead log, intent, result, snapshot, outbox, event sourcing and "
                    "checkpointing for full durability.",
      "idempotency": "Idempotency keys, derived keys, UUIDs, client references and dedup for "
                     "exactly-once semantics.",
      "resumeProtocol": "Replay, lookup, reconcile, retry with backoff, compensate, escalate "
                        "as appropriate.",
      "failureMode": "Failure modes are covered by idempotency and reconciliation."},
     {"passed": False,
      "why": "keyword soup: every field lists exclusive mechanisms with no decision, and the "
             "failure mode names no cost",
      "voice": "keyword-stuffed"}),

    ("h15-bad-kw-saga-outbox",
     {"checkpoint": "Saga with transactional outbox and compensating transactions, intent "
                    "journaled, pivot step last.",
      "idempotency": "Compensation keys derived from forward effect keys, payload-bound "
                     "deduplication, KeyRegistry.",
      "resumeProtocol": "Conditional compensation: on an unknown outcome the saga fails the run "
                        "and compensates what has a receipt, skipping what never happened.",
      "tradeOff": "Sagas give isolation-free consistency with full rollback."},
     {"passed": False,
      "why": "course terms piled up around a fail-and-compensate resume: a W3/W4 charge has no "
             "receipt and is never refunded (wrong result), W2 loses the order; 'full "
             "rollback' is false",
      "voice": "keyword-stuffed"}),

    ("h15-bad-kw-windows",
     {"checkpoint": "W1 W2 W3 W4 W5 all covered by the intent/result journal with fsync.",
      "idempotency": "Stripe-style Idempotency-Key, 24 h retention, payload digest, EffectKey.",
      "resumeProtocol": "ReconcileByLookup, EffectKeyMayBePruned, UNCERTAIN, operator.",
      "failureMode": "No duplicate effect, no lost effect, no stuck run in any window."},
     {"passed": False,
      "why": "names API identifiers instead of describing a key and a protocol, and the failure "
             "mode is false: past retention W2-W4 does wait for an operator",
      "voice": "keyword-stuffed"}),

    # ------------------------------------------------------------------ bad: self-contradicting
    ("h15-bad-contra-replay-no-journal",
     {"checkpoint": "To keep the hot path fast we don't persist anything per step; the run "
                    "lives in memory until it completes.",
      "idempotency": "Key derived from run id, step and payload digest.",
      "resumeProtocol": "After a crash, replay the journal up to the open intent and look it up "
                        "by key before resending.",
      "failureMode": "Lookup past 24 h escalates."},
     {"passed": False, "contradiction": True,
      "why": "replays a journal and an open intent that the checkpoint says are never "
             "written; as designed (nothing persisted) the restart re-asks the model and "
             "charges twice",
      "voice": "self-contradicting"}),

    ("h15-bad-contra-key-random-in-failure",
     {"checkpoint": "Intent journaled before the call, result after.",
      "idempotency": "Key derived from run, step and payload hash, stable across attempts.",
      "resumeProtocol": "Look the open intent up by key; resend with it inside 24 h; escalate "
                        "after.",
      "failureMode": "Because each retry gets a random key, a lost response in W3 can still "
                     "produce a second charge."},
     {"passed": False, "contradiction": True,
      "why": "the failure mode says the key is random per retry while the idempotency field "
             "derives it; for the design described the claimed double charge is false",
      "voice": "self-contradicting"}),

    ("h15-bad-contra-lookup-never-ask",
     {"checkpoint": "The intent goes into the journal before dispatch and the result when it "
                    "returns.",
      "idempotency": "A UUID created once for the operation and saved in the intent.",
      "resumeProtocol": "We always look the charge up by its UUID first. We never call the "
                        "provider on recovery, though: the worker simply resends whatever has "
                        "no result.",
      "failureMode": "Recovery is one lookup per open charge."},
     {"passed": False, "contradiction": True,
      "why": "the resume both looks up first and never asks the provider; the action it "
             "actually takes is a blind resend, which after 25 h charges twice",
      "voice": "self-contradicting"}),

    ("h15-bad-contra-intent-after",
     {"checkpoint": "Write-ahead: the intent is journaled before the call, but we only flush "
                    "it together with the result once the provider has answered.",
      "idempotency": "Derived key from run id, step and args digest.",
      "resumeProtocol": "Open intents are looked up by key; miss within 24 h means resend, "
                        "older means escalate.",
      "failureMode": "The late-recovery case escalates to an operator."},
     {"passed": False, "contradiction": True,
      "why": "'write-ahead' undone by 'flushed only with the result': that is result-only, so "
             "there is no open intent after a W3/W4 crash and the 25 h resend charges twice",
      "voice": "self-contradicting"}),

    # ------------------------------------------------------------------ bad: more subtle
    ("h15-bad-story-good-design-false-claim",
     {"checkpoint": "The charge intent with its key is committed to the journal before the "
                    "request leaves; the receipt is committed when it arrives.",
      "idempotency": "Derived from the run id, the step and the payload digest; the same on "
                     "every attempt.",
      "resumeProtocol": "I crashed it after the provider charged and restarted: it looked the "
                        "key up, found the charge and recorded it. If nothing was found it "
                        "would resend within the 24 h window and escalate after.",
      "failureMode": "None left: because the key never changes, the run always finishes on its "
                     "own, however long the worker was down."},
     {"passed": False,
      "why": "the design is clean but the failure mode is false: a W2-W4 crash recovered after "
             "25 h is escalated, not finished on its own",
      "voice": "story"}),

    ("h15-bad-qa-vague-resume",
     {"checkpoint": "Is the intent durable before the call? Yes, journaled and committed "
                    "first; the result follows.",
      "idempotency": "Stable key? Yes, derived from run, step and payload.",
      "resumeProtocol": "What happens on restart? The run recovers gracefully and reconciles "
                        "whatever is needed.",
      "failureMode": "Edge cases may need attention."},
     {"passed": False,
      "why": "the resume protocol names no mechanism (lookup? resend? escalate?) and the "
             "failure mode names no concrete cost or window",
      "voice": "q-and-a"}),
]
