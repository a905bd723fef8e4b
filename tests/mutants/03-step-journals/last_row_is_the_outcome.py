"""Takes the last row at the position as its outcome: right while nothing follows the result, but
a resend's notes ("reconciled", "attempt") after an intent then pass for a result."""

ANSWERS = {"answer_lookup": '''def lookup(rows, step, kind, name, args_digest):
    here = [r for r in rows if r["step"] == step]
    if not here:
        return None
    opening = here[0]
    if (opening["kind"], opening["name"], opening["args_digest"]) != (kind, name, args_digest):
        raise Divergence(step=step, recorded=f"{opening['kind']} {opening['name']!r}",
                         requested=f"{kind} {name!r}")
    if kind != "intent":
        return Recorded(opening["value"])
    last = here[-1]
    return UNRESOLVED if last is opening else Recorded(last["value"])
'''}
MUST_FAIL = ["test_unresolved_intent"]
