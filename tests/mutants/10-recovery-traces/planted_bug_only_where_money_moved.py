"""Names only the windows where the provider had already charged, forgetting the W2 failure."""

ANSWERS = {"answer_planted_bug": '''planted_bug_points = {"after_provider_commit", "before_result"}
'''}
MUST_FAIL = ["test_find_the_planted_bug"]
