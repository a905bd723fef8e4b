"""What every provider shares: a ledger, an injectable clock, injectable faults, a request log.

A provider is the outside world as minirt sees it: something that applies effects and answers
(or does not). :meth:`Provider._serve` is the one path every operation takes, so the faults of
:mod:`minirt.world.faults` behave the same for every provider, in-process and over HTTP:

1. the request is logged (``requests``: what reached the provider, for "refused before the
   network" demonstrations);
2. an armed fault may answer instead: a 5xx or a timeout before anything commits;
3. the operation commits in one ledger transaction;
4. an armed ``drop_response_after_commit`` then loses the answer: the effect happened and the
   caller gets :class:`~minirt.world.errors.ResponseLost`.

Not guaranteed: the request log is in memory only (the last 1,000 requests) and is not
evidence of anything; the ledger is.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from ..clock import Clock, SystemClock
from .errors import ProviderUnavailable, RequestTimedOut, ResponseLost
from .faults import ProviderFaults
from .ledger import Ledger

T = TypeVar("T")


class Provider:
    """Base class of the providers. Subclasses set ``name`` and define their operations."""

    name: ClassVar[str] = "provider"
    schema: ClassVar[str] = ""  # extra tables, created in the ledger's file

    def __init__(self, path: str | Path, clock: Clock | None = None) -> None:
        self.path = str(path)
        self.ledger = Ledger(path, extra_schema=self.schema)
        self.clock: Clock = clock or SystemClock()
        self.faults = ProviderFaults()
        self.sleeps_for_real = False  # set by the HTTP server: ``slow`` then really sleeps
        self.requests: deque[dict[str, Any]] = deque(maxlen=1000)

    def inject(self, fault: str, *, times: int = 1, op: str | None = None,
               delay_for: float = 0.0) -> None:
        """Arm a fault of :mod:`minirt.world.faults` for the next ``times`` matching calls."""
        self.faults.inject(fault, times=times, op=op, delay_for=delay_for)

    # -- EffectLedger, by delegation ----------------------------------------------------------

    def count(self, effect_key: str, kind: str | None = None) -> int:
        return self.ledger.count(effect_key, kind)

    def effects(self, kind: str | None = None) -> list[dict[str, Any]]:
        return self.ledger.effects(kind)

    # -- the one path of every operation ------------------------------------------------------

    def _serve(self, op: str, key: str | None, commit: Callable[[], T]) -> T:
        self.requests.append({"op": op, "key": key, "at": self.clock.now()})
        inj = self.faults.take(op)
        label = f"{self.name}.{op}"
        if inj is not None:
            if inj.fault == "slow":
                self._delay(inj.delay_for)
            elif inj.fault == "timeout_before_commit":
                exc = RequestTimedOut(tool=label, effect_key=key or "-",
                                      reason="no response within the timeout (injected); "
                                             "nothing was committed")
                exc.hang_for = inj.delay_for  # type: ignore[attr-defined]  # the server hangs
                raise exc
            elif inj.fault == "error_5xx":
                raise ProviderUnavailable(provider=self.name, operation=op, status_code=503)
        result = commit()
        if inj is not None and inj.fault == "drop_response_after_commit":
            raise ResponseLost(tool=label, effect_key=key or "-",
                               reason="the connection dropped after the provider committed "
                                      "(injected)")
        return result

    def _delay(self, seconds: float) -> None:
        if self.sleeps_for_real:
            time.sleep(seconds)
        elif hasattr(self.clock, "advance"):
            self.clock.advance(seconds)  # a FakeClock: the delay passes without waiting

    def close(self) -> None:
        """Close the ledger (idempotent)."""
        self.ledger.close()

    def __enter__(self) -> Provider:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.path!r})"
