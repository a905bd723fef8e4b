"""An architecture note with the three sections and no measured figure in it."""

ANSWERS = {
    'answer_note': '''ARCHITECTURE_NOTE = """
## Decisions
Every effect goes through the journal, refunds are keyed by the effect key, the email is sent at
most once, and large refunds wait for a signed receipt bound to the effect digest.

## Trade-offs
Durability costs an fsync per step, which is slower than running without a journal, and at most
once means a lost email response is recorded as maybe sent.

## Remaining risks
Providers that prune keys early, reviewers who approve the wrong thing, and model replies that
are wrong but well formed are not covered by the sweep.
"""
''',
}
MUST_FAIL = ['test_architecture_note']
