"""A position that holds only notes (an attempt, a reconciliation) is taken as "nothing
recorded": the call runs for real where the journal says something already happened there."""

ANSWERS = {
    "answer_lookup": '''def lookup(rows, step, kind, name, args_digest):
    """What the journal holds at position `step` for a call of `kind` named `name`."""
    here = [r for r in rows if r["step"] == step]
    if not here:
        return None
    opening = next((r for r in here if r["kind"] in ("step", "decision", "intent")), None)
    requested = f"{kind} {name!r}"
    if opening is None:
        return None
    recorded = f"{opening['kind']} {opening['name']!r}"
    if (opening["kind"], opening["name"], opening["args_digest"]) != (kind, name, args_digest):
        raise Divergence(step=step, recorded=recorded, requested=requested)
    if kind != "intent":
        return Recorded(opening["value"])
    result = next((r for r in here if r["kind"] == "result"), None)
    return UNRESOLVED if result is None else Recorded(result["value"])
''',
}
MUST_FAIL = ['test_divergence']
