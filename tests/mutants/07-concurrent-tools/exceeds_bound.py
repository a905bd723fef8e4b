"""Forgets max_in_flight: every ready call goes in the wave, however many there are."""

ANSWERS = {
    "answer_schedule": '''def schedule(calls: list[Node], max_in_flight: int) -> list[list[str]]:
    """The greedy, step-priority waves of `calls` (names, each wave in step order)."""
    order = sorted(calls, key=lambda n: n.step)
    must_follow = {n.name: set(n.after) for n in order}
    for a in order:
        for b in order:
            if a.step < b.step and conflict(a, b):
                must_follow[b.name].add(a.name)
    placed = set()
    waves = []
    while len(placed) < len(order):
        wave = [n.name for n in order if n.name not in placed and must_follow[n.name] <= placed]
        placed.update(wave)
        waves.append(wave)
    return waves
''',
}
MUST_FAIL = ["test_bound"]
