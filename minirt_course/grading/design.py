"""Grade ``designOutline()`` by running the design (module 05b). Course tooling, not runtime core.

The learner's outline (``checkpoint``, ``idempotency``, ``resumeProtocol``, plus ``failureMode``
or ``tradeOff``) is graded in two levels:

1. **Concrete**: every value is non-empty and describes a mechanism of the documented
   :data:`VOCABULARY`; a vague answer ("save the state"), a bare label ("lookup", under
   :data:`MIN_WORDS` words) or a field naming several exclusive mechanisms fails, and the
   feedback says precisely what could not be read and what a concrete answer says.
2. **Run**: the reading is a :class:`~minirt_course.scenarios.design_payment.Design`; minirt is built
   from it (a runtime variant per choice) and module 04's payment run is crashed in every
   window W1..W5 of the charge and of the booking, recovered at once and 25 h later (past the
   payment provider's key retention). The providers' ledgers decide: duplicate charge, lost
   effect, stuck run, or clean. A broken design's failure mode must name what happens; a clean
   design's may name ANY true cost or limit (an extra write, a lookup round trip, latency,
   storage, a dependency on the provider, the retention limit); one that claims a failure the
   sweep never shows, or a safety it refutes, or no cost at all, fails.

How a field is read (:mod:`.design_reader`; plain Python, no NLP library): the answer is
normalised and split into clauses (punctuation, "but", arrows); vocabulary patterns find
candidate mechanisms; a negation counts within its clause and a determiner's ("no", "without")
scope ends with its noun phrase; :data:`QUALIFIERS` that undo a mechanism ("only after the
provider answered", "kept in memory", "a new key on every retry", "never sent to the provider")
decide the reading and are reported as contradictions naming both phrases; a field listing
mechanism words without a predicate, or naming them only in decorators and comments, is
stuffing, a named contradiction; :func:`across_fields` reports a failure mode or resume protocol
that denies what another field says ("nothing is written until the charge returns", "re-sent
straight away"), and any field or failure mode that denies a mechanism another field names
(:data:`DENIALS` read in every other field: "the provider offers no facility for enquiring",
"we never write anything down"), including a crash placed after the call left said to find
nothing written (:func:`denied_after_the_send`); a failure mode claiming the provider
deduplicates however late is judged against the 25 h recoveries. ``passed`` requires every
property AND no contradiction.

HELDOUT6 + HELDOUT7 (140 blind outlines) split in five folds by name hash
(benchmarks/design_reader_folds.py): tuned on folds 0, 1, 2, 4 (116 outlines) and on batches
t13-t21 of tuning outlines; fold 3 (24 outlines) was kept out and measured once after that
tuning: good 7/11, bad 9/13 (the reader before it: 7/11 and 8/13), then fitted too. The batches,
each measured once before its fixes, scored good 5/7, 6/6, 2/3, 2/3, 5/5, 0/1, 4/5, 1/1, 3/4
and bad 7/10, 6/8, 2/7, 4/5, 4/4, 4/7, -, 4/4, 3/4 (t21 after fold 3 was fitted). Unseen wording still misreads about a third of the time.
HELDOUT8 (100 outlines written blind by a writer who read neither the reader nor any corpus)
measured once on that reader: good 29/50, bad failed 46/50 (44/50 naming the contradiction);
then its misses were fixed by class (a key written as an expression of the run id; the
write-then-call order in code; call-then-write and "the only write is the result"; undoers
rejected, contrasted or marked "no" in a table; a conditional failure; two cross-field
denials) and it was fitted: 100/100. Variants of those classes written afterwards in other
words (tests/test_design_outline.py) read 14/17 before their own fixes.
HELDOUT9 (100 more, written blind the same way, stop s5) measured once on the reader fitted to
HELDOUT8: good 24/50, bad failed 46/50; then fitted at stops s6 and s7 (structural readings of
a write ordered before the call and of a key computed from the run; in-memory intents; and a
design of its own, ``retry-within-retention``: a same-key resend said to depend on the intent's
age, escalating past the retention): 100/100. The blind good-pass rate fell set after set
(HELDOUT6 77%, HELDOUT7 68%, HELDOUT8 58%, HELDOUT9 48%) while bad-fail held at 77-92%; HELDOUT10
(30 outlines, stop s7, measured once on the reader fitted to HELDOUT9 but for its last class):
good 14/15, bad failed 14/15. At stop s8 the three HELDOUT9 contradictions that failed
without naming it (a lookup said not to exist, nothing written at a crash after the send, a
write said to wait for the reply) were fixed by that class (and "the key is never handed to
the provider" read in every field), with eight variants in other words (none named before)
and seven good outlines with a harmless "never"/"no" in tests/test_design_outline.py: every
stuffed or self-contradicting outline of every corpus now names its contradiction.
HELDOUT11 (68 outlines written blind by two writers, stop s8) measured once on the reader of
7c53922: good 22/34, bad failed 30/34; fitted at stop s11 by class (the past-retention branch
said "if older"/"otherwise" and the age as a comparison; a key made once and carried in an
event or the history; our own searchable reference as a client reference; a key in code among
mechanism words; the send time in the key; a resend "under a freshly generated key"; a
trade-off said as a burden; "I can't see a real failure mode"; an operator's hand-off of an
orphaned charge; a lookup only the other provider has; the key described in another field):
68/68, with variants of each class in other words (t22-*). At stop s12 three more blind sets
were each measured once on the reader of their moment, then fitted by class (variants t23-t25):
HELDOUT12B 13/18 good passed, 16/18 bad failed; HELDOUT13 10/21, 19/21; HELDOUT14 15/21, 21/21;
and a white-box attack's 23 wrong verdicts (ATTACKS12, 21 fitted). HELDOUT15 (42 outlines,
written blind) was measured once on the final reader of stop s12: good 15/21, bad 19/21; then
fitted at stop s13 by class (variants t26-*: a "never send before searching the provider"
double negation; "we never call the provider on recovery" beside a lookup; "no need to check
how old the intent is" after a resend; a conditional same-key resend after a negated one; a
failure mode's "until then the order is not booked" or "sits unfinished" as the wait, not a
loss; a dependency said as what correctness "rests on"; a search that "lagged"): 21/21 both
ways; a stranger's attack on that reader then found 20 wrong verdicts in 54 outlines (17 of
them bad ones passing), 19 fixed by class (t26-attack-*: a key made "once per attempt", a
counter bumped per send, the pod's name or thread; a resend "the next week", "even 36 hours
later" or "however stale"; "however long the outage, the provider will recognise the key",
"keeps keys for a week"; "nobody ever has to touch a run", "humans stay out of the loop";
"before we dial out"; "fresher than the PSP's key memory"; a pending dict); left: a journaled
intent with an in-memory mirror reads as three checkpoints. Unseen good wording is still refused as "no mechanism named" more
often than bad wording passes, so the typed answer form (a :class:`DesignOutline` choice, graded
exactly) is the reliable way to be read.

NLP measured, not adopted (benchmarks/design_reader_nlp.py, results/design_reader_nlp.json):
spaCy's blank English tokeniser with lookup lemmas for the negation scope (no trained model:
the official ones are not on PyPI) changed no verdict on the 498 fitted outlines, HELDOUT6 or
HELDOUT7 (80 blind outlines: this reader passes 27/40 good, fails 31/40 bad, 33/40 by verdict
alone). TF-IDF + logistic-regression models trained on the fitted corpora: alone they pass
nearly everything (bad fail 6/40); as a veto on the reader's passes (per-field) bad fail
rises to 33/40 and good pass drops to 26/40; filling fields this reader cannot read raises
good pass to 32-33/40 at equal or lower bad fail. None wins both ways on both blind sets.

Invariant: an unreadable field never passes and nothing is run for it; the reader never guesses
a choice the text does not name. Guarantees: deterministic; results are cached per interpreted
design (:func:`design_matrix`), so grading an outline whose design has run takes milliseconds.
Not guaranteed: that every English phrasing is read. Measured on outlines never used to tune
it (tests/design_corpus_heldout*.py, each set measured once before the fixes it prompted),
good outlines in new wording pass 82-85% of the time and bad ones fail 79-100% (HELDOUT5:
10/12 and 11/12); ten later batches written by the reader's author before running them
(design_corpus_tuning.py, t3- to t12-, each measured once, then fitted) measured good passing
6/10, 8/10, 8/8, 2/6 (an adversarial batch), 5/7, 4/6, 3/5, 7/8, 3/6, 4/5 and bad failing
10/11, 7/10, 9/12, 8/12, 6/10, 5/10, 6/10, 3/4, 4/6, 5/7 (50/71 good, 63/92 bad in all):
unseen wording still misreads, most often a bad design that says the right words.
A misread good answer gets feedback naming the field it could not read. Not graded:
the kill crash mode, concurrent workers, words outside the vocabulary.

Trust: nothing the learner returns is executed. An outline is a ``dict`` (or a
:class:`DesignOutline`: per field a mechanism choice, graded exactly, and a free-text detail);
keys and values are rebuilt as plain ``str`` (``str.__str__``, so a subclass's
``__eq__``/``lower`` never runs); any other type is refused naming the field and type. The free
text is exported for an instructor's manual grading by :func:`for_review`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from minirt.faults import SweepCell

from ..scenarios.design_payment import (
    RECOVERIES,
    Checkpoint,
    Design,
    DesignCell,
    Idempotency,
    Resume,
    sweep_design,
)
from .design_reader import (  # noqa: F401 - re-exported: the reader's names, as before the split
    CLAIMS,
    KEY_NOT_STORED,
    KEY_STORED,
    KEYS,
    MAX_CHARS,
    MIN_WORDS,
    NO_RESEND,
    QUALIFIERS,
    QUESTIONS,
    RESENDS,
    SOUP,
    VAGUE,
    VOCABULARY,
    Claims,
    Reading,
    Term,
    asserted,
    asserted_qualifier,
    clause_before,
    denial,
    denied_after_the_send,
    first_match,
    normalise,
    qualifier,
    read_claims,
    read_field,
    terms_of,
)

FIELDS = ("checkpoint", "idempotency", "resumeProtocol")
FAILURE_FIELDS = ("failureMode", "tradeOff")

#: What the drill's answer and plain cells may use when the learner's code runs out of kernel
#: (minirt_course.course.sandbox). The typed outline and its choices, the vocabulary table, the
#: exercise-2 outline (text the learner must read) and :func:`learner_grade` (the grader, with
#: the exercise-2 design's sweep withheld). Not :func:`grade_design_outline`,
#: :func:`duplicate_windows`, :func:`design_matrix` or any ``check_*``: each would hand over
#: the prediction's answer or run the hidden checks.
LEARNER_API = ("DesignOutline", "CheckpointChoice", "IdempotencyChoice", "ResumeChoice",
               "PREDICT_OUTLINE", "vocabulary_table", "learner_grade", "for_review")


# -- the structured form ------------------------------------------------------------------------

class CheckpointChoice(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    mechanism: Literal["intent-and-result", "result-only", "periodic-snapshot", "none"]
    detail: str = Field(min_length=1)


class IdempotencyChoice(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    mechanism: Literal["derived-key", "stored-key", "random-per-attempt", "client-reference",
                       "none"]
    detail: str = Field(min_length=1)


class ResumeChoice(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    mechanism: Literal["replay-and-lookup", "blind-retry", "retry-within-retention",
                       "fail-and-compensate", "escalate"]
    detail: str = Field(min_length=1)


class DesignOutline(BaseModel):
    """The structured form of an outline: each field a plain string or a choice + detail."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    checkpoint: str | CheckpointChoice
    idempotency: str | IdempotencyChoice
    resumeProtocol: str | ResumeChoice  # noqa: N815 - the exercise's own name
    failureMode: str = ""  # noqa: N815
    tradeOff: str = ""  # noqa: N815


_CHOICE_TYPES = (CheckpointChoice, IdempotencyChoice, ResumeChoice)


def _plain(where: str, value: Any) -> tuple[str | dict[str, str] | None, str]:
    """A value rebuilt from plain types: a str, a {mechanism, detail} dict, or a problem."""
    if isinstance(value, str):
        return str.__str__(value), ""
    if type(value) in _CHOICE_TYPES:
        return {"mechanism": str.__str__(value.mechanism), "detail": str.__str__(value.detail)}, ""
    if isinstance(value, dict):
        got = {str.__str__(k): v for k, v in dict.items(value) if isinstance(k, str)}
        mech, detail = got.get("mechanism"), got.get("detail", "")
        if isinstance(mech, str) and isinstance(detail, str):
            return {"mechanism": str.__str__(mech), "detail": str.__str__(detail)}, ""
        return None, (f"{where} must be a str or a mapping {{'mechanism': str, 'detail': str}}"
                      f"; its mechanism is {type(mech).__name__}, its detail "
                      f"{type(detail).__name__}")
    kind = type(value).__name__
    article = "an" if kind[:1].lower() in "aeiou" else "a"
    return None, f"{where} is {article} {kind}, not a str or a mapping {{mechanism, detail}}"


def _key(name: str) -> str:
    return re.sub(r"[\s_-]", "", name).lower()


def rebuild(outline: Any) -> tuple[dict[str, Any], list[str]]:
    """The outline as plain data (field -> str or {mechanism, detail}) and the problems found."""
    if type(outline) is DesignOutline:
        raw = {name: getattr(outline, name) for name in type(outline).model_fields}
    elif isinstance(outline, dict):
        raw = dict(dict.items(outline))
    else:
        return {}, [f"designOutline() returned {type(outline).__name__!r}; return a dict with "
                    f"{', '.join(FIELDS)} and failureMode (or tradeOff)"]
    wanted = {_key(f): f for f in (*FIELDS, *FAILURE_FIELDS)}
    out: dict[str, Any] = {}
    problems = []
    for k, v in raw.items():
        if not isinstance(k, str) or _key(str.__str__(k)) not in wanted:
            continue
        name = wanted[_key(str.__str__(k))]
        value, problem = _plain(name, v)
        if name in FAILURE_FIELDS and isinstance(value, dict):
            value, problem = None, f"{name} is a mapping; write it as a str"
        if problem:
            problems.append(problem)
        elif value is not None:
            out[name] = value
    return out, problems


def read_outline(outline: Any) -> tuple[dict[str, Reading], str, list[str]]:
    """Read every field: (readings of the three fields, the failure-mode text, problems)."""
    data, problems = rebuild(outline)
    readings: dict[str, Reading] = {}
    for name in FIELDS:
        value = data.get(name)
        if value is None:
            if not any(p.startswith(name) for p in problems):
                problems.append(f"{name} is missing")
            continue
        if isinstance(value, dict):
            readings[name] = _read_structured(name, value, problems)
        else:
            readings[name] = read_field(name, value)
    idem = readings.get("idempotency")
    if idem is not None and isinstance(data.get("idempotency"), str):
        readings["idempotency"] = _key_in_another_field(idem, data)
    failure = " ".join(str(data[f]) for f in FAILURE_FIELDS if isinstance(data.get(f), str))
    return readings, failure.strip(), problems


_KEY_HINT = "idempotency: a key, but not where it comes from"
_THAT_KEY = re.compile(r"\b(that|this|said|the aforementioned) (idempotency |dedup\w* )?key\b|\bthe "
                       r"key (above|mentioned|described|we (persist|record|journal|store|write))",
                       re.I)


def _key_in_another_field(idem: Reading, data: dict[str, Any]) -> Reading:
    """The idempotency field speaks of "that key" without saying what it is made of, and the
    checkpoint or resume field says it ("the record ... carries the idempotency key (run id,
    step number and a hash of the payload)"): the key is read from that field's sentences that
    name a key (issue 17, HELDOUT11). Anything else: ``idem`` unchanged."""
    if idem.choice or not idem.problem.startswith(_KEY_HINT) or not _THAT_KEY.search(idem.text):
        return idem
    for where in ("checkpoint", "resumeProtocol"):
        text = data.get(where)
        if not isinstance(text, str):
            continue
        said = " ".join(s for s in re.split(r"(?<=[.;!?\n])", text) if re.search(
            r"\b(idempotency |dedup\w* )?key\b", s, re.I))
        other = read_field("idempotency", said) if said else None
        if other is not None and other.choice and not other.problem and not other.notes:
            return Reading("idempotency", idem.text, other.choice,
                           f"{other.evidence}' in the {where} field, '{idem.text[:40]}")
    return idem


def _read_structured(name: str, value: dict[str, str], notes: list[str]) -> Reading:
    mech = re.sub(r"[\s_]+", "-", value["mechanism"].strip().lower())
    known = [str(t.choice) for t in VOCABULARY[name]]
    if mech not in known:
        return Reading(name, value["mechanism"], problem=f"{name}: mechanism {mech!r} is not "
                                                         f"one of {known}")
    if not value["detail"].strip():
        return Reading(name, value["detail"], problem=f"{name}: the detail is empty; say how "
                                                      f"'{mech}' is done")
    detail = read_field(name, value["detail"])
    if detail.choice is not None and detail.choice != mech:
        notes.append(f"[note] {name}: the detail reads as '{detail.label}', the mechanism says "
                     f"{mech!r}; the mechanism is used")
    return Reading(name, value["detail"], mech, f"mechanism {mech!r}")


# -- contradictions -----------------------------------------------------------------------------

_ON_INTENTS = (Resume.REPLAY_AND_LOOKUP, Resume.RETRY_WITHIN_RETENTION, Resume.ESCALATE,
               Resume.FAIL_AND_COMPENSATE)


def contradictions(d: Design) -> list[str]:
    """Choices that cannot work together, whatever the sweep shows (each one line)."""
    out = []
    if d.checkpoint is Checkpoint.NONE:
        out.append("[contradiction] replay without a journal: the resume protocol needs to know "
                   "what already happened, but the checkpoint is 'none', so a resumed run "
                   "starts from the top and asks the model again")
    elif d.resume in _ON_INTENTS and d.checkpoint is not Checkpoint.INTENT_AND_RESULT:
        out.append(f"[contradiction] the resume protocol acts on unresolved intents, but the "
                   f"checkpoint ('{d.checkpoint.value}') never journals an intent before the "
                   "call: after a crash in W3 nothing is unresolved, and the call simply runs "
                   "again")
    if d.resume is Resume.REPLAY_AND_LOOKUP and d.idempotency is Idempotency.NONE:
        out.append("[contradiction] lookup-based resume without any key or client reference: "
                   "there is nothing to look the charge up by")
    if d.resume is Resume.REPLAY_AND_LOOKUP and d.idempotency is Idempotency.RANDOM_PER_ATTEMPT:
        out.append("[contradiction] the lookup asks for the operation's key, but every attempt "
                   "sent a fresh random key: the provider never saw the key it is asked about")
    return out


#: A write said of our side, the verb a qualifier in another field modifies.
_WRITE_VERB = re.compile(r"\b(we|it|the worker|the runtime|the agent|the run) (only )?(write|writes|"
                         r"record|records|journal|journals|persist|persists|save|saves|store|"
                         r"stores|commit|commits|insert|inserts|log|logs|append|appends)\b")


#: A failure mode that says the key is new ("since the key is a fresh random UUID"), read
#: against an idempotency field whose key never changes (issue 17, HELDOUT13).
_FRESH_KEY_SAID = re.compile(r"\b(key|token|idempotency key)s? (is|are|was|gets?) (always |just "
                             r"|simply )?(a |an )?(fresh|new|random|different)( random)? (uuid|key|"
                             r"id|value|token|nonce|one)\b")


#: A short quoted phrase in a failure mode: a mention of words, not the learner's claim.
_QUOTED = re.compile(r"(?<![\w'])'[^'\n]{1,40}'(?![\w'])|\"[^\"\n]{1,40}\"")


def _consistent_with_no_key(idem: Reading, said: Reading) -> bool:
    """A failure mode read as 'no key' that agrees with the idempotency field: a client
    reference has no key ("no key means the provider won't catch our mistakes"), and a stored
    key lives only in our journal ("the key is only in our db")."""
    if idem.choice == Idempotency.CLIENT_REFERENCE:
        return True
    why = qualifier("idempotency", said.text)
    return idem.choice == Idempotency.STORED_KEY and why is not None and "our own journal" in why[2]


def across_fields(readings: dict[str, Reading], failure: str) -> list[str]:
    """What the failureMode/tradeOff (or the resume protocol) says about the design that another
    field denies."""
    out = []
    t = normalise(failure)
    idem = readings.get("idempotency")
    resume = readings.get("resumeProtocol")
    if idem is not None and idem.choice in (*KEYS, Idempotency.CLIENT_REFERENCE) and resume:
        said = qualifier("idempotency", resume.text)  # "resend it with a fresh key"
        if said and said[0] == Idempotency.RANDOM_PER_ATTEMPT and re.search(
                r"\b(key|uuid|id|nonce|reference|token)s?\b", said[1]):
            out.append(f"[contradiction] your resume protocol says '{said[1]}' ({said[2]}), but "
                       f"your idempotency field says '{idem.evidence}' ({idem.label})")
    if idem is not None and idem.choice in KEYS:  # "the key is never handed to the provider"
        for where in ("checkpoint", "resumeProtocol"):
            r = readings.get(where)
            said = (asserted_qualifier("idempotency", r.text) if r is not None and re.search(
                r"\b(key|token|uuid|reference)s?\b", r.text, re.I) else None)
            if said and said[0] == Idempotency.NONE and re.search(
                    r"\b(key|token|uuid|reference)s?\b", said[1] + " " + clause_before(
                        r.text, said[1])) and not any(said[1] in line for line in out):
                out.append(f"[contradiction] your {where} field says '{said[1]}' ({said[2]}), "
                           f"but your idempotency field says '{idem.evidence}' ({idem.label})")
    if idem is not None and idem.choice in (*KEYS, Idempotency.CLIENT_REFERENCE) and t:
        # a quoted phrase is a mention, not a claim ("I cannot tell 'never sent' from 'sent and
        # lost'"; issue 17, HELDOUT17)
        said = read_field("idempotency", _QUOTED.sub(" ", failure))
        if said.choice == Idempotency.NONE and _consistent_with_no_key(idem, said):
            pass
        elif said.choice in (Idempotency.RANDOM_PER_ATTEMPT, Idempotency.NONE) and not said.notes:
            out.append(f"[contradiction] your failure mode says '{said.evidence}', but your "
                       f"idempotency field says '{idem.evidence}' ({idem.label})")
    fresh = _FRESH_KEY_SAID.search(t) if idem is not None and idem.choice in KEYS else None
    if fresh and not any("your failure mode says" in line for line in out):
        out.append(f"[contradiction] your failure mode says '{fresh.group(0)}', but your "
                   f"idempotency field says '{idem.evidence}' ({idem.label})")
    check = readings.get("checkpoint")
    if check is not None and check.choice == Checkpoint.INTENT_AND_RESULT:
        for where, text in (("resume protocol", resume.text if resume else ""),
                            ("failure mode", failure)):  # "nothing is written until it returns"
            said = asserted_qualifier("checkpoint", text, about_a_crash=where == "failure mode")
            if said and said[0] != Checkpoint.INTENT_AND_RESULT and (re.search(
                    r"writ|journal|record|persist|sav|stor|commit|intent|memory", said[1])
                    or _WRITE_VERB.search(clause_before(text, said[1]))):  # "we write the
                # record only when the answer comes back": the verb before the qualifier
                out.append(f"[contradiction] your {where} says '{said[1]}' ({said[2]}), but "
                           f"your checkpoint field says '{check.evidence}' ({check.label})")
    if resume is not None and resume.choice == Resume.REPLAY_AND_LOOKUP and t:
        said = asserted_qualifier("resumeProtocol", failure)  # "re-sent straight away"
        if said and said[0] == Resume.BLIND_RETRY and re.search(
                r"straight away|immediately|right away|at once|first|before|after", said[1]):
            out.append(f"[contradiction] your failure mode says '{said[1]}' ({said[2]}), but "
                       f"your resume protocol says '{resume.evidence}' ({resume.label})")
    if check is not None and check.choice == Checkpoint.INTENT_AND_RESULT and t:
        costs = read_claims(failure)  # "the design adds no extra writes, so it is free"
        if "cost" not in costs.named and re.search(
                r"\b(is|it's|are|comes?) (essentially |basically |completely |totally )?free\b|"
                r"\bcosts? nothing\b|\b(adds?|needs?|has|with|requires?) no (extra |additional "
                r"|more )?(writes?|cost|overhead|latency)\b", t):
            out.append("[contradiction] your failure mode says the design costs nothing, but "
                       f"your checkpoint field says '{check.evidence}' ({check.label}): that "
                       "is a durable write before every call")
    # "since we do not store the key anywhere", the idempotency field storing it
    if idem is not None and idem.choice in KEYS and t and asserted(idem.text, KEY_STORED):
        said = asserted(failure, KEY_NOT_STORED, negative=True)
        if said:
            out.append(f"[contradiction] your failure mode says '{said}', but your idempotency "
                       f"field says the key is stored ('{idem.evidence}', {idem.label})")
    if resume is not None and t:  # "after 24h we never resend" / "after 24h we resend"
        never, resends = asserted(resume.text, NO_RESEND, negative=True), asserted(failure,
                                                                                   RESENDS)
        if never and resends:
            out.append(f"[contradiction] your failure mode says '{resends}', but your resume "
                       f"protocol says '{never}'")
    for name in ("checkpoint", "resumeProtocol"):  # "because the intent is never written"
        r = readings.get(name)
        if r is None or not r.choice:
            continue
        # a mechanism one field names and any other field denies ("there is no lookup", "we
        # never record anything"): the failure mode read as about a crash, a field as a claim
        others = [(f"{o} field", readings[o].text) for o in FIELDS
                  if o != name and o in readings and isinstance(readings[o].text, str)]
        for where, text in [("failure mode", failure), *others]:
            said = denial(name, normalise(text), str(r.choice),
                          about_a_crash=where == "failure mode") if text else None
            if said and not any(said[0] in line for line in out):
                out.append(f"[contradiction] your {where} says '{said[0]}' ({said[1]}), but "
                           f"your {name} field says '{r.evidence}' ({r.label})")
    if check is not None and check.choice == Checkpoint.INTENT_AND_RESULT and t:
        said_at = denied_after_the_send(failure)  # "in W3 nothing about the call is written"
        if said_at and not any(said_at in line for line in out):
            out.append(f"[contradiction] your failure mode says '{said_at}' at a crash after "
                       f"the call left, but your checkpoint field says '{check.evidence}' "
                       f"({check.label}): the intent is journaled before the call, so it is "
                       "there at that moment")
    if resume is not None and t:  # "past retention -> escalate" / "zero operator involvement"
        claims = read_claims(failure)
        hand_off = re.search(r"\b(escalat\w*|operators?|humans?|manual\w*|on ?call|tickets?|a "
                             r"person|support)\b", normalise(resume.text))
        if hand_off and "stuck" in claims.denied and "stuck" not in claims.named:
            out.append(f"[contradiction] your failure mode says no run is left for a person, but "
                       f"your resume protocol says '{hand_off.group(0)}'")
    return out


@lru_cache(maxsize=128)
def design_matrix(d: Design) -> tuple[DesignCell, ...]:
    """The sweep of one design (cached: every outline read as ``d`` reuses it)."""
    return sweep_design(d)


def as_sweep_cells(cells: tuple[DesignCell, ...], recovery: str = RECOVERIES[0]
                   ) -> list[SweepCell]:
    """One recovery's cells as :class:`minirt.faults.SweepCell` s (for :mod:`minirt.viz`)."""
    return [SweepCell("design", c.point, c.occurrence, "simulate", c.verdict())
            for c in cells if c.recovery == recovery]


_CATEGORY = {"duplicate effect": "duplicate", "lost effect": "lost", "stuck": "stuck",
             "wrong result": "wrong", "escalated": "stuck"}


def judge_failure_mode(claims: Claims, cells: tuple[DesignCell, ...]) -> str:
    """'' if the failure mode agrees with the sweep of the learner's own design, else why not."""
    failed = [c for c in cells if not c.ok]
    late = [c for c in cells if c.recovery == RECOVERIES[1] and c.outcome != "clean"]
    if "timeless" in claims.asserted and late:
        where = ", ".join(f"{c.window} ({c.outcome})" for c in late[:3])
        return (f"[failure-mode] you say the provider still deduplicates however late the run "
                f"resumes; recovered after 25 h (past its 24 h key retention) the sweep shows "
                f"{where}")
    seen = {_CATEGORY[c.outcome] for c in failed}
    escalated = any(c.outcome == "escalated" for c in cells)
    if failed:
        where = ", ".join(f"{c.window} ({c.outcome}, recovered {c.recovery})" for c in failed[:3])
        if claims.denied & seen:
            return (f"[failure-mode] you say your design prevents "
                    f"{', '.join(sorted(claims.denied & seen))}; the sweep shows it in {where}")
        if not (claims.named & seen):
            return (f"[failure-mode] your design breaks in {where}, but your failureMode/"
                    f"tradeOff does not name what happens there")
        bad_windows = {c.window.split()[0] for c in failed}
        if claims.windows and not claims.windows & bad_windows:
            return (f"[failure-mode] you name {', '.join(sorted(claims.windows))}; your design "
                    f"breaks in {', '.join(sorted(bad_windows))}")
        return ""
    if escalated and "stuck" in claims.denied:
        where = ", ".join(c.window for c in late[:3])
        return (f"[failure-mode] you say no run is left for a human, but recovered after 25 h "
                f"(past the provider's key retention) the sweep escalated {where} to an operator")
    impossible = {"duplicate", "lost", "wrong"} | (set() if escalated else {"stuck"})
    false = claims.asserted & impossible
    if false:
        return (f"[failure-mode] you state {', '.join(sorted(false))} as a failure of your "
                f"design, but the sweep shows none in any window")
    if "cost" in claims.named or (escalated and claims.named & {"limit", "stuck"}) \
            or claims.outside:  # "a lagging search index turns a miss into a double charge"
        return ""
    limit = ("or where it still needs a human (the sweep escalated some late recoveries)"
             if escalated else "")
    return (f"[failure-mode] your design survives every crash in the sweep; name what it costs "
            f"{limit}".strip())


# -- the grade ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class DesignGrade:
    """The grade of one outline. ``properties``: level1, no_duplicate, no_lost_or_stuck,
    failure_consistent (each worth a quarter of ``score``)."""

    passed: bool
    score: float  # Invariant: the mean of the four properties, in [0, 1]
    feedback: list[str]
    readings: dict[str, Reading]
    design: Design | None  # None when a field could not be read (nothing was run)
    cells: tuple[DesignCell, ...] = ()  # the sweep matrix of ``design``
    contradictions: list[str] = field(default_factory=list)
    properties: dict[str, bool] = field(default_factory=dict)

    def why(self, prop: str) -> str:
        """The first feedback line that explains why ``prop`` is not met (without its tag)."""
        if self.properties.get(prop, True):
            return ""
        if prop != "level1" and self.design is None:
            return "not run: some field names no mechanism of the vocabulary (see level 1)"
        wanted = {"level1": ("[level-1]",), "no_duplicate": ("duplicate effect",),
                  "no_lost_or_stuck": ("lost effect", "stuck -", "wrong result"),
                  "failure_consistent": ("[failure-mode]", "[level-1]")}[prop]
        line = next((f for f in self.feedback if any(w in f for w in wanted)), "not met")
        return re.sub(r"^\[[\w-]+\] ", "", line)

    def cell(self, window: str, recovery: str = RECOVERIES[0]) -> DesignCell:
        """The cell of ``"W3 charge"`` (or ``"W3 booking"``) for one recovery."""
        return next(c for c in self.cells if c.window == window and c.recovery == recovery)

    def windows(self, outcome: str, recovery: str = RECOVERIES[0], call: str = "charge"
                ) -> set[str]:
        """The windows (``{"W3", "W4"}``) of ``call`` whose outcome is ``outcome``."""
        return {c.window.split()[0] for c in self.cells
                if c.recovery == recovery and c.window.endswith(call) and c.outcome == outcome}

    def sweep_cells(self, recovery: str = RECOVERIES[0]) -> list[SweepCell]:
        """The matrix as :class:`minirt.faults.SweepCell` s, for :mod:`minirt.viz` pictures."""
        return as_sweep_cells(self.cells, recovery)

    def matrix(self) -> list[list[str]]:
        """Rows ``[window, outcome at once, outcome after 25 h]``."""
        rows: dict[str, list[str]] = {}
        for c in self.cells:
            rows.setdefault(c.window, [c.window]).append(c.outcome)
        return list(rows.values())

    def __str__(self) -> str:
        head = (f"{'PASSED' if self.passed else 'NOT PASSED'}  score {self.score:.2f}  "
                + "  ".join(f"{k} {'yes' if v else 'no'}" for k, v in self.properties.items()))
        design = [f"  {r.field}: {r.choice or '?'}" + (f"  (from '{r.evidence}')"
                                                       if r.choice else "")
                  for r in self.readings.values()]
        table = [f"  {'window':12} {RECOVERIES[0]:18} {RECOVERIES[1]}"] + [
            f"  {row[0]:12} {row[1]:18} {row[2]}" for row in self.matrix()]
        return "\n".join([head, *design, *(table if self.cells else []), *self.feedback])

    def _repr_markdown_(self) -> str:
        rows = "\n".join(f"| {' | '.join(r)} |" for r in self.matrix())
        table = (f"\n\n| window | {' | '.join(RECOVERIES)} |\n|---|---|---|\n{rows}"
                 if self.cells else "")
        design = "\n".join(f"- **{r.field}**: `{r.choice or '?'}`"
                           + (f" (from *{r.evidence}*)" if r.choice else "")
                           for r in self.readings.values())
        notes = "\n".join(f"- {line}" for line in self.feedback)
        return (f"**{'passed' if self.passed else 'not passed'}**, score {self.score:.2f}: "
                + ", ".join(f"{k} {'✓' if v else '✗'}" for k, v in self.properties.items())
                + f"\n\n{design}{table}\n\n{notes}")

    __repr__ = __str__


def _ledger(c: DesignCell) -> str:
    return "payments ledger: " + ("; ".join(c.charges) or "empty") + " | booking ledger: " + (
        "; ".join(c.bookings) or "empty")


def grade_design_outline(outline: Any) -> DesignGrade:
    """Grade one ``designOutline()`` result: read it, run it, judge it (module docstring).

    ``outline`` is a dict (or :class:`DesignOutline`) with ``checkpoint``, ``idempotency``,
    ``resumeProtocol`` and ``failureMode`` or ``tradeOff``; values are strings or
    ``{"mechanism": <vocabulary choice>, "detail": str}``. Never raises for a bad outline: every
    problem is a line of ``feedback``. Deterministic; idempotent (grading twice gives the same
    grade, and runs the sweep once).
    """
    readings, failure, problems = read_outline(outline)
    feedback = [p if p.startswith("[") else f"[level-1] {p}" for p in problems]
    feedback += [f"[level-1] {r.problem}" for r in readings.values() if r.problem]
    claims = read_claims(failure)
    if not failure:
        feedback.append("[level-1] failureMode (or tradeOff) is missing or empty: name the "
                        "crash window and outcome where your design breaks, or what it costs")
    elif not claims.concrete:
        feedback.append("[level-1] failureMode/tradeOff names no failure and no cost: a "
                        "concrete answer names a crash window (W1..W5), an outcome (duplicate "
                        "charge, lost effect, stuck run) or a cost (an extra journal write, a "
                        "lookup round trip)")
    level1 = not any(line.startswith("[level-1]") for line in feedback)
    runnable = len(readings) == 3 and all(r.choice for r in readings.values())
    props = {"level1": level1, "no_duplicate": False, "no_lost_or_stuck": False,
             "failure_consistent": False}
    inner = [r.problem for r in readings.values() if r.problem.startswith("[contradiction]")]
    inner += [n for r in readings.values() for n in r.notes] + across_fields(readings, failure)
    outcomes = sorted(claims.named & {"duplicate", "lost", "stuck", "wrong"})
    if len(outcomes) >= 3:
        inner.append(f"[contradiction] your failure mode names {', '.join(outcomes)} at once: "
                     "one design does not fail in every way; say which happens, where")
    if not runnable:
        feedback += [n for n in inner if not any(n in f for f in feedback)]
        feedback.append("[level-2] not run: the design cannot be built until every field names "
                        "a mechanism of the vocabulary")
        return DesignGrade(False, sum(props.values()) / 4, feedback, readings, None,
                           contradictions=inner, properties=props)
    d = Design(Checkpoint(readings["checkpoint"].choice),
               Idempotency(readings["idempotency"].choice),
               Resume(readings["resumeProtocol"].choice))
    cells = design_matrix(d)
    clash = inner + contradictions(d)
    feedback += [f"[interpreted] {r.field} = {r.label} (from '{r.evidence}')"
                 for r in readings.values()] + clash
    bad = [c for c in cells if not c.ok]
    props["no_duplicate"] = not any(c.outcome == "duplicate effect" for c in cells)
    props["no_lost_or_stuck"] = not any(c.outcome in ("lost effect", "stuck", "wrong result")
                                        for c in cells)
    for c in bad[:4]:
        late = (", past the provider's 24 h key retention" if c.recovery == RECOVERIES[1]
                else "")
        feedback.append(f"[sweep] crash in {c.window}, recovered {c.recovery}{late}: "
                        f"{c.outcome} - {c.detail}. {_ledger(c)}")
    if len(bad) > 4:
        feedback.append(f"[sweep] ... and {len(bad) - 4} more cell(s) that are not clean")
    if not bad:
        escalated = [c.window for c in cells if c.outcome == "escalated"]
        feedback.append("[sweep] clean in every window recovered at once" + (
            f"; recovered after 25 h (past the provider's key retention) the run escalated in "
            f"{', '.join(escalated)} with at most one charge" if escalated else
            " and after 25 h"))
    why = judge_failure_mode(claims, cells) if failure else "[failure-mode] missing"
    props["failure_consistent"] = level1 and not why
    if why and failure:
        feedback.append(why)
    passed = all(props.values()) and not clash
    return DesignGrade(passed, sum(props.values()) / 4, feedback, readings, d, cells, clash,
                       props)


# -- the drill's hidden tests -------------------------------------------------------------------

def _call(design_outline: Any) -> tuple[Any, str]:
    try:
        return design_outline(), ""
    except Exception as exc:  # learner code
        return None, f"designOutline() raised {type(exc).__name__}: {str(exc)[:160]}"


def _check(design_outline: Any, prop: str, name: str) -> list[str]:
    out, err = _call(design_outline)
    if err:
        return [f"[{name}] {err}"]
    grade = grade_design_outline(out)
    again = grade_design_outline(_call(design_outline)[0])
    if again.design != grade.design:
        return [f"[{name}] designOutline() reads as a different design on each call"]
    return [f"[{name}] {grade.why(prop)}"] if not grade.properties[prop] else []


def check_level1(design_outline: Any) -> list[str]:
    """Every field present, non-empty and naming a vocabulary mechanism; a failure mode named."""
    return _check(design_outline, "level1", "level-1")


def check_no_duplicate(design_outline: Any) -> list[str]:
    """The design, run under the sweep, never leaves two charges or two bookings."""
    return _check(design_outline, "no_duplicate", "no-duplicate")


def check_no_lost_or_stuck(design_outline: Any) -> list[str]:
    """The design never loses the order, never leaves a run stuck that a lookup could settle,
    and never leaves a failed run with a charge standing."""
    return _check(design_outline, "no_lost_or_stuck", "no-lost-or-stuck")


def check_failure_mode(design_outline: Any) -> list[str]:
    """The failureMode/tradeOff agrees with what the sweep of the learner's own design shows."""
    return _check(design_outline, "failure_consistent", "failure-mode")


_TAG = re.compile(r"^\[[\w-]+\] ")


def check_passed(design_outline: Any) -> list[str]:
    """The whole outline passes: concrete, clean in the sweep, a true failure mode, and no
    contradiction between or inside its fields (a keyword-stuffed outline fails here)."""
    out, err = _call(design_outline)
    if err:
        return [f"[design] {err}"]
    grade = grade_design_outline(out)
    if grade.contradictions:
        first = _TAG.sub("", grade.contradictions[0])
        return [f"[design] your outline contradicts itself: {first}"]
    if not grade.passed:
        failed = [k for k, v in grade.properties.items() if not v]
        return [f"[design] not passed ({', '.join(failed)}): {grade.why(failed[0])}"]
    return []


def for_review(outline: Any) -> str:
    """The outline's free text, laid out for an instructor's manual grading (rubric in the
    drill): each field as written, how it was read, and the failure mode. Never raises."""
    readings, failure, problems = read_outline(outline)
    lines = ["designOutline(), for review:"]
    for name in FIELDS:
        r = readings.get(name)
        if r is None:
            lines.append(f"- {name}: (missing)")
            continue
        read = f"read as '{r.label}'" if r.choice else "not read"
        lines.append(f"- {name} ({read}): {r.text}")
    lines.append(f"- failureMode/tradeOff: {failure or '(missing)'}")
    return "\n".join(lines + [f"  note: {p}" for p in problems])


def learner_grade(outline: Any) -> DesignGrade:
    """:func:`grade_design_outline` as the learner's own cells may call it out of kernel: the
    same grade, except that for the design of exercise 2 (:data:`PREDICT_OUTLINE`) the sweep
    cells are withheld, so the grader cannot be asked for the prediction's answer."""
    grade = grade_design_outline(outline)
    if grade.design is not None and grade.design == grade_design_outline(PREDICT_OUTLINE).design:
        return DesignGrade(grade.passed, grade.score, [
            f for f in grade.feedback if not f.startswith(("[sweep]", "[failure-mode]"))] + [
            "[sweep] withheld: this is the design of exercise 2; record your prediction, then "
            "the graded cell runs it"], grade.readings, grade.design, (), grade.contradictions,
            grade.properties)
    return grade


#: The flawed design of the drill's "predict, then run" exercise.
PREDICT_OUTLINE = {
    "checkpoint": "a snapshot of the whole run state every 2 steps",
    "idempotency": "an idempotency key derived from run id + step + payload digest",
    "resumeProtocol": "restore the last snapshot, replay it, and look any unfinished charge up "
                      "by its key at the provider before resending it",
    "failureMode": "a crash between two snapshots redoes the work done since the last one",
}


def duplicate_windows(outline: Any = None) -> set[str]:
    """The windows of the charge where ``outline`` (default: :data:`PREDICT_OUTLINE`),
    recovered at once, leaves two charges (run here)."""
    return grade_design_outline(outline or PREDICT_OUTLINE).windows("duplicate effect")


def check_prediction(predicted: Any) -> list[str]:
    """The learner's set of windows (e.g. ``{"W1"}``) equals what the sweep shows."""
    if isinstance(predicted, str) or not hasattr(predicted, "__iter__"):
        return ["[predict] the prediction must be a set of window names such as {'W1'}"]
    try:
        items = list(predicted)
    except Exception:  # a learner object that cannot be iterated
        return ["[predict] the prediction must be a set of window names such as {'W1'}"]
    if not all(isinstance(w, str) for w in items):
        return ["[predict] the prediction must be a set of window names such as {'W1'}"]
    got = {str.__str__(w).strip().upper() for w in items}
    unknown = sorted(got - {f"W{i}" for i in range(1, 6)})
    if unknown:
        return [f"[predict] {unknown} are not windows (W1..W5)"]
    actual = duplicate_windows()
    if got != actual:
        return [f"[predict] you predicted {sorted(got)}; the sweep disagrees in "
                f"{len(got ^ actual)} window(s)"]
    return []


def matrix_table(columns: dict[str, tuple[DesignCell, ...]], recovery: str = RECOVERIES[0]
                 ) -> Any:
    """Several designs' sweeps side by side (one row per window) for one recovery, with
    ``escalated`` kept apart from ``stuck``."""
    from minirt.viz.idempotency import Table  # course tooling; imported only when shown

    rows: dict[str, list[str]] = {}
    for cells in columns.values():
        for c in cells:
            if c.recovery == recovery:
                rows.setdefault(c.window, [c.window]).append(c.outcome)
    return Table([f"window ({recovery})", *columns], list(rows.values()))


def vocabulary_table() -> Any:
    """The vocabulary as a table (field, choice, label, example phrases) for lessons."""
    from minirt.viz.idempotency import Table  # course tooling; imported only when shown

    rows = []
    for name, terms in VOCABULARY.items():
        for t in terms:
            rows.append([name, f"`{t.choice}`", t.label])
    return Table(["field", "choice (mechanism)", "what it means"], rows)
