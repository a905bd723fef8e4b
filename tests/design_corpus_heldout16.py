"""Held-out corpus HELDOUT16: 42 designOutline() answers, written blind to the grader.

Written blind (s13, writer16): its author read the lesson 05b notebook, lessons 04 and 05,
minirt_course/scenarios/design_payment.py (the crash sweep) and the 20-line format docstring
of tests/design_corpus_heldout11b.py; never the grader, its vocabulary, its tests or the other
corpora. It is measured once; do not tune the reader on it.

Invariant: 21 entries with ``passed: True`` (an outline whose design the sweep finds clean in
every window, recovered at once and after 25 h, with a failure mode or trade-off that is true
of it) and 21 with ``passed: False`` (a plausible mistake, named in ``why``); entry names are
unique. Voices: terse-bullets, non-native-english, pseudocode, outbox-or-event-log,
message-queue, keyword-stuffed, self-contradicting (each at least 3 entries). Each verdict is a
careful human reading of the text, checked against the sweep rules of design_payment.py. Not
guaranteed: that the grader agrees (that is what is measured), nor that the voices cover every
way learners write.
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT16: list[Entry] = [
    # ------------------------------------------------------------------ terse-bullets
    ("h16-good-terse-derived-lookup",
     {"checkpoint": "- intent row (tool, args, key) committed before send\n- receipt row after",
      "idempotency": "- key = hash(run_id, step no., args)\n- identical on every retry",
      "resumeProtocol": "- open intent -> GET by key\n- found: store receipt\n"
                        "- missing & < 24h old: resend, same key\n- missing & older: page a human",
      "failureMode": "- crash in W2-W4 + restart after >24h = run parked for an operator"},
     {"passed": True, "why": "intent before call, derived stable key, lookup then same-key resend "
      "inside retention, escalation past it; the failure mode (operator past 24 h) is true",
      "voice": "terse-bullets"}),

    ("h16-good-terse-stripe-style",
     {"checkpoint": "Intent journaled + fsynced pre-dispatch; result appended on return.",
      "idempotency": "Idempotency-Key derived from workflow id + step; never regenerated.",
      "resumeProtocol": "No lookup API. Unfinished call: resend same key if intent < 24h old "
                        "(provider replays saved answer). Older: stop, mark uncertain, escalate.",
      "tradeOff": "Relies wholly on provider dedup; resend must carry byte-identical params."},
     {"passed": True, "why": "retry-within-retention with a stable key and an intent journaled "
      "first: same-key resend is deduplicated at once, escalation after 25 h; the trade-off "
      "(depends on provider dedup and identical params) is true",
      "voice": "terse-bullets"}),

    ("h16-good-terse-uuid-once",
     {"checkpoint": "write-ahead: intent + its key saved before the charge, outcome saved after",
      "idempotency": "uuid4 minted once when the intent is written, stored in that row, reused",
      "resumeProtocol": "replay; unresolved intent: ask provider by stored key. not there -> "
                        "resend w/ same key if within 24h window, else escalate to ops",
      "failureMode": "extra DB write + fsync before every payment call: latency cost"},
     {"passed": True, "why": "stored key (random once per operation, journaled with the intent), "
      "lookup before resend, window check, escalation; the latency cost is a true trade-off",
      "voice": "terse-bullets"}),

    ("h16-good-terse-reference-lookup",
     {"checkpoint": "intent first (incl. our order ref), then the result",
      "idempotency": "our own client reference on each charge; provider stores it and lets us "
                     "search by it forever (no dedup on its side though)",
      "resumeProtocol": "on resume: search by reference BEFORE anything. hit = take that charge "
                        "as the result. miss = nothing was charged, send once with same ref",
      "failureMode": "if the provider's search lags behind its writes, a miss can be stale and "
                     "we'd charge twice; fine here, risky on providers with eventual search"},
     {"passed": True, "why": "client reference plus lookup before every resend is clean even "
      "after 25 h (the reference is searchable forever); the stale-search risk is a true limit",
      "voice": "terse-bullets"}),

    ("h16-bad-terse-attempt-in-key",
     {"checkpoint": "intent logged before call, result after",
      "idempotency": "key = sha1(run_id + step + attempt_no) so each try is traceable",
      "resumeProtocol": "look up by key; none found -> resend (within 24h) else escalate",
      "failureMode": "lookup adds a round trip on restart"},
     {"passed": False, "why": "the attempt number in the key makes it a key per attempt: after a "
      "W3 crash the lookup and resend use a new key, so the provider charges again",
      "voice": "terse-bullets"}),

    ("h16-bad-terse-blind-same-key",
     {"checkpoint": "journal intent -> call -> journal result",
      "idempotency": "derived key (run, step, payload digest), stable",
      "resumeProtocol": "intent w/o result: just resend with same key, provider dedups it",
      "failureMode": "none really, dedup covers every crash window"},
     {"passed": False, "why": "blind resend with no age check: after 25 h the provider has pruned "
      "the key and the resend is a second charge; the failure mode claims a safety it lacks",
      "voice": "terse-bullets"}),

    # ------------------------------------------------------------------ non-native-english
    ("h16-good-nonnative-lookup",
     {"checkpoint": "Before the agent is calling payment API, we write in journal the intent "
                    "with tool name, arguments and key, and commit it. After answer come, we "
                    "write result also.",
      "idempotency": "Key is make from run id and step number and hash of arguments, so for "
                     "each retry is same key, also after restart on other worker.",
      "resumeProtocol": "When agent restart and find intent without result, first it ask "
                        "provider by the key if charge exist. If exist, take this receipt. If "
                        "not exist and intent is younger than 24 hour, send again with same key. "
                        "If more old, not send, give to human operator for decide.",
      "failureMode": "After one day of downtime run is waiting for human, customer wait also."},
     {"passed": True, "why": "intent before call, derived key, lookup then same-key resend within "
      "24 h, escalation past it; waiting for a human past retention is true",
      "voice": "non-native-english"}),

    ("h16-good-nonnative-retention-resend",
     {"checkpoint": "Intent is saved durable before request go out; response saved when arrive.",
      "idempotency": "One idempotency key for one logical payment, calculated from run and step "
                     "and payload digest. Retry never change it.",
      "resumeProtocol": "Provider have no lookup, so for unfinished payment we resend same "
                        "request with same key, but only when intent time is inside provider "
                        "window of 24 hours. Outside window run become uncertain and operator "
                        "must check in provider dashboard.",
      "tradeOff": "We trust provider to keep key full 24h; if provider keep shorter time, like "
                  "Qonto 30 minute, window must be configured smaller or we charge twice."},
     {"passed": True, "why": "retry-within-retention with stable key and journaled intent is "
      "clean at once and escalates after 25 h; the trade-off about the configured retention is "
      "true",
      "voice": "non-native-english"}),

    ("h16-good-nonnative-stored-uuid",
     {"checkpoint": "Every tool call is two record in journal: first intent (before), second "
                    "result (after). Intent is committed before network.",
      "idempotency": "We generate UUID only one time, in moment of writing intent, and UUID is "
                     "inside intent record. Every attempt read it from there.",
      "resumeProtocol": "Replay journal. Call with intent but without result: query provider "
                        "with this UUID. Found -> finish with it. Not found -> resend same UUID "
                        "if less than 24h, otherwise escalate, no resend.",
      "failureMode": "Recovery is more slow because each open call need one lookup request "
                     "before continue."},
     {"passed": True, "why": "stored key journaled with the intent, lookup first, same-key "
      "resend inside the window, escalation past; the extra lookup cost is true",
      "voice": "non-native-english"}),

    ("h16-good-nonnative-w2-escalates",
     {"checkpoint": "Write-ahead log: intention of charge is persisted and committed before "
                    "send, result appended after.",
      "idempotency": "Key deterministic: order id plus step name plus digest of amount and "
                     "currency. Same in all retry.",
      "resumeProtocol": "On restart look the charge up by key. Not found inside retention -> "
                        "send with the same key. Not found after retention -> is not proof, so "
                        "escalate to operator.",
      "failureMode": "Also when crash was before the send (W2) and we come back after 25 hour, "
                     "run is escalated although nothing was charged: operator make work for "
                     "nothing."},
     {"passed": True, "why": "the correct design; its failure mode (a W2 crash past retention "
      "escalates with zero charges) is true of the sweep",
      "voice": "non-native-english"}),

    ("h16-bad-nonnative-result-only",
     {"checkpoint": "For not doing two writes, we save the step only when payment API answer, "
                    "result and arguments together in one transaction.",
      "idempotency": "Key derived from run id, step and payload hash, always same.",
      "resumeProtocol": "After restart we look by key at provider for calls not finished, and "
                        "resend with same key if not found.",
      "failureMode": "If crash before the answer, we maybe call again, but key protect us."},
     {"passed": False, "why": "result-only checkpoint: after a W3/W4 crash nothing says the call "
      "was sent or when, so 25 h later the resend is a new charge; the failure mode overstates "
      "the key",
      "voice": "non-native-english"}),

    ("h16-bad-nonnative-memory-uuid",
     {"checkpoint": "Intent is written in journal before call (tool and arguments), result "
                    "after call.",
      "idempotency": "UUID is created when step begin and kept in memory of worker, so retries "
                     "inside same process use same UUID.",
      "resumeProtocol": "New worker take the run, look provider for the charge, if not found "
                        "resend inside 24 hour, after it escalate.",
      "failureMode": "Lookup cost one more call on each recovery."},
     {"passed": False, "why": "the key lives only in the dead worker's memory: the new worker "
      "makes a new UUID, its lookup misses the W3 charge and its resend charges again",
      "voice": "non-native-english"}),

    # ------------------------------------------------------------------ pseudocode
    ("h16-good-pseudo-full",
     {"checkpoint": "with db.tx(): journal.append(Intent(step, tool, args, key, sent_at=now()))"
                    "\nresp = provider.charge(args, idempotency_key=key)\n"
                    "journal.append(Result(step, resp))",
      "idempotency": "key = sha256(f'{run_id}:{step}:{canonical_json(args)}')  # no attempt, "
                     "no clock, no randomness",
      "resumeProtocol": "for it in journal.intents_without_result():\n"
                        "    r = provider.lookup(it.key)\n"
                        "    if r: journal.append(Result(it.step, r))\n"
                        "    elif now() - it.sent_at < RETENTION - MARGIN: resend(it, key=it.key)\n"
                        "    else: run.mark_uncertain(); notify_operator(it)",
      "failureMode": "# past RETENTION the run blocks on notify_operator() until a person "
                     "resolves it from the provider's records"},
     {"passed": True, "why": "write-ahead intent with send time, derived key, lookup first, "
      "same-key resend inside retention, escalation past; the operator wait is true",
      "voice": "pseudocode"}),

    ("h16-good-pseudo-resend-window",
     {"checkpoint": "journal.write(intent)  # durable BEFORE http\nres = http.post(...)\n"
                    "journal.write(result)",
      "idempotency": "headers['Idempotency-Key'] = intent.key  # computed once from "
                     "(workflow_id, step, digest(body)), journaled in intent",
      "resumeProtocol": "if intent and not result:\n  if age(intent) < 24h: res = "
                        "http.post(same body, same key)  # provider returns saved reply\n"
                        "  else: raise NeedsHuman(intent)",
      "tradeOff": "no read endpoint needed, but the resend must repeat the exact body or the "
                  "provider rejects the reused key"},
     {"passed": True, "why": "same-key resend only within retention, escalation past, intent "
      "journaled first with a stable key: clean at once, escalated after 25 h; trade-off true",
      "voice": "pseudocode"}),

    ("h16-good-pseudo-stored-key",
     {"checkpoint": "intent = Intent(op='charge', args=a, key=uuid4()); store.commit(intent)\n"
                    "# only then dispatch; on answer store.commit(Outcome(intent.id, resp))",
      "idempotency": "the uuid4 above is created once per logical charge and read back from the "
                     "store on every later attempt; never minted inside the retry loop",
      "resumeProtocol": "on_resume(intent):\n  hit = psp.find(intent.key)\n  if hit: "
                        "return hit\n  if intent.created + 24h > now: return psp.charge(..., "
                        "key=intent.key)\n  escalate(intent)",
      "failureMode": "two synchronous commits per charge; and after a day offline every open "
                     "charge needs manual reconciliation"},
     {"passed": True, "why": "stored key journaled with the intent before dispatch, lookup then "
      "windowed same-key resend, escalation; both stated costs are true",
      "voice": "pseudocode"}),

    ("h16-good-pseudo-reference",
     {"checkpoint": "log(intent{ref=order.ref, amount})  -> commit -> call -> log(result)",
      "idempotency": "ref = f'A-42/{step}' passed as client_reference; provider indexes it "
                     "permanently but does NOT dedup on it",
      "resumeProtocol": "resume(i): found = psp.search(ref=i.ref); if found: "
                        "complete(i, found) else: send(i)  # never send without searching",
      "failureMode": "two workers resuming the same run at once could both miss and both send; "
                     "needs the run lease to hold"},
     {"passed": True, "why": "client reference with a search before every send is clean in every "
      "window, also after 25 h; the concurrent-resume risk is a true limit (outside the sweep)",
      "voice": "pseudocode"}),

    ("h16-bad-pseudo-timestamp-key",
     {"checkpoint": "journal.append(intent); journal.flush(); r = pay(intent); "
                    "journal.append(result)",
      "idempotency": "key = md5(run_id + str(step) + json.dumps(body))  # body includes "
                     "'requested_at': time.time() for auditing",
      "resumeProtocol": "r = pay.get(key) or (age < 24h and pay(body, key)) or escalate()",
      "failureMode": "escalation after 24h leaves the order open until someone checks"},
     {"passed": False, "why": "the body hashed into the key carries a fresh timestamp, so every "
      "attempt gets a new key: lookup misses the W3 charge and the resend charges again",
      "voice": "pseudocode"}),

    ("h16-bad-pseudo-false-w1",
     {"checkpoint": "journal.commit(Intent(step, args, key))\nresp = psp.charge(args, "
                    "idempotency_key=key)\njournal.commit(Result(step, resp))",
      "idempotency": "key = blake2b(f'{run_id}|{step}|{canon(args)}').hexdigest()",
      "resumeProtocol": "for i in open_intents():\n    found = psp.lookup(i.key)\n"
                        "    if found: record(i, found)\n    elif within_retention(i): "
                        "psp.charge(i.args, idempotency_key=i.key)\n    else: escalate(i)",
      "failureMode": "# weak spot: crash just before journal.commit(Intent) (W1) -> after "
                     "restart the charge is forgotten and the order never gets paid"},
     {"passed": False, "why": "the design is right but the failure mode is false: in W1 nothing "
      "was sent and the replay runs the step afresh (clean); its real limit, escalation past "
      "retention, is not named",
      "voice": "pseudocode"}),

    # ------------------------------------------------------------------ outbox-or-event-log
    ("h16-good-outbox-table",
     {"checkpoint": "Outbox table: the order update and an outbox row (charge, amount, key, "
                    "created_at) commit in one local transaction; a dispatcher sends pending "
                    "rows and writes the provider's receipt back onto the row.",
      "idempotency": "The row's key is derived from order id + step + payload digest and sent "
                     "as Idempotency-Key; the dispatcher never makes its own.",
      "resumeProtocol": "Rows that are 'sent' with no receipt are looked up by key first. "
                        "Found: attach receipt. Not found and created_at within 24h: resend "
                        "with the row's key. Older: status = needs_review for finance.",
      "failureMode": "Finance has to clear needs_review rows by hand after a long outage."},
     {"passed": True, "why": "the outbox row is the intent committed before dispatch, with a "
      "derived key, lookup, windowed resend and escalation; manual review past 24 h is true",
      "voice": "outbox-or-event-log"}),

    ("h16-good-event-log",
     {"checkpoint": "Event-sourced: append ChargeRequested{key, amount, at} to the run's log "
                    "and commit it, then call; append ChargeSucceeded{receipt} when it answers.",
      "idempotency": "key comes from stream id + event position + payload hash, so re-reading "
                     "the log always gives the same key.",
      "resumeProtocol": "Rebuild by replaying events. A ChargeRequested with no matching "
                        "ChargeSucceeded means unknown: query the PSP by key; if absent and the "
                        "request is under 24h old re-send same key, else emit "
                        "ChargeNeedsOperator and stop.",
      "tradeOff": "The log grows by two events per external call and replay reads all of it."},
     {"passed": True, "why": "request event committed before the call is the intent; stable key, "
      "lookup, windowed resend, escalation; log growth is a true cost",
      "voice": "outbox-or-event-log"}),

    ("h16-good-outbox-stripe",
     {"checkpoint": "We use a transactional outbox: the intent row is inserted together with "
                    "the state change, before anything goes to Stripe. The relay marks it done "
                    "with the charge id.",
      "idempotency": "Each outbox row carries a UUID generated at insert time; that column is "
                     "the Idempotency-Key for every delivery attempt of the row.",
      "resumeProtocol": "Stripe can't be queried by key, so the relay simply re-delivers an "
                        "unfinished row with its stored key while the row is younger than 24 "
                        "hours; after that the relay refuses and flags it to a person.",
      "failureMode": "A relay stalled for more than a day leaves charges in limbo that someone "
                     "must check in the Stripe dashboard."},
     {"passed": True, "why": "stored key inserted with the intent before dispatch, same-key "
      "resend inside retention and escalation past it; the stalled-relay limbo is true",
      "voice": "outbox-or-event-log"}),

    ("h16-good-eventlog-terse-fm",
     {"checkpoint": "PaymentIntended event fsynced before the API call, PaymentRecorded after.",
      "idempotency": "Deterministic key from run id, step index and the argument digest.",
      "resumeProtocol": "Replay; for each PaymentIntended without PaymentRecorded, look up by "
                        "key, resend with same key only if not found and still within the "
                        "provider's 24h key retention, otherwise hand to an operator.",
      "failureMode": "Synchronous fsync before every payment adds a few ms per call."},
     {"passed": True, "why": "correct design; the fsync latency is a true cost",
      "voice": "outbox-or-event-log"}),

    ("h16-bad-outbox-compensate-all",
     {"checkpoint": "Outbox row written with the order change before the charge is sent; "
                    "receipt stored on the row afterwards.",
      "idempotency": "Row key derived from order id and step; reused on every send.",
      "resumeProtocol": "On restart, any row without a receipt is treated as failed: we cancel "
                        "the order and issue refunds for the rows that do have receipts.",
      "failureMode": "An order interrupted by a crash is cancelled, the customer must retry."},
     {"passed": False, "why": "fail-and-compensate: a W3 charge has no receipt, so it is never "
      "refunded while the order is cancelled (a wrong result), instead of being looked up",
      "voice": "outbox-or-event-log"}),

    ("h16-bad-eventlog-after-ack",
     {"checkpoint": "We append ChargeSent to the event log as soon as the provider accepts "
                    "the request (HTTP 202), and ChargeSettled when the webhook arrives.",
      "idempotency": "Key = hash(stream id, position, payload).",
      "resumeProtocol": "Replay the log; a ChargeSent without ChargeSettled is looked up by key "
                        "and re-sent if not found within 24h, else escalated.",
      "failureMode": "Webhooks may come late, so settlement shows up with delay."},
     {"passed": False, "why": "the event is written only after the provider accepted, i.e. after "
      "its commit: a crash in W3 leaves no event, so the charge is sent again as a new "
      "operation and 25 h later it is a second charge",
      "voice": "outbox-or-event-log"}),

    # ------------------------------------------------------------------ message-queue
    ("h16-good-queue-dlq",
     {"checkpoint": "Consumer takes the 'charge order' message, commits an intent row (with "
                    "key) to its own DB before calling the PSP, writes the result after, and "
                    "only then acks the message.",
      "idempotency": "Key derived from order id + step + payload digest, not from the "
                     "message or delivery id, so a redelivered message yields the same key.",
      "resumeProtocol": "A redelivery that finds an intent without result asks the PSP by key. "
                        "Found: record and ack. Missing and intent < 24h: resend same key. "
                        "Missing and older: publish to the dead-letter queue for a human, ack.",
      "failureMode": "Messages redelivered after more than a day end up in the DLQ and wait "
                     "for a person."},
     {"passed": True, "why": "intent committed before the call, stable derived key independent "
      "of delivery, lookup, windowed resend, escalation via DLQ; the DLQ wait is true",
      "voice": "message-queue"}),

    ("h16-good-queue-retention-only",
     {"checkpoint": "Worker pulls the job from SQS, writes 'charge intended' with its key to "
                    "the journal table and commits; result row after the PSP replies.",
      "idempotency": "Key = workflow id + activity name, fixed for the job's lifetime.",
      "resumeProtocol": "When the visibility timeout brings the job back, the worker resends "
                        "with the journaled key if the intent is younger than the PSP's 24h "
                        "key TTL; otherwise it parks the job in a manual-review queue.",
      "tradeOff": "We skip a lookup endpoint, so correctness depends on the provider really "
                  "deduplicating the key for the full 24 hours."},
     {"passed": True, "why": "retry-within-retention with an intent journaled first and a fixed "
      "key: clean at once, escalated after 25 h; the dependency on provider dedup is true",
      "voice": "message-queue"}),

    ("h16-good-queue-kafka-log",
     {"checkpoint": "The intent (key, args) is written to the run journal and committed before "
                    "the payment request is produced to the payments topic; the reply consumer "
                    "writes the result.",
      "idempotency": "A UUID made once when the intent is written and stored in it; every "
                     "re-produce uses the stored UUID.",
      "resumeProtocol": "On restart, open intents are checked against the provider by key; only "
                        "if it has nothing and the intent is under 24h old is the request "
                        "produced again with the same key; past that the run goes to an "
                        "operator.",
      "failureMode": "Recovery blocks on one provider lookup per open intent; a slow provider "
                     "slows every restart."},
     {"passed": True, "why": "stored key in the intent, written before dispatch, lookup then "
      "windowed resend, escalation; the lookup cost on restart is true",
      "voice": "message-queue"}),

    ("h16-bad-queue-delivery-tag",
     {"checkpoint": "Intent row committed before the PSP call, result after, then ack.",
      "idempotency": "We use the delivery tag the broker hands us with each delivery as the "
                     "Idempotency-Key: it's unique, so no extra bookkeeping.",
      "resumeProtocol": "On redelivery look up by that key; not found inside 24h -> resend; "
                        "older -> DLQ.",
      "failureMode": "DLQ items need manual handling."},
     {"passed": False, "why": "a delivery tag is new on every redelivery: the key is per "
      "attempt, so after W3 the lookup misses and the "
      "resend charges twice",
      "voice": "message-queue"}),

    ("h16-bad-queue-ack-after",
     {"checkpoint": "No separate journal: the queue is the checkpoint. We ack the message only "
                    "after the charge succeeded, so an unacked message means unfinished work.",
      "idempotency": "Idempotency-Key = order id + 'charge', stable across redeliveries.",
      "resumeProtocol": "Unacked messages are redelivered and processed again; the provider "
                        "dedups the repeated charge by key.",
      "failureMode": "Slight delay while the broker waits for the visibility timeout."},
     {"passed": False, "why": "nothing durable says when the charge was sent and the redelivery "
      "resends blindly: after 25 h the key is pruned and the resend is a second charge",
      "voice": "message-queue"}),

    ("h16-bad-queue-backoff-48h",
     {"checkpoint": "Intent journaled before the call, outcome after.",
      "idempotency": "Key derived from run id, step and payload digest; identical each attempt.",
      "resumeProtocol": "Unknown outcome: look up by key; if the provider has nothing, put the "
                        "job on the retry queue with exponential backoff (max 48h) and resend "
                        "with the same key each time.",
      "failureMode": "Long backoff can delay the booking by up to two days."},
     {"passed": False, "why": "resends continue past the 24 h window: after 25 h the lookup's "
      "'not found' proves nothing and the same-key resend is a new charge",
      "voice": "message-queue"}),

    ("h16-bad-queue-escalate-everything",
     {"checkpoint": "Worker commits the intent with its key before publishing the charge "
                    "command; the result event is recorded when it comes back.",
      "idempotency": "Key derived from order id + step + payload digest, reused on redelivery.",
      "resumeProtocol": "Any intent without a result is moved to the manual-review queue; the "
                        "agent never decides an unknown payment on its own.",
      "failureMode": "Support sees a ticket for every crash between send and record."},
     {"passed": False, "why": "escalates even inside retention, where a lookup would settle it: "
      "every W2-W4 crash recovered at once is left stuck, which the sweep fails",
      "voice": "message-queue"}),

    # ------------------------------------------------------------------ keyword-stuffed
    ("h16-good-stuffed-coherent",
     {"checkpoint": "Durable write-ahead intent (WAL semantics, outbox-style) journaled "
                    "transactionally and fsynced pre-dispatch; post-dispatch result event "
                    "closes the step (two-phase step journal).",
      "idempotency": "Deterministic idempotency key (run_id || step || SHA-256 payload "
                     "digest), payload-bound, attempt-invariant, worker-invariant.",
      "resumeProtocol": "Deterministic replay; unresolved intents reconciled via provider "
                        "lookup-by-key; not-found within the 24h retention TTL (minus safety "
                        "margin) => same-key redispatch; beyond TTL => EffectKeyMayBePruned, "
                        "UNCERTAIN, human-in-the-loop escalation.",
      "failureMode": "Effectively-once only inside the retention TTL; outside it availability "
                     "is traded for safety (HITL latency, run blocked)."},
     {"passed": True, "why": "under the jargon each field commits to the right mechanism; the "
      "failure mode (blocked run past retention) is true",
      "voice": "keyword-stuffed"}),

    ("h16-good-stuffed-reference",
     {"checkpoint": "Intent-before-effect journaling (write-ahead), result-after, ACID local "
                    "commit of the intent incl. client reference.",
      "idempotency": "Client-reference strategy: persistent, provider-indexed correlation id "
                     "(non-deduplicating) — idempotency achieved at the reconciler, not at "
                     "the provider.",
      "resumeProtocol": "Lookup-first reconciliation: search-by-reference always precedes any "
                        "(re)dispatch; hit => adopt receipt, miss => single dispatch.",
      "tradeOff": "Correctness hinges on read-your-writes consistency of the provider's search "
                  "index; eventual consistency (search lag) would reopen the double-charge "
                  "window."},
     {"passed": True, "why": "client reference with lookup before every send is clean even after "
      "25 h; the search-consistency trade-off is true",
      "voice": "keyword-stuffed"}),

    ("h16-bad-stuffed-no-decision",
     {"checkpoint": "Event sourcing, CQRS, write-ahead logging, snapshots and outbox pattern "
                    "for maximum durability.",
      "idempotency": "Idempotency keys, UUIDs, client references and payload hashing ensure "
                     "exactly-once semantics.",
      "resumeProtocol": "Replay, lookup, retry with exponential backoff and jitter, saga "
                        "compensation, escalation as appropriate.",
      "failureMode": "Network partitions, split brain, Byzantine faults, clock skew."},
     {"passed": False, "why": "keyword soup: every field lists exclusive mechanisms without "
      "choosing one, and the failure mode names generic faults, not a limit of this design",
      "voice": "keyword-stuffed"}),

    ("h16-bad-stuffed-exactly-once",
     {"checkpoint": "Write-ahead intent journaling with transactional outbox and durable "
                    "execution semantics (Temporal-style event history).",
      "idempotency": "Deterministic payload-bound idempotency key (run_id + step + digest).",
      "resumeProtocol": "Deterministic replay; unresolved intents reconciled by lookup-by-key "
                        "and same-key redispatch on not-found, guaranteeing exactly-once "
                        "regardless of downtime.",
      "failureMode": "None: exactly-once end-to-end, zero human intervention, no double-charge "
                     "window even after arbitrary outages."},
     {"passed": False, "why": "resends on 'not found' at any age (no retention check): after 25 h "
      "the pruned key makes the resend a second charge; the failure mode claims a false safety",
      "voice": "keyword-stuffed"}),

    ("h16-bad-stuffed-snapshot",
     {"checkpoint": "Periodic checkpointing: full state snapshot persisted every 2 steps "
                    "(LangGraph-style checkpointer, low write amplification).",
      "idempotency": "Deterministic idempotency key derived from thread_id + node + payload "
                     "digest; attempt-invariant.",
      "resumeProtocol": "Resume from the latest snapshot; lookup-by-key reconciliation for "
                        "in-flight effects, same-key resend within TTL, HITL beyond TTL.",
      "failureMode": "Snapshot interval bounds recomputation cost (bounded replay)."},
     {"passed": False, "why": "periodic snapshot loses the model's decision since the last "
      "snapshot: re-asked, the model picks another amount, the payload digest and so the key "
      "change, and the card is charged twice",
      "voice": "keyword-stuffed"}),

    # ------------------------------------------------------------------ self-contradicting
    ("h16-bad-contra-no-intent-replay",
     {"checkpoint": "We don't write anything before the call, to keep the hot path fast; the "
                    "receipt is stored once the call returns.",
      "idempotency": "Key derived from run id, step and payload digest.",
      "resumeProtocol": "On restart we walk the journal's open intents and look each one up by "
                        "key before resending.",
      "failureMode": "Lookups add some restart time."},
     {"passed": False, "why": "contradiction: no intent is written, yet resume walks open "
      "intents; as built (result only) a W3/W4 crash leaves no trace and 25 h later it charges "
      "twice",
      "voice": "self-contradicting", "contradiction": True}),

    ("h16-bad-contra-key-fm",
     {"checkpoint": "Intent journaled and committed before dispatch, result after.",
      "idempotency": "Key derived from run + step + payload digest, the same on every attempt.",
      "resumeProtocol": "Lookup by key; not found within 24h: resend with same key; later: "
                        "escalate.",
      "failureMode": "Because each retry gets its own random key, a crash in W3 can still "
                     "produce a duplicate charge."},
     {"passed": False, "why": "contradiction: the failure mode says the key is random per retry "
      "while the idempotency field derives a stable one; the stated failure is not true of the "
      "design",
      "voice": "self-contradicting", "contradiction": True}),

    ("h16-bad-contra-never-resend",
     {"checkpoint": "Write-ahead intent with key; result journaled after the response.",
      "idempotency": "Stored UUID created with the intent, reused across attempts.",
      "resumeProtocol": "We never resend a payment automatically. If the lookup by key finds "
                        "nothing we resend it with the same UUID, and past 24h we escalate.",
      "failureMode": "Operator time past 24 hours."},
     {"passed": False, "why": "contradiction: 'never resend' and 'resend with the same UUID' in "
      "the same field; the resume protocol does not say which one the run does",
      "voice": "self-contradicting", "contradiction": True}),

    ("h16-bad-contra-fresh-and-stored",
     {"checkpoint": "Intent with its key committed before sending; result after.",
      "idempotency": "The key is stored in the intent and reused, but we append a new suffix on "
                     "each retry so the provider doesn't throw an idempotency_error on a "
                     "changed body.",
      "resumeProtocol": "Lookup by the stored key; resend if missing inside 24h; escalate after.",
      "failureMode": "Escalations past a day need a person."},
     {"passed": False, "why": "contradiction: 'stored and reused' undone by a new suffix per "
      "retry, a key per attempt: the resend after W3 is a new charge",
      "voice": "self-contradicting", "contradiction": True}),

    ("h16-bad-contra-window",
     {"checkpoint": "Intent first (durable), then the call, then the result.",
      "idempotency": "Derived from run id, step and argument digest.",
      "resumeProtocol": "Look up by key. Inside 24h: resend with the same key if not found. "
                        "Past 24h we escalate to an operator; since by then a not-found is "
                        "final, the agent resends automatically.",
      "failureMode": "After a day the operator has to confirm, so the run waits."},
     {"passed": False, "why": "contradiction: past 24 h it both escalates and resends on "
      "'not found'; the automatic late resend is a second charge when the key was pruned",
      "voice": "self-contradicting", "contradiction": True}),

    # ------------------------------------------------------------------ terse-bullets (one more)
    ("h16-bad-terse-ref-blind",
     {"checkpoint": "- intent (with order ref) saved before call\n- result after",
      "idempotency": "- client reference 'A-42-charge' attached as metadata, same every time",
      "resumeProtocol": "- intent w/o result: resend with same reference, provider sees the "
                        "duplicate ref",
      "failureMode": "- none, the ref makes repeats harmless"},
     {"passed": False, "why": "a client reference is stored but not deduplicated: a blind resend "
      "after W3 is a second charge even at once; the failure mode claims a false safety",
      "voice": "terse-bullets"}),
]
