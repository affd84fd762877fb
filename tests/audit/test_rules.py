"""Guideline rules, on self-written cases modelled on the guideline's examples."""
from __future__ import annotations

import pytest

from offline_eval.audit.quantities import check_numbers, extract_quantities
from offline_eval.audit.rules import audit_claim, audit_response
from offline_eval.audit.timeliness import claim_timeliness
from offline_eval.types import Claim, Evidence, Verdict


def claim(text, label, passage="", importance="okay", cid="c1"):
    ev = Evidence("p1", passage) if passage else None
    return Claim(cid, text, importance=importance).with_verdict(Verdict(label, evidence=ev))


# --- numbers ---------------------------------------------------------------------------

@pytest.mark.parametrize("c,e,status", [
    ("A banana has about 105 calories.", "A medium banana has 70 to 125 calories.", "match"),
    ("A banana has 300 calories.", "A medium banana has 70 to 125 calories.", "mismatch"),
    ("Puppies cost $1,200.", "Puppies typically cost $1,000 to $4,000.", "match"),
    ("The river is 6,650 km long.", "The river is about 4,130 miles long.", "match"),
    ("Water boils at 212 °F.", "Water boils at 100 °C at sea level.", "match"),
    ("Unemployment was 4.1%.", "Unemployment stood at 4.0 percent.", "match"),
    ("The bridge opened in 1937.", "The bridge opened in 1936.", "mismatch"),
    ("The tower is tall.", "The tower is 330 m tall.", "no_claim_numbers"),
    ("The union has seven member states.", "The union has six member states.", "mismatch"),
    ("The union has six member states.", "The union's 6 member states met.", "match"),
    ("It is the third-largest city.", "It is the second-largest city in the region.", "mismatch"),
    ("It is the 3rd largest city.", "It is the third largest city.", "match"),
    ("He had two sons.", "He made 15 films in 1950.", "no_comparable_numbers"),
    ("It was built in the 12th century.", "It was the 12th abbey of the order.", "no_comparable_numbers"),
    ("One of the oldest bridges stands here.", "The 4 bridges date from 1500.", "no_claim_numbers"),
    # a number inside a name, or a list item's number, is no quantity
    ("ICD-9 is used for medical billing.", "ICD-10 replaced it; 1 in 3 claims changed.", "no_claim_numbers"),
    ("The road is the N2.", "The town has 41,200 people.", "no_claim_numbers"),
    ("4. The Album came out in 2020.", "They released 2 albums in 2020.", "match"),
    # a count in words needs a counted noun on both sides
    ("The submarine carried four 53cm torpedo tubes.", "U-39 and U-53 were built in 40 months.",
     "no_comparable_numbers"),
])
def test_number_judgement(c, e, status):
    assert check_numbers(c, e).status == status


def test_a_name_with_a_number_is_not_audited_as_a_number():
    c = claim("ICD-9 is a coding system used in medical billing.", "unverifiable",
              "ICD-9 (International Classification of Diseases) was replaced by ICD-10 in 2015; 1 in 5 codes moved.")
    assert audit_claim(c, core=True).verdict != "incorrect"


def test_scales_and_ranges_are_parsed():
    (q,) = extract_quantities("between 2 and 3 million people")
    assert (q.kind, q.low, q.high) == ("count", 2e6, 3e6)


def test_number_words_and_ordinals_are_read():
    found = extract_quantities("Forty-two islands, three million people, the fifth and 21st ranks")
    assert [(q.kind, q.low, q.noun) for q in found] == [
        ("count", 42.0, "island"), ("count", 3e6, "people"), ("ordinal", 5.0, ""),
        ("ordinal", 21.0, "rank")]
    assert [q.kind for q in extract_quantities("the 19th-century poet, the first poet")] == ["century"]


def test_claim_inside_range_is_correct_even_if_nli_disagrees():
    a = audit_claim(claim("A medium banana has about 105 calories.", "contradicted",
                          "A medium banana has 70 to 125 calories."), core=True)
    assert a.verdict == "correct" and a.magnitude is None


def test_number_far_off_is_incorrect_and_major():
    a = audit_claim(claim("Mount Everest is 5,000 metres tall.", "supported",
                          "Mount Everest is 8,849 metres tall."), core=False)
    assert (a.verdict, a.magnitude) == ("incorrect", "major")


def test_number_slightly_off_is_partially_correct_minor():
    a = audit_claim(claim("The lake covers 620 square kilometres.", "supported",
                          "The lake covers 580 square kilometres."), core=False)
    assert (a.verdict, a.magnitude) == ("partially_correct", "minor")


# --- directions ------------------------------------------------------------------------

def test_relative_direction_swap_is_incorrect():
    a = audit_claim(claim("Bergen is east of Oslo.", "supported",
                          "Bergen lies west of Oslo, on the coast."), core=True)
    assert a.verdict == "incorrect" and "relative direction" in a.reasons[0]


# --- verdict mapping and magnitude -----------------------------------------------------

@pytest.mark.parametrize("label,verdict", [("supported", "correct"), ("contradicted", "incorrect"),
                                           ("inconclusive", "inconclusive"),
                                           ("unverifiable", "unverifiable")])
def test_verdict_mapping(label, verdict):
    assert audit_claim(claim("Lyon is a city in France.", label, "Lyon is in France."),
                       core=False).verdict == verdict


def test_magnitude_major_for_core_minor_otherwise():
    assert audit_claim(claim("Lyon is the capital.", "contradicted", "Paris is the capital."),
                       core=True).magnitude == "major"
    assert audit_claim(claim("Lyon has a cafe.", "contradicted", "Lyon has no cafe."),
                       core=False).magnitude == "minor"


# --- timeliness ------------------------------------------------------------------------

def test_future_season_already_under_way_is_not_timely():
    t = claim_timeliness("The series will air through the 2024-25 season.", "2025-03-10")
    assert t.label == "not_timely"


def test_without_date_claims_are_checked_as_usual():
    assert claim_timeliness("The series will air through the 2024-25 season.", None).label == "undated"


# --- response level --------------------------------------------------------------------

def test_wrong_core_answer_makes_response_incorrect():
    cs = [claim("The capital of France is Lyon.", "contradicted", "Paris is the capital of France.",
                "vital", "c1"),
          claim("France is in Europe.", "supported", "France is in Europe.", "okay", "c2")]
    a = audit_response("What is the capital of France?", "The capital of France is Lyon. France is in Europe.",
                       cs, deflection=False)
    assert a.verdict == "incorrect" and "core fact incorrect" in a.reasons
    assert [c.core for c in a.claims] == [True, False]


def test_wrong_detail_makes_response_partially_correct():
    cs = [claim("The capital of France is Paris.", "supported", "Paris is the capital.", "vital", "c1"),
          claim("Paris has 40 million residents.", "supported", "Paris has 2.1 million residents.",
                "less-important", "c2")]
    a = audit_response("What is the capital of France?", "x Paris capital France", cs, deflection=False)
    assert a.verdict == "partially_correct" and "additional facts incorrect" in a.reasons


def test_deflection_has_no_verdict():
    a = audit_response("What is the price of gold today?", "I'm sorry, I can't check prices.", [],
                       deflection=True)
    assert a.verdict is None and a.deflection and "deflection" in a.reasons


def test_not_timely_core_claim_makes_response_incorrect():
    cs = [claim("The show will air through the 2024-25 season.", "supported",
                "The show will air through the 2024-25 season.", "vital")]
    a = audit_response("How long will the show air?", "The show will air through the 2024-25 season.",
                       cs, deflection=False, date="2025-03-10")
    assert a.verdict == "incorrect" and "not timely" in a.reasons and a.timeliness == "not_timely"


def test_not_specific_and_not_relevant():
    cs = [claim("Many people live in Tokyo.", "supported", "Many people live in Tokyo.", "vital")]
    a = audit_response("How many people live in Tokyo?", "Many people live in Tokyo.", cs,
                       deflection=False)
    assert a.relevance == "not_specific" and "not specific" in a.reasons
    cs = [claim("Bananas are yellow.", "supported", "Bananas are yellow.", "vital")]
    a = audit_response("How many people live in Tokyo?", "Bananas are yellow.", cs, deflection=False)
    assert a.relevance == "not_relevant"


def test_a_contradicted_claim_is_not_rescued_by_a_shared_year():
    # another article holds the same year: the audit keeps the NLI verdict (no named rule applies)
    a = audit_claim(claim("Ada Brook designed the mill in 1851.", "contradicted",
                          "Tom Hale designed the old mill in Leeds in 1851."), core=True)
    assert a.verdict == "incorrect" and "contradicted by the evidence" in a.reasons
    # an unverifiable claim whose numbers match keeps the named rule
    b = audit_claim(claim("Ada Brook designed the mill in 1851.", "unverifiable",
                          "Ada Brook designed the mill in 1851."), core=True)
    assert b.verdict == "correct" and "numbers match the evidence within tolerance" in b.reasons
