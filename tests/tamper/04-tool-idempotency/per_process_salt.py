"""derive_key salted with the process's hash seed: stable inside one kernel, different in the
next process (a retry after a crash would charge twice)."""

ANSWERS = {
    "answer_derive_key": '''import hashlib
def derive_key(run_id, step, tool, args):
    salt = hash("minirt")
    material = repr([salt, run_id, step, tool, sorted(args.items())])
    return "ek_" + hashlib.sha256(material.encode("utf-8")).hexdigest()[:32]
''',
}
MUST_FAIL = ["test_key_stable"]
