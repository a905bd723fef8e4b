"""A content-free note: filler sections and a spray of numbers, two of which land near a figure."""

ANSWERS = {"answer_note": '''ARCHITECTURE_NOTE = """
## Decisions
We made many careful decisions about the design of this durable agent and its effects.
Figures: 10 20 30 40 50 60 70 80 90 100 150 200 300 400 500 600 700 800 900 1000 2000 5000.

## Trade-offs
There are several trade-offs between speed and safety that we considered at length here.
Also 11 13 17 19 23 29 31 37 41 43 47 53 59 61 67 71 73 79 83 89 97 101 730 43 63.

## Remaining risks
Some risks remain in the system, as in every real system, and drop_response_after_commit.
"""
'''}
MUST_FAIL = ["test_architecture_note"]
