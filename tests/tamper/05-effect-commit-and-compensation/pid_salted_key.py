"""compensation_key mixes in the process id and the hash seed: the same inside one kernel,
different after a crash and restart (the compensation would be sent twice)."""

ANSWERS = {
    "answer_compensation_key": '''import os
def compensation_key(forward_key, tool):
    material = "\\x1f".join(["compensate", forward_key, tool, str(os.getpid()), str(hash(tool))])
    return "ck_" + hashlib.sha256(material.encode("utf-8")).hexdigest()[:32]
''',
}
MUST_FAIL = ["test_key_stable"]
MUST_SAY = {"test_key_stable": "[cross-process]"}
