"""Takes a tool result whose value is None (a tool that returns nothing) as "no result yet":
the intent looks unresolved and the runtime reconciles an effect that is settled."""

ANSWERS = {
    "answer_lookup": '''def lookup(rows, step, kind, name, args_digest):
    """What the journal holds at position `step` for a call of `kind` named `name`."""
    here = [r for r in rows if r["step"] == step]
    if not here:
        return None
    opening = next((r for r in here if r["kind"] in ("step", "decision", "intent")), None)
    requested = f"{kind} {name!r}"
    if opening is None:
        raise Divergence(step=step, recorded="no call, only notes", requested=requested)
    recorded = f"{opening['kind']} {opening['name']!r}"
    if (opening["kind"], opening["name"], opening["args_digest"]) != (kind, name, args_digest):
        raise Divergence(step=step, recorded=recorded, requested=requested)
    if kind != "intent":
        return Recorded(opening["value"])
    result = next((r for r in here if r["kind"] == "result"), None)
    if result is None or result["value"] is None:
        return UNRESOLVED
    return Recorded(result["value"])
''',
}
MUST_FAIL = ['test_recorded_result']
