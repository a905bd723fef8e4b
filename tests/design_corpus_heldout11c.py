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
]
