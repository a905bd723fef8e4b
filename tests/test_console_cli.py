"""``minirt console`` as a command: it binds 127.0.0.1, prints its URL with the token, refuses
a request without it, and stops on SIGINT or SIGTERM with exit code 0 and nothing on stderr."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")

ROOT = Path(__file__).resolve().parents[1]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None


def start(tmp_path: Path, *argv: str) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "minirt.cli", "console", "--store",
                             str(tmp_path / "runs.sqlite"), "--port", "0", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(proc.stdout.readline()))
    reader.start()
    reader.join(timeout=60)
    assert line and line[0].startswith("minirt console: http://"), (line, proc.poll())
    return proc, line[0].split(": ", 1)[1].strip()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_console_binds_localhost_and_needs_its_token(tmp_path, stop):
    proc, url = start(tmp_path)
    try:
        base, token = url.split("/?token=")
        assert base.startswith("http://127.0.0.1:") and len(token) >= 40
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base + "/", timeout=10)
        assert refused.value.code == 401
        opener = urllib.request.build_opener(NoRedirect)
        with pytest.raises(urllib.error.HTTPError) as login:
            opener.open(url, timeout=10)
        assert login.value.code == 303 and login.value.headers["set-cookie"].startswith(
            "minirt_console_")
        cookie = login.value.headers["set-cookie"].split(";")[0]
        page = urllib.request.urlopen(urllib.request.Request(base + "/",
                                                             headers={"Cookie": cookie}),
                                      timeout=10)
        assert page.status == 200 and "No runs in this store" in page.read().decode()
    finally:
        proc.send_signal(stop)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and err == "", (proc.returncode, err)
    assert out.strip().endswith("minirt console: stopped")


def test_a_wildcard_host_needs_the_names_browsers_will_use(tmp_path, capsys):
    from minirt.cli import main

    code = main(["console", "--store", str(tmp_path / "runs.sqlite"), "--host", "0.0.0.0"])
    cap = capsys.readouterr()
    assert code == 2 and cap.out == "" and "--allow-host NAME" in cap.err


def test_console_help_lists_its_options(capsys):
    from minirt.cli import main

    with pytest.raises(SystemExit) as done:
        main(["console", "--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0 and "--host" in out and "127.0.0.1" in out and "--user" in out
