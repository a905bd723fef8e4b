"""Takes an intent without a result for a finished call: returns Recorded(None), so the run goes
on as if the effect had happened and its answer were empty (a lost effect, or a crash later)."""

ANSWERS = {"answer_lookup": '''def lookup(rows, step, kind, name, args_digest):
    here = [r for r in rows if r["step"] == step]
    if not here:
        return None
    opening = next((r for r in here if r["kind"] in ("step", "decision", "intent")), None)
    if opening is None or (opening["kind"], opening["name"], opening["args_digest"]) != (
            kind, name, args_digest):
        raise Divergence(step=step, recorded=str(opening), requested=f"{kind} {name!r}")
    if kind != "intent":
        return Recorded(opening["value"])
    result = next((r for r in here if r["kind"] == "result"), None)
    return Recorded(None if result is None else result["value"])
'''}
MUST_FAIL = ["test_unresolved_intent"]
