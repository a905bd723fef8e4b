"""Levels by dependency depth, each level cut into chunks of the bound: valid, but wastes free slots."""

ANSWERS = {
    "answer_schedule": '''def schedule(calls: list[Node], max_in_flight: int) -> list[list[str]]:
    """The greedy, step-priority waves of `calls` (names, each wave in step order)."""
    order = sorted(calls, key=lambda n: n.step)
    level = {}
    for b in order:
        deps = set(b.after) | {a.name for a in order if a.step < b.step and conflict(a, b)}
        level[b.name] = 1 + max((level[d] for d in deps), default=-1)
    waves = []
    for lv in sorted(set(level.values())):
        names = [n.name for n in order if level[n.name] == lv]
        waves += [names[i:i + max_in_flight] for i in range(0, len(names), max_in_flight)]
    return waves
''',
}
MUST_FAIL = ["test_minimal"]
