"""Set up (and take down) a class of this course on a JupyterHub with nbgrader's exchange.

Invariant: `setup` is idempotent and leaves exactly this under STATE (the class folder):

    STATE/class.json            the settings tools/hub/jupyterhub_config.py reads (0600, root)
    STATE/hub/                  the Hub's database, cookie secret and pid files (0700, root)
    STATE/exchange/             nbgrader's exchange root (1777: any user may create, none may
                                delete another's files; nbgrader makes inbound/ and feedback/
                                unlistable inside it)
    STATE/jupyter/nbgrader_config.py   Exchange.root, course_id and the late policy
                                (LateSubmissionPlugin.penalty_method) for every user's server
    <instructor home>/course/   the instructor's copy of the course (nbgrader_config.py,
                                solutions/, drills/, tools/hub/autograde.py), owned by the
                                instructor, home 0700
    <instructor home>/nbgrader_config.py   loads the course's config (formgrader reads the
                                config of the server's working directory, the home)

and real Unix users: the instructor and the learners (created with useradd when missing; only
the users it created are recorded, and only those are removed by `teardown`). It must run as
root: LocalProcessSpawner starts each user's server as that user, which is what makes the
exchange's per-user isolation real.

`env` builds the users' Python environment (a venv from a system interpreter, with the course's
`[course,hub]` extras: JupyterHub, nbgrader, and hypothesis for the hidden tests), because a
venv whose interpreter sits under a closed home (pyenv in /root) cannot run as another user.

What it does not do: install configurable-http-proxy (npm; `./course test` does), start the
Hub (it prints the command), or create a public, TLS-protected site (see the README's
"Teaching a class").

    sudo .venv/bin/python tools/hub/setup_class.py env --env /opt/minirt-class [--editable]
    sudo .venv/bin/python tools/hub/setup_class.py setup --state /srv/class \
        --instructor teacher --learners ada,bob --env /opt/minirt-class [--port 8000]
    sudo .venv/bin/python tools/hub/setup_class.py teardown --state /srv/class
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pwd
import re
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
COURSE_ID = "durable-agents"
NAME_RE = re.compile(r"^[a-z_][a-z0-9_-]{0,30}$")
LATE_POLICIES = ("none", "zero")
COPIED = ("nbgrader_config.py", "solutions", "drills", "tools/hub/autograde.py")


class ClassSetupError(Exception):
    """The class cannot be set up as asked (not root, bad user name, no proxy, ...)."""


def say(msg: str) -> None:
    print(f"hub: {msg}", flush=True)


def find_chp(root: Path = ROOT) -> str:
    """The configurable-http-proxy executable: $MINIRT_CHP, build/hub-npm (./course test puts it
    there), or PATH; raises ClassSetupError naming the npm command otherwise."""
    for cand in (os.environ.get("MINIRT_CHP"),
                 str(root / "build" / "hub-npm" / "node_modules" / ".bin" / "configurable-http-proxy"),
                 shutil.which("configurable-http-proxy")):
        if cand and os.access(cand, os.X_OK):
            return cand
    raise ClassSetupError(
        "configurable-http-proxy not found: npm install --prefix build/hub-npm "
        "configurable-http-proxy (or set MINIRT_CHP)"
    )


def check_name(name: str) -> str:
    if not NAME_RE.match(name):
        raise ClassSetupError(f"not a valid Unix user name: {name!r} (lower case, digits, - and _)")
    return name


def ensure_user(name: str, home_root: Path | None) -> bool:
    """Create Unix user `name` (home 0700) when missing; True when it was created here."""
    try:
        pwd.getpwnam(name)
        return False
    except KeyError:
        pass
    cmd = ["useradd", "--create-home", "--shell", "/bin/bash", "--user-group"]
    if home_root is not None:
        cmd += ["--home-dir", str(home_root / name)]
    subprocess.run([*cmd, name], check=True)
    os.chmod(pwd.getpwnam(name).pw_dir, 0o700)
    return True


def _chown_tree(path: Path, user: str) -> None:
    pw = pwd.getpwnam(user)
    for dirpath, _dirs, filenames in os.walk(path):
        os.chown(dirpath, pw.pw_uid, pw.pw_gid)
        for f in filenames:
            os.chown(os.path.join(dirpath, f), pw.pw_uid, pw.pw_gid, follow_symlinks=False)


def copy_course(dest: Path, owner: str, root: Path = ROOT) -> Path:
    """The instructor's course folder: nbgrader_config.py, solutions/, drills/ and
    tools/hub/autograde.py of `root`."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        src, out = root / name, dest / name
        if src.is_dir():
            if out.exists():
                shutil.rmtree(out)
            shutil.copytree(src, out, ignore=shutil.ignore_patterns(
                ".ipynb_checkpoints", "__pycache__"))
        else:
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, out)
    (dest / "build").mkdir(exist_ok=True)
    _chown_tree(dest, owner)
    return dest


def _open_to_all(path: Path) -> Path | None:
    """The first folder or file on the way to `path` (symlinks followed) that other users cannot
    enter or read, or None when every user can run it."""
    real = Path(os.path.realpath(path))
    for p in [*reversed(real.parents), real]:
        mode = p.stat().st_mode
        need = 0o005 if p == real else 0o001
        if mode & need != need:
            return p
    return None


def env_stamp(python: str, editable: bool, root: Path = ROOT) -> str:
    data = (root / "pyproject.toml").read_bytes() + f"{python}|{editable}".encode()
    if not editable:  # a copy of the code: it is stale as soon as any of it changes
        data += str(root).encode()
        for pkg in ("minirt", "minirt_course"):
            for f in sorted((root / pkg).rglob("*")):
                if f.is_file() and "__pycache__" not in f.parts:
                    data += f.relative_to(root).as_posix().encode() + f.read_bytes()
    return hashlib.sha256(data).hexdigest()


#: Where the class environment and a copy of the checkout go when the checkout is closed to
#: other users (a clone under ``mktemp -d`` or /root): the users' servers could neither run an
#: environment inside it nor import an editable install from it.
SHARED_ENV = Path("/var/tmp/minirt-class-env")
SHARED_SRC = Path("/var/tmp/minirt-class-src")


def class_env_for(root: Path = ROOT) -> tuple[Path, Path]:
    """(environment, source) for this checkout: ``build/hub-env`` installed editable from the
    checkout when every user can enter it, else :data:`SHARED_ENV` installed editable from
    :data:`SHARED_SRC`, a world-readable copy of the checkout's tracked files (the same layout,
    so the graders' sandbox sees what it sees in an open checkout)."""
    if _open_to_all(root) is None:
        return root / "build" / "hub-env", root
    return SHARED_ENV, SHARED_SRC


def copy_checkout(root: Path, dest: Path) -> Path:
    """Replace ``dest`` with a copy of the files git tracks in ``root``, readable by everyone."""
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True,
                            check=False)
    if listed.returncode != 0:
        raise ClassSetupError(f"{root} is not a git checkout: cannot copy it for the class")
    tmp = dest.with_name(dest.name + ".new")
    shutil.rmtree(tmp, ignore_errors=True)
    for rel in filter(None, listed.stdout.decode().split("\0")):
        src = root / rel
        if src.is_file():
            target = tmp / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target)
    for dirpath, _dirs, filenames in os.walk(tmp):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            p = os.path.join(dirpath, name)
            os.chmod(p, os.stat(p).st_mode | 0o044)
    shutil.rmtree(dest, ignore_errors=True)
    os.replace(tmp, dest)
    return dest


def build_env(env: Path, python: str = "/usr/bin/python3", *, editable: bool = False,
              root: Path = ROOT) -> Path:
    """A Python environment every user's server can run: a venv made by `python` (which must be
    reachable by all users, unlike a pyenv under /root) with this course's `[course,hub]`
    installed. Skipped when the stamp (pyproject.toml, interpreter, editable) is unchanged.
    Returns the environment's bin/ folder."""
    blocked = _open_to_all(Path(shutil.which(python) or python))
    if blocked is not None:
        raise ClassSetupError(f"{python} is not usable by other users ({blocked} is closed to "
                              "them): pass --python with a system interpreter (>= 3.11)")
    env = env.resolve()
    stamp = env / ".minirt-hub-env"
    want = env_stamp(python, editable, root)
    if stamp.is_file() and stamp.read_text() == want:
        say(f"class environment {env} is up to date")
        return env / "bin"
    t0 = time.monotonic()
    if not (env / "bin" / "python").exists():
        say(f"creating the class environment {env} with {python}")
        subprocess.run([python, "-m", "venv", str(env)], check=True)
    spec = [*(["-e"] if editable else []), f"{root}[course,hub]"]
    say(f"pip install {' '.join(spec)} into {env} (about a minute the first time)")
    log = env / "pip-install.log"
    with log.open("w") as fh:
        done = subprocess.run([str(env / "bin" / "python"), "-m", "pip", "install",
                               "--disable-pip-version-check", "--no-input", *spec],
                              stdout=fh, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        raise ClassSetupError(f"pip install into {env} failed (log: {log})")
    for dirpath, dirnames, filenames in os.walk(env):  # readable by every user's server
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                os.chmod(p, os.stat(p).st_mode | 0o044 | (0o011 if os.path.isdir(p) or
                                                           os.stat(p).st_mode & 0o100 else 0))
    os.chmod(env, 0o755)
    stamp.write_text(want)
    say(f"class environment ready in {time.monotonic() - t0:.0f} s")
    return env / "bin"


def setup(state: Path, instructor: str, learners: list[str], *, home_root: Path | None = None,
          venv_bin: str | None = None,
          ip: str = "127.0.0.1", port: int = 8000, hub_port: int = 8081,
          proxy_api_port: int = 8001, password: str | None = None, pam: bool = False,
          api_token: bool = False, late_penalty: str = "none") -> dict[str, Any]:
    """Create the users, the exchange, the course copy and class.json; return the settings."""
    if os.geteuid() != 0:
        raise ClassSetupError("run setup as root: it creates Unix users, and the Hub spawns "
                              "each user's server as that user")
    names = [check_name(n) for n in [instructor, *learners]]
    if len(set(names)) != len(names):
        raise ClassSetupError(f"user names repeat: {names}")
    if not learners:
        raise ClassSetupError("a class needs at least one learner (--learners a,b)")
    if late_penalty not in LATE_POLICIES:
        raise ClassSetupError(f"unknown late policy {late_penalty!r}: one of {LATE_POLICIES}")
    chp = find_chp()
    venv_bin = venv_bin or str(Path(sys.executable).parent)
    single = Path(venv_bin) / "jupyterhub-singleuser"
    if not os.access(single, os.X_OK):
        raise ClassSetupError(f"no jupyterhub-singleuser in {venv_bin}: pip install '.[hub]'")
    for exe in (single, Path(venv_bin) / "python"):
        blocked = _open_to_all(exe)
        if blocked is not None:
            raise ClassSetupError(
                f"the users' servers could not run {exe}: {blocked} is closed to other users. "
                "Build a shared environment: setup_class.py env --env /opt/minirt-class, then "
                "setup --env /opt/minirt-class")
    state = state.resolve()
    state.mkdir(parents=True, exist_ok=True)
    os.chmod(state, 0o755)  # users' servers read state/jupyter and write into state/exchange
    settings_file = state / "class.json"
    old = json.loads(settings_file.read_text()) if settings_file.is_file() else {}
    created = list(old.get("created_users", []))
    for name in names:
        if ensure_user(name, home_root):
            created.append(name)
            say(f"created Unix user {name} (home {pwd.getpwnam(name).pw_dir}, 0700)")
        else:
            say(f"Unix user {name} already exists")
    hub_dir = state / "hub"
    hub_dir.mkdir(exist_ok=True)
    os.chmod(hub_dir, 0o700)
    exchange = state / "exchange"
    exchange.mkdir(exist_ok=True)
    os.chmod(exchange, 0o1777)
    jupyter_dir = state / "jupyter"
    jupyter_dir.mkdir(exist_ok=True)
    os.chmod(jupyter_dir, 0o755)
    (jupyter_dir / "nbgrader_config.py").write_text(
        '"""The class: where nbgrader\'s exchange is, and which course this is."""\n'
        "c = get_config()  # noqa: F821\n"
        f"c.Exchange.root = {str(exchange)!r}\n"
        f"c.CourseDirectory.course_id = {COURSE_ID!r}\n"
        "# late submissions (after the due date of `nbgrader db assignment add --duedate`):\n"
        "# 'none' keeps the score, 'zero' takes it all (tools/hub/autograde.py applies it)\n"
        f"c.LateSubmissionPlugin.penalty_method = {late_penalty!r}\n",
        encoding="utf-8",
    )
    course_dir = Path(pwd.getpwnam(instructor).pw_dir) / "course"
    copy_course(course_dir, instructor)
    # nbgrader's formgrader reads nbgrader_config.py from the server's working directory, which
    # LocalProcessSpawner sets to the user's home: point it at the course's own config.
    home_cfg = course_dir.parent / "nbgrader_config.py"
    home_cfg.write_text(
        '"""The instructor\'s nbgrader: the course folder\'s nbgrader_config.py."""\n'
        "c = get_config()  # noqa: F821\n"
        f"load_subconfig({str(course_dir / 'nbgrader_config.py')!r})  # noqa: F821\n",
        encoding="utf-8",
    )
    pw = pwd.getpwnam(instructor)
    os.chown(home_cfg, pw.pw_uid, pw.pw_gid)
    say(f"copied the course ({', '.join(COPIED)}) to {course_dir}")
    settings: dict[str, Any] = {
        "ip": ip, "port": port, "hub_port": hub_port, "proxy_api_port": proxy_api_port,
        "instructor": instructor, "learners": list(learners), "course_id": COURSE_ID,
        "course_dir": str(course_dir), "exchange": str(exchange), "hub_dir": str(hub_dir),
        "jupyter_config_dir": str(jupyter_dir), "venv_bin": venv_bin, "chp": chp,
        "authenticator": "pam" if pam else "dummy", "created_users": sorted(set(created)),
    }
    if not pam:
        settings["password"] = password or old.get("password") or secrets.token_urlsafe(12)
    if api_token:
        settings["api_token"] = old.get("api_token") or secrets.token_hex(32)
    settings_file.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    os.chmod(settings_file, 0o600)
    say(f"wrote {settings_file}; start the Hub with:")
    say(f"  MINIRT_HUB_SETTINGS={settings_file} {venv_bin}/jupyterhub "
        f"-f {ROOT / 'tools' / 'hub' / 'jupyterhub_config.py'}")
    say(f"then open http://{ip}:{port}/hub/login")
    return settings


def teardown(state: Path) -> list[str]:
    """Remove the users `setup` created (with their homes) and the class folder."""
    settings_file = state / "class.json"
    if not settings_file.is_file():
        raise ClassSetupError(f"{settings_file} does not exist: nothing to take down")
    settings = json.loads(settings_file.read_text())
    removed = []
    for name in settings.get("created_users", []):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        # stop the Hub first (it stops the users' servers); a user with processes is kept
        done = subprocess.run(["userdel", "--remove", name], check=False,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode == 0:
            removed.append(name)
            say(f"removed Unix user {name}")
        else:
            say(f"could not remove Unix user {name}: {done.stdout.strip()}")
    shutil.rmtree(state, ignore_errors=True)
    say(f"removed {state}")
    return removed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="setup_class.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("setup", help="create users, exchange, course copy and class.json")
    s.add_argument("--state", required=True, type=Path)
    s.add_argument("--instructor", required=True)
    s.add_argument("--learners", required=True, help="comma-separated user names")
    s.add_argument("--home-root", type=Path, default=None)
    s.add_argument("--env", type=Path, default=None,
                   help="the users' Python environment (default: this interpreter's)")
    s.add_argument("--ip", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--hub-port", type=int, default=8081)
    s.add_argument("--proxy-api-port", type=int, default=8001)
    s.add_argument("--password", default=None, help="shared password (default: generated)")
    s.add_argument("--pam", action="store_true", help="log in with the users' Unix passwords")
    s.add_argument("--api-token", action="store_true", help="add a class-driver service token")
    s.add_argument("--late-penalty", choices=LATE_POLICIES, default="none",
                   help="nbgrader's penalty_method for late submissions (default: none)")
    e = sub.add_parser("env", help="build a Python environment every user can run")
    e.add_argument("--env", type=Path, default=None)
    e.add_argument("--python", default="/usr/bin/python3")
    e.add_argument("--editable", action="store_true", help="install this checkout editable")
    e.add_argument("--auto", action="store_true",
                   help="build/hub-env, editable, when other users can enter this checkout; else "
                        f"{SHARED_ENV}, editable from a copy of the checkout in {SHARED_SRC}")
    t = sub.add_parser("teardown", help="remove the users setup created and the class folder")
    t.add_argument("--state", required=True, type=Path)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "setup":
            learners = [n.strip() for n in args.learners.split(",") if n.strip()]
            setup(args.state, args.instructor, learners, home_root=args.home_root,
                  venv_bin=str(args.env.resolve() / "bin") if args.env else None, ip=args.ip,
                  port=args.port, hub_port=args.hub_port, proxy_api_port=args.proxy_api_port,
                  password=args.password, pam=args.pam, api_token=args.api_token,
                  late_penalty=args.late_penalty)
        elif args.cmd == "env":
            if args.auto:
                env, src = class_env_for()
                if src != ROOT:
                    say(f"{ROOT} is closed to other users: the class runs a copy in {src}")
                    copy_checkout(ROOT, src)
                build_env(env, args.python, editable=True, root=src)
            elif args.env is None:
                raise ClassSetupError("give --env PATH or --auto")
            else:
                build_env(args.env, args.python, editable=args.editable)
        else:
            teardown(args.state)
    except (ClassSetupError, subprocess.CalledProcessError) as exc:
        print(f"hub: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
