"""The key names the run, step and tool but not the payload: another amount gets the same key."""

ANSWERS = {"answer_derive_key": '''def derive_key(run_id: str, step: int, tool: str, args: dict) -> str:
    material = canonical_json([run_id, step, tool])
    return "ek_" + hashlib.sha256(material.encode("utf-8")).hexdigest()[:32]
'''}
MUST_FAIL = ["test_key_bound_to_payload"]
