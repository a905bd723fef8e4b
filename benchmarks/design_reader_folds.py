"""HELDOUT6 + HELDOUT7 in five folds by name hash: the reader's figure per fold (issue 17).

Invariant: a name's fold is ``sha256(name) % 5``, fixed forever. Fold :data:`HELD_FOLD` was kept
out of the reader's tuning on these two sets (nobody printed or read its outlines while the
reader was tuned) and measured once at the end (good 7/11, bad 9/13, at d6a29f4); the other
folds were tuned on first. Guarantees: the default run prints nothing of the held fold, and
``--misses`` never lists its misses. Not guaranteed: that the held fold stays untuned after its
one measurement: it was fitted afterwards (its figure stays in tests/test_design_outline.py as
it was measured), so ``--held`` now measures a fitted fold.

    python benchmarks/design_reader_folds.py            # per-fold totals, timing
    python benchmarks/design_reader_folds.py --misses   # the tuned folds' misses, with feedback
"""

from __future__ import annotations

import hashlib
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from design_corpus_heldout6 import HELDOUT6  # noqa: E402
from design_corpus_heldout7 import HELDOUT7  # noqa: E402

from minirt_course.grading import grade_design_outline  # noqa: E402

#: The fold kept out of tuning: of the five, the one with none of the outlines its tuner had
#: glimpsed before the split (the first nine of HELDOUT7's file, read while learning its format).
HELD_FOLD = 3


def fold(name: str) -> int:
    return int(hashlib.sha256(name.encode()).hexdigest(), 16) % 5


def agrees(grade: Any, expected: dict) -> bool:
    named = any("contradict" in line for line in grade.feedback)
    return grade.passed == expected["passed"] and (not expected.get("contradiction") or named)


def main(argv: list[str]) -> int:
    show_misses = "--misses" in argv
    measure_held = "--held" in argv
    entries = HELDOUT6 + HELDOUT7
    for _, outline, _ in entries:
        grade_design_outline(outline)  # warm the sweep cache: every design runs once
    totals: dict[int, list[int]] = {k: [0, 0, 0, 0] for k in range(5)}
    times = []
    for name, outline, expected in entries:
        k = fold(name)
        if k == HELD_FOLD and not measure_held:
            continue
        started = time.perf_counter()
        grade = grade_design_outline(outline)
        times.append((time.perf_counter() - started) * 1000)
        ok = agrees(grade, expected)
        t = totals[k]
        if expected["passed"]:
            t[0] += ok
            t[1] += 1
        else:
            t[2] += ok
            t[3] += 1
        if show_misses and not ok and k != HELD_FOLD:
            print(f"--- MISS {name} (fold {k}) expected {expected}")
            for f_, v in outline.items() if isinstance(outline, dict) else ():
                print(f"  {f_}: {v}")
            print("  FEEDBACK: " + "\n  ".join(grade.feedback))
    for k, (gp, g, bf, b) in totals.items():
        tag = " (held out of tuning)" if k == HELD_FOLD else ""
        if k == HELD_FOLD and not measure_held:
            print(f"fold {k}: not measured{tag}")
            continue
        print(f"fold {k}: good {gp}/{g}, bad {bf}/{b}{tag}")
    print(f"ms per outline (cached sweep): median {statistics.median(times):.1f}, "
          f"slowest {max(times):.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
