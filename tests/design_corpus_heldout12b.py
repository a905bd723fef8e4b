"""Held-out corpus HELDOUT12B: 36 designOutline() answers, written blind to the grader.

Written blind (stop s11, writerB): its author read the lesson 05b notebook, lessons 04 and 05
and minirt_course/scenarios/design_payment.py (the crash sweep), never the grader, its
vocabulary, its tests or the other corpora. It is measured once; do not tune the reader on it.

Invariant: 18 entries with ``passed: True`` (an outline whose design the sweep finds clean in
every window, recovered at once and after 25 h, with a failure mode or trade-off that is true
of it) and 18 with ``passed: False`` (a plausible mistake, named in ``why``); entry names are
unique; six voices (event-log, bullet-points, casual, formal-spec, stuffed, contradicting), six
entries each. Each verdict is a careful human reading of the text, checked against the sweep
rules of design_payment.py. Not guaranteed: that the grader agrees (that is what is measured),
nor that the voices cover every way learners write.
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT12B: list[Entry] = [
    # ------------------------------------------------------------------ good: event-log
    ("h12b-good-timeline-derived-lookup",
     {"checkpoint": "t0: append {intent, tool=charge, args, key} to runs.sqlite and COMMIT. "
                    "t1: send the request. t2: append {result, receipt}. Nothing leaves the "
                    "process before t0 is on disk.",
      "idempotency": "key = hash(run_id, step_no, canonical args), computed at t0 and stored in "
                     "the intent row; any resend reuses exactly that value.",
      "resumeProtocol": "restart: replay the journal -> for each intent without a result, GET "
                        "the charge by key. found -> append result. not found and intent < 24h "
                        "old -> resend, same key. not found and older -> mark UNCERTAIN, page "
                        "on-call.",
      "failureMode": "crash anywhere between t0 and t2 and restart more than a day later -> the "
                     "run is parked for a human; order A-42 sits unpaid/unbooked until someone "
                     "checks the provider dashboard."},
     {"passed": True, "why": "intent before dispatch, derived key, lookup then same-key resend "
                             "within 24 h, escalate past it; failure mode (operator past 24 h) "
                             "is true", "voice": "event-log"}),

    ("h12b-good-sql-log-stored-uuid",
     {"checkpoint": "[step 1] BEGIN; INSERT INTO journal(kind='intent', step=1, tool='charge', "
                    "args, key); COMMIT;  -- before any network I/O\n[step 1] provider call\n"
                    "[step 1] INSERT INTO journal(kind='result', step=1, receipt)",
      "idempotency": "uuid4 generated once, in the same transaction that writes the intent row, "
                     "and stored in that row. Later attempts read it back from the row; they "
                     "never mint a new one.",
      "resumeProtocol": "recover: load rows -> intent without result => search provider by that "
                        "uuid -> hit: record the receipt; miss and intent.created_at within 24h: "
                        "resend carrying the uuid; miss after 24h: stop, status=needs_operator",
      "tradeOff": "One extra fsync'd write per call before we even talk to the provider, so "
                  "every charge pays a bit of latency."},
     {"passed": True, "why": "stored key journaled with the intent (the same on every attempt), "
                             "lookup first, resend within retention, escalate past it; the "
                             "extra write per call is a true cost", "voice": "event-log"}),

    ("h12b-good-clock-stamped-resend-in-window",
     {"checkpoint": "10:00:00.000 intent journaled (charge 42.00 EUR, key k1), committed\n"
                    "10:00:00.004 request out\n10:00:00.350 receipt journaled",
      "idempotency": "k1 = run id + step + digest of the charge arguments. Attempt 1, 2, 3 all "
                     "send k1.",
      "resumeProtocol": "10:05 worker B claims the run, sees intent k1 with no receipt, intent "
                        "is 5 min old -> resends the identical request with Idempotency-Key k1; "
                        "the provider hands back the original charge; receipt journaled. Had "
                        "the intent been 25 h old: no resend at all, the run goes uncertain and "
                        "waits for ops.",
      "failureMode": "We never ask before resending, so this is only safe because the provider "
                     "dedups on k1 while it remembers it; the resend has to carry the exact same "
                     "parameters, and past 24 h somebody reconciles by hand."},
     {"passed": True, "why": "intent + derived key + same-key resend only within retention, "
                             "escalate past it (retry-within-retention is clean); failure mode "
                             "true", "voice": "event-log"}),

    # ------------------------------------------------------------------ good: bullet-points
    ("h12b-good-bullets-client-reference-search",
     {"checkpoint": "- journal the intent (tool, args, our reference) and commit it before the "
                    "call\n- journal the receipt when it comes back",
      "idempotency": "- every charge carries our own reference string, built from run id and "
                     "step\n- the provider stores it with the charge and lets us search by it "
                     "(it does NOT dedupe on it, it's just searchable)",
      "resumeProtocol": "- replay the journal\n- open intent? search the provider for that "
                        "reference before doing anything else\n- found: that charge is the "
                        "result\n- not found: it never happened, send it with the same "
                        "reference\n- the provider keeps references indefinitely, so this works "
                        "even days later",
      "tradeOff": "- one search request per recovered step\n- only works with a provider that "
                  "exposes search by our reference; with one that doesn't, we'd have to "
                  "escalate instead"},
     {"passed": True, "why": "intent + client reference + lookup is clean at once and after "
                             "25 h (references are searchable forever); trade-off true",
      "voice": "bullet-points"}),

    ("h12b-good-bullets-w2-false-alarm",
     {"checkpoint": "* intent row committed before the charge goes out\n* result row after",
      "idempotency": "* key = sha256(run_id | step | args)\n* identical on every retry and after "
                     "restarts",
      "resumeProtocol": "* replay completed steps from the journal, the model is not asked "
                        "again\n* dangling intent -> look it up by key\n* found -> use it; "
                        "missing and < 24h -> resend same key; missing and > 24h -> escalate",
      "tradeOff": "* if the worker is down for more than a day, every charge that crashed between "
                  "intent and result ends with a human, even one where the request never left and nothing "
                  "was charged"},
     {"passed": True, "why": "canonical safe design; trade-off true (W2 past retention is "
                             "escalated although nothing was charged)", "voice": "bullet-points"}),

    ("h12b-good-bullets-stored-key-no-lookup",
     {"checkpoint": "1. persist intent + key to the run store, commit\n2. call provider\n"
                    "3. persist response",
      "idempotency": "Random UUID minted once when the intent is created and saved inside it; "
                     "retries and other workers read it from the store.",
      "resumeProtocol": "Unfinished call whose intent is younger than the provider's 24 h key "
                        "retention (minus a margin): resend it with the stored key, the provider "
                        "answers with the original charge. Older: don't send, leave the run "
                        "uncertain for an operator.",
      "failureMode": "Needs the resent request to have exactly the same payload, and past the "
                     "window it can't settle anything by itself: the run waits for an operator."},
     {"passed": True, "why": "stored key journaled with the intent, same-key resend within "
                             "retention, escalate past it: clean; failure mode true",
      "voice": "bullet-points"}),

    ("h12b-good-bullets-terse",
     {"checkpoint": "- intent before the call, result after (write-ahead)",
      "idempotency": "- derived key: run id + step + args hash",
      "resumeProtocol": "- lookup by key; resend same key if not found inside 24h; else escalate",
      "failureMode": "- a charge left open for more than 24h needs manual settlement"},
     {"passed": True, "why": "terse but complete safe design; failure mode true",
      "voice": "bullet-points"}),

    # ------------------------------------------------------------------ good: casual
    ("h12b-good-casual-write-it-down-first",
     {"checkpoint": "so before I hit the payment API I write down 'about to charge 42 EUR for "
                    "A-42, key xyz' in the run's db and commit it. when the answer comes back I "
                    "write that down too.",
      "idempotency": "the key is just run id + step number + a hash of what we're charging, so "
                     "a retry is literally the same key and the provider sees a repeat, not a "
                     "new charge",
      "resumeProtocol": "when it comes back up it replays what's written down (doesn't ask the "
                        "model again), and for anything that says 'about to charge' with no "
                        "answer it asks the provider 'do you have key xyz?'. yes -> cool, record "
                        "it. no and it's been less than a day -> send again, same key. no and "
                        "it's been more than a day -> I don't trust that 'no' anymore, so it "
                        "stops and pings a person.",
      "failureMode": "the annoying bit is the more-than-a-day case: someone has to go dig "
                     "through the provider's dashboard before the order can move on."},
     {"passed": True, "why": "intent first, derived key, lookup, resend in window, escalate "
                             "past it; failure mode true", "voice": "casual"}),

    ("h12b-good-casual-reference-never-expires",
     {"checkpoint": "we log the intent (what we're about to charge + our ref) and commit before "
                    "the request, then log what came back",
      "idempotency": "our own order ref goes on the charge. the provider doesn't dedupe on it, "
                     "it just stores it and you can search for it",
      "resumeProtocol": "on restart, anything logged as 'about to charge' with no answer -> "
                        "search the provider for the ref. there = done, take that receipt. not "
                        "there = never went through, send it again with the same ref. their "
                        "search doesn't expire so this is fine even if we were down for days",
      "tradeOff": "costs an extra search call every time we recover a step, and we're stuck "
                  "with providers that let you search by your own reference"},
     {"passed": True, "why": "intent + client reference + lookup is clean in every window, at "
                             "once and after 25 h; trade-off true", "voice": "casual"}),

    ("h12b-good-casual-uuid-in-the-log",
     {"checkpoint": "intent goes in the journal first (committed), then the call, then the "
                    "result",
      "idempotency": "i make a random id one time, when i write the intent, and it lives in that "
                     "journal entry. every retry uses that id, a new worker reads it from there",
      "resumeProtocol": "restart -> anything with an intent but no result gets looked up by that "
                        "id. found = record it. not found and the intent is under 24h old = "
                        "resend with the same id. older than that = leave it for a human",
      "failureMode": "it's one more write before every call so it's a bit slower, and a charge "
                     "left hanging for over a day waits for a person"},
     {"passed": True, "why": "stored key kept in the journaled intent, lookup, resend in window, "
                             "escalate past it; failure mode true", "voice": "casual"}),

    # ------------------------------------------------------------------ good: formal-spec
    ("h12b-good-spec-shall-derived-lookup",
     {"checkpoint": "The runtime SHALL durably commit an intent record (tool, canonical "
                    "arguments, effect key) before dispatching any effectful call, and SHALL "
                    "append the outcome record after the provider responds.",
      "idempotency": "The effect key SHALL be a deterministic function of run identifier, step "
                     "position and the digest of the canonical arguments. It SHALL NOT vary "
                     "between attempts.",
      "resumeProtocol": "On resumption, journaled steps SHALL be replayed. For each intent "
                        "lacking an outcome the runtime SHALL query the provider by effect key. "
                        "If found, the receipt SHALL be recorded. If not found and the intent is "
                        "younger than the provider's key retention (24 h), the call SHALL be "
                        "resent under the same key; otherwise the run SHALL enter UNCERTAIN "
                        "pending operator resolution.",
      "tradeOff": "Latency: each effectful call incurs one additional synchronous durable write "
                  "before dispatch."},
     {"passed": True, "why": "the safe design stated formally; latency cost is true",
      "voice": "formal-spec"}),

    ("h12b-good-spec-resend-within-retention",
     {"checkpoint": "Intent-before-dispatch: an intent entry is committed to the run journal "
                    "prior to each provider request; the result entry is committed on return.",
      "idempotency": "Idempotency-Key := H(run_id, step, args). Stable across attempts, "
                     "workers and restarts.",
      "resumeProtocol": "R1. An unresolved intent aged below the provider retention window "
                        "(24 h, less a safety margin) is resent with its recorded key; the "
                        "provider returns the original result if the first request was applied. "
                        "R2. An unresolved intent aged at or beyond that window is not resent; "
                        "the run is escalated to an operator.",
      "failureMode": "F1. No read-before-write: correctness within the window rests entirely on "
                     "provider-side deduplication. F2. Beyond the window, resolution is manual."},
     {"passed": True, "why": "retry-within-retention with intent and derived key is clean; both "
                             "stated limits are true", "voice": "formal-spec"}),

    ("h12b-good-spec-reference-lookup",
     {"checkpoint": "Each charge is preceded by a committed journal entry recording the intended "
                    "call and its client reference; the provider's response is journaled on "
                    "receipt.",
      "idempotency": "A client reference, derived from the run identifier and step, is attached "
                     "to every charge. The provider persists it and supports search by it; it "
                     "does not deduplicate on it.",
      "resumeProtocol": "For every journaled intent without a response: search the provider by "
                        "client reference. A match is recorded as the step's result. Absence is "
                        "conclusive, since references are retained indefinitely, and the charge "
                        "is then submitted once with the same reference.",
      "tradeOff": "Recovery requires one provider search per open intent and presumes a "
                  "provider offering reference search; providers without it are not supported."},
     {"passed": True, "why": "intent + client reference + lookup: clean at once and after 25 h; "
                             "trade-off true", "voice": "formal-spec"}),

    ("h12b-good-spec-stored-key-w2-escalation",
     {"checkpoint": "Write-ahead: intent (including its key) committed before dispatch; outcome "
                    "committed after.",
      "idempotency": "The key is a random 128-bit token generated once per logical operation at "
                     "intent creation and persisted within the intent; all attempts reuse the "
                     "persisted token.",
      "resumeProtocol": "Unresolved intents are reconciled by provider lookup on the persisted "
                        "token. Not found within 24 h of the intent: resend with that token. "
                        "Not found after 24 h: escalate; no automatic resend.",
      "failureMode": "A crash after the intent commit but before dispatch, recovered after 24 h, "
                     "is escalated even though no charge exists: the operator sees a false "
                     "alarm."},
     {"passed": True, "why": "stored key persisted in the intent, lookup, resend in window, "
                             "escalate past it; W2-after-25h false alarm is true",
      "voice": "formal-spec"}),

    # ------------------------------------------------------------------ good: stuffed
    ("h12b-good-stuffed-but-consistent",
     {"checkpoint": "Durable write-ahead intent journaling (WAL / outbox style): the intent "
                    "record is transactionally committed and fsynced BEFORE dispatch; "
                    "result/receipt journaled after; deterministic event-sourced replay.",
      "idempotency": "Deterministic, payload-bound idempotency key derived from run_id + step + "
                     "canonical payload digest; stable across retries, workers, restarts; sent "
                     "as the Idempotency-Key header.",
      "resumeProtocol": "Deterministic replay + reconciliation: lookup-by-key first; found -> "
                        "record receipt; not found within the 24 h key retention -> same-key "
                        "resend; past retention -> escalation to a human operator (run "
                        "UNCERTAIN, EffectKeyMayBePruned).",
      "tradeOff": "Trade-offs: latency (extra durable write per call), operational toil "
                  "(operator queue past retention), dependency on a provider lookup API."},
     {"passed": True, "why": "jargon-heavy but one consistent safe design; trade-offs true",
      "voice": "stuffed"}),

    ("h12b-good-stuffed-reference-exactly-once-ish",
     {"checkpoint": "Crash-consistent, durable, write-ahead intent logging committed pre-dispatch "
                    "(at-most-once intent, at-least-once delivery), result journaling "
                    "post-response, replay-safe.",
      "idempotency": "Client-reference tagging (merchant reference = run_id:step), provider-side "
                     "persistence, searchable, non-deduplicating, immutable, retained "
                     "indefinitely.",
      "resumeProtocol": "Replay-then-reconcile: search-by-reference for every dangling intent; "
                        "hit -> adopt the provider's receipt; miss -> authoritative absence "
                        "(infinite reference retention) -> resubmit with the same reference.",
      "failureMode": "Reconciliation latency + API cost: one provider search per dangling intent "
                     "on every recovery."},
     {"passed": True, "why": "stuffed wording around intent + client reference + lookup, clean "
                             "in every cell; cost stated is true", "voice": "stuffed"}),

    # ------------------------------------------------------------------ good: contradicting
    ("h12b-good-selfcorrecting-not-this-but-that",
     {"checkpoint": "Not result-only (that was my first draft and it loses W3). The intent goes "
                    "into the journal and is committed before the request; the result follows.",
      "idempotency": "Not a fresh UUID per request either. One key per logical charge, derived "
                     "from run, step and the arguments' digest.",
      "resumeProtocol": "Don't resend blindly. Look it up by the key; only if it's not there and "
                        "we're still inside the 24 h window do we resend, same key. Past that, no "
                        "resend at all: escalate.",
      "failureMode": "Not 'never stuck': a W3 crash recovered after more than a day waits for "
                     "an operator."},
     {"passed": True, "why": "negations reject wrong options; what remains is the safe design; "
                             "failure mode true", "voice": "contradicting"}),

    ("h12b-good-selfcorrecting-stored-key",
     {"checkpoint": "We don't wait for the provider's answer to write anything: the intent is "
                    "committed first, the receipt later.",
      "idempotency": "The key isn't regenerated on retry. It's a random token, yes, but created "
                     "once with the intent and stored in it, so every attempt sends the same "
                     "one.",
      "resumeProtocol": "A missing result isn't treated as 'never happened'. We ask the provider "
                        "by the stored token; if it isn't found and the intent is under 24 h "
                        "old we resend with that token, and if it's older we don't resend, we "
                        "hand it to a person.",
      "failureMode": "It isn't free: an extra durable write per call, and some runs end in an "
                     "operator's queue."},
     {"passed": True, "why": "negations are of wrong options; the design is intent + stored key "
                             "+ lookup + escalation past 24 h; costs true",
      "voice": "contradicting"}),

    # ================================================================== bad: event-log
    ("h12b-bad-timeline-result-only",
     {"checkpoint": "t1: POST /charges (Idempotency-Key k). t2: response arrives. t3: one "
                    "transaction writes {call, args, key, receipt} to the journal.",
      "idempotency": "k = hash(run id, step, args), same for every attempt",
      "resumeProtocol": "restart: replay the journal; any call without a recorded receipt is "
                        "looked up by its key, then resent with the same key if not found",
      "failureMode": "one journal write per call, so it's cheap"},
     {"passed": False, "why": "nothing is persisted before the call (result-only): after a W3/W4 "
                              "crash recovered past 24 h the journal has no trace and the resend "
                              "charges twice", "voice": "event-log"}),

    ("h12b-bad-timeline-snapshot-every-two",
     {"checkpoint": "step 0 decide -> step 1 charge -> [flush buffered events] -> step 2 book. "
                    "Events are buffered and flushed to disk every two steps.",
      "idempotency": "key = run_id + step + sha(args), computed when the call is made",
      "resumeProtocol": "on restart: load the last flush, replay it, look up any open call by key "
                        "before resending, escalate if the key may have expired",
      "failureMode": "we can lose up to two steps of progress, but they're simply redone"},
     {"passed": False, "why": "periodic snapshot loses the model's decision: redone, the model "
                              "picks another amount, the derived key differs and the provider "
                              "charges twice (W3/W4)", "voice": "event-log"}),

    ("h12b-bad-timeline-trusts-not-found",
     {"checkpoint": "00:00 intent (charge, key k) committed\n00:01 request sent\n00:02 result "
                    "committed",
      "idempotency": "k derived from run + step + payload digest",
      "resumeProtocol": "restart at any time T: lookup(k) -> 200: record receipt; 404: resend "
                        "with k. The lookup is authoritative, so how long we were down doesn't "
                        "matter.",
      "failureMode": "an extra lookup round trip on recovery"},
     {"passed": False, "why": "resends after the 24 h window: past retention 'not found' proves "
                              "nothing and the same-key resend is a new charge (W3 after 25 h)",
      "voice": "event-log"}),

    # ------------------------------------------------------------------ bad: bullet-points
    ("h12b-bad-bullets-key-in-memory",
     {"checkpoint": "- journal the intent (tool + args) before the call\n- journal the result "
                    "after",
      "idempotency": "- the charge function creates a uuid4 when it starts\n- that uuid is "
                     "reused for all of the HTTP client's retries, so retries never double "
                     "charge",
      "resumeProtocol": "- replay the journal\n- for an open intent, look the charge up by its "
                        "key\n- not found and under 24h: resend\n- older: escalate",
      "failureMode": "- an operator is needed for runs older than 24h"},
     {"passed": False, "why": "the key lives only in process memory, not in the intent: a new "
                              "worker mints another uuid, the lookup misses and the resend "
                              "charges twice in W3/W4", "voice": "bullet-points"}),

    ("h12b-bad-bullets-fail-and-refund",
     {"checkpoint": "- intent journaled before every call\n- result journaled after",
      "idempotency": "- key derived from run id, step and args",
      "resumeProtocol": "- any call with an intent but no result: stop, mark the run failed\n- "
                        "refund every charge that has a receipt in the journal\n- customer gets "
                        "'please place your order again'",
      "failureMode": "- the customer has to retry, but we never end up with money we shouldn't "
                     "have"},
     {"passed": False, "why": "fail-and-compensate: a W3/W4 charge has no receipt, so nothing "
                              "refunds it (wrong result), and elsewhere the order is lost; the "
                              "failure mode claims a safety it lacks", "voice": "bullet-points"}),

    # ------------------------------------------------------------------ bad: casual
    ("h12b-bad-casual-just-resend",
     {"checkpoint": "we write the intent before calling and the result after, standard stuff",
      "idempotency": "key is run id + step + hash of the args so it never changes",
      "resumeProtocol": "on restart we just resend anything without a result, same key. the "
                        "provider dedupes on the key so a resend can't double charge",
      "failureMode": "none really, the key makes every retry safe"},
     {"passed": False, "why": "blind resend without lookup or age check: past the 24 h window "
                              "the provider has forgotten the key and the W3 resend charges "
                              "twice; failure mode claims a false safety", "voice": "casual"}),

    ("h12b-bad-casual-always-ask-a-human",
     {"checkpoint": "intent in the journal before the call, result after",
      "idempotency": "derived key from run id, step and the args",
      "resumeProtocol": "if we come back and there's an intent with no result, we don't touch "
                        "it. it goes straight to a human who checks the provider and decides",
      "failureMode": "slow, since a person has to look at every crash, but never wrong"},
     {"passed": False, "why": "escalates everything, even recovered at once inside the window, "
                              "where a lookup would settle it: those runs are stuck",
      "voice": "casual"}),

    ("h12b-bad-casual-wrong-worst-case",
     {"checkpoint": "intent goes in the journal and gets committed before the charge request, "
                    "then the result",
      "idempotency": "key = run id + step + hash of the payload, same on every try",
      "resumeProtocol": "restart: for each intent with no result, look it up by key. found -> "
                        "record it. not found, under 24h -> resend same key. over 24h -> hand "
                        "to a human",
      "failureMode": "worst case: we crash right after the provider charged and before we saved "
                     "the result, and the customer ends up paying twice"},
     {"passed": False, "why": "the design is safe, but its failure mode is false: the lookup "
                              "and escalation mean it never charges twice", "voice": "casual"}),

    # ------------------------------------------------------------------ bad: formal-spec
    ("h12b-bad-spec-reference-resend",
     {"checkpoint": "An intent record SHALL be committed to the journal before each charge; "
                    "the response SHALL be committed after.",
      "idempotency": "Each charge SHALL carry a merchant reference (run_id:step), which the "
                     "provider stores with the charge.",
      "resumeProtocol": "An unresolved charge whose intent is younger than 24 h SHALL be "
                        "resubmitted with the same merchant reference. An older one SHALL be "
                        "escalated to an operator.",
      "failureMode": "Manual resolution is required beyond 24 h."},
     {"passed": False, "why": "a merchant reference is not deduplicated on: resubmitting it "
                              "after a W3/W4 crash is a second charge even at once (no lookup "
                              "by the reference)", "voice": "formal-spec"}),

    ("h12b-bad-spec-in-memory-state",
     {"checkpoint": "Workflow state SHALL be held in process memory for performance; on worker "
                    "failure the workflow SHALL be re-executed from its first step.",
      "idempotency": "The idempotency key SHALL be derived from run identifier, step index and "
                     "the argument digest, so that re-execution yields the same key.",
      "resumeProtocol": "On re-execution each effectful call SHALL first be looked up by key; a "
                        "found effect SHALL be reused, otherwise it SHALL be sent.",
      "tradeOff": "No journal writes, hence minimal latency."},
     {"passed": False, "why": "nothing persisted: re-execution asks the model again, the amount "
                              "drifts, the derived key changes and the lookup misses, so any "
                              "crash after the charge (booking windows too) charges twice", "voice": "formal-spec"}),

    # ------------------------------------------------------------------ bad: stuffed
    ("h12b-bad-stuffed-no-mechanism",
     {"checkpoint": "Robust, durable, fault-tolerant, event-sourced checkpointing of agent "
                    "state for exactly-once semantics.",
      "idempotency": "End-to-end idempotency across all tools and providers, with deduplication "
                     "and idempotency keys as best practice.",
      "resumeProtocol": "Resilient resume with reconciliation, retries, backoff and escalation "
                        "where appropriate.",
      "failureMode": "Edge cases around distributed consistency and network partitions."},
     {"passed": False, "why": "keyword stuffing: no field says when anything is written, what "
                              "the key is made of, or what resume does with an unknown outcome",
      "voice": "stuffed"}),

    ("h12b-bad-stuffed-every-option",
     {"checkpoint": "Write-ahead intent journaling plus result-only journaling plus periodic "
                    "snapshots for defence in depth.",
      "idempotency": "Derived keys, random per-request UUIDs and client references, whichever "
                     "the provider supports.",
      "resumeProtocol": "Lookup, blind retry, compensation and escalation, applied as needed.",
      "tradeOff": "More moving parts, but maximal coverage."},
     {"passed": False, "why": "every field lists exclusive choices at once: no decision is made, "
                              "so no design can be built or judged", "voice": "stuffed"}),

    ("h12b-bad-stuffed-attempt-in-key",
     {"checkpoint": "Durable write-ahead intent record committed pre-dispatch, result journaled "
                    "post-response, deterministic replay.",
      "idempotency": "Deterministic idempotency key: SHA-256 over (run_id, step, canonical "
                     "payload, attempt_no) for full per-attempt traceability at the provider.",
      "resumeProtocol": "Replay + lookup-by-key reconciliation; same-key resend within the 24 h "
                        "retention; escalation beyond it.",
      "failureMode": "Operator toil past retention; one extra durable write per call."},
     {"passed": False, "why": "the attempt number in the key makes it a new key per attempt: the "
                              "lookup misses and the resend charges twice in W3/W4",
      "voice": "stuffed"}),

    ("h12b-bad-stuffed-zero-touch-claim",
     {"checkpoint": "Transactional write-ahead intent journaling, committed and fsynced before "
                    "dispatch; receipt journaled on response.",
      "idempotency": "Deterministic derived key (run_id, step, payload digest), payload-bound, "
                     "retry-stable.",
      "resumeProtocol": "Replay, then lookup-by-key for dangling intents; found -> receipt; "
                        "not found within retention -> same-key resend; beyond retention -> "
                        "escalate.",
      "failureMode": "None: exactly-once in every crash window, fully automatic, zero operator "
                     "involvement."},
     {"passed": False, "why": "mechanisms are right, but the failure mode claims a false safety: "
                              "past 24 h W2-W4 crashes escalate to an operator",
      "voice": "stuffed"}),

    # ------------------------------------------------------------------ bad: contradicting
    ("h12b-bad-contra-replay-without-journal",
     {"checkpoint": "Nothing is written to disk until the step has finished; the state lives in "
                    "memory while a call is in flight.",
      "idempotency": "Key derived from run id, step and args.",
      "resumeProtocol": "Replay the journal and look up every intent that has no result, then "
                        "resend within 24 h or escalate.",
      "failureMode": "An operator has to settle runs older than a day."},
     {"passed": False, "why": "contradiction: resume looks up unresolved intents that the "
                              "checkpoint never writes (result-only); past 24 h a W3 crash is "
                              "resent and charges twice", "voice": "contradicting",
      "contradiction": True}),

    ("h12b-bad-contra-derived-plus-suffix",
     {"checkpoint": "Intent committed before the call, result after.",
      "idempotency": "The key is derived from run id and step so it is the same on every "
                     "attempt, plus a fresh random suffix on each retry so the provider's logs "
                     "show distinct attempts.",
      "resumeProtocol": "Look the charge up by key; resend within 24 h if not found; escalate "
                        "after.",
      "failureMode": "Beyond 24 h a human decides."},
     {"passed": False, "why": "contradiction: 'same on every attempt' yet a new suffix per "
                              "retry, i.e. a key per attempt: the lookup misses and W3/W4 charge "
                              "twice", "voice": "contradicting", "contradiction": True}),

    ("h12b-bad-contra-failure-says-random",
     {"checkpoint": "Write-ahead: intent committed before dispatch, result afterwards.",
      "idempotency": "Derived key: run id + step + payload digest, identical across attempts.",
      "resumeProtocol": "Lookup by key; if absent and under 24 h, resend with the same key; "
                        "otherwise escalate.",
      "failureMode": "Because each retry gets its own random key, a resend after a crash can "
                     "still charge twice."},
     {"passed": False, "why": "contradiction across fields: the failure mode says keys are "
                              "random per retry while the idempotency field derives them; the "
                              "double-charge claim is false of the stated design",
      "voice": "contradicting", "contradiction": True}),

    ("h12b-bad-contra-no-key-lookup-by-key",
     {"checkpoint": "Intent journaled and committed before the call; result journaled after.",
      "idempotency": "No idempotency key: the provider doesn't support one, so we don't send "
                     "any.",
      "resumeProtocol": "For an intent with no result, look the charge up by its idempotency key; "
                        "if found record it, otherwise resend.",
      "failureMode": "Relies on the provider's lookup being available."},
     {"passed": False, "why": "contradiction: a lookup by a key that is never sent cannot find "
                              "anything, so an unknown charge is either resent as a new one "
                              "(W3/W4 double) or left stuck even at once",
      "voice": "contradicting", "contradiction": True}),
]
