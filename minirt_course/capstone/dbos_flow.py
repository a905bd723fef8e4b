"""The capstone's refund flow on DBOS Transact: what a production engine gives, and what it does not.

DBOS (``pip install dbos``; a bench extra here, not a course dependency) journals a workflow's
steps in its system database (SQLite in this file). Its documented guarantees
(https://docs.dbos.dev/python/tutorials/workflow-tutorial): workflows always run to completion;
**steps are at least once and never re-executed once complete**; transactions commit exactly
once; recovery re-runs the workflow **from the top** with its saved inputs.

:func:`refund_flow` refunds one charge at :class:`minirt.world.payments.PaymentProvider` inside a
``@DBOS.step``. :func:`crash_and_recover` runs it in a child process that is SIGKILLed *after the
provider refunded and before DBOS recorded the step* (our W3/W4), then launches DBOS in a fresh
process, which recovers the workflow and runs the step **again** (at least once). With
``key="workflow"`` the key is the Workflow ID plus the operation, so the provider deduplicates
and the ledger holds one refund; with ``key="attempt"`` (a fresh key per execution) the second
execution is a new request, which this provider refuses (``ChargeAlreadyRefunded``, a charge is
refunded at most once) and many real ones would not.

What DBOS leaves to the agent's author (minirt's modules 04, 06, 09): payload-bound keys,
reconciling an unknown outcome by lookup, binding an approval to the effect digest, budgets.

DBOS writes INFO logs to stderr by default; everything here runs with its console log level at
ERROR and its logger's handlers removed, in child processes whose stderr is captured.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from minirt.errors import MinirtError
from minirt.world.payments import PaymentProvider

AMOUNT_CENTS = 12000
WORKFLOW_ID = "ticket-T-1:refund:A-101"


def _quiet() -> None:
    for name in ("dbos", "sqlalchemy"):
        log = logging.getLogger(name)
        log.handlers.clear()
        log.addHandler(logging.NullHandler())
        log.propagate = False
        log.setLevel(logging.ERROR)


def _dbos(workdir: Path, key: str, crash: bool) -> Any:
    """Register the workflow and launch DBOS on ``workdir``'s SQLite system database."""
    from dbos import DBOS

    _quiet()
    pay = PaymentProvider(workdir / "payments.sqlite")
    executions = workdir / "step_executions.txt"

    @DBOS.step()
    def refund_step(charge_id: str) -> dict[str, Any]:
        with executions.open("a") as f:
            f.write("refund\n")
        if key == "workflow":
            idem = f"{DBOS.workflow_id}:refund:{charge_id}"  # Workflow ID + the operation
        else:
            idem = f"attempt-{os.urandom(8).hex()}"  # new on every execution: wrong
        try:
            receipt = pay.refund(charge_id, idem)
        except MinirtError as exc:  # DBOS pickles a step's exception; keep it a plain one
            raise RuntimeError(f"{type(exc).__name__}: {exc}") from None
        if crash:  # the provider committed; DBOS has not recorded the step: W3/W4
            os.kill(os.getpid(), signal.SIGKILL)
        return receipt

    @DBOS.workflow()
    def refund_flow(charge_id: str) -> dict[str, Any]:
        receipt = refund_step(charge_id)
        return {"refund_id": receipt["refund_id"], "workflow_id": DBOS.workflow_id}

    DBOS(config={"name": "capstone-refund", "log_level": "ERROR",
                 "system_database_url": f"sqlite:///{workdir / 'dbos_system.sqlite'}"})
    _quiet()
    DBOS.launch()  # recovers any workflow of this app left pending by a crash
    return refund_flow


def setup(workdir: Path) -> str:
    """A fresh payment ledger with one charge; returns its id."""
    workdir.mkdir(parents=True, exist_ok=True)
    with PaymentProvider(workdir / "payments.sqlite") as pay:
        return str(pay.charge("sale-A-101", AMOUNT_CENTS, "eur", "cus_ada")["charge_id"])


def _crash(workdir: str, key: str, charge_id: str) -> None:
    from dbos import SetWorkflowID

    flow = _dbos(Path(workdir), key, crash=True)
    with SetWorkflowID(WORKFLOW_ID):
        flow(charge_id)


def _recover(workdir: str, key: str) -> None:
    """Launch DBOS (which recovers the pending workflow), wait for it, print its result."""
    from dbos import DBOS

    _dbos(Path(workdir), key, crash=False)
    try:
        try:
            result: Any = DBOS.retrieve_workflow(WORKFLOW_ID).get_result()
        except Exception as exc:  # the recovered workflow failed: show it, do not hide it
            result = f"{type(exc).__name__}: {exc}"
    finally:
        DBOS.destroy()
    print(json.dumps(result))


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "minirt_course.capstone.dbos_flow", *args],
                          capture_output=True, text=True, timeout=120)


def crash_and_recover(workdir: str | Path, *, key: str = "workflow") -> dict[str, Any]:
    """Kill a DBOS worker in W3 of the refund, recover in a fresh process; report the ledger.

    Both DBOS processes are children (DBOS is a per-process singleton and refuses its blocking
    API inside a running event loop, such as a notebook's)."""
    wd = Path(workdir)
    charge_id = setup(wd)
    killed = _python("crash", str(wd), key, charge_id).returncode == -signal.SIGKILL
    recovered = _python("recover", str(wd), key)
    lines = recovered.stdout.strip().splitlines()
    result: Any = json.loads(lines[-1]) if recovered.returncode == 0 and lines else \
        f"recovery process failed ({recovered.returncode}): {recovered.stderr[-500:]}"
    with PaymentProvider(wd / "payments.sqlite") as pay:
        refunds = len(pay.effects("refund"))
    executions = (wd / "step_executions.txt").read_text().count("refund")
    return {"key": key, "child_killed": killed, "step_executions": executions,
            "refunds_in_ledger": refunds, "workflow_result": result}


if __name__ == "__main__":
    if sys.argv[1] == "crash":
        _crash(*sys.argv[2:5])
    else:
        _recover(*sys.argv[2:4])
