"""settle tries to allocate 20 GB: the cells that call it end with a named MemoryError (the
learner's process has an address-space limit), not an out-of-memory machine or a hang."""

ANSWERS = {
    "answer_settle": '''import resource
def settle(accounts, run_id, reservation_id, used):
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:  # no limit: do not really take 20 GB of the test machine
        raise MemoryError("no address-space limit in the learner's process")
    blob = bytearray(20 * 2 ** 30)
    return blob
''',
    "answer_prediction": '''class AnyNumber(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
predicted_tokens = AnyNumber(1)
''',
}
MUST_FAIL = ["test_settle_releases_the_rest", "test_replay_counts_once",
             "test_child_charged_to_parent", "test_crash_between_reserve_and_settle",
             "test_predict_replayed_tokens"]
MUST_SAY = {"test_settle_releases_the_rest": "MemoryError"}
