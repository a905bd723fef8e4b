"""Checks conflicts only against the calls already in the wave being built: a later call jumps ahead of an earlier conflicting one that is still waiting for its data."""

ANSWERS = {"answer_schedule": '''def schedule(calls: list[Node], max_in_flight: int) -> list[list[str]]:
    """The greedy, step-priority waves of `calls` (names, each wave in step order)."""
    order = sorted(calls, key=lambda n: n.step)
    placed: set[str] = set()
    waves = []
    while len(placed) < len(order):
        wave = []
        for n in order:
            if n.name in placed or len(wave) >= max_in_flight:
                continue
            if set(n.after) <= placed and not any(conflict(n, m) for m in wave):
                wave.append(n)
        placed.update(m.name for m in wave)
        waves.append([m.name for m in wave])
    return waves
    ### END SOLUTION'''}
MUST_FAIL = ['test_no_conflict_in_wave']
