"""The learner's process is confined: CPU time, memory, and (as root on Linux) no view of the course.

An answer that loops forever or allocates 20 GB ends as a named failure of the property that called
it, with 0 points, not a hang or an out-of-memory machine; a submission cannot read the drill's
source notebook or the hidden helpers from disk, nor write into the course. The control tests show
the attacks are real: with the confinement off, the same submission reads the answer.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from minirt_course.course import catalog, oracle, sandbox

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_tamper import ROOT, TAMPER, load, submission  # noqa: E402

ROOT_ON_LINUX = sys.platform.startswith("linux") and os.geteuid() == 0
PROBE = f"""import os, resource
uid = os.getuid()
as_limit = resource.getrlimit(resource.RLIMIT_AS)[0]
cpu_limit = resource.getrlimit(resource.RLIMIT_CPU)[0]
def attempt(fn):
    try:
        fn()
        return "ok"
    except Exception as exc:
        return type(exc).__name__
read_solution = attempt(lambda: open({str(ROOT / 'solutions/01-run-state-machines/drill.ipynb')!r}).read())
read_grader = attempt(lambda: open({str(ROOT / 'minirt_course/grading/m01.py')!r}).read())
list_root = attempt(lambda: os.listdir({str(ROOT)!r}))
write_root = attempt(lambda: open({str(ROOT / 'tamper-probe.txt')!r}, "w").write("x"))
spawn = attempt(lambda: __import__("subprocess").run(["cat", {str(ROOT / 'README.md')!r}],
                                                   capture_output=True, check=True))
import IPython, pydantic, minirt.runtime  # the libraries still load
"""
NAMES = ["uid", "as_limit", "cpu_limit", "read_solution", "read_grader", "list_root", "write_root",
         "spawn"]


def _probe(**kw: object) -> dict[str, object]:
    with sandbox.LearnerProcess(ROOT / "build", hide=[ROOT], **kw) as p:  # type: ignore[arg-type]
        p.root.load([["answer", "probe", PROBE]])
        out = p.root.run_until("probe", NAMES)
        assert not out["errors"], out["errors"]
        return dict(out["values"])


def test_limits_are_set_in_the_learners_process() -> None:
    v = _probe(cpu_seconds=7, memory_bytes=3 * 2**30)
    assert v["as_limit"] == 3 * 2**30 and v["cpu_limit"] == 7, v


@pytest.mark.skipif(not ROOT_ON_LINUX, reason="hiding the course needs root on Linux")
def test_the_course_is_hidden_and_root_dropped() -> None:
    v = _probe()
    assert v["uid"] == 65534, v
    assert v["read_solution"] == v["read_grader"] == "FileNotFoundError", v
    assert v["list_root"] == "ok" and v["write_root"] == "OSError", v  # an empty read-only tmpfs
    assert v["spawn"] != "ok", v
    assert not (ROOT / "tamper-probe.txt").exists()


def test_without_root_the_audit_hook_refuses_the_course() -> None:
    v = _probe(isolate=False)
    assert v["read_solution"] == v["read_grader"] == v["list_root"] == "PermissionError", v
    assert v["spawn"] == "PermissionError", v
    (ROOT / "tamper-probe.txt").unlink(missing_ok=True)


def test_a_memory_bomb_is_a_named_memory_error(tmp_path: Path) -> None:
    answers, must_fail, _ = load(TAMPER / "09-runtime-budgets" / "memory_bomb.py")
    nb = submission("09-runtime-budgets", answers, tmp_path / "drill.ipynb")
    result = oracle.run_oracle("09", nb, ROOT)
    cell = result.cell("test_settle_releases_the_rest")
    assert not cell.passed and (cell.message or "").startswith("MemoryError"), cell
    assert "no address-space limit" not in (cell.message or ""), "the limit was not in force"
    assert result.cell("test_fail_closed").passed  # reserve() is the reference and still counts


def test_a_cpu_loop_ends_as_a_named_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    """schedule() spins forever: with a 3 s CPU limit the process is stopped and every cell that
    needs it says why, well before the 20 s call limit."""
    monkeypatch.setattr(oracle, "CPU_LIMIT", 3.0)
    answers, _, _ = load(TAMPER / "07-concurrent-tools" / "infinite_loop.py")
    nb = submission("07-concurrent-tools", answers, tmp_path / "drill.ipynb")
    started = time.monotonic()
    result = oracle.run_oracle("07", nb, ROOT)
    took = time.monotonic() - started
    assert result.cell("test_conflict_rule").passed
    msg = result.cell("test_dependencies").message or ""
    assert "ran out of CPU time (limit 3 s)" in msg and "schedule" in msg, msg
    for gid in ("test_no_conflict_in_wave", "test_bound", "test_minimal", "test_deterministic",
                "test_join_order"):
        assert not result.cell(gid).passed and result.cell(gid).message, gid
    assert took < oracle.CALL_LIMIT + 15, f"took {took:.1f} s"


@pytest.mark.skipif(not ROOT_ON_LINUX, reason="hiding the course needs root on Linux")
def test_reading_the_solution_from_disk_wins_only_without_the_confinement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = TAMPER / "08-cancellation" / "read_solutions_from_disk.py"
    answers, must_fail, _ = load(path)
    nb = submission("08-cancellation", answers, tmp_path / "drill.ipynb")
    confined = oracle.run_oracle("08", nb, ROOT, cell="test_prediction")
    assert not confined.cell("test_prediction").passed
    real = sandbox.LearnerProcess.__init__

    def open_door(self: sandbox.LearnerProcess, build: Path, **kw: object) -> None:
        kw.update(hide=None, isolate=False)
        real(self, build, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(sandbox.LearnerProcess, "__init__", open_door)
    open_ = oracle.run_oracle("08", nb, ROOT, cell="test_prediction")
    assert open_.cell("test_prediction").passed, (
        "with the confinement off the attack no longer reads the answer: this test no longer "
        "shows the confinement is what stops it")
    assert catalog.get("08").slug == "08-cancellation"


@pytest.mark.skipif(not ROOT_ON_LINUX, reason="hiding needs root on Linux")
def test_another_clone_of_the_course_elsewhere_on_the_disk_is_hidden_too() -> None:
    """A stranger's attack: glob the disk for any `solutions/` folder (a second clone, another
    checkout, a copy left in /tmp) and exec its answer. Every non-system top-level folder, /tmp
    included, is covered, so a world-readable clone there is gone for the learner's process."""
    import secrets
    import shutil

    tag = secrets.token_hex(4)
    others = [Path("/") / f"minirt-probe-{tag}", Path("/tmp") / f"minirt-probe-{tag}"]
    answers = [o / "clone" / "solutions" / "01-run-state-machines" / "drill.ipynb" for o in others]
    try:
        for other, answer in zip(others, answers, strict=True):
            answer.parent.mkdir(parents=True)
            for p in (other, other / "clone", answer.parent.parent, answer.parent):
                p.chmod(0o755)
            answer.write_text("{}", encoding="utf-8")
            answer.chmod(0o644)
        probe = ("import glob\nfound = []\ndirect = []\n"
                 f"for other, answer in {[(str(o), str(a)) for o, a in zip(others, answers, strict=True)]!r}:\n"
                 "    found += glob.glob(other + '/*/solutions/*/*')\n"
                 "    try:\n        open(answer).read()\n        direct.append('ok')\n"
                 "    except Exception as exc:\n        direct.append(type(exc).__name__)\n")
        with sandbox.LearnerProcess(ROOT / "build", hide=[ROOT]) as p:
            p.root.load([["answer", "probe", probe]])
            out = p.root.run_until("probe", ["found", "direct"])
        assert not out["errors"], out["errors"]
        assert out["values"]["found"] == [], out["values"]
        assert out["values"]["direct"] == ["FileNotFoundError", "FileNotFoundError"], out["values"]
    finally:
        for other in others:
            shutil.rmtree(other, ignore_errors=True)
