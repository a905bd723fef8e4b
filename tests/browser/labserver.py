"""The JupyterLab server the browser suite talks to: one per session, on 127.0.0.1, with a token.

Invariant: it serves a temporary copy of the course (lessons/, solutions/, drills/,
nbgrader_config.py), never the checkout, and its Jupyter config, data, runtime, IPython and lab
settings/workspace folders are temporary too, so nothing of the user's or the repo's is read or
written. Kernels are the venv's (its bin/ leads PATH, so kernel.json's "python" is the venv's).
Not guaranteed: that the copy stays in step with files added to the checkout after start().
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from harness import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LabServer:
    """One JupyterLab server on 127.0.0.1 with a token, serving a temporary copy of the course."""

    def __init__(self, base: Path, source: Path = ROOT) -> None:
        self.base = base
        self.root = base / "root"
        self.source = source
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self.log_path = base / "jupyter-server.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def copy_course(self) -> None:
        """lessons/ and solutions/, plus drills/ and nbgrader_config.py so that the copy is a
        course folder of its own: a lesson that looks for its course root (the folder holding
        nbgrader_config.py, above the kernel's working directory) finds the copy, not the
        checkout, and whatever it writes stays in the copy."""
        ignore = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__", "*.sqlite*")
        for part in ("lessons", "solutions", "drills"):
            if (self.source / part).is_dir():
                shutil.copytree(self.source / part, self.root / part, ignore=ignore,
                                dirs_exist_ok=True)
        if (self.source / "nbgrader_config.py").is_file():
            shutil.copy2(self.source / "nbgrader_config.py", self.root / "nbgrader_config.py")

    def command(self) -> list[str]:
        jupyter = Path(sys.executable).with_name("jupyter")
        head = [str(jupyter), "lab"] if jupyter.exists() else [sys.executable, "-m", "jupyterlab"]
        args = [
            "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0", f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}", "--ServerApp.open_browser=False",
            f"--LabApp.user_settings_dir={self.base / 'user-settings'}",
            f"--LabApp.workspaces_dir={self.base / 'workspaces'}",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--ServerApp.allow_root=True")
        return head + args

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
        for var, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                         ("JUPYTER_RUNTIME_DIR", "runtime"), ("IPYTHONDIR", "ipython")):
            (self.base / sub).mkdir(parents=True, exist_ok=True)
            env[var] = str(self.base / sub)
        env["JUPYTER_PLATFORM_DIRS"] = "1"
        return env

    def start(self, timeout: float = 90.0) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.copy_course()
        log = self.log_path.open("wb")
        self.proc = subprocess.Popen(self.command(), cwd=self.base, env=self.env(), stdout=log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {self.proc.returncode}:\n"
                                   + self.log_tail())
            try:
                self.api("GET", "/api/status")
                return
            except (OSError, urllib.error.URLError):
                time.sleep(0.5)
        raise RuntimeError(f"jupyter lab did not answer within {timeout:.0f} s:\n" + self.log_tail())

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def api(self, method: str, path: str) -> Any:
        req = urllib.request.Request(self.url + path, method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def session_for(self, rel: str) -> dict[str, Any] | None:
        for s in self.api("GET", "/api/sessions"):
            if s.get("path") == rel:
                return s
        return None

    def kernel_ids(self) -> list[str]:
        return [k["id"] for k in self.api("GET", "/api/kernels")]

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()  # SIGTERM: jupyter shuts its kernels down and exits
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
