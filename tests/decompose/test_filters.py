"""Deflection and non-claim rules, on examples written after the guideline's cases."""
from __future__ import annotations

import pytest

from offline_eval.decomposition.filters import classify, is_deflection


@pytest.mark.parametrize("text", [
    "I'm sorry, I cannot provide live stock quotes.",
    "I apologize, but I don't have access to current flight schedules.",
    "I am unable to see images.",
    "I'm unable to check the weather right now.",
    "Sorry but I can't help with that request.",
    "As an AI language model, I do not have personal opinions.",
    "FAILED TO CAPTURE RESPONSE",
    "The system is temporarily unavailable, please try again later.",
])
def test_deflections(text):
    assert is_deflection(text)
    assert classify(text) == ("deflection", "deflection phrase")


@pytest.mark.parametrize("text, reason", [
    ("Here is a list of lakes that are deeper than 1,000 meters:", "topic introduction"),
    ("Here are some facts about the Danube.", "topic introduction"),
    ("There are several reasons why the Moon has craters.", "topic introduction"),
    ("In conclusion, the Danube is an important river.", "conclusion"),
    ("Lisbon has the best pastries in Europe.", "opinion (subjective term)"),
    ("The most popular dish in Peru is ceviche.", "opinion (subjective term)"),
    ("Best of all, the museum is free.", "opinion (subjective term)"),
    ("The Louvre is the best museum in Paris.", "opinion (subjective term)"),
    ("It won Best Picture, but the best film that year was another one.",
     "opinion (subjective term)"),
    ("Love is like a rose,\nBeautiful and delicate,\nIt needs care", "opinion (subjective term)"),
    ("Would you like more information about Lisbon?", "question to the user"),
    ("Is there anything else you want to know?", "question to the user"),
    ("I hope this helps!", "pleasantry"),
    ("Let me know if you have other questions.", "pleasantry"),
    ("Great question!", "pleasantry"),
    ("You should visit the museum early in the morning.", "advice or recommendation"),
    ("It is difficult to say exactly how many wolves live in Spain.", "statement of uncertainty"),
])
def test_non_claims_have_a_reason(text, reason):
    assert classify(text) == ("non_claim", reason)


def test_instruction_needs_tags():
    words = ["Compare", "the", "prices", "."]
    tags = ["VB", "DT", "NNS", "."]
    assert classify("Compare the prices.", tags=tags, words=words) == ("non_claim", "instruction")
    assert classify("Compare the prices.") == ("claim", None)


@pytest.mark.parametrize("text", [
    "Lake Baikal is the deepest lake in the world.",  # a factual superlative stays
    "The Danube flows through ten countries.",
    "Marie Curie won two Nobel Prizes.",
    "Generally, puppies cost between $1,000 and $4,000.",
    # subjective words inside names, compounds and records state facts
    "Albert Einstein is best known for developing the theory of relativity.",
    "Best known as a painter, she also wrote two novels.",
    "Thriller is the best-selling album of all time.",
    "The film won the Academy Award for Best Picture in 1998.",
    "The Greatest Showman was released in 2017.",
    "Her personal best in the 100 metres is 10.7 seconds.",
    "The greatest common divisor of 12 and 18 is 6.",
])
def test_claims_pass(text):
    assert classify(text) == ("claim", None)


def test_heading_is_a_non_claim():
    assert classify("Key facts", heading=True) == ("non_claim", "heading")
