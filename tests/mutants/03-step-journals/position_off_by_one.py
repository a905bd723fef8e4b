"""Counts positions from 1 instead of 0: compares the call with the row of the next position."""

ANSWERS = {"answer_lookup": '''def lookup(rows, step, kind, name, args_digest):
    here = [r for r in rows if r["step"] == step + 1]
    if not here:
        return None
    opening = next((r for r in here if r["kind"] in ("step", "decision", "intent")), None)
    if opening is None or (opening["kind"], opening["name"], opening["args_digest"]) != (
            kind, name, args_digest):
        raise Divergence(step=step, recorded=str(opening), requested=f"{kind} {name!r}")
    if kind != "intent":
        return Recorded(opening["value"])
    result = next((r for r in here if r["kind"] == "result"), None)
    return UNRESOLVED if result is None else Recorded(result["value"])
'''}
MUST_FAIL = ["test_recorded_result", "test_divergence"]
