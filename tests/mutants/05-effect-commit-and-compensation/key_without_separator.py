"""Joins the forward key and the tool without a separator: ("ek_1", "refund") and
("ek_1r", "efund") get one compensation key, and one refund deduplicates the other."""

ANSWERS = {
    "answer_compensation_key": '''def compensation_key(forward_key, tool):
    """The idempotency key of the compensation of ``forward_key`` by ``tool``."""
    material = "compensate" + forward_key + tool
    return "ck_" + hashlib.sha256(material.encode("utf-8")).hexdigest()[:32]
''',
}
MUST_FAIL = ["test_key_stable"]
