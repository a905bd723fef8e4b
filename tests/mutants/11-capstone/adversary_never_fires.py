"""An adversarial case that injects a fault on an operation the agent never calls: it proves
nothing."""

ANSWERS = {
    'answer_adversary': '''def my_adversarial_case():
    return {"name": "the booking provider is down for refunds",
            "provider_faults": [{"provider": "booking", "fault": "error_5xx", "op": "refund",
                                 "times": 1}]}
''',
}
MUST_FAIL = ['test_my_adversary']
