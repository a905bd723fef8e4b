"""Replays by step name only: the kind and the arguments' digest are never compared, so a call
with other arguments (or a step where a tool call was recorded) replays the old result."""

ANSWERS = {"answer_lookup": '''def lookup(rows, step, kind, name, args_digest):
    here = [r for r in rows if r["step"] == step]
    if not here:
        return None
    opening = next((r for r in here if r["kind"] in ("step", "decision", "intent")), None)
    if opening is None or opening["name"] != name:
        raise Divergence(step=step, recorded=str(opening and opening["name"]),
                         requested=f"{kind} {name!r}")
    if opening["kind"] != "intent":
        return Recorded(opening["value"])
    result = next((r for r in here if r["kind"] == "result"), None)
    return UNRESOLVED if result is None else Recorded(result["value"])
'''}
MUST_FAIL = ["test_divergence"]
