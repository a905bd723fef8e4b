"""Hashes only the top-level scalar arguments ("nested objects are metadata"): two charges
that differ inside a nested value share a key, and the provider replays the first one."""

ANSWERS = {
    "answer_derive_key": '''def derive_key(run_id: str, step: int, tool: str, args: dict) -> str:
    material = canonical_json([run_id, step, tool, digest({k: v for k, v in args.items() if not isinstance(v, (dict, list))})])
    return "ek_" + hashlib.sha256(material.encode("utf-8")).hexdigest()[:32]
''',
}
MUST_FAIL = ["test_key_bound_to_payload"]
