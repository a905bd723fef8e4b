'''The console's HTML: Jinja2 templates (autoescaped) over the data of :mod:`minirt.console.views`.

Invariant: every value from a run (ids, arguments, payloads, reasons) reaches the page through
Jinja2's autoescaping; the only markup inserted as is, is the SVG Graphviz drew from the journal
(Graphviz escapes label text itself) and no page has a script (the console's Content Security
Policy forbids scripts outright). Every form is a plain HTML ``POST`` with the session's CSRF
token and a one-time form id (:mod:`minirt.console.auth`), so the console works without
JavaScript. Not guaranteed: a pretty page; it is meant to be plain and readable.
'''

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jinja2 import DictLoader, Environment, select_autoescape
from markupsafe import Markup

BASE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{% block title %}minirt console{% endblock %}</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 0; color: #111827; background: #f9fafb; }
header { background: #1f2937; color: #fff; padding: .6rem 1.2rem; display: flex; gap: 1rem;
         align-items: baseline; }
header a { color: #fff; text-decoration: none; font-weight: 600; }
header .who { margin-left: auto; font-size: .9rem; opacity: .85; }
main { padding: 1rem 1.2rem; max-width: 1100px; }
h2 { margin: 1.4rem 0 .5rem; font-size: 1.15rem; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #e5e7eb;
         vertical-align: top; }
th { background: #f3f4f6; font-weight: 600; }
code, pre { font: 13px/1.4 ui-monospace, monospace; }
pre { white-space: pre-wrap; word-break: break-all; background: #f3f4f6; padding: .5rem;
      margin: .2rem 0; }
.state { display: inline-block; padding: 0 .5rem; border-radius: .7rem; font-size: .85rem;
         font-weight: 600; background: #e5e7eb; }
.state.waiting { background: #cffafe; } .state.uncertain { background: #fde68a; }
.state.failed { background: #fee2e2; } .state.succeeded { background: #dcfce7; }
.state.running { background: #dbeafe; } .state.cancelled { background: #e5e7eb; }
.card { background: #fff; border: 1px solid #d1d5db; border-radius: .4rem; padding: .8rem 1rem;
        margin: .6rem 0; }
.card.review { border-left: 6px solid #0072B2; } .card.uncertain { border-left: 6px solid #E69F00; }
.card dl { display: grid; grid-template-columns: 11rem 1fr; gap: .2rem .8rem; margin: 0; }
.card dt { font-weight: 600; color: #374151; }
.card dd { margin: 0; }
form.action { display: flex; flex-wrap: wrap; gap: .5rem; align-items: flex-end;
              margin-top: .6rem; }
form.action label { display: flex; flex-direction: column; font-size: .85rem; }
input[type=text], textarea { font: inherit; padding: .25rem .4rem; min-width: 16rem; }
button { font: inherit; padding: .3rem .9rem; border-radius: .3rem; border: 1px solid #374151;
         background: #fff; cursor: pointer; }
button.go { background: #047857; color: #fff; border-color: #047857; }
button.stop { background: #b91c1c; color: #fff; border-color: #b91c1c; }
.notice { padding: .5rem .8rem; margin: .5rem 0; border-radius: .3rem; background: #dcfce7; }
.notice.error { background: #fee2e2; }
.over { color: #b91c1c; font-weight: 600; } .ok { color: #047857; font-weight: 600; }
.muted { color: #6b7280; font-size: .9rem; }
.diagram { background: #fff; border: 1px solid #e5e7eb; padding: .4rem; overflow-x: auto; }
</style></head>
<body><header><a href="/">minirt console</a><span class="muted">{{ store_label }}</span>
{% if user %}<span class="who">signed in as <b>{{ user }}</b></span>{% endif %}</header>
<main>
{% for level, text in notices %}<div class="notice {{ level }}" role="status">{{ text }}</div>
{% endfor %}
{% block body %}{% endblock %}
</main></body></html>
"""

RUNS = """{% extends "base" %}
{% block body %}
<h1>Runs by state</h1>
{% if not groups %}<p>No runs in this store.</p>{% endif %}
{% for g in groups %}
<h2 id="state-{{ g.state }}"><span class="state {{ g.state }}">{{ g.state }}</span>
  <span class="muted">{{ g.runs|length }} run(s)</span></h2>
<table><thead><tr><th>run</th><th>workflow</th><th>created</th><th>awaits an operator</th>
<th>incarnation</th></tr></thead><tbody>
{% for r in g.runs %}<tr><td><a href="/runs/{{ r.run_id|urlencode }}">{{ r.run_id }}</a></td>
<td>{{ r.workflow }}</td><td>{{ r.created }}</td><td>{{ r.awaits }}</td>
<td>{{ r.incarnation }}</td></tr>
{% endfor %}</tbody></table>
{% endfor %}
{% endblock %}
"""

REASON = """<label>reason (journaled)<input type="text" name="reason" required
 placeholder="why you do this"></label>"""

RUN = """{% extends "base" %}
{% block title %}{{ v.run_id }} · minirt console{% endblock %}
{% block body %}
<h1>{{ v.run_id }} <span class="state {{ v.state }}" id="run-state">{{ v.state }}</span></h1>
<div class="card"><dl>
<dt>workflow</dt><dd>{{ v.workflow }}</dd>
<dt>input</dt><dd><code>{{ v.input }}</code></dd>
<dt>created</dt><dd>{{ v.created }}</dd>
<dt>incarnation</dt><dd>{{ v.incarnation }}{% if v.worker_id %} held by {{ v.worker_id }}
  {% if v.lease %}until {{ v.lease }}{% endif %}{% endif %}</dd>
{% if v.waiting_for %}<dt>waits for</dt><dd>{{ v.waiting_for }}
  {% if v.due %}(timer due {{ v.due }}){% endif %}</dd>{% endif %}
{% if v.detail %}<dt>detail</dt><dd><code>{{ v.detail }}</code></dd>{% endif %}
</dl></div>

{% if v.diverged %}
<section class="card uncertain" id="diverged">
<h2>DIVERGED at step {{ v.diverged.step }}</h2>
<p>The code replaying this run asks for something other than what the run recorded, so the run
is parked (nothing was sent). {{ v.diverged.hint }}.</p>
<dl><dt>recorded</dt><dd><code class="recorded">{{ v.diverged.recorded }}</code></dd>
<dt>requested</dt><dd><code class="requested">{{ v.diverged.requested }}</code></dd></dl>
<form class="action" method="post" action="/runs/{{ v.run_id|urlencode }}/resume">
{{ form("resume", v.run_id) }}""" + REASON + """
<button class="go" type="submit" name="do" value="resume">Resume</button></form>
</section>
{% endif %}

{% for a in v.approvals %}
<section class="card review" id="approval-{{ a.request_id }}">
<h2>Pending approval {{ a.request_id }}</h2>
<dl>
<dt>tool</dt><dd><code>{{ a.tool }}</code></dd>
<dt>arguments (canonical)</dt><dd><pre class="args">{{ a.args }}</pre></dd>
<dt>resource</dt><dd><code>{{ a.resource }}</code></dd>
<dt>amount</dt><dd>{% if a.amount is not none %}{{ a.amount }}{% else %}
  <span class="muted">not read (give --app for the gate's reading)</span>{% endif %}
  {% if a.max_amount is not none %} against the limit {{ a.max_amount }}
  {% if a.within_limit %}<span class="ok">within the limit</span>
  {% elif a.within_limit is not none %}<span class="over">OVER the limit: the gate will
  refuse it</span>{% endif %}{% else %} <span class="muted">(no amount limit)</span>{% endif %}</dd>
<dt>capability</dt><dd>{% if a.capability %}{{ a.capability.cap_id }} for
  <code>{{ a.capability.resource }}</code>, expires {{ a.capability.expires }}{% else %}
  <span class="over">none minted: the gate will refuse the call</span>{% endif %}</dd>
<dt>artifact</dt><dd>{% if a.artifact %}{{ a.artifact.name }} digest
  <code class="artifact-digest">{{ a.artifact.digest }}</code>
  {% if a.artifact_text %}<pre>{{ a.artifact_text }}</pre>{% endif %}{% else %}none{% endif %}</dd>
<dt>effect digest</dt><dd><code class="effect-digest">{{ a.effect_digest }}</code></dd>
<dt>requested</dt><dd>{{ a.requested }} (at step {{ a.request_step }})</dd>
</dl>
<form class="action" method="post" action="/runs/{{ v.run_id|urlencode }}/approve">
{{ form("approve", v.run_id) }}
<input type="hidden" name="request_id" value="{{ a.request_id }}">
<input type="hidden" name="effect_digest" value="{{ a.effect_digest }}">
""" + REASON + """
<button class="go" type="submit" name="do" value="approve">Approve</button></form>
<form class="action" method="post" action="/runs/{{ v.run_id|urlencode }}/deny">
{{ form("deny", v.run_id) }}
<input type="hidden" name="request_id" value="{{ a.request_id }}">
""" + REASON + """
<button class="stop" type="submit" name="do" value="deny">Deny</button></form>
</section>
{% endfor %}

{% for u in v.unresolved %}
<section class="card uncertain" id="uncertain-{{ u.step }}">
<h2>UNCERTAIN: step {{ u.step }}, {{ u.tool }}</h2>
<p>A worker died while this effect was in flight: it may or may not have happened. Look it up at
the provider, then say what you found.</p>
<dl><dt>arguments</dt><dd><pre>{{ u.args }}</pre></dd>
<dt>effect key</dt><dd><code class="effect-key">{{ u.effect_key }}</code></dd>
<dt>attempt</dt><dd>{{ u.attempt }}</dd></dl>
<form class="action" method="post" action="/runs/{{ v.run_id|urlencode }}/resolve">
{{ form("resolve", v.run_id) }}
<input type="hidden" name="effect_key" value="{{ u.effect_key }}">
<label>what the lookup found
<select name="outcome"><option value="happened">it happened (give its record)</option>
<option value="did_not_happen">it did not happen (send it again, same key)</option></select></label>
<label>the provider's record (JSON: the step's result)
<textarea name="value" rows="3"></textarea></label>
<label>evidence (JSON object, journaled)<textarea name="evidence" rows="3"></textarea></label>
""" + REASON + """
<button class="go" type="submit" name="do" value="resolve">Resolve</button></form>
</section>
{% endfor %}

<section class="card"><h2>Actions</h2>
{% if not v.terminal %}
<form class="action" method="post" action="/runs/{{ v.run_id|urlencode }}/cancel">
{{ form("cancel", v.run_id) }}""" + REASON + """
<button class="stop" type="submit" name="do" value="cancel">Cancel run</button></form>{% endif %}
{% if v.can_retry %}
<form class="action" method="post" action="/runs/{{ v.run_id|urlencode }}/retry">
{{ form("retry", v.run_id) }}""" + REASON + """
<button type="submit" name="do" value="retry">Retry from step {{ v.retry_from }}</button></form>
{% endif %}
<form class="action" method="post" action="/runs/{{ v.run_id|urlencode }}/fork">
{{ form("fork", v.run_id) }}
<label>copy positions before<input type="text" name="position" value="{{ v.retry_from }}"
 size="4"></label>""" + REASON + """
<button type="submit" name="do" value="fork">Fork</button></form>
</section>

<h2>Journal timeline</h2>
<div class="diagram" id="journal-timeline">{% if v.journal_svg %}{{ v.journal_svg|safe }}
{% else %}<p>Graphviz's <code>dot</code> is not installed; the diagram's DOT text:</p>
<pre>{{ v.journal_dot }}</pre>{% endif %}</div>
{% if v.approvals_svg or v.approvals_dot %}<h2>Approval timeline</h2>
<div class="diagram" id="approval-timeline">{% if v.approvals_svg %}{{ v.approvals_svg|safe }}
{% else %}<pre>{{ v.approvals_dot }}</pre>{% endif %}</div>{% endif %}

<h2>Operator actions</h2>
{% if v.operator_events %}<table><thead><tr><th>when</th><th>action</th><th>who</th>
<th>why</th></tr></thead><tbody>{% for e in v.operator_events %}
<tr class="operator-event"><td>{{ e.when }}</td><td>{{ e.action }}</td><td>{{ e.by }}</td>
<td>{{ e.reason }}</td></tr>{% endfor %}</tbody></table>
{% else %}<p class="muted">none</p>{% endif %}

<h2>Journal rows</h2>
<table><thead><tr><th>seq</th><th>step</th><th>kind</th><th>inc</th><th>when</th>
<th>what</th></tr></thead><tbody>{% for e in v.events %}
<tr><td>{{ e.seq }}</td><td>{{ e.step if e.step is not none else "" }}</td><td>{{ e.kind }}</td>
<td>{{ e.inc }}</td><td>{{ e.when }}</td><td><code>{{ e.summary }}</code></td></tr>
{% endfor %}</tbody></table>
{% endblock %}
"""

MESSAGE = """{% extends "base" %}{% block body %}<h1>{{ title }}</h1><p>{{ text }}</p>
{% endblock %}"""

ENV = Environment(loader=DictLoader({"base": BASE, "runs": RUNS, "run": RUN,
                                     "message": MESSAGE}),
                  autoescape=select_autoescape(default=True, default_for_string=True))


def hidden_fields(csrf: str, form_id: str) -> Markup:
    """The two hidden inputs every console form carries."""
    return Markup('<input type="hidden" name="csrf" value="{}">'
                  '<input type="hidden" name="form_id" value="{}">').format(csrf, form_id)


def render(template: str, *, form: Callable[[str, str], Markup] | None = None,
           **context: Any) -> str:
    """The page ``template`` (``runs``, ``run``, ``message``) with ``context``."""
    return ENV.get_template(template).render(form=form or (lambda a, r: Markup("")), **context)
