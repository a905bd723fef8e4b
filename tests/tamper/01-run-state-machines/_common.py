"""Shared bits of drill 01's tampering submissions (not a submission itself)."""

ALL_TESTS = ["test_table", "test_stale_completion", "test_terminal_is_final", "test_takeover",
             "test_revision", "test_compare_and_set", "test_crash_sweep", "test_prediction"]
WRONG_CHECK = "def check(run, event):\n    return run.state\n"
WRONG_APPLY = "def apply(run, event):\n    return run\n"
WRONG_PREDICTION = "predicted_accepted = 1\npredicted_zombie_error = 'LeaseHeld'\n"
