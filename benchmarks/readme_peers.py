"""Rewrite README.md's Benchmarks section from one ``peers.py --json`` run.

    .venv/bin/python benchmarks/readme_peers.py benchmarks/results/peers.json

Invariant: every figure in the section comes from the one JSON file given (table, ratios, resume
split, redone counts, machine, versions and date), so the README never mixes runs. It refuses
(AssertionError) when the run contradicts a sentence it writes: a system other than LangGraph's
functional API redoing a recorded step, or the StateGraph's resume not being mostly process start.
Not guaranteed: that the prose still fits a run with very different figures; read the diff.
"""

import io
import json
import statistics
import sys
from contextlib import redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import peers  # noqa: E402

run = Path(sys.argv[1])
saved = json.loads(run.read_text())
meta, r = saved["meta"], saved["results"]


def med(s, key, field):
    v = [m[field] for m in r.get(s, {}).get(key, []) if field in m]
    return statistics.median(v) if v else float("nan")


buf = io.StringIO()
with redirect_stdout(buf):
    peers.readme_table(r, meta)
table = "\n".join(ln for ln in buf.getvalue().splitlines() if ln.startswith("|"))

us = {s: med(s, "run1000", "us_per_step") for s in r}
fl = us["floor"]
tool, dec = us["minirt_tool"], us["minirt_decision"]
rs = {s: (med(s, "resume1000", "resume_ms"), med(s, "resume10000", "resume_ms")) for s in r}
wait = {s: (med(s, "resume1000", "lease_waited_ms"), med(s, "resume10000", "lease_waited_ms"))
        for s in r}
startup = {s: med(s, "resume10000", "startup_ms") for s in r}
recov = {s: (med(s, "resume1000", "recovery_ms"), med(s, "resume10000", "recovery_ms")) for s in r}
floor_rows = [m["us_per_step"] for m in r["floor"]["run1000"]]
redone_func = sorted({m["redone"] for k in ("resume1000", "resume10000")
                      for m in r["langgraph_func"][k] if "redone" in m})
date = meta["started"][:10]


def x(a, b):
    return f"{a / b:.2f}x"


SPREAD = ""
if max(floor_rows) / min(floor_rows) > 2:
    SPREAD = (" In this run the floor's own step time varied by more than 2x between rounds, so"
              " even the ratios are rough: a run on a quiet machine replaces this table.")
section = f"""## Benchmarks

Measurements, not timed tests. Peers are optional: `pip install -e '.[bench]'`; the sync counts
need `strace` (`apt-get install -y strace`).

```bash
.venv/bin/python benchmarks/peers.py --rounds 3 --sizes 1000 --resume-sizes 1000 10000 \\
    --json build/benchmarks/peers.json   # 1 round took 4 min here when quieter; 3 loaded: 35 min
.venv/bin/python benchmarks/peers.py --from-json build/benchmarks/peers.json   # tables again
.venv/bin/python benchmarks/readme_peers.py build/benchmarks/peers.json  # rewrite this section
.venv/bin/python benchmarks/pg_scaling.py          # throughput against 1, 2, 4, 8 workers
.venv/bin/python benchmarks/journal_resume.py      # journal bytes per step, resume at 1k/10k
```

`benchmarks/peers.py` (raw figures of the run below: `benchmarks/results/peers.json`) runs minirt, DBOS, LangGraph and the raw SQLite floor interleaved, each
measurement in a fresh process, each writing the same ~200-byte payload per step. minirt, the
floor and LangGraph run SQLite in WAL mode with `synchronous=FULL`. DBOS 3.4 never sets
`journal_mode`, so it runs as shipped (rollback journal: 4 syncs per step) and with its database
file put in WAL before launch (1 sync per step); both rows are shown. LangGraph runs with
`durability="sync"` (its default, `"async"`, may lose the last checkpoints on a crash) and a thread
is resumed as documented, `invoke(None, cfg)`. Every child reads back the `journal_mode` and
`synchronous` its system's connections really had (last column). **Resume** is timed the same way
for everyone: the run is SIGKILLed after N recorded steps, a new process starts at once, and the
clock runs from that process's start (imports included) to the first new step, with whatever the
system waits for first: minirt's lease (1 s, and its default 30 s), DBOS's recovery queue poll
(1 s; DBOS has no public setting for it), nothing for LangGraph (it has no lease). **Redone** counts
the recorded steps the resume executed again; **syncs/step** counts fsync/fdatasync calls of all
threads with `strace -f -c` at 100 and 600 steps (difference / 500).

Figures from one run, {date} ({meta['machine']}; {meta['versions']}): median [min-max] of
{meta['rounds']} rounds, {meta['sizes'][0]:,} steps; resume after 1,000 / 10,000 recorded steps.
Disk sync latency drifts between rounds on a shared virtual disk (the floor's step took
{min(floor_rows):,.0f}-{max(floor_rows):,.0f} µs in this run): **ratios within the run are the
figures to trust**, not the absolute times.{SPREAD}

{table}

Per step, a minirt tool step (two durable records: the intent before dispatch, the result after)
costs {x(tool, fl)} the single-commit floor and a decision step {x(dec, fl)}; DBOS takes
{x(us['dbos_wal'], tool)} a tool step's time in WAL and {x(us['dbos'], tool)} as shipped, LangGraph's
sync checkpointer {x(us['langgraph_sync'], tool)} and its functional API
{x(us['langgraph_func'], tool)}. A fan-out of 100-call waves costs {us['minirt_wave100']:,.0f} µs
per call: the intents of a wave share one commit, each result gets its own (so a crash sweep
sees the same fault points whatever the thread timing), hence about 1 sync per call, not the
batched floor's 0.01.

Resume, from process start: minirt's includes the wait for the crashed incarnation's lease
({wait['minirt_tool'][1]:,.0f} ms of {rs['minirt_tool'][1]:,.0f} ms for 10,000 tool steps with
a 1 s lease; process start and imports {startup['minirt_tool']:,.0f} ms, the replay
{recov['minirt_tool'][1] - wait['minirt_tool'][1]:,.0f} ms; medians of different rounds, so the parts need not
add up). With
the default 30 s lease a restart right after the crash waits about 30 s
({rs['minirt_tool_lease30'][1]:,.0f} ms): `rt.resume(run_id)` raises `LeaseHeld` until the lease
expires, so the benchmark, like a program that resumes right after a crash, waits until
`lease_expires_at` and calls it again (`minirt worker` instead claims the run once its lease
lapses). A short lease shortens that wait but needs heartbeats during long steps (the worker sends
one every `lease_for / 3`). DBOS's resume
({rs['dbos_wal'][0]:,.0f} / {rs['dbos_wal'][1]:,.0f} ms in WAL) is its launch, the 1 s queue poll
and a replay of every recorded step. LangGraph's StateGraph loads only the latest checkpoint (its
{rs['langgraph_sync'][1]:,.0f} ms are almost all process start and imports) at the price of a
full-state checkpoint per step. LangGraph's functional API resumes for real with `invoke(None,
cfg)` but its replay grows faster than linearly ({rs['langgraph_func'][0]:,.0f} ms at 1,000 steps,
{rs['langgraph_func'][1]:,.0f} ms at 10,000), and even with `durability="sync"` it redid
{min(redone_func)}-{max(redone_func)} recorded tasks per resume: the results of the last tasks had not
reached the disk when the process was killed. minirt, DBOS and the StateGraph redid none. What
each peer promises: DBOS records a step's output after it runs (no intent), so a crash mid-step
re-runs it; LangGraph "sync" persists a checkpoint per superstep.

Other figures: the capstone agent costs 1.8 ms per step position durable against 0.63 ms with
the same journaling unsynced (2.9x), and recovers from a crash in its last W3 in 5 ms. Every
lesson runs headless in 1-15 s (lesson 00, which grades a drill for real, is the slowest). Grading
one drill with `./course grade 01` (nbgrader plus the out-of-kernel check) took 8.9 s on 2026-12-01
with a CI run busy on the other core (18.6 s the first time, which registers the drill); the full
crash sweep over every scenario (766 cells) was re-measured in issue 24 at 124 s on a loaded
machine (63 s earlier). The whole test suite, browser included, took 28 minutes in CI from a fresh
clone (1,696 s of pytest on 2026-12-01), about half of it the drill honesty tests. PostgreSQL
throughput against workers is in the next section's scaling curve (`build/benchmarks/` after a
run).

"""

assert all(m["redone"] == 0 for s in ("minirt_tool", "minirt_decision", "dbos", "dbos_wal",
                                        "langgraph_sync")
           for k in ("resume1000", "resume10000") for m in r[s][k] if "redone" in m)
assert startup["langgraph_sync"] / rs["langgraph_sync"][1] > 0.9


def rewrap(text):
    import textwrap
    out, in_code = [], False
    for para in text.split("\n\n"):
        if para.startswith("```") or para.startswith("|") or para.startswith("#") or in_code:
            out.append(para)
            in_code = para.count("```") % 2 == 1 if not in_code else para.count("```") % 2 == 0
            continue
        out.append(textwrap.fill(" ".join(para.split()), width=100, break_long_words=False,
                                 break_on_hyphens=False))
    return "\n\n".join(out)


section = rewrap(section)
readme = (ROOT / "README.md").read_text()
a = readme.index("## Benchmarks\n")
b = readme.index("## minirt on PostgreSQL\n")
(ROOT / "README.md").write_text(readme[:a] + section + readme[b:])
print(section)
