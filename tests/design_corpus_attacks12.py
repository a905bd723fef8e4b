"""Outlines from a white-box attack on the design reader (stop s12): a helper who read the
grader wrote 23 outlines it got wrong (16 bad ones passed, 7 good ones failed), each verdict
checked against the sweep of the design it describes. The reader was then fixed by class; 21
are kept here as fitted entries (FITTED). Two are left out, named in ``LEFT_OUT`` with why.

Invariant: each entry is (name, outline, expected) with ``passed``, ``why`` and ``voice``.
Not guaranteed: that these cover every weakness an attacker would find."""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

#: Left out of FITTED: the typed form grades its mechanism exactly and only notes a detail that
#: reads otherwise (documented in lesson 05b); a snapshot committed before every call is the
#: intent-and-result design in other words, but "snapshot" beside "before" and "after" is
#: genuinely ambiguous, so it stays refused with the contradiction named.
LEFT_OUT = ['bad_structured_detail_contradicts_mechanism', 'good_snapshot_before_every_call']

ATTACKS12: list[Entry] = [
    ('a12-bad-lookup-then-resend-any-age',
     {'checkpoint': 'Before calling the payment provider we write an intent record (run id, '
                    'step, args) to the journal and commit it; when the charge returns we append '
                    'the result.',
      'idempotency': 'The idempotency key is derived from the run id, the step number and a hash '
                     'of the arguments, so it is the same on every attempt.',
      'resumeProtocol': 'On resume, for an intent with no result we look the charge up at the '
                        'provider by its key; if found we record it, if not found we resend with '
                        'the same key, however long ago the intent was written.',
      'failureMode': 'It costs an extra journal write before every call and a lookup round trip '
                     'on recovery.'},
     {'passed': False,
      'why': 'resend after a miss is not limited to the 24 h retention: after 25 h the pruned '
             'key makes the lookup miss in W3/W4 charge and the resend charges twice; the grader '
             'reads any lookup as replay-and-lookup (which escalates past 24 h)',
      'voice': 'attack'}),
    ('a12-bad-own-journal-lookup-blind-resend',
     {'checkpoint': 'Before calling the payment provider we write an intent record (run id, '
                    'step, args) to the journal and commit it; when the charge returns we append '
                    'the result.',
      'idempotency': 'The idempotency key is derived from the run id, the step number and a hash '
                     'of the arguments, so it is the same on every attempt.',
      'resumeProtocol': 'On resume we look up every intent in our journal that has no result and '
                        'resend it with the same key.',
      'failureMode': 'It costs an extra journal write before every call.'},
     {'passed': False,
      'why': "'look up' is in our own journal, the provider is never asked: this is blind-retry, "
             'which duplicates in W3/W4 charge recovered after 25 h',
      'voice': 'attack'}),
    ('a12-bad-intent-written-with-result',
     {'checkpoint': 'When the charge returns we write the intent and its result together to the '
                    'journal in one transaction.',
      'idempotency': 'The idempotency key is derived from the run id, the step number and a hash '
                     'of the arguments, so it is the same on every attempt.',
      'resumeProtocol': 'On resume, for an intent with no result we look the charge up at the '
                        'provider by its key; if found we record it, if not found and the intent '
                        'is younger than 24 h we resend with the same key, otherwise we escalate '
                        'to an operator.',
      'failureMode': 'An extra journal write before every call, and a lookup round trip on '
                     'recovery; past the 24 h key retention the run is escalated to a human.'},
     {'passed': False,
      'why': 'nothing is durable before the call: exactly ResultOnlyPolicy; result-only '
             "duplicates in W3/W4 charge after 25 h (word 'intent' read as intent-and-result)",
      'voice': 'attack'}),
    ('a12-bad-intent-after-provider-accepts',
     {'checkpoint': 'We record the intent in the journal as soon as the provider has accepted '
                    'the charge, and the result when it completes.',
      'idempotency': 'The idempotency key is derived from the run id, the step number and a hash '
                     'of the arguments, so it is the same on every attempt.',
      'resumeProtocol': 'On resume, for an intent with no result we look the charge up at the '
                        'provider by its key; if found we record it, if not found and the intent '
                        'is younger than 24 h we resend with the same key, otherwise we escalate '
                        'to an operator.',
      'failureMode': 'An extra journal write before every call, and a lookup round trip on '
                     'recovery; past the 24 h key retention the run is escalated to a human.'},
     {'passed': False,
      'why': 'the intent is written after the call reached the provider, so a W3 crash leaves no '
             'trace (result-only behaviour: duplicate after 25 h)',
      'voice': 'attack'}),
    ('a12-bad-lookup-then-always-escalate',
     {'checkpoint': 'Before calling the payment provider we write an intent record (run id, '
                    'step, args) to the journal and commit it; when the charge returns we append '
                    'the result.',
      'idempotency': 'The idempotency key is derived from the run id, the step number and a hash '
                     'of the arguments, so it is the same on every attempt.',
      'resumeProtocol': 'On resume, for an intent with no result we look the charge up at the '
                        'provider by its key; if found we record it; if not found we never '
                        'resend, we escalate to an operator.',
      'failureMode': 'An extra journal write before every call and a lookup round trip on '
                     'recovery; some runs end up with an operator.'},
     {'passed': False,
      'why': 'a miss never resends even within 24 h: a W2 crash (intent journaled, nothing sent) '
             'recovered at once is left stuck, like the escalate design; read as '
             'replay-and-lookup',
      'voice': 'attack'}),
    ('a12-bad-lookup-then-refund-and-fail',
     {'checkpoint': 'Before calling the payment provider we write an intent record (run id, '
                    'step, args) to the journal and commit it; when the charge returns we append '
                    'the result.',
      'idempotency': 'The idempotency key is derived from the run id, the step number and a hash '
                     'of the arguments, so it is the same on every attempt.',
      'resumeProtocol': 'On resume, for an intent with no result we look the charge up at the '
                        'provider by its key; if found we refund it, and either way we mark the '
                        'run failed.',
      'failureMode': 'An extra journal write before every call and a lookup round trip on '
                     'recovery.'},
     {'passed': False,
      'why': 'this is fail-and-compensate: every crash with an open intent gives the order up '
             '(lost effect in W2..W4); read as replay-and-lookup',
      'voice': 'attack'}),
    ('a12-bad-key-kept-in-memory',
     {'checkpoint': 'Before calling the payment provider we write an intent record (run id, '
                    'step, args) to the journal and commit it; when the charge returns we append '
                    'the result.',
      'idempotency': 'A UUID is generated once per operation and kept on the worker object, and '
                     'reused for every retry of that operation.',
      'resumeProtocol': 'On resume, for an intent with no result we look the charge up at the '
                        'provider by its key; if found we record it, if not found and the intent '
                        'is younger than 24 h we resend with the same key, otherwise we escalate '
                        'to an operator.',
      'failureMode': 'An extra journal write before every call, and a lookup round trip on '
                     'recovery; past the 24 h key retention the run is escalated to a human.'},
     {'passed': False,
      'why': 'the key lives only in process memory (the intent holds run id, step, args): after '
             'the crash a new UUID is minted, the lookup misses and the W3 charge is resent '
             'under a new key -> 2 charges; read as stored-key',
      'voice': 'attack'}),
    ('a12-bad-key-input-changes-on-resume',
     {'checkpoint': 'Before calling the payment provider we write an intent record (run id, '
                    'step, args) to the journal and commit it; when the charge returns we append '
                    'the result.',
      'idempotency': 'The key is the run id plus the step number, the same on every retry within '
                     'a run; a resumed run is given a new run id.',
      'resumeProtocol': 'On resume, for an intent with no result we look the charge up at the '
                        'provider by its key; if found we record it, if not found and the intent '
                        'is younger than 24 h we resend with the same key, otherwise we escalate '
                        'to an operator.',
      'failureMode': 'An extra journal write before every call, and a lookup round trip on '
                     'recovery; past the 24 h key retention the run is escalated to a human.'},
     {'passed': False,
      'why': 'the key changes across the crash (new run id), so on resume the lookup misses and '
             'the W3 charge is resent under a different key: random-per-attempt behaviour, '
             'duplicate at once',
      'voice': 'attack'}),
    ('a12-bad-model-decision-not-journaled',
     {'checkpoint': 'Before each tool call we commit an intent row holding just the run id and '
                    "the step number; the result is journaled after. The model's plan is not "
                    'stored, so on resume we ask the model again and rebuild the call from its '
                    'answer.',
      'idempotency': 'The idempotency key is a hash of the run id, the step number and the '
                     "call's arguments.",
      'resumeProtocol': 'On resume, for an intent with no result we look the charge up at the '
                        'provider by its key; if found we record it, if not found and the intent '
                        'is younger than 24 h we resend with the same key, otherwise we escalate '
                        'to an operator.',
      'failureMode': 'An extra journal write before every call, and a lookup round trip on '
                     'recovery; past the 24 h key retention the run is escalated to a human.'},
     {'passed': False,
      'why': 'the model is asked again (DriftingModel: +50 cents), the args and so the derived '
             'key change, the lookup misses and a second charge of a different amount is made '
             "after a W3 crash (the sweep's rule: a design that loses the decision charges "
             'again)',
      'voice': 'attack'}),
    ('a12-bad-snapshot-every-second-step',
     {'checkpoint': "To save writes, the run's progress is persisted before every second step "
                    'starts, and it includes the pending call at that point.',
      'idempotency': 'The idempotency key is derived from the run id, the step number and a hash '
                     'of the arguments, so it is the same on every attempt.',
      'resumeProtocol': 'On resume, for an intent with no result we look the charge up at the '
                        'provider by its key; if found we record it, if not found and the intent '
                        'is younger than 24 h we resend with the same key, otherwise we escalate '
                        'to an operator.',
      'failureMode': 'An extra journal write before every call, and a lookup round trip on '
                     'recovery; past the 24 h key retention the run is escalated to a human.'},
     {'passed': False,
      'why': 'this is periodic-snapshot (SNAPSHOT_EVERY=2): the charge at position 1 has no '
             'durable intent, so W3/W4 charge duplicate even at once; read as intent-and-result '
             "from 'persisted before'",
      'voice': 'attack'}),
    ('a12-bad-key-never-sent-to-provider',
     {'checkpoint': 'Before calling the payment provider we write an intent record (run id, '
                    'step, args) to the journal and commit it; when the charge returns we append '
                    'the result.',
      'idempotency': 'We compute a key from the run id and step and keep it in our journal for '
                     "bookkeeping; the provider's charge endpoint has no parameter for it.",
      'resumeProtocol': 'On resume, for an intent with no result we look the charge up at the '
                        'provider by its key; if found we record it, if not found and the intent '
                        'is younger than 24 h we resend with the same key, otherwise we escalate '
                        'to an operator.',
      'failureMode': 'An extra journal write before every call, and a lookup round trip on '
                     'recovery; past the 24 h key retention the run is escalated to a human.'},
     {'passed': False,
      'why': "the provider never sees the key: effectively idempotency 'none' (no dedup, nothing "
             'to look up); intent+none+lookup is stuck/duplicate in the sweep',
      'voice': 'attack'}),
    ('a12-bad-hedged-resume-alternatives',
     {'checkpoint': 'Before calling the payment provider we write an intent record (run id, '
                    'step, args) to the journal and commit it; when the charge returns we append '
                    'the result.',
      'idempotency': 'The idempotency key is derived from the run id, the step number and a hash '
                     'of the arguments, so it is the same on every attempt.',
      'resumeProtocol': 'Depending on the case: look the charge up by key, or just retry it, or '
                        'escalate it to an operator.',
      'failureMode': 'An extra journal write before every call, and a lookup round trip on '
                     'recovery; past the 24 h key retention the run is escalated to a human.'},
     {'passed': False,
      'why': 'three exclusive mechanisms offered as alternatives (no rule which applies): '
             'stuffing/hedging; the blind-retry branch duplicates after 25 h; read as lookup '
             'because any lookup phrase wins',
      'voice': 'attack'}),
    ('a12-bad-false-duplicate-claim-conditional',
     {'checkpoint': 'Before calling the payment provider we write an intent record (run id, '
                    'step, args) to the journal and commit it; when the charge returns we append '
                    'the result.',
      'idempotency': 'The idempotency key is derived from the run id, the step number and a hash '
                     'of the arguments, so it is the same on every attempt.',
      'resumeProtocol': 'On resume, for an intent with no result we look the charge up at the '
                        'provider by its key; if found we record it, if not found and the intent '
                        'is younger than 24 h we resend with the same key, otherwise we escalate '
                        'to an operator.',
      'failureMode': 'It costs an extra journal write per call. If the worker crashes in W3, '
                     'right after the provider charged the card, the customer gets charged '
                     'twice.'},
     {'passed': False,
      'why': 'the failure mode is false about the design: the sweep shows no duplicate in W3 '
             "(the lookup finds the charge); the 'if' makes the claim unasserted so it is not "
             'judged',
      'voice': 'attack'}),
    ('a12-bad-no-cost-negligible',
     {'checkpoint': 'Before calling the payment provider we write an intent record (run id, '
                    'step, args) to the journal and commit it; when the charge returns we append '
                    'the result.',
      'idempotency': 'The idempotency key is derived from the run id, the step number and a hash '
                     'of the arguments, so it is the same on every attempt.',
      'resumeProtocol': 'On resume, for an intent with no result we look the charge up at the '
                        'provider by its key; if found we record it, if not found and the intent '
                        'is younger than 24 h we resend with the same key, otherwise we escalate '
                        'to an operator.',
      'tradeOff': 'The overhead is negligible and every crash window W1-W5 ends with exactly one '
                  'charge.'},
     {'passed': False,
      'why': 'names no cost (denies one) and no limit, although the design escalates W2-W4 '
             "charge after 25 h; 'overhead' alone is read as a named cost",
      'voice': 'attack'}),
    ('a12-bad-false-late-safety',
     {'checkpoint': 'Before calling the payment provider we write an intent record (run id, '
                    'step, args) to the journal and commit it; when the charge returns we append '
                    'the result.',
      'idempotency': 'The idempotency key is derived from the run id, the step number and a hash '
                     'of the arguments, so it is the same on every attempt.',
      'resumeProtocol': 'On resume, for an intent with no result we look the charge up at the '
                        'provider by its key; if found we record it, if not found and the intent '
                        'is younger than 24 h we resend with the same key, otherwise we escalate '
                        'to an operator.',
      'failureMode': 'An extra write per call. Even if the worker only comes back days later, '
                     'resending is safe because the key is the same.'},
     {'passed': False,
      'why': 'claims the provider still deduplicates however late: past the 24 h retention the '
             'key is pruned (the sweep escalates W2-W4 after 25 h; a resend would double '
             "charge); contradicts its own 'otherwise we escalate'",
      'voice': 'attack'}),
    ('a12-good-retention-resend-plain-words',
     {'checkpoint': 'Before calling the payment provider we write an intent record (run id, '
                    'step, args) to the journal and commit it; when the charge returns we append '
                    'the result.',
      'idempotency': 'The idempotency key is derived from the run id, the step number and a hash '
                     'of the arguments, so it is the same on every attempt.',
      'resumeProtocol': 'An open intent is re-sent with its original key if it is under 24 hours '
                        'old; if it is older we stop and page an operator.',
      'failureMode': "Anything older than the provider's 24 h retention needs a human; one extra "
                     'fsync per charge.'},
     {'passed': True,
      'why': 'retry-within-retention (same key under 24 h, escalate past it) is clean at once '
             'and escalates after 25 h; read as blind-retry',
      'voice': 'attack'}),
    ('a12-good-metadata-mention-hijacks-key',
     {'checkpoint': 'Before calling the payment provider we write an intent record (run id, '
                    'step, args) to the journal and commit it; when the charge returns we append '
                    'the result.',
      'idempotency': 'Every charge request carries a key built from the run id and the step, the '
                     'same on every retry, which the provider deduplicates on; we also attach '
                     'the order number as metadata so support can find the charge.',
      'resumeProtocol': 'Resend an unresolved charge with its original key while the intent is '
                        'less than 24 h old; once it is older, do not resend, escalate to an '
                        'operator.',
      'failureMode': "We trust the provider's 24 h key retention instead of asking it; intents "
                     'older than that need a person, and there is a journal write before each '
                     'call.'},
     {'passed': True,
      'why': "derived key + retry-within-retention is clean; the incidental word 'metadata' "
             'makes it read as client-reference, whose resend duplicates',
      'voice': 'attack'}),
    ('a12-good-stored-uuid-in-intent-row',
     {'checkpoint': 'Before calling the payment provider we write an intent record (run id, '
                    'step, args) to the journal and commit it; when the charge returns we append '
                    'the result.',
      'idempotency': 'When the intent is created we mint a UUID and write it into the intent '
                     'row; that value goes in the Idempotency-Key header of the first request '
                     'and of every resend.',
      'resumeProtocol': 'On resume, for an intent with no result we look the charge up at the '
                        'provider by its key; if found we record it, if not found and the intent '
                        'is younger than 24 h we resend with the same key, otherwise we escalate '
                        'to an operator.',
      'failureMode': 'An extra journal write before every call, and a lookup round trip on '
                     'recovery; past the 24 h key retention the run is escalated to a human.'},
     {'passed': True,
      'why': 'a key generated once and stored in the intent (stored-key) with lookup is clean; '
             "not read at level 1 ('a key, but not where it comes from')",
      'voice': 'attack'}),
    ('a12-good-marker-fsync-then-call',
     {'checkpoint': "We fsync a 'charging' marker for the step to the run's log and only after "
                    'that hit the provider; the log later gets the receipt.',
      'idempotency': 'The idempotency key is derived from the run id, the step number and a hash '
                     'of the arguments, so it is the same on every attempt.',
      'resumeProtocol': 'On resume, for an intent with no result we look the charge up at the '
                        'provider by its key; if found we record it, if not found and the intent '
                        'is younger than 24 h we resend with the same key, otherwise we escalate '
                        'to an operator.',
      'failureMode': 'An extra journal write before every call, and a lookup round trip on '
                     'recovery; past the 24 h key retention the run is escalated to a human.'},
     {'passed': True,
      'why': 'a durable marker before the call and the receipt after is intent-and-result; '
             "refused at level 1 ('not when it is written')",
      'voice': 'attack'}),
    ('a12-good-true-w3-story-read-as-wrong',
     {'checkpoint': 'Before calling the payment provider we write an intent record (run id, '
                    'step, args) to the journal and commit it; when the charge returns we append '
                    'the result.',
      'idempotency': 'The idempotency key is derived from the run id, the step number and a hash '
                     'of the arguments, so it is the same on every attempt.',
      'resumeProtocol': 'On resume, for an intent with no result we look the charge up at the '
                        'provider by its key; if found we record it, if not found and the intent '
                        'is younger than 24 h we resend with the same key, otherwise we escalate '
                        'to an operator.',
      'failureMode': 'W3 is the tricky window: the card was charged but we never recorded the '
                     'receipt. The lookup finds it, at the price of one extra request; past 24 h '
                     'the key is gone and an operator has to check.'},
     {'passed': True,
      'why': 'a true account of W3 plus a real cost and the 24 h escalation; misread as claiming '
             "a 'wrong' outcome the sweep never shows",
      'voice': 'attack'}),
    ('a12-good-true-handoff-read-as-lost',
     {'checkpoint': 'Before calling the payment provider we write an intent record (run id, '
                    'step, args) to the journal and commit it; when the charge returns we append '
                    'the result.',
      'idempotency': 'The idempotency key is derived from the run id, the step number and a hash '
                     'of the arguments, so it is the same on every attempt.',
      'resumeProtocol': 'On resume, for an intent with no result we look the charge up at the '
                        'provider by its key; if found we record it, if not found and the intent '
                        'is younger than 24 h we resend with the same key, otherwise we escalate '
                        'to an operator.',
      'failureMode': 'The customer is never charged twice, but a charge whose intent is older '
                     'than 24 h is left for a human to sort out, and each call pays for one '
                     'extra commit.'},
     {'passed': True,
      'why': "true: no duplicate, escalation after 24 h, an extra commit; the hand-off 'left for "
             "a human' is misread as a 'lost' claim",
      'voice': 'attack'}),
]
