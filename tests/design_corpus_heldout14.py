"""Held-out corpus HELDOUT14: 42 designOutline() answers, written blind to the grader.

Written blind (stop s12, writer14): its author read the lesson 05b notebook, lessons 04 and 05
and minirt_course/scenarios/design_payment.py (the crash sweep), never the grader, its
vocabulary, its tests or the other corpora. Verdicts were checked by running
``design_payment.sweep_design`` on the design each entry describes (all 100 combinations of
checkpoint x idempotency x resume were swept; exactly five are clean in every window at once
and after 25 h: intent-and-result with derived-key or stored-key and replay-and-lookup or
retry-within-retention, and intent-and-result + client-reference + replay-and-lookup).
It is measured once; do not tune the reader on it.

Invariant: 21 entries with ``passed: True`` (an outline whose design the sweep finds clean in
every window, recovered at once and after 25 h, with a failure mode or trade-off that is true
of it) and 21 with ``passed: False`` (a plausible mistake, named in ``why``); entry names are
unique. Voices: student-hurried, textbook, bullet-lists, event-sourcing, pseudo-code (good and
bad), keyword-stuffed and self-contradicting (bad only). Not guaranteed: that the grader agrees
(that is what is measured), nor that the voices cover every way learners write.
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT14: list[Entry] = [
    # ------------------------------------------------------------------ student-hurried, good
    ("h14-good-hurried-terse",
     {"checkpoint": "intent -> journal b4 the charge, result after",
      "idempotency": "key=hash(run,step,args), same every retry",
      "resumeProtocol": "open intent: lookup by key. miss & <24h: resend same key. >24h: page ops",
      "failureMode": "late resume (>24h) after w2-w4 = run sits til ops checks"},
     {"passed": True, "why": "intent-and-result + derived key + lookup then resend within "
                             "retention, escalate past it: clean; failure mode (escalation past "
                             "24 h in W2-W4) is true",
      "voice": "student-hurried"}),

    ("h14-good-hurried-stored-uuid",
     {"checkpoint": "before the charge goes out we save the intent (tool+args+key) to sqlite. "
                    "result saved when it comes back",
      "idempotency": "uuid made once when the intent is created, saved in that same intent "
                     "row, every retry reuses it",
      "resumeProtocol": "resume reads the journal, for open intents we GET the charge by that "
                        "uuid first. only resend (same uuid) if not found and still inside "
                        "the 24h window. older -> escalate",
      "tradeOff": "extra db write before every single call, slower. also if the journal file "
                  "is gone the uuid is gone w/ it"},
     {"passed": True, "why": "intent-and-result + stored key + lookup/retention/escalate: clean; "
                             "the extra synchronous write and the key living only in the journal "
                             "are true costs",
      "voice": "student-hurried"}),

    ("h14-good-hurried-resend-same-key",
     {"checkpoint": "journal intent first (w/ the key), then call, then journal the receipt",
      "idempotency": "idem key derived from runid+step+payload digest, never random",
      "resumeProtocol": "no lookup, stripe doesnt have one anyway. unfinished charge -> resend "
                        "w/ the same key as long as the intent is < 24h old (provider hands "
                        "back the original charge). past 24h dont resend, mark uncertain for "
                        "an operator",
      "failureMode": "after 24h even a w2 crash (never actually sent) gets escalated, someone "
                     "has to look and find nothing"},
     {"passed": True, "why": "intent-and-result + derived key + retry-within-retention: clean; "
                             "a W2 crash past retention does escalate although nothing was charged",
      "voice": "student-hurried"}),

    ("h14-good-hurried-reference",
     {"checkpoint": "intent goes in the journal before we hit the api, result after",
      "idempotency": "we put our own client ref on each charge (from run+step+args). provider "
                     "stores it + lets u search by it, it does NOT dedupe on it tho",
      "resumeProtocol": "resume: search provider by the ref for every open intent. hit -> take "
                        "that receipt. miss -> then send. never send w/o searching first",
      "failureMode": "since the ref doesnt dedupe, everything rides on the search being right. "
                     "if the providers search lagged behind its writes a stale miss = 2nd charge"},
     {"passed": True, "why": "intent-and-result + client reference + lookup before any send: "
                             "clean even after 25 h (references are searchable forever); a "
                             "lagging search would break it: a true limit the sweep does not model",
      "voice": "student-hurried"}),

    # ------------------------------------------------------------------ student-hurried, bad
    ("h14-bad-hurried-result-only",
     {"checkpoint": "after each tool returns we save its output to the db (like dbos steps)",
      "idempotency": "key from run id + step + args hash, same on every try",
      "resumeProtocol": "re-run the workflow, steps w/ saved output get skipped, the rest look "
                        "up by key first then resend",
      "failureMode": "one db write per step, a bit of latency"},
     {"passed": False, "why": "result-only checkpoint: a W3/W4 crash of the charge leaves no "
                              "intent, so recovered after 25 h the lookup finds nothing and the "
                              "resend is a second charge",
      "voice": "student-hurried"}),

    ("h14-bad-hurried-uuid-in-client",
     {"checkpoint": "intent journaled before the http call, receipt after",
      "idempotency": "Idempotency-Key header = uuid4(), set in our http wrapper right before "
                     "it sends",
      "resumeProtocol": "for unfinished intents look it up at the provider, if nothing there "
                        "resend",
      "failureMode": "past 24h we escalate instead of resending"},
     {"passed": False, "why": "the key is minted per request in the HTTP wrapper (random per "
                              "attempt): the lookup searches a key the provider never saw and "
                              "the resend charges twice in W3/W4, even at once",
      "voice": "student-hurried"}),

    ("h14-bad-hurried-always-human",
     {"checkpoint": "intent in the journal before every call and result after, standard wal",
      "idempotency": "derived key (run, step, payload digest)",
      "resumeProtocol": "anything w/o a result on resume -> straight to a human, we never "
                        "resend automatically, safest option",
      "failureMode": "ops gets paged on every crash in w2-w4"},
     {"passed": False, "why": "escalating every unknown outcome leaves the run stuck even when "
                              "recovered at once, inside retention where a lookup would settle "
                              "it: the sweep counts those cells as stuck",
      "voice": "student-hurried"}),

    # ------------------------------------------------------------------ textbook, good
    ("h14-good-textbook-full",
     {"checkpoint": "The runtime records a durable intent for each effectful call (tool name, "
                    "arguments and effect key) and commits it before the request is "
                    "dispatched; the outcome is recorded in a second write once the provider "
                    "answers.",
      "idempotency": "Each logical operation is named by a key computed from the run "
                     "identifier, the step position and a digest of the canonical payload. "
                     "Because none of these depends on the attempt, every retry carries the "
                     "identical key.",
      "resumeProtocol": "On resumption the journal is replayed. For an intent lacking an "
                        "outcome, the provider is first queried by the recorded key; a receipt "
                        "found is adopted as the result. If no charge is found and the intent "
                        "is younger than the provider's 24-hour key retention, the request is "
                        "resent with the same key. Beyond that horizon the run is placed in an "
                        "uncertain state for an operator.",
      "failureMode": "A crash between recording the intent and recording the outcome, "
                     "followed by a recovery more than a day later, cannot be settled "
                     "automatically: the run waits for a person, with at most one charge."},
     {"passed": True, "why": "intent-and-result + derived key + lookup, resend within "
                             "retention, escalate past it: clean; the stated failure mode is "
                             "exactly the escalated cells",
      "voice": "textbook"}),

    ("h14-good-textbook-stored-resend",
     {"checkpoint": "An intent record is committed to the run journal prior to each external "
                    "call, and the provider's response is appended after it returns.",
      "idempotency": "A random identifier is generated once, when the intent is created, and "
                     "is persisted as part of that intent; all subsequent attempts read it back "
                     "from the journal rather than generating a new one.",
      "resumeProtocol": "Since the provider offers no query endpoint, reconciliation is "
                        "performed by resending the request with the persisted key, which the "
                        "provider answers with the original result; this is done only while the "
                        "intent is within the provider's retention period. Older intents are "
                        "escalated to an operator and never resent.",
      "tradeOff": "The resend must reproduce the original parameters exactly, and any "
                  "recovery delayed past the retention period requires manual reconciliation."},
     {"passed": True, "why": "intent-and-result + stored key + retry-within-retention: clean; "
                             "manual reconciliation past retention is true of it",
      "voice": "textbook"}),

    ("h14-good-textbook-reference",
     {"checkpoint": "Before any effect is requested, the intention to request it is written "
                    "durably to the journal; its result is written afterwards.",
      "idempotency": "The provider does not deduplicate, so each charge is tagged with a "
                     "client reference derived from the run, step and payload. The provider "
                     "stores this reference and allows charges to be searched by it.",
      "resumeProtocol": "Recovery replays the journal and, for every intent without a result, "
                        "searches the provider by reference before doing anything else. A match "
                        "is recorded as the outcome; only the absence of a match leads to a "
                        "(first) submission.",
      "tradeOff": "Correctness rests entirely on the search being complete and current at the "
                  "time of recovery; a provider whose search index lags would turn a stale "
                  "'not found' into a second charge, and the search adds a round trip per "
                  "unresolved call."},
     {"passed": True, "why": "intent-and-result + client reference + lookup: clean at once and "
                             "after 25 h; dependence on an accurate search is a true trade-off",
      "voice": "textbook"}),

    ("h14-good-textbook-stored-lookup",
     {"checkpoint": "Write-ahead journaling: the intent, including its idempotency key, is "
                    "committed before dispatch, and the outcome after.",
      "idempotency": "The key is a UUID created a single time per logical operation and "
                     "stored with the intent, so that a second worker resuming the run uses "
                     "the same key as the first.",
      "resumeProtocol": "Unresolved intents are reconciled by a lookup under the stored key. "
                        "A negative answer is trusted only within the retention window, in "
                        "which case the call is resent under the same key; otherwise the run "
                        "is escalated.",
      "failureMode": "Each effectful call costs an additional synchronous write before it can "
                     "be sent, which adds latency to every step."},
     {"passed": True, "why": "intent-and-result + stored key + lookup within retention, "
                             "escalation past it: clean; the extra synchronous write is a true "
                             "cost",
      "voice": "textbook"}),

    # ------------------------------------------------------------------ textbook, bad
    ("h14-bad-textbook-snapshot",
     {"checkpoint": "The agent's state is checkpointed periodically, every second step, in "
                    "the manner of a graph checkpointer saving each super-step.",
      "idempotency": "Keys are derived deterministically from the run identifier, the step "
                     "index and a digest of the arguments.",
      "resumeProtocol": "The run resumes from the most recent checkpoint; calls without a "
                        "recorded result are looked up by key before being resent.",
      "failureMode": "Work performed since the last checkpoint is repeated after a crash."},
     {"passed": False, "why": "periodic snapshot loses the model's decision since the last "
                              "snapshot; re-asked, the model picks another amount, the derived "
                              "key changes, the lookup misses and W3-W5 charge twice",
      "voice": "textbook"}),

    ("h14-bad-textbook-compensate",
     {"checkpoint": "An intent is recorded before each call and the result after it.",
      "idempotency": "A key derived from the run, step and payload digest accompanies every "
                     "request.",
      "resumeProtocol": "Any call whose outcome is unknown at recovery is treated as failed: "
                        "the run is aborted and compensating actions (refunds) are issued for "
                        "every effect that has been recorded.",
      "tradeOff": "The order may have to be placed again by the customer, but no money is "
                  "ever retained incorrectly."},
     {"passed": False, "why": "fail-and-compensate: a charge in W3/W4 has no receipt, so nothing "
                              "refunds it (wrong result), and W2 loses the order; the trade-off "
                              "claims a safety the design lacks",
      "voice": "textbook"}),

    ("h14-bad-textbook-false-safety",
     {"checkpoint": "The intent is journaled before dispatch and the result once the provider "
                    "responds.",
      "idempotency": "An idempotency key derived from run, step and payload digest, identical "
                     "across attempts.",
      "resumeProtocol": "Replay the journal; look up unresolved charges by key; resend with the "
                        "same key when they are not found; escalate once the key may have been "
                        "pruned.",
      "failureMode": "None of consequence: the combination guarantees exactly-once charging "
                     "with no human involvement, regardless of how long recovery takes."},
     {"passed": False, "why": "the design is the clean one, but the failure mode is false: "
                              "recovered after 25 h a W2-W4 crash escalates to an operator, "
                              "which the answer itself describes",
      "voice": "textbook"}),

    # ------------------------------------------------------------------ bullet-lists, good
    ("h14-good-bullets-derived-lookup",
     {"checkpoint": "- intent (tool, args, key) -> journal, committed\n- then the call\n- "
                    "then the result -> journal",
      "idempotency": "- key = run id + step + sha256(args)\n- same on attempt 1, 2, 3...\n- "
                     "sent as Idempotency-Key",
      "resumeProtocol": "- replay journal\n- open intent? -> lookup by key\n  - found: "
                        "record receipt, move on\n  - not found, < 24 h: resend, same key\n  "
                        "- not found, > 24 h: escalate (UNCERTAIN)",
      "failureMode": "- late recovery (> 24 h) after a W2/W3/W4 crash = operator needed\n- "
                     "lookup is one more request on every resume"},
     {"passed": True, "why": "intent-and-result + derived key + lookup/retention/escalate: "
                             "clean; both listed costs are true",
      "voice": "bullet-lists"}),

    ("h14-good-bullets-retention-resend",
     {"checkpoint": "* write intent before sending\n* write outcome after",
      "idempotency": "* deterministic key from run, step, payload hash\n* never regenerated",
      "resumeProtocol": "* unknown outcome: resend with the recorded key, provider replays "
                        "its stored answer\n* only while the intent is younger than the "
                        "provider's 24 h retention\n* older: stop, hand to operator, no resend",
      "tradeOff": "* no lookup means we rely on the provider's dedupe, so the retry must send "
                  "identical params\n* past 24 h the run waits for a human"},
     {"passed": True, "why": "intent-and-result + derived key + retry-within-retention: clean; "
                             "identical params and the operator wait are true",
      "voice": "bullet-lists"}),

    ("h14-good-bullets-reference",
     {"checkpoint": "1. journal the intent\n2. send\n3. journal the receipt",
      "idempotency": "1. client reference on every charge, built from run/step/args\n2. the "
                     "provider keeps it forever and can search by it\n3. it is not a dedupe "
                     "key, a second request with it = second charge",
      "resumeProtocol": "1. replay\n2. every intent with no receipt: search by reference\n3. "
                        "found -> adopt receipt; not found -> first send\n4. never send before "
                        "the search",
      "failureMode": "1. no dedupe at the provider: any code path that sends before "
                     "searching would double charge\n2. a search per open intent on every "
                     "resume"},
     {"passed": True, "why": "intent-and-result + client reference + lookup first: clean in all "
                             "cells; dependence on search-before-send and its cost are true",
      "voice": "bullet-lists"}),

    ("h14-good-bullets-stored-resend",
     {"checkpoint": "- intent row committed before dispatch\n- outcome row after",
      "idempotency": "- random key generated once per operation\n- stored inside the intent "
                     "row\n- every retry reads it from there",
      "resumeProtocol": "- open intent within the key window: resend w/ stored key\n- outside "
                        "the window: escalate, never resend",
      "tradeOff": "- the key only exists in our journal: lose the journal and an operator "
                  "cannot match the charge\n- a W2 crash found after a day still needs a "
                  "human although nothing was sent"},
     {"passed": True, "why": "intent-and-result + stored key + retry-within-retention: clean; "
                             "both trade-offs are true",
      "voice": "bullet-lists"}),

    # ------------------------------------------------------------------ bullet-lists, bad
    ("h14-bad-bullets-blind-same-key",
     {"checkpoint": "- intent journaled before the call\n- result after",
      "idempotency": "- key derived from run + step + payload\n- identical on every retry",
      "resumeProtocol": "- unfinished call: resend it with the same key\n- the provider "
                        "dedupes, so no need to ask first",
      "failureMode": "- a slow provider could make the resend wait"},
     {"passed": False, "why": "blind resend with no retention check: recovered after 25 h the "
                              "key is pruned and a W3/W4 resend is a second charge",
      "voice": "bullet-lists"}),

    ("h14-bad-bullets-reference-resend",
     {"checkpoint": "- intent first, result second",
      "idempotency": "- our own reference on each charge (run/step/args)\n- provider stores it "
                     "with the charge",
      "resumeProtocol": "- within 24 h: resend with the same reference\n- after 24 h: escalate",
      "failureMode": "- past a day a human has to settle it"},
     {"passed": False, "why": "a client reference is not deduplicated: resending with it (no "
                              "search) charges twice in W3/W4, at once and after 25 h",
      "voice": "bullet-lists"}),

    ("h14-bad-bullets-no-key-lookup",
     {"checkpoint": "- intent journaled before each call\n- result after",
      "idempotency": "- none, we don't send keys; the lookup makes them unnecessary",
      "resumeProtocol": "- ask the provider whether the charge went through\n- only resend if "
                        "it says no",
      "failureMode": "- an extra request per unfinished call"},
     {"passed": False, "why": "no key or reference: the lookup has nothing to search by, so "
                              "every W2-W4 crash stays stuck even at once",
      "voice": "bullet-lists"}),

    # ------------------------------------------------------------------ event-sourcing, good
    ("h14-good-events-derived",
     {"checkpoint": "Every step appends to the run's event log: ChargeRequested{args, key} is "
                    "appended and fsynced before the activity is dispatched, ChargeSucceeded "
                    "{receipt} after.",
      "idempotency": "The key is a pure function of stream id, event position and payload "
                     "digest, so rebuilding from the log yields the same key.",
      "resumeProtocol": "Fold the log. A ChargeRequested with no matching ChargeSucceeded is "
                        "open: query the provider by key, append ChargeSucceeded if found; if "
                        "not found and the request event is under 24 h old, re-dispatch with "
                        "the same key; if older, append NeedsOperator and park the stream.",
      "failureMode": "Streams parked by NeedsOperator after a late recovery need manual "
                     "resolution.",
      "tradeOff": "One extra durable append (and fsync) before every external call."},
     {"passed": True, "why": "event log = intent-and-result; derived key; lookup, resend within "
                             "retention, escalate past it: clean; parking past retention is true",
      "voice": "event-sourcing"}),

    ("h14-good-events-stored",
     {"checkpoint": "Workflow history: an ActivityScheduled event (carrying its input and "
                    "key) is committed before the worker runs the activity; ActivityCompleted "
                    "records the result.",
      "idempotency": "When the activity is scheduled we mint a UUID and put it in the "
                     "ActivityScheduled event; retries of the activity read it from history.",
      "resumeProtocol": "On replay, scheduled-but-not-completed activities are first checked "
                        "against the provider by that UUID; found means completed; not found "
                        "within the key retention means retry with the same UUID; past "
                        "retention the workflow is suspended for a human signal.",
      "tradeOff": "History grows by two events per effect, and each effect waits for the "
                  "scheduled event to be durable before it can run."},
     {"passed": True, "why": "intent-and-result (scheduled event) + stored key + lookup within "
                             "retention, escalate past: clean; the write cost is true",
      "voice": "event-sourcing"}),

    ("h14-good-events-resend",
     {"checkpoint": "PaymentIntended is appended to the event store (committed) before the "
                    "call; PaymentCaptured or PaymentDeclined after it.",
      "idempotency": "Key derived from aggregate id + sequence number + args hash.",
      "resumeProtocol": "Projection finds PaymentIntended without a follow-up. If the intent's "
                        "timestamp is inside the provider's 24 h window, re-issue the request "
                        "with that key (the provider replays the first answer). Otherwise emit "
                        "PaymentNeedsReview and stop; no automatic resend.",
      "failureMode": "Anything discovered after the window ends up in the review queue, "
                     "including intents that never actually reached the provider."},
     {"passed": True, "why": "intent-and-result + derived key + retry-within-retention: clean; "
                             "W2 past retention escalates though nothing was sent: true",
      "voice": "event-sourcing"}),

    ("h14-good-events-reference",
     {"checkpoint": "ChargeAttemptStarted{reference} is written to the log before the HTTP "
                    "call, ChargeAttemptFinished after.",
      "idempotency": "The reference is derived from the run, step and payload and attached to "
                     "the charge as metadata; the provider indexes it permanently but will not "
                     "reject a duplicate.",
      "resumeProtocol": "Replaying the log, any Started without Finished triggers a search by "
                        "reference. Match: append Finished with that charge. No match: send "
                        "(first time). We never re-send without searching.",
      "tradeOff": "Every open attempt costs a provider search at recovery, and we depend on "
                  "that search being strongly consistent."},
     {"passed": True, "why": "intent-and-result + client reference + lookup: clean even after "
                             "25 h; the search cost and consistency dependence are true",
      "voice": "event-sourcing"}),

    # ------------------------------------------------------------------ event-sourcing, bad
    ("h14-bad-events-completed-only",
     {"checkpoint": "We event-source the run: a ChargeCompleted event with the receipt is "
                    "appended as soon as the payment API returns.",
      "idempotency": "The key is derived from the stream id, step and payload digest.",
      "resumeProtocol": "Rebuild state from the events; a step with no ChargeCompleted is "
                        "looked up by key, then resent.",
      "failureMode": "If the append fails after the API returns we look the charge up."},
     {"passed": False, "why": "only the completion is logged (result-only): a W3/W4 crash "
                              "leaves nothing, so after 25 h the pruned key's lookup misses and "
                              "the resend charges twice",
      "voice": "event-sourcing"}),

    ("h14-bad-events-activity-key",
     {"checkpoint": "Temporal-style history: ActivityScheduled before, ActivityCompleted after.",
      "idempotency": "The activity code generates an idempotency key at the start of each "
                     "execution and passes it to the payment API.",
      "resumeProtocol": "Timed-out or unfinished activities are retried by the engine after "
                        "checking the provider for the charge.",
      "failureMode": "Retries add latency."},
     {"passed": False, "why": "a key generated inside each activity execution is a new key per "
                              "attempt: the check searches the wrong key and W3/W4 charge twice",
      "voice": "event-sourcing"}),

    ("h14-bad-events-in-memory",
     {"checkpoint": "Events are kept in an in-process event bus and projected into the "
                    "agent's state; the bus is the source of truth.",
      "idempotency": "Key derived from run id, step and the payload hash.",
      "resumeProtocol": "After a restart, replay the events and look up any charge that has "
                        "no result event.",
      "failureMode": "Replaying a long stream takes time."},
     {"passed": False, "why": "events held in memory are no checkpoint: a restart has nothing "
                              "to replay, re-asks the model (new amount, new key) and charges "
                              "again",
      "voice": "event-sourcing"}),

    # ------------------------------------------------------------------ pseudo-code, good
    ("h14-good-pseudo-derived",
     {"checkpoint": "journal.commit(Intent(step, tool, args, key)); r = provider.charge(...); "
                    "journal.commit(Result(step, r))",
      "idempotency": "key = f'{run_id}:{step}:{sha256(canonical(args))}'  # no attempt number, "
                     "no clock",
      "resumeProtocol": "for i in journal.intents_without_result():\n    hit = provider.lookup"
                        "(i.key)\n    if hit: journal.commit(Result(i.step, hit))\n    elif now "
                        "- i.sent_at < RETENTION - margin: provider.charge(..., key=i.key)\n"
                        "    else: run.mark_uncertain('key may be pruned')",
      "failureMode": "# else-branch: > 24h after a W2-W4 crash an operator has to resolve it"},
     {"passed": True, "why": "intent-and-result + derived key + lookup/retention/escalate: "
                             "clean; the escalation branch is the true failure mode",
      "voice": "pseudo-code"}),

    ("h14-good-pseudo-stored-resend",
     {"checkpoint": "intent = Intent(args, key=uuid4().hex)\ndb.insert(intent); db.commit()  "
                    "# before send\nreply = send(intent)\ndb.insert(Outcome(intent.id, reply))",
      "idempotency": "the uuid is created once in Intent(...) and persisted; a retry does "
                     "db.get(intent.id).key, never uuid4() again",
      "resumeProtocol": "if intent.age < provider.retention: send(intent)  # same key, "
                        "provider returns original\nelse: escalate(intent)  # no resend",
      "tradeOff": "// the key is only in our db, and a late W2 crash escalates although "
                  "nothing was charged"},
     {"passed": True, "why": "intent-and-result + stored key + retry-within-retention: clean; "
                             "stated costs are true",
      "voice": "pseudo-code"}),

    ("h14-good-pseudo-reference",
     {"checkpoint": "log.append(intent) -> fsync -> call -> log.append(result)",
      "idempotency": "ref = digest(run_id, step, args); charge(ref=ref, ...)  // provider "
                     "stores ref, searchable, but does NOT dedupe",
      "resumeProtocol": "for open in log.open_intents():\n  found = provider.find_by_reference"
                        "(open.ref)\n  result = found if found else charge(ref=open.ref, ...)\n"
                        "  log.append(result)",
      "failureMode": "if find_by_reference ever lags behind writes, else-branch double charges; "
                     "and every open intent costs one search on resume"},
     {"passed": True, "why": "intent-and-result + client reference + lookup first: clean after "
                             "25 h too; search lag and the search cost are true limits",
      "voice": "pseudo-code"}),

    ("h14-good-pseudo-derived-resend",
     {"checkpoint": "WAL: write(INTENT, key, args); commit; call(); write(DONE, key, "
                    "receipt); commit",
      "idempotency": "key := hash(runID, stepIndex, payloadDigest) -- deterministic",
      "resumeProtocol": "on resume: for each INTENT w/o DONE { if age(INTENT) < 24h - margin "
                        "{ call(same key) } else { park_for_operator() } }",
      "tradeOff": "-- an extra commit per call; and the safety margin means a run recovered "
                  "in the last minute before 24h is parked as well"},
     {"passed": True, "why": "intent-and-result + derived key + retry-within-retention (with "
                             "margin): clean; both costs are true",
      "voice": "pseudo-code"}),

    ("h14-good-pseudo-stored-lookup",
     {"checkpoint": "with tx: store.append('intent', step, args, key)\nres = tool(args, key)"
                    "\nwith tx: store.append('result', step, res)",
      "idempotency": "key = store.get_or_create_key(run_id, step)  # random once, kept with "
                     "the intent",
      "resumeProtocol": "pending = store.pending()\nfor p in pending:\n  r = provider.get(p.key)"
                        "\n  if r: store.append('result', p.step, r)\n  elif p.within_retention"
                        "(): tool(p.args, p.key)\n  else: raise NeedsOperator(p)",
      "failureMode": "NeedsOperator after a late recovery: one charge at most, but a person "
                     "must close it"},
     {"passed": True, "why": "intent-and-result + stored key + lookup/retention/escalate: clean; "
                             "the operator case is true",
      "voice": "pseudo-code"}),

    # ------------------------------------------------------------------ pseudo-code, bad
    ("h14-bad-pseudo-after-call",
     {"checkpoint": "res = charge(args, key)\njournal.save(step, res)  # checkpoint the result",
      "idempotency": "key = sha256(run_id + str(step) + json(args))",
      "resumeProtocol": "if not journal.has(step): r = lookup(key) or charge(args, key)",
      "failureMode": "# costs one journal write per step"},
     {"passed": False, "why": "result-only checkpoint and a lookup that trusts 'not found' at any "
                              "age: after 25 h a W3/W4 charge's key is pruned and the charge "
                              "happens twice",
      "voice": "pseudo-code"}),

    ("h14-bad-pseudo-timestamp-key",
     {"checkpoint": "journal.commit(Intent(step, args)); r = pay(args); journal.commit(result)",
      "idempotency": "def pay(args):\n    key = f'{run_id}-{step}-{int(time.time())}'  # unique "
                     "per request\n    return api.charge(args, idempotency_key=key)",
      "resumeProtocol": "key = f'{run_id}-{step}-{int(time.time())}'\nr = provider.lookup(key)"
                        "\nif not r and fresh(intent): pay(args) else: escalate()",
      "failureMode": "late recoveries escalate"},
     {"passed": False, "why": "the key is rebuilt from the clock inside pay() on every request "
                              "and never journaled (a key per attempt): the resume lookup and "
                              "resend use a key the first send never carried, so W3/W4 charge "
                              "twice",
      "voice": "pseudo-code"}),

    ("h14-bad-pseudo-trust-not-found",
     {"checkpoint": "db.put(intent); db.sync(); result = api(intent); db.put(result)",
      "idempotency": "intent.key = derive(run, step, args)",
      "resumeProtocol": "for i in db.open():\n  r = api.lookup(i.key)\n  db.put(r if r else "
                        "api(i))  # not found => never happened",
      "failureMode": "none; lookup makes every window safe"},
     {"passed": False, "why": "'not found' is trusted regardless of age: past the 24 h "
                              "retention the lookup misses a W3/W4 charge and the resend charges "
                              "twice; the failure mode claims a false safety",
      "voice": "pseudo-code"}),

    # ------------------------------------------------------------------ keyword-stuffed, bad
    ("h14-bad-stuffed-soup",
     {"checkpoint": "Write-ahead log plus periodic snapshots plus transactional outbox, "
                    "result caching and checkpointing at every super-step.",
      "idempotency": "Idempotency keys (UUIDv4 per request, or derived from run id/step/hash), "
                     "client references and dedupe tables.",
      "resumeProtocol": "Replay, reconcile, lookup, retry with exponential backoff, saga "
                        "compensation, or escalate, whichever fits.",
      "failureMode": "Exactly-once semantics via durable execution."},
     {"passed": False, "why": "keyword soup: each field lists several exclusive mechanisms "
                              "(snapshot and WAL, random and derived keys, retry and compensate), "
                              "so no design is chosen; the failure mode claims a false safety",
      "voice": "keyword-stuffed"}),

    ("h14-bad-stuffed-buzz",
     {"checkpoint": "Durable execution engine with persistent state management and "
                    "fault-tolerant checkpoint semantics.",
      "idempotency": "Idempotent-by-design payment flows leveraging idempotency best practices.",
      "resumeProtocol": "Resilient auto-retry with exponential backoff, jitter and circuit "
                        "breakers for transient faults.",
      "failureMode": "Highly available, no single point of failure."},
     {"passed": False, "why": "buzzwords with no mechanism: no point at which anything is "
                              "persisted, no key source; resume is a blind retry; the failure "
                              "mode names no cost",
      "voice": "keyword-stuffed"}),

    ("h14-bad-stuffed-saga",
     {"checkpoint": "Outbox-pattern write-ahead intent journaling (durable, fsynced, ACID) "
                    "before dispatch, with result persistence after.",
      "idempotency": "Deterministic derived idempotency key (run id, step, payload digest), "
                     "payload-bound, retry-stable.",
      "resumeProtocol": "Saga orchestration: on any unknown outcome at resume, roll back via "
                        "compensating transactions (refund) and fail the workflow cleanly.",
      "failureMode": "Saga compensation guarantees consistency and atomicity across services."},
     {"passed": False, "why": "resume is fail-and-compensate: a W3/W4 charge has no receipt, so "
                              "no refund covers it (wrong result) and W2 loses the order; the "
                              "failure mode is a false safety",
      "voice": "keyword-stuffed"}),

    # ------------------------------------------------------------------ self-contradicting, bad
    ("h14-bad-contra-stateless",
     {"checkpoint": "Workers are stateless; we deliberately don't persist anything about the "
                    "run, to keep them simple.",
      "idempotency": "Key derived from run id + step + payload digest.",
      "resumeProtocol": "Replay the journal up to the last recorded step and look up the open "
                        "intent by key.",
      "failureMode": "A journal replay can be slow for long runs."},
     {"passed": False, "why": "contradiction: replaying a journal that the checkpoint says is "
                              "never written; with nothing persisted the model is re-asked, the "
                              "key changes and the charge repeats",
      "voice": "self-contradicting", "contradiction": True}),

    ("h14-bad-contra-random-failure",
     {"checkpoint": "Intent committed before dispatch, result after.",
      "idempotency": "A key derived from the run, the step and the payload digest, the same "
                     "on every attempt.",
      "resumeProtocol": "Look the charge up by key; resend with the same key within 24 h; "
                        "escalate after.",
      "failureMode": "Because the key is regenerated randomly on each retry, a crash in W3 "
                     "recovered at once can still charge twice."},
     {"passed": False, "why": "contradiction: the failure mode says the key is random per "
                              "retry while the idempotency field derives it; for the design as "
                              "described the claimed W3 double charge is false",
      "voice": "self-contradicting", "contradiction": True}),

    ("h14-bad-contra-intent-after",
     {"checkpoint": "We journal the intent before the call, but only once the provider has "
                    "confirmed the charge, so we never record something that didn't happen.",
      "idempotency": "Derived key: run id, step, args digest.",
      "resumeProtocol": "For intents without results, look up by key, resend within the "
                        "retention window, escalate after it.",
      "failureMode": "Past 24 h, W2-W4 crashes wait for an operator."},
     {"passed": False, "why": "contradiction: an intent written only after the provider "
                              "confirmed is a result-only checkpoint; W3/W4 leave no intent, "
                              "so after 25 h the pruned key's resend charges twice",
      "voice": "self-contradicting", "contradiction": True}),
]
