"""A THIRD held-out set of designOutline() answers (issue 17), never used to tune the reader.

Written and committed after the second held-out set had been measured (good pass 18/22, bad
fail 21/21 at commit e8b4fbb + fixes) and BEFORE the reader was fixed for what that set showed;
the untuned measure from then on. Same format and ground truth as :mod:`design_corpus_heldout`.
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT3: list[Entry] = [
    # == good: passes ===========================================================================
    ("h3-typos", {
        "checkpoint": "journl the intnet before the call, and the reslt after it returns",
        "idempotency": "idempotency key derived from run id + step, same on evry retry",
        "resumeProtocol": "on restart look up every intent without result at the provider by "
                          "its key, resend with same key only if not found",
        "tradeOff": "one extra write per call"},
     {"passed": True, "why": "typos in a clean design", "voice": "informal"}),
    ("h3-code-like", {
        "checkpoint": "journal.append(Intent(step, tool, args, key)); commit(); "
                      "resp = call(); journal.append(Result(step, resp))",
        "idempotency": "key = sha256(f'{run_id}:{step}:{canonical(args)}') - identical for "
                       "every retry of the step",
        "resumeProtocol": "for intent in journal.open_intents(): found = provider.lookup(key); "
                          "record(found) if found else resend(same key)",
        "tradeOff": "an extra commit() per call before the request goes out"},
     {"passed": True, "why": "pseudo-code of the clean design", "voice": "terse"}),
    ("h3-db-transaction", {
        "checkpoint": "In one database transaction we insert the planned charge (status "
                      "PENDING) and commit it before calling the provider; after the response "
                      "we update the row to DONE with the receipt.",
        "idempotency": "The PENDING row's key is derived from the run id and step, and it is "
                       "the Idempotency-Key header on every attempt.",
        "resumeProtocol": "PENDING rows found at startup are checked with the provider using "
                          "the key: a charge found is recorded as DONE, a charge not found is "
                          "sent again with the same key.",
        "failureMode": "Costs one extra commit per charge, and one provider request per PENDING "
                       "row at startup."},
     {"passed": True, "why": "status-column phrasing", "voice": "verbose"}),
    ("h3-kafka", {
        "checkpoint": "The consumer writes a 'charge-intent' record to the compacted state "
                      "topic and waits for the ack before it calls the PSP; the PSP's answer is "
                      "written to the same topic afterwards.",
        "idempotency": "The record key is run id + step, and it is also the idempotency key "
                       "sent to the PSP, unchanged across retries.",
        "resumeProtocol": "On rebalance the new consumer reads the topic; a charge-intent "
                          "without an answer is looked up at the PSP by the key before any "
                          "resend.",
        "tradeOff": "A produce-and-ack round trip before every charge."},
     {"passed": True, "why": "Kafka phrasing", "voice": "queue"}),
    ("h3-step-functions", {
        "checkpoint": "Each task state first records 'TaskScheduled' in the execution history "
                      "and only then invokes the Lambda; 'TaskSucceeded' is recorded with the "
                      "output.",
        "idempotency": "The idempotency key is the execution id plus the state name, stable "
                       "across retries.",
        "resumeProtocol": "A redriven execution asks the payment API for the charge with that "
                          "key before re-invoking a task that has no 'TaskSucceeded'.",
        "failureMode": "Past the payment API's 24 h key window a redrive cannot tell, and the "
                       "execution waits for a human."},
     {"passed": True, "why": "Step Functions phrasing", "voice": "event-log"}),
    ("h3-rambling", {
        "checkpoint": "So the way I think about it is that the scary part is the moment the "
                      "money moves, right, so before we even open the connection to the payment "
                      "provider we write down in our journal (SQLite, fsynced) what we are "
                      "about to do, the tool, args and key, and once it answers we write down "
                      "what it said.",
        "idempotency": "And the key is not random at all, it's derived from the run id and the "
                       "step number and the hash of the arguments, so if we retry we send the "
                       "very same key.",
        "resumeProtocol": "When we come back up we replay, and for that scary half-finished "
                          "call we ask the provider 'do you have a charge with this key?', if "
                          "yes we write it down, if no we send it again with the same key.",
        "failureMode": "Honestly the cost is an extra disk write per call, and if we only come "
                       "back after the provider forgot the key (24 h) a person has to look."},
     {"passed": True, "why": "rambling but clean", "voice": "verbose"}),
    ("h3-nonnative-4", {
        "checkpoint": "Intent gets written to journal first, after that the call is made, "
                      "after that the result gets written.",
        "idempotency": "Key is build from run-id and step-number and not change when retry.",
        "resumeProtocol": "For intent without result: first we lookup by key in provider, "
                          "if nothing there we make call again with same key.",
        "tradeOff": "More one write for every call and more one request on recovery."},
     {"passed": True, "why": "non-native clean design", "voice": "non-native"}),
    ("h3-nonnative-5", {
        "checkpoint": "We persist intent of the operation before execute it, and persist the "
                      "result after execute.",
        "idempotency": "Operation key = hash(run, step, payload), it is same in all the "
                       "attempts.",
        "resumeProtocol": "When resume, the operations with intent but without result, we are "
                          "verifying them in the provider by the key, and resending only the "
                          "ones not existing.",
        "failureMode": "After retention time of the provider (24h) we can not verify anymore, "
                       "so an operator decide."},
     {"passed": True, "why": "non-native clean design", "voice": "non-native"}),
    ("h3-client-ref-3", {
        "checkpoint": "Intent row before the call, result row after.",
        "idempotency": "The provider cannot deduplicate, so we attach our own reference (run "
                       "id and step) to each charge and the provider lets us search by it.",
        "resumeProtocol": "Search the provider's charges by our reference; record the match, "
                          "or charge again with the same reference if there is none.",
        "tradeOff": "A search request per unresolved charge, and a dependency on the "
                    "provider's search."},
     {"passed": True, "why": "client reference", "voice": "plain"}),
    ("h3-stored-2", {
        "checkpoint": "The intent, including a freshly minted UUID, is journaled before the "
                      "call; the result after.",
        "idempotency": "The UUID is minted once, when the intent is journaled, and every "
                       "attempt reuses it from the journal.",
        "resumeProtocol": "Unresolved intents are looked up at the provider by their journaled "
                          "UUID before a resend with that same UUID.",
        "tradeOff": "Two journal writes per call."},
     {"passed": True, "why": "stored key, 'freshly minted' once", "voice": "plain"}),
    ("h3-plain-cost-3", {
        "checkpoint": "Intent journaled before the request, result journaled after.",
        "idempotency": "Derived key: run id, step, digest of the arguments.",
        "resumeProtocol": "Look up each unresolved intent by key at the provider, resend only "
                          "when it is unknown.",
        "tradeOff": "Each call waits for an fsync before it is sent."},
     {"passed": True, "why": "plain cost", "voice": "plain-cost"}),
    ("h3-plain-cost-4", {
        "checkpoint": "we write the intent before the call and the result after, both durable",
        "idempotency": "the key comes from the run id and the step, so it is the same on retry",
        "resumeProtocol": "ask the provider about the key of any intent that has no result, "
                          "then record it or resend it with the same key",
        "tradeOff": "twice as many journal writes as a result-only journal"},
     {"passed": True, "why": "relative cost", "voice": "plain-cost"}),
    ("h3-window-words-3", {
        "checkpoint": "Intent before the call, result after, both in the journal.",
        "idempotency": "Key derived from the run and the step, reused by every attempt.",
        "resumeProtocol": "Reconcile: look the intent's key up at the provider and record or "
                          "resend with the same key.",
        "failureMode": "If the response is lost and we recover only after the provider has "
                       "pruned the key, the lookup says nothing useful and the run is escalated "
                       "to a human."},
     {"passed": True, "why": "window in words", "voice": "window-words"}),
    ("h3-negation-ok-4", {
        "checkpoint": "There is never a call without a committed intent in front of it; the "
                      "result is committed once the call returns.",
        "idempotency": "No random part in the key: run id + step + payload digest.",
        "resumeProtocol": "Nothing is resent without first asking the provider about the key.",
        "tradeOff": "One commit more per call."},
     {"passed": True, "why": "protective negations", "voice": "negation"}),
    ("h3-negation-ok-5", {
        "checkpoint": "We don't call first and write later: the intent is journaled, then the "
                      "call is made, then the result is journaled.",
        "idempotency": "The key does not change between attempts; it is derived from run and "
                       "step.",
        "resumeProtocol": "We never resend blindly; an unresolved intent is looked up at the "
                          "provider first.",
        "failureMode": "A lookup per unresolved intent when we recover."},
     {"passed": True, "why": "negations", "voice": "negation"}),
    ("h3-outbox-3", {
        "checkpoint": "The agent writes the payment to an outbox table (committed) and a "
                      "separate sender delivers it; the sender writes the provider's reply back "
                      "to the row.",
        "idempotency": "Outbox row id, derived from run + step, is the idempotency key on every "
                       "delivery.",
        "resumeProtocol": "The sender, restarting, queries the provider by row id for every row "
                          "without a reply before delivering it again.",
        "tradeOff": "A second process and an extra insert per payment."},
     {"passed": True, "why": "outbox", "voice": "outbox"}),
    ("h3-structured-3", {
        "checkpoint": {"mechanism": "intent-and-result",
                       "detail": "pending row committed before the call; result after"},
        "idempotency": {"mechanism": "stored-key",
                        "detail": "uuid minted once with the pending row"},
        "resumeProtocol": {"mechanism": "replay-and-lookup",
                           "detail": "search the provider by the stored key, then resend"},
        "tradeOff": "An extra commit per call."},
     {"passed": True, "why": "typed form", "voice": "structured"}),
    ("h3-eventlog-3", {
        "checkpoint": "Append 'ChargeAttempted' to the event log before the HTTP call and "
                      "'ChargeSettled' after the provider replies.",
        "idempotency": "Key derived from stream id + event number: the same for all retries.",
        "resumeProtocol": "An attempted-but-unsettled charge is reconciled with the provider "
                          "by key before the replay continues.",
        "failureMode": "Two events per charge; a reconcile request per unsettled charge."},
     {"passed": True, "why": "event log", "voice": "event-log"}),
    ("h3-very-terse", {
        "checkpoint": "intent pre-call, result post-call (journal)",
        "idempotency": "key: hash(run, step, args), fixed",
        "resumeProtocol": "open intent: provider lookup, then record/resend",
        "failureMode": "+1 fsync/call"},
     {"passed": True, "why": "very terse", "voice": "terse"}),
    ("h3-limit-2", {
        "checkpoint": "Intent journaled before dispatch, result after.",
        "idempotency": "Derived key (run, step, payload).",
        "resumeProtocol": "Look up by key before resending; resend with the same key.",
        "failureMode": "Relies on the provider keeping keys: they are pruned after a day, so "
                       "a recovery after that needs an operator."},
     {"passed": True, "why": "retention limit", "voice": "plain"}),
    # == bad: fails =============================================================================
    ("h3-bad-labels", {
        "checkpoint": "WAL", "idempotency": "hash", "resumeProtocol": "reconciliation",
        "failureMode": "slow"},
     {"passed": False, "why": "labels", "voice": "content-free"}),
    ("h3-bad-ram", {
        "checkpoint": "Intents are written to a list in RAM before the call; the process keeps "
                      "no file.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Look the intents up at the provider after a restart.",
        "tradeOff": "Very fast."},
     {"passed": False, "why": "intents only in RAM", "voice": "qualifier",
      "contradiction": True}),
    ("h3-bad-uuid-each-time", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "The key is derived from the run and step the first time, then replaced "
                       "with a new UUID each time we retry.",
        "resumeProtocol": "Look up by key, then resend.",
        "failureMode": "A lookup per open intent."},
     {"passed": False, "why": "derived yet regenerated", "voice": "qualifier"}),
    ("h3-bad-resend-all", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Resume re-sends every call that has no result, without any check.",
        "failureMode": "An extra write per call."},
     {"passed": False, "why": "blind resend", "voice": "negation"}),
    ("h3-bad-key-local", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "We compute a key from run + step but keep it to ourselves; the charge "
                       "request carries no key.",
        "resumeProtocol": "Look the key up at the provider before a resend.",
        "failureMode": "A lookup per open intent."},
     {"passed": False, "why": "key never sent", "voice": "qualifier", "contradiction": True}),
    ("h3-bad-after-response", {
        "checkpoint": "We journal the intent as soon as the response arrives, together with the "
                      "result.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Look up open intents by key.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "intent written with the result: result-only",
      "voice": "qualifier", "contradiction": True}),
    ("h3-bad-stuffed-3", {
        "checkpoint": "write-ahead intent / result after / snapshot / outbox / event sourcing",
        "idempotency": "derived key; stored key; client reference; per-attempt uuid",
        "resumeProtocol": "lookup; blind retry; compensation; escalation",
        "failureMode": "duplicate, lost, stuck, wrong, latency, storage"},
     {"passed": False, "why": "stuffed", "voice": "stuffed", "contradiction": True}),
    ("h3-bad-contradict-6", {
        "checkpoint": "Nothing is journaled: the agent is stateless.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Replay the recorded steps and look up the open intent.",
        "failureMode": "A lookup per intent."},
     {"passed": False, "why": "stateless yet replays", "voice": "contradicting",
      "contradiction": True}),
    ("h3-bad-contradict-7", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run + step, same on retries.",
        "resumeProtocol": "Look up by key, resend if absent.",
        "failureMode": "Since keys are random per attempt, a retry may charge twice."},
     {"passed": False, "why": "failure mode denies the key", "voice": "contradicting",
      "contradiction": True}),
    ("h3-bad-contradict-8", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "No idempotency key, and a key derived from run and step.",
        "resumeProtocol": "Look up by key, resend if absent.",
        "failureMode": "A lookup per intent."},
     {"passed": False, "why": "no key and a key", "voice": "contradicting",
      "contradiction": True}),
    ("h3-bad-false-safe-2", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Resend all unfinished calls with the same key.",
        "failureMode": "No risk of a double charge, ever, because the key is stable."},
     {"passed": False, "why": "blind; false safety", "voice": "false-failure"}),
    ("h3-bad-no-cost-3", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "Derived key from run + step + payload.",
        "resumeProtocol": "Look up by key, resend with the same key if absent.",
        "tradeOff": "Nothing to trade off here."},
     {"passed": False, "why": "no cost", "voice": "false-failure"}),
    ("h3-bad-false-lost-2", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Look up by key, resend with the same key if absent.",
        "failureMode": "A crash after the charge loses the booking every time."},
     {"passed": False, "why": "false lost effect", "voice": "false-failure"}),
    ("h3-bad-vague-4", {
        "checkpoint": "Checkpoint regularly and carefully.",
        "idempotency": "Idempotent by design.",
        "resumeProtocol": "Resume safely.",
        "failureMode": "Rare issues."},
     {"passed": False, "why": "vague", "voice": "content-free"}),
    ("h3-bad-result-only-3", {
        "checkpoint": "We write to the journal once the provider has confirmed the charge.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Re-execute steps that have no journal entry.",
        "failureMode": "A crash before the journal write re-executes the charge."},
     {"passed": False, "why": "result-only + blind", "voice": "plain"}),
    ("h3-bad-snapshot-2", {
        "checkpoint": "The run state is serialized to S3 every 2 steps.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Restore from S3 and carry on with the next step.",
        "failureMode": "Up to two steps are redone."},
     {"passed": False, "why": "snapshot", "voice": "plain"}),
    ("h3-bad-random-2", {
        "checkpoint": "Intent before, result after.",
        "idempotency": "Every request gets a brand-new random idempotency key.",
        "resumeProtocol": "Resend what is unfinished.",
        "failureMode": "A lost response can be charged twice."},
     {"passed": False, "why": "random per request", "voice": "plain"}),
    ("h3-bad-escalate-2", {
        "checkpoint": "Intent before, result after.",
        "idempotency": "Derived key.  From run and step.",
        "resumeProtocol": "Any call without a result is sent to a review queue for a human; the "
                          "worker does nothing else.",
        "failureMode": "Humans review every crash."},
     {"passed": False, "why": "escalate", "voice": "plain"}),
    ("h3-bad-compensate-2", {
        "checkpoint": "Intent before, result after.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "We cancel the order and refund any charge when a call is unresolved.",
        "failureMode": "Orders get cancelled after a crash."},
     {"passed": False, "why": "compensate", "voice": "plain"}),
]
