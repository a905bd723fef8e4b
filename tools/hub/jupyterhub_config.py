"""JupyterHub configuration for teaching the course to a class (issue 23).

Invariant: every value comes from the class settings file that `tools/hub/setup_class.py setup`
writes (path in $MINIRT_HUB_SETTINGS); this file holds no site-specific value of its own, so the
same file serves the CI test and an instructor's server.

What it sets up:
- real Unix users (created by the setup script) spawned with LocalProcessSpawner, so each
  single-user server runs as its user and nbgrader's exchange can rely on file permissions
  (a learner cannot list the inbound folder or read another learner's feedback);
- the instructor's server opens in the course folder (formgrader works there); a learner's in
  their home;
- DummyAuthenticator with one shared password when the settings carry `password` (a local class
  on 127.0.0.1, and the test); with `"authenticator": "pam"` the users' own Unix passwords;
- optionally a `class-driver` service token (the test drives the Hub's REST API with it).

What it does not do: TLS, a public bind address or a real identity provider. On a server, put
the Hub behind HTTPS (TLJH does that with `tljh-config set https.enabled true`) and use PAM or
OAuth (see the README's "Teaching a class").

Run: MINIRT_HUB_SETTINGS=/srv/class/class.json jupyterhub -f tools/hub/jupyterhub_config.py
"""

import json
import os

c = get_config()  # noqa: F821  (injected by traitlets when it loads this file)

_PATH = os.environ.get("MINIRT_HUB_SETTINGS")
if not _PATH:
    raise SystemExit(
        "MINIRT_HUB_SETTINGS is not set: run `python tools/hub/setup_class.py setup ...` first "
        "and pass the class.json it wrote (MINIRT_HUB_SETTINGS=.../class.json jupyterhub -f ...)"
    )
with open(_PATH, encoding="utf-8") as fh:
    S = json.load(fh)

_HUB = S["hub_dir"]  # 0700, root only: database, cookie secret, pid files

c.JupyterHub.bind_url = f"http://{S['ip']}:{S['port']}"
c.JupyterHub.hub_ip = S["ip"]
c.JupyterHub.hub_port = S["hub_port"]
c.ConfigurableHTTPProxy.api_url = f"http://{S['ip']}:{S['proxy_api_port']}"
c.ConfigurableHTTPProxy.command = [S["chp"]]
c.ConfigurableHTTPProxy.pid_file = os.path.join(_HUB, "proxy.pid")
c.JupyterHub.db_url = "sqlite:///" + os.path.join(_HUB, "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(_HUB, "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = os.path.join(_HUB, "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True

# --------------------------------------------------------------------------- who may log in

_USERS = {S["instructor"], *S["learners"]}
if S.get("authenticator", "dummy") == "pam":
    c.JupyterHub.authenticator_class = "jupyterhub.auth.PAMAuthenticator"
else:
    c.JupyterHub.authenticator_class = "jupyterhub.auth.DummyAuthenticator"
    c.DummyAuthenticator.password = S["password"]
c.Authenticator.allowed_users = _USERS
# Nobody is a Hub admin: an admin may open every learner's server. Give the instructor admin
# rights (c.Authenticator.admin_users) only if that is wanted; formgrader does not need them.

if S.get("api_token"):
    c.JupyterHub.services = [{"name": "class-driver", "api_token": S["api_token"]}]
    c.JupyterHub.load_roles = [{
        "name": "class-driver",
        "scopes": ["admin:users", "admin:servers", "access:servers", "list:users"],
        "services": ["class-driver"],
    }]

# --------------------------------------------------------------------------- single-user servers

c.JupyterHub.spawner_class = "jupyterhub.spawner.LocalProcessSpawner"
c.Spawner.cmd = [os.path.join(S["venv_bin"], "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 90
c.Spawner.environment = {
    # nbgrader calls `alembic`, and the kernels must find the course's Python first
    "PATH": S["venv_bin"] + ":/usr/local/bin:/usr/bin:/bin",
    # the class's nbgrader_config.py: the exchange folder and the course id, for everyone
    "JUPYTER_CONFIG_PATH": S["jupyter_config_dir"],
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
}


def _per_user(spawner):  # the instructor works in the course folder, learners in their home
    if spawner.user.name == S["instructor"]:
        spawner.notebook_dir = S["course_dir"]
        spawner.environment = {**spawner.environment, "MINIRT_COURSE_ROOT": S["course_dir"]}
    else:
        spawner.notebook_dir = "~"


c.Spawner.pre_spawn_hook = _per_user
