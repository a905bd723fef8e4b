"""Held-out corpus HELDOUT11B: 34 designOutline() answers, written blind to the grader.

Written blind (stop s8, writer12b): its author read the lesson 05b notebook, lessons 04 and 05
and minirt_course/scenarios/design_payment.py (the crash sweep), never the grader, its
vocabulary, its tests or the other corpora. It is measured once; do not tune the reader on it.

Invariant: 17 entries with ``passed: True`` (an outline whose design the sweep finds clean in
every window, recovered at once and after 25 h, with a failure mode or trade-off that is true
of it) and 17 with ``passed: False`` (a plausible mistake, named in ``why``); entry names are
unique. Each verdict is a careful human reading of the text, checked against the sweep rules of
design_payment.py. Not guaranteed: that the grader agrees (that is what is measured), nor that
the voices cover every way learners write.
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT11B: list[Entry] = [
    # -- good: the story of one run ---------------------------------------------------------
    ("h11b-good-story-order-a42",
     {"checkpoint": "Run of order A-42: first the model's plan is journaled. Then, before the "
                    "charge goes out, we journal an intent (tool, arguments, key) and commit it; "
                    "the provider's answer is journaled right after it returns. The booking "
                    "goes through the same two writes.",
      "idempotency": "The key is built from the run id, the step number and a digest of the "
                     "arguments, so the second attempt of step 1 sends exactly the key the "
                     "first one did.",
      "resumeProtocol": "Say the worker dies after the intent for the charge. The next worker "
                        "replays the journal, finds the intent with no answer and asks the "
                        "provider for that key. If the charge is there, it records it and moves "
                        "on; if not, and we are still inside the 24 h window, it sends again "
                        "with the same key; if the intent is older than that, it stops and "
                        "hands the run to an operator.",
      "failureMode": "The case that doesn't end by itself: the worker comes back more than a "
                     "day after dying mid-charge. The provider has forgotten the key, the "
                     "lookup says nothing useful, and the run waits for a human (with at most "
                     "one charge on the card)."},
     {"passed": True,
      "why": "intent before the call, derived key, lookup then same-key resend within 24 h and "
             "escalation past it; the late-restart escalation it names is what the sweep shows",
      "voice": "story"}),

    ("h11b-good-story-uuid-in-intent",
     {"checkpoint": "We start by writing down the model's decision. Next, before we call the "
                    "payment API, we write an intent that includes the key we are about to use; "
                    "once the API replies we write its result. Then the hotel booking, same "
                    "pattern.",
      "idempotency": "The key is a random UUID, but it is generated only once, when the intent "
                     "is written, and it lives in that intent; every later attempt reads it "
                     "back from there instead of making a new one.",
      "resumeProtocol": "When a new worker picks the run up, it walks the journal. An intent "
                        "with a result is just reused. An intent without one: it queries the "
                        "provider with the stored UUID; found means done, not found means "
                        "resend with that UUID as long as it is under 24 h old, otherwise it "
                        "flags the run for a person.",
      "tradeOff": "Because the key is random it can't be recomputed: the intent write has to "
                  "commit before the request leaves, which puts a synchronous database write in "
                  "front of every call. And an orphaned charge older than a day still ends up "
                  "with an operator."},
     {"passed": True,
      "why": "a key made once and journaled with the intent is a stored key; with lookup and "
             "escalation past 24 h it is clean, and both costs named are real",
      "voice": "story"}),

    # -- good: verbose and hedged -----------------------------------------------------------
    ("h11b-good-hedged-two-writes",
     {"checkpoint": "I think the safest thing is to write an intent record to the journal "
                    "before each provider call, with the tool name, args and the key, and then "
                    "write the result once the call comes back. That's probably two writes per "
                    "call but it should be fine.",
      "idempotency": "I'd derive the idempotency key from the run id plus the step index plus a "
                     "hash of the payload, so it probably never changes between attempts, "
                     "which I believe is the point.",
      "resumeProtocol": "On restart I'd replay from the journal and, for anything that has an "
                        "intent but no result, ask the provider by that key first. If it's "
                        "found, record it; if it isn't and we're within the provider's 24 h "
                        "retention, resend with the same key. Past 24 h I don't think we can "
                        "trust a 'not found', so I'd escalate to a person.",
      "failureMode": "I'm fairly sure the weak spot is the late restart: if we crash between "
                     "the intent and the result and only come back after 24 h, the run can't "
                     "settle by itself and sits uncertain until an operator looks. There's also "
                     "the latency of an extra durable write before every call."},
     {"passed": True,
      "why": "hedged but every mechanism is decided: intent+result, derived key, lookup, "
             "escalation past retention; the failure mode matches the W2-W4 escalation",
      "voice": "hedged"}),

    ("h11b-good-hedged-trust-window",
     {"checkpoint": "Probably: journal the intent with its key before the call and the "
                    "response after the call, both committed to SQLite.",
      "idempotency": "The key should be deterministic; I'd build it from the run id, the step "
                     "and a digest of the arguments, so every retry of a step carries the same "
                     "one.",
      "resumeProtocol": "I don't think we need to query the provider. For an intent with no "
                        "response, if it's less than 24 hours old we resend it with the same "
                        "key, and the provider, I believe, just returns the original result. If "
                        "it's older than the retention window, we shouldn't resend at all; the "
                        "run gets escalated.",
      "failureMode": "The catch, I think, is that we're leaning entirely on the provider's "
                     "24 h dedup window. A crash recovered after that waits for a human even "
                     "if, with a crash right after the intent, nothing was ever sent."},
     {"passed": True,
      "why": "same-key resend within retention, escalate past it, no lookup: clean in the "
             "sweep, and it does escalate W2 past 24 h as the failure mode says",
      "voice": "hedged"}),

    # -- good: Q&A ----------------------------------------------------------------------------
    ("h11b-good-qa-four-questions",
     {"checkpoint": "Q: What becomes durable, and when? A: Two records per provider call: the "
                    "intent (which call, which arguments, which key) committed before the "
                    "request, and the reply committed as soon as it arrives.",
      "idempotency": "Q: How does the provider know it's a retry? A: It receives the same "
                     "idempotency key, a function of run id, step position and a hash of the "
                     "arguments, with nothing random in it.",
      "resumeProtocol": "Q: After a restart, what about a call that may or may not have "
                        "happened? A: Look it up by its key. Found: take that reply. Not found "
                        "and the intent is younger than the 24 h retention: send again, same "
                        "key. Not found and older: don't send; escalate to an operator.",
      "failureMode": "Q: Where is it still weak? A: Restarts later than 24 h after a crash "
                     "between intent and reply. Then 'not found' proves nothing, so the run "
                     "stays UNCERTAIN (at most one charge) until someone checks the provider by "
                     "hand."},
     {"passed": True,
      "why": "the lesson's safe design in Q&A form; its stated weakness is exactly the sweep's "
             "escalated cells",
      "voice": "q-and-a"}),

    ("h11b-good-qa-searchable-reference",
     {"checkpoint": "Q: What gets written? A: Before calling the provider, an intent row with "
                    "the arguments and our reference; after, the provider's answer. Both are "
                    "committed to the run's journal.",
      "idempotency": "Q: How is a retry recognised? A: The provider doesn't deduplicate "
                     "anything for us; instead every charge carries our own reference (run id "
                     "+ step), which it stores on the charge and lets us search by, forever.",
      "resumeProtocol": "Q: On restart? A: For an intent without an answer, search the "
                        "provider for that reference. If a charge with it exists, adopt it as "
                        "the result. Only if the search comes back empty do we send the charge "
                        "(with the same reference).",
      "tradeOff": "Q: What does it cost? A: A search round trip for every unfinished call on "
                  "resume, and nothing at the provider refuses a second charge, so safety rests "
                  "entirely on that search. In exchange references never expire, so even a "
                  "week-late restart settles on its own."},
     {"passed": True,
      "why": "client reference plus a lookup before any resend: clean in every window even "
             "after 25 h (references are kept forever); the cost named is true",
      "voice": "q-and-a"}),

    # -- bad ----------------------------------------------------------------------------------
    ("h11b-bad-stripe-key-with-timestamp",
     {"checkpoint": "Before the POST to /v1/charges we insert a pending row (run, step, "
                    "amount); on the 200 we update it with the charge id.",
      "idempotency": "Idempotency-Key header = sha256(order_id + ':' + request_sent_at), so it "
                     "is deterministic for a given request.",
      "resumeProtocol": "On restart, pending rows are looked up at the provider by their key; "
                        "if not found, we re-POST.",
      "failureMode": "Past 24 h Stripe forgets keys, so a very late restart may need manual "
                     "reconciliation."},
     {"passed": False,
      "why": "the key hashes the send time, so every attempt sends a new key: the lookup and "
             "the re-POST after a W3/W4 crash charge twice, even at once",
      "voice": "stripe-headers"}),

    ("h11b-bad-eventlog-batched-flush",
     {"checkpoint": "Events (ModelDecided, ChargeRequested, ChargeSucceeded, ...) are buffered "
                    "in the worker and flushed to the log as one batch every second step, to "
                    "keep write volume down.",
      "idempotency": "The charge's Idempotency-Key is a hash of run id, step number and the "
                     "charge payload.",
      "resumeProtocol": "Rebuild state by folding the log; any ChargeRequested without a "
                        "ChargeSucceeded is looked up by key before being re-sent.",
      "failureMode": "A crash can lose up to two steps of unflushed events, which just means "
                     "those steps run again; the derived key makes re-running them harmless."},
     {"passed": False,
      "why": "a periodic flush loses the model's decision with the charge; asked again the "
             "model picks another amount, the derived key changes and the charge repeats, so "
             "the 'harmless' failure mode is false",
      "voice": "event-log"}),

    ("h11b-bad-story-flag-in-memory",
     {"checkpoint": "First the worker asks the model for the plan and keeps it, plus a 'charge "
                    "pending' flag, in the worker's memory; when the charge returns we set the "
                    "flag to done and move on to the booking the same way.",
      "idempotency": "The key is derived from run id + step + amount, so it's the same each "
                     "time we compute it.",
      "resumeProtocol": "If the worker dies mid-charge, the new worker checks the pending flag; "
                        "if it is set, it looks the charge up by key before retrying.",
      "failureMode": "If both the provider and our worker are down at once we just wait until "
                     "the provider is back."},
     {"passed": False,
      "why": "the plan and the flag die with the process: the new worker has no record, asks "
             "the model again (new amount, new key) and charges again",
      "voice": "story"}),

    ("h11b-bad-stripe-metadata-resend",
     {"checkpoint": "We log the intent to our DB (order, amount, our reference) before calling "
                    "Stripe, and the charge object after.",
      "idempotency": "Each charge carries metadata[order_ref] = '<order id>-charge', which "
                     "Stripe stores on the charge and which we can search on; we don't send an "
                     "Idempotency-Key header.",
      "resumeProtocol": "After a crash we simply send the charge again with the same "
                        "metadata[order_ref]; the same reference means Stripe sees it as the "
                        "same charge.",
      "failureMode": "Search by metadata lags up to a minute, so dashboards can briefly be "
                     "out of date."},
     {"passed": False,
      "why": "a stored reference is not deduplicated: resending blindly after a W3/W4 crash is "
             "a second charge; the failure mode names a dashboard lag, not that",
      "voice": "stripe-headers"}),

    ("h11b-bad-two-providers-resend-whenever",
     {"checkpoint": "Intent row before each call, result row after, in our Postgres.",
      "idempotency": "Payment: Idempotency-Key derived from run id and step. Hotel: the same "
                     "derived string as the booking reference.",
      "resumeProtocol": "The hotel API has a lookup, so unfinished bookings are looked up by "
                        "reference. The payment API has none, so unfinished charges are re-sent "
                        "with the same key; the provider replays its saved answer, so this is "
                        "safe whenever the worker comes back.",
      "failureMode": "Resending costs one extra API call per unfinished charge."},
     {"passed": False,
      "why": "the charge is resent without asking at any age; past the provider's 24 h "
             "retention the key is pruned and a W3/W4 resend charges twice",
      "voice": "two-providers"}),

    ("h11b-bad-qa-never-stuck",
     {"checkpoint": "Q: What's durable, and when? A: Before each provider call, a journal "
                    "entry with tool, arguments and key; after it, the reply. Both fsynced.",
      "idempotency": "Q: How does the provider spot a retry? A: The key is run id + step + a "
                     "digest of the arguments, recomputed identically on every attempt.",
      "resumeProtocol": "Q: On restart? A: Replay the journal; for an entry with no reply, ask "
                        "the provider by key; found means record it, missing within 24 h means "
                        "resend under the same key, missing after 24 h means escalate.",
      "failureMode": "Q: What can still go wrong? A: Nothing: whatever the crash window and "
                     "however late the restart, every run finishes on its own with exactly one "
                     "charge."},
     {"passed": False,
      "why": "the mechanism is right but the failure mode is false: restarted after 24 h from "
             "a W2-W4 charge crash the run escalates and waits for an operator",
      "voice": "q-and-a"}),
    # -- good: workflow-engine phrasing ---------------------------------------------------------
    ("h11b-good-workflow-activity-history",
     {"checkpoint": "Like a workflow engine's history: an ActivityScheduled event (activity "
                    "type, input, key) is persisted before the charge or booking activity is "
                    "dispatched, and ActivityCompleted with its result afterwards; the model's "
                    "decision is recorded as its own event first.",
      "idempotency": "As Temporal suggests, the idempotency key is workflow run id + activity "
                     "id (+ a digest of the input), passed to the payment API; it is the same "
                     "on every retry of that activity.",
      "resumeProtocol": "On worker restart the workflow is replayed from history. A scheduled "
                        "activity with no completion is reconciled before anything is retried: "
                        "query the provider by the key; completed there -> inject the result; "
                        "absent within the 24 h key retention -> retry with the same key; "
                        "absent beyond it -> the workflow blocks on an operator signal.",
      "failureMode": "A charge activity orphaned by a crash and recovered more than 24 h later "
                     "can't be settled automatically: the workflow blocks until an operator "
                     "signals what happened, and the order waits meanwhile."},
     {"passed": True,
      "why": "scheduled-before/completed-after history, key from run and activity ids, lookup "
             "then bounded retry, operator past retention: clean, and the failure mode is true",
      "voice": "workflow-engine"}),

    ("h11b-good-workflow-uuid-in-scheduled-event",
     {"checkpoint": "The activity's start is recorded in history, with its input and its key, "
                    "before it runs; its result is recorded when it finishes.",
      "idempotency": "When the charge activity is first scheduled we generate a UUID and store "
                     "it in the ActivityScheduled event; retries of the activity read it from "
                     "history instead of generating another.",
      "resumeProtocol": "After a crash the engine replays history. An activity that was "
                        "scheduled but never completed is retried with the stored UUID if it "
                        "was first scheduled less than 24 h ago (the provider dedups that key "
                        "and returns the original charge); if it's older, the engine does not "
                        "retry and raises it to an operator.",
      "failureMode": "We never ask the provider, we depend on its 24-hour dedup: after that "
                     "window an unfinished charge activity stops and waits for a human. Each "
                     "activity also costs one more history write before it starts."},
     {"passed": True,
      "why": "a once-made key kept in history, same-key retry within retention and escalation "
             "past it: clean; the failure mode (operator after 24 h, extra write) is true",
      "voice": "workflow-engine"}),

    # -- good: event-log phrasing -----------------------------------------------------------------
    ("h11b-good-eventlog-requested-event-carries-key",
     {"checkpoint": "Everything is an append to the run's event log: DecisionMade, then "
                    "ChargeRequested (args + key) appended and fsynced before the HTTP call, "
                    "then ChargeSucceeded or ChargeFailed once the response arrives; "
                    "BookingRequested and BookingConfirmed likewise.",
      "idempotency": "The key is a uuid4 created when ChargeRequested is appended and carried "
                     "inside that event; a retry takes the key from the event and never mints a "
                     "new one.",
      "resumeProtocol": "State is rebuilt by folding the log. A ChargeRequested with no "
                        "matching outcome event triggers a lookup at the provider by the "
                        "event's key: a hit appends the outcome; a miss under 24 h re-sends "
                        "with the same key; a miss after 24 h appends NeedsOperator and stops.",
      "tradeOff": "Two log appends per external call, the first on the critical path of the "
                  "request; and a dangling ChargeRequested older than the provider's retention "
                  "is never settled by the system, only by an operator."},
     {"passed": True,
      "why": "request event (with a stored key) before the call, outcome after, lookup, "
             "escalation past 24 h: clean; both costs are real",
      "voice": "event-log"}),

    ("h11b-good-eventlog-sequence-hash",
     {"checkpoint": "We write a Requested event to the log before any side effect and a "
                    "Completed event after it returns; the model's choice is logged as an "
                    "event before the first call, so replay never asks the model again.",
      "idempotency": "key = sha256(run_id | sequence number of the Requested event | canonical "
                     "args). Replaying the log reproduces the same key.",
      "resumeProtocol": "Replay the log; for each Requested without Completed, call the "
                        "provider's lookup with the key. Hit: append Completed. Miss while the "
                        "Requested event is younger than the provider's 24 h retention: "
                        "re-issue with the same key. Miss after that: append an Escalated event "
                        "and leave the run for a human.",
      "failureMode": "Latency: one extra durable append ahead of every call and a lookup per "
                     "dangling request on recovery. Correctness gap: a W2-W4 crash recovered "
                     "after the retention is escalated rather than finished."},
     {"passed": True,
      "why": "write-ahead event, key derived from durable positions and args, lookup, "
             "escalation: clean, and the named gap is the sweep's escalated cells",
      "voice": "event-log"}),

    # -- good: message-queue phrasing -------------------------------------------------------------
    ("h11b-good-mq-ack-after-reply",
     {"checkpoint": "Consumer side: before calling the provider, the handler commits an intent "
                    "row (message id, args, key) in its database; after the call it commits "
                    "the reply, and only then acks the message.",
      "idempotency": "Key derived from the run id, the step and the payload hash, so a "
                     "redelivered message produces the same key as the first delivery.",
      "resumeProtocol": "When the broker redelivers an unacked message after a crash: if the "
                        "intent has a reply, ack and skip. If not, and the intent is under 24 h "
                        "old, resend with the same key; the provider deduplicates and returns "
                        "the first charge. Over 24 h: do not resend, move the message to a "
                        "manual-review queue.",
      "failureMode": "Messages that sit longer than the provider's 24 h key retention after a "
                     "mid-call crash land in manual review instead of completing, including "
                     "ones whose request never actually left."},
     {"passed": True,
      "why": "intent before, reply after, derived key, same-key resend only inside retention "
             "and manual review past it: clean; the failure mode is true (W2-W4 past 24 h)",
      "voice": "message-queue"}),

    ("h11b-good-mq-search-before-resend",
     {"checkpoint": "The handler writes an intent (args plus our order reference) before "
                    "publishing the charge request to the provider, and the reply after; the "
                    "broker ack waits for the reply write.",
      "idempotency": "This provider has no idempotency keys. Each charge carries our reference "
                     "'<run>-<step>', which it stores and lets us search by with no expiry; it "
                     "does not dedup on it.",
      "resumeProtocol": "On redelivery of a message whose intent has no reply, we first search "
                        "the provider for our reference. A match is adopted as the reply; no "
                        "match means the charge never happened and we send it, with the same "
                        "reference.",
      "tradeOff": "Because the provider would accept a second charge under one reference, the "
                  "search before every resend is mandatory: an extra round trip per recovered "
                  "message. The reference never expires, though, so no message ever needs "
                  "manual review."},
     {"passed": True,
      "why": "client reference with a search before resend: clean at once and after 25 h; "
             "the cost is real and 'no manual review' is true of it",
      "voice": "message-queue"}),

    # -- good: Stripe-style headers ---------------------------------------------------------------
    ("h11b-good-stripe-get-then-repost",
     {"checkpoint": "Before POST /v1/charges we commit a journal row {step, request body, "
                    "Idempotency-Key, sent_at}; after the 200 (or the error) we commit the "
                    "response body to that row.",
      "idempotency": "Idempotency-Key: sha256(run_id + step + canonical body), the same header "
                     "value on every retry of that logical charge.",
      "resumeProtocol": "For a row with no response: fetch the saved response for that key "
                        "(our provider offers a lookup). Found: record it. Not found and "
                        "sent_at less than 24 h ago: re-POST with the same Idempotency-Key. "
                        "Older: don't POST, escalate, because keys are pruned after 24 h and a "
                        "re-POST would be a brand-new charge.",
      "failureMode": "After a crash between the journal row and the response, a restart later "
                     "than 24 h can't be resolved automatically; that charge goes to an "
                     "operator. Every charge also costs one extra synchronous DB commit before "
                     "the POST."},
     {"passed": True,
      "why": "journal row before the POST, derived header, lookup, re-POST only inside "
             "retention: clean; the failure mode is the real escalation",
      "voice": "stripe-headers"}),

    ("h11b-good-stripe-uuid4-minted-once",
     {"checkpoint": "A pending row holding the Idempotency-Key we are about to send is "
                    "inserted and committed before the request; the response is stored in it "
                    "when it comes back.",
      "idempotency": "Idempotency-Key is a uuid4, as Stripe's docs suggest, but minted exactly "
                     "once per logical charge and saved in the pending row; retries reuse the "
                     "saved value.",
      "resumeProtocol": "On boot, each pending row without a response is looked up under its "
                        "saved key; found: store it; not found within 24 h: resend with the "
                        "saved Idempotency-Key; pending longer than that: mark it for manual "
                        "reconciliation, no resend.",
      "failureMode": "The provider's 24 h key retention bounds the automation: a crash "
                     "mid-charge recovered after a day becomes a manual reconciliation, with at "
                     "most one charge made."},
     {"passed": True,
      "why": "a random key made once and journaled before the call is a stored key; with "
             "lookup and manual reconciliation past 24 h it is clean, as it says",
      "voice": "stripe-headers"}),

    # -- good: the two providers treated differently ----------------------------------------------
    ("h11b-good-two-providers-window-vs-forever",
     {"checkpoint": "For both calls: the intent (args and key or reference) is journaled "
                    "before the request and the result after.",
      "idempotency": "Payment: Idempotency-Key derived from run id + step + body digest; the "
                     "payment provider deduplicates it, but only for 24 h. Hotel: the same "
                     "derived string as client_ref; the hotel keeps references forever and "
                     "returns the existing booking for a repeat.",
      "resumeProtocol": "Unfinished booking: resend with the same client_ref, always safe "
                        "because the hotel never forgets it. Unfinished charge: resend with the "
                        "same key only while the intent is under 24 h old; past that, no "
                        "resend, the run is escalated to an operator.",
      "failureMode": "Only the payment side has a time limit: a charge crash recovered after "
                     "24 h waits for an operator. A booking crash always completes by itself."},
     {"passed": True,
      "why": "same-key resend bounded by each provider's retention (24 h for payments, none "
             "for the hotel), escalation past it: clean; the asymmetry it states is true",
      "voice": "two-providers"}),

    ("h11b-good-two-providers-lookup-both",
     {"checkpoint": "Intent before, result after, for the charge and for the booking, in one "
                    "journal.",
      "idempotency": "One derived name per logical call (run id, step, args hash): sent as the "
                     "payment provider's idempotency key, and used as the hotel's booking "
                     "reference.",
      "resumeProtocol": "The two providers differ. The hotel lets us look a booking up by its "
                        "reference at any time, so an unfinished booking is looked up and only "
                        "resent (same reference) if it isn't there. The payment provider only "
                        "remembers keys for 24 h: we look the charge up by key, resend with the "
                        "same key if it's missing and we're inside 24 h, and past that we stop "
                        "and escalate.",
      "tradeOff": "Asymmetry: hotel crashes are always settled automatically, payment crashes "
                  "only within the provider's retention; later than that the run sits "
                  "UNCERTAIN until an operator checks the payment."},
     {"passed": True,
      "why": "lookup for both, bounded by the payment provider's retention: clean; booking "
             "crashes are indeed never escalated, charge crashes are past 24 h",
      "voice": "two-providers"}),

    ("h11b-good-hedged-stored-key-no-lookup",
     {"checkpoint": "I'd say the intent, with its key, should probably be committed before "
                    "each call and the result after; I think that's the standard write-ahead "
                    "shape.",
      "idempotency": "I'd probably generate a random key, but just once, when the intent is "
                     "first written, and keep it in the journal so retries reuse it rather than "
                     "making a fresh one each time.",
      "resumeProtocol": "I don't think a lookup is necessary: on resume, an intent without a "
                        "result should be resent with its stored key as long as it's less than "
                        "a day old, since the provider dedups within 24 h. After that I'd "
                        "escalate rather than resend.",
      "failureMode": "I suppose the cost is that we're trusting the provider's dedup window "
                     "completely, so anything older than a day, even a crash before the request "
                     "went out, waits for a human. And the intent write has to be synchronous, "
                     "because the key only exists there."},
     {"passed": True,
      "why": "stored key, same-key resend within retention, escalation past it: clean; the "
             "costs it supposes (operator past 24 h incl. W2, synchronous intent) are true",
      "voice": "hedged"}),

    # -- bad, continued -----------------------------------------------------------------------
    ("h11b-bad-hedged-no-cost",
     {"checkpoint": "I believe we'd write an intent to the journal before the charge call and "
                    "the result after it returns; probably the same for the booking.",
      "idempotency": "I think the key should be derived from the run id, step and a hash of "
                     "the args, so a retry should reuse it.",
      "resumeProtocol": "On restart, probably replay the journal, look up any intent without a "
                        "result by its key, resend with the same key if nothing is found inside "
                        "the 24 h window, and escalate if it's older.",
      "failureMode": "Honestly I can't see a real failure mode or cost here; with the intent, "
                     "the key and the lookup I think it should be fine in every case."},
     {"passed": False,
      "why": "a sound mechanism, but the failure mode names no cost or limit (there are: the "
             "escalation past 24 h, the extra write)",
      "voice": "hedged"}),

    ("h11b-bad-qa-buzzwords",
     {"checkpoint": "Q: Checkpoint? A: Yes: durable checkpointing, write-ahead log, intents and "
                    "results, all journaled.",
      "idempotency": "Q: Idempotency? A: Idempotency keys: deterministic, derived, unique, "
                     "deduplicated by the provider.",
      "resumeProtocol": "Q: Resume? A: Replay, reconcile, lookup, retry with the same key, "
                        "escalate past retention.",
      "failureMode": "Q: Failure mode? A: Retention window, duplicates, operator escalation."},
     {"passed": False,
      "why": "keyword-stuffed: every right word as a list, but no decision of what is written "
             "when, what the key is derived from or which action resume takes",
      "voice": "q-and-a"}),

    ("h11b-bad-eventlog-pattern-soup",
     {"checkpoint": "Event sourcing with an append-only log, the outbox pattern, snapshots and "
                    "write-ahead intents for exactly-once durability.",
      "idempotency": "Exactly-once via idempotent consumers, dedup keys, client references and "
                     "Idempotency-Key headers.",
      "resumeProtocol": "Replay the event stream and reconcile with lookups, retries, "
                        "compensating events and escalation.",
      "failureMode": "Eventual consistency."},
     {"passed": False,
      "why": "keyword-stuffed: names every pattern at once (snapshot and write-ahead, key and "
             "reference, retry, compensate and escalate) without choosing; the failure mode is "
             "a label",
      "voice": "event-log"}),

    ("h11b-bad-hedged-whichever-framework",
     {"checkpoint": "I'd probably go with a durable checkpoint of some kind, journal or "
                    "snapshot or write-ahead log, whichever the framework gives us, so state is "
                    "persisted around the charge and the booking.",
      "idempotency": "Idempotency keys everywhere, derived or UUIDs, and the provider should "
                     "dedup them; that's kind of the point of idempotency.",
      "resumeProtocol": "On resume I think we replay and reconcile, with lookups or retries as "
                        "appropriate, and escalate if needed.",
      "failureMode": "Probably retention-related edge cases, and maybe duplicates, but the "
                     "keys should handle it."},
     {"passed": False,
      "why": "keyword-stuffed and undecided: each field lists alternatives ('journal or "
             "snapshot', 'derived or UUIDs', 'lookups or retries') instead of a mechanism",
      "voice": "hedged"}),

    ("h11b-bad-stripe-failure-denies-checkpoint",
     {"checkpoint": "A pending_charges row (order, amount, Idempotency-Key) is committed before "
                    "the POST /v1/charges; the response is stored in the same row when it "
                    "arrives.",
      "idempotency": "Idempotency-Key: '<run_id>:<step>:<sha256 of body>', identical on every "
                     "retry.",
      "resumeProtocol": "On boot, for each pending row without a response: look it up by key; "
                        "found: store it; not found and under 24 h: re-POST with the same key; "
                        "older: page someone.",
      "failureMode": "Because nothing is written until Stripe has answered, a crash after "
                     "Stripe charged but before the answer arrived leaves no trace, and the "
                     "retry can charge twice."},
     {"passed": False,
      "why": "self-contradicting: the failure mode says nothing is written before the answer, "
             "the checkpoint commits a pending row before the POST; and the double charge it "
             "claims does not happen to the design described",
      "voice": "stripe-headers"}),

    ("h11b-bad-mq-fresh-key-on-redelivery",
     {"checkpoint": "The consumer writes an intent record to the outbox table before calling "
                    "the provider and marks it done with the response; the message is acked "
                    "only after that.",
      "idempotency": "Key = hash(run id, step, payload), identical for every delivery of the "
                     "same message.",
      "resumeProtocol": "A redelivered message whose intent has no response gets a freshly "
                        "minted key before the resend, so the provider doesn't hand back a "
                        "stale error; past 24 h we escalate instead.",
      "failureMode": "An unacked message older than the key retention is parked for a human."},
     {"passed": False,
      "why": "self-contradicting: the key is 'identical for every delivery' yet resume mints a "
             "new one, so a W3/W4 redelivery charges twice",
      "voice": "message-queue"}),

    ("h11b-bad-workflow-stateless-but-replays",
     {"checkpoint": "Workers are stateless and we persist nothing ourselves: no history, no "
                    "database, the activity just runs.",
      "idempotency": "Key derived from workflow id + activity id.",
      "resumeProtocol": "On restart the worker replays the workflow's event history and, for "
                        "the charge activity with a scheduled event but no completion, looks it "
                        "up by key before retrying; past 24 h it escalates.",
      "failureMode": "Replaying long histories takes time on restart."},
     {"passed": False,
      "why": "self-contradicting: resume replays a history the checkpoint says is never kept; "
             "with nothing persisted the run restarts from the top and charges again",
      "voice": "workflow-engine"}),

    ("h11b-bad-story-robust-somehow",
     {"checkpoint": "First the agent takes the order, then it pays, then it books the room, "
                    "and we save progress along the way.",
      "idempotency": "We make sure the payment is only done once, because charging the "
                     "customer twice would be bad.",
      "resumeProtocol": "If the worker dies in the middle, when it comes back it continues "
                        "from where it stopped and fixes whatever is needed.",
      "failureMode": "Sometimes things can fail, and then we handle it."},
     {"passed": False,
      "why": "content-free: no write named or timed, no key, no action for an unknown "
             "outcome, no failure mode",
      "voice": "story"}),

    ("h11b-bad-mq-intent-after-ack",
     {"checkpoint": "Each tool call is recorded in the outbox as an intent with its key, "
                    "written only once the provider's ack has come back, so we never store "
                    "half-finished calls.",
      "idempotency": "Key derived from the message's run id, step number and payload digest.",
      "resumeProtocol": "On redelivery, an outbox intent with no result is looked up by key; "
                        "not found within 24 h: resend with the same key; past it: escalate.",
      "failureMode": "One outbox write per call."},
     {"passed": False,
      "why": "'only once the ack has come back' makes the intent a result-only write: a W3/W4 "
             "crash leaves no record, and recovered after 25 h the resend charges twice",
      "voice": "message-queue"}),

    ("h11b-bad-story-lookup-only-first-hour",
     {"checkpoint": "First we journal the intent (tool, args, key), then we call the payment "
                    "API, then we journal the result; the same again for the booking.",
      "idempotency": "The key comes from run id, step and a hash of the arguments, so a retry "
                     "uses the same key.",
      "resumeProtocol": "If the worker dies after the intent, the next worker looks the charge "
                        "up by key before doing anything, but only if it restarts within the "
                        "hour; after that it just sends the charge again with the same key, "
                        "since looking things up is slow.",
      "failureMode": "A restart within the hour costs one lookup."},
     {"passed": False,
      "why": "the 'but only within the hour' clause undoes the lookup: later restarts resend "
             "blindly, and after 25 h the pruned key makes a W3/W4 resend a second charge",
      "voice": "story"}),

    ("h11b-bad-workflow-saga-refund",
     {"checkpoint": "Temporal-style event history: ActivityScheduled is recorded before the "
                    "charge or booking activity runs, ActivityCompleted after.",
      "idempotency": "Activity key = workflow run id + activity id.",
      "resumeProtocol": "An activity with no recorded completion is treated as failed: the "
                        "workflow fails and the saga runs its compensations, refunding the "
                        "charge and cancelling the booking.",
      "failureMode": "A crash can cost us the order: the customer has to order again, but is "
                     "never left charged."},
     {"passed": False,
      "why": "compensation needs a receipt: a W3/W4 charge has no recorded charge id to "
             "refund, so the run fails with the charge standing; 'never left charged' is false",
      "voice": "workflow-engine"}),
]
