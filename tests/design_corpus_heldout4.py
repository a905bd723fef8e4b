"""A FOURTH held-out set of designOutline() answers (issue 17), never used to tune the reader.

Written and committed after the third held-out set was measured (good 17/20, bad fail 15/19)
and BEFORE the reader was fixed for what that set showed. Same format and ground truth as
:mod:`design_corpus_heldout`.
"""

from __future__ import annotations

from typing import Any

Entry = tuple[str, Any, dict[str, Any]]

HELDOUT4: list[Entry] = [
    # == good: passes ===========================================================================
    ("h4-good-1", {
        "checkpoint": "A durable 'will charge' entry is committed to the journal ahead of the "
                      "payment request; a 'charged' entry follows once the answer is in.",
        "idempotency": "The idempotency key is a digest of run id, step and arguments, and it "
                       "is the same on the first attempt and every retry.",
        "resumeProtocol": "On resume, a 'will charge' without 'charged' leads to a lookup of "
                          "the key at the provider; we record what it returns, or resend with "
                          "the same key if it has nothing.",
        "tradeOff": "One more durable write ahead of every payment request."},
     {"passed": True, "why": "clean, 'ahead of'", "voice": "verbose"}),
    ("h4-good-2", {
        "checkpoint": "intent written + fsynced, then the HTTP call, then the result written",
        "idempotency": "run_id:step:sha256(args) as the Idempotency-Key, reused on retry",
        "resumeProtocol": "for each intent lacking a result: GET the charge by key; if 404, "
                          "resend with the same key",
        "failureMode": "fsync latency on every call"},
     {"passed": True, "why": "terse, HTTP words", "voice": "terse"}),
    ("h4-good-3", {
        "checkpoint": "We record the intention to pay in the log before paying, and the "
                      "payment's outcome after.",
        "idempotency": "The key is built from the run and step identifiers and does not vary "
                       "between attempts.",
        "resumeProtocol": "For each intention without an outcome we enquire with the provider "
                          "using the key; we resend with the same key only if the provider "
                          "knows nothing of it.",
        "failureMode": "Enquiries after a crash add a round trip for each unresolved payment."},
     {"passed": True, "why": "'enquire', 'intention'", "voice": "verbose"}),
    ("h4-good-4", {
        "checkpoint": "The tool call's intent is stored durably before execution; the result "
                      "is stored durably after execution.",
        "idempotency": "A deterministic key from run id and step, attached to every attempt.",
        "resumeProtocol": "Check the provider for that key before re-executing; if the charge "
                          "exists, store it as the result.",
        "tradeOff": "Extra storage and one more write for each tool call."},
     {"passed": True, "why": "plain", "voice": "plain"}),
    ("h4-good-5", {
        "checkpoint": "Zuerst the intent goes to the journal, then the call, then the result "
                      "(we are a German team, sorry for the mix).",
        "idempotency": "Key from run id plus step plus payload hash, same key for all retries.",
        "resumeProtocol": "After restart: for intent without result, ask the provider by key, "
                          "record if found, else resend with the same key.",
        "failureMode": "An extra journal write for each call."},
     {"passed": True, "why": "mixed language", "voice": "non-native"}),
    ("h4-good-6", {
        "checkpoint": "Intent journaled before the call and result after it.",
        "idempotency": "We reuse the order id as the idempotency key for every attempt.",
        "resumeProtocol": "Fetch the payment by its idempotency key from the provider; only a "
                          "missing payment is sent again, with the same key.",
        "tradeOff": "Recovery takes one fetch per unresolved payment."},
     {"passed": True, "why": "order id reused as key", "voice": "plain"}),
    ("h4-good-7", {
        "checkpoint": "Write-ahead: the planned call and its key hit the disk before the "
                      "network; the answer hits the disk after.",
        "idempotency": "Deterministic: hash over run, step, payload. No randomness.",
        "resumeProtocol": "Open intents are reconciled against the provider by key before "
                          "anything is resent.",
        "failureMode": "If we come back more than 24 h later the provider has dropped the key "
                       "and the run waits for an operator."},
     {"passed": True, "why": "write-ahead, limit", "voice": "terse"}),
    ("h4-good-8", {
        "checkpoint": "Intent committed before the charge request, outcome committed after.",
        "idempotency": "Our merchant reference (run id + step) goes into the charge's metadata; "
                       "the provider lets us search charges by metadata.",
        "resumeProtocol": "Search charges by the merchant reference; record a hit, otherwise "
                          "charge again with the same reference.",
        "tradeOff": "A metadata search per unresolved charge, which is slower than a key "
                    "lookup."},
     {"passed": True, "why": "client reference via metadata", "voice": "plain"}),
    ("h4-good-9", {
        "checkpoint": "1) intent row, committed 2) provider call 3) result row, committed",
        "idempotency": "key = run id + step, same for every retry",
        "resumeProtocol": "intent row without result row: look up the key at the provider; "
                          "found -> result row; not found -> call again with the same key",
        "tradeOff": "two commits per call"},
     {"passed": True, "why": "numbered steps", "voice": "terse"}),
    ("h4-good-10", {
        "checkpoint": "Intent is journaled before dispatch and the result after.",
        "idempotency": "The key is derived from the run, the step and the payload.",
        "resumeProtocol": "The resumed run queries the provider for each in-flight key and only "
                          "resends those the provider has never seen.",
        "failureMode": "Queries to the provider slow recovery down when many calls were in "
                       "flight."},
     {"passed": True, "why": "plain", "voice": "plain"}),
    ("h4-good-11", {
        "checkpoint": "Before any side effect, the intent is persisted; after it, the result.",
        "idempotency": "Stable key per logical call: run id and step, never regenerated.",
        "resumeProtocol": "Look up unresolved side effects at the provider by key, then resend "
                          "or record.",
        "failureMode": "Needs a provider API to look keys up; costs a request per unresolved "
                       "side effect."},
     {"passed": True, "why": "side effect words", "voice": "plain"}),
    ("h4-good-12", {
        "checkpoint": "We note the intent in Postgres before the call and the response after.",
        "idempotency": "The idempotency key is a UUID created once with the intent row and "
                       "read back for each retry.",
        "resumeProtocol": "We ask the provider about that UUID for every intent row without a "
                          "response, then resend only if it is unknown.",
        "tradeOff": "A Postgres round trip before every call."},
     {"passed": True, "why": "stored key", "voice": "plain"}),
    # == bad: fails =============================================================================
    ("h4-bad-1", {
        "checkpoint": "Intents are tracked in a local variable during the call.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Look up any open intent at the provider.",
        "tradeOff": "No disk I/O."},
     {"passed": False, "why": "intent in a local variable only", "voice": "qualifier"}),
    ("h4-bad-2", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "The key is run id + step + the retry count.",
        "resumeProtocol": "Look up by key, resend if missing.",
        "failureMode": "A lookup per open intent."},
     {"passed": False, "why": "retry count in the key", "voice": "qualifier"}),
    ("h4-bad-3", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Every call without a result is simply sent again; there is no "
                          "lookup.",
        "tradeOff": "Simple recovery."},
     {"passed": False, "why": "blind resend", "voice": "negation"}),
    ("h4-bad-4", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Key derived from run + step, logged for debugging but not passed to "
                       "the provider.",
        "resumeProtocol": "Ask the provider about the key before resending.",
        "failureMode": "A lookup per intent."},
     {"passed": False, "why": "key not passed to the provider", "voice": "qualifier",
      "contradiction": True}),
    ("h4-bad-5", {
        "checkpoint": "We journal the intent, but not before the call: it is written together "
                      "with the result.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Look up open intents by key.",
        "tradeOff": "One write per call."},
     {"passed": False, "why": "'not before the call'", "voice": "qualifier",
      "contradiction": True}),
    ("h4-bad-6", {
        "checkpoint": "journal / WAL / snapshot / event log / outbox",
        "idempotency": "derived / stored / random / reference",
        "resumeProtocol": "lookup / retry / refund / operator",
        "failureMode": "duplicate / lost / stuck / latency"},
     {"passed": False, "why": "stuffed", "voice": "stuffed", "contradiction": True}),
    ("h4-bad-7", {
        "checkpoint": "No persistence at all.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Replay the journal, then look up open intents at the provider.",
        "failureMode": "A lookup per intent."},
     {"passed": False, "why": "no persistence yet a journal", "voice": "contradicting",
      "contradiction": True}),
    ("h4-bad-8", {
        "checkpoint": "Intent journaled before the call, result after.",
        "idempotency": "Derived key from run + step, unchanged on retry.",
        "resumeProtocol": "Look up by key, resend if missing.",
        "failureMode": "We send no key at all, so duplicates are possible."},
     {"passed": False, "why": "failure mode denies the key", "voice": "contradicting",
      "contradiction": True}),
    ("h4-bad-9", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Resend with the same key.",
        "failureMode": "The stable key guarantees exactly one charge in every case."},
     {"passed": False, "why": "blind; false safety", "voice": "false-failure"}),
    ("h4-bad-10", {
        "checkpoint": "Intent before the call, result after.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Look up by key, resend with the same key if missing.",
        "tradeOff": "It has no disadvantages."},
     {"passed": False, "why": "no cost", "voice": "false-failure"}),
    ("h4-bad-11", {
        "checkpoint": "The response is written to the journal when it arrives.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "Calls without a journaled response are made again.",
        "failureMode": "A crash before the write makes the call again."},
     {"passed": False, "why": "result-only + blind", "voice": "plain"}),
    ("h4-bad-12", {
        "checkpoint": "Intent before, result after.",
        "idempotency": "A new UUID is generated by the HTTP client on each attempt.",
        "resumeProtocol": "Ask the provider about the UUID, then resend.",
        "failureMode": "A lookup per open intent."},
     {"passed": False, "why": "random per attempt", "voice": "plain", "contradiction": True}),
    ("h4-bad-13", {
        "checkpoint": "Intent before, result after.",
        "idempotency": "Derived key from run + step.",
        "resumeProtocol": "On restart, an operator decides every unfinished call by hand.",
        "failureMode": "Operators are needed after crashes."},
     {"passed": False, "why": "escalate", "voice": "plain"}),
]
