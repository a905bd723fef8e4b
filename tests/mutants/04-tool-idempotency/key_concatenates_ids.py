"""Concatenates run id, step and tool without a separator: run "r1" step 1 and run "r"
step 11 get the same key, so one run's charge is answered with another's receipt."""

ANSWERS = {
    "answer_derive_key": '''def derive_key(run_id: str, step: int, tool: str, args: dict) -> str:
    material = f"{run_id}{step}{tool}" + digest(args)
    return "ek_" + hashlib.sha256(material.encode("utf-8")).hexdigest()[:32]
''',
}
MUST_FAIL = ["test_key_bound_to_payload"]
