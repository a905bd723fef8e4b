"""The note claims the email is sent at least once while the agent sends it at most once."""

ANSWERS = {"answer_note": '''ARCHITECTURE_NOTE = """
## Decisions
Every effect goes through the journal: the refund sends the effect key (run, step, tool and
payload digest) and is looked up by it after a lost response; the email is at least once because
the provider has no keys; refunds above 50 EUR wait durably for a signed, single-use receipt
bound to the effect digest. The look-ups run as one parallel wave.

## Trade-offs
Durability costs fsyncs: the journal takes about 730 bytes per step and 43 events per run, and a
durable step is several times slower than the same agent without fsync. At most once means a
crash in W3 of the email leaves a "maybe-sent" the support team must check by hand.

## Remaining risks
My adversarial case drops the first refund's response after the provider committed
(drop_response_after_commit) and then kills the worker after the approved refund is journaled:
the lookup by key finds the refund and nothing is paid twice. The sweep covers 63 crash points
in simulation only; a provider that prunes keys early, a
reviewer who approves the wrong thing, and a model reply that is wrong but well-formed are not
covered.
"""
### END SOLUTION'''}
MUST_FAIL = ['test_architecture_note']
