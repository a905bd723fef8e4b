"""The operator's console: ``minirt console --store URL``, a small web app on 127.0.0.1.

- :mod:`minirt.console.auth`: the start-up token, sessions, CSRF tokens, one-time forms;
- :mod:`minirt.console.views`: what is shown, read from the store (runs by state, a run, its
  pending approvals and UNCERTAIN effects, its journal drawn by :mod:`minirt.viz`);
- :mod:`minirt.console.pages`: the HTML (Jinja2, autoescaped, no JavaScript);
- :mod:`minirt.console.app`: the Starlette app; every action is :class:`minirt.operator.Operator`'s;
- :mod:`minirt.console.cli`: the ``minirt console`` command (uvicorn).

Invariant: nothing here changes a run except through :class:`~minirt.operator.Operator`, so
every change is journaled as an ``operator`` event with who (the console's user) and why (the
form's reason). The web packages (the ``console`` extra) are imported only by ``app`` and
``cli``; importing this package needs none of them.
"""
