"""Fast checks of tools/hub's pieces that need no Hub: names, permissions, the config's guard."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "hub"))
import setup_class  # noqa: E402


@pytest.mark.parametrize("name", ["Ada", "1bob", "a b", "x" * 40, "../etc", ""])
def test_bad_user_names_are_refused(name: str) -> None:
    with pytest.raises(setup_class.ClassSetupError, match="not a valid Unix user name"):
        setup_class.check_name(name)


def test_good_user_name_passes() -> None:
    assert setup_class.check_name("mrt-ada_2") == "mrt-ada_2"


def test_a_closed_folder_on_the_way_is_named() -> None:
    base = Path(tempfile.mkdtemp(prefix="minirt-hubperm-", dir="/tmp"))
    try:
        closed = base / "closed"
        (closed / "bin").mkdir(parents=True)
        exe = closed / "bin" / "python"
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o755)
        os.chmod(base, 0o755)
        os.chmod(closed, 0o700)
        assert setup_class._open_to_all(exe) == closed
        os.chmod(closed, 0o755)
        assert setup_class._open_to_all(exe) is None
        exe.chmod(0o750)
        assert setup_class._open_to_all(exe) == exe
    finally:
        shutil.rmtree(base)


def test_env_stamp_follows_interpreter_and_mode() -> None:
    a = setup_class.env_stamp("/usr/bin/python3", False)
    assert a == setup_class.env_stamp("/usr/bin/python3", False)
    assert a != setup_class.env_stamp("/usr/bin/python3", True)
    assert a != setup_class.env_stamp("/usr/bin/python3.12", False)


def test_setup_refuses_without_root_or_learners(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(setup_class.ClassSetupError, match="run setup as root"):
        setup_class.setup(tmp_path, "teach", ["ada"])
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    with pytest.raises(setup_class.ClassSetupError, match="at least one learner"):
        setup_class.setup(tmp_path, "teach", [])
    with pytest.raises(setup_class.ClassSetupError, match="repeat"):
        setup_class.setup(tmp_path, "ada", ["ada"])


def test_hub_config_names_the_missing_settings() -> None:
    env = {k: v for k, v in os.environ.items() if k != "MINIRT_HUB_SETTINGS"}
    code = ("from traitlets.config import Config\n"
            "ns = {'get_config': Config}\n"
            f"exec(open({str(ROOT / 'tools' / 'hub' / 'jupyterhub_config.py')!r}).read(), ns)\n")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode != 0
    assert "MINIRT_HUB_SETTINGS is not set" in done.stderr
