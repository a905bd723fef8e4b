"""An adversarial case that fires but cannot hurt anyone: one 5xx before the provider commits (a careless agent survives it too)."""

ANSWERS = {"answer_adversary": '''def my_adversarial_case():
    return {"name": "the payment provider is down once",
            "provider_faults": [{"provider": "payments", "fault": "error_5xx",
                                 "op": "refund", "times": 1}]}
    ### END SOLUTION'''}
MUST_FAIL = ['test_my_adversary']
