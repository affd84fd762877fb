from __future__ import annotations

import pytest

from offline_eval.importance.query import ANSWER_TYPES, clean_query, expected_answer_type


@pytest.mark.parametrize("query,expected", [
    ("In a paragraph, could you answer: who founded Apple", "who founded Apple"),
    ("Could you please explain: why is the sky blue", "why is the sky blue"),
    ("who founded Apple", "who founded Apple"),
    ("In a paragraph, could you answer:", "In a paragraph, could you answer:"),
])
def test_clean_query(query, expected):
    assert clean_query(query) == expected


@pytest.mark.parametrize("query,expected", [
    ("who played crocodile dundee", "person"),
    ("when is episode 12 coming out", "date"),
    ("where do elk live in the united states", "place"),
    ("how many pennsylvania house of representatives are there", "quantity"),
    ("the chinese dragons are protectors of how many seas", "quantity"),
    ("how much did the house sell for", "money"),
    ("what year did the war end", "date"),
    ("which city hosted the olympics", "place"),
    ("what song won the award", "work"),
    ("explain the role of glycogenin in glycogen synthesis", None),
    ("what is the snow on mars made of", None),
])
def test_expected_answer_type(query, expected):
    assert expected_answer_type(query) == expected
    assert expected is None or expected in ANSWER_TYPES
