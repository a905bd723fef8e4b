"""Held-out corpus HELDOUT12A: 36 designOutline() answers, written blind to the grader.

Written blind (stop s10, writerA): its author read the lesson 05b notebook and
minirt_course/scenarios/design_payment.py (the crash sweep; every design family used below was
also run through ``sweep_design`` to confirm its verdict), never the grader, its vocabulary, its
tests or the other corpora. It is measured once; do not tune the reader on it.

Invariant: 18 entries with ``passed: True`` (an outline whose design the sweep finds clean in
every window, recovered at once and after 25 h, with a failure mode or trade-off that is true
of it) and 18 with ``passed: False`` (a plausible mistake, named in ``why``); entry names are
unique; six voices (terse, verbose, non-native, story, outbox, queue), six entries each, three
good and three bad. Not guaranteed: that the grader agrees (that is what is measured).
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT12A: list[Entry] = [
    # ---------------------------------------------------------------- terse, good
    ("h12a-good-terse-wal-derived",
     {"checkpoint": "Intent row committed before the charge request; result row after.",
      "idempotency": "Key = hash(run id, step index, args), identical on each retry.",
      "resumeProtocol": "Unfinished intent: query provider by key. Found: keep it. Missing and "
                        "under 24h: resend same key. Older: page a human.",
      "failureMode": "Old crashes (>24h) block on a person."},
     {"passed": True, "why": "intent-and-result + derived key + lookup/resend-in-window/escalate: "
                             "clean, escalates W2-W4 past retention; failure mode true",
      "voice": "terse"}),
    ("h12a-good-terse-ref-lookup",
     {"checkpoint": "Journal the intent first, then the outcome.",
      "idempotency": "Client reference per charge, written in the intent; provider stores it and "
                     "can search it (it won't dedupe).",
      "resumeProtocol": "Search the provider by that reference before anything else; only if no "
                        "charge carries it, send again with the same reference.",
      "tradeOff": "Every recovery costs a search call, and the search must be trusted."},
     {"passed": True, "why": "intent-and-result + client reference + lookup: clean in every "
                             "window (reference searchable forever); cost claim true",
      "voice": "terse"}),
    ("h12a-good-terse-retention",
     {"checkpoint": "Write-ahead intent with timestamp, then result.",
      "idempotency": "Stable key derived from run/step/payload.",
      "resumeProtocol": "No lookup. Intent younger than the provider's key retention: resend "
                        "with the same key. Past it: stop the run as uncertain for an operator.",
      "failureMode": "After 24h even a charge that never left (W2) goes to an operator."},
     {"passed": True, "why": "intent-and-result + derived key + retry-within-retention: clean; "
                             "W2-W4 escalate past retention, so the failure mode is true",
      "voice": "terse"}),
    # ---------------------------------------------------------------- terse, bad
    ("h12a-bad-terse-result-only",
     {"checkpoint": "Persist each tool result once the API returns.",
      "idempotency": "Key from run id + step + payload hash.",
      "resumeProtocol": "Replay journal, look up anything unfinished by key, resend if absent.",
      "failureMode": "One DB write per call."},
     {"passed": False, "why": "result-only: no intent before the call, so a W3/W4 crash "
                              "recovered after 25 h resends past retention and charges twice",
      "voice": "terse"}),
    ("h12a-bad-terse-uuid-per-try",
     {"checkpoint": "Intent before, result after.",
      "idempotency": "uuid4() as Idempotency-Key on each HTTP attempt.",
      "resumeProtocol": "Look it up, then resend.",
      "failureMode": "Extra write per call."},
     {"passed": False, "why": "key regenerated per attempt: the resend is a new charge "
                              "(W3/W4 duplicate at once)",
      "voice": "terse"}),
    ("h12a-bad-terse-blind-resend",
     {"checkpoint": "Intent journaled before dispatch, result after.",
      "idempotency": "Derived key, same every attempt.",
      "resumeProtocol": "Resend any open intent with its key; the provider dedupes it.",
      "failureMode": "None, key makes resends harmless."},
     {"passed": False, "why": "blind resend with no window check: past 24 h the key is pruned "
                              "and W3/W4 charge twice; failure mode claims false safety",
      "voice": "terse"}),
    # ---------------------------------------------------------------- verbose, good
    ("h12a-good-verbose-derived-lookup",
     {"checkpoint": "Before the agent sends the charge to the payment API, the runtime writes an "
                    "intent record into the step journal (which tool, the arguments the model "
                    "chose, the key, and the time it was recorded) and commits it, so the record "
                    "survives a crash. When the provider answers, the receipt is written next to "
                    "the intent. The model's decision is journaled too, so it is never re-asked.",
      "idempotency": "The idempotency key is computed from the run id, the step number and a "
                     "digest of the payload. Because all of those are in the journal, every "
                     "retry, from this process or another after a restart, sends exactly the "
                     "same key, and the provider treats the retries as one charge.",
      "resumeProtocol": "On restart we replay the journal. Any step that has a result is skipped. "
                        "For an intent with no result we ask the provider whether a charge with "
                        "that key exists; if it does we record its receipt and carry on. If it "
                        "does not, and the intent is younger than the provider's 24-hour key "
                        "retention, we send again with the same key. If the intent is older than "
                        "that, a negative answer proves nothing, so the run is parked as "
                        "uncertain and an operator decides.",
      "failureMode": "The price is one more synchronous, durable write on the hot path of every "
                     "call, and crashes discovered more than a day later need a human to "
                     "check the provider's records before the run can finish."},
     {"passed": True, "why": "canonical safe design; both costs named are true of it",
      "voice": "verbose"}),
    ("h12a-good-verbose-stored-key",
     {"checkpoint": "I would journal in two phases: a durable 'about to charge' entry committed "
                    "before the network call, and a 'charged' entry with the receipt once the "
                    "provider replies.",
      "idempotency": "Rather than deriving a key, I generate a random key one time, when the "
                     "operation is first planned, and store it inside the 'about to charge' "
                     "entry. Retries read the key back from the journal instead of making a new "
                     "one, so it never changes for that operation.",
      "resumeProtocol": "When the run restarts, completed steps are replayed from the journal. "
                        "For a pending entry the runtime first queries the provider with the "
                        "stored key. A hit is recorded as the result. A miss inside the "
                        "provider's retention means the request never landed, so it is resent "
                        "with the stored key; a miss after retention is escalated to an operator "
                        "instead of being resent.",
      "tradeOff": "The key only exists in the journal, so the journal write before the call is "
                  "mandatory; and because the provider forgets keys after 24 hours, a run that "
                  "stays crashed longer than that ends up waiting on a person."},
     {"passed": True, "why": "intent-and-result + stored key + lookup: clean, escalates past "
                             "retention; trade-off true",
      "voice": "verbose"}),
    ("h12a-good-verbose-ref-forever",
     {"checkpoint": "Our journal records the intention to charge, including a reference we make "
                    "up for the order, and commits it before the request is sent. The result "
                    "(charge id, amount) is appended after the response.",
      "idempotency": "The provider doesn't offer idempotency keys in our integration, but it "
                     "lets us attach a client reference to a charge and later search for charges "
                     "by that reference. The reference is created once and kept in the intent, "
                     "so it is the same on every attempt. It does not stop a second charge on "
                     "its own; it only lets us find the first one.",
      "resumeProtocol": "For every intent without a result, the resumed run searches the "
                        "provider for that reference. If a charge is found, its receipt becomes "
                        "the step's result. Only if no charge is found do we send the charge "
                        "again, carrying the same reference. We never resend without searching "
                        "first, because the provider would happily charge twice.",
      "failureMode": "Correctness rests entirely on the search step: if someone later changes "
                     "recovery to resend without searching, the reference gives no protection "
                     "and W3/W4 crashes charge twice. The upside is that references are kept "
                     "indefinitely, so late recovery does not need an operator."},
     {"passed": True, "why": "intent-and-result + client reference + lookup: clean at once and "
                             "after 25 h with no escalation; failure mode true",
      "voice": "verbose"}),
    # ---------------------------------------------------------------- verbose, bad
    ("h12a-bad-verbose-snapshot",
     {"checkpoint": "We use the framework's checkpointer, which snapshots the whole agent state "
                    "every couple of steps. That keeps write volume low compared with journaling "
                    "each call, and the state includes everything needed to continue.",
      "idempotency": "The idempotency key is derived deterministically from the run id, the "
                     "step and a digest of the charge payload, so a retry of the same charge "
                     "produces the same key.",
      "resumeProtocol": "On restart we load the latest snapshot and continue from it. For a "
                        "charge that looks unfinished we first ask the provider by key, and "
                        "resend only if it has nothing; beyond the 24-hour window we escalate.",
      "failureMode": "A crash between snapshots repeats a little work, which is harmless since "
                     "the key is deterministic."},
     {"passed": False, "why": "periodic snapshot loses the model's decision; asked again the "
                              "model picks another amount, so the derived key differs and the "
                              "charge happens twice; the 'harmless' claim is false",
      "voice": "verbose"}),
    ("h12a-bad-verbose-compensate",
     {"checkpoint": "An intent entry is durably written before each payment call and the "
                    "receipt after it, as in a write-ahead log.",
      "idempotency": "Each charge gets a key derived from run id, step and payload, so repeated "
                     "sends are recognized by the provider.",
      "resumeProtocol": "If we restart and find a call with an intent but no result, we treat "
                        "the run as failed rather than guessing: the workflow refunds whatever "
                        "was charged and marks the order as failed, so the customer is never out "
                        "of pocket.",
      "failureMode": "The order may have to be placed again by the customer, but money is "
                     "always returned."},
     {"passed": False, "why": "fail-and-compensate: a charge with no recorded result has no "
                              "receipt, so nothing refunds it (wrong result in W3/W4), and a W2 "
                              "crash loses the order; 'money is always returned' is false",
      "voice": "verbose"}),
    ("h12a-bad-verbose-stuffing",
     {"checkpoint": "Durable execution with checkpointing, write-ahead logging, event sourcing "
                    "and snapshots, plus an outbox, to guarantee exactly-once semantics.",
      "idempotency": "Idempotency keys, deduplication, client references and UUIDs, all "
                     "combined for maximum safety.",
      "resumeProtocol": "Replay, reconcile, look up, retry with backoff, compensate, and "
                        "escalate as needed, following best practices for resilience.",
      "failureMode": "Because every technique is layered, no crash window remains unsafe."},
     {"passed": False, "why": "keyword stuffing: every field lists exclusive mechanisms, no "
                              "single design is chosen; failure mode claims false total safety",
      "voice": "verbose"}),
    # ---------------------------------------------------------------- non-native, good
    ("h12a-good-nonnative-derived",
     {"checkpoint": "Before to call the payment, we are writing the intention in the journal and "
                    "make commit. After the answer come, we write also the result.",
      "idempotency": "The key we make it from run id, number of step and hash of payload, so it "
                     "is every time same key, also when we retry many times.",
      "resumeProtocol": "When the run start again and find intention without result, first it "
                        "ask to provider by this key. If charge is there, take it. If not there "
                        "and still inside 24 hours, send again same key. If more than 24 hours, "
                        "no send, give to a human operator.",
      "failureMode": "If the crash is found too late (after one day) the run is waiting for a "
                     "person, it cannot finish alone."},
     {"passed": True, "why": "intent-and-result + derived key + lookup/escalate: clean; "
                             "failure mode true",
      "voice": "non-native"}),
    ("h12a-good-nonnative-retention",
     {"checkpoint": "Journal receive an intent entry, committed, before the request go out; the "
                    "receipt is append when it return.",
      "idempotency": "Random key, but generated only one time for the operation and saved "
                     "inside the intent entry. Retry read it from there, never make new.",
      "resumeProtocol": "We not ask the provider. If intent is more young than provider keep "
                        "the keys, we resend with the saved key and provider give back the first "
                        "charge if exist. If intent is more old, we not resend, the run stay "
                        "uncertain until operator look.",
      "tradeOff": "Without asking, we cannot know if charge happen; so after 24 hours also "
                  "crashes where nothing was charged must wait operator."},
     {"passed": True, "why": "intent-and-result + stored key + retry-within-retention: clean; "
                             "W2 (nothing charged) also escalates late, so trade-off true",
      "voice": "non-native"}),
    ("h12a-good-nonnative-ref",
     {"checkpoint": "Intent is save in journal before calling, with reference inside; result is "
                    "save after.",
      "idempotency": "The provider has not idempotency key for us, only a client reference what "
                     "it keep and we can search. Reference is create one time and stay same.",
      "resumeProtocol": "At restart, for intent without result we always search by the "
                        "reference first. Found = done. Not found = send again with same "
                        "reference.",
      "failureMode": "Reference not block double charge by itself, only our search protect. One "
                     "search more each recovery."},
     {"passed": True, "why": "intent-and-result + client reference + lookup: clean everywhere; "
                             "failure mode true",
      "voice": "non-native"}),
    # ---------------------------------------------------------------- non-native, bad
    ("h12a-bad-nonnative-timestamp-key",
     {"checkpoint": "Intention is written before the call and result after, in the journal.",
      "idempotency": "Key is build from run id and the current timestamp when we send, so it is "
                     "unique and provider can dedupe.",
      "resumeProtocol": "For open intention, ask provider with key; if nothing, send again.",
      "failureMode": "A little slow because one more write."},
     {"passed": False, "why": "key includes send time, so each attempt has a new key: lookup "
                              "misses and the resend charges twice (key per attempt)",
      "voice": "non-native"}),
    ("h12a-bad-nonnative-escalate-always",
     {"checkpoint": "We write intent before and result after every payment call.",
      "idempotency": "Key derived from run, step and payload, same in each retry.",
      "resumeProtocol": "When we find intent without result, we never decide alone: always the "
                        "run stop and operator must check, also if crash was one minute ago.",
      "failureMode": "No double charge is possible, and no work for operator in normal case."},
     {"passed": False, "why": "escalate always: crashes recovered at once sit stuck (stuck in "
                              "W2-W4 at once) though a lookup could settle them; the failure "
                              "mode names no cost of that",
      "voice": "non-native"}),
    ("h12a-bad-nonnative-after-answer",
     {"checkpoint": "We write the intent in journal, but only after provider answer us, "
                    "together with result in one transaction, for less writes.",
      "idempotency": "Key from run id + step + hash of payload, it not change.",
      "resumeProtocol": "On resume look up intents without result by key, resend inside 24h, "
                        "escalate after.",
      "failureMode": "Past 24 hours operator must decide."},
     {"passed": False, "why": "intent written only with the result = result-only: a W3/W4 crash "
                              "leaves no intent, so late recovery resends past retention and "
                              "charges twice; failure mode claims escalation that cannot happen",
      "voice": "non-native", "contradiction": True}),
    # ---------------------------------------------------------------- story, good
    ("h12a-good-story-w3-late",
     {"checkpoint": "Run 17 decides to charge 42 EUR. Before the request leaves, the runtime "
                    "commits an intent for step 1 with the arguments and the key. Then the "
                    "charge goes out.",
      "idempotency": "The key is run-17/step-1/<digest of the payload>; any retry of this "
                     "charge, by any worker, computes the same string.",
      "resumeProtocol": "The provider commits the charge and the worker dies before the reply "
                        "(W3). The worker comes back: it replays step 0 from the journal, sees "
                        "step 1 has an intent and no result, and asks the provider for that key. "
                        "It is there, so the receipt is recorded and the run books the order. Had "
                        "it come back 25 hours later, a 'not found' could just mean the key was "
                        "pruned, so it would stop and wait for an operator instead of resending.",
      "failureMode": "That late case is the weak spot: the run cannot finish without a person "
                     "checking the provider's records."},
     {"passed": True, "why": "narrated canonical design; lookup first, resend in window, "
                             "escalate past it; failure mode true",
      "voice": "story"}),
    ("h12a-good-story-ref",
     {"checkpoint": "The agent picks an amount, and that decision plus a 'charge pending' intent "
                    "carrying reference ord-A42-1 are committed to the journal before calling "
                    "the provider. The reply, when it comes, is journaled too.",
      "idempotency": "ord-A42-1 is a client reference: created once, stored in the intent, sent "
                     "with the charge. The provider keeps it and can be searched by it, though a "
                     "second request with it would be a second charge.",
      "resumeProtocol": "The worker crashed after the provider answered but before writing the "
                        "receipt (W4). Two days later it restarts, searches the provider for "
                        "ord-A42-1, finds the charge and records it; no resend. If the search "
                        "had come back empty, it would have sent the charge again with the same "
                        "reference.",
      "tradeOff": "Each recovery pays for a search round trip; in exchange even very late "
                  "recoveries settle themselves."},
     {"passed": True, "why": "intent-and-result + client reference + lookup: clean at once and "
                             "late; trade-off true",
      "voice": "story"}),
    ("h12a-good-story-retention",
     {"checkpoint": "Step 1, the charge: the intent with a timestamp is committed, then the HTTP "
                    "request goes out, then the receipt is committed.",
      "idempotency": "Key derived from the run, step and payload digest; it never changes "
                     "between attempts.",
      "resumeProtocol": "The process was killed in the middle of the request. On restart ten "
                        "minutes later, the intent is well inside the provider's retention, so "
                        "the charge is resent with the same key and the provider hands back the "
                        "original charge if there was one. We do no lookup. If the restart had "
                        "been a day and a half later, the run would have been left uncertain "
                        "for an operator instead.",
      "failureMode": "We keep a small safety margin (about a minute) before the 24h limit, so a "
                     "crash resumed just under 24h also ends at an operator, and anything later "
                     "always does."},
     {"passed": True, "why": "retry-within-retention with derived key and intent: clean; "
                             "escalating near/after retention is true of it",
      "voice": "story"}),
    # ---------------------------------------------------------------- story, bad
    ("h12a-bad-story-no-intent",
     {"checkpoint": "The agent decides, calls the provider, and as soon as the charge comes "
                    "back the journal gets the step's result, atomically.",
      "idempotency": "Key: run id + step + payload digest.",
      "resumeProtocol": "This time the worker died right after the provider committed. On "
                        "restart the journal shows step 1 with no result, so the runtime asks "
                        "the provider by key, finds the charge, and records it. Nothing is "
                        "charged twice.",
      "failureMode": "Only cost is the journal write after every call."},
     {"passed": False, "why": "result-only checkpoint: nothing is persisted before the call; "
                              "the story only holds within 24 h, and after 25 h the W3 resend "
                              "charges twice",
      "voice": "story"}),
    ("h12a-bad-story-late-resend",
     {"checkpoint": "Run 9 commits an intent for the charge before sending it, and the receipt "
                    "after.",
      "idempotency": "Key derived from run 9, step 1 and the payload; identical on retries.",
      "resumeProtocol": "The machine is down over the weekend. On Monday the run restarts, "
                        "looks the key up, gets 'not found', and so sends the charge again with "
                        "the same key: not found means it never happened.",
      "failureMode": "A weekend outage just delays the charge a bit."},
     {"passed": False, "why": "resend after the window: past 24 h 'not found' proves nothing "
                              "(key pruned), so the resend is a new charge in W3/W4",
      "voice": "story"}),
    ("h12a-bad-story-ref-no-search",
     {"checkpoint": "The agent writes an intent with reference ord-77 to the journal and then "
                    "charges; the receipt is journaled when it arrives.",
      "idempotency": "ord-77 is a client reference the provider stores with the charge.",
      "resumeProtocol": "The reply was lost. On restart, a few minutes later, the runtime sees "
                        "an open intent well within 24 h and resends the charge with ord-77, "
                        "trusting the provider to recognise the repeat.",
      "failureMode": "After a day it would escalate instead, so at most one charge."},
     {"passed": False, "why": "client reference resent without a search: the provider does not "
                              "deduplicate references, so W3/W4 charge twice even at once; "
                              "failure mode claims a safety it lacks",
      "voice": "story"}),
    # ---------------------------------------------------------------- outbox, good
    ("h12a-good-outbox-derived",
     {"checkpoint": "The agent's decision and an outbox row for the charge (args, key, created "
                    "at) are inserted in one transaction before anything is sent; the relay "
                    "marks the row done with the receipt after the provider replies.",
      "idempotency": "The outbox row's key is derived from run id, step and the payload digest, "
                     "so the relay sends the same key however many times it picks the row up.",
      "resumeProtocol": "A relay that finds a row not marked done asks the provider about that "
                        "key first. Known charge: mark done. Unknown and the row is less than "
                        "24 h old: send again with the key. Older: move it to a manual review "
                        "queue, no send.",
      "failureMode": "Rows stuck for over a day need a human; the outbox insert also adds a "
                     "write before every charge."},
     {"passed": True, "why": "outbox = intent committed before dispatch, derived key, lookup, "
                             "escalate past retention: clean; failure mode true",
      "voice": "outbox"}),
    ("h12a-good-outbox-stored",
     {"checkpoint": "Transactional outbox: the pending charge is committed to the outbox table "
                    "before the dispatcher sends it, and the result is written back to that "
                    "row.",
      "idempotency": "A UUID is minted when the outbox row is created and stored in the row; "
                     "every dispatch of the row reuses it.",
      "resumeProtocol": "On startup the dispatcher checks each pending row against the provider "
                        "by its UUID. If the provider has it, record the result. If not and the "
                        "row is within the provider's key retention, dispatch again with the "
                        "same UUID; beyond retention, flag for an operator.",
      "tradeOff": "Losing the outbox table would lose the keys too, since they are not "
                  "derivable; and the extra lookup makes restart slower."},
     {"passed": True, "why": "stored key kept in the intent, lookup, escalate past retention: "
                             "clean; trade-off true",
      "voice": "outbox"}),
    ("h12a-good-outbox-ref",
     {"checkpoint": "Each charge becomes an outbox entry, committed before sending; the reply "
                    "is stored in the same entry.",
      "idempotency": "The entry id doubles as a client reference sent with the charge. The "
                     "provider keeps it and supports search by it, but would charge twice if we "
                     "sent it twice.",
      "resumeProtocol": "Pending entries are never re-sent blind: the dispatcher searches the "
                        "provider for the entry id, records a charge if found, and only sends "
                        "again (same id) when the search is empty.",
      "failureMode": "A search per pending entry on every restart; a burst of crashes means a "
                     "burst of searches."},
     {"passed": True, "why": "intent-and-result + client reference + lookup: clean, no "
                             "escalation; failure mode true",
      "voice": "outbox"}),
    # ---------------------------------------------------------------- outbox, bad
    ("h12a-bad-outbox-at-least-once",
     {"checkpoint": "Charges go through a transactional outbox committed before sending.",
      "idempotency": "Outbox row id is used as the idempotency key on every send.",
      "resumeProtocol": "The relay is at-least-once: unacknowledged rows are simply re-sent "
                        "with their key until the provider acknowledges them.",
      "failureMode": "At-least-once delivery plus a stable key gives effectively exactly-once "
                     "charges."},
     {"passed": False, "why": "blind resend with no age check: a row re-sent after 25 h uses a "
                              "pruned key and charges twice in W3/W4; 'exactly-once' is false",
      "voice": "outbox"}),
    ("h12a-bad-outbox-key-at-dispatch",
     {"checkpoint": "The outbox row (tool, args) is committed before dispatch; the receipt is "
                    "written to it later.",
      "idempotency": "The HTTP client adds an Idempotency-Key header, a fresh UUID generated at "
                     "dispatch time, so every request is tagged.",
      "resumeProtocol": "Pending rows: query the provider by the row's key; if absent, dispatch "
                        "again; escalate after 24 h.",
      "failureMode": "Escalation past 24 hours."},
     {"passed": False, "why": "key made at dispatch, not stored in the row: each dispatch gets a "
                              "new key (key per attempt), so the lookup misses and a resend "
                              "charges twice; also the row holds no key to look up",
      "voice": "outbox", "contradiction": True}),
    ("h12a-bad-outbox-no-mechanism",
     {"checkpoint": "The outbox pattern guarantees consistency between our database and the "
                    "payment provider.",
      "idempotency": "The outbox ensures each message is processed once.",
      "resumeProtocol": "The relay takes care of recovery automatically.",
      "failureMode": "The outbox relay may lag behind under load."},
     {"passed": False, "why": "names a pattern but no mechanism: no key, no lookup, no window "
                              "rule; the fields claim guarantees without saying how",
      "voice": "outbox"}),
    # ---------------------------------------------------------------- queue, good
    ("h12a-good-queue-derived",
     {"checkpoint": "The worker commits an intent for the charge to the run's journal before "
                    "calling the provider and commits the receipt before acking the queue "
                    "message.",
      "idempotency": "Key derived from run id, step and payload digest; a redelivered message "
                     "recomputes the identical key.",
      "resumeProtocol": "A redelivered job replays the journal; for an intent lacking a receipt "
                        "it looks up the key at the provider, keeps the charge if found, resends "
                        "with the same key if not (while under 24 h), and sends the job to a "
                        "human review queue when the intent is older.",
      "failureMode": "Jobs redelivered after more than a day pile up in the review queue."},
     {"passed": True, "why": "intent before call, derived key, lookup, escalate past retention: "
                             "clean; failure mode true",
      "voice": "queue"}),
    ("h12a-good-queue-retention",
     {"checkpoint": "Intent (with the time it was written) journaled and committed before the "
                    "call; result journaled after.",
      "idempotency": "The key is created once when the job first plans the charge and stored "
                     "in the intent; redeliveries read it back.",
      "resumeProtocol": "On redelivery we don't query the provider at all. If the intent is "
                        "inside the provider's retention, resend with the stored key and take "
                        "whatever the provider returns. If not, dead-letter the job as "
                        "uncertain for an operator.",
      "tradeOff": "Cheap recovery (no lookup endpoint needed), but late redeliveries are "
                  "dead-lettered even when the charge never reached the provider."},
     {"passed": True, "why": "stored key + retry-within-retention + intent: clean; late W2 "
                             "also escalates, so the trade-off is true",
      "voice": "queue"}),
    ("h12a-good-queue-ref",
     {"checkpoint": "Intent with the job's client reference committed before the call, receipt "
                    "after.",
      "idempotency": "Client reference = job id, fixed for the job's life, stored in the "
                     "intent; the provider indexes it for search but does not deduplicate on it.",
      "resumeProtocol": "On redelivery, search the provider for the reference; record the charge "
                        "if found, otherwise charge again with the same reference.",
      "failureMode": "If two workers got the same job at once, both could search, find nothing "
                     "and charge: this relies on one worker per job."},
     {"passed": True, "why": "intent-and-result + client reference + lookup: clean in the "
                             "sweep (single worker); concurrency limit is true and outside it",
      "voice": "queue"}),
    # ---------------------------------------------------------------- queue, bad
    ("h12a-bad-queue-ack-first",
     {"checkpoint": "The worker acks the message and then calls the provider; the receipt is "
                    "saved to the database when the call returns.",
      "idempotency": "Message id used as the idempotency key.",
      "resumeProtocol": "If the worker dies, the job is re-enqueued by a sweeper that finds "
                        "orders without a receipt and resends them with the message id.",
      "failureMode": "Duplicate work is avoided because the key is the message id."},
     {"passed": False, "why": "nothing journaled before the call (result only) and a blind "
                              "resend from the sweeper: past 24 h W3/W4 charge twice; failure "
                              "mode claims safety it lacks",
      "voice": "queue"}),
    ("h12a-bad-queue-no-key",
     {"checkpoint": "Intent journaled before the call, receipt after.",
      "idempotency": "None needed: the queue gives exactly-once delivery.",
      "resumeProtocol": "A redelivered job re-executes the charge step for intents without a "
                        "receipt.",
      "failureMode": "Redeliveries are rare, so duplicates are rare."},
     {"passed": False, "why": "no key and a blind re-execution: every W3/W4 crash charges "
                              "twice; queue delivery guarantees do not cover the provider call",
      "voice": "queue"}),
    ("h12a-bad-queue-lookup-no-key",
     {"checkpoint": "Only the job's final result is stored, when the whole job finishes.",
      "idempotency": "We don't send a key; the provider assigns charge ids.",
      "resumeProtocol": "On redelivery, replay the journal and look up unfinished charges at the "
                        "provider before resending.",
      "failureMode": "Lookups add latency on recovery."},
     {"passed": False, "why": "contradiction: replay with no per-call journal and a lookup "
                              "with no key or reference to look up; resends charge twice",
      "voice": "queue", "contradiction": True}),
]
