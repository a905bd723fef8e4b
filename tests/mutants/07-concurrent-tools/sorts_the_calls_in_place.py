"""Sorts the caller's list of calls in place (calls.sort): the plan is right, but the runtime's listing is changed under it."""

ANSWERS = {"answer_schedule": '''def schedule(calls: list[Node], max_in_flight: int) -> list[list[str]]:
    """The greedy, step-priority waves of `calls` (names, each wave in step order)."""
    calls.sort(key=lambda n: n.step)
    order = calls
    must_follow = {n.name: set(n.after) for n in order}
    for a in order:
        for b in order:
            if a.step < b.step and conflict(a, b):
                must_follow[b.name].add(a.name)
    placed: set[str] = set()
    waves = []
    while len(placed) < len(order):
        ready = [n.name for n in order if n.name not in placed and must_follow[n.name] <= placed]
        wave = ready[:max_in_flight]
        placed.update(wave)
        waves.append(wave)
    return waves
    ### END SOLUTION'''}
MUST_FAIL = ['test_dependencies']
