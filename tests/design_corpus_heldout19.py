"""Held-out corpus HELDOUT19: 42 designOutline() answers, written blind to the grader.

Written blind (s13, writer19): its author read the lesson 05b notebook, lessons 04 and 05 and
minirt_course/scenarios/design_payment.py (the crash sweep), never the grader, its vocabulary,
its tests or the other corpora. It is measured once; do not tune the reader on it.

Invariant: 21 entries with ``passed: True`` (an outline whose design the sweep finds clean in
every window, recovered at once and after 25 h, with a failure mode or trade-off that is true
of it) and 21 with ``passed: False`` (a plausible mistake, named in ``why``); entry names are
unique. Voices: interview-answer 7, non-native-english 7, state-machine 7, code-comments 7,
cautious-skeptic 7, keyword-stuffed 3, self-contradicting 4 (the last two only among the bad
ones). Each verdict is a careful human reading of the text, checked against the sweep rules of
design_payment.py. Not guaranteed: that the grader agrees (that is what is measured), nor that
the voices cover every way learners write.
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT19: list[Entry] = [
    # ------------------------------------------------------------------ good: interview-answer
    ("h19-good-interview-derived-lookup",
     {"checkpoint": "So, um, I'd write the intent down first: which tool, the arguments, the "
                    "key, into the run's journal, and commit that before the HTTP request goes "
                    "out. Then when the answer comes back, a second record with the result.",
      "idempotency": "The key, I think I'd just derive it from things that don't change between "
                     "attempts, like the run id, which step we're on, and a hash of the payload. "
                     "So a retry sends literally the same key.",
      "resumeProtocol": "On restart you replay the journal, and if there's an intent with no "
                        "result, you ask the provider, hey, do you have a charge under this key? "
                        "If yes, take that receipt. If not, and we're still inside the 24 hours "
                        "the provider remembers keys, resend with the same key. Past that I "
                        "wouldn't touch it, I'd hand it to a person.",
      "failureMode": "The downside is the late case. If we come back after more than a day, "
                     "anything that crashed mid-call just sits there waiting for someone, even "
                     "if the charge never actually went out."},
     {"passed": True, "why": "intent before the call, derived key, lookup then same-key resend "
                             "within retention, escalate past it; the late W2-W4 escalation it "
                             "names is true",
      "voice": "interview-answer"}),

    ("h19-good-interview-stored-uuid",
     {"checkpoint": "Honestly the main thing is write-ahead. Before calling charge I commit a "
                    "row that says 'about to charge 42 EUR, key such-and-such', and after it "
                    "returns I add the receipt to it.",
      "idempotency": "I'd generate a UUID once, when the operation is first planned, and keep "
                     "it in that same row. Retries read it back from the row instead of making "
                     "a new one.",
      "resumeProtocol": "Resume reads the rows. Anything pending, I'd query the provider by that "
                        "stored key first. Found means done. Not found, I resend with the same "
                        "UUID, but only if the row is younger than the key window; otherwise it "
                        "goes to an operator queue.",
      "tradeOff": "You pay for it with an extra synchronous write before every charge, and an "
                  "extra lookup call on recovery. For payments I think that's fine."},
     {"passed": True, "why": "stored key journaled with the intent (same on every attempt), "
                             "lookup first, resend only within the window, escalate past it; "
                             "the costs named are real",
      "voice": "interview-answer"}),

    ("h19-good-interview-stripe-resend",
     {"checkpoint": "Okay, so, the intent goes into the journal before dispatch, committed, and "
                    "the result goes in afterwards. That part's pretty standard.",
      "idempotency": "The key is derived: run id plus step index plus a digest of the args. "
                     "Same every attempt, nothing random in it.",
      "resumeProtocol": "Stripe doesn't really let you look up by idempotency key, right? So on "
                        "resume I'd resend the exact same request with the same key, because "
                        "within the 24 hours Stripe hands back the original response instead of "
                        "charging again. If the intent is older than that, minus some margin, I "
                        "stop and escalate instead of resending.",
      "failureMode": "Where it hurts: the resend has to carry exactly the same parameters, and "
                     "after the window you need a human to go and check the dashboard."},
     {"passed": True, "why": "retry-within-retention with a derived key and a journaled intent: "
                             "the same-key resend is deduplicated inside 24 h, escalated past "
                             "it; both limits named are true",
      "voice": "interview-answer"}),

    ("h19-good-interview-short",
     {"checkpoint": "Journal the intent, committed, before the call; the result after it.",
      "idempotency": "Key = hash of run id, step and payload. Stable across retries and workers.",
      "resumeProtocol": "I guess: replay, then for any dangling intent do a lookup by key; if "
                        "it's missing and we're still within retention, resend with the same "
                        "key, otherwise escalate.",
      "failureMode": "I'd say the cost is operator work: a crash left for over 24 hours can't "
                     "be settled automatically."},
     {"passed": True, "why": "the lesson's safe design in few words; the failure mode (late "
                             "recovery needs an operator) is true",
      "voice": "interview-answer"}),

    # ---------------------------------------------------------------- good: non-native-english
    ("h19-good-nonnative-derived-lookup",
     {"checkpoint": "Before to call the payment API, the agent write in the journal the intent "
                    "(which tool, the arguments, the key) and make commit. After the API answer, "
                    "it write the result also.",
      "idempotency": "The key is make from run id, number of step and hash of the payload, so "
                     "every retry have the same key, also when another worker continue.",
      "resumeProtocol": "When the run restart, it read again the journal. If one intent has not "
                        "result, first it ask the provider with the key if the charge exist. If "
                        "exist, take the receipt. If not exist and the intent is less old than "
                        "24 hours, it send again with same key. If more old, it not send, it "
                        "wait a human operator.",
      "failureMode": "If the worker come back after more than one day, the run stay uncertain "
                     "and somebody must check the provider by hand."},
     {"passed": True, "why": "intent committed before the call, derived key, lookup then "
                             "same-key resend under 24 h, operator past it; failure mode true",
      "voice": "non-native-english"}),

    ("h19-good-nonnative-stored-id",
     {"checkpoint": "We are persisting an 'intention' record in the database in the moment we "
                    "decide to pay, and we commit it before the request is leaving. The answer "
                    "of provider is persisted after, as second record.",
      "idempotency": "A random identifier is generated only one time per operation and it is "
                     "saved inside the intention record; all the attempts are reusing it, nobody "
                     "is generating a new one.",
      "resumeProtocol": "At resume, for each intention without answer we interrogate the "
                        "provider by this identifier. Found: we take it as result. Not found: "
                        "we retry with the same identifier, only if we are still inside the "
                        "retention of the provider (24h). Outside of it we escalate to a person, "
                        "no automatic retry.",
      "tradeOff": "It costs one more write in database before each payment, so the call is a "
                  "little bit more slow."},
     {"passed": True, "why": "a random key made once and journaled with the intent is the same "
                             "on every attempt; lookup, resend within retention, escalate past "
                             "it; the extra write is a true cost",
      "voice": "non-native-english"}),

    ("h19-good-nonnative-client-reference",
     {"checkpoint": "Intent is write to the journal and committed before we send the charge; "
                    "result is write when it come back.",
      "idempotency": "This provider don't deduplicate, so we put our own reference on the "
                     "charge (made from run id and step) and the provider keep it and let us "
                     "search by it. It is not a real idempotency key.",
      "resumeProtocol": "On resume, for a intent without result, we search the charge by our "
                        "reference first. If found we use it; only if really not found we send "
                        "again with the same reference. Never we send again without searching "
                        "before.",
      "failureMode": "Because the reference is not deduplicated, all the safety depend on the "
                     "search: if some code resend without to search, we get two charges."},
     {"passed": True, "why": "client reference plus lookup with a journaled intent: the "
                             "provider keeps references forever, so the search settles every "
                             "window even after 25 h; the dependency on searching first is true",
      "voice": "non-native-english"}),

    ("h19-good-nonnative-terse",
     {"checkpoint": "intent journaled + committed before call, result after",
      "idempotency": "same key each attempt: derived of run id + step + args hash",
      "resumeProtocol": "resume: lookup by key -> found ok / not found and <24h resend same key "
                        "/ >24h escalate to human",
      "failureMode": "after 24h also a crash before sending (W2) go to human, is a bit wasteful"},
     {"passed": True, "why": "safe design in shorthand; true that past retention a W2 crash "
                             "(nothing charged) is escalated too",
      "voice": "non-native-english"}),

    # --------------------------------------------------------------------- good: state-machine
    ("h19-good-state-reconciling",
     {"checkpoint": "States per call: PLANNED -> INTENT_COMMITTED (journal row with tool, args, "
                    "key and timestamp, committed) -> SENT -> RESULT_COMMITTED. The transition "
                    "to SENT is only allowed from INTENT_COMMITTED.",
      "idempotency": "The key is fixed in PLANNED: derived from (run_id, step, sha256(args)); "
                     "no later transition or retry changes it.",
      "resumeProtocol": "On recovery every call in INTENT_COMMITTED or SENT goes to RECONCILING: "
                        "lookup(key). found -> RESULT_COMMITTED with the provider's receipt. "
                        "not_found and age < retention -> SENT again, same key. not_found and "
                        "age >= retention -> UNCERTAIN (operator).",
      "failureMode": "UNCERTAIN is terminal until a human acts, and after 25 h crashes in W2, "
                     "W3 and W4 all end up there."},
     {"passed": True, "why": "intent-and-result, derived key, lookup with the retention rule; "
                             "the UNCERTAIN landing after 25 h is exactly what the sweep shows",
      "voice": "state-machine"}),

    ("h19-good-state-pending-resend",
     {"checkpoint": "IDLE --decide--> DECIDED (decision journaled) --write intent--> PENDING "
                    "(intent and key committed) --send--> AWAITING --reply--> DONE (receipt "
                    "journaled).",
      "idempotency": "Key minted once on entering PENDING (a random uuid4) and stored in the "
                     "PENDING record; every resend reads it from there.",
      "resumeProtocol": "Recovery from PENDING or AWAITING: if now - pending.created_at is under "
                        "the provider's retention (24h, minus a margin) -> resend with the "
                        "stored key (a provider that already charged returns the first result) "
                        "-> DONE. Otherwise -> ESCALATED, nothing is sent.",
      "tradeOff": "No lookup needed, so it works with a Stripe-like API, but ESCALATED needs a "
                  "human and the resend must be the identical request."},
     {"passed": True, "why": "stored key kept in the intent, same-key resend only inside "
                             "retention, escalation past it: clean or escalated in every cell; "
                             "trade-off true",
      "voice": "state-machine"}),

    ("h19-good-state-needs-operator",
     {"checkpoint": "S0 start; S1 'charge intended' written and committed; S2 'charge done' "
                    "written with the receipt; S3 'booking intended'; S4 'booked'. Each effect "
                    "gets its own intended/done pair, and the intended record is durable before "
                    "the request leaves.",
      "idempotency": "Every intended record carries its key, computed deterministically from "
                     "run + step + payload digest.",
      "resumeProtocol": "Restart at the last committed state. If it is an 'intended' state with "
                        "no 'done': ask the provider by key. Yes -> move to done. No -> resend "
                        "with the same key if we are inside the provider's key window, "
                        "otherwise park in NEEDS_OPERATOR.",
      "failureMode": "The window check runs off the intent's timestamp, so a long outage (more "
                     "than 24h) parks runs that may never have charged at all."},
     {"passed": True, "why": "intent before each effect, derived key, lookup with retention, "
                             "escalation; true that late recovery parks even never-sent calls",
      "voice": "state-machine"}),

    ("h19-good-state-arrows",
     {"checkpoint": "journal: INTENT(step, tool, args, key, t0) committed -> call -> "
                    "RESULT(step, receipt)",
      "idempotency": "key := f(run_id, step, digest(args)), a pure function, identical on every "
                     "attempt",
      "resumeProtocol": "replay; for an INTENT without RESULT: LOOKUP(key) -> FOUND: write "
                        "RESULT | NOT_FOUND and now - t0 < 24h: RESEND(key) | NOT_FOUND and "
                        "now - t0 >= 24h: ESCALATE",
      "failureMode": "ESCALATE is reached for W2..W4 when recovery comes late",
      "tradeOff": "one extra write before each effect and one provider read per open intent on "
                  "recovery"},
     {"passed": True, "why": "the safe design as transitions; both the failure mode and the "
                             "trade-off are true",
      "voice": "state-machine"}),

    # --------------------------------------------------------------------- good: code-comments
    ("h19-good-code-python-comments",
     {"checkpoint": "# before dispatch: journal.append(Intent(step, tool, args, key)); "
                    "journal.commit()\n# after the provider answers: "
                    "journal.append(Result(step, receipt))",
      "idempotency": "def charge_key(run_id, step, args):\n    # same inputs -> same key, on "
                     "every retry and on every worker\n    return f\"{run_id}:{step}:"
                     "{sha256(canonical(args))}\"",
      "resumeProtocol": "# on resume, for each intent without a result:\n#   hit = "
                        "provider.lookup(intent.key)\n#   if hit: record(hit)\n#   elif now - "
                        "intent.at < RETENTION - MARGIN: resend(intent.key)\n#   else: raise "
                        "NeedsOperator(intent)  # the key may have been pruned",
      "failureMode": "# NeedsOperator fires for W2-W4 crashes recovered after 25h; someone has "
                     "to check the provider's records"},
     {"passed": True, "why": "intent committed before the call, derived key, lookup with "
                             "retention and escalation; failure mode true",
      "voice": "code-comments"}),

    ("h19-good-code-docstrings-uuid",
     {"checkpoint": "\"\"\"charge(): writes the intent row (args + op_key) and commits it "
                    "before the HTTP request; the receipt row is written after the "
                    "response.\"\"\"",
      "idempotency": "\"\"\"op_key is uuid4(), created when the intent row is created and read "
                     "back from that row on every retry; never regenerated.\"\"\"",
      "resumeProtocol": "\"\"\"resume(): for a pending intent, GET /charges?key=op_key. Found: "
                        "store the receipt. Missing: re-POST with the same op_key if the intent "
                        "is under 24 h old, else mark the run uncertain for ops.\"\"\"",
      "tradeOff": "\"\"\"Costs: one extra commit per charge on the hot path, one GET per "
                  "pending intent on recovery.\"\"\""},
     {"passed": True, "why": "stored key created with and read from the journaled intent, "
                             "lookup then same-key resend in the window, escalate past it; "
                             "costs true",
      "voice": "code-comments"}),

    ("h19-good-code-js-resend",
     {"checkpoint": "// write-ahead: persist {intent, key} and commit, then send; persist "
                    "{result} when it returns",
      "idempotency": "// key = hash(runId + stepNo + payloadDigest), deterministic, no "
                     "per-attempt suffix",
      "resumeProtocol": "// recovery: there's no lookup endpoint, so re-send the identical "
                        "request with the identical key\n// while the intent is inside the "
                        "provider's 24h key retention (the provider replays its stored answer);"
                        "\n// past retention: do NOT send, flag the run for a human",
      "failureMode": "// known gap: past 24h even an intent that never left the process gets "
                     "flagged, and ops has to settle it by hand"},
     {"passed": True, "why": "retry-within-retention with a derived key and a journaled intent; "
                             "true that past retention a W2 intent is escalated too",
      "voice": "code-comments"}),

    ("h19-good-code-reference-search",
     {"checkpoint": "# 1. journal the intent (commit)  2. call the provider  3. journal the "
                    "result",
      "idempotency": "# reference = f'{run_id}-{step}', attached to the charge as a client "
                     "reference\n# NOTE: the provider stores and indexes it but does not dedupe "
                     "on it",
      "resumeProtocol": "# resume: search_by_reference(ref) first, always\n#   found -> use "
                        "that charge as the step's result\n#   not found -> send again with the "
                        "same reference\n# never resend without searching",
      "tradeOff": "# the search is the only thing standing between us and a double charge: a "
                  "provider read per pending call, and we depend on that search being "
                  "accurate"},
     {"passed": True, "why": "client reference with lookup first and a journaled intent: clean "
                             "at once and after 25 h (references are kept forever); trade-off "
                             "true",
      "voice": "code-comments"}),

    ("h19-good-code-terse",
     {"checkpoint": "# intent committed pre-call; result post-call",
      "idempotency": "# effect_key(run, step, args digest): stable across attempts",
      "resumeProtocol": "# lookup(key) -> found: done; not found within retention: resend same "
                        "key; else escalate",
      "failureMode": "# late recovery (>24h) in W2-W4 blocks on an operator"},
     {"passed": True, "why": "terse but every mechanism is the safe one; failure mode true",
      "voice": "code-comments"}),

    # ------------------------------------------------------------------ good: cautious-skeptic
    ("h19-good-skeptic-limits",
     {"checkpoint": "I'd commit an intent record (tool, arguments, key, timestamp) before the "
                    "request goes out, and the result after. I'm wary of anything lighter: with "
                    "a result-only write, a crash after the provider commits leaves no trace "
                    "that we ever sent anything.",
      "idempotency": "A key derived from the run id, the step position and a digest of the "
                     "payload. The digest matters, it stops one key from ever standing for two "
                     "amounts. It is also only as stable as the decision it's derived from, "
                     "which is why the decision itself is journaled and never re-asked of the "
                     "model.",
      "resumeProtocol": "On resume, look the charge up by key before doing anything. Found: "
                        "record it. Not found and still inside the provider's retention: resend "
                        "with the same key. Not found past retention: 'not found' means nothing "
                        "any more, so stop and escalate.",
      "failureMode": "The limits as I see them: it relies on the provider offering a lookup at "
                     "all (Stripe doesn't, by key); past 24 h a W2-W4 crash needs a human; and "
                     "it says nothing about two workers resuming the same run at once, which "
                     "needs a lease."},
     {"passed": True, "why": "the safe design; every limit named is true of it (lookup "
                             "dependency, late escalation, concurrency out of scope)",
      "voice": "cautious-skeptic"}),

    ("h19-good-skeptic-provider-trust",
     {"checkpoint": "Intent journaled and committed before dispatch; receipt journaled after. "
                    "Nothing less will do for an irreversible charge.",
      "idempotency": "A random key, generated once per logical charge and stored in the intent "
                     "record. Random is fine as long as it is made once and persisted; the "
                     "danger is generating it inside the retry loop.",
      "resumeProtocol": "With no lookup available, recovery resends the same request under the "
                        "same stored key, but only while the intent is younger than the "
                        "provider's key retention minus a safety margin. Older than that I will "
                        "not resend: the run goes to an operator.",
      "failureMode": "I'm not fully comfortable with it. It rests on the provider honouring its "
                     "documented 24 h; if it pruned keys earlier than documented, a resend "
                     "inside our window could charge twice. And escalated runs need someone on "
                     "call."},
     {"passed": True, "why": "stored key in the intent plus retry-within-retention is clean or "
                             "escalated everywhere; its stated dependence on the provider's "
                             "retention and on an operator is true",
      "voice": "cautious-skeptic"}),

    ("h19-good-skeptic-costs-paragraph",
     {"checkpoint": "Write-ahead, and I'd insist on it: the intent (with its key) is committed "
                    "to the journal before the charge is sent, the result after it returns.",
      "idempotency": "The key is a deterministic function of run id, step and the payload's "
                     "digest, so a retry, a restart or a different worker all send the same "
                     "one.",
      "resumeProtocol": "Replay, and for an open intent ask the provider by that key first. If "
                        "the charge is there, take its receipt. If it isn't and we are within "
                        "the provider's 24 h, resend with the same key. Beyond that, escalate; "
                        "I don't trust a 'not found' from a provider that may have forgotten.",
      "tradeOff": "What it costs: a synchronous journal commit before every effect (latency on "
                  "the hot path), a provider read per unresolved intent on recovery, and "
                  "operator time for late recoveries. After 25 h even a call that was never "
                  "sent gets escalated, because the lookup cannot prove anything past "
                  "retention. I accept all that; a double charge is worse."},
     {"passed": True, "why": "safe design; the costs listed (write, read, operator time, W2 "
                             "escalated late) are all true",
      "voice": "cautious-skeptic"}),

    ("h19-good-skeptic-reference-only",
     {"checkpoint": "The intent goes into the journal, committed, before we call; the result "
                    "follows once it is back.",
      "idempotency": "This provider has no idempotency keys, only a client reference it stores "
                     "and lets us search by. I'd use run id + step as that reference. To be "
                     "clear, it does not protect against a duplicate on its own.",
      "resumeProtocol": "Every unresolved intent is searched for by its reference before "
                        "anything is sent. Found: that's our charge. Not found: send with the "
                        "same reference. Because the provider keeps references indefinitely, "
                        "'not found' stays meaningful even a day later.",
      "failureMode": "The risk sits in one place: any code path that resends without searching "
                     "first will double charge, since the provider happily accepts the same "
                     "reference twice. A blind retry loop in the HTTP client would defeat the "
                     "whole design."},
     {"passed": True, "why": "client reference with lookup and a journaled intent is clean even "
                             "after 25 h; the failure mode (a resend without a search charges "
                             "twice) is true",
      "voice": "cautious-skeptic"}),

    # ------------------------------------------------------------------- bad: interview-answer
    ("h19-bad-interview-result-only",
     {"checkpoint": "I'd keep it lean: once the payment call returns, write the receipt into "
                    "the journal, one write per call. There's no point writing before, there's "
                    "nothing to record yet.",
      "idempotency": "Key derived from run id, step and a hash of the payload, so it's the same "
                     "on every retry.",
      "resumeProtocol": "Replay, and for anything unfinished, look it up by key before "
                        "resending. If it's not there, resend with the same key.",
      "failureMode": "It's one journal write per call, so it's cheap, and the key covers the "
                     "retries."},
     {"passed": False, "why": "nothing persisted before the call (result only): a W3/W4 crash "
                              "recovered after 25 h finds no intent and nothing stops a resend "
                              "under a pruned key, a double charge",
      "voice": "interview-answer"}),

    ("h19-bad-interview-blind-same-key",
     {"checkpoint": "The intent goes in the journal before we call the provider, and the "
                    "result once it's back.",
      "idempotency": "A derived key, run id plus step plus payload digest, same every time.",
      "resumeProtocol": "I'd just resend it with the same key. The provider dedupes, that's "
                        "kind of the whole point of the key, so I don't think a lookup buys you "
                        "anything.",
      "failureMode": "If the provider is down we'd keep retrying with backoff, so recovery "
                     "could be slow."},
     {"passed": False, "why": "blind resend without lookup or age check: clean at once, but "
                              "after 25 h the key is pruned and a W3/W4 resend charges twice",
      "voice": "interview-answer"}),

    ("h19-bad-interview-always-escalate",
     {"checkpoint": "Intent written and committed before the call, result after it.",
      "idempotency": "The key's derived from the run, the step and the payload hash, so it's "
                     "stable.",
      "resumeProtocol": "Honestly I wouldn't automate this part. Any intent without a result, "
                        "the run just stops in an uncertain state and we page someone to go "
                        "check the provider.",
      "failureMode": "Slower recovery and more load on ops, but we never risk a double charge."},
     {"passed": False, "why": "escalates every open intent even when recovered at once, inside "
                              "retention, where a lookup would settle it: W2-W4 are stuck in the "
                              "at-once sweep",
      "voice": "interview-answer"}),

    # ----------------------------------------------------------------- bad: non-native-english
    ("h19-bad-nonnative-uuid-per-try",
     {"checkpoint": "Before the call we write the intent in journal and commit, after we write "
                    "the result.",
      "idempotency": "The key is a new UUID that the HTTP client create for each try, so the "
                     "provider can trace every request separately.",
      "resumeProtocol": "On resume we ask the provider with the key if the charge exist; if "
                        "not, and is less than 24h, we send again; more than 24h, operator.",
      "failureMode": "If the operator is slow, the order wait long time."},
     {"passed": False, "why": "key regenerated per attempt: the lookup asks about a key the "
                              "provider never saw and the resend carries a new one, so W3/W4 "
                              "charge twice",
      "voice": "non-native-english"}),

    ("h19-bad-nonnative-snapshot",
     {"checkpoint": "We save the state of the run in a snapshot every two steps, it is more "
                    "efficient than to write each event.",
      "idempotency": "Key is derived from the run id, the step and the payload of the charge.",
      "resumeProtocol": "After crash we restart from last snapshot and for the charge we look "
                        "up with the key before to send again.",
      "failureMode": "If the crash is between two snapshots we repeat some steps, but the key "
                     "protect us from double charge."},
     {"passed": False, "why": "periodic snapshot loses the model's decision; asked again it "
                              "picks another amount, so the derived key differs and the charge "
                              "is repeated; the failure mode claims a protection it lacks",
      "voice": "non-native-english"}),

    ("h19-bad-nonnative-refund",
     {"checkpoint": "Intent is in the journal before the call, committed, and result after.",
      "idempotency": "Derived key from run id, step and hash of arguments.",
      "resumeProtocol": "If we find an intent without result, we don't try again: we stop the "
                        "run as failed and we refund all the charges that have a receipt, so "
                        "the customer never lose money.",
      "failureMode": "The customer sometime must to order again."},
     {"passed": False, "why": "fail-and-compensate: a charge whose answer was lost has no "
                              "receipt, so nothing refunds it (W3/W4 leave a standing charge), "
                              "and a W2 crash loses the order; 'never lose money' is false",
      "voice": "non-native-english"}),

    # ---------------------------------------------------------------------- bad: state-machine
    ("h19-bad-state-no-age-check",
     {"checkpoint": "PLANNED -> INTENT (journaled, committed) -> SENT -> DONE (receipt "
                    "journaled)",
      "idempotency": "key = hash(run_id, step, payload), fixed at PLANNED",
      "resumeProtocol": "RECOVER: lookup(key). FOUND -> DONE. NOT_FOUND -> RESEND(key) -> "
                        "SENT. Because the key is deterministic, RESEND is always safe.",
      "failureMode": "A run can loop between RECOVER and SENT while the provider is "
                     "unavailable."},
     {"passed": False, "why": "resend after 'not found' with no retention check: 25 h later the "
                              "key is pruned, the W3 lookup finds nothing and the resend charges "
                              "again; 'always safe' is false",
      "voice": "state-machine"}),

    ("h19-bad-state-in-memory",
     {"checkpoint": "The run's state lives in the orchestrator: IDLE -> CHARGING -> CHARGED -> "
                    "BOOKING -> DONE, held in the worker and exported to metrics on every "
                    "transition.",
      "idempotency": "Each transition into CHARGING derives the key from run id + step + "
                     "amount.",
      "resumeProtocol": "On restart the run re-enters IDLE and walks the states again; the "
                        "provider dedupes the repeated charge by key.",
      "failureMode": "We redo the model call on restart, which costs tokens."},
     {"passed": False, "why": "nothing journaled (metrics are not a checkpoint): the restarted "
                              "run asks the drifting model again, gets another amount, derives "
                              "another key and charges twice",
      "voice": "state-machine"}),

    ("h19-bad-state-atomic-after-reply",
     {"checkpoint": "CALLING -> (provider replies) -> write INTENT and RESULT in one "
                    "transaction -> COMMITTED. It's atomic, so the journal never holds a "
                    "half-finished call.",
      "idempotency": "key derived from (run_id, step, digest(args)), same on every attempt",
      "resumeProtocol": "REPLAY committed calls; for a call not in the journal: LOOKUP(key) -> "
                        "found: COMMITTED | not found: RESEND(key)",
      "failureMode": "None really: a call is either fully committed or absent, there is no "
                     "in-between state."},
     {"passed": False, "why": "intent written only with the result (result only): a W3/W4 "
                              "crash leaves no trace and after 25 h the resend is a new charge; "
                              "the failure mode claims a safety it lacks",
      "voice": "state-machine"}),

    # ---------------------------------------------------------------------- bad: code-comments
    ("h19-bad-code-key-on-request-object",
     {"checkpoint": "# journal.append(Intent(step, tool, args)); journal.commit()  # before "
                    "send\n# journal.append(Result(step, receipt))  # after",
      "idempotency": "# op_key = uuid4(), made once in charge() and kept on the ChargeRequest "
                     "object;\n# the retry loop inside charge() reuses the same request, so "
                     "every retry has the same key",
      "resumeProtocol": "# resume: for a pending intent, lookup(op_key); if missing and the "
                        "intent is < 24h old, resend; else escalate",
      "failureMode": "# escalated runs need an operator"},
     {"passed": False, "why": "the key lives only in process memory, not in the intent: after a "
                              "crash the new worker makes a new uuid, the lookup misses and the "
                              "resend is a second charge (a key per attempt across restarts)",
      "voice": "code-comments"}),

    ("h19-bad-code-reference-resend",
     {"checkpoint": "// intent journaled before the POST, result journaled after",
      "idempotency": "// ref = `${runId}:${step}` sent as client_reference; the provider "
                     "stores it on the charge",
      "resumeProtocol": "// resume: re-POST pending charges with the same ref; a matching ref "
                        "means the provider treats it as the same charge",
      "tradeOff": "// simple: no lookup endpoint needed"},
     {"passed": False, "why": "a client reference is not deduplicated: resending it without a "
                              "search charges twice in W3/W4 even at once",
      "voice": "code-comments"}),

    # ------------------------------------------------------------------- bad: cautious-skeptic
    ("h19-bad-skeptic-false-no-gap",
     {"checkpoint": "The intent, with its key, is committed to the journal before the charge "
                    "is sent; the result is journaled after.",
      "idempotency": "Key derived from run id, step and payload digest; identical on every "
                     "attempt.",
      "resumeProtocol": "Look up open intents by key; found: record it; not found inside "
                        "retention: resend the same key; past retention: escalate.",
      "failureMode": "I looked hard for a gap and could not find one. Because the key is "
                     "derived and checked first, no crash window at any recovery delay leaves "
                     "the run waiting on a person or charges twice."},
     {"passed": False, "why": "the design is safe but the failure mode is false: after 25 h "
                              "W2-W4 crashes escalate and wait for an operator",
      "voice": "cautious-skeptic"}),

    ("h19-bad-skeptic-never-resend",
     {"checkpoint": "Intent journaled and committed before the call, result after. I don't "
                    "trust anything weaker.",
      "idempotency": "Derived key: run id, step, digest of the arguments.",
      "resumeProtocol": "I'd rather not resend anything I can't account for. An intent without "
                        "a result fails the run, and we refund whatever charge has a receipt; "
                        "the customer can place the order again.",
      "failureMode": "Some orders get dropped and have to be re-placed, which annoys customers, "
                     "but we never double charge."},
     {"passed": False, "why": "fail-and-compensate: W2 loses the order, and a W3/W4 charge with "
                              "no receipt is never refunded, so the failed run leaves a charge "
                              "standing",
      "voice": "cautious-skeptic"}),

    ("h19-bad-skeptic-timestamp-key",
     {"checkpoint": "An intent record is committed before each request; the response is "
                    "recorded after. I'd fsync it, too.",
      "idempotency": "The key is the order id plus the timestamp of the request, so it is "
                     "unique and easy to trace in the provider's logs.",
      "resumeProtocol": "On resume, look the charge up by its key; if it isn't found and we're "
                        "inside 24 h, resend; past that, escalate. I don't trust 'not found' "
                        "after the provider may have pruned.",
      "failureMode": "My worry is the late case: a day-old crash needs an operator, and "
                     "operators make mistakes."},
     {"passed": False, "why": "the request timestamp changes on every attempt, so the key is "
                              "per attempt: the recovery's lookup and resend use a new key and "
                              "W3/W4 charge twice",
      "voice": "cautious-skeptic"}),

    # ---------------------------------------------------------------------- bad: keyword-stuffed
    ("h19-bad-stuffed-everything",
     {"checkpoint": "Durable write-ahead journal checkpoint: intent, result, snapshot, event "
                    "sourcing, exactly-once, committed, fsynced.",
      "idempotency": "Idempotency key: derived, stored, UUID, client reference, deduplication, "
                     "payload digest, retention-aware.",
      "resumeProtocol": "Replay, lookup, reconcile, resend, retry with backoff, compensate, "
                        "escalate, saga, operator.",
      "failureMode": "Failure modes W1-W5: duplicate, lost, stuck, retention, pruning, all "
                     "handled."},
     {"passed": False, "why": "keyword stuffing: every field lists exclusive choices and "
                              "decides none; 'all handled' is no real failure mode",
      "voice": "keyword-stuffed"}),

    ("h19-bad-stuffed-uuid-header",
     {"checkpoint": "Transactional outbox / write-ahead intent + result journaling, durable "
                    "commit boundary.",
      "idempotency": "Idempotency-Key header (UUIDv4 per request), dedup, exactly-once, "
                     "payload-bound.",
      "resumeProtocol": "Reconcile-by-lookup, then same-key resend inside retention, escalate "
                        "past TTL (EffectKeyMayBePruned).",
      "failureMode": "Exactly-once guaranteed end to end."},
     {"passed": False, "why": "buried in the jargon the key is a fresh UUID per request (a key "
                              "per attempt, W3/W4 duplicate), and 'exactly-once guaranteed' is "
                              "a false safety",
      "voice": "keyword-stuffed"}),

    ("h19-bad-stuffed-superstep",
     {"checkpoint": "LangGraph-style checkpointer: durable state snapshot per super-step, "
                    "persisted and checkpointed.",
      "idempotency": "Deterministic derived idempotency key (run_id / step / payload hash), "
                     "stable, dedup.",
      "resumeProtocol": "Resume from latest checkpoint, reconcile, lookup-by-key, resend within "
                        "retention, escalate.",
      "tradeOff": "Trade-off: snapshot granularity vs. write amplification."},
     {"passed": False, "why": "a periodic snapshot loses the decision made since the last one; "
                              "the re-asked model changes the amount, so the derived key "
                              "changes and the charge is repeated",
      "voice": "keyword-stuffed"}),

    # ------------------------------------------------------------------ bad: self-contradicting
    ("h19-bad-contra-no-intent-lookup",
     {"checkpoint": "Nothing is written before the call; we only persist the receipt once it "
                    "is back, so there are no half-written rows.",
      "idempotency": "Key derived from run id, step and payload hash.",
      "resumeProtocol": "On resume, replay the journal and look up every pending intent by its "
                        "key; not found within 24 h: resend; later: escalate.",
      "failureMode": "Late recoveries wait for an operator."},
     {"passed": False, "why": "contradiction: the resume looks up pending intents that the "
                              "checkpoint never writes; result only double charges in W3/W4 "
                              "after 25 h",
      "voice": "self-contradicting", "contradiction": True}),

    ("h19-bad-contra-random-failure",
     {"checkpoint": "Intent journaled and committed before dispatch, result after.",
      "idempotency": "Key derived from run id + step + payload hash, the same on every attempt.",
      "resumeProtocol": "Look up by key; not found within retention: resend with the same key; "
                        "past it: escalate.",
      "failureMode": "Since each retry carries a fresh random key, a W3 crash could still "
                     "charge twice."},
     {"passed": False, "why": "contradiction: the failure mode says the key is random per "
                              "retry while the idempotency field derives it; the stated failure "
                              "is not true of the design",
      "voice": "self-contradicting", "contradiction": True}),

    ("h19-bad-contra-intent-but-later",
     {"checkpoint": "The intent is journaled before dispatch. Well, to save a write we "
                    "actually append it together with the result once the provider answers.",
      "idempotency": "Derived key: run, step, payload digest.",
      "resumeProtocol": "Replay; look unresolved calls up by key; resend within retention, "
                        "escalate past it.",
      "failureMode": "Past retention an operator has to step in."},
     {"passed": False, "why": "contradiction: 'before dispatch' is undone by 'together with the "
                              "result', which is result only; no intent means W3/W4 double "
                              "charge after 25 h",
      "voice": "self-contradicting", "contradiction": True}),

    ("h19-bad-contra-never-but-resend",
     {"checkpoint": "Intent committed to the journal before the call; result after it.",
      "idempotency": "A UUID made once per operation and stored with the intent.",
      "resumeProtocol": "We never resend anything automatically. On resume, pending charges "
                        "that the provider doesn't find are resent with the same key.",
      "failureMode": "Escalated runs need a human."},
     {"passed": False, "why": "contradiction: 'never resend automatically' and 'resent with the "
                              "same key' in one field, with no retention limit on the resend",
      "voice": "self-contradicting", "contradiction": True}),
]
