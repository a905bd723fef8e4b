"""Held-out designOutline() answers, written blind (stop s8, writer12c); measured once.

Invariant: every entry is ``(name, outline, expected)``, names are unique and start with
``h11c-good-`` or ``h11c-bad-``; ``expected["passed"]`` is the verdict a careful human grader
gives, ``expected["why"]`` says why in one line, ``expected["voice"]`` names the learner's style.

How the verdicts were set: the writer read ``minirt_course/scenarios/design_payment.py`` (not
the grader), and ran that crash sweep (``sweep_design``) on the designs of the vocabulary. Only
five designs are clean in every window, recovered at once and after 25 h: an intent journaled
before dispatch and the result after, with (a) a derived key or (b) a random key made once per
operation and journaled with the intent, and a resume that (1) looks the call up before
resending or (2) resends with the same key within the provider's 24 h retention and escalates
past it; or (c) a client reference the provider stores, with a lookup before resending. Designs
(a)/(b) escalate a W2-W4 crash of the charge recovered after 25 h; (c) escalates nothing. A
good entry describes one of those five designs and a failure mode or trade-off that is true of
it; a bad entry has a flaw its "why" names.

Guarantees: importable with no dependency beyond the standard library; 17 good and 17 bad.
Does not guarantee: that any grader agrees (the corpus is measured once, never tuned on).
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT11C: list[Entry] = [
    # --- good ------------------------------------------------------------------------------
    ("h11c-good-pseudocode-lookup", {
        "checkpoint": "journal.append(intent(step, tool, args, key)); commit(); "
                      "resp = provider.charge(...); journal.append(result(step, resp)); commit()"
                      " -- same for book()",
        "idempotency": "key = sha256(run_id + ':' + str(step) + ':' + digest(args)); no attempt "
                       "counter, no clock, so every retry sends the identical key",
        "resumeProtocol": "for each intent with no result: r = provider.get(key); if r: "
                          "journal.append(result(r)) else if age(intent) < 24h: resend(key) "
                          "else: mark_uncertain(); page_operator()",
        "failureMode": "if we come back more than 24 h after a crash that left the charge's "
                       "intent without a result, get(key) proves nothing any more, so the run "
                       "parks as uncertain until a human checks the provider",
    }, {"passed": True, "why": "intent before dispatch, derived key, lookup then resend within "
                               "retention, escalate past it; the failure mode is the 25 h "
                               "escalation the sweep shows", "voice": "pseudo-code"}),

    ("h11c-good-comment-stored-uuid", {
        "checkpoint": "# before calling the provider: INSERT the step's intent row (tool, args, "
                      "idempotency key) and commit\n# after it answers: UPDATE the row with the "
                      "receipt, commit again",
        "idempotency": "# key = uuid4(), created exactly once, when the intent row is first "
                       "written; it lives in that row, and every resend reads it from there "
                       "instead of making a new one",
        "resumeProtocol": "# on restart: rows with an intent but no receipt -> ask the provider "
                          "for the key first; found -> store the receipt; not found and still "
                          "inside the 24h window -> resend with the stored key; older -> "
                          "escalate to a person",
        "tradeOff": "# cost: one extra committed write on the hot path before every charge and "
                    "booking, so each call pays a synchronous commit before any network I/O",
    }, {"passed": True, "why": "stored random key made once and journaled with the intent, "
                               "lookup first; an extra synchronous write per call is a true cost",
        "voice": "code-comment, tradeOff"}),

    ("h11c-good-wrongfield-key-in-checkpoint", {
        "checkpoint": "The record we persist before the charge goes out carries the idempotency "
                      "key (run id, step number and a hash of the payload), so the key is "
                      "durable before the provider ever sees it; the response is persisted "
                      "once it comes back.",
        "idempotency": "The provider deduplicates on that key, and we can also query it by the "
                       "key: that query is what tells us whether a charge happened when our "
                       "own record has no response.",
        "resumeProtocol": "Replay what is recorded. Anything with a pre-call record and no "
                          "response is queried by key; if it exists we take its receipt, if "
                          "not we send it again under the same key, unless the record is over "
                          "a day old, in which case an operator decides.",
        "failureMode": "Once the provider has dropped the key (after 24 h), a run that crashed "
                       "mid-charge cannot be settled by the code; it waits for someone.",
    }, {"passed": True, "why": "intent-and-result, derived key, lookup then resend, escalate "
                               "past retention, though the key sits in checkpoint and the "
                               "lookup in idempotency; failure mode true",
        "voice": "mechanism in the wrong field"}),

    ("h11c-good-runbook-derived", {
        "checkpoint": "Step 1 (automatic). Before any provider call the worker commits a "
                      "'pending' journal entry for it (tool, arguments, key). Step 2. When the "
                      "provider answers, the worker commits the answer against that entry.",
        "idempotency": "Every charge and booking is sent with Idempotency-Key = run id + step "
                       "index + digest of the arguments. Do not edit keys by hand: the same "
                       "logical call must always carry the same key.",
        "resumeProtocol": "On worker restart: for each pending entry, the worker queries the "
                          "provider by key. Hit: answer recorded, run continues. Miss, entry "
                          "younger than 24 h: resend, same key. Miss, entry older than 24 h: "
                          "the run goes UNCERTAIN and the on-call is paged; do not resend.",
        "failureMode": "Operator load: after an outage longer than a day, every run that died "
                       "between committing a pending charge and recording its answer lands in "
                       "the UNCERTAIN queue and must be resolved by hand from the provider's "
                       "dashboard.",
    }, {"passed": True, "why": "the lookup design written as a runbook; the UNCERTAIN queue "
                               "after a day-long outage is the true escalation cost",
        "voice": "operator runbook"}),

    ("h11c-good-halfdone-within-retention", {
        "checkpoint": "intent to the journal before the call, committed; result after, also "
                      "committed. both tools.",
        "idempotency": "key from run id + step + args hash, so a retry of the same call...  "
                       "same key every time, never regenerated",
        "resumeProtocol": "unfinished intent: if under 24 h old, resend with its key (provider "
                          "gives back the original answer if it already ran); if older, stop "
                          "and escalate. no lookup step",
        "tradeOff": "no lookup, so past 24 h even a charge that never left (crash right after "
                    "the intent) goes to an operator. cheaper restart, more manual work after "
                    "long outages",
    }, {"passed": True, "why": "retry-within-retention with intent and derived key is clean; "
                               "the W2 escalation past 24 h is a true cost of skipping the "
                               "lookup", "voice": "half-finished sentences, tradeOff"}),

    ("h11c-good-jsonl-fsync", {
        "checkpoint": "Each run has an append-only runs/<id>.jsonl. Before a provider call we "
                      "append {\"type\": \"intent\", \"step\": n, \"key\": ..., \"args\": ...} "
                      "and fsync; after the reply we append {\"type\": \"result\", ...} and "
                      "fsync again. The model's decision is a line in the same file.",
        "idempotency": "The key written in the intent line is derived: run id, step number, "
                       "sha256 of the canonical args. A resend copies it from the file.",
        "resumeProtocol": "Read the file top to bottom, reuse every result line. For an intent "
                          "line with no result line, GET the charge/booking by key from the "
                          "provider; present: append its result; absent: resend with the same "
                          "key while the intent is under 24 h old, otherwise flag the run for "
                          "an operator.",
        "tradeOff": "Two fsyncs per tool call, one of them before the request even leaves, so "
                    "every call is slower by a disk flush; the file also grows with every "
                    "step and is never compacted.",
    }, {"passed": True, "why": "file-based intent-and-result with derived key and lookup; two "
                               "fsyncs per call is a true cost", "voice": "file-based, tradeOff"}),

    ("h11c-good-kv-etcd-stored-key", {
        "checkpoint": "PUT /runs/<id>/steps/<n>/intent (tool, args, key) with a quorum write "
                      "before the provider call; PUT /runs/<id>/steps/<n>/result once it "
                      "answers. A crash cannot lose an acknowledged PUT.",
        "idempotency": "The key is a random token minted once, at the moment the intent key is "
                       "first PUT, and stored in that value; retries GET it back, they never "
                       "mint another.",
        "resumeProtocol": "List steps with an intent and no result. For each: ask the provider "
                          "whether it knows the stored token; yes: PUT its answer as the "
                          "result; no: resend with the token if the intent is under 24 h old, "
                          "else mark the run uncertain for an operator.",
        "failureMode": "Past the provider's 24 h key retention a run that died between the "
                       "intent PUT and the result PUT of the charge is not settled "
                       "automatically: an operator has to look at the provider's records.",
    }, {"passed": True, "why": "stored key minted once and kept with the durable intent, "
                               "lookup first, escalate past retention; the failure mode is the "
                               "sweep's 25 h escalation", "voice": "key-value store"}),

    ("h11c-good-pseudocode-reference-lookup", {
        "checkpoint": "before send: db.insert(intent(step, ref, args)); db.commit()  "
                      "after send: db.insert(result(step, receipt)); db.commit()",
        "idempotency": "ref = f'{run_id}/{step}/{digest(args)}' attached to the charge as the "
                       "client reference; the provider stores it and lets us search by it, "
                       "it does NOT dedupe on it",
        "resumeProtocol": "for it in db.intents_without_result(): hit = "
                          "provider.find_by_reference(it.ref); hit ? db.insert(result(hit)) : "
                          "send(it.args, ref=it.ref)   # the search comes first, always",
        "tradeOff": "every unfinished charge costs one search request on restart, and because "
                    "the provider does not deduplicate references, skipping that search even "
                    "once would charge twice: correctness rests on our code, not the provider",
    }, {"passed": True, "why": "client reference with an intent and a search before every "
                               "resend is clean even after 25 h; the cost named is true",
        "voice": "pseudo-code, tradeOff"}),

    ("h11c-good-outbox", {
        "checkpoint": "Transactional outbox: the step's pending row (what we are about to send, "
                      "with its key) is committed in the run's own database before the worker "
                      "sends it; the provider's reply is written to the same row afterwards.",
        "idempotency": "Each outbox row's key comes from the run id, the step number and a "
                       "digest of the request body, so the same row always produces the same "
                       "key.",
        "resumeProtocol": "The relay restarts and finds rows that are pending without a reply. "
                          "It first asks the provider about each key; an existing charge "
                          "closes the row, a missing one is resent with the row's key inside "
                          "the 24 h retention; beyond it the row is handed to an operator.",
        "failureMode": "A relay that was down longer than the provider keeps keys cannot tell "
                       "whether a pending charge went through, so those rows wait for manual "
                       "review instead of completing.",
    }, {"passed": True, "why": "an outbox is intent-before-dispatch; derived key, lookup, "
                               "escalate past retention; failure mode true",
        "voice": "outbox phrasing"}),

    ("h11c-good-runbook-stored-within-retention", {
        "checkpoint": "1. Worker writes and commits the call's intent, including its key, "
                      "before dispatch. 2. Worker writes and commits the response after.",
        "idempotency": "Key: a UUID generated once per logical call when its intent is "
                       "written; resends take it from the intent record. Never generate a "
                       "key at send time.",
        "resumeProtocol": "On restart, per open intent: age < 24 h -> resend with the recorded "
                          "key (the provider replays the original answer if it already "
                          "charged). Age >= 24 h -> do NOT resend; run goes to UNCERTAIN, "
                          "on-call settles it. The worker does not query the provider.",
        "tradeOff": "Simple restart path with no lookup endpoint needed, paid for with manual "
                    "tickets: after a day-long outage every charge left open goes to on-call, "
                    "including ones that were never actually sent.",
    }, {"passed": True, "why": "stored key + retry within retention + escalate past it is "
                               "clean; manual tickets past 24 h, even for unsent charges, is "
                               "true", "voice": "operator runbook, tradeOff"}),

    ("h11c-good-wrongfield-lookup-in-idempotency", {
        "checkpoint": "Intent (tool, arguments, key) journaled and committed before dispatch; "
                      "the result journaled after the call returns. The model's plan is "
                      "journaled too, so a resumed run never asks it again.",
        "idempotency": "Derived key (run, step, argument digest), the same on every attempt. "
                       "On resume we look the call up at the provider by this key before "
                       "doing anything else; within 24 h a resend with it is deduplicated.",
        "resumeProtocol": "Replay the journal. Found by the lookup: record it. Not found: "
                          "resend, same key, while inside retention. Past retention: escalate "
                          "instead of resending.",
        "tradeOff": "Restart is slower: one provider round trip per unfinished call before "
                    "the run can move on, plus a journal commit before every call in normal "
                    "operation.",
    }, {"passed": True, "why": "the lookup is told in the idempotency field but the design is "
                               "intent-and-result, derived key, lookup, escalate; costs true",
        "voice": "mechanism in the wrong field, tradeOff"}),

    ("h11c-good-halfdone-reference", {
        "checkpoint": "intent row committed before each call... result row after",
        "idempotency": "client reference = run id + step (+ args hash), sent with the charge; "
                       "provider keeps it searchable, forever as far as we know, but won't "
                       "dedupe on it",
        "resumeProtocol": "open intent -> search provider by reference first. found: take it. "
                          "not found: send again with the same reference. never resend "
                          "without searching",
        "failureMode": "if the search is skipped or its answer is wrong the provider happily "
                       "charges a second time, nothing on its side stops it",
    }, {"passed": True, "why": "intent + client reference + search before resend is clean in "
                               "every window; the dependency on the search is a true risk",
        "voice": "half-finished sentences"}),

    ("h11c-good-comment-derived-within-retention", {
        "checkpoint": "# journal.intent(...) is committed BEFORE the HTTP request\n"
                      "# journal.result(...) is committed after the response",
        "idempotency": "# Idempotency-Key: derived from run_id/step/sha256(args); the retry "
                       "path reads it from the intent, it never builds a new one",
        "resumeProtocol": "# open intent younger than the provider's 24h retention: resend "
                          "with the same key, the provider returns the first result if the "
                          "charge already happened\n# older: no resend, mark UNCERTAIN",
        "failureMode": "# a crash between the charge's intent and its result, recovered after "
                       "more than 24h, leaves the run UNCERTAIN until an operator resolves it",
    }, {"passed": True, "why": "derived key + retry within retention + escalate past it with "
                               "an intent journal is clean; failure mode is the 25 h "
                               "escalation", "voice": "code-comment"}),

    ("h11c-good-kv-rocksdb-derived", {
        "checkpoint": "State lives in an embedded key-value store with synchronous writes: "
                      "key steps/<n>/intent is written before the provider call, "
                      "steps/<n>/result after it. The model's choice is stored under "
                      "steps/0/result.",
        "idempotency": "Provider key = run id + step + hash of the arguments stored in the "
                       "intent value; deterministic, so a resend cannot differ.",
        "resumeProtocol": "Iterate steps/*/intent without a matching result: query the "
                          "provider by key; present: write the result value; absent within "
                          "24 h of the intent: resend with that key; absent later: stop the "
                          "run as uncertain.",
        "failureMode": "The store is local to one machine: if that disk itself is lost, so is "
                       "every intent. And a crash between a charge's intent and its result, "
                       "recovered after 24 h, stops for an operator.",
    }, {"passed": True, "why": "sync-write KV journal with intent first, derived key, lookup, "
                               "escalate past retention; both limits named are true",
        "voice": "key-value store"}),

    ("h11c-good-eventlog-stored-key", {
        "checkpoint": "Event sourcing: CallRequested (tool, args, key) is appended to the run's "
                      "event log and flushed before the call; CallCompleted (receipt) after.",
        "idempotency": "A random key minted when CallRequested is created and carried in that "
                       "event; resends use the key from the event, never a new one.",
        "resumeProtocol": "Rebuild the run from its events. A CallRequested with no "
                          "CallCompleted is looked up at the provider by its key; found -> "
                          "append CallCompleted; not found -> resend with the same key within "
                          "24 h of the request, escalate after that.",
        "tradeOff": "Because the key is random rather than derived, nobody can recompute it "
                    "from the order: support has to read it from the event log to find a "
                    "charge at the provider.",
    }, {"passed": True, "why": "stored key carried in the intent event, lookup, escalate past "
                               "retention; the key not being recomputable is a true cost",
        "voice": "event-log phrasing, tradeOff"}),

    ("h11c-good-wrongfield-reference", {
        "checkpoint": "Before the charge we commit a row holding the order reference we are "
                      "about to attach (built from run id and step) plus the arguments; the "
                      "receipt is committed into that row afterwards.",
        "idempotency": "The provider only lets us search charges by that reference; it does "
                       "not refuse a second charge with the same one. So the search is our "
                       "idempotency.",
        "resumeProtocol": "For a row with no receipt: search the provider by the reference. A "
                          "match becomes the receipt. No match means it never went through, "
                          "and the charge is sent again with the same reference.",
        "failureMode": "The provider accepts the same reference twice, so any code path "
                       "that sends again before searching would bill the order a second time; "
                       "the guard is our resume logic alone, and each restart pays one search "
                       "per open row.",
    }, {"passed": True, "why": "intent row + client reference + search before resend is "
                               "clean; the reliance on the search and its cost are true",
        "voice": "mechanism in the wrong field"}),

    ("h11c-good-pseudocode-stored-within-retention", {
        "checkpoint": "with tx: journal.put(Intent(step, args, key=new_key())) -- then send -- "
                      "with tx: journal.put(Result(step, reply))",
        "idempotency": "new_key() runs once, inside that first transaction; the key is part of "
                       "the Intent record and send() / resend() read it from there",
        "resumeProtocol": "def on_resume(i): return resend(i.key) if now - i.at < 24*3600 "
                          "else escalate(i)  # no provider query",
        "failureMode": "resumed after 24 h, a charge left between Intent and Result is "
                       "escalated, not settled; the operator must check the provider by hand",
    }, {"passed": True, "why": "key minted once in the intent transaction, retry within "
                               "retention, escalate past it; the failure mode is true",
        "voice": "pseudo-code"}),

    # --- bad -------------------------------------------------------------------------------
    ("h11c-bad-pseudocode-attempt-in-key", {
        "checkpoint": "write_intent(run, step, args) -> commit; call; write_result(run, step, "
                      "resp) -> commit",
        "idempotency": "key = hash(run_id, step, args_digest, attempt)  # attempt = 1, 2, 3 "
                       "... so the provider logs can tell retries apart",
        "resumeProtocol": "for pending in journal.unresolved(): found = provider.lookup("
                          "pending.key); if found: record(found) else: resend(pending)",
        "failureMode": "after 24 h the provider forgets keys, so a lookup can miss a charge "
                       "that happened",
    }, {"passed": False, "why": "the attempt number in the hash makes a new key per attempt: "
                                "a W3/W4 resend is a second charge the provider cannot "
                                "recognise", "voice": "pseudo-code, subtle clause"}),

    ("h11c-bad-file-result-only", {
        "checkpoint": "The worker keeps a ledger file per run. When a provider call returns, it "
                      "appends one line holding the request (tool, args, key) and the "
                      "response together, then fsyncs. Nothing is written before the call.",
        "idempotency": "Key derived from run id, step and a digest of the arguments, so a "
                       "resend reuses it.",
        "resumeProtocol": "Replay the ledger; a step with no line is looked up by its key at "
                          "the provider and resent with that key if nothing is found.",
        "tradeOff": "One fsync per call instead of two, which keeps the hot path short.",
    }, {"passed": False, "why": "result only: with no intent line the resumed run cannot know "
                                "a charge was sent or when, so after 25 h a W3/W4 resend "
                                "charges twice", "voice": "file-based, tradeOff"}),

    ("h11c-bad-redis-memory-only", {
        "checkpoint": "SET run:{id}:step:{n}:intent before the call and SET "
                      "run:{id}:step:{n}:result after it, in our Redis (persistence is "
                      "switched off there, it is a cache instance).",
        "idempotency": "Idempotency key = run id + step + payload hash, identical across "
                       "retries.",
        "resumeProtocol": "On boot, scan run:* for intents without a result, look each up at "
                          "the provider by key; resend with the same key if absent.",
        "failureMode": "A lookup past 24 h may find nothing even though the charge happened.",
    }, {"passed": False, "why": "Redis without persistence keeps the journal in memory only: "
                                "a crash loses intents and the model's decision, the rerun "
                                "charges and books again", "voice": "key-value store, subtle "
                                "clause"}),

    ("h11c-bad-runbook-trusts-dedup", {
        "checkpoint": "Worker commits the intent row before each provider call and the "
                      "response row after it.",
        "idempotency": "Idempotency-Key derived from run id + step + args digest; stable "
                       "across retries.",
        "resumeProtocol": "On restart: resend every call that has an intent and no response, "
                          "with its original key. No need to query the provider first: it "
                          "deduplicates on the key, so a repeat returns the original charge.",
        "failureMode": "None expected for double charges: dedup on the provider side covers "
                       "every crash window, however long the worker was down.",
    }, {"passed": False, "why": "blind resend trusting the provider's dedup, which ends at 24 "
                                "h: a W3/W4 crash recovered after 25 h charges twice, and the "
                                "failure mode claims the opposite", "voice": "operator runbook"}),

    ("h11c-bad-stuffed-buzzwords", {
        "checkpoint": "Durable write-ahead intent journal with result checkpoints and periodic "
                      "snapshots for crash consistency.",
        "idempotency": "Derived, stored, per-operation idempotency keys and client references.",
        "resumeProtocol": "Replay, lookup, retry within retention, compensate or escalate as "
                          "appropriate.",
        "failureMode": "Edge cases around retention and crash windows.",
    }, {"passed": False, "why": "keyword-stuffed: each field lists several exclusive "
                                "mechanisms and decides none; the failure mode names no "
                                "concrete risk", "voice": "keyword-stuffed"}),

    ("h11c-bad-contradict-only-after-in-fm", {
        "checkpoint": "An intent record is committed before the charge request is sent, and "
                      "the result is committed when it returns.",
        "idempotency": "A key derived from run id, step and argument digest, reused verbatim "
                       "on every retry.",
        "resumeProtocol": "Replay; look up any call without a result by its key; resend with "
                          "the same key if the provider has no record, escalate after 24 h.",
        "failureMode": "Because we only write to the journal once the provider has answered, "
                       "a crash in between leaves no trace of the call at all.",
    }, {"passed": False, "why": "self-contradicting: the checkpoint writes the intent before "
                                "the call, the failure mode says nothing is written until the "
                                "answer", "voice": "self-contradicting across fields"}),

    ("h11c-bad-wrongfield-false-safety", {
        "checkpoint": "We persist the idempotency key (run id + step + payload digest) together "
                      "with the intent, before the charge, and the response after it.",
        "idempotency": "A lookup by that key at the provider tells us whether the charge "
                       "exists; a resend reuses the same key.",
        "resumeProtocol": "Replay; look up unfinished calls; resend if not found within 24 h, "
                          "escalate if older.",
        "failureMode": "No window needs a human: W1 to W5 all end with exactly one charge and "
                       "a completed run, however late the worker comes back.",
    }, {"passed": False, "why": "the design is the good one, but its failure mode claims a "
                                "safety the sweep refutes: past 25 h W2-W4 charge crashes "
                                "escalate", "voice": "mechanism in the wrong field"}),

    ("h11c-bad-false-double-charge", {
        "checkpoint": "Intent journaled and committed before dispatch, result after.",
        "idempotency": "A UUID is generated once per operation when its intent is journaled, "
                       "and reused from the journal on every resend.",
        "resumeProtocol": "Look the intent's key up at the provider; record it if found, "
                          "otherwise resend with the same key inside retention, escalate past "
                          "it.",
        "failureMode": "A crash right after the provider commits the charge (W3) charges the "
                       "customer twice when the worker resumes.",
    }, {"passed": False, "why": "a clean design with a false failure mode: the lookup settles "
                                "W3, it never charges twice", "voice": "terse, subtle clause"}),

    ("h11c-bad-runbook-no-cost", {
        "checkpoint": "Worker commits a pending entry (tool, args, key) before every provider "
                      "call and the provider's answer after it.",
        "idempotency": "Key = run id + step + argument digest, same for every attempt.",
        "resumeProtocol": "On restart, query the provider for each pending key; record a hit; "
                          "resend a miss with the same key within 24 h; escalate older ones.",
        "tradeOff": "None worth noting: this setup has no downside compared with the "
                    "alternatives.",
    }, {"passed": False, "why": "good mechanisms, but the trade-off field names no cost at "
                                "all (the per-call commit and the 25 h escalation are real)",
        "voice": "operator runbook, tradeOff"}),

    ("h11c-bad-stuffed-comment-tags", {
        "checkpoint": "# durable  # checkpointed  # write-ahead  # journaled",
        "idempotency": "# idempotent  # keyed  # exactly-once  # dedup",
        "resumeProtocol": "# replay  # reconcile  # lookup  # retry  # escalate",
        "failureMode": "# W3  # W4  # retention  # double charge",
    }, {"passed": False, "why": "keyword-stuffed tags: every field lists the right words and "
                                "says nothing about what is written when, what key, or what "
                                "resume does", "voice": "code-comment, keyword-stuffed"}),

    ("h11c-bad-stuffed-prose", {
        "checkpoint": "Checkpointing is handled durably through journaling, intents and "
                      "results, so state is always checkpointed and consistent.",
        "idempotency": "Idempotency keys make every call idempotent and exactly-once.",
        "resumeProtocol": "Resume reconciles by replaying and looking up, then retries "
                          "idempotently.",
        "failureMode": "Failure modes are covered by the idempotent, durable design.",
    }, {"passed": False, "why": "keyword-stuffed prose: no moment of writing, no key "
                                "derivation, no rule for the unknown call, and no real "
                                "failure mode", "voice": "keyword-stuffed"}),

    ("h11c-bad-contradict-new-key-on-resume", {
        "checkpoint": "Write the intent and commit before calling; write the result after.",
        "idempotency": "Key derived from run id + step + argument digest, never regenerated.",
        "resumeProtocol": "For an intent with no result, look it up at the provider; if it is "
                          "missing, resend it under a freshly generated key so the provider "
                          "does not reject the retry as a duplicate.",
        "failureMode": "Past 24 h a crash mid-charge needs an operator.",
    }, {"passed": False, "why": "self-contradicting: the key is 'never regenerated' yet the "
                                "resend gets a fresh key, which the provider cannot dedupe",
        "voice": "self-contradicting across fields"}),

    ("h11c-bad-contradict-within-resume", {
        "checkpoint": "Intent journaled before dispatch, result after, both committed.",
        "idempotency": "Same derived key (run, step, args digest) on every attempt.",
        "resumeProtocol": "Look each unfinished call up by key before resending. In practice "
                          "the worker does not contact the provider on restart at all, it "
                          "just sends the unfinished calls again.",
        "failureMode": "One extra commit per call.",
    }, {"passed": False, "why": "self-contradicting: the resume field promises a lookup, "
                                "then says nobody asks the provider and everything is resent",
        "voice": "self-contradicting within a field"}),

    ("h11c-bad-halfdone-vague", {
        "checkpoint": "we save where we are so that...",
        "idempotency": "payments shouldn't happen twice, the key handles",
        "resumeProtocol": "restart and continue from the last good point, retrying whatever",
        "failureMode": "some edge cases, tbd",
    }, {"passed": False, "why": "content-free: no moment of writing, no key, no rule for an "
                                "unknown outcome, no failure mode", "voice": "half-finished "
                                "sentences, vague"}),

    ("h11c-bad-only-after-ack", {
        "checkpoint": "Each call gets an intent row with its tool, arguments and key, but the "
                      "row is only inserted after the provider has acknowledged the request; "
                      "the result goes into the same row.",
        "idempotency": "The key is derived from run id, step and an argument digest.",
        "resumeProtocol": "Replay the rows; for an intent without a result, look it up by key "
                          "and resend with the same key if the provider has nothing.",
        "failureMode": "After the 24 h retention a lookup no longer proves anything.",
    }, {"passed": False, "why": "'only after the provider acknowledged' makes it result-only: "
                                "a W3/W4 crash leaves no row, so after 25 h the resend charges "
                                "twice", "voice": "subtle clause"}),

    ("h11c-bad-snapshot-every-two", {
        "checkpoint": "Like LangGraph: the whole run state is dumped to state.json every two "
                      "steps; between dumps it is only in the process.",
        "idempotency": "Key derived from run id, step and payload digest, identical across "
                       "retries.",
        "resumeProtocol": "Load state.json, look up the pending call's key at the provider, "
                          "resend with it if nothing is found.",
        "tradeOff": "Far fewer writes than journaling every call, at the price of redoing up "
                    "to one step after a crash.",
    }, {"passed": False, "why": "a snapshot loses the model's decision and the charge; asked "
                                "again the model answers a new amount, a new derived key, a "
                                "second charge", "voice": "file-based, tradeOff"}),

    ("h11c-bad-reference-resent", {
        "checkpoint": "Intent committed before the charge, receipt committed after.",
        "idempotency": "We put our order reference (run id + step) in the charge's metadata; "
                       "the provider stores it and it shows up in its search.",
        "resumeProtocol": "Unfinished charge on restart: send it again with the same "
                          "reference, so the provider sees it is the same order.",
        "tradeOff": "No lookup call on restart, so recovery is quick.",
    }, {"passed": False, "why": "a client reference is not deduplicated; resending it "
                                "without searching first charges twice in W3/W4, at once",
        "voice": "subtle clause, tradeOff"}),
]
