"""Held-out corpus HELDOUT17: 42 designOutline() answers, written blind to the grader.

Written blind (stop s13, writer17): its author read the lesson 05b notebook, lessons 04 and 05
and minirt_course/scenarios/design_payment.py (the crash sweep), never the grader, its
vocabulary, its tests or the other corpora. It is measured once; do not tune the reader on it.

Invariant: 21 entries with ``passed: True`` (an outline whose design the sweep finds clean in
every window, recovered at once and after 25 h, with a failure mode or trade-off that is true
of it) and 21 with ``passed: False`` (a plausible mistake, named in ``why``); entry names are
unique. Each verdict is a careful human reading of the text, checked against the sweep rules of
design_payment.py (the designs behind the verdicts were also run with ``sweep_design``: the
intent-and-result journal with a derived or stored key and a lookup or a retention-bounded
same-key resend, and the client reference with a lookup, are clean; the rest are not). Voices:
exam-answer, analogy, stripe-api, postmortem, long-essay (7 each), keyword-stuffed (4),
self-contradicting (3). Not guaranteed: that the grader agrees (that is what is measured), nor
that the voices cover every way learners write.
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT17: list[Entry] = [
    # ------------------------------------------------------------------ exam-answer, good
    ("h17-good-exam-wal-derived-lookup",
     {"checkpoint": "Before the charge request goes out, the runtime writes an intent record "
                    "(tool, arguments, key, time sent) and commits it. When the provider "
                    "answers, the receipt is written as a second record.",
      "idempotency": "Key = hash(run id, step number, canonical args). Computed once, kept in "
                     "the intent, so every retry and every new worker sends the identical key.",
      "resumeProtocol": "On restart replay the journal. Any intent with no result: ask the "
                        "provider by key. Found -> store that receipt. Not found and the intent "
                        "is less than 24 h old -> resend with the same key. Older -> stop, mark "
                        "the run uncertain, page an operator.",
      "failureMode": "If the worker stays down longer than the provider keeps keys (24 h), a "
                     "crash between the intent and the recorded result can't be settled "
                     "automatically: the run sits waiting for a human."},
     {"passed": True, "why": "intent-and-result + derived key + lookup with escalation past "
                             "retention: clean at once, escalated after 25 h; failure mode true",
      "voice": "exam-answer"}),

    ("h17-good-exam-stored-uuid",
     {"checkpoint": "Intent first: one row per tool call committed to the run store before "
                    "dispatch, the outcome appended after the reply.",
      "idempotency": "A UUID is generated once per logical charge at the moment the intent row "
                     "is created and is saved inside that row. Retries read it back from the "
                     "journal; nobody generates a second one.",
      "resumeProtocol": "Replay. For each open intent, look the charge up at the provider using "
                        "the saved UUID; if it exists take the receipt, if not and we are still "
                        "inside the provider's 24 hour key window resend with that UUID, "
                        "otherwise escalate to a person.",
      "tradeOff": "Every effectful call now costs an extra synchronous commit before it can be "
                  "sent, so latency per tool call goes up."},
     {"passed": True, "why": "stored key journaled with the intent, lookup then bounded resend, "
                             "escalation; the extra write per call is a true cost",
      "voice": "exam-answer"}),

    ("h17-good-exam-resend-same-key",
     {"checkpoint": "Journal the intent, with its key, durably before sending; journal the "
                    "result when it comes back.",
      "idempotency": "Deterministic key from run_id + step + digest of the payload; identical "
                     "on every attempt.",
      "resumeProtocol": "No lookup. An unfinished call is resent with the same key as long as "
                        "the intent is younger than the provider's retention (24 h, minus a "
                        "safety margin); the provider replays its first answer instead of "
                        "charging again. Past that age we never resend: the run goes to an "
                        "operator.",
      "failureMode": "A crash before the request was even sent (W2) and recovered after a day "
                     "still escalates, although no money moved: the design can't tell W2 from "
                     "W3 without asking."},
     {"passed": True, "why": "retry-within-retention with a derived key and a journaled intent is "
                             "clean, escalated past 24 h; W2 escalating with zero charges is true",
      "voice": "exam-answer"}),

    ("h17-good-exam-terse",
     {"checkpoint": "intent journaled + committed before the call, result after",
      "idempotency": "key derived from run/step/args digest, same every attempt",
      "resumeProtocol": "lookup by key; not found within 24h -> resend same key; past 24h -> "
                        "escalate",
      "tradeOff": "one extra round trip (the lookup) per open intent on every resume"},
     {"passed": True, "why": "all three mechanisms of the clean design, briefly; the lookup cost "
                             "is a real trade-off",
      "voice": "exam-answer"}),

    # ------------------------------------------------------------------ exam-answer, bad
    ("h17-bad-exam-result-only-lookup",
     {"checkpoint": "After each tool call returns, its result is saved to the journal in one "
                    "transaction (like DBOS steps), so a completed step is never re-executed.",
      "idempotency": "Idempotency key derived from run id, step index and a hash of the "
                     "arguments, so a retry is recognisable to the provider.",
      "resumeProtocol": "Replay from the journal; for the step with no saved result, look it "
                        "up by key at the provider and only resend if the lookup is empty.",
      "failureMode": "Each step costs one write to the journal."},
     {"passed": False, "why": "result-only checkpoint: nothing records that the charge was sent, "
                              "so after 25 h a W3/W4 crash finds nothing by lookup and charges "
                              "twice", "voice": "exam-answer"}),

    ("h17-bad-exam-lookup-no-age-check",
     {"checkpoint": "Write-ahead: intent (tool, args, key) committed before dispatch; the "
                    "receipt is appended after.",
      "idempotency": "Key derived from run + step + payload digest, so it never changes between "
                     "attempts.",
      "resumeProtocol": "On resume, for each intent with no result, query the provider by the "
                        "key. If the charge is there, record it. If the provider says it has "
                        "nothing under that key, the charge never happened, so resend it with "
                        "the same key.",
      "failureMode": "If the provider's lookup endpoint is down, resume has to wait and retry "
                     "the lookup."},
     {"passed": False, "why": "trusts 'not found' at any age: after 25 h the key is pruned, the "
                              "lookup misses a W3 charge and the resend charges twice",
      "voice": "exam-answer"}),

    ("h17-bad-exam-always-escalate",
     {"checkpoint": "Intent committed to the journal before the call, result committed after.",
      "idempotency": "Derived effect key (run, step, args hash) passed as the idempotency key.",
      "resumeProtocol": "Never guess: any intent without a result is handed to an operator and "
                        "the run stays uncertain until a human resolves it. Nothing is resent "
                        "automatically.",
      "failureMode": "None in terms of money: at most one charge can ever exist."},
     {"passed": False, "why": "escalates even when recovered at once, where a lookup or same-key "
                              "resend would settle it: W2-W4 runs are stuck", "voice": "exam-answer"}),

    # ------------------------------------------------------------------ analogy, good
    ("h17-good-analogy-restaurant-ticket",
     {"checkpoint": "Like a waiter who writes the order on the pad before walking to the "
                    "kitchen: the agent commits an intent (what it is about to charge, the key, "
                    "the time) to its journal before calling the payment API, then writes the "
                    "receipt when it comes back.",
      "idempotency": "The order number on the pad is worked out from the table and course "
                     "(run id, step, a digest of the arguments), so whoever picks up the pad "
                     "shouts the same number to the kitchen. That number is the idempotency key "
                     "on every try.",
      "resumeProtocol": "A new waiter reading a pad with no 'served' tick first asks the kitchen "
                        "'did you get order N?' (lookup by key). Yes: note the receipt. No, and "
                        "it's still the same day (under 24 h): send it again under the same "
                        "number. If the pad is older than the kitchen's memory, he fetches the "
                        "manager instead of re-ordering.",
      "failureMode": "The kitchen forgets order numbers after 24 h, so a pad found later than "
                     "that can only be settled by the manager: that run waits for a human."},
     {"passed": True, "why": "analogy maps onto intent-before-call, derived key, lookup, bounded "
                             "resend, escalation; the stated limit is true", "voice": "analogy"}),

    ("h17-good-analogy-tracking-number",
     {"checkpoint": "Think of posting a parcel: you fill in the dispatch log before you hand it "
                    "over. The agent journals the intent, including a reference it made up for "
                    "this charge, before sending, and the result after.",
      "idempotency": "The reference is like a tracking number we write on the parcel: chosen "
                     "once from the run and step, stored with the intent, and attached to the "
                     "charge as a client reference. The provider keeps it with the charge and "
                     "lets us search by it, but it does not refuse a second charge with the same "
                     "reference.",
      "resumeProtocol": "After a crash, before anything is sent again, search the provider for "
                        "that reference. Found: that's our charge, record it. Not found: it "
                        "never arrived, so send it (with the same reference).",
      "tradeOff": "Because the reference is not a dedup key, safety depends entirely on always "
                  "searching first; any code path that skips the search and resends would "
                  "charge twice. In exchange the provider keeps references forever, so even a "
                  "recovery days later can still be settled automatically."},
     {"passed": True, "why": "intent journal + client reference + lookup is clean even after 25 h "
                             "(the reference is never pruned); the trade-off is true",
      "voice": "analogy"}),

    ("h17-good-analogy-cheque-book",
     {"checkpoint": "A cheque stub: you fill in the stub (intent: payee, amount, cheque number, "
                    "date) and that stub is committed before the cheque leaves; when the bank "
                    "confirms, you tick the stub.",
      "idempotency": "The cheque number is the key and it is fixed by the run and the step and "
                     "the amount, not by how many times you try to cash it.",
      "resumeProtocol": "Unticked stub after a crash: the bank honours a repeated cheque number "
                        "only once for about a day, so within that day we simply present the "
                        "same cheque again and the bank hands back the first result. After the "
                        "day we stop and ring the branch (operator) instead of presenting it.",
      "failureMode": "Presenting the cheque again requires exactly the same amount and payee; "
                     "and anything unticked for over a day turns into manual work."},
     {"passed": True, "why": "same-key resend within retention, escalation past it, derived key, "
                             "intent first: clean; both limits true", "voice": "analogy"}),

    ("h17-good-analogy-cloakroom",
     {"checkpoint": "The agent behaves like a cloakroom: it tears off the ticket and pins the "
                    "stub to the board (journal write, committed) before the coat goes on the "
                    "rail, i.e. the intent is durable before the payment call; the result is "
                    "pinned next to it afterwards.",
      "idempotency": "The ticket number is random but drawn once, when the stub is pinned, and "
                     "lives in that intent record. Any retry, by this worker or another, reads "
                     "the number off the stub.",
      "resumeProtocol": "Replay the board. For a stub without a result: ask the provider whether "
                        "it knows that ticket. If yes, keep its receipt. If no and the stub is "
                        "younger than the provider's 24 hours, resend with that ticket. If "
                        "older, do not resend; hand it to someone at the desk.",
      "failureMode": "If the journal store itself loses the stub, the number is gone with it; "
                     "the design is only as safe as the journal's durability."},
     {"passed": True, "why": "stored random key journaled with the intent + lookup + bounded "
                             "resend + escalation: clean; dependency on journal durability true",
      "voice": "analogy"}),

    # ------------------------------------------------------------------ analogy, bad
    ("h17-bad-analogy-new-ticket-each-call",
     {"checkpoint": "Like a customer who notes in a diary 'about to phone the shop' before "
                    "calling: the intent is journaled before the request and the answer after.",
      "idempotency": "Every phone call gets a fresh reference number, the way a call centre "
                     "gives you a new case number each time you ring: a new UUID as the "
                     "Idempotency-Key per HTTP attempt.",
      "resumeProtocol": "After a crash, ring the shop and ask whether they have our order "
                        "under our key; only if they don't, place it again.",
      "failureMode": "A slow shop means a long wait on the phone (latency on recovery)."},
     {"passed": False, "why": "key per attempt: the lookup asks under a key the provider never "
                              "saw, so W3/W4 charge twice", "voice": "analogy"}),

    ("h17-bad-analogy-save-points",
     {"checkpoint": "Like a video game with save points: rather than saving after every move, "
                    "the run's journal is flushed every couple of steps, which keeps the "
                    "write load low.",
      "idempotency": "Key derived from run, step and a digest of the charge arguments, so a "
                     "repeat of the same charge carries the same key.",
      "resumeProtocol": "Load the last save, replay, and for calls with no result look them up "
                        "by key before resending.",
      "tradeOff": "Between save points we may redo a little work, but redone work is harmless "
                  "because the keys dedupe it."},
     {"passed": False, "why": "snapshot loses the model's decision; asked again it picks another "
                              "amount, so the derived key differs and W3-W5 charge twice; the "
                              "trade-off claims a false safety", "voice": "analogy"}),

    ("h17-bad-analogy-false-no-human",
     {"checkpoint": "Like a pilot's checklist, each item is written as 'about to do' before the "
                    "action and 'done' after: intent then result, both committed.",
      "idempotency": "The flight number is derived from the route and date: run id + step + "
                     "args digest, identical across attempts.",
      "resumeProtocol": "Look the charge up by key; if absent inside 24 h resend with the same "
                        "key; if older, escalate.",
      "failureMode": "Because the key and the lookup cover every crash window, recovery is "
                     "fully automatic: no crash, however long the outage, ever needs a person."},
     {"passed": False, "why": "the design is right but the failure mode is false: past 24 h a "
                              "W2-W4 crash escalates to an operator", "voice": "analogy"}),

    # ------------------------------------------------------------------ stripe-api, good
    ("h17-good-stripe-derived-key-list",
     {"checkpoint": "Before POST /v1/charges we insert an `intent` row (run_id, step, params, "
                    "idempotency key, sent_at) and commit; the charge id from the response is "
                    "written afterwards in the same journal.",
      "idempotency": "Idempotency-Key header = f\"{run_id}:{step}:{sha256(params)}\", built "
                     "from values the journal already holds, so retries across workers send the "
                     "same header.",
      "resumeProtocol": "On resume, for an intent with no charge id we ask the provider for a "
                        "charge under that key (on the course provider, the lookup by key). If "
                        "we get a charge id, record it and move on. If nothing and sent_at is "
                        "within 24 h, retry the POST with the same Idempotency-Key. Past 24 h "
                        "Stripe may have pruned the key, so we raise and someone checks the "
                        "Dashboard.",
      "failureMode": "Outages longer than a day turn into manual tickets: an operator has to "
                     "find the charge in the Dashboard and resolve the run by hand."},
     {"passed": True, "why": "intent row before the POST, derived header, lookup, bounded resend, "
                             "escalation: clean; operator work past 24 h is true",
      "voice": "stripe-api"}),

    ("h17-good-stripe-replay-saved-response",
     {"checkpoint": "Journal row `charge_intent` with the full request body and its "
                    "Idempotency-Key, committed before the HTTP call; the response (charge id, "
                    "amount) stored on return.",
      "idempotency": "Idempotency-Key derived from run id + step + canonical body hash, never "
                     "regenerated in the HTTP client's retry loop.",
      "resumeProtocol": "Stripe has no lookup by idempotency key, so we reconcile the Stripe "
                        "way: repeat the identical POST with the identical key while the intent "
                        "is under 24 h old; Stripe returns the saved first response (same charge "
                        "id) or performs the charge for the first time. Older than that, we do "
                        "not send anything and mark the run as needing review.",
      "tradeOff": "The retry must be byte-for-byte the same parameters (Stripe errors on a "
                  "reused key with different params), and after 24 h every open intent is a "
                  "manual review."},
     {"passed": True, "why": "same-key resend within retention, escalation after, derived key, "
                             "intent first: clean; both costs true", "voice": "stripe-api"}),

    ("h17-good-stripe-metadata-search",
     {"checkpoint": "We write the intent (order, amount, our reference) to the run journal and "
                    "commit before calling the API; the charge id is journaled afterwards.",
      "idempotency": "No dedup key is relied on. Each logical charge gets a client reference "
                     "made once and stored in the intent, sent as metadata[client_ref]; the "
                     "provider keeps it with the charge for good and we can search for it.",
      "resumeProtocol": "For an intent without a charge id: search charges by "
                        "metadata[client_ref] first. A hit gives us the charge id to record. "
                        "No hit means it never went through, and only then do we create the "
                        "charge, with the same reference.",
      "tradeOff": "Metadata does not stop a duplicate create, so every resend path must go "
                  "through the search; and on real Stripe the search index can lag by up to a "
                  "minute, so a miss right after a crash should be re-checked before creating."},
     {"passed": True, "why": "client reference + lookup before any resend + intent journal is "
                             "clean even after 25 h; the trade-off is true", "voice": "stripe-api"}),

    ("h17-good-stripe-stored-key",
     {"checkpoint": "An outbox-style row per charge, committed in the run store before the "
                    "request: method, body, Idempotency-Key, created_at. Response stored on the "
                    "same row when it arrives.",
      "idempotency": "The Idempotency-Key is a uuid4, but minted exactly once when the outbox "
                     "row is inserted and persisted there; every attempt reads it from the row.",
      "resumeProtocol": "Rows without a response: look the charge up by that key. Exists -> "
                        "record the charge id. Missing and created_at < 24 h ago -> resend with "
                        "the same key. Otherwise escalate; nobody resends an old row.",
      "failureMode": "An extra DB commit sits in front of every POST, and open rows older than "
                     "a day need an operator."},
     {"passed": True, "why": "stored key persisted with the intent, lookup, bounded resend, "
                             "escalation: clean; costs stated are true", "voice": "stripe-api"}),

    # ------------------------------------------------------------------ stripe-api, bad
    ("h17-bad-stripe-metadata-resend",
     {"checkpoint": "Intent row committed before POST /v1/charges, charge id saved after.",
      "idempotency": "We tag every charge with metadata[order_ref] = run_id:step. That's our "
                     "idempotency: the provider stores the reference with the charge.",
      "resumeProtocol": "Stripe has no lookup endpoint for this, so on resume we just repeat "
                        "the POST with the same order_ref while we are inside 24 hours; the "
                        "duplicate is recognised by the reference. After 24 h we escalate.",
      "failureMode": "After a day a human has to look at the run."},
     {"passed": False, "why": "a metadata reference is searchable but not deduplicated: resending "
                              "it without searching charges twice in W3/W4 even at once",
      "voice": "stripe-api"}),

    ("h17-bad-stripe-72h-window",
     {"checkpoint": "charge_intent row (body + Idempotency-Key) committed before the request; "
                    "response stored after.",
      "idempotency": "Idempotency-Key = sha256(run_id + step + body), stable across retries.",
      "resumeProtocol": "Resend the identical request with the same Idempotency-Key; Stripe "
                        "returns the original charge instead of creating one. We allow this "
                        "for up to 72 hours after the intent, to ride out long outages, and "
                        "only after that do we escalate.",
      "tradeOff": "Three days of automatic recovery means far fewer manual tickets."},
     {"passed": False, "why": "resends past the 24 h key retention: after 25 h the key is pruned "
                              "and a W3/W4 resend is a second charge", "voice": "stripe-api"}),

    ("h17-bad-stripe-refund-on-unknown",
     {"checkpoint": "Intent journaled before the API call; the charge id journaled when it "
                    "comes back.",
      "idempotency": "Idempotency-Key derived from run id, step and body hash.",
      "resumeProtocol": "If a charge has no recorded outcome we don't gamble: the run is "
                        "failed, and the saga compensates by refunding the charge id before "
                        "telling the customer to retry the order.",
      "failureMode": "The customer sometimes has to place the order again."},
     {"passed": False, "why": "fail-and-compensate: an unknown charge has no charge id to refund, "
                              "so a W3/W4 charge stands on a failed run and W2 loses the order",
      "voice": "stripe-api"}),

    # ------------------------------------------------------------------ postmortem, good
    ("h17-good-postmortem-retry-loop-keys",
     {"checkpoint": "Incident 2026-11-14: customer charged twice for A-42. Root cause: the "
                    "HTTP client's retry loop minted a new idempotency key per attempt. "
                    "Remediation part 1: every charge now has an intent committed to the "
                    "journal, key included, before the first attempt; the receipt is committed "
                    "after.",
      "idempotency": "Remediation part 2: the key comes from run id, step and a digest of the "
                     "payload, computed once before the intent is written; the retry loop "
                     "reads it from the call and can no longer invent one.",
      "resumeProtocol": "Remediation part 3: a resumed run asks the provider about every open "
                        "intent by its key before doing anything; it resends with that key only "
                        "when the answer is 'not found' and the intent is under 24 h old; "
                        "otherwise the run is parked for on-call.",
      "failureMode": "Residual risk accepted in review: after an outage longer than the "
                     "provider's 24 h key retention, open charges are parked for on-call "
                     "instead of being settled automatically."},
     {"passed": True, "why": "the fix is the clean design (intent, derived key, lookup, bounded "
                             "resend, escalation); residual risk true", "voice": "postmortem"}),

    ("h17-good-postmortem-weekend-outage",
     {"checkpoint": "What happened: the worker died right after the provider took the money and "
                    "came back Monday, 60 h later. Our journal only wrote results, so it had no "
                    "idea a charge had been sent, and the key had been pruned: second charge. "
                    "Fix: the intent (with key and send time) is committed before dispatch.",
      "idempotency": "Unchanged, it was not the cause: derived key (run/step/args digest), "
                     "same on every attempt.",
      "resumeProtocol": "New: on resume, open intents are looked up by key; a hit is recorded, "
                        "a miss is resent with the same key only if the send time is inside "
                        "the retention window; outside it the run raises and waits for a "
                        "person, since a miss then proves nothing.",
      "failureMode": "Next time a Monday recovery will not double charge, but it will leave a "
                     "queue of runs for someone to resolve by hand."},
     {"passed": True, "why": "fixed to intent-and-result + derived key + lookup + escalation; "
                             "manual queue after long outage is true", "voice": "postmortem"}),

    ("h17-good-postmortem-blind-resend-fix",
     {"checkpoint": "Timeline: 02:10 worker OOM-killed mid-charge; 03:00 (next day, 25 h) run "
                    "resumed and blindly resent. The write-ahead intent was already in place "
                    "and stays: committed before the call, result after.",
      "idempotency": "Key derived from run, step and argument digest, stable; also unchanged.",
      "resumeProtocol": "The change: resend only while the intent is younger than the "
                        "provider's retention minus a margin, using the same key, so the "
                        "provider answers with the original charge. Past that, no resend "
                        "at all; the run goes UNCERTAIN and an operator settles it from the "
                        "provider's records.",
      "failureMode": "Lesson learned: a W2 crash found late is escalated too, even though "
                     "nothing was charged; the operator has to confirm there is no charge."},
     {"passed": True, "why": "retry-within-retention with the intent journal and derived key is "
                             "clean; late W2 escalation with zero charges is true",
      "voice": "postmortem"}),

    ("h17-good-postmortem-lost-decision",
     {"checkpoint": "Summary: we snapshotted state every few steps; a crash after the charge "
                    "lost the model's decision, the model was asked again, chose 42.50 instead "
                    "of 42.00, and the new payload produced a new key: two charges. Action: "
                    "journal the decision and every tool intent before acting on it, results "
                    "after, no buffering.",
      "idempotency": "Key is still derived from run + step + payload digest, but the payload "
                     "now comes from the journaled decision, so it is the same on every "
                     "attempt and every worker.",
      "resumeProtocol": "Replay from the journal (the model is not asked again), look up open "
                        "charges by key, resend with the same key within 24 h if the lookup is "
                        "empty, escalate beyond that.",
      "tradeOff": "More journal writes than snapshots (one per decision and per call), which "
                  "we accept for correctness."},
     {"passed": True, "why": "moved from snapshot to intent-and-result with the derived key, "
                             "lookup and escalation: clean; more writes is a true cost",
      "voice": "postmortem"}),

    # ------------------------------------------------------------------ postmortem, bad
    ("h17-bad-postmortem-journal-after-ack",
     {"checkpoint": "Root cause of the double charge: we never recorded the charge. Fix: the "
                    "payment step now writes its journal entry as soon as the provider "
                    "acknowledges the charge, intent and receipt together in one transaction.",
      "idempotency": "Idempotency key derived from run id, step and payload digest.",
      "resumeProtocol": "Replay; a step without a journal entry is looked up by key, and "
                        "resent with the same key if the provider doesn't have it.",
      "failureMode": "With the acknowledgement journaled atomically, the double charge can't "
                     "recur."},
     {"passed": False, "why": "intent written only after the ack is result-only: a W3/W4 crash "
                              "leaves no trace, and after 25 h the lookup misses and charges "
                              "twice; the failure mode claims a false safety",
      "voice": "postmortem"}),

    ("h17-bad-postmortem-key-in-memory",
     {"checkpoint": "Each call's intent is committed to the journal before sending, result "
                    "after (this part was fine).",
      "idempotency": "Root cause was a new key per retry. Fix: the key is now generated once "
                     "per charge and cached on the worker, and every retry of that charge "
                     "reuses the cached key.",
      "resumeProtocol": "Resume looks the charge up by its key and resends with the key if the "
                        "provider has nothing, inside 24 h; escalate after.",
      "failureMode": "Past 24 h, on-call gets paged."},
     {"passed": False, "why": "the key lives in the worker's memory, not the intent: a new "
                              "worker after a crash makes a new key, so the lookup misses and "
                              "W3/W4 charge twice", "voice": "postmortem"}),

    ("h17-bad-postmortem-blind-deterministic",
     {"checkpoint": "Intent-before-dispatch journal, unchanged.",
      "idempotency": "Action item done: keys are now deterministic (run + step + payload "
                     "hash), replacing the random ones that caused the incident.",
      "resumeProtocol": "With deterministic keys any retry is safe by construction, so the "
                        "resume path simply re-dispatches every call that has no recorded "
                        "result; we removed the lookup as unnecessary.",
      "failureMode": "Nothing remaining for payments; the provider deduplicates all retries."},
     {"passed": False, "why": "blind resend relies on the provider's dedup, which ends at 24 h: "
                              "a W3/W4 crash recovered after 25 h charges twice; false safety",
      "voice": "postmortem"}),

    # ------------------------------------------------------------------ long-essay, good
    ("h17-good-essay-canonical",
     {"checkpoint": "The heart of the design is that the run's journal is written ahead of the "
                    "world, not behind it. Before the agent sends the charge, the runtime "
                    "records what it is about to do (which tool, with which arguments, under "
                    "which key, and when it was first sent) and that record is committed, "
                    "flushed, in the same store as the rest of the run. Only then does the "
                    "request leave. When the provider answers, the answer is journaled as the "
                    "outcome of that intent. The model's own decision about the amount is also "
                    "in the journal, so a replay never has to ask it again.",
      "idempotency": "I name each logical charge rather than each attempt. The name is derived "
                     "from things that do not move: the run's id, the step's position, and a "
                     "digest of the canonical arguments. Because it is computed before the "
                     "intent is written and stored inside it, a retry by the same process, or "
                     "by a completely new worker a day later, sends exactly the same key, and "
                     "the provider can recognise a repeat as a repeat.",
      "resumeProtocol": "When a run resumes, everything with a recorded outcome is replayed "
                        "from the journal and nothing is re-sent. For an intent that has no "
                        "outcome the runtime does not assume anything: it asks the provider "
                        "whether a charge exists under that key. If it does, the receipt is "
                        "recorded and the run continues. If it does not, and the intent is still "
                        "younger than the provider's key retention (a day), the charge is sent "
                        "again under the same key. If the intent is older than that, an empty "
                        "answer proves nothing, so the run stops in an uncertain state and an "
                        "operator decides with the provider's records in hand.",
      "failureMode": "The honest weakness is the long outage: if recovery comes after the "
                     "provider has forgotten the key, a crash anywhere between writing the "
                     "intent and writing the result leaves a run that cannot finish by itself. "
                     "There is never a second charge, but there is a person in the loop, and "
                     "the order waits until they act."},
     {"passed": True, "why": "intent before the call, derived key, lookup, bounded resend, "
                             "escalation: clean; the stated limit is true", "voice": "long-essay"}),

    ("h17-good-essay-stored-key",
     {"checkpoint": "I would make the intent the unit of durability. Each time the agent is "
                    "about to call a tool with an effect, the runtime appends an intent event "
                    "and commits the transaction before dispatch; when the call returns the "
                    "result is appended as its outcome. A crash therefore always leaves one of "
                    "three states on disk: nothing about the call, an intent with no outcome, "
                    "or both, and the resume logic only has to handle the middle one.",
      "idempotency": "Rather than computing the key from the inputs, I generate a random "
                     "identifier for the operation at the moment its intent is created and "
                     "store it in that intent. It is random, but it is random once: every later "
                     "attempt, including attempts made by another worker after a crash, reads "
                     "the identifier back from the journal and sends it as the idempotency key. "
                     "It is never regenerated on retry.",
      "resumeProtocol": "On resume the journal is replayed, and for the one case that matters "
                        "(an intent without an outcome) the runtime first queries the provider "
                        "by the stored key. A match is recorded as the outcome. No match within "
                        "the provider's retention window means the request never took effect, "
                        "and it is resent with the same key. No match after the window means "
                        "we can no longer tell, so the run is escalated to a human instead of "
                        "being resent.",
      "tradeOff": "The cost is a synchronous write on the critical path of every effectful "
                  "call, plus a provider round trip for each open intent at resume; in return "
                  "no window between the write and the reply can produce a second charge."},
     {"passed": True, "why": "stored key journaled with the intent + lookup + bounded resend + "
                             "escalation: clean; costs true", "voice": "long-essay"}),

    ("h17-good-essay-client-reference",
     {"checkpoint": "The run keeps a write-ahead journal: before any call to the payment "
                    "provider it commits an intent that contains the call, its arguments and a "
                    "reference for the charge, and after the call it commits the outcome. "
                    "Nothing is held only in memory across the call.",
      "idempotency": "This provider cannot deduplicate for me, so I do not pretend it can. "
                     "Instead I attach a client reference of my own to each logical charge: it "
                     "is chosen once, stored in the intent, and sent along with the charge, and "
                     "the provider keeps it with the charge indefinitely and lets me search by "
                     "it. It is a way of asking, not a way of being refused.",
      "resumeProtocol": "Whenever a resumed run finds an intent without an outcome, it searches "
                        "the provider for the reference before doing anything else. If a charge "
                        "comes back, that is the result and the run moves on. If nothing comes "
                        "back, the charge never reached the provider, and only then is it "
                        "created, carrying the same reference. There is no blind resend "
                        "anywhere in the protocol.",
      "failureMode": "Everything hangs on the search being consulted and being accurate: two "
                     "workers resuming the same run at the same moment could both see 'not "
                     "found' and both charge, since the reference itself blocks nothing. We rely "
                     "on a single owner per run (a lease) for that."},
     {"passed": True, "why": "intent journal + client reference + lookup is clean at once and "
                             "after 25 h; the concurrency limit is true of a reference",
      "voice": "long-essay"}),

    ("h17-good-essay-retention-resend",
     {"checkpoint": "Progress becomes durable in two places per call: an intent, committed to "
                    "the run's journal before the request is sent, which says what is being "
                    "charged, under which key and from what time; and the result, committed "
                    "when the response arrives. If the process dies at any point in between, "
                    "the intent is on disk and says a charge may be in flight.",
      "idempotency": "The key is derived from the run id, the step and a digest of the "
                     "arguments, which are themselves read from the journal, so it comes out the "
                     "same however many times and wherever it is computed.",
      "resumeProtocol": "This provider, like Stripe, has no lookup by key, so I reconcile by "
                        "resending: an open intent is sent again with its original key, and "
                        "the provider either performs it for the first time or hands back the "
                        "first charge. That is only sound while the provider still remembers "
                        "the key, so the runtime checks the intent's age first: inside the "
                        "24 hour retention (with a margin) it resends, outside it it refuses and "
                        "leaves the run uncertain for an operator.",
      "tradeOff": "I give up the ability to distinguish 'never sent' from 'sent and lost' after "
                  "a day: both end up with an operator, which is slower but never charges "
                  "twice."},
     {"passed": True, "why": "retry-within-retention, derived key, intent first: clean; the "
                             "trade-off is true", "voice": "long-essay"}),

    # ------------------------------------------------------------------ long-essay, bad
    ("h17-bad-essay-stateless-restart",
     {"checkpoint": "I prefer to keep the workers stateless, since any state on a worker is "
                    "state that can be corrupted. The run writes nothing while it works; if a "
                    "worker dies the orchestrator simply starts the run again from the order, "
                    "which is the only input that matters, and all the durability burden moves "
                    "to the provider, which is a real database with real guarantees.",
      "idempotency": "To make restarting safe, every charge carries an idempotency key derived "
                     "deterministically from the run id, the step and a digest of the charge "
                     "payload. Since a restarted run repeats the same steps, it produces the "
                     "same keys, and the provider collapses the repeat into the original.",
      "resumeProtocol": "Resume is just a rerun from the top: the agent plans the charge again, "
                        "looks it up by key at the provider, and only sends it if the provider "
                        "has no charge under that key.",
      "failureMode": "Reruns waste some compute on planning again, but that is the only cost."},
     {"passed": False, "why": "no checkpoint: the rerun asks the drifting model again, the amount "
                              "and so the derived key change, and W3-W5 charge twice",
      "voice": "long-essay"}),

    ("h17-bad-essay-attempt-counter-key",
     {"checkpoint": "Every tool call is preceded by an intent record committed to the journal "
                    "and followed by a result record, so the journal always knows which calls "
                    "are in flight and since when.",
      "idempotency": "The key is built from the run id and the step, which fixes it to the "
                     "logical operation, and I append the attempt number to it so that the "
                     "provider's logs show clearly which retry a request belongs to; the "
                     "journal keeps the attempt counter so it survives restarts.",
      "resumeProtocol": "On resume each open intent is checked with the provider by key; if the "
                        "provider has it, the result is recorded; if not and we are inside the "
                        "retention period, it is sent again; past it, the run is escalated.",
      "failureMode": "After a day, runs stuck mid-call wait for an operator."},
     {"passed": False, "why": "appending the attempt number makes a new key per attempt: the "
                              "provider dedups nothing and W3/W4 charge twice",
      "voice": "long-essay"}),

    ("h17-bad-essay-no-mechanism-resume",
     {"checkpoint": "Each call's intent is persisted before the provider is contacted, and its "
                    "result afterwards, in the run's durable journal.",
      "idempotency": "A key derived from the run, the step and the payload, stable across "
                     "attempts.",
      "resumeProtocol": "On restart, the workflow picks up where it left off. Any payment that "
                        "was in progress is brought back to a consistent state before the run "
                        "continues, so that the customer ends up paying exactly what they "
                        "owe, no more and no less, and the booking follows as normal.",
      "failureMode": "Recovery may take a little longer for runs that were interrupted in the "
                     "middle of a payment."},
     {"passed": False, "why": "the resume protocol names no mechanism (no lookup, resend rule or "
                              "escalation), only the desired outcome", "voice": "long-essay"}),

    # ------------------------------------------------------------------ keyword-stuffed, good
    ("h17-good-keywords-dense-but-consistent",
     {"checkpoint": "WAL semantics: intent event {tool, args, effect_key, first_sent_at} "
                    "fsync'd + committed pre-dispatch; tool_result event post-response. "
                    "Decision events journaled too (replay-deterministic).",
      "idempotency": "Deterministic effect_key = H(run_id || step || tool || canonical_args); "
                     "sent as Idempotency-Key on every attempt; payload-bound.",
      "resumeProtocol": "Replay -> reconcile open intents via lookup(effect_key) -> hit: "
                        "record receipt; miss and age < retention - margin: redispatch same "
                        "key; miss and age >= retention: EffectKeyMayBePruned -> UNCERTAIN -> "
                        "operator resolve.",
      "failureMode": "Liveness, not safety, degrades past the 24 h retention: W2-W4 runs "
                     "block on human resolution."},
     {"passed": True, "why": "dense jargon, but each field names one consistent mechanism of the "
                             "clean design; failure mode true", "voice": "keyword-stuffed"}),

    # ------------------------------------------------------------------ keyword-stuffed, bad
    ("h17-bad-keywords-soup",
     {"checkpoint": "Durable execution with write-ahead intents, result checkpoints and "
                    "periodic snapshots of the state, event-sourced journal.",
      "idempotency": "Idempotency keys: derived keys, UUIDs per request, client references "
                     "and payload digests, whichever the provider supports.",
      "resumeProtocol": "Replay, reconcile via lookup, retry with backoff, compensate with a "
                        "saga, escalate to an operator.",
      "failureMode": "Exactly-once semantics across all crash windows W1-W5."},
     {"passed": False, "why": "keyword soup: each field lists exclusive mechanisms with no "
                              "decision, and the failure mode claims a false guarantee",
      "voice": "keyword-stuffed"}),

    ("h17-bad-keywords-exactly-once-blind",
     {"checkpoint": "Exactly-once durable checkpointing: intent + result committed in the "
                    "journal (write-ahead log, outbox pattern).",
      "idempotency": "Idempotent effect keys (deterministic, run_id/step/digest), dedup at "
                     "the provider, at-least-once delivery made exactly-once.",
      "resumeProtocol": "Deterministic replay, then the dispatcher redelivers every unresolved "
                        "outbox row with its effect key; idempotent provider, so no "
                        "reconciliation round trip is needed.",
      "failureMode": "At-least-once + idempotency = exactly-once, so no duplicate charges."},
     {"passed": False, "why": "under the buzzwords the resume is a blind resend: after 25 h the "
                              "provider forgot the key and W3/W4 charge twice; false guarantee",
      "voice": "keyword-stuffed"}),

    ("h17-bad-keywords-outbox-no-key",
     {"checkpoint": "Transactional outbox: state change + outbox row in one local commit "
                    "before dispatch; receipt journaled after (saga-ready).",
      "idempotency": "Idempotency comes from the outbox itself: each row is delivered once by "
                     "the relay, so no idempotency key has to be sent to the provider.",
      "resumeProtocol": "Relay redelivers undelivered outbox rows after restart; at-least-once "
                        "dispatch, durable retries with exponential backoff and jitter.",
      "tradeOff": "Backoff adds latency to recovery."},
     {"passed": False, "why": "no key: a redelivered row is a new charge to the provider, so "
                              "W3/W4 charge twice even recovered at once",
      "voice": "keyword-stuffed"}),

    # ------------------------------------------------------------------ self-contradicting, bad
    ("h17-bad-contra-lookup-without-intent",
     {"checkpoint": "To keep the hot path fast, nothing is written before the provider call; "
                    "the result is saved to the journal once the call returns.",
      "idempotency": "Derived key: run id + step + payload digest.",
      "resumeProtocol": "On resume, scan the journal for intents that have no result and look "
                        "each one up at the provider by key before resending.",
      "failureMode": "A crash leaves at most one unresolved intent per run."},
     {"passed": False, "contradiction": True,
      "why": "resume looks up journaled intents the checkpoint never writes (result-only): "
             "after 25 h a W3/W4 crash charges twice", "voice": "self-contradicting"}),

    ("h17-bad-contra-key-random-in-failure",
     {"checkpoint": "Intent committed to the journal before the call, result after.",
      "idempotency": "The key is derived from run id, step and payload digest, so it is the "
                     "same on every attempt.",
      "resumeProtocol": "Look the charge up by key; within 24 h resend with the same key if "
                        "not found; past that, escalate.",
      "failureMode": "Since a fresh key is drawn on each retry, a crash in W3 can still "
                     "produce a second charge."},
     {"passed": False, "contradiction": True,
      "why": "the failure mode says the key is new per retry while the idempotency field "
             "derives it; and the claimed double charge is false for the design",
      "voice": "self-contradicting"}),

    ("h17-bad-contra-intent-after-ack",
     {"checkpoint": "Write-ahead: the intent is journaled before the payment, but we only "
                    "flush it to disk after the provider has confirmed the charge, to avoid "
                    "an extra fsync.",
      "idempotency": "Run id + step + args digest as the idempotency key, same every time.",
      "resumeProtocol": "Replay; any intent without a result is looked up by key, resent with "
                        "the key inside 24 h, escalated after.",
      "failureMode": "Because the intent is written ahead, a late recovery always knows a "
                     "charge may be in flight and escalates instead of resending."},
     {"passed": False, "contradiction": True,
      "why": "'write-ahead' undone by flushing after the confirmation: effectively result-only, "
             "so a late W3/W4 recovery finds no intent and charges twice; failure mode false",
      "voice": "self-contradicting"}),
]
