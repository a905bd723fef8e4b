"""lookup ends the process on a divergence (os._exit) and raises SystemExit / KeyboardInterrupt
otherwise, hoping the grader counts a dead or interrupted cell as not failed."""

ANSWERS = {
    "answer_lookup": '''import os
def lookup(rows, step, kind, name, args_digest):
    here = [r for r in rows if r["step"] == step]
    if here and here[0]["name"] != name:
        os._exit(0)
    if not here:
        raise KeyboardInterrupt
    raise SystemExit(0)
''',
}
MUST_FAIL = ["test_recorded_result", "test_tool_not_rerun", "test_divergence",
             "test_unresolved_intent"]
