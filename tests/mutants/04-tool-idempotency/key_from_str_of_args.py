"""The payload enters the key as str(args): the same JSON in another key order gets another key."""

ANSWERS = {"answer_derive_key": '''def derive_key(run_id: str, step: int, tool: str, args: dict) -> str:
    material = f"{run_id}|{step}|{tool}|{args}"
    return "ek_" + hashlib.sha256(material.encode("utf-8")).hexdigest()[:32]
'''}
MUST_FAIL = ["test_key_bound_to_payload"]
