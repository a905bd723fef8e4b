"""Held-out corpus HELDOUT21: 42 designOutline() answers, written blind to the grader.

Written blind (stop s13, writer21): its author read the lesson 05b notebook, lessons 04 and 05
and minirt_course/scenarios/design_payment.py (the crash sweep), never the grader, its
vocabulary, its tests or the other corpora. It is measured once; do not tune the reader on it.

Invariant: 21 entries with ``passed: True`` (an outline whose design the sweep finds clean in
every window, recovered at once and after 25 h, with a failure mode or trade-off that is true
of it) and 21 with ``passed: False`` (a plausible mistake, named in ``why``); entry names are
unique. Voices: design-review, pros-and-cons, yaml-or-config, beginner, comparison (6 each),
keyword-stuffed (6), self-contradicting (6). Each verdict is a careful human reading of the
text, checked against the sweep rules of design_payment.py. Not guaranteed: that the grader
agrees (that is what is measured), nor that the voices cover every way learners write.
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT21: list[Entry] = [
    # ------------------------------------------------------------------ design-review (4 good, 2 bad)
    ("h21-good-review-wal-derived",
     {"checkpoint": "The design writes a durable intent record (tool name, arguments, the key) "
                    "to the run's store before the charge request goes out, and appends the "
                    "receipt as a second record once the provider answers.",
      "idempotency": "Each charge is identified by a key computed from the run id, the step "
                     "number and a hash of the arguments, so a retry from any worker sends the "
                     "identical key.",
      "resumeProtocol": "On restart the journal is replayed. Any intent that has no receipt is "
                        "first queried at the provider by its key; if the charge is there its "
                        "receipt is recorded, if not and we are still inside the 24 hour key "
                        "window it is re-sent with the same key, and beyond that window the "
                        "run is parked for a human.",
      "failureMode": "Reviewer's note: the main residual risk is operational. A worker that "
                     "dies mid-charge and is only restarted a day later leaves the order "
                     "blocked until someone checks the provider dashboard by hand."},
     {"passed": True, "why": "intent before dispatch, derived key, lookup then same-key resend "
                             "within retention, escalate past it; the failure mode (late "
                             "recovery waits for an operator) is true",
      "voice": "design-review"}),

    ("h21-good-review-terse",
     {"checkpoint": "Intent row committed before the API call; result row after it returns.",
      "idempotency": "Key = hash(run_id, step index, canonical payload), stable across retries.",
      "resumeProtocol": "Unanswered intents: look up by key. Found: take the receipt. Missing "
                        "and younger than 24 h: resend same key. Older: escalate to on-call.",
      "tradeOff": "Every effectful call pays for one extra synchronous write before it can "
                  "leave."},
     {"passed": True, "why": "the canonical safe design, stated tersely; an extra write per "
                             "call is a true cost",
      "voice": "design-review"}),

    ("h21-good-review-stored-key",
     {"checkpoint": "Before dispatch the agent persists the pending charge, including the "
                    "idempotency key it has just minted; the provider's response is persisted "
                    "afterwards in the same journal.",
      "idempotency": "The key is a random UUID, but it is generated exactly once per logical "
                     "charge and saved inside the intent record. Retries and other workers "
                     "read it back from there instead of making a new one.",
      "resumeProtocol": "Resume reads the pending charge, asks the provider whether a charge "
                        "with that stored key exists, and only resends (with that same key) "
                        "if it does not and the intent is less than a day old. Past a day, "
                        "it stops and raises an alert for an operator.",
      "failureMode": "The key carries no meaning of its own, so if the intent record were "
                     "lost nobody could reconstruct it; and a charge whose recovery comes "
                     "after the provider forgot the key is left for manual settlement."},
     {"passed": True, "why": "stored key made once and journaled with the intent, lookup, "
                             "resend within retention, escalate past; both stated limits are "
                             "true",
      "voice": "design-review"}),

    ("h21-good-review-stripe-style",
     {"checkpoint": "We journal the intent with its key before sending, and the result "
                    "after.",
      "idempotency": "The key comes from durable identifiers only (run, step, digest of the "
                     "charge parameters); it never depends on the attempt.",
      "resumeProtocol": "Our provider behaves like Stripe and has no endpoint to search by "
                        "key, so recovery does not look anything up: while the intent is "
                        "younger than the provider's 24 h key retention it simply re-sends the "
                        "request with the same key and gets the original answer back; once "
                        "it is older, it refuses to resend and the run waits for an operator.",
      "failureMode": "Even a crash before anything was sent (W2) ends up with an operator if "
                     "recovery is late, because without a lookup the runtime cannot tell it "
                     "apart from a charge that went through."},
     {"passed": True, "why": "same-key resend within retention and escalation past it is "
                             "clean or escalated in every window; the W2 remark is true",
      "voice": "design-review"}),

    ("h21-bad-review-result-only",
     {"checkpoint": "Each tool call's outcome is persisted atomically together with the call "
                    "record, in one transaction, as soon as the provider responds. This "
                    "avoids half-written rows.",
      "idempotency": "A deterministic key from run id, step and a digest of the payload.",
      "resumeProtocol": "Replay what is persisted; for any charge we are unsure about, check "
                        "with the provider by key before sending it again.",
      "failureMode": "One write per call, which keeps the journal small."},
     {"passed": False, "why": "result-only checkpoint: a W3/W4 crash leaves no trace of the "
                              "call, so after 25 h (key pruned) the re-run charges again; "
                              "the lookup has no intent to start from",
      "voice": "design-review"}),

    ("h21-bad-review-always-escalate",
     {"checkpoint": "Intent before the charge, receipt after, both in the run journal.",
      "idempotency": "Key derived from run, step and payload, identical on every attempt.",
      "resumeProtocol": "Conservative by design: any intent without a receipt is handed "
                        "straight to the operations team and the run is paused. Recovery "
                        "never talks to the provider on its own.",
      "failureMode": "Operators see every W2-W4 crash, which is more work for them, but we "
                     "can never double charge."},
     {"passed": False, "why": "escalate-only resume: even a crash recovered at once leaves the "
                              "run stuck (W2-W4), although a lookup or same-key resend would "
                              "settle it; the sweep counts that as stuck, not clean",
      "voice": "design-review"}),

    # ------------------------------------------------------------------ pros-and-cons (4 good, 2 bad)
    ("h21-good-pros-cons-classic",
     {"checkpoint": "Write-ahead journal: intent first, then the call, then the result.",
      "idempotency": "Derived key (run id + step + payload hash), reused on every retry.",
      "resumeProtocol": "Look up unresolved charges by key; resend with the same key only if "
                        "not found and still inside the 24 h window; otherwise escalate.",
      "tradeOff": "Pros: never two charges, no guessing after a crash, recovery is automatic "
                  "in the common case. Cons: two writes per call instead of one, one extra "
                  "lookup request per recovered charge, and a late recovery needs a human."},
     {"passed": True, "why": "safe design; the listed cons are all true",
      "voice": "pros-and-cons"}),

    ("h21-good-pros-cons-reference",
     {"checkpoint": "+ intent saved before the charge, result saved after (so we always know "
                    "something may be in flight)",
      "idempotency": "+ each charge carries a client reference built from the run and step; "
                     "the provider stores it with the charge and lets us search by it, "
                     "forever\n- but it does NOT deduplicate on it: two sends = two charges",
      "resumeProtocol": "+ on resume, search the provider by the reference; found -> record "
                        "that charge as the result; not found -> it never happened, send it "
                        "with the same reference",
      "failureMode": "- the whole safety rests on the search: if someone adds a resend that "
                     "skips it, or the search index lags behind the charge, we charge twice"},
     {"passed": True, "why": "intent + client reference + lookup is clean even after 25 h "
                             "(the reference is searchable forever); the stated dependency on "
                             "the search is true",
      "voice": "pros-and-cons"}),

    ("h21-good-pros-cons-stored",
     {"checkpoint": "Pending-charge row written and committed before the HTTP request; "
                    "response written after.",
      "idempotency": "UUID generated once when the pending row is created and stored in it; "
                     "every attempt reuses it.",
      "resumeProtocol": "Ask the provider about the stored UUID first. If it knows it, done. "
                        "If not, resend with that UUID while under 24 h old; over 24 h, stop "
                        "and page someone.",
      "tradeOff": "Advantages: retries are safe, no double charge. Drawbacks: the extra "
                  "write before every call adds latency; a key that is random rather than "
                  "derived cannot be recomputed if you only have the order in hand; late "
                  "recoveries need manual work."},
     {"passed": True, "why": "stored key journaled with the intent, lookup, window, "
                             "escalation; the drawbacks listed are true",
      "voice": "pros-and-cons"}),

    ("h21-good-pros-cons-short",
     {"checkpoint": "journal the intent, then call, then journal the receipt",
      "idempotency": "key from run + step + args digest, same every time",
      "resumeProtocol": "lookup by key -> found: use it / not found & < 24h: resend same key / "
                        "not found & > 24h: escalate",
      "failureMode": "con: a crash recovered after more than a day blocks the order until an "
                     "operator resolves it; pro: still at most one charge"},
     {"passed": True, "why": "safe design in note form; the con is true",
      "voice": "pros-and-cons"}),

    ("h21-bad-pros-cons-snapshot",
     {"checkpoint": "Snapshot the whole agent state every couple of steps (like a LangGraph "
                    "checkpointer) rather than writing per call.",
      "idempotency": "Key derived from the run id, step and a digest of the charge payload.",
      "resumeProtocol": "Restore the last snapshot, then look up any charge by key before "
                        "resending; escalate if the key may have expired.",
      "tradeOff": "Pro: far fewer writes than per-call journaling. Con: we may redo a step or "
                  "two after a crash, but the key makes that harmless."},
     {"passed": False, "why": "snapshot checkpoint loses the model's decision; the re-asked "
                              "model picks another amount, so the derived key differs and the "
                              "lookup misses: a second charge. The con claims a safety the "
                              "design lacks",
      "voice": "pros-and-cons"}),

    ("h21-bad-pros-cons-compensate",
     {"checkpoint": "Intent journaled before the call, result after.",
      "idempotency": "Derived key from run, step, payload; stable.",
      "resumeProtocol": "If a charge has no recorded outcome on resume, we fail the run and "
                        "compensate: refund the charge and cancel the booking, so the "
                        "customer is never left paying for nothing.",
      "tradeOff": "Pros: simple, no lookup endpoint needed, never leaves money taken. Cons: "
                  "the order is lost and has to be placed again."},
     {"passed": False, "why": "fail-and-compensate: a charge whose answer was lost has no "
                              "receipt, so nothing can refund it; a W3 crash leaves a standing "
                              "charge on a failed run (wrong), and 'never leaves money taken' "
                              "is false",
      "voice": "pros-and-cons"}),

    # ------------------------------------------------------------------ yaml-or-config (4 good, 2 bad)
    ("h21-good-yaml-full",
     {"checkpoint": "journal:\n  before_call: intent   # tool, args, key, sent_at\n  "
                    "after_call: result    # provider receipt\n  fsync: true",
      "idempotency": "effect_key:\n  derive_from: [run_id, step, sha256(args)]\n  "
                     "per_attempt: false   # same key on every retry and every worker",
      "resumeProtocol": "on_unresolved_intent:\n  - lookup: by_key\n  - if_found: record_receipt"
                        "\n  - if_missing_and_age_lt: 24h\n    then: resend_same_key\n  "
                        "- else: escalate   # park UNCERTAIN for an operator",
      "failureMode": "# known gap: a charge left without an answer and recovered later than "
                     "the provider's 24h key retention needs a human, even when nothing was "
                     "actually charged"},
     {"passed": True, "why": "intent+result, derived key, lookup then bounded resend, "
                             "escalation; the comment's gap is true (W2 late also escalates)",
      "voice": "yaml-or-config"}),

    ("h21-good-yaml-stripe",
     {"checkpoint": "checkpoint: write_ahead   # intent committed before dispatch; outcome "
                    "committed after",
      "idempotency": "idempotency_key: derived   # run id + step position + payload digest; "
                     "never regenerated",
      "resumeProtocol": "reconcile:\n  lookup: none          # provider has no search by key\n"
                        "  resend_same_key_within: 24h\n  after_retention: escalate_to_operator",
      "tradeOff": "# cost: the resend must repeat byte-identical parameters, otherwise the "
                  "provider rejects the reused key"},
     {"passed": True, "why": "same-key resend only within retention, escalation past it: "
                             "clean/escalated in every window; the parameter-match cost is "
                             "true of key reuse",
      "voice": "yaml-or-config"}),

    ("h21-good-yaml-reference",
     {"checkpoint": "persist:\n  intent: before_send\n  receipt: after_send",
      "idempotency": "client_reference: \"{run_id}:{step}\"   # stored by the provider, "
                     "searchable, NOT deduplicated",
      "resumeProtocol": "resume:\n  step_without_receipt:\n    search_provider_by: "
                        "client_reference\n    found: adopt_charge\n    not_found: send   # "
                        "safe: it never reached the provider",
      "failureMode": "# every recovery costs a search call; a blind resend here would be a "
                     "real second charge, so the search step must never be skipped"},
     {"passed": True, "why": "intent + client reference + lookup is clean in every window "
                             "including after 25 h; the stated costs/risks are true",
      "voice": "yaml-or-config"}),

    ("h21-good-yaml-stored-uuid",
     {"checkpoint": "journal.mode = intent_then_result   # intent row is durable before the "
                    "request leaves",
      "idempotency": "idempotency.key = uuid4()   # minted once per logical charge, saved in "
                     "the intent row, read back on every retry",
      "resumeProtocol": "recovery.lookup = by_stored_key\nrecovery.resend = same_key, only if "
                        "not found and intent_age < 24h\nrecovery.past_retention = "
                        "escalate",
      "failureMode": "# extra round trip to the provider on every recovery, and manual "
                     "settlement past 24h"},
     {"passed": True, "why": "stored key kept in the intent, lookup, bounded resend, "
                             "escalation; both costs true",
      "voice": "yaml-or-config"}),

    ("h21-bad-yaml-uuid-per-request",
     {"checkpoint": "journal:\n  intent: before_call\n  result: after_call",
      "idempotency": "http_client:\n  headers:\n    Idempotency-Key: ${uuid()}   # generated "
                     "in the request builder",
      "resumeProtocol": "on_resume:\n  lookup: by_effect_key\n  not_found: resend\n  "
                        "past_24h: escalate",
      "failureMode": "# provider outage blocks the run until it comes back"},
     {"passed": False, "why": "the key is made in the request builder, i.e. a new key per "
                              "attempt: the provider never saw the logical key, the lookup "
                              "misses and the resend charges twice in W3/W4",
      "voice": "yaml-or-config"}),

    ("h21-bad-yaml-false-safety",
     {"checkpoint": "checkpoint: intent_and_result",
      "idempotency": "key: derived(run_id, step, payload_digest)",
      "resumeProtocol": "resume: lookup_then_resend_within_24h_else_escalate",
      "failureMode": "# none at runtime: every crash window recovers automatically with "
                     "exactly one charge; no human is ever involved"},
     {"passed": False, "why": "the design is right but the failure mode is false: after 25 h "
                              "a W2-W4 crash escalates to an operator; it claims a safety "
                              "the design does not have",
      "voice": "yaml-or-config"}),

    # ------------------------------------------------------------------ beginner (4 good, 2 bad)
    ("h21-good-beginner-questions",
     {"checkpoint": "I think the important thing is to write down \"I am about to charge\" "
                    "before actually charging, and save it for real (on disk). Then after the "
                    "charge comes back I write down the answer too.",
      "idempotency": "The key has to be the same every time we try, right? So I make it "
                     "from things that don't change: the run id, which step it is, and a hash "
                     "of what we're charging.",
      "resumeProtocol": "When it starts again and sees \"about to charge\" with no answer, it "
                        "asks the payment company \"did you get this key?\". If yes, use "
                        "that. If no, send again with the same key, but only if it's been less "
                        "than 24 hours, because after that they forget keys. If it's later "
                        "than that I'd stop and ask a person.",
      "failureMode": "I guess the bad part is if the worker is down for more than a day, a "
                     "person has to go look, and the order just waits?"},
     {"passed": True, "why": "all four pieces in simple words; the failure mode is true",
      "voice": "beginner"}),

    ("h21-good-beginner-short",
     {"checkpoint": "save the plan to charge before calling the API, save the reply after",
      "idempotency": "one key per charge made from run + step + amount, so retries reuse it",
      "resumeProtocol": "ask the provider with that key first; not there and under a day old "
                        "-> send again with it; older -> leave it for a human",
      "failureMode": "it's slower since it saves twice for every call"},
     {"passed": True, "why": "intent, derived key, lookup, bounded resend, escalate; two "
                             "writes per call is a true cost",
      "voice": "beginner"}),

    ("h21-good-beginner-reference",
     {"checkpoint": "Before the charge I save a note in the database saying which charge I'm "
                    "about to make. After, I save what the provider said.",
      "idempotency": "This provider doesn't have idempotency keys (?), only a \"reference\" "
                     "field you can search on later. So I put my own reference in it, made "
                     "from the run id and the step, so it's the same if I try again.",
      "resumeProtocol": "After a crash, for a saved note with no answer, I search the "
                        "provider for my reference. If I find the charge I keep it. If I don't "
                        "find it, it never got there, so I send it (same reference).",
      "failureMode": "Not sure this counts, but: the provider won't stop a second charge with "
                     "the same reference, so if I ever forgot to search first I'd charge "
                     "twice. Searching every time is also an extra call."},
     {"passed": True, "why": "intent + client reference + lookup before send: clean even "
                             "after 25 h; the stated risk/cost is true",
      "voice": "beginner"}),

    ("h21-good-beginner-self-correct",
     {"checkpoint": "Write the intent first, then call, then write the result. (Not only the "
                    "result! I first had that and it can't tell a charge was in flight.)",
      "idempotency": "Same key every attempt. Made from run id + step + the payload's hash. "
                     "Not a new UUID each time, that was my first idea too.",
      "resumeProtocol": "Is it safe to just resend? Only sometimes. So: look the key up. "
                        "Found means done. Not found and less than 24 h means resend with the "
                        "same key. More than 24 h means escalate, since \"not found\" doesn't "
                        "prove anything then.",
      "failureMode": "Past 24 h it needs a person, and each recovery costs a lookup call."},
     {"passed": True, "why": "mentions the rejected mistakes only to reject them; the design "
                             "itself is the safe one and the failure mode is true",
      "voice": "beginner"}),

    ("h21-bad-beginner-blind-resend",
     {"checkpoint": "I save \"charging now\" before the call and the result after, so I know "
                    "where I was.",
      "idempotency": "The key is from the run id and step and payload, so it's always the "
                     "same.",
      "resumeProtocol": "If it crashed in the middle, I just send the charge again with the "
                        "same key. The provider will see the key and not charge twice, so I "
                        "don't need to ask it anything first, right?",
      "failureMode": "Maybe it's a bit slow if the provider is slow."},
     {"passed": False, "why": "blind resend with no age check: after 25 h the provider has "
                              "pruned the key and the resend is a new charge (W3/W4 "
                              "duplicate)",
      "voice": "beginner"}),

    ("h21-bad-beginner-no-weakness",
     {"checkpoint": "Intent saved before the charge, receipt saved after.",
      "idempotency": "A key from the run, the step and a hash of the payload, the same every "
                     "try.",
      "resumeProtocol": "Look it up by key, resend with the same key if it's not found and "
                        "it's less than 24 h, otherwise hand it to a person.",
      "failureMode": "I honestly can't find a way this goes wrong, I think it's fully safe "
                     "and costs nothing extra."},
     {"passed": False, "why": "the design is right but the failure mode names no cost and "
                              "claims full safety; it has real ones (late recovery escalates, "
                              "extra write and lookup)",
      "voice": "beginner"}),

    # ------------------------------------------------------------------ comparison (4 good, 2 bad)
    ("h21-good-compare-vs-dbos",
     {"checkpoint": "Unlike the DBOS-style approach of recording a step's output only after "
                    "it returns, we also record the intent before the call. Output-only "
                    "cannot tell a charge that was in flight from one never started.",
      "idempotency": "A derived key (run, step, payload digest) rather than a random one per "
                     "request, so the provider sees one name for one charge.",
      "resumeProtocol": "Lookup by key before any resend, instead of blindly retrying; resend "
                        "with the same key only within the 24 h retention; past that, "
                        "escalate.",
      "tradeOff": "We pay one more write per call than output-only checkpointing, in exchange "
                  "for never double charging."},
     {"passed": True, "why": "contrasts rejected alternatives; the chosen design is the safe "
                             "one, and the extra write is a true cost",
      "voice": "comparison"}),

    ("h21-good-compare-lookup-vs-resend",
     {"checkpoint": "Intent journaled and committed before dispatch; the result afterwards.",
      "idempotency": "Key derived from the run id and step plus a hash of the arguments.",
      "resumeProtocol": "We considered reconciling Stripe-style by simply resending the same "
                        "key, but our provider offers a lookup, so we ask first: a found "
                        "charge is recorded, a missing one is resent with the same key while "
                        "within 24 h, and anything older escalates to an operator.",
      "failureMode": "Compared with same-key resending, the lookup tells us that a W2 crash "
                     "never charged, but past 24 h even a lookup miss proves nothing, so "
                     "those cases still go to a person."},
     {"passed": True, "why": "intent, derived key, lookup, bounded resend, escalation; the "
                             "comparison and the stated limit are true",
      "voice": "comparison"}),

    ("h21-good-compare-reference-vs-key",
     {"checkpoint": "Intent before the call, receipt after, both durable.",
      "idempotency": "We chose a client reference (run id + step) stored by the provider over "
                     "its idempotency key: the key is pruned after 24 hours, the reference "
                     "can be searched for indefinitely.",
      "resumeProtocol": "On resume, search by reference: found means adopt that charge, not "
                        "found means it never arrived and we send it with the same reference.",
      "tradeOff": "The reference is not deduplicated, so unlike a key it gives no protection "
                  "against a resend that skips the search; in return, a late recovery of the "
                  "charge never needs an operator."},
     {"passed": True, "why": "intent + client reference + lookup is clean in every window and "
                             "recovery; both halves of the trade-off are true",
      "voice": "comparison"}),

    ("h21-good-compare-stored-vs-derived",
     {"checkpoint": "Write-ahead intent committed before the charge, result after.",
      "idempotency": "Instead of deriving the key from the payload, we mint a UUID once per "
                     "logical charge and store it in the intent; all attempts reuse the "
                     "stored value.",
      "resumeProtocol": "Look up by the stored key; resend with it only if missing and within "
                        "24 h; otherwise escalate.",
      "tradeOff": "Versus a derived key we lose the ability to recompute the key from the "
                  "order alone, and we depend on the intent row surviving; we gain a key that "
                  "reveals nothing about the payload."},
     {"passed": True, "why": "stored key journaled with the intent plus lookup and bounded "
                             "resend is safe; the trade-off is true",
      "voice": "comparison"}),

    ("h21-bad-compare-trust-not-found",
     {"checkpoint": "Intent journaled before dispatch, result after, rather than a snapshot.",
      "idempotency": "Derived key rather than a per-request UUID: run, step, payload hash.",
      "resumeProtocol": "Rather than escalating to a human, which is slow, we always look the "
                        "key up and, if the provider says it has no such charge, resend with "
                        "the same key. A miss means it never happened.",
      "failureMode": "Compared with escalation we save operator time; the lookup costs a "
                     "round trip."},
     {"passed": False, "why": "trusts 'not found' regardless of age: after 25 h the key is "
                              "pruned, the lookup misses a real W3/W4 charge and the resend "
                              "charges twice",
      "voice": "comparison"}),

    ("h21-bad-compare-reference-blind",
     {"checkpoint": "Intent before, result after, instead of result-only.",
      "idempotency": "A client reference from run and step instead of the provider's "
                     "idempotency key, because the reference never expires.",
      "resumeProtocol": "Instead of a lookup round trip, resend the unfinished charge with the "
                        "same reference; the provider has it on file.",
      "tradeOff": "Fewer calls than lookup-first recovery."},
     {"passed": False, "why": "a client reference is stored but not deduplicated on: a blind "
                              "resend after W3/W4 is a second charge, even at once",
      "voice": "comparison"}),

    # ------------------------------------------------------------------ keyword-stuffed (1 good, 5 bad)
    ("h21-good-stuffed-dense-but-coherent",
     {"checkpoint": "WAL-style durable intent (tool, args, effect key, sent_at) fsynced "
                    "pre-dispatch; tool_result appended post-response; exactly one intent per "
                    "logical operation.",
      "idempotency": "Deterministic idempotency key = digest(run_id, step, canonical payload); "
                     "attempt-invariant, payload-bound, worker-invariant.",
      "resumeProtocol": "Replay journal; reconcile each unresolved intent via lookup-by-key; "
                        "hit: record receipt; miss within 24 h retention: re-dispatch same key; "
                        "miss past retention: EffectKeyMayBePruned, escalate (UNCERTAIN) to "
                        "operator.",
      "failureMode": "Past-retention W2-W4 crashes require operator resolution; extra "
                     "synchronous write and a lookup RTT on recovery."},
     {"passed": True, "why": "jargon-heavy but every field names one consistent mechanism of "
                             "the safe design; the failure mode is true",
      "voice": "keyword-stuffed"}),

    ("h21-bad-stuffed-checkpoint-soup",
     {"checkpoint": "Durable checkpointing: write-ahead intent log, result-only persistence, "
                    "periodic snapshots and event sourcing, whichever fits the step.",
      "idempotency": "Idempotent, deterministic, derived idempotency key with payload binding "
                     "and dedup.",
      "resumeProtocol": "Replay + reconcile + lookup + retry + escalate, exactly-once.",
      "failureMode": "Exactly-once guarantees across all crash windows W1-W5."},
     {"passed": False, "why": "keyword soup: the checkpoint names four exclusive mechanisms, "
                              "the resume lists every option without an order, and the "
                              "failure mode claims a false exactly-once safety",
      "contradiction": True, "voice": "keyword-stuffed"}),

    ("h21-bad-stuffed-buzzwords-no-mechanism",
     {"checkpoint": "Transactional outbox pattern with durable execution semantics and "
                    "strong consistency.",
      "idempotency": "End-to-end idempotency and exactly-once delivery guarantees at the "
                     "API layer.",
      "resumeProtocol": "Saga-based reconciliation with resilient, fault-tolerant recovery "
                        "and at-least-once retries.",
      "tradeOff": "Eventual consistency versus availability (CAP)."},
     {"passed": False, "why": "buzzwords without a decision: no key origin, no order of "
                              "lookup/resend, no retention rule; the trade-off is generic, "
                              "not about this design",
      "voice": "keyword-stuffed"}),

    ("h21-bad-stuffed-timestamp-key",
     {"checkpoint": "Write-ahead intent journal, durable, fsync, before dispatch; result "
                    "journaled after; crash-consistent.",
      "idempotency": "Idempotency-Key = sha256(order_id || amount || attempt_timestamp), "
                     "collision-resistant, unique, deduplicated provider-side.",
      "resumeProtocol": "Lookup-by-key reconciliation, same-key resend within 24 h retention, "
                        "escalation past retention, operator resolution.",
      "failureMode": "Operator latency past retention; extra write per call."},
     {"passed": False, "why": "the key includes the attempt's timestamp, so every attempt has "
                              "a new key: the lookup on resume misses and the resend charges "
                              "twice",
      "voice": "keyword-stuffed"}),

    ("h21-bad-stuffed-backoff-retry",
     {"checkpoint": "Intent-and-result journaling, durable write-ahead log, ACID commit.",
      "idempotency": "Derived idempotency key (run_id, step, payload digest), stable, "
                     "provider-deduplicated.",
      "resumeProtocol": "Automatic retry of unresolved calls with exponential backoff, "
                        "jitter, circuit breaker and a dead-letter queue, relying on "
                        "provider-side idempotent deduplication.",
      "failureMode": "Retry storms under provider outage; mitigated by the circuit breaker."},
     {"passed": False, "why": "the resume resends unresolved charges without a lookup or a "
                              "retention check: after 25 h the pruned key makes the retry a "
                              "second charge",
      "voice": "keyword-stuffed"}),

    ("h21-bad-stuffed-reference-window",
     {"checkpoint": "Durable intent pre-dispatch, receipt post-dispatch, write-ahead.",
      "idempotency": "Client reference (run_id:step) attached as merchant reference metadata "
                     "for traceability and dedup.",
      "resumeProtocol": "No lookup; same-reference re-dispatch within the 24 h retention "
                        "window; escalation to operator past retention.",
      "failureMode": "Manual settlement past 24 h."},
     {"passed": False, "why": "a client reference is not deduplicated on: resending it within "
                              "24 h after a W3/W4 crash is a second charge, even recovered at "
                              "once",
      "voice": "keyword-stuffed"}),

    # ------------------------------------------------------------------ self-contradicting (0 good, 6 bad)
    ("h21-bad-contra-stateless-replay",
     {"checkpoint": "We keep the agent stateless: nothing is written to a journal, the run "
                    "can always be recomputed from its input.",
      "idempotency": "Key derived from run id, step and payload hash.",
      "resumeProtocol": "On resume, replay the journal up to the last recorded intent and "
                        "look that intent up by its key.",
      "failureMode": "Past 24 h a lookup proves nothing, so we escalate."},
     {"passed": False, "why": "replay of a journal and lookup of intents while the checkpoint "
                              "says nothing is journaled; with no checkpoint the model is "
                              "asked again and charges a new amount",
      "contradiction": True, "voice": "self-contradicting"}),

    ("h21-bad-contra-random-in-failure",
     {"checkpoint": "Intent journaled before the call, result after.",
      "idempotency": "Key derived from run, step and payload digest, identical on every "
                     "attempt.",
      "resumeProtocol": "Look up by key; resend with the same key if not found within 24 h; "
                        "escalate past it.",
      "failureMode": "Because the key is a fresh random value on each retry, a crash in W3 "
                     "can still charge the customer twice."},
     {"passed": False, "why": "the failure mode says the key is random per retry while the "
                              "idempotency field derives it; and the claimed W3 double charge "
                              "is false of the design described",
      "contradiction": True, "voice": "self-contradicting"}),

    ("h21-bad-contra-intent-after",
     {"checkpoint": "We write the intent to the journal before the charge, but only once the "
                    "provider has confirmed it, so we never record a charge that didn't "
                    "happen.",
      "idempotency": "Derived from the run id, the step and the payload.",
      "resumeProtocol": "Look up unresolved intents by key, resend within 24 h, escalate "
                        "after.",
      "failureMode": "An extra write per call."},
     {"passed": False, "why": "'before the charge, but only once the provider confirmed' is "
                              "result-only: a W3/W4 crash leaves no intent, and after 25 h the "
                              "re-run charges twice",
      "contradiction": True, "voice": "self-contradicting"}),

    ("h21-bad-contra-no-key-lookup",
     {"checkpoint": "Intent before the call, result after.",
      "idempotency": "We don't send any idempotency key; our provider doesn't need one.",
      "resumeProtocol": "On resume, query the provider by the charge's key; if it is there, "
                        "record it; if not, send again.",
      "tradeOff": "Simpler integration, no key management."},
     {"passed": False, "why": "a lookup by key with no key sent: nothing to look up, and "
                              "without a key the resend after W3/W4 is a second charge",
      "contradiction": True, "voice": "self-contradicting"}),

    ("h21-bad-contra-key-regenerated",
     {"checkpoint": "Journal the intent with its key before dispatch; the result after.",
      "idempotency": "The key is derived from the run id and step, with a new random suffix "
                     "added on each retry so that the provider never rejects a reused key.",
      "resumeProtocol": "Look the charge up by its key; resend with the same key if not found "
                        "and still within 24 h; escalate otherwise.",
      "failureMode": "Late recoveries go to an operator."},
     {"passed": False, "why": "a per-retry suffix makes the key new on every attempt, "
                              "contradicting 'resend with the same key': the provider sees two "
                              "keys and charges twice in W3/W4",
      "contradiction": True, "voice": "self-contradicting"}),

    ("h21-bad-contra-never-ask",
     {"checkpoint": "Write-ahead intent before the call, result after.",
      "idempotency": "Key from run, step and payload hash; the same on every attempt.",
      "resumeProtocol": "For safety the resumed run never contacts the provider about "
                        "unfinished charges; it first looks the charge up by key and resends "
                        "with that key only if the lookup finds nothing.",
      "failureMode": "None: recovery is fully automatic, even days later."},
     {"passed": False, "why": "'never contacts the provider' and 'looks it up / resends' "
                              "exclude each other; with no retention rule the resend after "
                              "25 h charges twice, and 'fully automatic even days later' is "
                              "false",
      "contradiction": True, "voice": "self-contradicting"}),
]
