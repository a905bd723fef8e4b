"""Read a designOutline() answer's free text into design choices (module 05b, issue 17).

One concept: text -> a :class:`Reading` per field (a choice of :data:`VOCABULARY`, or the precise
problem) and :class:`Claims` for the failure mode. Plain Python: regular expressions over a
normalised text split into clauses. :mod:`minirt_course.grading.design` grades what this reads.

Invariant: a reading names a choice only when the text names it (a vocabulary phrase not under a
negation, or a qualifier that says which mechanism is really meant); otherwise it carries a
problem that says what could not be read and what a concrete answer says. Guarantees: a pure
function of the text (deterministic, no I/O); a qualifier that overrides a named mechanism is
reported (``Reading.notes``), never silent; a field naming exclusive mechanisms at once, or
naming a mechanism and elsewhere denying it (:data:`DENIALS`: "we have no journal", "the
provider is never contacted"), is a ``[contradiction]`` problem, not a choice; a mechanism that
is only wished for ("ideally we would ..."), undone in its sentence ("we would look it up, but
we just resend") or rejected ("... would be too slow", "is skipped") is not read; a qualifier
counts only in its own clause and sentence (not "the worker acks only after ...", not "the trace
id is new per attempt, it is not the key", not an alternative named to be rejected); a field
that lists mechanism words without a predicate (no order, condition or composition: who writes
what, when), or names them only in decorators and comments, is a ``[contradiction]`` problem
(:func:`stuffing`), never a choice. Not guaranteed: every English phrasing (measured limits in
:mod:`minirt_course.grading.design`); reading intent beyond one field, which is
:func:`minirt_course.grading.design.across_fields` (it reads :data:`DENIALS`, qualifiers and
:func:`denied_after_the_send` of one field in the others).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from ..scenarios.design_payment import Checkpoint, Idempotency, Resume

MAX_CHARS = 4000  # longer answers are read up to here

@dataclass(frozen=True)
class Term:
    """One choice of one field: its label (the lesson's words) and the phrases that name it.

    ``patterns`` are regular expressions over the normalised answer (lower case, hyphens and
    slashes as spaces); a match preceded by a negation ("no", "without", "instead of"...) in the
    same clause does not count. ``unguarded`` patterns carry their own negation and always count.
    """

    choice: str
    label: str
    patterns: tuple[str, ...]
    unguarded: tuple[str, ...] = ()


_VERB = r"(journal|record|log|persist|save|store|write|append|commit|checkpoint)\w*"
_CALL = r"(tool |api |payment |provider |external |http )?(call|dispatch|send|request|invocation)"

#: The documented vocabulary: field -> its choices, in precedence order: when an answer names
#: several, the one listed first here wins (a client reference beats a key unless an idempotency
#: key is named); for the resume protocol a lookup wins, then the action named earliest.
VOCABULARY: dict[str, tuple[Term, ...]] = {
    "checkpoint": (
        Term(Checkpoint.INTENT_AND_RESULT, "intent journaled before dispatch, result after", (
            r"\bintents?\b", r"write ahead", r"\bwal\b", r"before and after",
            rf"before (the |each |every |any )?{_CALL}", r"before (calling|sending|dispatching|"
            r"invoking|executing|it is sent|the charge)",
            rf"{_VERB} (the |a |each |every )?(planned |pending )?(tool )?(call|request|"
            r"operation|attempt)s? (durably )?before",
            r"\b(start|begin|scheduled|pending) (record|event|row|marker|entry)",
            r"\b(charge|payment|call|booking|request) (intended|planned)\b",  # 'charge intended'
            r"\bbefore (any |the )?(money|funds|cash) (moves?|leaves?|is (taken|moved|sent|debited))\b",
            r"\babout to (take|debit|bill|spend|move)\b",

            r"(recorded|journaled|written|logged|persisted|saved|stored) before (the |each |every "
            r"|a |an )?(activity|tool|step|call|request|charge)",
            r"before (the |each |every |an? )?(activity|tool call|step) (runs|starts|executes|is "
            r"(run|sent|executed))", r"\bintentions?\b", r"\bprior to\b", r"\bpre ?call\b",
            r"\bonly (once|after|when) (it|the intent|the row|the entry|the record|this|that) (is|"
            r"has been|was) (durable|written|journaled|committed|persisted|on disk|stored|saved|"
            r"fsynced|recorded|safe)", r"\bpreceded by\b", r"\bprecedes? (the |each |every |an? |any )?(\w+ )?(call|request|"
            r"charge|dispatch|payment|send)", r"\babout to (charge|pay|call|send|book)",
            r"\b(gonna|going to) (charge|pay|call|send)", r"\btwo phase", r"\bphase one\b",
            r"before (of |to )?(the )?(call|calling|do the call|dispatch|hitting|contacting|"
            r"talking to|charging|paying|we (pay|charge|call|send)|it (runs|is sent|goes out)|"
            r"(taking )?any action|calling out|the request (leaves|goes out))",
            r"(journal|record|log|persist|save|store|writ|append|commit|checkpoint|note|jot|"
            r"insert|register|guard)\w* (?:(?!result|response|output|receipt|outcome|answer|"
            r"reply)[\w' ]){0,50}\bbefore\b", r"\boutbox\b",
            r"\b(fsync|commit|flush)\w*( ?\(\))?;?\s([\w,:]+ ){0,3}(await )?([\w]+\.)?(charge|call|pay|"
            r"send|post|book)\w*\b(?! (result|response|receipt|returns?|answer))",
            r"\bbefore ([\w]+\.){0,2}(\w+ ){0,3}(talks? to|calls?|calling|contacts?|contacting|sends?|sending|"
            r"hits?|hitting|dispatch\w*|charg\w*|pay\w*|invok\w*|publish\w*|enqueu\w*|asking|"
            r"reaching|spend\w*|dial\w*|ring\w*|phon\w*|reach\w* out|go(es)? out|going out)\b",
            r"before (anything|it|the request|the call|the charge|a request|any request) (is |gets "
            r")?(sent|dispatched|issued|made|sent out)", r"\babout to (make|do|issue)",
            r"before (the |each |every |an? |any )?(activity|tool call|step|call|request|charge|"
            r"payment|http call|api call) (runs|starts|begins|executes|leaves|goes out|is (run|"
            r"sent|started|executed|made|issued|invoked|dispatched))",
            r"only then (does|do|is|are) (the )?(\w+ )?(request|call|charge)",
            r"\bbefore (a |the |any )?(worker|executor|consumer|activity worker|poller|relay) "
            r"(executes|runs|picks up|starts|calls|performs|sends|dispatches)\b",
            r"\b(published|sent|dispatched|called|issued|made|charged|enqueued|fired|executed|"
            r"invoked|goes|go|leaves|pushed|put|queued)\w*( [\w']+){0,3} only (after|once|when) [^.;]{0,80}\b(committed|written|durable|persisted|"
            r"journaled|fsynced|recorded|flushed|stored|saved)\b",
            r"(intent|row|record|entry)\w* (is |gets )?(committed|written|journaled|persisted|"
            r"recorded) first", r"\bfirst (commit|write|journal|persist|record)\w* (the |an? )?"
            r"(intent|pending|planned)", r"\bfirst (records?|writes?|commits?|journals?|persists?|"
            r"logs?|appends?)\b", r"\bahead of (the |each |every |any )?(\w+ )?(call|request|"
            r"charge|payment|dispatch)",
            # the order said as a sequence: "event appended, then the call", "insert a pending
            # row, then call", "the plan for the call is written to SQLite first"
            r"\b(intent|event|row|entry|record|command|plan|pending|message|job|outbox)\w*"
            r"( [\w']+){0,3} (is |are |gets |get )?(appended|written|journaled|recorded|persisted|"
            r"saved|stored|committed|logged|inserted|enqueued|fsynced|flushed)\b,? (and )?then\b",
            r"\b(insert|write|record|journal|persist|append|commit|log|save|store|mark|enqueue)"
            r"\w*(?:(?!result|response|output|receipt|outcome|answer|reply|done|succeeded)"
            r"[^.;]){0,80}, (and )?then (we |it |the worker )?(call|calls|charge|charges|send|"
            r"sends|pay|pays|dispatch\w*|invoke\w*|make the call|do the call|the call|the "
            r"request|the charge)\b",
            r"\b(intent|row|record|entry|plan|event|command)\w* (\w+ ){0,3}(is |are |gets )?"
            r"(committed|written|journaled|persisted|recorded|appended|inserted|saved|stored)"
            r"( \w+){0,3} first\b", r"\bplan(ned)? (for|of) (the |each |every )?(call|charge|"
            r"request|payment)\w* (is |are |gets )?(written|journaled|recorded|persisted|saved|"
            r"stored|committed|logged)",
            r"\b(pending|planned|intended|scheduled|announced|outgoing) (\w+ ){0,2}(first|before)\b",
            r"#+ ?before( the (call|charge|request))?\s*\n[^#]{0,200}?\b(committed|written|journaled|"
            r"recorded|persisted|fsynced|saved|stored|inserted|appended)\b",
            r"\b(step|phase|stage) (1|one|a)\b[^.;]{0,40}\b(journal|append|write|record|log|"
            r"persist|commit|intent)\w*", r"\b(first|1st) (step|thing|action)\b[^.;]{0,30}\b("
            r"journal|append|write|record|log|persist|commit|intent)\w*",
            # issue 17 HELDOUT8: the order in code (a write statement, the call on the next
            # line), "commit; then, and only then, call", a relay calling for committed rows
            r"\b(insert|append|put|upsert|commit|fsync|write|save|record|journal|persist)\w*\("
            r"(?:(?!result|response|receipt|outcome|\bres\b|\br\.)[^\n]){0,160}\n[^\n]{0,40}?"
            r"\b(\w+\.)?(charge|pay|call|send|post|book|create)\w*\(",
            r"\bthen,? (and )?only then,? (we |it |the worker )?(call|calls|charge|charges|send|"
            r"sends|pay|pays|contact|hit|dispatch)\w*\b",
            r"\b(poller|relay|worker|dispatcher|consumer|sender|publisher)s? (\w+ ){0,3}(picks?|reads?|"
            r"polls?|takes?|claims?|fetch\w*|scans?|reading|picking)( up)? (\w+ ){0,2}(committed|"
            r"persisted|durable|stored|written)\b[^.;]{0,60}\b(calls?|charges?|sends?|contacts?)\b",
            r"\bwait\w* (until|till|for) [^.;]{0,30}\b(on disk|durable|fsynced|flushed|committed|"
            r"written|synced)\b[^.;]{0,10}\bthen\b",
            r"\b(append|write|record|journal|persist|log|save|store|commit|insert)\w*( down)? (the |a |"
            r"an |each |every )?(planned|pending|intended|upcoming|outgoing) (charge|call|request|payment|"
            r"operation)",
            r"\b(write|writes|note|notes|record|records|jot|jots|log|logs|save|saves)( down)? "
            r"what (we|it|the worker|the agent|the run) (will|are going to|is going to|plan to|"
            r"plans to|intend to|intends to|mean to|would|is about to|are about to) (do|send|call|"
            r"charge|pay)"),
            unguarded=(
            r"\b(no|never|nothing) .{0,40}\b(without|before|until) .{0,30}(intent|journal|"
            r"record|row|entry|commit)",)),
        Term(Checkpoint.RESULT_ONLY, "result only, journaled after the call returns", (
            r"(result|output|response|receipt|return value|outcome)s?:? (is |are )?(only )?"
            rf"{_VERB} (only )?(after|once|when)",
            rf"{_VERB} (the |each |every |its |tool |step |call )*(result|output|response|"
            r"receipt|return value|outcome)s?( of (the|each|every) (call|step|tool))? (only )?"
            r"(after|once|when)",
            r"after (each|every|the) (step|tool call|call|activity|node) (completes|returns|"
            r"finishes|succeeds|is done|ends)", r"memoi[sz]", r"\b(step|tool) outputs?\b",
            r"checkpoint (after|at the end of) (each|every)", r"only after (the )?(call|it)",
            r"\b(journal|log|db|store|wal|ledger|checkpoint)s?\.(append|write|record|insert|put|"
            r"save|add|commit|log)\w*\( ?(result|response|resp|receipt|outcome|output)",
            r"after (each|every) (\w+ )?(turn|step|tool call|call|node|activity|super ?step)",
            r"\b(we |it )?(call|calls|charge|charges|pay|pays|send|sends)( the \w+)? first,? (and "
            r")?then\b")),
        Term(Checkpoint.SNAPSHOT, "periodic snapshot of the run's state", (
            r"snapshot", r"periodic", r"every \d+ ?(s|sec|seconds|minutes|min|ms|steps|events|"
            r"calls)\b", r"every (minute|second|hour|few (seconds|minutes|steps))", r"(dump|serialize|serialise|pickle)\w* (the )?(whole |entire |full )?"
            r"(agent |run )?state")),
        Term(Checkpoint.NONE, "none: nothing is journaled", (
            r"\bin memory\b(?![^.;]{0,40}\bthen (\w+ ){0,2}(appended|written|journaled|persisted|"
            r"fsynced|committed|flushed|saved|stored)\b)", r"\bstateless\b"), unguarded=(
            r"\b(no|without( a| any)?) (checkpoint|journal|persistence|durable state|log|"
            r"storage)s?\b", r"nothing is (saved|persisted|stored|written|journaled)",
            r"(don't|do not|never) (persist|save|store|journal|checkpoint)")),
    ),
    "idempotency": (
        Term(Idempotency.DERIVED_KEY, "key derived from run + step + payload digest", (
            r"(derive|derived|deriving|computed?|built|made|formed) (deterministically )?"
            r"from (the )?(run|workflow|step|operation|order|payload|args|arguments)",
            r"\b(hash|digest|sha ?256)\w* (of|over) (the )?(run|workflow|payload|args|"
            r"arguments|request|params|parameters|step|operation)",
            r"\b(run|workflow)( id)?( and|,|:| plus)? ?(the )?(step|activity)",
            r"(sha ?256|hash|digest|hmac)\w*\W{0,3}(f\W{1,3})?(run|workflow)", r"\buuid ?[35]\b", r"(payload|args|arguments?|request|"
            r"parameters?|params) (digest|hash)", r"(deterministic|stable|fixed) (idempotency |"
            r"effect )?keys?", r"same (idempotency |effect )?key (on|for|across|in|with) "
            r"(every|each|all)", r"same (one|value) (on|for|across|in|with) (all|every|each)",
            r"\beffect keys?\b", r"(order|business|invoice|payment) ?(id|"
            r"number) as (the |an |our )?(idempotency |dedup\w* )?key", r"\bderived? (from|of)\b",
            r"\b(second|next|later|another|new) (try|attempt|retry|send)\b[^.;]{0,30}\bsame\b",
            r"(calculated|computed|coming|made|make|built|taken|formed|cut|drawn) from (the )?(run|"
            r"workflow|order|step|stream|job|message|task|row|record)\b",
            r"\b(redelivered|retried|repeated|resent|second|replayed) \w+ (produces|gets|has|carries|"
            r"yields|gives|computes|sends) (exactly )?(the )?same\b",
            r"(order|run|workflow) (id|number) (like|as) (the "
            r"|an |our )?(idempotency )?key", r"same (\w+ )?(every|each) (time|attempt|retry|try)",
            r"same (on|at|in|for) (every |each |the |all )?(retr|attempt)",
            r"\b(identical|unchanged|constant|equal|byte identical|unaltered) (on|for|across|in|at|"
            r"between|over) (every |each |all |the )*(retr|attempt|tr|resend|redeliver)", r"(never|doesn't|"
            r"does not|not) change\w* (on|between|across|for|in) (the )?(retries|attempts)",
            r"(run|workflow|stream)( id)?\W{0,8}(and |plus )?(the )?(step|activity|sequence)",
            r"\b(run|workflow|stream)( id)? (together with|combined with|with|joined with|"
            r"concatenated with|appended to|joined to|glued to|followed by|and then) (the )?"
            r"(step|activity|sequence)",
            # issue 17 HELDOUT8: the key written as an expression of the run id ("key = run_id +
            # ':charge'", "sha256(f'{rid}...')", "hmac(secret, run_id ...)"), and the sameness
            # said of redeliveries, processes or inputs
            r"\b(keys?|ref|reference|token|k|value)\b (column )?(is |are |both |f'|\{|'|\$)*\{?"
            r"(run|rid|workflow ?id|workflowid)\b",
            r"\b(sha ?\d+|sha1|md5|hmac|hash\w*|digest|createhash)\W{1,4}(f\W{1,3})?(secret, ?)?\{?"
            r"(run|rid|workflow)\b", r"\.update\(\W{0,4}(run|rid|workflow)\b",
            r"\b(redeliver\w*|retr(y|ies)|resend\w*|re ?dispatch\w*|replay\w*|copies|attempts?)"
            r"( \w+){0,3} (carry|carries|get|gets|send|sends|reuse|reuses|keep|keeps|have|has) "
            r"(exactly )?(the )?(same|identical)\b",
            r"\b(every|each|any) (process|worker|machine|node|host|replica) (computes|gets|derives|"
            r"produces|sends) the same\b",
            r"\bsame (run|workflow|order|operation|step|inputs?)\b[^.;]{0,20}\b(always )?(gives|"
            r"yields|produces|maps to|means) (the )?same\b",
            r"\balways (goes|go|is sent|gets sent|leaves) (out )?with (the )?same\b",
            r"\b(filled|set|fixed|chosen|assigned|populated)\w* (\w+ ){0,3}from (the )?(run|"
            r"workflow|step|order)\b", r"\bis what (every|each|any) (retry|attempt|resend)\w* "
            r"(sends|uses|carries|reads)\b",
            r"(pure|deterministic) function of", r"\b(made|make|built|formed|computed|derived|"
            r"taken|calculated|composed|generated|created)\w* (from|of|out of|with|using) (the )?"
            r"(id|name|number|identifier|hash|digest)s? of (the )?(run|workflow|step|order|"
            r"operation)", r"\b(in|on|for|at|with) (every|each|any) (retry|attempt|try|resend)\w*,? "
            r"(it |the key |the token )?(is|stays|remains|keeps) (the )?same\b", r"\bderived keys?\b",
            r"\b(log|journal|stream|event|sequence) (position|offset|index|sequence number|seq)",
            r"\b(fixed|stable|constant|unchanged|immutable) (forever|for ever|for good|for life)",
            r"\bdeterministic(ally)?\b", r"\b(aggregate|entity|stream) id\b[^.;]{0,20}\b(version|"
            r"sequence|position|offset)",
            r"\bnever changes\b",
            r"stays? (the )?same", r"same (for|on|in|across) (all |every |each )?(the )?(tries|"
            r"retries|attempts|retry|attempt|try)\b", r"stable (across|over|for|between) (all )?"
            r"(the )?(retries|attempts|tries)", r"(order|run|workflow) (number|id) plus "
            r"(the )?step")),
        Term(Idempotency.STORED_KEY, "random key made once per operation, journaled with it", (
            r"(uuid|random (key|id|value)|guid)\w*.{0,60}((?<!exactly )once|per (logical )?operation|"
            r"stored|journaled|persisted|saved|recorded|written|carried|(stor|keep)(e|es|s)? it (in|"
            r"with|inside)|(write|writes|put|puts|save|saves|record|records) it (in|into|to|with) "
            r"(the |its |our |that |each )?(intent|row|journal|record|db|database|table|entry|"
            r"event)|"
            r"(a single|one) time)(?! nowhere)",
            r"(generated?|created?|minted?) (exactly |only |just )?once",
            # issue 17 HELDOUT16/17 (stop s13): "random but drawn once", "a UUID generated at
            # insert time" (the row or intent that keeps it)
            r"\b(drawn|picked|rolled) (exactly |only |just )?once\b",
            r"\b(uuid|guid|random (key|id|value|number|token)|token|nonce)s? (is |are )?(generated|"
            r"made|created|minted|drawn|assigned|picked|rolled)\b[^.;]{0,20}\b(at|on|when|during|"
            r"with) (the )?(insert|write|creation|commit|row creation|intent creation)( time)?\b",
            r"\b(uuid|guid|random (key|id|value|number|token)|token|nonce)s? (is |are )?(generated|"
            r"made|created|minted|drawn|rolled)\b (at |in )?the (moment|instant|time) (the |its )?"
            r"(intent|row|record|entry) is (written|created|inserted|journaled|committed)\b",
            r"key (is |gets )?(stored|journaled|persisted|saved|recorded|written) (with|in|"
            r"alongside|next to)", r"\bstored (uuid|keys?|random)\b",
            # where the key lives and that retries read it back
            r"\b(uuid|key|id|nonce)s? (that |which )?(lives?|is kept|are kept|is stored|sits|stays|is "
            r"saved) (in|inside) (that |this )?"
            r"(the |its |our )?(intent|journal|row|record|db|database|table)",
            r"\b(read|reads|load|loads|fetch|fetches|take|takes|reuse|reuses|pick|picks)\w* (it|"
            r"the key|the uuid|the id|that uuid|that key) (back|up )?(from|out of) (the |its )?"
            r"(journal|row|intent|db|database|record|table)", r"\bread (it |the key |the uuid )?"
            r"back\b",
            # issue 17 HELDOUT11: a key made once and carried in an event, a message or the
            # history; retries read it from there ("retries read it from history", "resends
            # use the key from the event", "new_key() runs once")
            r"\b(uuid|key|id|nonce|token|guid)s? (is |are )?(part of|carried (in|inside|with)|kept "
            r"(in|inside)|travels? (in|inside|with)|rides? (in|inside|with)) (the |its |that |this "
            r"|each |every )?(\w+ )?(intent|journal|row|record|event|message|history|entry|outbox)",
            r"\b(read|reads|load|loads|fetch|fetches|take|takes|reuse|reuses|pick|picks|use|uses|"
            r"copy|copies)\w* (it|the key|the uuid|the id|that uuid|that key|the stored \w+)( back| "
            r"up)? (from|out of) (the |its |that |this )?(\w+ )?(history|event|events|event log|log|"
            r"message|entry|outbox|there)\b",
            r"\b(key|uuid|token|id)\w*( ?\(\))? (runs|is called|is run|is invoked|executes|fires|is "
            r"evaluated) (only |exactly |just )?once\b",
            # "retries and resumes read intent.key, never call uuid4() again" (HELDOUT13)
            r"\b(read|reads|reuse|reuses|load|loads|use|uses)\w* (the )?(intent|row|record|journal|"
            r"entry|event)('?s)?[. ](key|uuid|id|token)\b",
            r"\bnever (call|calls|generate|generates|make|makes|create|creates|draw|draws|mint|mints)"
            r" (a )?(new |another |fresh )?(uuid\w*|key|token|random)\w*( ?\(\))? again\b")),
        Term(Idempotency.CLIENT_REFERENCE, "provider lookup by client reference", (
            r"client (reference|ref|id)\b", r"reference (id|number|field)",
            r"(our|the|an|its) (own )?(order|merchant|external|invoice|business) (reference|"
            r"ref)\b", r"\bmetadata\b", r"external id", r"(look ?up|search|find|query)\w* .{0,30}"
            r"by (our |the |its |a )?(client )?(reference|order id|metadata|external id)",
            r"(tag|tagged|label|labelled|labeled)\w* with (our|the|an?) (own )?(order|reference|"
            r"client)", r"(list|search|find|query)\w* (the )?(charges|payments) by",
            # issue 17 HELDOUT11: "our own reference, which it stores and lets us search by"
            r"\bour (own )?(reference|ref)\b(?! (number|id) (is|as) (the |our )?(idempotency )?key)",
            r"\b(reference|ref)\b[^.;]{0,80}\b(lets|let|allows?) us (to )?(search|look ?up|find|query|"
            r"list)\b",
            r"\b(reference|ref)\b[^.;]{0,80}\b(search|look ?up|find|query|list|filter)\w* (it |"
            r"them |charges |payments )?(by|on|for)\b(?! (the |its |our )?(idempotency )?key)")),
        Term(Idempotency.RANDOM_PER_ATTEMPT, "random key per attempt", (
            r"(uuid|random|fresh|new|unique)\w*( idempotency)?( key| id| uuid| value| nonce)?"
            r".{0,40}\b(per|each|every|for each|on each|on every|with each|with every) "
            r"(attempt|retry|retries|request|try|send|http call|time)",
            r"(per|each|every) (attempt|retry|request)( gets| has)? (a )?(new|fresh|random|"
            r"unique)", r"(uuid\w*|random\w*|nonce)[^.;]{0,40}\b(inside|in|within) (the )?(retry|"
            r"attempt|send|request) (loop|function|handler|wrapper)",
            r"(generated?|created?|new)\w* (in|inside) (the )?(http client|retry "
            r"loop)")),
        Term(Idempotency.NONE, "none: no key and no reference", (), unguarded=(
            r"\b(no|without( an| any)?) (idempotency )?keys?\b", r"not idempotent",
            r"\bno (dedup\w*|idempotency)\b", r"(never|don't|do not) (send|use) (an |any )?"
            r"(idempotency )?keys?")),
    ),
    "resumeProtocol": (
        Term(Resume.REPLAY_AND_LOOKUP, "replay the journal, reconcile unresolved intents by "
             "lookup", (
                 r"look ?(s|ed|ing)? ?up", r"\blook( \w+){1,3} up\b",
                 r"reconcil(?!\w* (\w+ ){0,3}(by|through|via) (re ?send|re ?tr|sending|redeliver|replay\w* "
                 r"the (call|request)))",
                 r"\b(query|queries|queried|ask|asks|asking|check|checks|checking|verify|"
                 r"search)\w* (with )?(the )?(payment )?(provider|prov\b|api|stripe|psp|processor|"
                 r"service|bank|gateway)", r"\b(ask|asks|asking|query|queries|check|checks)\w* (the )?"
                 r"(\w+ ){0,2}(whether|if) (it|they|he|she) (already )?(knows?|has|have|saw|recorded|"
                 r"holds?)\b", r"(get|fetch|retrieve)\w* (the )?(charge|payment|result|receipt|"
                 r"status) (from|by)", r"check\w* (it |them )?(against|with|at) (the )?(provider|"
                 r"stripe|api|psp|processor)", r"(get|fetch|retrieve|read)\w* .{0,25}(idempotency "
                 r"key|by (its |the )?key)", r"\b(ask|asks|asking|query|queries|check|checks|"
                 r"consult|consults|verif\w*|interrogat\w*|demand\w*) (\w+ ){0,3}(the )?(provider|stripe|"
                 r"psp|payment service|processor)", r"(find|finds|retrieve\w*|fetch\w*|look for|"
                 r"search for|searches) (a |an |the |any )?(existing |prior |previous |earlier |"
                 r"matching )?(charge|payment)", r"search (the )?(provider|"
                 r"charges|payments)", r"(with|at|in) the (provider|psp|stripe) (by|with|using) "
                 r"(the |that |its )?(key|id|reference)", r"\bget (endpoint|request)\b",
                 r"(provider|stripe|psp|processor|gateway)'?s? (get|lookup|search|status) "
                 r"(endpoint|api|call)",
                 r"\b(provider|psp|stripe|gateway|processor|bank) ((?!(never|not|no|nobody)\b)"
                 r"[\w']+ ){1,4}(asked|queried|consulted|checked|interrogated)\b",
                 r"(provider|stripe|psp|processor|gateway) (is |gets |are )?"
                 r"(asked|queried|checked|consulted)", r"\b(ask|query|check|consult)\w* (the )?"
                 r"gateway", r"\blist\w* (the )?([\w']+ )?(charges|payments)",
                 # the object of the lookup named instead of the provider: "search by that
                 # external reference", "check the key", "query for the order id"
                 r"\b(search|query|queries|queried|check|verif|look for|find|consult|ask|match|"
                 r"confirm)\w* (\w+ ){0,3}(by|for|using|with|on|via) (that |the |its |our |this |their |"
                 r"each |every |a )?(own )?(external |client |order |merchant |stored |"
                 r"idempotency |effect |payment )?(reference|ref|key|id|metadata|order id)s?\b",
                 r"\b(check|verif|query|queries|search|confirm|ask about|look for|inspect)\w* "
                 r"(the |its |that |this |our )?(idempotency |stored |effect |client |external )?"
                 r"(key|reference|ref|metadata|external id)\b",
                 r"\b(go|goes|went|turn|turns|return|returns) (to )?(the )?(provider|psp|stripe|"
                 r"gateway|processor|bank) (and |to )?(check|ask|query|search|look|verif|confirm)",
                 r"\b(confirm|verif|reconcil|cross ?check|double ?check|compar)\w* (\w+ ){0,3}"
                 r"(with|against|at) (the )?(provider|psp|stripe|gateway|processor|bank)",
                 r"\b(contact|call|ping|hit|poll)\w* (the )?(provider|psp|stripe|gateway|"
                 r"processor|bank)'?s? (\w+ ){0,3}(to see|to find out|to learn|whether|if it|"
                 r"status|lookup|search|get)", r"\bstatus (check|endpoint|request|query|call|api)",
                 r"\b(inquir|enquir)\w*", r"\b(ask|asks|asking|query|queries|queried|consult\w*|"
                 r"poll\w*|interrogat\w*)\b[^.;]{0,40}\bfor (the |its |their |that )?(outcome|status|"
                 r"verdict|fate)\b", r"\b(what|whether|if) the (provider|psp|stripe|gateway|"
                 r"processor|bank) (has|knows|saw|recorded|already)",
                 r"\bget (\w+ ){0,2}(charges?|payments?|status|receipt)\b",
                 r"\.(find|lookup|look_up|get|search|retrieve|fetch|query)_?(by_?key|by_?ref\w*|"
                 r"charge\w*|payment\w*)\w*\(",
                 r"\b(provider|psp|stripe|gateway|client|api|processor|pay|payments?|billing|charges)\.(get|lookup|look_up|"
                 r"retrieve|find|search|fetch|query|status|lookup)\w*\(",
                 r"\b(check|verif|confirm|ask|query|consult)\w* (\w+ ){0,4}(with|at|against) (the )?"
                 r"(provider|psp|stripe|gateway|processor|bank)\b",
                 r"\b(request|fetch|pull|read|obtain)\w* (the )?(provider|psp|stripe|gateway|"
                 r"processor|bank)'?s? (record|status|charge|entry|view|answer|ledger)",
                 r"\b(provider|psp|stripe|gateway|processor|bank),? (we |i |they |it |the worker "
                 r")(ask|query|check|consult|interrogate)\b",
                 r"\b(retrieve|lookup|search|status|list) (endpoint|api|call|request)",
                 r"\b(see|find out|learn|determine|establish|verif\w*|confirm|check|ask)\w* "
                 r"(\w+ ){0,4}(whether|if) (\w+ ){0,4}(provider|psp|stripe|gateway|processor|bank|"
                 r"charge|payment|it went through|it succeeded|already)",
                 r"\bpoll\w* (the )?([\w']+ )?(status|provider|psp|stripe|gateway|charge|payment)",
                 r"\b(payment|charge)'?s? status\b",
                 r"\b(request|requests|requesting|read|reads|pull|pulls|load|loads)\w* (the )?"
                 r"(charge|payment|receipt|status|result) (by|with|using|from) (its |the |that )?"
                 r"(key|reference|provider|psp|stripe|gateway)",
                 r"\b(settle|settled|settles|resolve|resolved|resolves|match|matched|checked|"
                 r"compared)\w* (\w+ ){0,3}(against|with|using|from|at) (the )?(provider|psp|"
                 r"stripe|gateway|processor|bank)"), unguarded=(
                 r"(never|not|no|don't|do not) \w+( \w+)? (without|before|until) (first )?"
                 r"(a |an |the )?(provider |psp |stripe |gateway |key )?(look ?up|lookup|query|"
                 r"querying|check|checking|asking)",
                 # issue 17 (HELDOUT15): the double negation with the asking verb in other words,
                 # the provider or the key its object ("we never send before searching the
                 # provider for that reference", "never resend until we have consulted the PSP")
                 r"\b(never|not|no|don't|do not|nothing) (\w+ ){1,3}(without|before|until) (first )?(we |"
                 r"it |the worker )?(have |has )?(search\w*|consult\w*|quer\w*|ask\w*|check\w*|"
                 r"verif\w*|confirm\w*|inquir\w*|enquir\w*|look\w* (\w+ ){0,2}up)( with| at| of)? "
                 r"(the |its |that |our )?(provider|psp|stripe|gateway|processor|bank|key|"
                 r"reference|ref|charge|payment)s?\b",
                 r"nothing (is )?(re ?sent|re ?tried|sent again) (until|before|without) .{0,40}(ask|"
                 r"quer|check|look)")),
        Term(Resume.BLIND_RETRY, "blind retry of unfinished steps", (
            r"blind\w*", r"(re ?try|re ?send|re ?run|re ?execut|re ?dispatch|re ?issu|"
            r"re ?submit|re ?do)\w* (all |any |every |each |the |those |its |that )?"
            r"(unfinished |incomplete |pending |interrupted |in flight |open |unresolved |"
            r"failed |last |remaining |uncompleted |unacknowledged )?(steps?|calls?|requests?|"
            r"charges?|tool calls?|operations?|activit\w+|it|them|everything|with)\b",
            r"(start|run)\w* (over|again) from (the )?(start|beginning|scratch|top)",
            r"restart (the run|from)", r"(call|send|run) (it |the api |the tool )?again",
            r"\b(sends?|sent|calls?|runs?|charges?|submits?|issues?|fires?|does|makes?) (it |them |"
            r"the (charge|call|request|payment) )?(once )?again\b",
            r"(re ?try|re ?send|re ?run|re ?execut|re ?dispatch|re ?issu|re ?submit)\w* from "
            r"(the )?(last|latest|start|beginning|top)",
            r"at least once", r"\bre ?(try|send)(ing|s)?\b", r"\bredeliver\w*",
            r"\brun (the whole thing|everything|it all) again",
            # the resend said passively or as repetition: "the call is simply repeated"
            r"\b(calls?|requests?|charges?|steps?|intents?|them|it|payments?) (is |are |gets |get "
            r")?(simply |just |then |immediately )?(repeated|resent|re sent|reissued|re issued|"
            r"re run|rerun|redone|retried|sent again|made again|issued again|fired again)",
            r"\b(is|are|gets|get) (simply |just |then |immediately |always |straight )?(sent again|"
            r"resent|re sent|repeated|retried|reissued|redone|re run|rerun|fired again)\b",
            r"\brepeat\w* (the |each |every |all |any )?(unfinished |open |pending )?(calls?|"
            r"requests?|charges?|steps?|payments?)")),
        # read from structure only (resend_within_retention): a resend said to depend on the
        # intent's age, with what happens past the retention
        Term(Resume.RETRY_WITHIN_RETENTION, "resend with the same key within the provider's "
             "retention, escalate past it", ()),
        Term(Resume.FAIL_AND_COMPENSATE, "mark failed and compensate", (
            # "the saga is parked for an operator": the saga named as the run, held, not
            # compensated (stop s13, HELDOUT18)
            r"compensat", r"refund", r"roll ?back", r"\bsaga(?!\w* (is |gets |stays |remains |are "
            r")?(parked|paused|held|suspended|halted|frozen|left (open|uncertain|pending|for))\b)",
            r"\bundo", r"\babort",
            r"(mark|marks|set)\w* (the )?(run )?(as )?fail", r"fail (the run|it)\b",
            r"cancel (the )?(order|run|charge)", r"\bvoid\b")),
        Term(Resume.ESCALATE, "escalate: leave the run uncertain for an operator", (
            r"operator", r"escalat", r"\bhuman", r"manual", r"\balert", r"on ?call",
            r"(mark|park|flag)\w* (it |the run )?(as )?(uncertain|unknown|for review)",
            r"dead ?letter", r"review queue")),
    ),
}

#: Mechanisms offered as alternatives with no rule for which applies ("depending on the case:
#: look it up, or just retry it, or escalate"; stop s12 attacks).
_HEDGED = re.compile(r"\b(depending on (the )?(case|situation|context|circumstances)|as appropriate|"
                     r"as needed|case by case|whichever (fits|works|is best|applies)|it depends|"
                     r"one of (these|the following)|any of (these|the following))\b")
#: A field naming this many different choices is read as a list of words, not a design.
SOUP = {"checkpoint": 3, "idempotency": 3, "resumeProtocol": 4}
KEYS = (Idempotency.DERIVED_KEY, Idempotency.STORED_KEY)
_IDEM_KEY = r"(idempotency|dedup\w*|effect) (keys?|tokens?)"

#: What to say when a field names something close to a mechanism but not the decision itself.
HINTS: dict[str, tuple[tuple[str, str], ...]] = {
    "checkpoint": ((r"journal|\blog\b|database|\bdb\b|sqlite|postgres|\bstore|persist|event",
                    "a store, but not when it is written: before the call, after it, or "
                    "periodically"),),
    "idempotency": ((r"\bkeys?\b|idempoten", "a key, but not where it comes from and whether "
                     "it changes between attempts"),),
    "resumeProtocol": ((r"replay|from the top|journal|checkpoint|where it (left|stopped)",
                        "replaying is not enough: say what happens to a call whose intent is "
                        "journaled but whose result is not"),),
}

#: Answers that say what, not how: matched when nothing concrete was found.
VAGUE = ("save the state", "persist the state", "store the state", "use a database",
         "use a db", "save progress", "checkpoint it", "make it idempotent", "be idempotent",
         "idempotent", "avoid duplicates", "dedupe", "retry on failure", "retry", "handle errors",
         "recover", "restart", "resume where it left off", "it might fail", "things can fail")

#: What a failureMode / tradeOff names: outcome categories, limits and costs.
CLAIMS: dict[str, tuple[str, ...]] = {
    "duplicate": (r"(?<!de)duplicat", r"double[ d]? ?(charg|book|pay|spend|effect)", r"(charg\w*|pa(id|ys?)|book\w*|sent|send\w*|bill\w*|debit\w*|executed|run) twice",
                  r"twice (charg|bill|pa|book|debit)",
                  r"two (charges|payments|bookings)", r"(second|2nd) (charge|payment|booking)",
                  r"more than once", r"\b(money|card|customer|payment)\w* twice", r"(?<!before )(?<!until )charg\w* again",
                  r"(?<!before )(?<!until )\bre ?charg",
                  # "both could see nothing and both charge" (issue 17, HELDOUT15), "both could
                  # miss and both send" (stop s13)
                  r"\bboth (\w+ )?(send|sends|charge|charges|bill|debit|pay|resend|resends|create|"
                  r"creates|book|submit)\b(?! (and|or|&)\b)"),
    "lost": (r"\blost (effect|charge|payment|booking|order|update)", r"(effect|charge|payment|"
             r"booking|order)s? (is |are |gets |get )?(lost|dropped|never (happens|made))",
             r"never (charged|booked|paid)", r"(not|never) (be |gets? |got |is |was )?(charged|booked|paid)\b",
             r"abandon", r"gives? up (the |on the )?order", r"order (is |gets )?"
             r"(not fulfilled|unfulfilled|cancelled)", r"\blose (the |an |a )?(effect|charge|"
             r"payment|booking|order)"),
    "stuck": (r"stuck(?! with (\w+ )?(providers?|psps?|vendors?|gateways?|apis?|services|only|"
              r"those|ones?)\b)", r"uncertain", r"escalat", r"operator", r"manual", r"\bhuman",
              r"blocked", r"\bblocks?\b(?! (nothing|no|none|anything|duplicates?|a (second|duplicate|repeat))\b)", r"\breview (queue|list)\b", r"\bfor review\b", r"\b(cannot|can't|can not) (move|proceed|"
              r"continue|progress|go on|advance)\b", r"\bhangs?\b(?! on\b)", r"never (finishes|completes|ends)", r"\bparked",
              r"unknown (state|outcome)", r"on ?call", r"by hand", r"\ba person\b",
              r"someone (has|must|needs) to", r"\bask (someone|somebody|a person|support|ops)\b",
              r"\bpaged\b", r"must (verify|decide|check)",
              # issue 17 (HELDOUT15): the run said to wait unfinished ("the order sits
              # unfinished", "the booking stays pending until someone answers the page")
              r"\b(sits?|sitting|sat|waits?|waiting|stays?|staying|remains?|remaining|lies|is left|"
              r"are left|hangs? around) (\w+ ){0,2}(unfinished|incomplete|open|pending|unresolved|"
              r"undecided|in limbo|unbooked|unsettled|unconfirmed|half done)\b", r"\bin limbo\b",
              # a team that takes the run over ("ends up with support", "lands at ops")
              r"\b(ends? up|lands?|goes|go|sent|routed) (with|at|to|in) (the )?(support|ops|customer "
              r"service|back ?office|finance)( team| desk| queue)?\b",
              r"nobody can (know|tell|settle)",
              # stop s13 (HELDOUT19): the run said to wait for a person ("just sits there
              # waiting for someone", "waits on somebody to look")
              r"\b(wait\w*|sits?|sitting|stays?|parked|idles?|idling) (\w+ ){0,3}(for|on) (someone|"
              r"somebody|anyone|anybody|a person|people|an? (engineer|admin|operator))\b",
              r"\b(hand|hands|handed|pass|passes|passed|give|gives|route|routes|routed)\w* (\w+ ){0,3}"
              r"to (a |the |our )?(support|operators?|humans?|persons?|ops|on ?call|staff)\b"),
    "wrong": (r"wrong (result|receipt|amount|charge)", r"orphan", r"(not|never) refunded",
              r"unrefunded", r"charged (but|although|yet) (\w+ )?(not|never|no)\b",
              r"charged without (a |the |any )?(booking|order|refund|ticket)", r"inconsistent"),
    "limit": (r"retention", r"\bprun", r"expir", r"\boutl(ive|ast)s?\b", r"\bnot atomic\b",
              r"\b(cannot|can't|can not|not) (be )?(trusted|relied on)\b", r"\bremembers?\b[^.;]{0,40} for (one|a|1) day\b",
              r"\b(dropped|discarded|evicted|purged|deleted|removed|lost)\b (\w+ ){0,2}(the |our )?"
              r"(idempotency )?keys?\b", r"\b24 ?h", r"24 hours", r"forg[eo]t",
              r"key window", r"proves? nothing", r"cannot (be )?(settled|verified|decided|"
              r"known|proven) automatically",
              r"\b(cannot|can't|can not|unable to) (be )?(say|tell|know|decide|settle|settled|"
              r"verif\w*|prove|proven|answer|resolved?|told|known|decided)\b",
              # issue 17 HELDOUT11: a trade-off said as what nobody can do any more
              r"\b(cannot|can't|can not|unable to) (be )?(recomput\w*|rebuil\w*|reconstruct\w*|"
              r"re ?deriv\w*|regenerat\w*|re ?creat\w*)\b", r"\b(nobody|no one) (else )?can "
              r"(recompute|rebuild|reconstruct|re ?derive|regenerate|re ?create)\b",
              r"\b(provider|psp|stripe|gateway|database|db|journal) (is |goes |being )?(down|"
              r"unavailable|unreachable|offline|out)\b", r"\bdependen(cy|cies|t|ce)\b",
              r"\boutages?\b", r"\b(reachable|available|back up|work|works) again\b",
              r"\b(endpoint|api|service|lookups?|search|query api)s? (is |are |goes |being )?(down|"
              r"unavailable|unreachable|offline)\b",
              # issue 17 HELDOUT16/17 (stop s13): a dependency or a constraint said plainly
              # ("relies wholly on provider dedup", "only as safe as the journal's durability",
              # "the resend must repeat the exact body", "needs the run lease to hold")
              r"\b(relies|rely|relying|depends|depend|depending|hinges|hangs|leans) (\w+ ){0,2}on\b",
              r"\bonly as (safe|good|reliable|strong|durable|correct|sound) as\b",
              r"\b(must|has to|have to|needs? to|requires?|is required to)\b (\w+ ){0,3}(exact|exactly|"
              r"identical|byte for byte|byte identical|the very same|the same) (\w+ ){0,3}(body|"
              r"bodies|params|parameters|payload|request|arguments|args|amount|fields)\b",
              r"\b(needs?|requires?|relies on|depends on|assumes?)\b (\w+ ){0,3}(lease|lock|single "
              r"owner|one owner|mutex|leader|fencing)\w*",
              # stop s13 (HELDOUT18): what the design needs said plainly ("if the run store is
              # down we cannot charge at all", "availability of the journal bounds
              # availability of payments", "needs a search that is never stale")
              r"\b(run |event |state |our |the )(store|storage|log|journal|database|db)s? (is |goes |"
              r"being )?(down|unavailable|unreachable|offline)\b", r"\bavailability\b"),
    "cost": (r"\b(real|actual|full|extra|additional) (provider |psp |api )?(requests?|calls?|round "
             r"?trips?|charge attempts?)\b", r"latency", r"\bslow", r"fsync", r"extra (journal |database |db )?(write|fsync|"
             r"round ?trip|request|lookup|call|query|storage|row)", r"round ?trips?",
             r"\bcosts?\b", r"storage", r"\bdisk\b", r"throughput", r"overhead", r"complexit",
             r"(two|2|more) (journal )?(writes|fsyncs|round trips)", r"write amplification",
             r"expensive", r"\bwork (is |gets )?(lost|redone|repeated)",
             r"\b(redo|redoes|lose|loses|repeat|repeats|re runs?) (up to )?[\w ]{0,20}\bwork\b",
             r"\b(one|1|an?|two|2) (more|extra|additional|second) \w+",
             r"(more|extra|additional) (\w+ )?(writes?|commits?|inserts?|fsyncs?|flush\w*|"
             r"requests?|lookups?|search\w*|api calls?|calls?|round ?trips?|tables?|events?|"
             r"rows?|process\w*|moving parts)",
             r"(writes?|commits?|fsyncs?|inserts?|lookups?|requests?|search\w*|round ?trips?|"
             r"events?|rows?|api calls?|reads?) (per|for (each|every)|each|every|instead of)\b",
             r"\bper (call|payment|charge|tool call|activity|intent|open intent|step)\b",
             r"\bslower\b", r"\bmore slow\b", r"\bwaits? for (a |one |the )?(\w+ )?(disk|fsync|"
             r"flush|commit|write)", r"\b(grows?|growth)\b", r"\bcompact", r"moving parts",
             r"(requires|depends on|depend on|depending on|reliance on|only works with|needs|relies on|"
             r"rely on) (a |the "
             r"|our )?(provider|psp|stripe|payment)",
             # issue 17 (HELDOUT15): what correctness leans on, said of the search or the
             # lookup ("everything rests on the search being accurate", "it hinges on the
             # processor's index")
             r"\b(rests?|resting|hinges?|hinging|depends?|depending|relies|relying|rely|hangs?|"
             r"stands? or falls) (\w+ ){0,2}on (the |that |this |our |its |a )?(\w+'?s? ){0,2}(search|"
             r"lookup|look up|index|query|queries|reference search|api|provider|psp|processor|"
             r"gateway)", r"\bp9\d\b", r"\bdelays?\b",
             # stop s13 (HELDOUT18): the search's freshness needed ("needs a search that is
             # never stale", "assumes the lookup is always up to date")
             r"\b(needs?|requires?|assumes?|relies on|depends on|trusts?) (a |an |the |that |our )?"
             r"([\w']+ ){0,2}(search|lookup|index|query|queries)\w* (that is |which is |to be |being |is "
             r")?(never |always |not )?(stale|fresh|accurate|consistent|up to date|current|complete|"
             r"reliable|lagging)\b",
             r"\ba relay\b", r"\bdelay(s|ed|ing)?\b",
             r"\b(writes|storage|latency|disk usage|size) (double|triple)s?\b",
             r"\b(process|service|component|table|daemon|worker|part|system|relay|queue|broker|"
             r"cluster)s? to (operate|maintain|monitor|keep alive|deploy|babysit)\b",
             r"\btakes? (days|hours|minutes|weeks|longer|a while)\b", r"\b(clean(ed)? up|"
             r"cleanup|garbage collect\w*|housekeeping|vacuum\w*)\b", r"\b(another|an extra|one "
             r"more|a separate|a second) (process|service|component|table|daemon|worker|moving "
             r"part)", r"\b(trust|trusts|trusting|lean|leans|count|counts|bank|banks) (on )?(the |"
             r"our )?(provider|psp|stripe|gateway|processor)",
             r"\b(takes?|uses?|needs?|more|extra|disk) (\w+ )?space\b", r"\bcomplex\b",
             r"\b(a|an|one|every|each) (\w+ )?(database|db|disk|journal|durable|sqlite|postgres) "
             r"(write|commit|fsync|insert|flush)", r"\b(needs?|requires?) (\w+ )?(network|"
             r"access|connectivity|a database|a db)", r"\b(search|lookup|api) (call|request)s?\b",
             r"\b1 (more |extra )?(write|fsync|commit|lookup|request|round ?trip)",
             r"(writes?|commits?|fsyncs?|lookups?|requests?) more\b",
             r"\b(doubles?|twice|triples?) (the |in )?(size|writes|storage|latency|disk)",
             r"\b(verification|lookup|reconcil\w*|search) (requests?|calls?|round ?trips?)\b",
             r"\b(more long|longer|takes longer)\b", r"\b(one|1|a|an) (\w+ )?(fetch|lookup|query|"
             r"search|request|write|call|round ?trip|commit|insert)\w* (per|for each|for every)\b", r"\b(twice|two times|double) as (many|much)\b",
             # costs said in other words: "more one write", "every call pays", "hot path"
             r"\bmore (one|1|an?|another) (\w+ )?(write|fsync|commit|insert|lookup|request|"
             r"round ?trip|query|call|search|flush)",
             r"\b(every|each|any) (\w+ )?(call|payment|charge|step|request|activity|send|spend)s? "
             r"(pays|costs|waits|needs|requires|adds|incurs|blocks|takes)\b",
             r"\bhot path\b", r"\b(synchronous|blocking|sync|durable) (\w+ )?(write|commit|"
             r"fsync|insert|flush|round ?trip)", r"\bnetwork (hop|round)", r"\bpenalty\b",
             r"\bthe price\b", r"\badds? (a |an |one |some |extra |more )?(\w+ )?(write|"
             r"latency|delay|round ?trip|lookup|request|milliseconds?|ms|hop|fsync|commit|"
             r"query|dependency|table|step)", r"\b\d+ ?(ms|milliseconds?)\b",
             r"\b(bigger|larger|growing) (journal|log|database|db|table|outbox)",
             r"\b(journal|log|database|table|outbox) (grows|gets bigger|size)",
             r"\bwait\w* (on|for) (the |a |one )?(\w+ )?(write|commit|fsync|disk|journal|"
             r"database|db|provider|lookup)", r"\bone more\b", r"\bextra\b",
             # "a miss right after a crash should be re-checked": one more lookup (stop s13)
             r"\b(re ?check\w*|check\w* again|search\w* again|look\w* (it |them )?up again)\b",
             r"\badditional\b", r"\b(is|are|gets) (a bit |a little |little bit |somewhat )?"
             r"slow",
             # issue 17 HELDOUT8: a lag, a stated wait, what the customer sees
             r"\beventual(ly)? consisten", r"\b(wait|waits|retry|retries)\w* [^.;]{0,30}\bfor \d+ ?"
             r"(s|sec|secs|seconds|min|mins|minutes|ms)\b", r"\b(customer|guest|user|client)s? "
             r"(may |might |can |will |could )?(see|sees|notice|notices|get|gets) (a |an |two )?"
             r"(\w+ ){0,3}(charge|refund|statement|entry|entries)",
             # issue 17 HELDOUT11: a burden on a named party ("support has to read it from the
             # event log to find a charge")
             r"\b(support|ops|operators?|on ?call|staff|someone|somebody|a person|people|humans?|"
             r"the team|engineers?|we) (now |then |always )?(has to|have to|must|need to|needs to) "
             r"(read|look|find|search|dig|check|copy|trace|open|match|reconcile|query|fish|pull)\b"),
}
#: A claim that the provider's deduplication has no time limit ("even days later the provider
#: still recognises the token"): judged against the sweep's recoveries past retention.
CLAIMS["timeless"] = (
    r"\b(still|always|forever|indefinitely|permanently|for ever)\b (\w+ ){0,3}(recogni[sz]\w*|"
    r"dedup\w*|remember\w*|knows?|honou?r\w*)\b(?![^.;]{0,30}\b(within|for 24|inside|until|up "
    r"to|24 ?h))", r"\b(never|won't|will not) (forgets?|expires?)\b",
    r"\b(keys?|tokens?) (never|don't|do not) expire\b",
    # stop s13 attacks: "however long the outage, the provider will recognise the key", "the
    # provider's dedup has no expiry", "the provider keeps keys for a week"
    r"\b(keeps?|kept|remembers?|holds?|retains?|stores?) (the |our |its |every )?(idempotency )?(keys?|"
    r"tokens?) (for )?(a week|weeks|a month|months|a year|\d+ (days|weeks|months)|forever|"
    r"indefinitely)\b|\b(keys?|tokens?) (are |is )?(kept|retained|remembered|stored) (for )?(a week|"
    r"weeks|a month|months|a year|\d+ (days|weeks|months))\b",
    r"\b(however|no matter how) (long|late|old)\b[^.;]{0,60}\b(recogni[sz]\w*|dedup\w*|"
    r"remember\w*|knows?|honou?r\w*|catch\w*|spots?)\b (the |our |a |its )?(key|token|retry|"
    r"resend|repeat|duplicate|second)",
    r"\b(dedup\w*|idempotency|keys?|tokens?)\b[^.;]{0,20}\b(has|have|with|carr(y|ies)) no (expiry|"
    r"expiration|ttl|time limit|retention limit|timeout|shelf life)\b|\bno (expiry|expiration|ttl|"
    r"time limit) (on|for) (the |its |our )?(keys?|dedup\w*|tokens?|idempotency)",
    # "the key protects us however long the outage lasts" (stop s13 attacks)
    r"\b(protects?|covers?|saves?|dedup\w*|holds?|works?|guards?)\b[^.;]{0,20}\b(however long|no "
    r"matter how long|whatever the length of|regardless of how long)\b",
    # "even if the worker only comes back days later, resending is safe" (stop s12 attacks)
    r"\b(days?|weeks?|months?) (later|afterwards|after)\b[^.;]{0,60}\b(re ?send\w*|re ?tr\w*|retry\w*)"
    r"[^.;]{0,20}\b(is |are |stays? |remains? )?(safe|fine|harmless|ok|okay)\b",
    r"\b(re ?send\w*|re ?tr\w*)[^.;]{0,30}\b(is |are |stays? |remains? )?(safe|fine|harmless)\b[^.;]"
    r"{0,40}\b(days?|weeks?|months?) (later|afterwards)\b")
WINDOW_PHRASES: dict[str, tuple[str, ...]] = {
    "W1": (r"before (the |an? )?intent",),
    "W2": (r"after (the )?intent.{0,40}before (the )?(request|call|send|dispatch)",
           r"before (the request is |it is )?sent\b", r"before (sending|dispatch)"),
    "W3": (r"after (the )?(provider|payment|api|stripe|psp)\w*( api| provider)? (commit|charg|"
           r"call|accept|process|succeed)", r"before the (response|answer|reply) (arrives|is "
           r"received|comes back)", r"(lost|dropped) (response|answer|reply)",
           r"(response|answer|reply) (is |gets )?(lost|dropped)",
           r"after (calling|it calls) (the |a )?(payment )?(api|provider)"),
    "W4": (r"after the (response|answer|reply).{0,30}before (the result is |it is )?(recorded|"
           r"journaled|written|persisted|saved)", r"before (recording|journaling|saving|"
           r"persisting|writing) the result", r"before the result (is )?(recorded|journaled|"
           r"written|persisted|saved)"),
    "W5": (r"after the result (is )?(journaled|recorded|written|persisted|saved)",
           r"before (the )?(lease|ack)"),
}
_NEGATORS = {"no", "not", "never", "without", "don't", "dont", "doesn't", "doesnt", "isn't",
             "aren't", "cannot", "can't", "nor", "neither", "avoid", "avoids", "avoiding",
             "skip", "skips", "instead", "rather", "nothing", "prevent", "prevents",
             "prevented", "preventing", "eliminates", "eliminate", "out", "against",
             "nobody", "none", "nowhere", "skipping", "skipped", "omit", "omits", "zero",
             "unlike"}
_DENIED_AFTER = re.compile(r"\b(impossible|never|cannot|can't|ruled out|prevented|avoided|"
                           r"eliminated)\b")
#: A relative clause about another noun after a claim ("an operator is paged even for a request
#: that was never sent"): a denial inside it denies that noun, not the claim (stop s13 attacks
#: on HELDOUT19's wording). "a duplicate that can never happen" has no other noun and is read.
_OTHER_NOUN_CLAUSE = re.compile(r"\b(for|of|with|including|about|to) (a|an|the|every|each|any|"
                                r"those|these|one|ones) (\w+ ){0,2}?(that|which|who)\b")
#: An outcome said to pass ("a customer can briefly see a charge for a room never booked") is
#: a cost of the design, not a failure the sweep must show.
_TEMPORARY = re.compile(r"\b(briefly|temporarily|for a (while|moment|short time)|for (a few|some) "
                        r"(seconds|minutes|hours|days)|until (the |it is |they are )?refund\w*)\b")
#: A sentence that opens with the wait for a person or a decision ("Until then the order is not
#: booked", "until someone checks, the room stays unpaid"): what is not yet done is the run
#: waiting, not an effect the design loses (issue 17, HELDOUT15).
_UNTIL_SETTLED = re.compile(r"^\s*(\w+ ){0,2}(until|till|pending|while waiting for|before) (then|that|"
                            r"that happens|this happens|that point|it is (resolved|settled|decided|"
                            r"answered|checked|confirmed)|(the |an? |our )?(operator|person|human|"
                            r"someone|somebody|support|ops|on ?call|review\w*|page|ticket|decision|"
                            r"engineer)s?\b)")
_HYPOTHETICAL = re.compile(r"\b(would|could|might|may|if|otherwise|without|unless|risk\w*|"
                           r"unsafe|in danger of)\b|\b(we|i|you|they|it|one)'d\b")
#: A sentence that opens with a condition ("If restart is after 24 hours, ..., so resending can
#: do double charge") says what could happen in that case, in every one of its clauses.
_CONDITIONAL = re.compile(r"^\s*(if|suppose|supposing|in case|should|assuming)\b")
_CLAUSE = re.compile(r"[.;:!?,()\n|]| but | so | whereas | while ")


#: Words the vocabulary turns on, mended when misspelt by one letter ("intnet", "jounral",
#: "befor", "provder"): an edit (insert, delete, replace, swap of neighbours) away, five
#: letters or more, and not itself a word of :data:`_REAL_WORDS`.
_KEYWORDS = ("intent", "intents", "journal", "journaled", "written", "before", "derived",
             "provider", "resend", "idempotency", "idempotent", "result", "results", "retry",
             "retries", "request", "response", "lookup", "persisted", "recorded", "deterministic",
             "reconcile", "charge", "checkpoint", "received", "every", "without", "after",
             "journaling", "persist", "record", "stored", "recovery", "attempt", "attempts")
_REAL_WORDS = frozenset({"intend", "intends", "intended", "event", "events", "ever", "provide",
                         "provides", "provided", "resent", "resends", "recent", "writes", "writer",
                         "retro", "rested", "record", "records", "charged",
                         "charges", "charger", "stores", "store", "attempted", "recover",
                         "reconciled", "requests", "requested", "responses", "lookups", "later",
                         "alter", "alters", "afters", "rather", "either", "stored", "storey",
                         "result", "results", "resulted", "insult", "persists", "journals",
                         "change", "indent", "indents", "invent", "invents", "lockup",
                         "bequest", "derive", "derives", "receiver", "receives", "recorder",
                         "aster", "stared", "resents", "retires", "stoned", "deriver",
                         "retried"})  # "are retried" is not mended to "retries" (stop s13)


def _edit1(a: str, b: str) -> bool:
    """True when ``a`` is one edit (insert, delete, replace, adjacent swap) from ``b``."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


@lru_cache(maxsize=4096)
def _mend(word: str) -> str:
    if len(word) < 5 or word in _REAL_WORDS or word in _KEYWORDS:
        return word
    return next((k for k in _KEYWORDS if _edit1(word, k)), word)


def normalise(text: str) -> str:
    """Lower case; hyphens, slashes, underscores, arrows and '+' as spaces; one space; British
    "journalled" and one-letter misspellings of the vocabulary's words mended."""
    t = text[:MAX_CHARS].lower().replace("\u2019", "'")
    # a comparison with a number said in words ("age < 24 h", "age >= 24 h"), not an arrow
    t = re.sub(r"\s*(?<![-=<>])(<=|>=|<|>|\u2264|\u2265)\s*(?=\d|[a-z_])", lambda m: {
        "<": " under ", "<=": " under ", "\u2264": " under ", ">": " over ", ">=": " at least ",
        "\u2265": " at least "}[m.group(1)], t)
    t = re.sub(r"\bjournall(ed|ing)\b", r"journal\1", t)
    t = re.sub(r"[a-z]{5,}", lambda m: _mend(m.group(0)), t)
    t = re.sub(r"\s*(->|=>|\u2192)\s*", "; ", t)  # an arrow separates two clauses
    t = re.sub(r"[-_/+=>\u2192\u2013\u2014*`\"]", " ", t).replace("&", " and ")
    t = re.sub(r"\b(brand|completely|totally|entirely|whole) new\b", "new", t)  # "a brand-new key"
    t = re.sub(r"\b(at no (point|time|stage)|under no circumstances?|in no case|not once|not at any "
               r"(point|time))\b", "never", t)  # the many ways English says never
    return re.sub(r"[ \t]+", " ", t).strip()


#: Negators that belong to a noun phrase ("rows with no reply are reconciled"): their scope
#: ends at the next auxiliary, so they do not negate the verb after it.
_DETERMINERS = {"no", "without", "nothing", "none", "nobody"}
_AUXILIARIES = {"is", "are", "was", "were", "be", "been", "gets", "get", "has", "have", "will",
                "then", "and", "we", "it", "they"}


#: Adverbs that end the noun phrase of "no" ("a job with no receipt first asks ..."), but not
#: the scope of "without" ("resend without first asking").
_NP_ENDS = {"first", "always", "still", "now", "immediately"}


#: Verbs whose "out" is a particle, not a negation ("carried out", "sent out", "worked out").
_OUT_VERBS = {"carried", "carry", "carries", "carrying", "sent", "send", "sends", "worked", "work",
              "works", "figured", "found", "checked", "sorted", "rolled", "handed", "spelled",
              "spelt", "laid", "written", "writes", "played", "goes", "go", "went", "gone",
              "going", "paid", "pays", "pay", "fanned", "fan", "fans", "stands", "pointed",
              "reached", "reach", "reaches", "calls", "called", "call"}
_NO_NEED = re.compile(r"\b(no need|never any need|not necessary|unnecessary) (to|for)\b[^.;]{0,50}$")
#: A mechanism said to be done by another party ("the provider does the reconciliation for us").
_DELEGATED = re.compile(r"\b(provider|psp|stripe|gateway|bank|processor)\b (\w+ )?(does|do|handles?|"
                        r"takes? care of|performs?)\b(?! not\b)[^.;]{0,20}$")  # "charges which the
# provider does not report are retried": not delegated (stop s13)


#: "instead of"/"rather than" scoping over a short verb phrase ("parked for an operator instead
#: of being compensated blindly"): every word of it is negated, up to a new subject (stop s13,
#: HELDOUT18). "instead of a refund we resend" is cut at "we".
_INSTEAD_OF = re.compile(r"\b(instead of|rather than|in place of)\b")
_A_NEW_SUBJECT = re.compile(r"\b(we|it|they|i|you|then|and|the (worker|runtime|run|agent))\b")


_RELATIVE = {"that", "which", "who", "whose"}


def _negated(text: str, start: int, window: int = 3) -> bool:
    """True when a negator scopes over the match at ``start``: one of the last ``window`` words
    of its clause (``_NEGATORS`` or any word ending in "n't"), unless it is a determiner ("no",
    "without") whose noun phrase ended before the match (an auxiliary lies between)."""
    clause = _CLAUSE.split(text[:start])[-1]
    if _NO_NEED.search(clause):
        return True  # "there's no need to call the lookup endpoint or reconcile anything"
    instead = list(_INSTEAD_OF.finditer(clause))
    if instead and len(clause[instead[-1].end():].split()) <= 5 and not _A_NEW_SUBJECT.search(
            clause[instead[-1].end():]):
        return True  # "parked for an operator instead of being compensated blindly"
    every = clause.split()
    words = every[-window:]
    after = text[start:].split()[:1]  # "intents without a result | are resent": scope ended
    for i, w in enumerate(words):
        if w == "out" and len(every) - len(words) + i > 0 \
                and every[len(every) - len(words) + i - 1] in _OUT_VERBS:
            continue  # "reconciliation is carried out by resending": a phrasal verb
        if w in _NEGATORS or w.endswith("n't"):
            at = len(every) - len(words) + i
            if (i + 1 < len(words) and after and after[0] in _PASSIVE_AUX
                    and _RELATIVE & set(every[max(0, at - 4):at])):
                continue  # "charges that the provider doesn't find | are resent": the negator
                # is the relative clause's, not the main verb's (stop s13, HELDOUT19)
            ends = _AUXILIARIES | (_NP_ENDS if w != "without" else set())
            if w in _DETERMINERS and ends & set(words[i + 1:] + after):
                continue
            return True
    return False


#: What, said after a mechanism in its clause, rejects it ("checking with the provider would be
#: too slow", "the intent write is skipped").
_REJECTED_AFTER = re.compile(r"^[^.;:!?]{0,30}?\b((would be|is|are|seems?|feels?) (too|overkill|"
                             r"unnecessary|not needed|not worth|pointless|wasteful|optional|"
                             r"not required|not necessary|unneeded|not mandatory)|(is|are) "
                             r"(skipped|left out|omitted|dropped|bypassed))\b")


#: Said before a mechanism in its clause, these make it a wish, not the design ("ideally we
#: would journal an intent", "we plan to add a lookup later").
_ASPIRATION = re.compile(r"\b(ideally|in an ideal world|plan to|plans to|planning to|in the future|"
                         r"eventually|someday|some day|one day|todo|hope to|hoping to|will add|"
                         r"not yet|would like to|would love to|wish)\b")


_COUNTERFACTUAL = re.compile(r"\b(would|should|could)\b")
_BUT_ACTUALLY = re.compile(r"^[^.;!?]*?\bbut\b[^.;!?]{0,30}\b(just|simply|only|actually|in practice|"
                           r"for now|currently|in this version|today|instead|really)\b")


def _aspired(text: str, start: int) -> bool:
    """A wish ("ideally we would ...") or a counterfactual undone in its sentence ("we would
    look up the key, but in this version we just resend")."""
    clause = _CLAUSE.split(text[:start])[-1]
    return bool(_ASPIRATION.search(clause) or (_COUNTERFACTUAL.search(clause)
                                               and _BUT_ACTUALLY.search(text[start:])))


def first_match(text: str, patterns: tuple[str, ...], guarded: bool = True) -> re.Match[str] | None:
    """The earliest match of any of ``patterns`` in ``text``; with ``guarded``, not one under a
    negation in its clause, wished for ("ideally we would ..."), or rejected after it ("...
    would be too slow")."""
    found = [m for p in patterns for m in re.finditer(p, text)
             if not (guarded and (_negated(text, m.start()) or _aspired(text, m.start())
                                  or _REJECTED_AFTER.search(text[m.end():])
                                  or _DELEGATED.search(_CLAUSE.split(text[:m.start()])[-1])
                                  or (m.group(0).startswith("only ") and _END_OF_STEP.search(
                                      _CLAUSE.split(text[:m.start()])[-1]))))]
    return min(found, key=lambda m: m.start()) if found else None


# -- reading one field --------------------------------------------------------------------------

@dataclass(frozen=True)
class Reading:
    """How one field was read: the choice (an enum value) or the problem, and the evidence."""

    field: str
    text: str  # the answer as read (a plain str)
    choice: str | None = None
    evidence: str = ""  # the phrase that decided the choice
    problem: str = ""  # why there is no choice (empty when there is one)
    notes: tuple[str, ...] = ()  # contradictions found inside the field (the choice stands)

    @property
    def label(self) -> str:
        return next((t.label for t in VOCABULARY.get(self.field, ()) if t.choice == self.choice),
                    "")


def terms_of(field_name: str) -> str:
    return "; ".join(f"'{t.label}'" for t in VOCABULARY[field_name])


#: Qualifiers that undo a mechanism the vocabulary found: field -> (pattern, the choice the
#: answer really describes, why). A qualifier counts only when it is not itself negated
#: ("not only in memory"); when it changes the reading, the grade names both phrases.
_RESULTISH = r"(?<!result )(?<!response )(?<!outcome )(?<!completion )(?<!receipt )"
#: The provider's key retention, a resend and a young intent (read by the resume
#: qualifiers and :func:`resend_within_retention`).
_RETENTION = (r"(24 ?h\w*|24 hours?|24 3600|24 60 60|86 ?400|twenty four hours|retention|a day|"
              r"one day|ttl|(the )?"
              r"(key'?s? )?(lifetime|expiry|window))")
_RESEND = (r"\b(re ?send\w*|re ?sent|re ?tr(y|ies|ied|ying)|(sends?|sent|sending) (it )?again|"
           r"re ?submit\w*|re ?issu\w*|re ?deliver\w*|"
           r"replay\w* (the |its |that )?(request|call|charge|http call|post))")  # s13 attacks
_YOUNG = (r"\b(while|within|under|inside|less than|younger than|as long as|before|below|short of|"
          r"fresher than|newer than|more recent than)\b")
#: A lookup's miss said to prove the charge never happened, then resent ("nothing under that
#: key: the charge never happened, so resend it", "a not-found is final, the agent resends"):
#: true only while the provider still keeps the key. Read by :func:`_out_of_scope` only when
#: the resume field bounds nothing by age, or when the sentence itself is about a late resume
#: ("by then", "past 24 h"); a client reference (kept for good) is not read (issue 17, s13).
_MISS_AS_PROOF = (
    r"\b((the |that |this |our )?(charge|payment|request|call|it|order)s? (never|did not|didn't|"
    r"has not|hasn't|had not|hadn't) (happened|happen|went through|go through|gone through|took "
    r"effect|take effect|reached|landed|arrived)|(a |the |an )?(not found|miss|404|empty (answer|"
    r"result|lookup|search)|no (match|hit|record))s? (is|are|means|proves|counts as) (final|proof|"
    r"conclusive|definitive|authoritative|certain)\b)[^.;]{0,40}" + _RESEND)
#: What follows a time compared as an age ("now() - sent_at < 24h", "the intent's timestamp is
#: inside the 24 h retention"): a lookahead refusing the match (stop s13, HELDOUT18).
_AN_AGE_TEST = (r"(?![^.;:]{0,30}\b(under|less than|more than|inside|within|older|younger|past|"
                r"beyond|outside|over|than|retention|ago)\b|[^.;:]{0,30}\b24 ?h)")
#: A resend said safe without condition ("Because the key is deterministic, RESEND is always
#: safe", "resending is safe at any time"): true only while the provider keeps the key. Read by
#: :func:`_out_of_scope` only when the resume field bounds nothing by age (:data:`_AGE_BOUND`);
#: "a resend within 24 h is always safe" is not read (issue 17, stop s13, HELDOUT19).
_ALWAYS_SAFE = (
    r"(\b(re ?send\w*|re ?sent|re ?tr(y|ies|ied|ying)\w*|sending (it )?again)\b[^.;]{0,30}\b(is|are|"
    r"stays?|remains?|will be|becomes?) (always|forever|unconditionally|perfectly|completely|"
    r"totally|100%) (\w+ )?safe\b|\b(always|forever|unconditionally) safe to (re ?send|retry|"
    r"send (it )?again)\b)")
#: A resume field bounding its resend by age or retention, and the late case said as "by then".
_AGE_BOUND = re.compile(r"\b(24 ?h\w*|24 hours?|\d+ ?(h|hours?|days?)\b|retention|ttl|a day|one "
                        r"day|older|younger|age\b|expir\w*|window|escalat\w*|operator)")
_LATE_SAID = re.compile(r"\bby then\b|\b(past|after|beyond|older than|over|outside)\b[^.;]{0,20}"
                        r"(24 ?h\w*|24 hours?|a day|one day|retention|the window|ttl)")
_A_REFERENCE = re.compile(r"\b(reference|ref|metadata|client ref\w*)\b")
QUALIFIERS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "checkpoint": (
        # the intent written once the call has returned or been accepted (stop s12 attacks)
        (r"\b(when|once|after|as soon as) (the )?(charge|call|request|provider|payment|psp|api)"
         r"[^.;]{0,40}\b(returns?|returned|completes?|completed|comes back|came back|succeeds?|"
         r"succeeded|accepted|accepts|answers?|answered|responds?|responded|is done)\b[^.;]{0,30}"
         r"\b(write|writes|record|records|journal|journals|log|logs|store|stores|save|saves|"
         r"persist|persists|commit|commits) (the |an |its )?intent",
         Checkpoint.RESULT_ONLY, "the intent is written after the call returns"),
        (r"\b(write|writes|record|records|journal|journals|log|logs|store|stores|save|saves|"
         r"persist|persists|commit|commits) (the |an |its )?intent\b[^.;]{0,40}\b(when|once|after|"
         r"as soon as) (the )?(charge|call|request|provider|payment|psp|api)[^.;]{0,30}\b(returns?|"
         r"returned|completes?|completed|comes back|succeeds?|succeeded|accepted|accepts|answers?|"
         r"answered|responds?|responded|is done)\b",
         Checkpoint.RESULT_ONLY, "the intent is written after the call returns"),
        # the model's decision not journaled: a resume asks again and the call changes
        (r"\b(ask|asks|call|calls|query|queries|prompt|prompts|re ?run|reruns)\w* (the )?(model|llm|"
         r"agent|planner) again\b[^.;]{0,40}\b(rebuild|rebuilds|recreate\w*|re ?create\w*|recompute\w*|"
         r"regenerate\w*|build|builds)\b (the |a |its )?(call|request|charge|args|arguments|amount)|"
         r"\b(model|llm|planner)'?s? (plan|decision|answer|choice|output|reply)s? (is |are )?(not|"
         r"never) (stored|journaled|saved|recorded|persisted|kept)",
         Checkpoint.SNAPSHOT, "the model's decision is not journaled: a resume asks it again"),
        (r"\bevery (second|other|third|fourth|few|2nd|3rd|\d+(st|nd|rd|th)) (step|call|tool call|"
         r"action|operation)s?\b", Checkpoint.SNAPSHOT, "progress is saved only every few steps"),
        (r"(write|record|journal|persist|save|store|commit)\w* nothing (until|before)",
         Checkpoint.RESULT_ONLY, "nothing is written before the call returns"),
        (r"nothing (is |gets )?(written|persisted|saved|stored|journaled|recorded|committed) "
         r"(to disk |durably )?before", Checkpoint.RESULT_ONLY, "nothing is written before the "
         "call"),
        (r"(never|not|don't|do not|doesn't|does not) (write|record|persist|journal|save|store|"
         r"commit)\w* (anything|it|the intent|an intent|a row)? ?(before|until) (the |a |it )?"
         r"(call|provider|response|result|charge|answer|request|returns)",
         Checkpoint.RESULT_ONLY, "nothing is written before the call returns"),
        (r"(not|never|n't|isn't) (\w+ ){0,2}(recorded|written|journaled|persisted|saved|stored|"
         r"committed|inserted) until", Checkpoint.RESULT_ONLY, "the intent is written only after "
         "the call"),
        (r"\bonly (after|once|when) (the |it |its |a )?(provider|call|charge|response|result|api|"
         r"payment|request|answer|it|psp|stripe|gateway|processor|bank)\w*(?! (is|has been|was|are) (durable|written|journaled|"
         r"committed|persisted|on disk|stored|saved|fsynced|recorded|safe))", Checkpoint.RESULT_ONLY, "the intent is written only "
         "after the call"),
        # issue 17 HELDOUT17 (stop s13): the intent made durable only once the provider has
        # answered ("we only flush it to disk after the provider has confirmed the charge")
        (r"\bonly (flush|fsync|sync|commit|persist|write)\w* (it |them |the intent |the journal |the "
         r"log |the row |the file )?(to disk |to the disk |durably )?(after|once|when) (the )?"
         r"(provider|psp|call|charge|payment|response|reply|answer|bank|gateway|api|stripe)\w*",
         Checkpoint.RESULT_ONLY, "the intent is made durable only after the call"),
        (r"\bonly (write|record|journal|persist|save|store|commit|insert)\w* (to (the |our )?(journal|"
         r"log|db|database|disk|table|store) )?(anything |it |the "
         r"intent |the row )?(after|once|when)", Checkpoint.RESULT_ONLY, "written only after "
         "the call"),
        # issue 17 (stop s8): the "only" after the object, "we write the record only when the
        # answer comes back", "commits its row only once the provider has replied"
        (r"\b(write|writes|record|records|journal|journals|persist|persists|save|saves|store|"
         r"stores|commit|commits|insert|inserts|log|logs|append|appends) (the |a |an |our |its |"
         r"this |that |any )?(intent|intention|row|entry|record|line|event|marker)s? only (after|"
         r"once|when|as soon as) (the |its |a |an )?(answer|reply|response|result|receipt|outcome|"
         r"provider|psp|bank|gateway|call|charge|payment)\w*", Checkpoint.RESULT_ONLY,
         "the record is written only when the call returns"),
        (r"\bintent\w* (as soon as|once|when|after) the (response|answer|reply|result|provider|"
         r"call)", Checkpoint.RESULT_ONLY, "the intent is written when the response arrives"),
        (r"\b(intent|row|record|entry)\w*[^.;]{0,40}\b(in|within) the same (commit|transaction|"
         r"write|insert|batch) as the (provider's |psp's |api's |bank's )?(answer|reply|response|"
         r"result|receipt|outcome)", Checkpoint.RESULT_ONLY,
         "the intent is written together with the result"),  # stop s13 attacks
        (r"together with the (result|response|outcome|answer)", Checkpoint.RESULT_ONLY,
         "the intent is written together with the result"),
        (r"\bintent\w*\b[^.;]{0,60}\b(together|in one transaction|in the same transaction|in a single "
         r"transaction)\b[^.;]{0,40}\b(once|after|when) (the )?(provider|psp|call|charge|response|"
         r"reply|answer|bank|gateway)", Checkpoint.RESULT_ONLY,
         "the intent is written together with the result"),
        (r"fail(s|ed)? to (record|write|journal|persist|save|store) the intent",
         Checkpoint.RESULT_ONLY, "the intent is not recorded"),
        (r"(intent|intention|row|record)\w* (lives?|stays?|is kept|are kept|is held|are held) "
         r"(only )?in ([\w']+ ){0,2}memory until", Checkpoint.RESULT_ONLY, "the intent is held in "
         "memory until the call returns"),
        (r"(kept|held|stays?|lives?|sits?|stored|buffered|remembered|parked)\w* in (a |an |the "
         r")?(local |python |process |in memory |temporary )?(variable|list|dict|map|array|buffer|"
         r"object|field|attribute|memory|ram)\b[^.;]{0,30}\buntil\b", Checkpoint.RESULT_ONLY,
         "held in memory until the call returns"),
        (r"\bintent\w* and (the )?(result|response|receipt|outcome|reply)s? (\w+ ){0,3}(in|as) "
         r"(one|a single|the same) (row|write|record|append|transaction|insert|entry)",
         Checkpoint.RESULT_ONLY, "the intent is written together with the result"),
        (r"\b(write|record|journal|persist|save|store|commit|insert|log)\w* (the )?(intent|row|"
         r"entry|record)\b(?:(?!result|response|receipt|outcome|answer|reply)[^.;,]){0,40}\bafter "
         r"(the )?(provider|call|charge|response|api|psp|request)", Checkpoint.RESULT_ONLY,
         "the intent is written after the call"),
        (r"in memory until (the )?(result|response|answer|call|charge|provider)",
         Checkpoint.RESULT_ONLY, "held in memory until the call returns"),
        (_RESULTISH + r"\b(intent|outbox row|row|entry|event|record)s? (is |are )?(only )?"
         r"(inserted|written|appended|recorded|journaled|persisted|saved|committed|stored) "
         r"(only )?(after|once) (the )?(provider|call|charge|api|request|response|payment)",
         Checkpoint.RESULT_ONLY, "the row is written after the call"),
        (_RESULTISH + r"\b(intent|outbox row|row|entry|event|record)s? (is |are |gets )?(only )?"
         r"(inserted|written|appended|recorded|journaled|persisted|saved|committed|stored)\b"
         r"(?:(?!before|result|response|receipt|outcome)[^.;,]){0,30}\b(after|once|when) (the )?"
         r"(provider|call|charge|api|request|response|payment|psp|gateway)",
         Checkpoint.RESULT_ONLY, "the intent is written after the call"),
        (r"(only|purely|just|kept|held|lives?) in ([\w']+ ){0,3}(memory|ram)\b", Checkpoint.NONE,
         "state held only in memory"),
        (r"in (an? )?(in )?memory (list|dict|map|array|buffer|queue|object)", Checkpoint.NONE,
         "an in-memory structure"),
        (r"\b(go|goes|put|puts|placed|kept|held|stored|saved|written|added) (in|into|to) (a |an |"
         r"the )?(local |python |in memory |process |worker's |global )?(variable|list|dict|"
         r"dictionary|map|hashmap|array|buffer|object|field|attribute|set)\b", Checkpoint.RESULT_ONLY,
         "the intent is held in a Python object, not journaled"),
        (r"\bintent\w*[^.;]{0,40}\b(asynchronous\w*|async|in the background|without waiting|fire "
         r"and forget|in parallel with the (call|request|charge)|while the (call|request|charge) is "
         r"(already )?(in flight|running|being sent|under way))", Checkpoint.RESULT_ONLY,
         "the intent is not durable before the call"),
        (r"\b(not|never|n't|without|no) (\w+ )?(fsync|flush|sync)\w* (it |them |the intent |the log |"
         r"the file )?(before|until|ahead of|prior to)", Checkpoint.RESULT_ONLY,
         "the intent is not durable before the call"),
        (r"\b(batch(es|ed|ing)?|buffer(s|ed|ing)?)\b[^.;]{0,80}\b(every|later|periodically|in the "
         r"background|asynchronously|eventually)\b", Checkpoint.RESULT_ONLY,
         "the intent is buffered, not durable before the call"),
        (r"\blogger\.(info|debug|warning|warn|error|log)\b", Checkpoint.RESULT_ONLY,
         "the intent goes to a log stream, not the journal"),
        (r"\bnothing (is |gets )?(ever )?(written|journaled|recorded|persisted|saved|stored|"
         r"committed) (to disk |durably )?(until|till) (the )?(call|charge|provider|response|result|"
         r"request|answer|psp|stripe|gateway|api|bank|processor|it|we)\b", Checkpoint.RESULT_ONLY, "nothing is written until the call returns"),
        (r"\bintent\w*[^.;]{0,30}\b(stdout|stderr|the console|printed|print\(|the terminal|a log "
         r"line|the logger|log messages?)\b", Checkpoint.RESULT_ONLY,
         "the intent goes to a log stream, not the journal"),
        (r"\b(while|as) (it|the (call|request|charge|payment)) is (already )?(in flight|running|"
         r"being sent|under way|pending|out)\b[^.;]{0,40}\b(intent|append|write|journal|record)\w*",
         Checkpoint.RESULT_ONLY, "the intent is written while the call is in flight"),
        (r"\b(asynchronous|async|background|non blocking|lazy) (write|append|flush|insert)s? of "
         r"the intent", Checkpoint.RESULT_ONLY, "the intent is not durable before the call"),
        # issue 17 HELDOUT8: "the only write is the result"; the order said as call, then write
        (r"\bthe only (write|thing (written|journaled|recorded|stored|saved)|record|entry|row|"
         r"journal entry|insert) (is|are) (the )?(result|response|outcome|receipt|reply|answer)",
         Checkpoint.RESULT_ONLY, "only the result is written"),
        (r"\b(call|calls|calling|invoke|invokes|hit|hits|charge|charges)\w* (the )?(\w+\.)?(provider|"
         r"psp|stripe|api|gateway|bank|charge)\w*( ?\(\))?,? (and )?then,? (once it (returns|"
         r"answers|responds),? |after it (returns|answers|responds),? )?(we |it |the worker )?"
         r"(write|writes|insert|inserts|record|records|journal|journals|persist|persists|commit|"
         r"commits|append|appends|save|saves|store|stores)\b(?! (the |its |a )?(result|response|"
         r"outcome|receipt|reply|answer|charge id|done))", Checkpoint.RESULT_ONLY,
         "the row is written after the call"),
        (r"\b(only|just) (write|record|journal|persist|save|store|commit|log)\w* (the )?(result|"
         r"response|outcome|receipt|reply)", Checkpoint.RESULT_ONLY, "only the result is written"),
        (r"\b(is|are) (only|just|really|actually|merely|in fact) (a |an )?(\w+ )?snapshots?\b",
         Checkpoint.SNAPSHOT, "the journal is only a periodic snapshot"),
        (r"in a python (dict|list|object|variable)", Checkpoint.NONE, "a Python object"),
        (r"\b(list|dict|map|array|buffer|queue|object) in (ram|memory)\b", Checkpoint.NONE,
         "an in-memory structure"),
        (r"keeps? no (file|disk|journal|database|db)\b", Checkpoint.NONE, "no file is kept"),
        (r"\b(journal|log|state|db|database|table|file)\w* (is |gets |are )?(wiped|cleared|deleted|"
         r"truncated|reset|emptied|dropped|lost|discarded)\b[^.;]{0,20}\b(restart|reboot|boot|"
         r"startup|start up|crash|deploy|redeploy)", Checkpoint.NONE,
         "the journal does not survive a restart"),
        (r"\b(lives?|is|are|stored|kept|written|sits?|saved|goes|go|under) (in |on |to |into |under )?"
         r"(the )?(tmp|"
         r"tmpfs|ramdisk|ram disk|shm)\b|\bon the container\b|\bephemeral (disk|storage|volume|"
         r"filesystem)|\bwithout persistence\b|\bmemcache|\b(persistence|durability|fsync|aof|"
         r"journaling) (is |being )?(switched off|turned off|disabled|off)\b|\b(disabled|no) "
         r"(persistence|durability)\b", Checkpoint.NONE,
         "storage that does not survive the crash"),
        (r"(written|persisted|saved|stored|journaled) nowhere", Checkpoint.NONE,
         "written nowhere"),
        (r"nothing (is |gets )?(written|persisted|saved|stored|journaled)( to disk| anywhere)?"
         r"(?! before)", Checkpoint.NONE, "nothing is written"),
        (r"(lost|gone|wiped) (when|if) the (process|worker|machine|pod|container) (dies|crashes|"
         r"restarts|exits|stops)", Checkpoint.NONE, "lost when the process dies"),
        (r"(never|not) (hits|touches|reaches|goes to|written to) (the )?disk", Checkpoint.NONE,
         "never reaches disk"),
    ),
    "idempotency": (
        # the key lives only in process memory; the run id changes on resume; the provider has
        # nowhere to take the key (stop s12 attacks); "kept on the ChargeRequest object", a
        # named object (stop s13, HELDOUT19)
        (r"\b(uuid|random|generated|minted|created|made)\b[^.;]{0,60}\b(kept|held|cached|stored|"
         r"lives?|saved)( only)? (on|in) (the |a )?([\w']+ )?(worker|process|object|instance|memory|ram|"
         r"variable|attribute|local)\b", Idempotency.RANDOM_PER_ATTEMPT,
         "the key lives only in process memory: a restarted worker makes another"),
        (r"\b(resumed|restarted|recovered|new) (run|process|worker|attempt)s? (is |are |gets |get )?"
         r"(given|assigned|gets|get|has|have|receives?)? ?(a )?(new|fresh|different) (run )?id\b|"
         r"\bnew run id (on|per|for each|with each|every|at each) (resume|restart|recovery)",
         Idempotency.RANDOM_PER_ATTEMPT, "the run id in the key changes on resume"),
        (r"\b(has|have|takes|accepts?|offers?) no (parameter|field|header|slot|place|argument|"
         r"way) (for|to (take|carry|pass|send)) (it|the key|them|a key)\b", Idempotency.NONE,
         "the provider has nowhere to take the key"),
        (r"(fresh|new|random|unique|different)\w* .{0,40}\b(per|(on|for|with|at|in) (every|"
         r"each)|(each|every) time (we |it )?) ?(retry|retries|attempt|try|delivery|redelivery|"
         r"send|request|resend)",
         Idempotency.RANDOM_PER_ATTEMPT, "a new key on every attempt"),
        (r"(each|every|per) (retry|attempt|try|delivery|redelivery|resend)\w*,? (we |it )?"
         r"(gets? |has |have |uses? |generates? |makes? |creates? |mints? )?(its own|(a |an )?"
         r"(new|fresh|different|random)|regenerat)", Idempotency.RANDOM_PER_ATTEMPT, "a new key on every attempt"),
        (r"\b(re ?send|retr|re ?tr|resubmit|send again|sent again|charge again|re ?issu)\w* "
         r"(?:(?!\b(never|not|no|nor)\b)[^.;]){0,30}\b(with|using|under|carrying) (a |an )?(new|"
         r"fresh|freshly|different|random|"
         r"newly|another|regenerated)( (generated|minted|made|created|drawn|rolled))?( "
         r"(idempotency|random))? (key|uuid|id|nonce|token)",
         Idempotency.RANDOM_PER_ATTEMPT, "a resend carries a new key"),
        (r"\b(uuid|key|random|nonce|guid)\w*[^.;]{0,40}\b((stored|kept|saved|journaled|persisted|"
         r"recorded|written) nowhere|(not|never) (stored|kept|saved|journaled|persisted|recorded))",
         Idempotency.RANDOM_PER_ATTEMPT, "the key is not stored, so a retry makes a new one"),
        (r"\b(uuid|random|nonce|guid)\w*(?:(?!reuse|re use|same|kept|read|stored|journal|once|"
         r"persist|saved)[^.;]){0,40}\b((on|for|at|per|with|in) )?(every|each) (retry|attempt|try|"
         r"request|send|resend|call|charge|invocation|time)\b", Idempotency.RANDOM_PER_ATTEMPT,
         "a new key on every attempt"),
        (r"\b(replac|overrid|overwrit|swap|substitut)\w* (it |the key |them )?(with|by) [^.;]{0,30}"
         r"\b(on|for|at|per|with|in) (every|each) (retry|attempt|try|request)",
         Idempotency.RANDOM_PER_ATTEMPT, "the key is replaced on every attempt"),
        (r"\b(a|the|each|every) (retry|attempt|resend|try|redelivery) (uses?|gets?|has|takes?|"
         r"carries|sends?) (a |an )?(different|new|fresh|another|incremented|other|bumped)",
         Idempotency.RANDOM_PER_ATTEMPT, "a retry carries a different key"),
        (r"\b(changes|differs|varies|is different|will differ|can change) (when|whenever|on|after|"
         r"between|per|each|every|if|across)\b", Idempotency.RANDOM_PER_ATTEMPT,
         "the key changes between attempts"),
        (r"\b(unless|except|otherwise|in which case|or else|sometimes)\b[^.;]{0,40}\b(random|"
         r"fresh|new|uuid)\b", Idempotency.RANDOM_PER_ATTEMPT, "the key is new in some attempts"),
        # "+ the worker's boot id", "the instance id" (stop s13 attacks)
        (r"\b(hostname|host name|pid|process id|pod name|worker id|machine name|thread id|getpid|"
         r"boot ?ids?|instance ids?|incarnation (id|number)|"
         r"gethostname|thread ident|get ident|current thread|threading)\b|"
         # "prefixed with the name of the pod that sends it" (stop s13 attacks)
         r"\b(name|id|identity|address|ip|number)s? of the (current |sending |local |executing )?"
         r"(pod|host|machine|worker|process|container|node|thread|replica)\b",
         Idempotency.RANDOM_PER_ATTEMPT, "the key depends on which worker sends it"),
        (r"\b(plus|more|and|with|append\w*|add\w*|concatenat\w*|suffix\w*|salt\w*|mix\w* in)"
         r"( to it| it with)? (a |an |one )?(fresh |new |random |unique )*(random\w*|uuid ?4|uuid|"
         r"nonce|guid|salt)\b(?![^.;]{0,40}\b(once|stored|journal\w*|persist\w*|saved|kept|reused|"
         r"read back|same|one time|inside (the |its |that )?intent|in (the |its |that )?intent|"
         r"intent (record|row|entry)))", Idempotency.RANDOM_PER_ATTEMPT,
         "a random part is added to the key"),
        (r"\bhash\(\(|\bstr\(hash\(|\bpython'?s? (built ?in )?hash\b|\bpythonhashseed\b|\bbuilt ?in "
         r"hash\b", Idempotency.RANDOM_PER_ATTEMPT,
         "Python's hash() is salted per process: a restarted process makes another key"),
        (r"\b(generate|mint|create|make|draw|pick)\w* (a |an )?(fresh|new|different|random|another) "
         r"(idempotency )?(key|uuid|token|id)\b(?![^.;]{0,40}\b(once|per (logical )?operation|stored|"
         r"journal\w*|persist\w*|saved|kept|reused|same|one time|a single time|lives? in|with the "
         r"intent|in the (intent|journal)))", Idempotency.RANDOM_PER_ATTEMPT,
         "a new key is made for the resend"),
        # stop s13 attacks: a key made "once" per attempt, a counter bumped on every send, the
        # HTTP client's request number: each resend carries another key
        (r"\b(once|one time|a single time) (per|for (each|every)|on (each|every)|with (each|"
         r"every)|in (each|every)|each|every) (retry|attempt|try|resend|send|delivery|redelivery|"
         r"http (call|request)|request|time (we|it) (send|sends|retry|retries|tr(y|ies)))\b",
         Idempotency.RANDOM_PER_ATTEMPT, "a new key on every attempt"),
        (r"\b(bump|bumps|bumped|increment\w*|advance[sd]?|increase[sd]?|tick\w*|goes up|go up|"
         r"went up)\b[^.;]{0,30}\b(on|per|with|at|for|before|after) (every|each|a|any) (send|retry|"
         r"attempt|try|resend|request|call|http call|delivery|redelivery)\b",
         Idempotency.RANDOM_PER_ATTEMPT, "a counter in the key changes on every attempt"),
        (r"\b(http client|client|transport|connection|socket|session)'?s? (request |send )?(sequence|"
         r"seq|serial|counter|number|count)\b|\b(request|send|call|delivery)('?s)? (sequence|serial) "
         r"(number|no)\b|\b(send|request|delivery) (counter|count)\b",
         Idempotency.RANDOM_PER_ATTEMPT, "a number that changes with every request is in the key"),
        (r"regenerat\w* .{0,40}\b(each|every|per|on) (retry|attempt|try|resend)",
         Idempotency.RANDOM_PER_ATTEMPT, "regenerated on every retry"),
        (r"\b(sha ?256|hash|digest|hmac|key)\w*\W{0,3}[^.;)]{0,40}\b(attempt|try|retry)( ?(number|no|"
         r"n|count|counter|index|id))?\s?\)", Idempotency.RANDOM_PER_ATTEMPT,
         "the attempt number is part of the key"),
        (r"\bkey\W{1,3}(sha ?\d+|hash\w*|digest|hmac|uuid\d?)\(f?\W[^\n;)]{0,50}\b(retry|attempt|"
         r"resend)\b", Idempotency.RANDOM_PER_ATTEMPT, "a retry marker is part of the key"),
        (r"\b(fresh|new|current|latest|updated|re ?fetched)\b (\w+ ){0,2}(quote|price|amount|time|"
         r"timestamp|payload|data|state|inputs?)\b[^.;]{0,60}\b(recomput|recalculat|re ?deriv|"
         r"rebuil)\w*|\b(recomput|recalculat|re ?deriv|rebuil)\w*[^.;]{0,40}\bfrom (the |a )?(fresh|"
         r"new|current|latest|updated)\b", Idempotency.RANDOM_PER_ATTEMPT,
         "the key is recomputed from inputs that changed"),
        # stop s13 attacks: the attempt count in words ("how many times we have tried so
        # far"); a secret or salt in the key renewed at every process start
        (r"\bhow many (times|attempts|tries|retries)\b|\b(number|count) of (attempts|tries|"
         r"retries|times we)\b|\b(attempt|retry|try) (ordinal|sequence|serial|seq)\b",
         Idempotency.RANDOM_PER_ATTEMPT,
         "the attempt number is part of the key"),
        (r"\b(secret|salt|seed|pepper|nonce)s?\b[^.;]{0,40}\b(rotated|regenerated|changed|renewed|"
         r"re ?drawn|reset|new)\b[^.;]{0,30}\b(every|each|at|on|per|with (each|every)) (process "
         r"|worker |service |pod )?(start|restart|boot|deploy|startup|launch)\w*",
         Idempotency.RANDOM_PER_ATTEMPT, "the key changes when the process restarts"),
        (r"\b(changes?|is new|is bumped|differs|is regenerated) (with|on|at|after|for) (every|each|a|"
         r"any) (deploy\w*|re ?deploy\w*|restart\w*|release|boot|reboot|process start|upgrade)\b",
         Idempotency.RANDOM_PER_ATTEMPT, "a part of the key changes when the worker restarts"),
        (r"(attempt|retry|try) (number|counter|count|index|no)\b", Idempotency.RANDOM_PER_ATTEMPT,
         "the attempt number is part of the key"),
        (r"\b[a-z]\w*\.(attempt|retry count|retries|try count|attempt number)\b",
         Idempotency.RANDOM_PER_ATTEMPT, "the attempt number is part of the key"),
        (r"\b(date|hour|minute|time|clock)\b[^.;]{0,30}\b(of|at) the (moment|time) of (the )?(call|"
         r"send|request|attempt|retry)", Idempotency.RANDOM_PER_ATTEMPT,
         "the time of the call is part of the key"),
        # the attempt counter inside the key, in code ('f"{run_id}-{step}-{attempt}"', HELDOUT13)
        (r"\{ ?(self |ctx |call )?(attempt|attempts|retry|retries|try|tries|n attempts?|attempt (no|"
         r"num|number|count|n|idx|index)|retry (count|no|num|number|idx|index))( ?\+ ?1)? ?\}",
         Idempotency.RANDOM_PER_ATTEMPT, "the attempt number is part of the key"),
        # issue 17 HELDOUT11: the send time inside the key, in code ("sha256(order_id +
        # request_sent_at)") or in words ("hashed with the time the request is sent")
        (r"\([^()]{0,60}\b(sent|send|sending|request|requested|dispatch\w*|attempt\w*|retry|"
         r"retried|call|called|issued|submitted|posted) ?(at|time|ts|timestamp|date|moment|"
         r"epoch)\b[^()]{0,40}\)|\b(of|from|includes?|including|plus|and|with) (the )?(wall ?clock |"
         r"current |exact )?(time|"
         r"moment|instant|timestamp|clock time|second|minute)s? (when |at which |that )?(the |a "
         r"|each |this )?(request|call|charge|attempt|retry|it) (is |was |gets |got )?(sent|made|"
         r"issued|dispatched|fired|submitted|posted|goes out|leaves)\b|\bthe (wall ?clock |current |"
         r"exact )?(time|moment|instant|second|minute|timestamp) (when|at which) (the |a |each |this )?"
         r"(request|call|charge|attempt|retry|it) (is |was |gets |got )?(sent|made|issued|"
         r"dispatched|fired|submitted|posted|goes out|leaves)\b",  # "+ the second at which it
         Idempotency.RANDOM_PER_ATTEMPT, "the time of the send is part of the key"),  # goes out"
        # a part drawn anew each time the request goes out ("the salt is drawn fresh each time
        # the dispatcher fires the request"; stop s13 attacks)
        (r"\b(fresh|new|anew|random|unique|different)\w*\b[^.;]{0,30}\b(each|every) time\b[^.;]{0,30}"
         r"\b(send|sends|sent|fire|fires|fired|dispatch\w*|retr\w*|call|calls|goes out|posts?)\b",
         Idempotency.RANDOM_PER_ATTEMPT, "a part of the key is new on every send"),
        # the key made at the moment of sending ("a UUIDv7 generated by the HTTP client at send
        # time", "minted when the request goes out"): anew for every attempt (stop s13,
        # HELDOUT18); "made once, before the send, and journaled" is not read
        (r"\b(generat\w*|made|minted|created|assigned|drawn|produced|stamped)\b(?:(?!\b(once|"
         r"journal\w*|stored|persist\w*|saved|before)\b)[^.;]){0,50}\b(at send time|at (the )?"
         r"(time|moment) of (sending|the send|dispatch)|(when|as) (the request|the call|it) (is "
         r"sent|goes out|is dispatched))", Idempotency.RANDOM_PER_ATTEMPT,
         "the key is made at send time, anew for every attempt"),
        # issue 17 HELDOUT16/17 (stop s13): the hashed payload carries the clock ("key =
        # md5(run + step + body)  # body includes 'requested_at': time.time()"), and a new
        # identifier per attempt with a word between ("a new UUID per HTTP attempt"); a time
        # said to be journaled or fixed once is not read
        (r"\b(body|payload|args|arguments|params|parameters|request|data|inputs?|json|dict)\b"
         r"[^;\n]{0,40}\b(includes?|including|contains?|carr(y|ies)|has|holds?|with|plus)\b[^;\n]"
         r"{0,40}(time\.time|time\.monotonic|now\(\)|utcnow|datetime\.now|the current time|the "
         r"(send|request|attempt|call) (time|timestamp)|(requested|sent|sending|attempted) at\b)"
         r"(?![^.;]{0,40}\b(once|stored|journal\w*|persist\w*|saved|kept|frozen|fixed)\b)",
         Idempotency.RANDOM_PER_ATTEMPT, "the hashed payload carries the time of the attempt"),
        (r"\b(fresh|new|random|different|another)\b (\w+ ){0,3}(uuid|key|id|number|reference|token|"
         r"nonce|value)s?\b[^.;]{0,60}\b(per|on every|for every|for each|with each|at each|on each|"
         r"in each|every|each) (http|api|network|physical|individual|single|delivery|send|transport)"
         r" (attempt|retry|try|request|call)s?\b", Idempotency.RANDOM_PER_ATTEMPT,
         "a new key on every attempt"),
        # a time in an age test is not in the key ("miss and now() - sent_at < 24h: resend
        # with effect_key", "only if the intent's timestamp is inside the 24 h retention";
        # issue 17, stop s13, HELDOUT18): the time word followed by a comparison is not read
        (r"\b(key|token|id|uuid|nonce|it|recomput\w*|regenerat\w*|comput\w*|built|made|derived)s?"
         r"\b[^.;]{0,60}\b(timestamp|current time|time\.time|now\(\)|"
         r"datetime)" + _AN_AGE_TEST + r"|\b(timestamp|current time|time\.time|now\(\)|datetime)"
         + _AN_AGE_TEST + r"[^.;]{0,40}\b(key|"
         r"token|id)s?\b", Idempotency.RANDOM_PER_ATTEMPT,
         "the current time is part of the key"),
        (r"(never|not|n't) (\w+ ){0,2}(sen[dt]|pass\w*|includ\w*|forward\w*|attach\w*|hand\w*|"
         r"giv\w*|shar\w*|show\w*|reveal\w*|expos\w*)( it| the "
         r"key| them)?( along| on| through| over| out)? (to|with|in) (the )?(\w+ )?(provider|psp|"
         r"stripe|api|request|charge)",
         Idempotency.NONE, "the key is never sent to the provider"),
        (r"(provider|psp|stripe|api) (does not|doesn't|never|does never) (receive|see|get)s?",
         Idempotency.NONE, "the provider never receives the key"),
        (r"(never|not) (sent|send)\b(?! (a |the )?(new|fresh|random|different))",
         Idempotency.NONE, "the key is never sent"),
        (r"(stored|kept|saved) (\w+ ){0,3}(in|to) our (own )?(journal|db|database|store|table) "
         r"only|only in our (own )?(journal|db|database|store)", Idempotency.NONE,
         "the key stays in our own journal"),
        # issue 17 (stop s8): "the key never leaves our own database"
        (r"\b(key|token|uuid|reference)s? (\w+ )?(never|not|doesn't|does not|don't|do not) (ever )?"
         r"(leaves?|goes? out of|gets? out of|exits?) (our|the|its) (own )?(journal|db|database|"
         r"store|table|system|side|process|service|walls|premises)\b", Idempotency.NONE,
         "the key stays in our own journal"),
        (r"keep (it|the key|them) to (ourselves|itself|us)", Idempotency.NONE,
         "the key is kept to ourselves"),
        (r"carr(y|ies) no (idempotency )?key", Idempotency.NONE, "the request carries no key"),
    ),
    "resumeProtocol": (
        (r"\b(re ?send|retr|re ?tr|send again|re ?issu|re ?submit|repeat)\w* [^.;]{0,40}\b(first|"
         r"straight away|immediately|right away|at once)\b[^.;]{0,20}\b(then|afterwards|after "
         r"that|later|and after)\b", Resume.BLIND_RETRY, "the resend comes before the lookup"),
        (r"\b((is|are|gets|get|was) (?!(never|not|no)\b)(\w+ )?(re ?sent|resent|retried|resubmitted|re ?issued|sent "
         r"again|repeated|redone|charged again|fired again)|we (just |simply )?(re ?send|retry|send "
         r"again|charge again)( it| the charge| the call)?) (\w+ ){0,2}(straight away|immediately|"
         r"right away|at once|first thing|before anything else)\b", Resume.BLIND_RETRY,
         "the resend comes at once, before any lookup"),
        (r"\b(re ?sen[dt]|resent|retried|charged again|sent again|re ?issued|repeated)\w*[^.;]{0,60}"
         r"\b(once|after|when) (that|it|this|the resend|the retry|the charge) (returns|completes|is "
         r"done|comes back|succeeds)[^.;]{0,20}\b(look|check|ask|query|reconcil|verif)",
         Resume.BLIND_RETRY, "the lookup comes after the resend"),
        (r"\b(check|ask|look|query|consult|verif|confirm)\w* [^.;]{0,40}\b(after|afterwards|once) "
         r"(we |it )?(have |has )?(re ?sent|resend\w*|retried|sent again|repeated)",
         Resume.BLIND_RETRY, "the lookup comes after the resend"),
        (r"\b(look|ask|query|check|consult|reconcil)\w* [^.;]{0,60}\bonly (when|if) (an? |the )?"
         r"(operator|human|someone|admin|user|support|we have time|asked|requested|manually)",
         Resume.BLIND_RETRY, "the lookup runs only on request"),
        (r"\b(re ?send|re ?execut|retr|re ?tr|re ?run|re ?issu|re ?submit|send again|repeat)\w*"
         r"[^.;]{0,80}\b(later|afterwards|nightly|daily|weekly|after the fact|end of (the )?day|"
         r"once a day|next day)\b", Resume.BLIND_RETRY, "the lookup comes after the resend"),
        (r"\b(regardless of|irrespective of|no matter)( what)? (the |its )?(answer|result|response|"
         r"reply|it says|the provider says|outcome)|\b(resend|retr|re ?send|send again|charge "
         r"again)\w*[^.;]{0,30}\b(regardless|anyway|in any case|either way|no matter what)\b",
         Resume.BLIND_RETRY, "the resend does not depend on the lookup"),
        (r"\b(operator|human|someone|support|admin|a person)s?\b[^.;]{0,20}\b(look|check|query|ask|"
         r"verif|search)\w*[^.;]{0,40}\b(later|afterwards|after the fact|if (a |the )?customer|on "
         r"complaint|when (a |the )?customer)", Resume.BLIND_RETRY,
         "the lookup is left to a person, after the resend"),
        (r"\b(and|then|just|simply|we|they|it|sometimes|often) (skip|skips|bypass\w*|omit\w*|drop|"
         r"drops) (that|this|it|the (lookup|check|query|search|reconciliation)s?)\b",
         Resume.BLIND_RETRY, "the lookup is skipped sometimes"),
        (r"\b(do not|don't|never|without|doesn't|does not) wait\w* for (its|the|their|that|a) "
         r"(answer|lookup|response|reply|result)", Resume.BLIND_RETRY,
         "the resend does not wait for the lookup"),
        # a resend said to go out past the provider's key retention, after the lookup too
        # ("resend with the same key, even after 24 h", "no matter how old the intent is",
        # "under 24 h resend; otherwise resend too"): past the retention the provider has
        # forgotten the key, so a W3/W4 charge is made twice (coordinator's attacks, stop s12)
        (rf"{_RESEND}[^.;]{{0,60}}\b(even|also|still) (after|past|beyond|outside|over|when|once|"
         rf"if)\b[^.;]{{0,40}}({_RETENTION}|expir\w*|older|(it|they|the key|the intent)( is| are|"
         rf"'s)? old|(days?|weeks?|months?) (ago|later|old)|long ago|much later|a long time|"
         rf"(the )?(next|following) (day|week|month|morning)|a (week|month)|\d+ (days?|weeks?))(?![^.;]{{0,40}}\b(operator|escalat\w*|human|instead|ticket|manual\w*))",
         Resume.BLIND_RETRY, "the resend goes out past the key's retention"),
        # "... resend with the key, even 36 hours later" (stop s13 attacks): an age past 24 h
        (rf"{_RESEND}[^.;]{{0,60}}\b(even|also|still|as late as|up to) ((2[4-9]|[3-9]\d|\d{{3,}}) ?(hours?|"
         rf"hrs?|h)|(\d+|a few|several|many|two|three|a couple of) (days?|weeks?|months?))\b"
         rf"(?![^.;]{{0,40}}\b(operator|escalat\w*|human|instead|ticket|manual\w*))", Resume.BLIND_RETRY,
         "the resend goes out past the key's retention"),
        # "... resend with the key, long after the retention too" (stop s13 attacks)
        (rf"{_RESEND}[^.;]{{0,60}}\b(long|well|way|days|weeks|hours) (after|past|beyond|outside) "
         rf"(the )?(provider'?s? )?{_RETENTION}(?![^.;]{{0,40}}\b(operator|escalat\w*|human|"
         rf"instead|ticket|manual\w*))", Resume.BLIND_RETRY,
         "the resend goes out past the key's retention"),
        (rf"\b(after|past|beyond|outside|older than|over|at least)\b[^.;]{{0,20}}{_RETENTION}[^.;]"
         rf"{{0,40}}\b(still|also|just|simply|again|too) {_RESEND}", Resume.BLIND_RETRY,
         "the resend goes out past the key's retention"),
        (rf"({_RESEND}|\b(charge|bill|pay|submit|post|fire|send)\w* (it |them )?again)[^.;]{{0,90}}"
         rf"\b(no matter (how old|how long|when|the age|its age|how stale|how late)|"
         rf"regardless of (the |its )?(age|how old|how long|when)|however (old|long ago|stale|"
         rf"late|aged|dated)|at any (time|point|moment)|"
         rf"whatever (the |its )?age|at any age|of any age|however late|forever|indefinitely|"
         rf"however long (that|it|this) (takes|lasts))",
         Resume.BLIND_RETRY, "the resend goes out at any age, past the key's retention"),
        # a miss never resent, even inside the retention; a lookup that refunds and fails the
        # run (stop s12 attacks)
        (r"\b(not found|missing|no (record|match|hit|charge)|nothing (is )?found)\b(?:(?!\b(older|"
         r"past|after|beyond|over|24 ?h\w*|retention|day|window|expir\w*)\b)[^.;]){0,30}\b(we )?"
         r"(never|do not|don't|won't|will not) (re ?send|retry|resubmit|send (it )?again|charge "
         r"again)\b(?![^.;]{0,40}\b(after|past|beyond|older|once|unless|24 ?h)\b)",
         Resume.ESCALATE, "a miss is never resent, even inside the retention"),
        (r"\b(if |when )?found\b[^.;]{0,30}\b(refund|void|cancel|revers)\w*|\b(either way|in any "
         r"case|regardless|always|in both cases) (we )?(mark|fail|abort|give up|cancel)\w*",
         Resume.FAIL_AND_COMPENSATE, "the lookup's answer is refunded or failed, not recorded"),
        # "404: resend with k. The lookup is authoritative, so how long we were down doesn't
        # matter" (issue 17, HELDOUT12B)
        (rf"{_RESEND}[\s\S]{{0,120}}\b(how long|how old|how late|when we (come|came) back|age|"
         rf"delay|downtime|outage|length|duration|gap|time away)\b[^.;]{{0,40}}\b(doesn't|does not|"
         rf"don't|do not|won't|will not|never|can't|cannot) (really |ever )?matters?\b",
         Resume.BLIND_RETRY,
         "the resend goes out at any age, past the key's retention"),
        # the age said not to be looked at, after a resend ("If it returns nothing, resend with
        # the same key. No need to check how old the intent is."; issue 17, HELDOUT15)
        (rf"{_RESEND}[\s\S]{{0,160}}\b(no need to|never|don't|do not|doesn't|does not|we not|"
         rf"nobody|without) (\w+ )?(check\w*|look\w* at|consider\w*|compar\w*|test\w*|care\w* "
         rf"about|mind\w*|track\w*|inspect\w*|read\w*) (\w+ ){{0,2}}(how old|how long ago|the age|"
         rf"its age|their age|the intent'?s? age|the timestamp|when (it|the intent) was (written|"
         rf"made|created|journaled))\b(?! (of )?(the |its |a )?(result|receipt|response|reply|"
         rf"answer|cache|index)\b)",
         Resume.BLIND_RETRY, "the resend goes out at any age, past the key's retention"),
        (rf"\b(otherwise|else|if (it is |it's )?older|older|past it|after that)\b(?:(?!\b(not|"
         rf"never|no|don't|stop\w*|instead|escalat\w*|operator|human|ticket)\b)[^.;]){{0,30}}"
         rf"{_RESEND}[^.;]{{0,40}}\b(too|as well|also|anyway|all the same|regardless|the same "
         rf"way)\b",
         Resume.BLIND_RETRY, "both branches of the age test resend"),
        # issue 17 HELDOUT16 (stop s13): resends scheduled past the retention ("retry queue
        # with exponential backoff (max 48h), resend with the same key each time", "keep
        # retrying for three days"): the last resends go out after the key is forgotten
        (rf"{_RESEND}[^.;]{{0,60}}\b(max|maximum|up to|for up to|at most|for|over|during|until)\b "
         r"(about |roughly |around )?((2[5-9]|[3-9]\d|\d{3,}) ?(h|hrs?|hours?)\b|(\d+|two|three|"
         r"four|five|six|seven|several|a few|many) (days?|weeks?)\b|a week\b|weeks\b)",
         Resume.BLIND_RETRY, "the resends go on past the key's retention"),
        # stop s13 attacks: a resend said to go out at a late moment too ("resend with the
        # same key, whether the worker comes back in a minute or the next morning")
        (rf"{_RESEND}[^.;]{{0,80}}\b(whether|if|when|even if|even when|or|be it)\b[^.;]{{0,60}}\b(next "
         r"(morning|day|week)|tomorrow|(days?|weeks?) (later|since|after)|following (morning|day|week)|after a (weekend|week|long "
         r"outage|long weekend|holiday|vacation)|over the weekend|after (the )?(holidays|a long "
         r"weekend))\b(?![^.;]{0,40}\b(operator|escalat\w*|human|ticket|manual\w*|instead|not|"
         r"never)\b)", Resume.BLIND_RETRY, "the resend goes out at a late moment too, past the "
         "key's retention"),
        (r"\b(do not|don't|never|without|doesn't|does not) (look\w* at|check\w*|consider\w*|care "
         r"about|regard\w*|tak\w* into account) (how old|the age|its age|the intent'?s age|how long "
         r"ago)", Resume.BLIND_RETRY, "the resend ignores the intent's age, past the key's "
         "retention"),  # stop s13 attacks: "we do not look at how old the intent is"
        (_ALWAYS_SAFE, Resume.BLIND_RETRY,
         "the resend is said safe at any age: past the retention the provider has forgotten the "
         "key"),
        (_MISS_AS_PROOF, Resume.BLIND_RETRY,
         "a miss is taken as proof at any age: past the retention the provider has forgotten the "
         "key"),
        (r"\b(re ?send|retr|send again|charge again)\w*[^.;]{0,60}\bwhatever (the |its )?"
         r"(answer|result|response|reply|lookup|outcome|provider)", Resume.BLIND_RETRY,
         "the resend does not depend on the lookup"),
    ),
}
#: Sentences that ASSERT a mechanism is absent ("we have no journal", "nobody asks the
#: provider"): field -> (pattern, the choices it denies, why). A field (or a failure mode) that
#: names a mechanism and, elsewhere, denies it is a ``[contradiction]``; a denial in a
#: hypothetical clause ("if the intent were never written") or under a second negation ("never
#: resend without asking the provider") does not count.
_WRITTEN = r"(written|journaled|recorded|persisted|saved|stored|committed|logged|kept|inserted)"
_ANY_CP = frozenset({Checkpoint.INTENT_AND_RESULT, Checkpoint.RESULT_ONLY, Checkpoint.SNAPSHOT})
DENIALS: dict[str, tuple[tuple[str, frozenset[str], str], ...]] = {
    "checkpoint": (
        (r"\b(have|has|keep|keeps|use|uses|need|needs|there is|there are|with|got|run|runs) no "
         r"(journal|checkpoint|log|database|db|persistence|durable (state|storage)|storage|"
         r"disk|store|record|trace)s?\b(?! (entry|entries|row|rows|record|records|write|writes|"
         r"line|lines|id|ids|of (the|its|a) result|"
         r"call|calls))", _ANY_CP, "there is no journal"),
        (rf"\bnothing (is |gets |was |will be )?(ever )?{_WRITTEN}( down| anywhere| to disk| "
         r"durably)?\b(?! (before|until|first|ahead|prior|yet|till|in (w|the window)))", _ANY_CP,
         "nothing is written"),
        (r"\b(keeps?|stores?|saves?|writes?|persists?|holds?) nothing (on disk|durabl\w*|anywhere|to "
         r"disk)\b", _ANY_CP, "nothing is kept on disk"),
        (r"\b(never|don't|do not|doesn't|does not|we not) (journal|persist|checkpoint|save|store|"
         r"write|record|log)\w* (anything|a thing|any state)\b(?! (before|until|till|first))",
         _ANY_CP, "nothing is written"),
        (r"\b(journal|log|intents?|wal|writes?|rows?)\w* (is |are |gets |get )?(never|not) (\w+ )?"
         r"(fsynced|flushed|synced|durable|made durable)\b(?! (until|before|after|first|till))",
         _ANY_CP, "the journal is never made durable"),
        (r"\b(state|everything|intents?|journal|data|progress)\b[^.;,]{0,20}\b(only|purely|just|"
         r"entirely) in ([\w']+ ){0,2}(memory|ram)\b", _ANY_CP, "state is held only in memory"),
        (r"\b(intent|intention|pending row|outbox row|intent record|intent row)s? (is |are |gets "
         rf"|get |was )?(never|not) (\w+ )?{_WRITTEN}( down| anywhere| durably| to disk)?\b"
         r"(?! (until|before|after|only|first|till|yet|in memory until))",
         frozenset({Checkpoint.INTENT_AND_RESULT}), "the intent is never written"),
        (r"\b(never|don't|do not|doesn't|does not) (write|journal|record|persist|save|store|log|"
         r"commit)\w* (anything |it |the intent |an intent )?(before|ahead of|prior to) (the )?"
         r"(call|calling|charg|dispatch|send|request|pay)", frozenset({Checkpoint.INTENT_AND_RESULT}),
         "nothing is written before the call"),
        (r"\b(never|don't|do not|doesn't|does not) (journal|persist|record|save|store|write|log|"
         r"commit)\w* (the |any |an )?(intents?|intentions?)\b(?! (until|before|after|only|first|"
         r"till|yet))", frozenset({Checkpoint.INTENT_AND_RESULT}), "no intent is written"),
        (rf"\bno (intent|intention)s? (is |are |gets |get )?(ever )?{_WRITTEN}\b"
         r"(?! (until|before|after|only|first|till|yet))", frozenset({Checkpoint.INTENT_AND_RESULT}),
         "no intent is written"),
    ),
    "resumeProtocol": (
        (r"\b(nobody|no one|never|not|don't|do not|doesn't|does not|without|no need to)\b "
         r"(\w+ ){0,2}(asks?|asking|asked|quer\w*|check\w*|contact\w*|consult\w*|talks? to|"
         r"talking to|speaks? to|reach(?!ed\b)\w*|touch\w*|look\w* (it |"
         r"them )?up|search\w*|verif\w*|reconcil\w*) (\w+ )?(with |at )?(the )?(provider|psp|"
         r"stripe|gateway|processor|bank)", frozenset({Resume.REPLAY_AND_LOOKUP}),
         "the provider is never asked"),
        # issue 17 (HELDOUT15): the provider said not to be called while recovering ("we
        # never call the provider on recovery, though", "on a restart nobody pings the PSP");
        # a call said to come from another part ("never calls the provider directly: a relay
        # does"), not AGAIN or twice, or not before the lookup is not this denial
        (r"\b((on|during|when|while|after|upon|in) (a |the |any )?(recover\w*|resum\w*|restart\w*|"
         r"crash\w*|reboot\w*),? (\w+ ){0,2})?(nobody|no one|never|don't|do not|doesn't|does not|"
         r"won't|will not)\b (\w+ )?(call|calls|calling|ping|pings|pinging|hit|hits|hitting) (the )?"
         r"(provider|psp|stripe|gateway|processor|bank)\b(?!'?s? (\w+ )?(again|twice|back)\b)"
         r"(?! (\w+ ){0,3}(again|twice|a second time|before|until|till|without|unless|otherwise|"
         r"except)\b)(?(1)|(?= (\w+ ){0,2}((on|during|while|when|after|upon|in|at) (a |the |any )?"
         r"(recover\w*|resum\w*|restart\w*|crash\w*|reboot\w*)|at all)\b))",
         frozenset({Resume.REPLAY_AND_LOOKUP}), "the provider is never asked"),
        # issue 17 HELDOUT16 (stop s13): a bare "we never resend a payment automatically" (the
        # sentence ends there: "never resend without asking", "past 24 h we never resend" are
        # not read) in a field that then resends
        (r"(?:^|(?<=[.;\n]))\s*(we |it |the run |the worker |the agent |the system )?(never|do not|"
         r"don't|does not|doesn't|will not|won't) (re ?send|retry|resubmit|re ?charge|charge again)\w* (a |the |any )?"
         r"(payment|charge|call|request|it|anything|everything|them)?s?( again)?( automatically| on (our|its) own| by "
         r"(itself|ourselves))?\s*(?=[.;\n]|$)",
         frozenset({Resume.REPLAY_AND_LOOKUP, Resume.RETRY_WITHIN_RETENTION, Resume.BLIND_RETRY}),
         "a payment is never resent"),
        (r"\bno need (to|for) (\w+ ){0,4}(the )?(look ?up|lookup|reconcil\w*|status|search)\w*",
         frozenset({Resume.REPLAY_AND_LOOKUP}), "no lookup is needed"),
        (r"\b(lookups?|look ups?|checks?|quer(y|ies)|reconciliation)s? (is |are |gets |get )?(often "
         r"|sometimes |then )?(skipped|left out|omitted|dropped|optional|bypassed)",
         frozenset({Resume.REPLAY_AND_LOOKUP}), "the lookup is skipped"),
        (r"\b(provider|psp|stripe|gateway|processor|bank) (is |gets |are |will be )?(never|not) "
         r"(\w+ )?(asked|contacted|queried|checked|consulted|called|involved|touched)",
         frozenset({Resume.REPLAY_AND_LOOKUP}), "the provider is never asked"),
        (r"\b(provider|psp|stripe|gateway|processor|bank|api|it|they)\b[^.;]{0,15}\b(has|have|"
         r"offers?|provides?|exposes?|supports?) no (\w+ )?(lookup|search|query|status|get|read)\w*"
         r"( api| endpoint| call)?\b|\bno (lookup|search|query|status) (api|endpoint)s?\b",
         frozenset({Resume.REPLAY_AND_LOOKUP}), "the provider has no lookup"),
        # issue 17 (stop s8): the lookup said not to exist in other words: "offers no facility
        # for enquiring about a reference", "there is no way to ask it", "it cannot be queried"
        (r"\b(provider|psp|stripe|gateway|processor|bank|api|it|they)\b[^.;]{0,15}\b(has|have|"
         r"offers?|provides?|exposes?|supports?|gives?) no (\w+ ){1,2}(for|of|to) (\w+ )?(look\w* "
         r"(\w+ ){0,2}up|lookup|search\w*|quer\w*|enquir\w*|inquir\w*|ask\w*|check\w*|find\w*|"
         r"retriev\w*|fetch\w*|read\w*)|\b(there is|there's|we have|with) no (way|means|facility|"
         r"method|option) (to|of|for) (\w+ )?(look\w* (\w+ ){0,2}up|lookup|search\w*|quer\w*|"
         r"enquir\w*|inquir\w*|ask\w*|check\w*|find\w*|retriev\w*|fetch\w*)|\b(provider|psp|"
         r"stripe|gateway|processor|bank)\b (can ?not|can't|cannot) be (asked|queried|searched|"
         r"checked|enquired|inquired|consulted)\b", frozenset({Resume.REPLAY_AND_LOOKUP}), "the provider has no lookup"),
    ),
}
_SCOPE_ENDS = {"and", "then", "we", "it", "they", "but", "so", "which", "that"}
_MOMENT = re.compile(r"\b(crash\w*|dies|died|die|fails|killed|w[1-5]|yet|window|between|"
                     r"during)\b")
#: A record said to be missing at the provider ("the provider has no record"), not in our
#: journal: the subject ends the clause before a checkpoint denial.
_PROVIDER_HAS = re.compile(r"\b(provider|psp|stripe|gateway|processor|bank|api)'?s?( \w+){0,2}\s*$")
_HYPO_DENIAL = re.compile(r"\b(would|could|might|may|if|otherwise|unless|were|suppose|had|"
                          r"imagine|naive|naively|instead)\b")


def denial(field_name: str, t: str, choice: str, skip: tuple[int, int] = (-1, -1),
           about_a_crash: bool = False) -> tuple[str, str] | None:
    """The first assertive denial of ``choice`` in the normalised text ``t`` (outside the span
    ``skip``, the phrase that named the choice): (the phrase, why), or None. With
    ``about_a_crash`` (a failure mode), a clause about a crash or a window ("a crash in W1: the
    intent is not written yet") describes a moment, not the design, and does not count."""
    for pattern, denied, why in DENIALS.get(field_name, ()):
        if choice not in denied:
            continue
        for m in re.finditer(pattern, t):
            if skip[0] <= m.start() < skip[1] or m.start() <= skip[0] < m.end():
                continue
            clause = _CLAUSE.split(t[:m.start()])[-1]
            gap = m.group(0).split()[1:-2]
            if _HYPO_DENIAL.search(clause) or _HYPO_DENIAL.search(m.group(0)):
                continue
            whole = clause + _CLAUSE.split(t[m.start():])[0]
            if about_a_crash and _MOMENT.search(whole):
                continue
            if _FOR_OTHER_PARTY.search(clause + m.group(0)):
                continue  # "the booking API has no search": a limit of the other provider
            if field_name == "checkpoint" and _PROVIDER_HAS.search(clause):
                continue  # "resend only when the provider has no record": not our journal
            if m.group(0).split()[0] in _DETERMINERS and _SCOPE_ENDS & set(gap):
                continue  # "intents without a reply and queries the provider": scope ended
            said = (clause + m.group(0)).split()
            if sum(w in _NEGATORS or w.endswith("n't") for w in said) > 1:
                continue  # "never resend without asking the provider": a double negation
            return m.group(0), why
    return None


#: A crash placed after the call left (W3, W4): the provider has charged, the reply is lost or
#: not yet recorded. At that moment a journaled intent exists, so "nothing is written yet" there
#: denies it (issue 17, stop s8); before the intent (W1) the same words are true.
_AFTER_SEND = re.compile(
    r"\b(after|once|when|between|since) (the )?(provider|psp|bank|gateway|stripe|processor|api)"
    r"\w*( has| had)? (commit|charg|accept|process|succeed|took|execut|debit|captur|complet)\w*|"
    r"\b(after|once|when) (the |our |a )?(call|charge|request|payment)s? (is |was |has been |had "
    r"been )?(sent|made|dispatched|issued|out|left|succeeded|went through|goes through|accepted|"
    r"processed)\b|\b(reply|response|answer|receipt)s? (is |was |gets |got )?(lost|dropped)\b|"
    r"\bw[34]\b")
_BEFORE_INTENT = re.compile(r"\bw[12]\b|\bbefore (the |any |an |its )?(intent|pending|record|row|"
                            r"entry|journal|write|append|commit)")
_NOTHING_OF_THE_CALL = (
    rf"\bnothing\b( (about|of|for|on|regarding) (the |this |that |our |its )?(\w+ )?(call|charge|"
    rf"payment|request|operation|attempt|step)s?)?( (is|has|had|was|gets|got|will))?( (been|yet|"
    rf"ever|be))* {_WRITTEN}\b",
    r"\bno (record|trace|row|entry|intent|mark|note)s? (at all )?(of|about|for) (the |this |that |"
    r"its |our )?(\w+ )?(call|charge|payment|request)s?\b",
    rf"\b(intent|call|charge|request)s? (is |was |has |had |have )?(not|never) (yet )?(been )?"
    rf"{_WRITTEN}\b")


def denied_after_the_send(text: str) -> str:
    """The phrase of a failure mode saying nothing about the call is written at a moment after
    the call left ("a crash between the provider committing the charge and our write: at that
    point nothing about the call has been written yet"), or "". Only in a sentence that places
    its crash after the send and not before the intent; not in a hypothetical clause."""
    for sentence in re.split(r"[.;!?\n]", normalise(text)):
        if not _AFTER_SEND.search(sentence) or _BEFORE_INTENT.search(sentence):
            continue
        for m in (m for p in _NOTHING_OF_THE_CALL for m in re.finditer(p, sentence)):
            if not _HYPO_DENIAL.search(_CLAUSE.split(sentence[:m.start()])[-1]):
                return m.group(0)
    return ""


#: The mechanism a qualifier may undo (a qualifier about memory does not undo "none").
_UNDOES: dict[tuple[str, str], set[str]] = {
    ("checkpoint", Checkpoint.RESULT_ONLY): {Checkpoint.INTENT_AND_RESULT},
    ("checkpoint", Checkpoint.SNAPSHOT): {Checkpoint.INTENT_AND_RESULT, Checkpoint.RESULT_ONLY},
    ("checkpoint", Checkpoint.NONE): {Checkpoint.INTENT_AND_RESULT, Checkpoint.RESULT_ONLY,
                                      Checkpoint.SNAPSHOT},
    ("idempotency", Idempotency.RANDOM_PER_ATTEMPT): {
        Idempotency.DERIVED_KEY, Idempotency.STORED_KEY, Idempotency.CLIENT_REFERENCE},
    ("idempotency", Idempotency.NONE): {Idempotency.DERIVED_KEY, Idempotency.STORED_KEY},
    ("resumeProtocol", Resume.BLIND_RETRY): {Resume.REPLAY_AND_LOOKUP},
    ("resumeProtocol", Resume.ESCALATE): {Resume.REPLAY_AND_LOOKUP},
    ("resumeProtocol", Resume.FAIL_AND_COMPENSATE): {Resume.REPLAY_AND_LOOKUP}}
#: Fewer words than this in a field, and it is a label, not a description.
MIN_WORDS = 4


#: A checkpoint qualifier in a clause whose verb ends the step ("the worker acks the message
#: only after ...") is about that action, not about when the intent is written.
_END_OF_STEP = re.compile(r"\b(acks?|acked|acking|acknowledg\w*|delet\w*|remov\w*|releas\w*|"
                          r"replies|responds?|returns?|closes?|retires?)\b")
#: An idempotency qualifier in a sentence about another identifier that is said not to be the
#: key ("the trace id is NOT the key, because it is new per attempt") is about that identifier.
_OTHER_ID = re.compile(r"\b(trace|correlation|span|tracing|request|log|message|observability) "
                       r"ids?\b[^.;]*\b(not|isn't|never|separate from|besides|in addition to) "
                       r"(\w+ )?(the|our|an?) (idempotency |dedup |provider )?key\b")


#: A sentence that names an alternative only to reject it ("Python's hash() would be salted
#: per process, so we avoid that").
_REJECTED_ALTERNATIVE = re.compile(r"\b(would|could|might)\b[^.;]*\b(avoid\w*|wrong|reject\w*|"
                                   r"instead|rather than|not use|don't use)\b|\b(considered|"
                                   r"thought about|thought of|looked at|was tempted)\b[^.;]*\b(but|"
                                   r"so no|rejected|instead)\b")
#: A table row whose last cell says the thing named in it is not used ("| time / pid | no |").
_TABLE_NO = re.compile(r"\|\s*(no|never|not used|unused|excluded|none)\s*\|?\s*$")


#: A lookup's negative answer ("if not found, resend", "missing: ..."): it does not negate what
#: follows, and a qualifier that starts with it is about the miss.
_A_MISS = re.compile(r"\b((not|no|nothing) (is )?(found|there|present|known|seen|returned|listed|"
                     r"located|record|match|hit)|missing)\b")
_LATE_CASE = re.compile(r"\b(later|past|after|beyond|older( than)?|over)\b[^.;]{0,20}(\d+ ?h\w*|24|a day|"
                        r"one day|retention|the window)|(\d+ ?h\w*|a day|days?) (later|old)\b")


def _out_of_scope(field_name: str, t: str, m: re.Match[str]) -> bool:
    """A qualifier match that is about something else: another action, another identifier, or a
    rejected alternative."""
    start = max(t.rfind(".", 0, m.start()), t.rfind(";", 0, m.start())) + 1
    end = min([i for i in (t.find(".", m.end()), t.find(";", m.end())) if i >= 0] or [len(t)])
    sentence = t[start:end]
    if field_name == "resumeProtocol" and _A_MISS.match(m.group(0)) and _LATE_CASE.search(
            t[max(0, m.start() - 120):m.start()]):
        return True  # "resumed 25 h later? same lookup; if not found do not resend, escalate"
    if field_name == "resumeProtocol" and m.re.pattern == _MISS_AS_PROOF and (
            _A_REFERENCE.search(t) or (_AGE_BOUND.search(t) and not _LATE_SAID.search(
                t[max(0, start - 60):end]))):
        return True  # a miss bounded by age elsewhere in the field, or a reference searched
    if field_name == "resumeProtocol" and m.re.pattern == _ALWAYS_SAFE and (
            _A_REFERENCE.search(t) or _AGE_BOUND.search(t)):
        return True  # "a resend inside 24 h is always safe": the age is bounded in the field
    if _REJECTED_ALTERNATIVE.search(sentence):
        return True
    line_end = t.find("\n", m.end())
    if _TABLE_NO.search(t[t.rfind("\n", 0, m.start()) + 1:line_end if line_end >= 0 else None]):
        return True
    if _LEFT_OUT_BEFORE.search(t[max(0, m.start() - 40):m.start()]) and (
            _LEFT_OUT_AFTER.match(t, m.end()) or not _LEFT_OUT_BEFORE.search(
                t[max(0, m.start() - 40):m.start()]).group(0).startswith(("leav", "left", "kee"))):
        return True  # "we deliberately leave the attempt number out", "excluding the pid"
    if field_name == "checkpoint":
        clause = _CLAUSE.split(t[:m.start()])[-1]
        return bool(_END_OF_STEP.search(clause) or _NEXT_STEP.search(clause))
    if field_name == "idempotency":
        return bool(_OTHER_ID.search(sentence)) or bool(re.match(
            r"(never|not) sen[dt]\b", m.group(0)) and _A_CALL_NEVER.search(
            t[max(0, m.start() - 40):m.start()]))
    return False


#: A call, not the key, said never sent ("after 25 h even a call that was never sent gets
#: escalated"): what precedes the "never sent" qualifier when it is not about the key (stop s13,
#: HELDOUT19). "a key that is never sent" is still read.
_A_CALL_NEVER = re.compile(r"\b(call|charge|request|payment|booking|one|ones|effect|attempt)s? "
                           r"(that |which )?(was |were |is |are |has been |had been |have been )?"
                           r"(really |actually |in fact )?(even )?$")


#: An undoer said to be left out of the key, or a step other than the one the call is in ("the
#: booking step is dispatched only after the charge is confirmed").
_LEFT_OUT_BEFORE = re.compile(r"\b(leave|leaves|left|leaving|keep|keeps|kept|excluding|except|"
                              r"apart from|other than|never including|not including)\b[^.;]{0,14}$")
_LEFT_OUT_AFTER = re.compile(r"[\w ]{0,12}?\b(out|aside)\b")
_NEXT_STEP = re.compile(r"\b(the )?(booking|book|room|next|second|following|later) (step|call|"
                        r"activity|command)\b")




#: A negative pronoun as the subject of the clause before a qualifier ("nothing is held only in
#: memory", "nobody keeps it in RAM"): the qualifier is denied (issue 17, HELDOUT17).
_NOTHING_IS = re.compile(r"\b(nothing|none|no one|nobody)\b (is|are|was|gets|stays|remains|keeps?|"
                         r"holds?|lives?)( \w+){0,2}\s*$")


def _qualifier(field_name: str, t: str) -> tuple[str, str, str] | None:
    """The first qualifier of ``field_name`` in ``t`` that is not itself negated."""
    scope = _A_MISS.sub(lambda m: "x" * len(m.group(0)), t) if field_name == "resumeProtocol" \
        else t
    for pattern, choice, why in QUALIFIERS.get(field_name, ()):
        for m in re.finditer(pattern, t):
            if _out_of_scope(field_name, t, m):
                continue
            first = m.group(0).split()[0]
            if field_name == "checkpoint" and _NOTHING_IS.search(t[:m.start()]):
                continue  # "nothing is held only in memory across the call"
            if first in _NEGATORS or first.endswith("n't") or not _negated(scope, m.start(), 4):
                return str(choice), m.group(0), why
    return None


def qualifier(field_name: str, text: str) -> tuple[str, str, str] | None:
    """The first qualifier of ``field_name`` in ``text`` that is not itself negated: (the choice
    it describes, the phrase, why), or None. Used to read one field's claim in another field."""
    return _qualifier(field_name, normalise(text))


def clause_before(text: str, phrase: str) -> str:
    """What the clause of the normalised ``text`` says before the first occurrence of
    ``phrase`` (itself normalised text): the verb a qualifier such as "only when the answer
    comes back" modifies. '' when ``phrase`` does not occur."""
    t = normalise(text)
    at = t.find(phrase)
    return "" if at < 0 else _CLAUSE.split(t[:at])[-1]


def asserted_qualifier(field_name: str, text: str, about_a_crash: bool = False
                       ) -> tuple[str, str, str] | None:
    """:func:`qualifier` of ``field_name`` read in another field's ``text``, counted only in a
    sentence that asserts it: not a hypothetical ("if", "would", "otherwise"), and with
    ``about_a_crash`` (a failure mode) not a sentence describing a crash moment or a window."""
    for sentence in re.split(r"[.;!?\n]", normalise(text)):
        said = _qualifier(field_name, sentence)
        if said:  # the clause of the qualifier, not the whole sentence
            at = sentence.find(said[1])
            clause = _CLAUSE.split(sentence[:at])[-1] + _CLAUSE.split(sentence[at:])[0]
            if not (_HYPO_DENIAL.search(clause) or (about_a_crash and _MOMENT.search(clause))):
                return said
    return None


#: Claims one field makes that another field may deny (issue 17, HELDOUT8): the key is not
#: stored / is stored; a resend happens / never happens.
KEY_NOT_STORED = (r"\b(do not|don't|never|doesn't|does not|not) (store|save|keep|persist|journal|"
                  r"record|write)\w* (the |our |its |a |any )?(idempotency )?(key|uuid|token)s?\b",
                  rf"\b(key|uuid|token)s? (is |are )?(never|not) (\w+ )?{_WRITTEN}\b")
KEY_STORED = (rf"\b{_WRITTEN} (in|into|with|alongside|next to) (the |its |our |each |every )?(\w+ ){{0,2}}"
              r"(intent|journal|row|record|entry|table|column|db|database|outbox|message)",
              r"\b(stores?|saves?|journals?|persists?|records?|keeps?) (the |its |our )?key\b")
NO_RESEND = (r"\b(never|not|no|don't|do not|doesn't|does not) (\w+ )?(re ?send\w*|resent|retr(y|ies)|"
             r"charges? again|re ?charg\w*|re ?submit\w*)\b",)
RESENDS = (r"\b(we|it|the run|the worker|the agent) (\w+ )?(automatically |simply |just |then )?(re ?send|"
           r"resends|retry|retries|re ?charges?|charges? again|send it again|sends it again)\b",)


def asserted(text: str, patterns: tuple[str, ...], negative: bool = False) -> str:
    """The first phrase of ``patterns`` in ``text`` said as a fact: its clause has no
    hypothetical ("if", "would") and, unless the pattern is itself ``negative``, no negator
    scopes over it. '' when there is none."""
    t = normalise(text)
    for m in sorted((m for p in patterns for m in re.finditer(p, t)), key=lambda m: m.start()):
        clause = _CLAUSE.split(t[:m.start()])[-1]
        if _HYPO_DENIAL.search(clause) or (not negative and _negated(t, m.start(), 4)):
            continue
        return m.group(0)
    return ""


# -- stuffing: mechanism words without a predicate ------------------------------------------------

#: Mechanism words a stuffed answer lists (normalised text).
_BUZZ = re.compile(r"\b(write ahead|wal|journal\w*|outbox\w*|event sourc\w*|checkpoint\w*|"
                   r"snapshot\w*|fsync\w*|durab\w*|exactly once|idempoten\w*|deterministic\w*|"
                   r"dedup\w*|sha ?256|collision\w*|retry stable|reconcil\w*|look ?ups?|replay\w*|"
                   r"compensat\w*|saga\w*|escalat\w*|operator\w*|two phase|cdc|crash consistent|"
                   r"uncertain|refund\w*|same key|payload digest|intent\w*|transactional|uuid\w*|hmac|"
                   r"hash\w*|digest|nonce|run id)\b")
#: What makes a sentence a design rather than a list: an order, a condition, a composition.
_PREDICATE = re.compile(r"\b(before|after|then|when|whenever|once|until|till|if|unless|prior|"
                        r"ahead|while|from|per|each|every|only|again|never|no|not|at|via|into|"
                        r"against|derived|made|built|computed|reused|unchanged|stays|kept|stored|invariant|"
                        r"written|sent|carried|read)\b|\bacross (all |every |the )?(retr|attempt|tries|"
                        r"restart|resend)|\bby (the |its |that |our |a )?(\w+ )?(key|reference|ref|id|"
                        r"token)\b|\w\(|=|[;:]")
_DECORATOR = re.compile(r"@\w+(\([^)]*\))?")
#: A value computed in code from named parts ("key = sha256(run_id | seq | args)"), read in the
#: raw text (normalising drops the "=").
_ASSIGNED = re.compile(r"\b[A-Za-z_]\w*\s*:?=\s*[A-Za-z_][\w.]*\(\s*[\w'\"{f]")
_CODE_NOISE = re.compile(r"\bdef \w+\(\)\s*:\s*(\.\.\.|pass)?|#[^\n]*|\.\.\.")


#: A field that is one call, "name = f(a, b, c)" (coordinator's attacks, stop s12), and the
#: parts of a key a call may hash without being a list of mechanisms.
_ONE_CALL = re.compile(r"^\s*(?:[A-Za-z_][\w.]*\s*:?=\s*)?[A-Za-z_][\w.]*\((?P<args>[^()]*)\)\s*"
                       r"[.;]?\s*$")
_DATA_PART = re.compile(r"\b(run ?id|step|seq\w*|args?|arguments?|payload|params?|order ?id|amount|"
                        r"tool|name|attempt|key|id|index|number|currency|customer|digest)\b")


def _buzz_arguments(raw: str) -> list[str]:
    """The mechanism words passed as a whole field's one call's arguments ("resume =
    f(lookup, by key, resend, same key, 24 h, escalate)"), when three or more of its arguments
    name a mechanism rather than a part of a key; else []."""
    m = _ONE_CALL.match(raw)
    if m is None:
        return []
    args = [normalise(a) for a in re.split(r"[,|+]", m.group("args")) if a.strip()]
    named = [a for a in args if _BUZZ.search(a) and not _DATA_PART.search(_BUZZ.sub(" ", a))
             and not re.fullmatch(r"(run id|payload digest|digest|hash\w*|sha ?256)", a.strip())]
    return named if len(named) >= 3 else []


def stuffing(field_name: str, text: str) -> str:
    """Why ``text`` is a list of mechanism words rather than a design ('' when it is not): a
    list of short items, or a sentence naming four mechanism words (three, of different
    mechanisms) with no order, condition or composition (who writes what, when), or code that
    names mechanisms only in decorators, names and comments."""
    raw = text[:MAX_CHARS]
    if _DECORATOR.search(raw):
        rest = _CODE_NOISE.sub(" ", _DECORATOR.sub(" ", raw))
        if len(re.findall(r"[A-Za-z]\w*", rest)) < MIN_WORDS:
            named = ", ".join(m.group(0).split("(")[0] for m in _DECORATOR.finditer(raw))
            return (f"[contradiction] {field_name} names mechanisms only as decorators or "
                    f"comments ({named}) and does none of them: {QUESTIONS[field_name]}")
    listed_args = _buzz_arguments(raw)
    if listed_args:
        return (f"[contradiction] {field_name} passes mechanism words as the arguments of a call "
                f"({', '.join(listed_args[:5])}) without saying what is done, so no design can "
                f"be read: {QUESTIONS[field_name]}")
    t = re.sub(r"^(\w+ ){0,2}\w+: ", "", normalise(text))  # a leading "Idempotency:" label
    buzz = list(dict.fromkeys(m.group(0) for m in _BUZZ.finditer(t)))
    if len(buzz) < 2 or _PREDICATE.search(_BUZZ.sub(" ", t)):  # not the "once" of "exactly once"
        return ""
    if _ASSIGNED.search(raw):  # "key = sha256(run_id | seq | args)": a composition in code
        return ""
    items = [i.split() for i in re.split(r"[,;\n]| and | or ", t.rstrip(". ")) if i.strip()]
    listed = len(items) >= 4 and sum(len(i) <= 3 for i in items) >= 0.75 * len(items)
    kinds = {term.choice for term in VOCABULARY[field_name] if first_match(t, term.patterns)}
    if listed or len(buzz) >= 4 or (len(buzz) == 3 and len(kinds) > 1):
        return (f"[contradiction] {field_name} lists mechanism words ({', '.join(buzz[:5])}) "
                f"without a predicate, so no design can be read: {QUESTIONS[field_name]}")
    return ""


#: A "no key" said of another party's API ("the hotel API has no idempotency keys").
#: A sentence about another party's reference ("for the hotel, which has no idempotency
#: header, the same value goes into the client reference field"): not the charge's mechanism.
#: A key said to stay the same or to be deduplicated on: the key is the mechanism, a reference
#: beside it is for people ("we also attach the order number as metadata so support can find
#: the charge"; stop s12 attacks).
_KEY_KEPT_SAME = (r"\bkeys?\b[^.;]{0,80}\b(the same|unchanged|stable|identical|never changes)\b|"
                  r"\bdeduplicat\w* on\b")
_ONCE_AND_KEPT = re.compile(r"\b(generated|made|created|minted|assigned|drawn) (only )?once\b|"
                            r"\b(saved|stored|kept|journal\w*|persisted) (in|with|into)\b")
_FOR_OTHER_PARTY = re.compile(r"\b(hotel|airline|partner|booking (api|service|system))\b")
_OTHER_PARTY = re.compile(r"\b(hotel|booking|airline|other|second|legacy|partner|that|this|"
                          r"their) (\w+ )?(api|service|system|provider|endpoint)s?\b")


_BOOKING_ONLY = re.compile(r"\b(hotel|airline|partner|bookings|reservations|booking (api|service|"
                           r"system|provider|side|endpoint))\b")
_THE_CHARGE = re.compile(r"\b(charg\w*|pay\w*|psp|stripe|card|money|bill\w*|debit\w*|every|"
                         r"each|all|both|any)\b")


#: A lookup a person makes ("it goes straight to a human who checks the provider and
#: decides", "we page someone to go check the provider"): the run waits for that person, the
#: runtime looks nothing up (issue 17, HELDOUT12B; "to" at stop s13, HELDOUT19).
_PERSON_LOOKS = re.compile(r"\b(human|person|operator|someone|somebody|support|ops|on ?call|admin|"
                           r"staff|people|engineer|finance|accounting|back ?office|treasury)s?\b,? "
                           r"(?:[^.;]{0,40}\band |((who|that|then|will|can|must|has to|have "
                           r"to|to|should|manually|later|by hand|personally|first) )*)(check|look|quer|"
                           r"search|ask|verif|consult|inspect|reconcil|find|go)\w*[^.;]*")


#: A lookup in our own journal ("we look up every intent in our journal that has no result"):
#: the provider is not asked (stop s12 attacks).
_OWN_LOOKUP = re.compile(r"\b(look\w* up|search\w*|query|queries|check\w*|scan\w*|find\w*)\b"
                         r"(?:(?!\b(provider|psp|stripe|gateway|bank|api|processor)\b)[^.;]){0,40}\bin "
                         r"(our|the|its) (own )?(journal|log|db|database|table|store|records?)\b")


_OUR_READER_FINDS = re.compile(r"\b(projection|journal|log|event store|replay|store|reader|"
                               r"recovery|scanner|sweeper)s? (finds|sees|spots|detects|notices|"
                               r"lists)\b")


def _about_the_charge(t: str) -> str:
    """``t`` with every lookup that is not the runtime asking the charge's provider blanked: the
    sentences about only another provider ("The hotel API has a lookup, so unfinished bookings
    are looked up."; issue 17, HELDOUT11), a lookup a person makes (:data:`_PERSON_LOOKS`), one
    in our own journal (:data:`_OWN_LOOKUP`, :data:`_OUR_READER_FINDS`). Offsets are kept."""
    t = _PERSON_LOOKS.sub(lambda m: " " * len(m.group(0)), t)
    t = _OWN_LOOKUP.sub(lambda m: " " * len(m.group(0)), t)
    t = _OUR_READER_FINDS.sub(lambda m: " " * len(m.group(0)), t)
    return re.sub(r"[^.;!?\n]+", lambda m: " " * len(m.group(0)) if _BOOKING_ONLY.search(
        m.group(0)) and not _THE_CHARGE.search(m.group(0)) else m.group(0), t)


#: A sentence about a draft the learner has since changed ("My first draft saved the result
#: only after the call; I changed it.", "I had a UUID per request at first, which is wrong"):
#: a draft marker, and a change said in that sentence or the next (issue 17, HELDOUT13).
_DRAFT = re.compile(r"\b((my|our|the|an?) (first|earlier|previous|old|original|initial) (draft|"
                    r"version|design|attempt|idea|answer|thought|instinct|plan|take)|at first|"
                    r"originally|initially|i used to|we used to|before i (changed|fixed|revised)|"
                    r"i'?d started (with|by)|i (had )?started (with|by)|i first (thought|tried|"
                    r"had|wanted|wrote))\b", re.I)
#: Where, in a sentence about a draft, the design that replaces it begins ("My first idea was
#: X, but ..., so instead: the intent goes into the journal", "Final answer: ..."): what
#: follows is kept and read (stop s13, HELDOUT18).
_TURN = re.compile(r"\b(so instead|instead|final answer|my final answer|in the end|what i'?d "
                   r"(actually )?do|what i (would )?(actually )?do)\s*[:,]\s*", re.I)
_CHANGED = re.compile(r"\b(changed|dropped|replaced|wrong|fixed|no longer|now|instead|switched|"
                      r"removed|corrected|revised|scrapped|abandoned|mistake)\b", re.I)


#: An incident told before its fix ("Root cause: the retry loop minted a new key. Remediation:
#: ...", "Summary: we snapshotted state ... Action: journal every intent"): the design is what
#: follows the fix's label (issue 17, HELDOUT17).
_INCIDENT = re.compile(r"\b(root cause|incident|post ?mortem|what went wrong|summary|problem|"
                       r"before the fix)\b[^:\n]{0,40}:", re.I)
_REMEDY = re.compile(r"\b(remediation|action items?|actions?|fix|the fix|resolution|going forward|"
                     r"from now on|after the fix)\b[^:\n.]{0,12}:", re.I)


def without_drafts(text: str) -> str:
    """``text`` without its sentences about a draft the learner says they changed
    (:data:`_DRAFT`), and without an incident told before its remediation (:data:`_INCIDENT`,
    then :data:`_REMEDY`: only what follows the remedy's label is read); anything else
    unchanged."""
    if isinstance(text, str):
        incident = _INCIDENT.search(text)
        remedy = _REMEDY.search(text, incident.end()) if incident else None
        if remedy:  # the old design is cut off: nothing left to read as a draft
            return text[remedy.end():].strip()
    if not isinstance(text, str) or not _DRAFT.search(text):
        return text
    sentences = re.split(r"(?<=[.!?\n])\s*", text)
    kept = [x[_TURN.search(x).end():] if _DRAFT.search(x) and _TURN.search(x, _DRAFT.search(
        x).end()) else x for i, x in enumerate(sentences) if not (
        _DRAFT.search(x) and not _TURN.search(x, _DRAFT.search(x).end()) and (
            _CHANGED.search(x) or (i + 1 < len(sentences) and re.match(
                r"\s*(now|so now|today|these days)\b", sentences[i + 1], re.I))))]
    return " ".join(kept) if kept else text


def read_field(field_name: str, text: str) -> Reading:
    """Read a free-text answer of ``field_name`` into one vocabulary choice, or say why not.

    An intent read from a checkpoint is then checked for where it goes and when: held in
    process memory with nothing durable before the call (:func:`volatile_before_call`), or
    written in code only after the code calls the provider (:func:`code_calls_before_writing`),
    it is read as 'result only' and the note names the phrase. Sentences about a draft the
    learner says they changed are not read (:func:`without_drafts`)."""
    text = without_drafts(text)
    reading = read_vocabulary(field_name, text)
    if field_name != "checkpoint" or reading.choice != Checkpoint.INTENT_AND_RESULT:
        return reading
    t = normalise(text)
    volatile = volatile_before_call(t)
    late = "" if volatile else code_calls_before_writing(text)
    if not (volatile or late):
        return reading
    why = (f"'{volatile}' holds the pre-call record in process memory, lost with a crash"
           if volatile else f"the code runs '{late}' before it writes the intent")
    return Reading(field_name, text, str(Checkpoint.RESULT_ONLY), volatile or late, notes=(
        f"[contradiction] checkpoint: '{reading.evidence}' names '{reading.label}', but {why}: "
        f"read as 'result only, journaled after the call returns'",))


def read_vocabulary(field_name: str, text: str) -> Reading:
    """Read a free-text answer of ``field_name`` into one vocabulary choice, or say why not:
    :func:`read_field` without its checkpoint check of where the intent goes and when.

    The vocabulary finds candidate mechanisms (negation scoped per clause); a field naming
    several incompatible ones is a contradiction, not a design; a qualifier that undoes the
    mechanism found ("but only after", "kept in memory", "a new key on each retry", "never sent")
    decides, and the reading notes which phrase undid which; a label of fewer than
    :data:`MIN_WORDS` words is not read as a design.
    """
    t = normalise(text)
    if not t:
        return Reading(field_name, text, problem=f"{field_name} is empty")
    stuffed = stuffing(field_name, text)
    if stuffed:
        return Reading(field_name, text, problem=stuffed)
    hits = []
    own = _about_the_charge(t) if field_name == "resumeProtocol" else t
    for rank, term in enumerate(VOCABULARY[field_name]):
        where = own if term.choice is Resume.REPLAY_AND_LOOKUP else t
        m = first_match(where, term.patterns) or first_match(where, term.unguarded, guarded=False)
        if m is not None:
            hits.append((rank, m.start(), term, m.group(0)))
    choices = {h[2].choice for h in hits}
    if field_name == "idempotency" and len(choices) > 1 and any(
            h[2].choice is Idempotency.NONE and _OTHER_PARTY.search(
                _CLAUSE.split(t[:h[1]])[-1]) for h in hits):
        choices.discard(Idempotency.NONE)  # "the hotel API has no idempotency keys, so for it"
        hits = [h for h in hits if h[2].choice in choices]
    if len(choices) > 1 and Idempotency.CLIENT_REFERENCE in choices:
        choices.discard(Idempotency.NONE)  # "no idempotency key: a client reference" is one
        hits = [h for h in hits if h[2].choice in choices]
    keyed = choices & {Idempotency.DERIVED_KEY, Idempotency.STORED_KEY,
                       Idempotency.RANDOM_PER_ATTEMPT}
    if field_name == "idempotency" and Idempotency.NONE in choices and keyed:
        said = next(h[3] for h in hits if h[2].choice is Idempotency.NONE)
        other = next(h for h in hits if h[2].choice in keyed)
        return Reading(field_name, text, problem=f"[contradiction] idempotency says both "
                                                  f"'{said}' and '{other[3]}' "
                                                  f"({other[2].label}): which is it?")
    hedge = _HEDGED.search(t) if len(choices) >= 2 and field_name == "resumeProtocol" else None
    if hedge:
        return Reading(field_name, text, problem=f"[contradiction] resumeProtocol offers "
                                                  f"{len(choices)} mechanisms as alternatives "
                                                  f"('{hedge.group(0)}') without saying which "
                                                  f"applies when: {QUESTIONS[field_name]}")
    if len(choices) >= SOUP[field_name]:
        named = "; ".join(f"'{h[2].label}'" for h in hits)
        return Reading(field_name, text, problem=f"[contradiction] {field_name} names "
                                                  f"{len(hits)} different mechanisms that "
                                                  f"exclude each other ({named}); say which "
                                                  "one your design uses")
    vague = next((v for v in VAGUE if re.search(rf"\b{re.escape(v)}\b", t)), None)
    short = len(re.findall(r"\w+", t)) < MIN_WORDS  # "journal.write(intent)" is two words
    if short and vague:
        hits = []  # "retry on failure" names a word of the vocabulary, and says what, not how
    if hits and short and choices != {"none"}:  # "No idempotency key." is a whole answer
        return Reading(field_name, text, problem=f"{field_name} names '{hits[0][3]}' but does "
                                                  f"not say how it "
                                                  f"works (only {len(t.split())} word(s)): "
                                                  f"{QUESTIONS[field_name]}")
    within = resend_within_retention(t) if field_name == "resumeProtocol" and not short else None
    if within is not None and denial(field_name, t, str(Resume.REPLAY_AND_LOOKUP)):
        # "Stripe has no lookup by key, so we reconcile the Stripe way: repeat the identical
        # POST while the intent is under 24 h old" (issue 17, HELDOUT17): the field's own
        # denial says its "reconcile" is the resend, not a lookup
        hits = [h for h in hits if h[2].choice is not Resume.REPLAY_AND_LOOKUP]
    if within is not None and not any(h[2].choice is Resume.REPLAY_AND_LOOKUP
                                      and h[1] < within.start() for h in hits):
        return Reading(field_name, text, str(Resume.RETRY_WITHIN_RETENTION), within.group(0))
    if hits:
        if field_name == "resumeProtocol":  # a lookup decides; else the first action named
            lookup = [h for h in hits if h[2].choice is Resume.REPLAY_AND_LOOKUP]
            rank, _, term, phrase = lookup[0] if lookup else min(hits, key=lambda h: h[1])
            blind = first_match(t, (r"\bblind\w*",))
            if lookup and blind:
                return Reading(field_name, text, problem=f"[contradiction] resumeProtocol "
                                                          f"says both '{phrase}' and "
                                                          f"'{blind.group(0)}': a resend "
                                                          "either waits for the lookup or "
                                                          "it does not")
        else:
            rank, _, term, phrase = min(hits, key=lambda h: h[0])
            ref = [h for h in hits if h[2].choice is Idempotency.CLIENT_REFERENCE]
            ref = [h for h in ref if not _FOR_OTHER_PARTY.search(_sentence(t, next(
                re.finditer(re.escape(h[3]), t))))]
            if ref and term.choice in KEYS and not first_match(t, (_IDEM_KEY, _KEY_KEPT_SAME)):
                rank, _, term, phrase = ref[0]  # a reference built from run + step, not a key
            if (field_name == "idempotency" and term.choice is Idempotency.CLIENT_REFERENCE
                    and first_match(t, (r"\bas (the |an? |its |our )?(provider's )?" + _IDEM_KEY,))
                    and _ONCE_AND_KEPT.search(t)):  # "generated once, saved, sent as the key"
                term = next(x for x in VOCABULARY[field_name]
                            if x.choice is Idempotency.STORED_KEY)
        undo = _qualifier(field_name, t)
        if undo and undo[0] != term.choice and term.choice in _UNDOES.get((field_name, undo[0]), ()):
            choice, qphrase, why = undo
            label = next(x.label for x in VOCABULARY[field_name] if x.choice == choice)
            return Reading(field_name, text, choice, qphrase, notes=(
                f"[contradiction] {field_name}: '{phrase}' names '{term.label}', but "
                f"'{qphrase}' undoes it ({why}): read as '{label}'",))
        span = next(((m.start(), m.end()) for m in re.finditer(re.escape(phrase), t)), (-1, -1))
        denied = denial(field_name, t, str(term.choice), span)
        if denied:
            return Reading(field_name, text, problem=f"[contradiction] {field_name} says "
                                                      f"'{phrase}' ({term.label}) and also "
                                                      f"'{denied[0]}' ({denied[1]}): which is "
                                                      "it?")
        return Reading(field_name, text, str(term.choice), phrase)
    undo = _qualifier(field_name, t)
    if undo and not (short and vague):
        return Reading(field_name, text, undo[0], undo[1])
    if field_name == "checkpoint" and not short:
        order = ordered_write_before_call(t)
        if order:
            return Reading(field_name, text, str(Checkpoint.INTENT_AND_RESULT), order)
    if field_name == "resumeProtocol" and not short:
        asked = asked_before_resent(t)
        if asked:
            return Reading(field_name, text, str(Resume.REPLAY_AND_LOOKUP), asked)
    if field_name == "idempotency" and not short:
        choice, phrase = key_from_its_source(t)
        if choice:
            return Reading(field_name, text, choice, phrase)
    promised = list(dict.fromkeys(m.group(0) for m in _PROMISE.finditer(t)))
    hint = next((h for p, h in HINTS.get(field_name, ()) if re.search(p, t)), "")
    if promised:
        return Reading(field_name, text, problem=f"[contradiction] {field_name} promises "
                                                  f"({', '.join(promised[:4])}) and names no "
                                                  f"mechanism that delivers it"
                                                  f"{' (' + hint + ')' if hint else ''}: "
                                                  f"{QUESTIONS[field_name]}")
    said = (f"'{vague}' says what, not how" if vague else hint or
            "no mechanism of the vocabulary is named")
    return Reading(field_name, text, problem=f"{field_name}: {said}. A concrete answer names "
                                              f"one of: {terms_of(field_name)}")


#: What a buzzword answer promises instead of saying how ("a robust, ACID-compliant
#: persistence layer guarantees durable, consistent state"; HELDOUT13): read only in a field
#: where no mechanism was found.
_PROMISE = re.compile(r"\b(robust|guarantee[sd]?|acid( compliant)?|best practices?|industry "
                      r"standard|self healing|end to end|zero (data loss|downtime)|seamless\w*|"
                      r"bullet ?proof|enterprise grade|battle tested|at all times|fully "
                      r"automatic|always consistent|state of the art|cutting edge|world class|"
                      r"fault tolerant|highly available|resilient|best in class|bullet proof|"
                      r"(idempotency|industry|engineering) best practices?|by design)\b")


#: What happens past the retention, said as the other branch: "past 24 h ...", "at least 24 h
#: ...", or "if older", "older:", "otherwise", "else" (issue 17, HELDOUT11).
_PAST_IT = re.compile(
    rf"(\b(past|beyond|after|over|older than|outside|once|at least)\b[^.;]{{0,40}}({_RETENTION}|"
    r"\bit\b|\bthat\b|\bthis\b|\bthen\b|expir\w*)|\b(otherwise|else|older|staler|stale)\b)[^.]{0,160}\b(escalat\w*|operators?|humans?|manual\w*|ticket|alert\w*|"
    r"on ?call|a person|someone|support|ops|hand\w* (it |the run |them )?(over |to )|"
    r"\w+(human|operator)s?\b|\w+escalat\w*|"  # a code name: "raise NeedsHuman(intent)"
    r"park\w*|flag\w*|uncertain|unsafe|review|look\w* (\w+ ){0,3}up|lookup|(don't|do not|never|no longer|"
    r"not|no|stops?|stop) (\w+ )?(re ?send\w*|resent|retr\w*))")


_AGE = re.compile(r"\b(\d+(?:\.\d+)?) ?(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)"
                  r"(?= old\b)")
_COMPARED = re.compile(r"\b(under|over|less than|more than|at least|younger than|older than|below|"
                       r"above|within|past|beyond)\s*$")


#: A send written as a call in code ("send(intent)", "call(same key)"): in a resume protocol,
#: the resend (HELDOUT14).
_CODE_SEND = re.compile(r"\b(send|call|charge|post|submit|dispatch|execute|invoke|pay)\w* ?\([^()]{0,40}"
                        r"\)")


def _ages_as_retention(t: str) -> str:
    """An intent's age said as a number ("the intent is 5 min old -> resend; had it been 25 h
    old: no resend") as the comparison with the provider's 24 h it is ("under 24 h old", "over
    24 h old"); an age already compared ("under 24 h old") is kept (issue 17, HELDOUT12B)."""
    def said(m: re.Match[str]) -> str:
        if _COMPARED.search(t[max(0, m.start() - 16):m.start()]):
            return m.group(0)
        unit = m.group(2)[0]
        hours = float(m.group(1)) * {"s": 1 / 3600, "m": 1 / 60, "h": 1, "d": 24}[unit]
        return "under 24 h" if hours < 24 else "over 24 h"
    return _AGE.sub(said, t)


_YOUNG_RESENDS = (
    re.compile(rf"{_RESEND}[^.;]{{0,120}}?{_YOUNG}[^.;]{{0,40}}?({_RETENTION}|\bit\b|\bthat\b)"),
    re.compile(rf"{_YOUNG}[^.;]{{0,40}}?({_RETENTION}|\bit\b|\bthat\b)[^.;]{{0,80}}?(;"
               rf"[^.;]{{0,40}}?)?{_RESEND}"),
    # "resending the request with the persisted key; this is done only while the intent
    # is within the provider's retention period" (HELDOUT14)
    re.compile(rf"{_RESEND}[^.;]{{0,120}}?; (this|that|it|which) (is |gets )?(only |just )?(done|"
               rf"happens|allowed|applies|permitted|used)\b[^.;]{{0,20}}?{_YOUNG}[^.;]{{0,40}}?"
               rf"({_RETENTION}|\bit\b|\bthat\b)"),
    # the next sentence bounds the resend ("... is resent with the stored key. That only holds
    # while the provider remembers the key (24h), so if the intent is older we don't resend";
    # "This is safe only inside the 24 h window"; stop s13, HELDOUT18)
    re.compile(rf"{_RESEND}[^.;]{{0,160}}?[.;] (this|that|it|which|the resend|resending|a resend)"
               rf" (\w+ )?(only )?(holds|works|is safe|is correct|is true|applies|is valid|is "
               rf"fine|is ok|is sound|helps)\b[^.;]{{0,20}}?{_YOUNG}[^.;]{{0,40}}?({_RETENTION}|"
               rf"\bit\b|\bthat\b)"))


def _resends_when_young(t: str) -> Iterator[re.Match[str]]:
    """Every resend said to wait on a young intent, pattern by pattern, from each start in turn:
    a first resend said NOT to happen ("rows with no receipt are not resent blindly: the
    dispatcher re-sends the same key only while the row is younger than the provider's 24 h
    retention") does not hide the conditional one after it (issue 17, HELDOUT15)."""
    for pattern in _YOUNG_RESENDS:
        at = 0
        while (m := pattern.search(t, at)) is not None:
            yield m
            at = m.start() + 1


#: A resend said as the same request made again ("present the same cheque again", "repeat the
#: identical POST"), read as a resend by :func:`resend_within_retention` only (issue 17, s13).
_SAID_AGAIN = re.compile(r"\b(present|post|place|issue|fire|repeat|make|submit)\w* (the |it |that )?"
                         r"(same |identical |exact |very same )?(\w+ ){0,2}again\b|\brepeat\w* (the )?"
                         r"(identical|same|exact) (\w+ ){0,2}(post|request|call|charge|payment)\b")


def resend_within_retention(t: str) -> re.Match[str] | None:
    """A resend with the same key said to depend on the intent's age ("we resend with the same
    key while it is under 24 h old; past that we open a ticket"), read only when the answer also
    says what happens past the retention (escalate, do not resend, look it up). A same-key
    resend with nothing said past the retention is a blind retry. ``t`` is normalised text."""
    t = _ages_as_retention(t)
    t = _CODE_SEND.sub(lambda m: "resend".ljust(len(m.group(0))), t)  # "send(intent) # same key"
    t = _SAID_AGAIN.sub(lambda m: "resend".ljust(len(m.group(0))), t)  # "present it again"
    if re.search(r"\b(a|one|about a|for a) day\b", t):  # "once for about a day ... within
        t = re.sub(r"\b(that|the) day\b", "24h    ", t)  # that day ... after the day"
    if not re.search(_RETENTION, t):
        return None
    t = re.sub(r"(?<=[a-z_])\.(?=[a-z_])", " ", t)  # "resend(i.key) if now - i.at < 24*3600"
    # the first young resend followed by a past-retention branch: a match ending on a negated
    # resend ("while the provider remembers the key, ... we don't resend") does not hide a
    # later one (stop s13, HELDOUT18)
    m = next((m for m in _resends_when_young(t) if not _subject_kept(t, m.start())
              and _PAST_IT.search(t[m.end():])), None)
    if m is None:
        return None
    late = _qualifier("resumeProtocol", t)  # "otherwise we resend it too": no branch escalates
    return None if late and late[0] == Resume.BLIND_RETRY else m


_PASSIVE_AUX = {"is", "are", "was", "were", "gets", "get"}


def _subject_kept(t: str, start: int) -> bool:
    """:func:`_negated` for a passive resend, except a negator of the subject's participle ("an
    activity that never completed is retried"): an auxiliary after the negator ends its scope."""
    if not _negated(t, start):
        return False
    words = _CLAUSE.split(t[:start])[-1].split()[-3:]
    last = max(i for i, w in enumerate(words) if w in _NEGATORS or w.endswith("n't")) \
        if any(w in _NEGATORS or w.endswith("n't") for w in words) else -1
    return not (last >= 0 and _PASSIVE_AUX & set(words[last + 1:]))


#: What a field must answer, asked when an answer is too short to read.
QUESTIONS = {
    "checkpoint": "say WHEN the run's progress is written durably, relative to the tool call "
                  "(before it, after it, periodically, never)",
    "idempotency": "say what the key or reference is MADE OF and whether it changes between "
                   "attempts",
    "resumeProtocol": "say what a resumed run DOES with a call that was sent but whose result "
                      "was never recorded",
}


# -- the failure mode ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Claims:
    """What a failureMode / tradeOff names."""

    named: frozenset[str]  # outcome categories and limits named, as facts or possibilities
    asserted: frozenset[str]  # named as facts (no would/could/if in their clause)
    denied: frozenset[str]  # named under a negation ("prevents", "no duplicate")
    windows: frozenset[str]  # W1..W5 named or described
    #: outcomes named with a cause the sweep does not model ("if the search index lags, a miss
    #: becomes a duplicate charge", "a code path that skips the lookup charges twice"): a real
    #: risk of a design the sweep finds clean, not a claim about the swept design
    outside: frozenset[str] = frozenset()

    @property
    def concrete(self) -> bool:
        return bool(self.named or self.denied or self.windows)


#: A sentence about duplicate events or messages, not duplicate effects.
_OF_MESSAGES = re.compile(r"^(?!.*\b(charg\w*|payments?|bookings?|bill\w*|debit\w*|paid|twice)\b)"
                          r".*\b(events?|messages?|deliver\w*|cdc|notifications?|webhooks?|"
                          r"at least once)\b")


def _sentence(t: str, m: re.Match[str]) -> str:
    start = max(t.rfind(".", 0, m.start()), t.rfind(";", 0, m.start())) + 1
    end = min([i for i in (t.find(".", m.end()), t.find(";", m.end())) if i >= 0] or [len(t)])
    return t[start:end]


#: A denial said of the subject, further back than the negation window: "no run ever needs a
#: human", "not a single payment ends up with an operator" (HELDOUT10, stop s7).
_NO_SUBJECT = re.compile(r"\b(no|not a single|not one|none of the|never an?) (\w+ ){1,2}(ever |will |"
                         r"would |can |could )?(needs?|requires?|reach\w*|involv\w*|waits? for|"
                         r"goes to|go to|ends? up (with|in|at)|lands? (with|in|at))\b[^.;:]*$")


#: Nobody said to be needed, before a person or a hand-off in its clause ("nobody ever has to
#: touch a run by hand", "no one needs to step in"): a denial of the escalation (stop s13
#: attacks). Read only for the "stuck" category: "nobody notices the double charge" names it.
_NOBODY_NEEDED = re.compile(r"\b(nobody|no one|no human|no operator|no person|not a soul|never "
                            r"anyone)\b (\w+ ){0,2}(ever )?(has to|have to|needs? to|must|is needed|"
                            r"is required|gets? involved|steps? in|gets? paged|is paged)\b[^.;:]*$")
#: A person said to be kept out ("humans stay out of the loop entirely", "operators are kept
#: out of recovery"), read from the person's word on: a denial of the escalation (stop s13
#: attacks); "an operator steps in" is not.
_KEPT_OUT = re.compile(r"\w+ (\w+ ){0,2}(stay|stays|stayed|are kept|is kept|remain|remains|kept|keep|"
                       r"keeps) (\w+ )?out of\b")
#: The same denial with an aside between its subject and its verb ("no crash, however long the
#: outage, ever needs a person"), read on the sentence up to the claim (issue 17, stop s13).
_NO_SUBJECT_ASIDE = re.compile(r"\b(no|not a single|not one|none of the) (\w+ ){0,1}\w+, [^.;:,]"
                               r"{0,50}, (ever |will |would |can |could )?((needs?|requires?|"
                               r"reach\w*|involv\w*|waits? for|goes to|ends? up (with|in|at)|lands? "
                               r"(with|in|at))\b[^.;:,]*)?$")


#: A cause denied with its subject: "no window between the write and the reply can produce a
#: second charge", "nothing in this design leads to a lost payment" (issue 17, stop s13).
_NO_CAUSE = re.compile(r"\b(no|not a single|not one|none of the|nothing)\b [^.;:]{0,60}?\b(can|could|"
                       r"will|would|does|do|ever)? ?(produces?|causes?|leads? to|results? in|creates?|"
                       r"triggers?|gives?)\s(\w+ )?$")


#: A duplicate named as what something refuses or lets through ("nothing at the provider
#: refuses a second charge", "the provider accepts a second charge under one reference"): the
#: risk the design guards against, not an outcome it shows (issue 17, HELDOUT11).
_GUARDED_AGAINST = re.compile(r"\b(refus|reject|block|stop|catch|detect|accept|allow|permit|"
                              r"lets?|turn\w* away|dedup\w*)\w* (\w+ )?(a |the |any )?$|"
                              # stop s13 (HELDOUT19): "the search is the only thing standing
                              # between us and a double charge", "guards us against a duplicate"
                              r"\b(stand|stands|standing|stood) between (us|the customer|them|"
                              r"the user|the card|customers|users) and (a |the |any )?$|\b(protect|"
                              r"guard|shield|save|keep)\w* (us|the customer|customers|users?|them|the "
                              r"card) (from|against) (a |the |any )?$")
#: A failure named only as the worse choice ("I accept all that; a double charge is worse"):
#: a preference, not a failure the design claims (stop s13, HELDOUT19).
_WORSE = re.compile(r"^\w*\s*(\w+ ){0,2}(is|are|would be|'s) (far |much |even |a lot |way |still )?(worse|"
                    r"the (bigger|greater|worse|larger) (evil|problem|risk|harm))\b")


#: A failure mode that says it finds none ("I can't see a real failure mode or cost here"):
#: what the rest of its sentence names is denied, not named (issue 17, HELDOUT11).
_NONE_SEEN = re.compile(r"\b(can't|cannot|can not|don't|do not|couldn't|could not|unable to|fail "
                        r"to|failed to)\b (\w+ ){0,2}(see|find|think of|name|identify|spot|imagine|"
                        r"come up with)\b (a |an |any )?(single |real |actual |significant |"
                        r"meaningful |obvious |serious )?(failure|cost|downside|drawback|weakness|"
                        r"problem|risk|limit|issue|flaw)")
#: A wrong outcome said to be handed to a person ("an orphaned charge older than a day ends up
#: with an operator"): the escalation of a late recovery, not a wrong result the design claims.
_HANDED_OFF = re.compile(r"\b(operator|human|on ?call|support|a person|someone|manual\w*|by hand|"
                         r"escalat\w*|ticket)")
#: A sentence that tells a crash window's state ("W3 is the tricky window: the card was charged
#: but we never recorded the receipt"): what the window is, not a result the design leaves.
_A_WINDOW_TOLD = re.compile(r"\b(w[1-5]|window|crash\w*|tricky|dangerous|the moment)\b")
_A_CRASH_IF = re.compile(r"^\s*(if|when|whenever|should|in case)\b[^,;]{0,60}\b(crash\w*|dies|died|"
                         r"killed|restarts?|goes down|w[1-5])\b")
_MODAL = re.compile(r"\b(would|could|might|may|can|without|unless|didn't|did not|skip\w*|no lookup|"
                    r"were not|weren't|was not|wasn't|escalat\w*|operators?|support|humans?|hand\w*)\b")
#: A cause the sweep does not model (issue 17, HELDOUT13): a lagging or eventually consistent
#: search, a race between two workers, a code path or a bug that skips the protocol.
_OUTSIDE_THE_SWEEP = re.compile(
    r"\b(lag|lags|lagging|laggy|lagged|falls? behind|fell behind|behind (its|the) (writes|"
    r"inserts)|out of date|not up to date|eventual(ly)? consisten\w*|read after write|stale|not yet (visible|"
    r"indexed)|index(es|ing)? (is |are )?(behind|late|slow)|races?|racing|concurrent\w*|second "
    r"worker|two workers|another worker|both workers|bug|bugs|buggy|code path|skips? (the )?"
    r"(search|lookup|check|find)|skipped|misconfigur\w*|clock skew|split brain)\b")
#: A negated removal is a thing kept ("it doesn't get rid of operators").
#: A cost said to be negligible ("the overhead is negligible"): no cost named (stop s12 attacks).
_NEGLIGIBLE = re.compile(r"\b(negligible|minimal|insignificant|trivial|tiny|no real|practically "
                         r"no|virtually no|basically no|essentially no) (overhead|cost|latency|"
                         r"price|penalty|impact)\b|\b(overhead|cost|latency|price|penalty|impact)s? "
                         r"(is |are )?(negligible|minimal|insignificant|trivial|tiny|nothing|close "
                         r"to zero|near zero)\b")
_KEPT = re.compile(r"\b(doesn't|does not|won't|will not|can't|cannot|didn't|did not|never) (get rid "
                   r"of|remove|eliminate|do away with|take away|replace)\b")


#: Late or all recoveries said to settle themselves ("late recoveries are handled automatically
#: like any other"): a denial that any run is left for a person (stop s13 attacks).
_SETTLES_ITSELF = re.compile(r"\b(late|old|older|every|all|any)( \w+)? (recover\w*|intents?|runs?|"
                             r"crash\w*|resum\w*|cases?)( \w+)? (is |are |gets? )?(handled|settled|"
                             r"resolved|recovered|closed|finished) (fully |completely )?"
                             r"(automatically|on (its|their) own|by (itself|themselves)|without "
                             r"(a |any )?(human|person|operator))|"
                             # "even a resume two days later sorts itself out without anyone's
                             # help" (stop s13 attacks)
                             r"\b(sorts?|works?|straightens?|irons?) (itself|themselves) out\b|"
                             r"\bwithout (anyone|anybody|any human|a human|a person|an operator)'?s? "
                             r"(help|involvement|intervention|input)\b|"
                             # "recovery is fully hands-off at any age" (stop s13 attacks)
                             r"\b(hands ?off|unattended|zero ?touch)\b[^.;]{0,20}\b(at any age|always|"
                             r"however late|whatever|in every case|no matter)\b|\b(always|fully|"
                             r"completely|entirely) (hands ?off|unattended|zero ?touch)\b(?! (inside|"
                             r"within|under|for|until|up to|before)\b)")


def read_claims(text: str) -> Claims:
    t = normalise(text.replace("!=", " is not "))  # "unknown != never charged
    t = _KEPT.sub(lambda m: "keeps".ljust(len(m.group(0))), t)
    t = _NEGLIGIBLE.sub(lambda m: " " * len(m.group(0)), t)
    named, asserted, denied, windows, outside = set(), set(), set(), set(), set()
    # "a code path that skips the search charges twice": the skip is the cause, not a negation
    causes_blank = _OUTSIDE_THE_SWEEP.sub(lambda m: " " * len(m.group(0)), t)
    unseen = [(m.start(), m.end() + len(re.split(r"[.;!?\n]", t[m.end():])[0]))
              for m in _NONE_SEEN.finditer(t)]
    for cat, patterns in CLAIMS.items():
        for m in (m for p in patterns for m in re.finditer(p, t)):
            clause = _CLAUSE.split(t[:m.start()])[-1]
            after = _CLAUSE.split(t[m.end():])[0]
            if cat == "duplicate" and _OF_MESSAGES.search(_sentence(t, m)):
                continue  # "CDC is at-least-once, so the sender sees duplicates": not charges
            if any(a <= m.start() < b for a, b in unseen):
                denied.add(cat)  # "I can't see a real failure mode or cost here"
                continue
            # the sentence up to the claim, from its last '.', ';' or ':' ("not atomic: if the
            # charge ...")
            opened = max(t.rfind(".", 0, m.start()), t.rfind(";", 0, m.start()),
                         t.rfind(":", 0, m.start())) + 1
            before = t[opened:m.start()]
            if (_negated(causes_blank, m.start(), window=4) or _NO_SUBJECT.search(clause)
                    or (cat == "stuck" and (_NOBODY_NEEDED.search(clause) or _KEPT_OUT.match(
                        _CLAUSE.split(t[m.start():])[0])))
                    or _NOTHING_IS.search(clause)  # "nobody is ever paged" (stop s13 attacks)
                    or _NO_SUBJECT_ASIDE.search(before) or _NO_CAUSE.search(before)
                    or (cat != "limit" and _DENIED_AFTER.search(
                        after[:m2.start()] if (m2 := _OTHER_NOUN_CLAUSE.search(after)) else after))):
                denied.add(cat)
                continue
            named.add(cat)
            distributive = clause.split()[-1:] in (["per"], ["each"], ["every"], ["any"])
            passing = (_TEMPORARY.search(clause + t[m.start():m.end()] + after)
                       or (cat == "lost" and _UNTIL_SETTLED.search(_sentence(t, m))))
            conditional = _CONDITIONAL.search(_sentence(t, m)) or _CONDITIONAL.search(before)
            guarded = (cat == "duplicate" and (_GUARDED_AGAINST.search(clause) or _WORSE.match(
                after))) or (
                cat in ("wrong", "lost") and _HANDED_OFF.search(_sentence(t, m))) or (
                cat == "wrong" and _A_WINDOW_TOLD.search(_sentence(t, m)))
            if cat in ("duplicate", "lost", "wrong") and _OUTSIDE_THE_SWEEP.search(
                    _sentence(t, m)):
                outside.add(cat)
                guarded = True
            if not (_HYPOTHETICAL.search(clause) or distributive or passing or conditional
                    or guarded) or (cat == "timeless" and re.search(r"\beven (if|when|though)\b",
                                                                    clause)):
                asserted.add(cat)  # "even if it comes back days later, resending is safe"
            elif (conditional and not guarded and cat in ("duplicate", "lost")
                  and _A_CRASH_IF.search(_sentence(t, m))
                  and not _MODAL.search(_sentence(t, m))):
                asserted.add(cat)  # "if the worker crashes in W3 ..., the customer gets charged
                # twice": the sweep's own crash, said to charge twice (stop s12 attacks)
    for m in _SETTLES_ITSELF.finditer(t):
        if not _HYPOTHETICAL.search(_CLAUSE.split(t[:m.start()])[-1]):
            denied.add("stuck")  # "late recoveries are handled automatically"
    raw = text[:MAX_CHARS].lower()
    for a, b in re.findall(r"\bw([1-5])\s*(?:-|\u2013|\u2014|\.\.|to|through|until)\s*w?([1-5])",
                           raw):
        windows.update(f"W{i}" for i in range(int(a), int(b) + 1))
    windows.update(f"W{n}" for n in re.findall(r"\bw([1-5])\b", raw))
    for w, patterns in WINDOW_PHRASES.items():
        if first_match(t, patterns, guarded=False):
            windows.add(w)
    return Claims(frozenset(named), frozenset(asserted), frozenset(denied - named),
                  frozenset(windows), frozenset(outside))


# -- structural readings: what a field says in the order it says it (issue 17, stop s6) --------
#
# Tried last, when no vocabulary phrase named a mechanism and no qualifier undid one: the
# checkpoint is read from the ORDER of a durable write and the provider call ("append a record
# and wait until it is durable; only then talk to the provider", "claim row first, call
# second", "durable 'want' -> charge"); the key from WHAT IT IS COMPUTED FROM and whether it
# is said to stay the same ("worked out from which run and which step, so trying again gives
# the same tag"). Neither reads a word list of designs: a write whose clause speaks of the
# reply, or a call said to return or come after, is not read as an ordering.

_DURABLE_WRITE = re.compile(
    r"\b(append\w*|commit\w*|written|writes?|writing|persist\w*|sav(e|es|ed|ing)|stor(e|es|ed|"
    r"ing)|journal\w*|insert\w*|fsync\w*|flush\w*|durabl\w*|acknowledg\w*|ack'?d|acked|"
    r"record(s|ed|ing)?|logs|logged|logging|enqueu\w*|make|makes|made)\b")
_OUT_CALL = re.compile(
    r"\b(call|calls|calling|charg(e|es|ing)|pay|pays|paying|talk\w* to|ask\w* (the )?(bank|"
    r"provider|psp|gateway)|send(s|ing)?|post|invok\w*|dispatch\w*|hand\w* (the )?(task|"
    r"command|job)|executor|worker|relay|take the money|authori[sz]\w*|hit|hits|hitting|"
    r"messages|messaging|contacts)\b")  # "only then messages the gateway" (stop s13 attacks)
_OF_REPLY = re.compile(r"\b(answer\w*|repl(y|ies)|result\w*|response\w*|resp|receipt\w*|"
                       r"outcome\w*|completion|completed|confirmed|done|succeeded|says ok|"
                       r"returns?|returned|comes back|came back|charged|booked)\b")
#: "charge" naming a thing, not the call: "a 'charge' command", "activity charge started".
_NAMES_A_THING = re.compile(r"['{]|\s?(command|step|records?|events?|rows?|entry|intended|"
                            r"started|marker|id|activity|intent)\b")
_AFTER_CALL = re.compile(r"\b(after|once|when|until|whenever)\b(?! (this|that|which)\b)"
                         r"(\s\S+){0,3}\s*$")
_SEQUENCE = re.compile(r"\b(then|only then|only after|after this|after that|second|next|before|"
                       r"b4|wait\w*|once|first)\b|[;\n]")
_MEMORY = re.compile(r"\b(memory|in ram|ram|dict|variable|attribute|field of|cache|local)\b")


def _clause_at(t: str, start: int, end: int) -> str:
    return _CLAUSE.split(t[:start])[-1] + t[start:end] + _CLAUSE.split(t[end:])[0]


def ordered_write_before_call(t: str) -> str:
    """The phrase showing a durable write said to come before the provider call, or ""."""
    writes = [m for m in _DURABLE_WRITE.finditer(t)
              if not _negated(t, m.start()) and not _OF_REPLY.search(_clause_at(t, *m.span()))
              and not _MEMORY.search(_clause_at(t, *m.span()))]
    calls = [m for m in _OUT_CALL.finditer(t) if not _negated(t, m.start())
             and not _OF_REPLY.search(_CLAUSE.split(t[m.end():])[0][:25])
             and not _NAMES_A_THING.match(t, m.end())
             and not re.search(r"(['{(]|\b(for|per|every|each|any|want|the|an?))\s?$",
                               t[max(0, m.start() - 6):m.start()])]
    for c in calls:  # "before we ask the bank to take the money, we save a file"
        head = t[:c.start()]
        if re.search(r"\b(before|b4|prior to|ahead of)\s(\S+\s){0,3}$", head):
            sentence_end = min([i for i in (t.find(".", c.end()), t.find(";", c.end()))
                                if i >= 0] or [len(t)])
            w = next((w for w in writes if c.end() < w.start() < sentence_end), None)
            if w is not None:
                return t[c.start():w.end()]
    for w in writes:  # "append a record and wait until it is durable; only then call"
        start = max(t.rfind(".", 0, w.start()), t.rfind(";", 0, w.start())) + 1
        if any(start <= c.start() < w.start() and not re.search(r"\b(before|b4|prior)\b",
                                                                t[c.end():w.start()])
               for c in calls):
            continue  # "sends the charge request and, without waiting, appends": call first
        for c in (c for c in calls if w.end() < c.start() < w.end() + 240):
            if _AFTER_CALL.search(t[w.end():c.start()][-40:]):
                break
            if _SEQUENCE.search(t[max(0, w.start() - 25):c.start()]):
                return t[w.start():c.end()]
    return ""


_KEY_SOURCE = re.compile(r"\b(run|runs|run's|saga|orchestration|workflow\w*|order|step|row|"
                         r"event|message|command|version|activity\w*|operation|actor|actor's|"
                         r"sequence|seq)\b")  # "hash of actor id, sequence number" (s13)
_KEY_STABLE = re.compile(r"\b(the same|same (key|id|ref|tag|reference|value|string)|reuses?d?|"
                         r"reusing|fixed|unchanged|(not|never|n't|doesn't|does not) change\w*|"
                         r"identical|repeated|stable|constant|never mints?|pure functions?|"
                         r"deterministic\w*)\b")
_NOT_FROM_THE_RUN = re.compile(r"\b(random\w*|uuid\w*|nonce|seed\w*|memory|cached?|ram|"
                               r"clock|time ?stamp\w*|now\(\)|attempt (number|count)|pid)\b")
_KEY_MINTED = re.compile(r"\b(assigned once|generated once|created once|minted once|inserted|"
                         r"fixed (once|at) (the )?(event |row )?(is )?commit\w*|part of the "
                         r"(outbox|row|event|message|record))\b")


def key_from_its_source(t: str) -> tuple[str, str]:
    """(choice, phrase) when the key is said to come from the run (or a stored row) and to
    stay the same across attempts; ("", "") otherwise."""
    stable = next((m for m in _KEY_STABLE.finditer(t)
                   if m.group(0).startswith(("not", "never", "n't", "doesn")) or
                   not _negated(t, m.start())), None)
    source = _KEY_SOURCE.search(t)
    if stable is None or source is None or _NOT_FROM_THE_RUN.search(t):
        return "", ""
    minted = _KEY_MINTED.search(t)
    if minted:
        return str(Idempotency.STORED_KEY), minted.group(0)
    return str(Idempotency.DERIVED_KEY), t[min(source.start(), stable.start()):
                                            max(source.end(), stable.end())][:60]


_ASKS = re.compile(r"\b(ask\w*|quer\w*|check\w*|look\w* (it |the \w+ |them )?up|fetch\w*|"
                   r"retriev\w*|search\w*|enquir\w*|inquir\w*|get\b|status of|verif\w*)")
_RESENDS = re.compile(r"\b(re ?send\w*|re ?sent|re ?invok\w*|re ?submit\w*|re ?issu\w*|re ?post\w*|"
                      r"retr(y|ies|ied)|re ?tr(y|ies)|charg\w* (it )?again|\w+ again|re ?dispatch\w*|"
                      r"re ?execut\w*|creat\w*|charg\w*|send\w*)\b")
_ONLY_IF_ABSENT = re.compile(r"\b(if not|if no|if it (does not|doesn't|has not|hasn't)|not found|"
                             r"otherwise|only if|miss|unknown|nothing|none|absent|no (charge|"
                             r"match|record|hit))\b")


def asked_before_resent(t: str) -> str:
    """The phrase showing the provider is asked first and the call resent only when it has
    nothing ("asks the participant about that id; if not, it re-invokes"), or ""."""
    for a in _ASKS.finditer(t):
        if _negated(t, a.start()):
            continue
        for r in _RESENDS.finditer(t, a.end()):
            between = t[a.end():r.start()]
            if len(between) > 240:
                break
            if _ONLY_IF_ABSENT.search(between):
                return t[a.start():r.end()]
    return ""


# -- where the pre-call record goes, and in which order code does things (issue 17, s6) ------

_CALL_SITE = re.compile(r"(\w+\.)+(charge|call|pay|post|send|book|create)\w*\s?\(|\b(calls?|"
                        r"calling|charg(e|es|ing)|pay(s|ing)?|talk\w* to|send(s|ing)?) (the |our )?"
                        r"(provider|psp|bank|gateway|payment|card|api|stripe)\b")
_VOLATILE = re.compile(r"\b[a-z_]\w*\[\w*\] \w|\bself\.\w+ \w|\{\}|\bdict\[|\bcache\w*\b|"
                       r"\b(dict|dictionary|hash ?map)\b|"  # "the worker's pending dict" (s13)
                       r"\bno (disk )?i ?o\b|\b(flag|attribute|field|variable|property) (on|of) "
                       r"(the |an? )?(\w+ )?(object|agent|worker|instance|class|process)\b|\bin "
                       r"(the )?(\w+'s )?(local |process )?(memory|ram|heap)\b")
_DURABLE_PLACE = re.compile(r"\b(journal\w*|store\.\w+|db|database|disk|commit\w*|fsync\w*|"
                            r"sync\w*|flush\w*|append\w*|persist\w*|durabl\w*|sqlite|postgres|"
                            r"tables?|log|logs|wal|outbox|file)\b")


def volatile_before_call(t: str) -> str:
    """The phrase placing the pre-call record in process memory (a dict, an attribute, a local
    cache) when nothing durable is written before the call, or ""."""
    call = next((m for m in _CALL_SITE.finditer(t) if not _negated(t, m.start())), None)
    head = t[:call.start()] if call else t
    clauses = [c for c in re.split(r"[.;\n,()]", head) if not _OF_REPLY.search(c)]
    if any(_DURABLE_PLACE.search(c) for c in clauses):
        return ""
    return next((m.group(0) for c in clauses for m in [_VOLATILE.search(c)] if m  # "nothing
                 and not _NOTHING_IS.search(c[:m.start()])), "")  # stays only in RAM": denied


_CODE_CALL = re.compile(r"(\w+\.)+(charge|call|pay|post|send|book|create|request)\w*\(")
_CODE_WRITE = re.compile(r"(\w+\.)+(put|append|insert|write|save|add|log|record|execute|commit)"
                         r"\w*\(.*\b(intent|pending|planned|started|attempt|in ?flight|sending)")


def code_calls_before_writing(text: str) -> str:
    """In code lines, the call that runs before the first line writing the intent, or ""."""
    call_at = write_at = None
    for i, line in enumerate(text[:MAX_CHARS].lower().splitlines()):
        line = line.split("#")[0]
        if call_at is None and _CODE_CALL.search(line):
            call_at = (i, _CODE_CALL.search(line).group(0))
        if write_at is None and _CODE_WRITE.search(line):
            write_at = i
    if call_at and write_at is not None and call_at[0] < write_at:
        return call_at[1]
    return ""
