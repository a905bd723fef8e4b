"""Held-out corpus HELDOUT13: 42 designOutline() answers, written blind to the grader.

Written blind (stop s12, writer13): its author read the lesson 05b notebook, lessons 04 and 05
and minirt_course/scenarios/design_payment.py (the crash sweep), never the grader, its
vocabulary, its tests or the other corpora. It is measured once; do not tune the reader on it.

Invariant: 21 entries with ``passed: True`` (an outline whose design the sweep finds clean in
every window, recovered at once and after 25 h, with a failure mode or trade-off that is true
of it) and 21 with ``passed: False`` (a plausible mistake, named in ``why``); entry names are
unique. Seven voices (terse, verbose, non-native, outbox, code, stuffed, contradicting), six
entries each, three good and three bad. Each verdict is a careful human reading of the text,
checked against a full sweep (design_payment.sweep_design) of the design the entry describes.
The five designs the sweep finds clean are intent-and-result with derived-key or stored-key and
replay-and-lookup or retry-within-retention (these escalate W2-W4 of the charge after 25 h),
and intent-and-result + client-reference + replay-and-lookup (clean everywhere). Not
guaranteed: that the grader agrees (that is what is measured), nor that the voices cover every
way learners write.
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT13: list[Entry] = [
    # ------------------------------------------------------------------ terse
    ("h13-good-terse-derived-lookup",
     {"checkpoint": "Intent row (tool, args, key) committed before each call, result after.",
      "idempotency": "Key = hash(run id, step, args); identical on every retry.",
      "resumeProtocol": "Open intent: look it up by key; missing and under 24h: resend same "
                        "key; older: escalate.",
      "failureMode": "A W2-W4 crash on the charge resumed after a day needs a human."},
     {"passed": True,
      "why": "intent-and-result + derived key + lookup/resend within retention/escalate: clean; "
             "the failure mode is the true late escalation of W2-W4",
      "voice": "terse"}),

    ("h13-good-terse-stored-retention",
     {"checkpoint": "Journal the intent and its key before sending; the result when it returns.",
      "idempotency": "UUID generated once per charge, saved in the intent record.",
      "resumeProtocol": "No lookup: resend with the saved UUID while under 24h, else park it "
                        "for ops.",
      "tradeOff": "One extra durable write before every provider call."},
     {"passed": True,
      "why": "intent-and-result + stored key + retry-within-retention: clean, escalates past "
             "24 h; an extra write per call is a true cost",
      "voice": "terse"}),

    ("h13-good-terse-reference-search",
     {"checkpoint": "Intent persisted pre-dispatch, outcome persisted post-dispatch.",
      "idempotency": "Our own reference on each charge; the provider stores it and can search "
                     "by it, no dedup.",
      "resumeProtocol": "Search the provider by reference first; resend only if nothing found.",
      "failureMode": "Everything hangs on that search: if it ever lags, we charge twice."},
     {"passed": True,
      "why": "intent-and-result + client reference + lookup: clean at once and after 25 h "
             "(references are searchable forever); reliance on an up-to-date search is a true "
             "limit",
      "voice": "terse"}),

    ("h13-bad-terse-result-only",
     {"checkpoint": "Persist each step's output once the call returns.",
      "idempotency": "Deterministic key from run, step and payload hash.",
      "resumeProtocol": "Replay; anything without output gets looked up by key, then resent.",
      "failureMode": "A write per step adds some latency."},
     {"passed": False,
      "why": "result-only checkpoint: no intent before the call, so after 25 h a W3/W4 charge "
             "crash is looked up (key pruned), resent, and charged twice",
      "voice": "terse"}),

    ("h13-bad-terse-key-per-attempt",
     {"checkpoint": "Write the intent before the call and the receipt after.",
      "idempotency": "Fresh Idempotency-Key UUID on each HTTP attempt.",
      "resumeProtocol": "On resume, check the provider by key, resend if absent.",
      "failureMode": "The lookup costs one extra request per open intent."},
     {"passed": False,
      "why": "random key per attempt: the provider never saw the logical key, so the lookup "
             "finds nothing and a W3/W4 crash charges twice even at once",
      "voice": "terse"}),

    ("h13-bad-terse-key-in-memory",
     {"checkpoint": "Save each call's result to the DB after it returns.",
      "idempotency": "A UUID per operation, made by the worker and held in memory.",
      "resumeProtocol": "New worker looks the operation up by its UUID, resends if unknown.",
      "failureMode": "Results are written late, so the last step may be redone."},
     {"passed": False,
      "why": "the per-operation key is never persisted (result-only): a new worker mints a new "
             "UUID, the lookup misses, W3/W4 charge twice at once",
      "voice": "terse"}),

    # ------------------------------------------------------------------ verbose
    ("h13-good-verbose-derived-lookup",
     {"checkpoint": "Every effectful tool call is preceded by a journal entry describing what "
                    "we are about to do: the tool name, the exact arguments the model settled "
                    "on, and the key we will send. That entry is committed to the run store "
                    "before the HTTP request goes out. When the provider answers, its receipt "
                    "is appended as the result of that step. The model's decision itself is "
                    "also in the journal, so a resumed run never has to ask the model again.",
      "idempotency": "The key is computed from things that do not change between attempts: "
                     "the run id, the step's position in the workflow and a digest of the "
                     "canonical arguments. A retry in the same process, a retry by a different "
                     "worker after a crash, and a retry three hours later all send the same "
                     "string, so the provider sees one logical charge.",
      "resumeProtocol": "On restart the journal is replayed. Steps with a result are skipped. "
                        "For a step that has an intent but no result we do not know whether "
                        "the charge happened, so we ask the provider by the key. If it has the "
                        "charge we record the receipt and carry on. If it does not, and the "
                        "intent is still comfortably inside the provider's 24 hour key window, "
                        "we resend with the same key. If the intent is older than that, a "
                        "'not found' proves nothing, so we stop and hand the run to an "
                        "operator.",
      "failureMode": "The honest gap is the long outage. If a worker dies between sending the "
                     "charge and recording the answer, and nobody resumes the run for more "
                     "than a day, the run ends up uncertain and waits for a person to check "
                     "the provider's records. That is a queue somebody has to own."},
     {"passed": True,
      "why": "intent-and-result + derived key + replay-and-lookup: clean; escalation of W2-W4 "
             "after 25 h is exactly the failure mode stated",
      "voice": "verbose"}),

    ("h13-good-verbose-stored-lookup",
     {"checkpoint": "We use a write-before-send journal. The row that says 'charge customer "
                    "X, amount Y, key K' is written and committed first; only then does the "
                    "worker make the network call, and the provider's response is written as "
                    "a second row when it comes back.",
      "idempotency": "We followed Stripe's advice and use a random V4 UUID, but it is created "
                     "exactly once per logical charge, in the same transaction that writes "
                     "the intent row. Every later attempt reads the key back from that row "
                     "instead of generating one, so the UUID is stable across retries and "
                     "restarts.",
      "resumeProtocol": "When a run is picked up again, each intent without a response is "
                        "reconciled before anything is sent: we query the provider for the "
                        "stored UUID. Found means it happened, and we record the receipt. Not "
                        "found, within the key retention, means it did not, and we send it "
                        "now with that same UUID. Past retention we refuse to guess and "
                        "escalate to a human.",
      "tradeOff": "Because the key is random it cannot be recomputed from the inputs: if the "
                  "journal row were lost, the key would be too. That is why it must be "
                  "written in the same commit as the intent, which means a synchronous "
                  "database write sits in front of every single charge. We also still "
                  "escalate W2-W4 crashes that are recovered after more than a day."},
     {"passed": True,
      "why": "intent-and-result + stored key + lookup: clean; the synchronous write and the "
             "late escalation are both true of it",
      "voice": "verbose"}),

    ("h13-good-verbose-derived-stripe-style",
     {"checkpoint": "Our runtime journals an intent for each external call ahead of the "
                    "dispatch, including the key, and records the result afterwards, so the "
                    "journal always knows that a request may be in flight and since when it "
                    "was first sent.",
      "idempotency": "The idempotency key is derived, not generated: run identifier, step "
                     "number and a hash of the payload. It is recomputed identically on any "
                     "attempt, and because the payload digest is part of it, one key can never "
                     "stand for two different amounts.",
      "resumeProtocol": "Our real provider behaves like Stripe and offers no lookup by key, so "
                        "we reconcile by resending: an unfinished call is sent again with the "
                        "same key as long as the intent is younger than the provider's "
                        "retention (minus a safety margin), and the provider hands back the "
                        "original result instead of charging again. Once the intent is older "
                        "than that, we do not resend at all; the run is marked uncertain for "
                        "an operator.",
      "failureMode": "Two costs. Every resumed call really hits the provider, and it only "
                     "works because the resend carries exactly the same parameters. And the "
                     "safety margin means a run resumed a little before the 24 hours are up "
                     "is already escalated rather than retried, so some cases go to a human "
                     "that strictly would not have needed to."},
     {"passed": True,
      "why": "intent-and-result + derived key + retry-within-retention: clean; escalates W2-W4 "
             "after 25 h; the margin and resend cost are true",
      "voice": "verbose"}),

    ("h13-bad-verbose-snapshot",
     {"checkpoint": "Rather than writing on every tool call, we snapshot the whole agent state "
                    "every couple of steps, the way LangGraph checkpoints at each super-step. "
                    "This keeps the write load low and means the snapshot always contains a "
                    "consistent picture of the run.",
      "idempotency": "Each charge carries a key derived from the run id, the step index and a "
                     "hash of the payload, so a retried charge looks identical to the "
                     "provider and is deduplicated.",
      "resumeProtocol": "After a crash we restore the latest snapshot and continue from "
                        "there. For any tool call that the snapshot shows as started but not "
                        "finished, we look it up by its key and only resend when the provider "
                        "does not know it.",
      "failureMode": "Between two snapshots we may redo a little work after a crash, which is "
                     "cheap because the keys make re-executed charges harmless."},
     {"passed": False,
      "why": "periodic snapshot loses the model's decision: the re-asked model picks another "
             "amount, the derived key changes, W3-W5 charge twice; the failure mode claims the "
             "keys make it harmless",
      "voice": "verbose"}),

    ("h13-bad-verbose-fail-and-refund",
     {"checkpoint": "The intent of each call is journaled before it is dispatched and the "
                    "result is journaled after it, so we always know which calls were left "
                    "open by a crash.",
      "idempotency": "Keys are derived from the run, the step and a digest of the arguments, "
                     "so the same call always has the same key.",
      "resumeProtocol": "We take the conservative route: if the resumed run finds a call that "
                        "was started but has no result, it does not try to finish it. It fails "
                        "the run and compensates, refunding every charge for which we hold a "
                        "receipt and cancelling bookings, and the customer can simply order "
                        "again.",
      "failureMode": "Occasionally we lose an order that could have gone through, but we never "
                     "leave a customer charged for something they did not get."},
     {"passed": False,
      "why": "fail-and-compensate: a W3/W4 charge has no receipt, so nothing refunds it (wrong "
             "result), and W2 loses the order; the failure mode claims a safety it lacks",
      "voice": "verbose"}),

    ("h13-bad-verbose-no-human-ever",
     {"checkpoint": "An intent record goes into the journal before the charge request is "
                    "sent, and the receipt is recorded when it arrives.",
      "idempotency": "We derive the key from the run id, step and payload hash so that "
                     "every attempt for the same logical charge reuses it.",
      "resumeProtocol": "Replay the journal; for an intent with no result, ask the provider by "
                        "key. If it has the charge, record it; if not and we are inside the "
                        "retention window, resend with the same key; outside it, escalate.",
      "failureMode": "None worth mentioning in practice: because the key is derived and we "
                     "always look before we resend, recovery is fully automatic however long "
                     "the worker was down, and no human ever has to step in."},
     {"passed": False, "contradiction": True,
      "why": "the design is the right one, but its failure mode is false: past 24 h a W2-W4 "
             "charge crash escalates to an operator, which its own resume field says",
      "voice": "verbose"}),

    # ------------------------------------------------------------------ non-native
    ("h13-good-nonnative-derived-lookup",
     {"checkpoint": "Before we call the payment API we are writing the intention in the "
                    "journal (which tool, the arguments and the key) and it is commited. After "
                    "the answer come back we write also the result.",
      "idempotency": "The key is make from run id, the step number and the hash of payload, "
                     "so for every retry it is the same key, never a new one.",
      "resumeProtocol": "When the run restart, for each intention without result we ask first "
                        "the provider with this key. If provider have it, we take the receipt. "
                        "If not and it is less than 24 hours, we send again with same key. "
                        "More than 24 hours we don't send, we give it to a human operator.",
      "failureMode": "If the worker is dead more long than one day, the crash between "
                     "intention and result can not be decided automatic, somebody must check "
                     "the provider dashboard."},
     {"passed": True,
      "why": "intent-and-result + derived key + replay-and-lookup: clean; the late escalation "
             "is the true failure mode",
      "voice": "non-native"}),

    ("h13-good-nonnative-reference",
     {"checkpoint": "We save in database the intent of the charge before to send it, and the "
                    "response when it arrives.",
      "idempotency": "Our provider don't deduplicate, so we put our own reference in every "
                     "charge. The provider keep this reference and we can search with it "
                     "later.",
      "resumeProtocol": "After crash, for the charge without response we search first by the "
                        "reference. If it exist we take it as the result; only if it not "
                        "exist we send the charge again with the same reference.",
      "tradeOff": "It work only because our provider has a search by reference; many "
                  "providers don't offer it, and each recovery cost one more call."},
     {"passed": True,
      "why": "intent-and-result + client reference + lookup: clean at once and after 25 h; "
             "needing a search endpoint is a true limit",
      "voice": "non-native"}),

    ("h13-good-nonnative-stored-retention",
     {"checkpoint": "Intent is write in the journal before the request go out, with the key "
                    "inside. Result is write after.",
      "idempotency": "The UUID is created one time, when we write the intent, and it is saved "
                     "together. Retries read it from the journal, they never create other "
                     "one.",
      "resumeProtocol": "We don't ask the provider. We just send again with the same saved key "
                        "while the provider still remember keys (24 h). After this time we "
                        "stop and escalate the run to operator.",
      "tradeOff": "Need one more write in the database before each call, so a little bit "
                  "slower, and long outages finish with a person."},
     {"passed": True,
      "why": "intent-and-result + stored key + retry-within-retention: clean; both costs are "
             "true",
      "voice": "non-native"}),

    ("h13-bad-nonnative-in-memory",
     {"checkpoint": "We keep the state of the run in the memory of the worker, it is more "
                    "fast than a database and the run is short anyway.",
      "idempotency": "The key is calculated from run id, the step and the payload, so it is "
                     "always the same for the same charge.",
      "resumeProtocol": "If the worker crash, another worker start the run again from the "
                        "beginning; because the key is the same, the provider will see the "
                        "duplicate and ignore it.",
      "failureMode": "Some work is done two times after a crash, but no double payment thanks "
                     "to the key."},
     {"passed": False,
      "why": "no checkpoint: the model is asked again, decides another amount, the derived key "
             "changes and the charge is made twice; the failure mode's safety is false",
      "voice": "non-native"}),

    ("h13-bad-nonnative-resend-any-age",
     {"checkpoint": "Before the call we write the intent in the journal; after the call, the "
                    "result.",
      "idempotency": "Key from the run id plus the step plus hash of the arguments, same key "
                     "each time.",
      "resumeProtocol": "When we resume, we ask the provider with the key. If the provider say "
                        "'not found', we send again with the same key, also if it was many "
                        "days ago, because a same key can not make a second charge.",
      "failureMode": "A lookup is one more request on every recovery."},
     {"passed": False,
      "why": "resends after the 24 h window: past retention the key is pruned, 'not found' "
             "proves nothing and the resend charges twice (W3/W4 after 25 h)",
      "voice": "non-native"}),

    ("h13-bad-nonnative-reference-as-key",
     {"checkpoint": "The intent is saved before we call the provider, the answer after.",
      "idempotency": "We use the order number as reference in each charge, the provider store "
                     "it with the payment.",
      "resumeProtocol": "If there is a crash we send the charge again with the same order "
                        "reference inside 24 hours, the provider will recognise it is the "
                        "same; after 24 hours we escalate.",
      "failureMode": "After one day it need a human."},
     {"passed": False,
      "why": "a client reference is stored, not deduplicated: resending it without searching "
             "first charges twice in W3/W4 even at once",
      "voice": "non-native"}),

    # ------------------------------------------------------------------ outbox
    ("h13-good-outbox-lookup",
     {"checkpoint": "The order's state change and an outbox row (charge, args, effect key) "
                    "are committed in one local transaction before anything is sent; the "
                    "dispatcher writes the provider's receipt back onto the row.",
      "idempotency": "The effect key on the row is derived from the run id, the step and a "
                     "digest of the payload, so a row re-dispatched by any worker carries the "
                     "same key.",
      "resumeProtocol": "On startup the dispatcher takes rows that were sent but have no "
                        "receipt and asks the provider by key. Found: store the receipt. Not "
                        "found and the row is younger than the 24 h key window: dispatch it "
                        "again with the same key. Older: mark it needs-review and stop.",
      "failureMode": "Rows older than the provider's key window that never got a receipt land "
                     "in a manual review queue instead of settling themselves."},
     {"passed": True,
      "why": "outbox row = intent before dispatch, derived key, lookup then resend within "
             "retention, escalate past it: clean; the review queue is the true late case",
      "voice": "outbox"}),

    ("h13-good-outbox-stored-resend",
     {"checkpoint": "A queue worker consumes an outbox table; the row, with its idempotency "
                    "key, is inserted in the same transaction as the business update, i.e. "
                    "before the provider is called, and the response is written back after.",
      "idempotency": "The key is a UUID generated when the outbox row is inserted and stored "
                     "in the row; every delivery attempt of that row uses it.",
      "resumeProtocol": "Rows without a response are redelivered with their stored key, but "
                        "only while the row is younger than the provider's 24 h key "
                        "retention; older rows are not redelivered and go to an operator.",
      "tradeOff": "There is no lookup, so every redelivery is a real request and we depend on "
                  "the provider replaying its saved response for identical parameters."},
     {"passed": True,
      "why": "intent journaled (outbox row) + stored key + retry-within-retention: clean; the "
             "trade-off is true",
      "voice": "outbox"}),

    ("h13-good-outbox-reference",
     {"checkpoint": "The outbox row for the charge (payload plus our charge reference) is "
                    "committed before the worker sends anything; the result goes onto the row "
                    "afterwards.",
      "idempotency": "No idempotency key is available from this provider; instead each charge "
                     "carries the row's reference, which the provider stores and lets us "
                     "search, though it will happily accept the same reference twice.",
      "resumeProtocol": "A row without a result is never resent straight away: the worker "
                        "first searches the provider for the reference, records the charge if "
                        "it finds it, and resends only if the search comes back empty.",
      "failureMode": "Since the provider does not dedupe, correctness rests entirely on the "
                     "search step; a second worker delivering the same row concurrently, or a "
                     "lagging search index, would produce a double charge."},
     {"passed": True,
      "why": "intent-and-result + client reference + lookup: clean even after 25 h; the "
             "dependency on the search is a true limit",
      "voice": "outbox"}),

    ("h13-bad-outbox-after-reply",
     {"checkpoint": "The worker calls the provider and then writes the outbox row together "
                    "with the receipt in one transaction, so the row and the charge always "
                    "agree.",
      "idempotency": "Deterministic key from run id, step number and payload hash.",
      "resumeProtocol": "On restart, replay; for a step with no row we look the charge up by "
                        "key and resend if the provider does not have it.",
      "failureMode": "If the database is down right after the charge, the receipt is lost "
                     "until the lookup finds it again."},
     {"passed": False,
      "why": "the row is written after the call (result-only): no record of the send, so after "
             "25 h the pruned key makes a W3/W4 resend a second charge",
      "voice": "outbox"}),

    ("h13-bad-outbox-redelivery",
     {"checkpoint": "Outbox row with the effect key inserted in the business transaction, "
                    "before publishing to the queue; the consumer acks after writing the "
                    "receipt.",
      "idempotency": "Effect key derived from run, step and payload; the message carries it "
                     "as the Idempotency-Key header.",
      "resumeProtocol": "The queue redelivers any unacked message, and the consumer simply "
                        "sends it again with the header; the provider deduplicates.",
      "failureMode": "At-least-once delivery means duplicates reach the provider, but the key "
                     "absorbs them."},
     {"passed": False,
      "why": "blind resend with no age check: a redelivery after 25 h finds the key pruned and "
             "charges twice (W3/W4); the failure mode claims the key always absorbs it",
      "voice": "outbox"}),

    ("h13-bad-outbox-client-key",
     {"checkpoint": "Outbox row committed with the payload before the worker touches the "
                    "network; the response is stored on the row.",
      "idempotency": "We rely on the HTTP client library, which adds an Idempotency-Key "
                     "header to each request it sends.",
      "resumeProtocol": "Rows with no response are re-sent if they are younger than 24 h; "
                        "older ones are flagged for a person.",
      "tradeOff": "An extra table and a polling worker to operate."},
     {"passed": False,
      "why": "the client library makes a new key per request (a key per attempt): a W3/W4 "
             "resend within the day is a second charge",
      "voice": "outbox"}),

    # ------------------------------------------------------------------ code
    ("h13-good-code-derived-lookup",
     {"checkpoint": "with store.transaction():\n    journal.append(Intent(step, tool, args, "
                    "key))\nresp = provider.charge(**args, idempotency_key=key)\n"
                    "journal.append(Result(step, resp))",
      "idempotency": "key = sha256(f'{run_id}:{step}:{canonical_json(args)}').hexdigest()  "
                     "# same on every attempt",
      "resumeProtocol": "for it in journal.open_intents():\n    hit = provider.lookup(it.key)\n"
                        "    if hit: journal.append(Result(it.step, hit))\n"
                        "    elif now - it.sent_at < RETENTION - MARGIN: "
                        "provider.charge(**it.args, idempotency_key=it.key)\n"
                        "    else: raise NeedsOperator(it)  # 'not found' means nothing now",
      "failureMode": "# cost: one committed journal write before every provider call, and a "
                     "W2-W4 crash resumed after 24h parks the run for a human"},
     {"passed": True,
      "why": "intent-and-result + derived key + lookup/resend within retention/escalate: "
             "clean; both costs are true",
      "voice": "code"}),

    ("h13-good-code-stored-lookup",
     {"checkpoint": "def call(tool, args):\n    intent = journal.open_intent(tool, args)  # "
                    "committed before send\n    res = send(intent)\n    "
                    "journal.close_intent(intent, res)",
      "idempotency": "# in open_intent, same transaction as the row:\nintent.key = "
                     "uuid4().hex\n# retries and resumes read intent.key, never call uuid4() "
                     "again",
      "resumeProtocol": "found = provider.lookup(intent.key)\nif found: "
                        "journal.close_intent(intent, found)\nelif intent.age < "
                        "timedelta(hours=24): send(intent)  # same key\nelse: "
                        "mark_uncertain(intent)  # operator decides",
      "tradeOff": "The key can't be rebuilt from the inputs, so losing the intent row loses "
                  "the key; and runs recovered after a day wait for an operator."},
     {"passed": True,
      "why": "intent-and-result + stored key + lookup: clean; the trade-off is true",
      "voice": "code"}),

    ("h13-good-code-reference-lookup",
     {"checkpoint": "journal.write(intent)  # tool, args, ref -- before the request\n"
                    "res = pay.charge_with_reference(ref, **args)\njournal.write(result(res))",
      "idempotency": "ref = intent.effect_key  # a stable reference the provider stores and "
                     "can find, but does NOT dedupe on",
      "resumeProtocol": "hit = pay.find_by_reference(ref)\nif hit is not None: "
                        "journal.write(result(hit))\nelse: res = "
                        "pay.charge_with_reference(ref, **args)  # provably not charged yet",
      "failureMode": "# no provider-side dedup: any code path that sends without calling "
                     "find_by_reference first can charge twice"},
     {"passed": True,
      "why": "intent-and-result + client reference + lookup: clean at once and after 25 h; "
             "the missing provider dedup is a true limit",
      "voice": "code"}),

    ("h13-bad-code-attempt-key",
     {"checkpoint": "journal.append(Intent(step, args))   # before\nr = "
                    "provider.charge(args, key)\njournal.append(Result(step, r))  # after",
      "idempotency": "key = f\"{run_id}-{step}-{attempt}\"  # unique per run and step",
      "resumeProtocol": "if not journal.has_result(step):\n    if provider.lookup(key) is "
                        "None:\n        attempt += 1\n        provider.charge(args, "
                        "f\"{run_id}-{step}-{attempt}\")",
      "failureMode": "# a lookup per unfinished step"},
     {"passed": False,
      "why": "the attempt counter is in the key, so every attempt has a new key: a W3/W4 crash "
             "is charged again even at once",
      "voice": "code"}),

    ("h13-bad-code-blind-resend",
     {"checkpoint": "store.append(intent)  # tool, args, key, sent_at\n... call ...\n"
                    "store.append(outcome)",
      "idempotency": "key = effect_key(run_id, step, tool, digest(args))",
      "resumeProtocol": "for it in store.unresolved():\n    provider.charge(**it.args, "
                        "idempotency_key=it.key)  # provider dedupes within 24h; our workers "
                        "restart in seconds",
      "failureMode": "# worst case: a worker that stays down for more than a day"},
     {"passed": False,
      "why": "blind resend with no age check: recovered after 25 h the key is pruned and W3/W4 "
             "charge twice; the honest comment does not make the design safe",
      "voice": "code"}),

    ("h13-bad-code-refund-and-fail",
     {"checkpoint": "journal.intent(call)  # before dispatch\nres = dispatch(call)\n"
                    "journal.result(call, res)",
      "idempotency": "call.key = hash((run_id, call.step, canonical(call.args)))",
      "resumeProtocol": "if journal.unresolved(run):\n    for r in journal.receipts(run): "
                        "refund(r.charge_id, key='ck_' + r.key)\n    run.fail('gave up "
                        "after crash')",
      "failureMode": "# we give up the order, but everything charged gets refunded"},
     {"passed": False,
      "why": "fail-and-compensate: a W3/W4 charge has no receipt, so it is never refunded "
             "(wrong result), and W2 loses the order; the comment's promise is false",
      "voice": "code"}),

    # ------------------------------------------------------------------ stuffed
    ("h13-good-stuffed-derived",
     {"checkpoint": "Durable execution over a write-ahead, event-sourced journal: the intent "
                    "event (tool, args, effect key) is committed and fsynced before dispatch, "
                    "the tool_result event after; replay-safe, crash-consistent.",
      "idempotency": "Deterministic, payload-bound idempotency key (Idempotency-Key header) = "
                     "hash(run_id, step, canonical payload digest); stable across retries, "
                     "workers and restarts; provider-side dedup gives effectively-once charges.",
      "resumeProtocol": "Replay the event history; reconcile each unresolved intent via "
                        "lookup-by-key; not found inside the 24h retention window -> same-key "
                        "redispatch; past retention -> EffectKeyMayBePruned, run UNCERTAIN, "
                        "operator escalation (human-in-the-loop).",
      "failureMode": "Trade-off: write amplification (one extra synchronous commit per effect) "
                     "plus an operator queue for W2-W4 charge crashes recovered past retention."},
     {"passed": True,
      "why": "jargon-heavy but one consistent design: intent-and-result + derived key + "
             "lookup/retention/escalate; the stated costs are true",
      "voice": "stuffed"}),

    ("h13-good-stuffed-stored",
     {"checkpoint": "ACID write-ahead intent log: intent + idempotency key persisted "
                    "atomically pre-dispatch (outbox semantics), receipt appended "
                    "post-dispatch as the step's terminal event.",
      "idempotency": "Client-generated UUIDv4 idempotency key minted exactly once per logical "
                     "operation inside the intent transaction, persisted, and replayed "
                     "verbatim on every attempt (attempt != operation).",
      "resumeProtocol": "Reconciliation without lookup (Stripe-style): same-key resend while "
                        "the intent is within the provider's 24h key retention minus safety "
                        "margin; beyond it no redispatch, escalate to an operator with the "
                        "unresolved intent.",
      "tradeOff": "Latency of a synchronous pre-dispatch commit; non-recomputable key (lose "
                  "the log, lose the key); retention-bounded automation."},
     {"passed": True,
      "why": "intent-and-result + stored key + retry-within-retention: clean; the trade-offs "
             "are true",
      "voice": "stuffed"}),

    ("h13-good-stuffed-reference",
     {"checkpoint": "Transactional intent journaling (WAL) before each side-effecting call, "
                    "result journaling after; at-least-once dispatch guarded by "
                    "reconciliation.",
      "idempotency": "Provider has no dedup on our identifier: we attach a stable "
                     "client-reference (correlation id = effect key) that the provider "
                     "persists and indexes for search; explicitly not an idempotency key.",
      "resumeProtocol": "Lookup-before-resend reconciliation: query find-by-reference for every "
                        "unresolved intent; hit -> adopt receipt; miss -> redispatch with the "
                        "same reference. No retention horizon, references never expire.",
      "failureMode": "Single point of truth is the provider's search index: read-after-write "
                     "lag or eventual consistency there turns a miss into a duplicate charge."},
     {"passed": True,
      "why": "intent-and-result + client reference + lookup: clean at once and after 25 h; "
             "search consistency is a true limit",
      "voice": "stuffed"}),

    ("h13-bad-stuffed-soup",
     {"checkpoint": "Belt and braces: write-ahead intents, result logging after each call and "
                    "periodic state snapshots, all in an event-sourced store.",
      "idempotency": "Idempotency keys everywhere: derived keys, per-request UUIDs or client "
                     "references, whichever the provider supports.",
      "resumeProtocol": "Resilient recovery: lookup, blind retry with exponential backoff, "
                        "saga compensation and escalation, chosen at runtime.",
      "failureMode": "Exactly-once, idempotent, durable and fault tolerant end to end."},
     {"passed": False,
      "why": "keyword stuffing: every field names several exclusive mechanisms, so no design "
             "is chosen; the failure mode is a claim of safety, not a cost",
      "voice": "stuffed"}),

    ("h13-bad-stuffed-no-mechanism",
     {"checkpoint": "A robust, event-driven, ACID-compliant persistence layer guarantees "
                    "durable, consistent state at all times.",
      "idempotency": "End-to-end idempotency is enforced across all microservices following "
                     "industry best practices (Stripe, Temporal, DBOS).",
      "resumeProtocol": "Self-healing orchestration automatically reconciles and resumes any "
                        "interrupted workflow with zero data loss.",
      "failureMode": "Observability and alerting (SLOs, tracing) detect anomalies early."},
     {"passed": False,
      "why": "buzzwords with no mechanism: no moment of the checkpoint, no key source, no "
             "resume action; the failure mode names no limit of the design",
      "voice": "stuffed"}),

    ("h13-bad-stuffed-escalate-all",
     {"checkpoint": "WAL-style intent-before-dispatch journaling with post-dispatch result "
                    "events, durable and replayable.",
      "idempotency": "Deterministic effect key (run_id + step + payload digest), stable across "
                     "attempts, payload-bound.",
      "resumeProtocol": "Zero-trust recovery: any unresolved intent transitions the run to "
                        "UNCERTAIN for human-in-the-loop adjudication; no automated lookup, "
                        "no automated redispatch, ever.",
      "tradeOff": "Operator toil: every crash in W2-W4 needs a person."},
     {"passed": False,
      "why": "escalate-everything: a W2-W4 crash recovered at once is left stuck although the "
             "key would settle it; stuck within retention is not accepted",
      "voice": "stuffed"}),

    # ------------------------------------------------------------------ contradicting
    ("h13-good-contra-negations",
     {"checkpoint": "Not result-only: the intent goes to the journal before the request, and "
                    "the result after it.",
      "idempotency": "Not a random key per attempt, and not merely a reference the provider "
                     "can search: a key derived from run, step and payload digest.",
      "resumeProtocol": "Never resend blindly. First look the key up; not found and inside "
                        "24 h, resend the same key; past that, no resend, escalate.",
      "failureMode": "It doesn't get rid of operators: a W3 crash noticed after a day still "
                     "goes to one."},
     {"passed": True,
      "why": "negated alternatives, one clear design: intent-and-result + derived key + lookup; "
             "the late escalation is true",
      "voice": "contradicting"}),

    ("h13-good-contra-revised",
     {"checkpoint": "My first draft saved the result only after the call; I changed it. Now "
                    "the intent, with its key, is committed before the call and the result "
                    "after.",
      "idempotency": "I had a UUID per request at first, which is wrong because each retry "
                     "then looks new. Now the UUID is created once per operation and stored "
                     "in the intent.",
      "resumeProtocol": "I also dropped the blind retry: an open intent is resent with its "
                        "stored key only within the provider's 24 h retention, otherwise the "
                        "run escalates to an operator.",
      "tradeOff": "Every call now costs an extra write up front, and there is no lookup, so "
                  "each recovery inside the window is a real resend."},
     {"passed": True,
      "why": "self-corrected to intent-and-result + stored key + retry-within-retention: "
             "clean; the stated costs are true",
      "voice": "contradicting"}),

    ("h13-good-contra-no-key-but-reference",
     {"checkpoint": "The agent journals what it is about to charge before it charges, and "
                    "the provider's answer afterwards.",
      "idempotency": "We don't send an idempotency key (the provider wouldn't honour one); we "
                     "attach a client reference to the charge, which the provider keeps and "
                     "lets us search.",
      "resumeProtocol": "Nothing is resent before a search by that reference says the charge "
                        "isn't there. No escalation is needed for age, since references don't "
                        "expire the way keys do.",
      "failureMode": "No key means the provider won't catch our mistakes: a code path that "
                     "skips the search charges twice."},
     {"passed": True,
      "why": "intent-and-result + client reference + lookup: clean at once and after 25 h "
             "(the no-escalation claim is true here); the stated limit is true",
      "voice": "contradicting"}),

    ("h13-bad-contra-replay-no-journal",
     {"checkpoint": "We don't persist anything; the agent is stateless and cheap to restart.",
      "idempotency": "Key derived from run id, step and payload hash.",
      "resumeProtocol": "Replay the journal up to the last completed step and look up the "
                        "open intent by key before resending.",
      "failureMode": "Past 24 h an open intent escalates."},
     {"passed": False, "contradiction": True,
      "why": "replay and open intents need a journal the checkpoint says does not exist; as "
             "built (no checkpoint) the re-asked model changes the amount and charges twice",
      "voice": "contradicting"}),

    ("h13-bad-contra-key-random-in-failure",
     {"checkpoint": "Intent written to the journal before dispatch, the receipt after.",
      "idempotency": "The key is derived from the run id, the step and the payload digest.",
      "resumeProtocol": "Look the charge up by key; resend with the same key within 24 h; "
                        "escalate after.",
      "failureMode": "Since the key is a fresh random UUID, a retry after a crash can look "
                     "like a new payment, so a W3 crash may charge twice."},
     {"passed": False, "contradiction": True,
      "why": "the failure mode says the key is random while the idempotency field derives it, "
             "and the double charge it claims does not happen in this design",
      "voice": "contradicting"}),

    ("h13-bad-contra-intent-after-answer",
     {"checkpoint": "We journal the intent of each call, but only once the provider has "
                    "answered, so the journal never holds half-finished calls.",
      "idempotency": "Stable key from run, step and arguments, reused on retries.",
      "resumeProtocol": "Replay; every unresolved intent is looked up by key and resent only "
                        "if the provider has never seen it.",
      "failureMode": "The journal write after each call adds latency."},
     {"passed": False, "contradiction": True,
      "why": "an intent written after the answer is result-only, and there are no unresolved "
             "intents to look up; after 25 h a W3/W4 charge is resent and doubled",
      "voice": "contradicting"}),
]
