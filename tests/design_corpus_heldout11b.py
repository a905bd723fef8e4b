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
]
