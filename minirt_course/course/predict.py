"""The check cell of a lesson's "predict, then run" pair.

A lesson ships its prediction cell empty (``prediction = None``) and runs top to bottom all the
same: :func:`check_prediction` then says "make a prediction first" and shows **nothing** of what
the run observed, so Run All never gives the answer away. With a prediction it prints whether the
run agreed and, only then, what was observed and why.

Invariant: with ``prediction is None`` the printed text contains neither ``observed`` nor
``why``. Guaranteed: it writes to stdout only (never stderr) and never raises on a wrong guess, so
a lesson stays runnable. Not guaranteed: that the learner's guess has the observed value's type
(``2`` and ``2.0`` match; ``"2"`` and ``2`` do not).
"""

from __future__ import annotations

from typing import Any

ASK_FIRST = ("Make a prediction first: set `prediction` in the cell above (it is None), run it, "
             "then run this cell again. Nothing of the run is shown until you do.")


def check_prediction(prediction: Any, observed: Any, *, why: str = "") -> None:
    """Print the verdict of a prediction (returns None, so a cell ending in it shows no value).

    ``why`` is the one-line explanation shown once the learner has committed to a guess.
    """
    if prediction is None:
        print(ASK_FIRST)
        return
    verdict = "as you predicted" if prediction == observed else "not what you predicted"
    print(f"observed: {observed!r}; you predicted {prediction!r}: {verdict}.")
    if why:
        print(why)


__all__ = ["ASK_FIRST", "check_prediction"]
