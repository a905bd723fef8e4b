"""Install the learner release on each Python the machine has, and run a lesson and a drill there.

    python tools/learner_matrix.py [--pythons 3.11,3.12,3.13] [--keep DIR]

For each version: find its interpreter (`python3.X` on PATH, else pyenv's), build the learner
release once (tools/release.py), create a fresh venv, `pip install` the wheel (the learner's
packages only), `minirt-course start COURSE --no-open`, execute lesson 01 with nbclient, and run
drill 01's visible tests with `minirt-course grade 01` (an installed course has no hidden tests).
One line per step with its time; exit 1 if any version that was found failed, 0 otherwise
(versions not found are reported as skipped, never as passed).

Invariant: nothing is installed outside the temporary folder (or --keep DIR).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def find_python(version: str) -> str | None:
    """An interpreter of `version` (3.X) that runs: python3.X on PATH, else pyenv's newest.

    A pyenv shim on PATH for a version that is installed but not active fails to run; it is
    skipped, not taken."""
    pyenv = Path.home() / ".pyenv" / "versions"
    candidates = [shutil.which(f"python{version}")]
    candidates += [str(p) for p in sorted(pyenv.glob(f"{version}.*/bin/python"),
                                          key=lambda p: p.parent.parent.name, reverse=True)]
    for exe in candidates:
        if not exe:
            continue
        proc = subprocess.run([exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                              capture_output=True, text=True, check=False, timeout=30)
        if proc.returncode == 0 and proc.stdout.strip() == version:
            return exe
    return None


def step(label: str, cmd: list[str], cwd: Path, timeout: int) -> bool:
    t = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          check=False, stdin=subprocess.DEVNULL)
    ok = proc.returncode == 0
    print(f"  {label}: {'ok' if ok else 'FAILED'} ({time.monotonic() - t:.0f} s)", flush=True)
    if not ok:
        print("    " + "\n    ".join((proc.stdout + proc.stderr).strip().splitlines()[-8:]))
    return ok


LESSON_RUN = """
import sys
import nbformat
from minirt_course.course.kernel_client import notebook_client
path = sys.argv[1]
nb = nbformat.read(path, as_version=4)
notebook_client(nb, timeout=300, kernel_name="python3",
               resources={"metadata": {"path": str(__import__("pathlib").Path(path).parent)}}).execute()
bad = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
       if o.get("output_type") == "error" or o.get("name") == "stderr"]
sys.exit(1 if bad else 0)
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tools/learner_matrix.py", description=__doc__.splitlines()[0])
    ap.add_argument("--pythons", default="3.11,3.12,3.13")
    ap.add_argument("--keep", help="work in this folder and keep it (default: a temporary one)")
    args = ap.parse_args(argv)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="learner-matrix-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"learner matrix in {work}", flush=True)
    release = work / "release"
    if not release.exists():
        t = time.monotonic()
        subprocess.run([sys.executable, str(ROOT / "tools" / "release.py"), str(release)],
                       check=True, stdout=subprocess.DEVNULL)
        print(f"release built ({time.monotonic() - t:.0f} s)", flush=True)
    wheel = str(next((release / "dist").glob("*.whl")))
    failed, ran, skipped = [], [], []
    for version in args.pythons.split(","):
        py = find_python(version)
        if py is None:
            print(f"Python {version}: skipped (no interpreter found)")
            skipped.append(version)
            continue
        print(f"Python {version} ({py}):", flush=True)
        here = work / f"py{version}"
        shutil.rmtree(here, ignore_errors=True)
        here.mkdir()
        venv = here / "venv" / "bin"
        ok = (step("venv", [py, "-m", "venv", str(here / "venv")], here, 120)
              and step("pip install the wheel", [str(venv / "python"), "-m", "pip", "install",
                                                 "-q", "--disable-pip-version-check", wheel],
                       here, 1200)
              and step("minirt-course start", [str(venv / "minirt-course"), "start", "course",
                                               "--no-open"], here, 120)
              and step("lesson 01 (nbclient)", [str(venv / "python"), "-c", LESSON_RUN,
                                                "lessons/01-run-state-machines.ipynb"],
                       here / "course", 900)
              and step("drill 01 visible tests (minirt-course grade 01)",
                       [str(venv / "minirt-course"), "grade", "01"], here / "course", 600))
        (ran if ok else failed).append(version)
    print(f"passed: {', '.join(ran) or 'none'}; failed: {', '.join(failed) or 'none'}; "
          f"skipped: {', '.join(skipped) or 'none'}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed or not ran else 0


if __name__ == "__main__":
    sys.exit(main())
