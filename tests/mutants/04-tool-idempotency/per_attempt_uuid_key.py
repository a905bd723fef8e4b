"""A fresh random key for every computation: each retry looks like a new operation."""

ANSWERS = {"answer_derive_key": '''import uuid


def derive_key(run_id: str, step: int, tool: str, args: dict) -> str:
    return "ek_" + uuid.uuid4().hex
'''}
MUST_FAIL = ["test_key_stable"]
