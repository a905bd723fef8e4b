"""Replays steps and decisions but sends tool calls again even when their result is journaled
(returns None for a finished intent): every recovery duplicates the calls before the crash."""

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
    return UNRESOLVED if result is None else None
'''}
MUST_FAIL = ["test_tool_not_rerun", "test_recorded_result"]
