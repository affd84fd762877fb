"""Same-type swaps: numbers move beyond the audit tolerance, names stay in their type."""
from __future__ import annotations

import random
import re

import pytest

from offline_eval.metaeval.swaps import number_swap, pick_same_type, shift_number


def _number(text: str) -> float:
    return float(re.search(r"\d[\d,]*(?:\.\d+)?", text).group().replace(",", ""))


@pytest.mark.parametrize("text,label", [
    ("8,849 metres", "QUANTITY"), ("about 6,650 km", "QUANTITY"), ("$12.5 million", "MONEY"),
    ("3.5 percent", "PERCENT"), ("1500 metres", "QUANTITY"), ("120 calories", None),
    ("27 years", "DATE"), ("12", "CARDINAL")])
def test_numbers_move_beyond_twice_the_widest_tolerance(text, label):
    for seed in range(20):
        new = shift_number(text, random.Random(seed), label)
        old_v, new_v = _number(text), _number(new)
        assert new != text and new_v > 0
        assert abs(new_v - old_v) / old_v >= 0.2, (text, new)


def test_shares_stay_at_or_under_100_percent():
    for seed in range(30):
        for text in ("98.5%", "70 percent"):
            assert 0 < _number(shift_number(text, random.Random(seed), "PERCENT")) <= 100


def test_years_move_by_3_to_12_years_and_dates_keep_their_day():
    for seed in range(20):
        new = shift_number("on 11 February 1990", random.Random(seed), "DATE")
        year = int(new.rsplit(" ", 1)[1])
        assert new.startswith("on 11 February ") and 3 <= abs(year - 1990) <= 12


def test_formatting_is_kept():
    assert re.fullmatch(r"\d{1,3}(,\d{3})+ metres", shift_number("8,849 metres", random.Random(3)))
    assert re.fullmatch(r"\$\d+\.\d million", shift_number("$12.5 million", random.Random(3)))
    assert re.fullmatch(r"the \d+(st|nd|rd|th) century", shift_number("the 19th century", random.Random(3)))


def test_number_words_and_ordinals():
    for seed in range(20):
        rng = random.Random(seed)
        assert shift_number("the Four Seas", rng) in {f"the {w} Seas" for w in
                                                      ("Two", "Three", "Five", "Six", "Seven")}
        assert shift_number("the first woman", rng) in {"the second woman", "the third woman",
                                                        "the fourth woman"}


def test_no_number_gives_none():
    assert shift_number("Paris is in France.", random.Random(0)) is None
    assert number_swap("", random.Random(0)) is None


def test_swap_points_at_the_changed_span():
    text = "It is 8,849 metres tall."
    sw = number_swap(text, random.Random(0), None)
    assert text[sw.start:sw.end] == "8,849"
    assert text[:sw.start] + sw.replacement + text[sw.end:] == shift_number(text, random.Random(0))


def test_same_seed_same_swap():
    first = shift_number("in 1994", random.Random(7))
    assert first is not None and first != "in 1994" and re.fullmatch(r"in \d{4}", first)
    assert first == shift_number("in 1994", random.Random(7))


def test_pick_same_type_avoids_near_duplicates_and_the_text():
    pool = ["Paris", "Paris, Texas", "Lyon", "Marseille", "New York City"]
    picks = {pick_same_type("Paris", pool, random.Random(s), avoid=["Lyon lies on the Rhone."])
             for s in range(30)}
    assert picks == {"Marseille"}  # one word, not Paris, not in the avoided text
    assert pick_same_type("Paris", ["Paris"], random.Random(0)) is None


def test_pick_same_type_prefers_alike_names():
    pool = ["Lake Victoria", "Chad", "Lake Baikal", "Caspian Sea", "Lake Tanganyika"]
    picks = {pick_same_type("Lake Baikal", pool, random.Random(s)) for s in range(30)}
    assert picks == {"Lake Victoria", "Lake Tanganyika"}
