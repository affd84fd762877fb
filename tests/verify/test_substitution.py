"""The name rule's word alignment (offline_eval.nli.substitution): a claim that names X
where a passage sentence saying the same thing names Y."""
from __future__ import annotations

import pytest

from offline_eval.nli.substitution import Substitution, find_substitution

LEAD = ("Audrey Kathleen Hepburn was a British actress and humanitarian. Recognised as a film "
        "and fashion icon, she was ranked by the American Film Institute among the greatest stars.")


def test_articles_and_other_words_do_not_break_the_frame():
    # the two-word frame differs ("was an" / "was a") and the lead names "American" elsewhere
    got = find_substitution("Audrey Hepburn was an American actress and humanitarian.", LEAD)
    assert got == Substitution("American", "British")
    # another sentence says part of the claim and names "American", but not in its slot
    got = find_substitution("Audrey Hepburn was an American actress remembered as a film and fashion icon.", LEAD)
    assert got == Substitution("American", "British")


def test_a_slot_at_the_end_of_the_claim():
    got = find_substitution("Toy Story, the first feature film produced by Pixar, was directed by Andrew Stanton.",
                            "Toy Story is a 1995 American animated comedy film produced by Pixar and "
                            "directed by John Lasseter in his feature directorial debut.")
    assert got == Substitution("Andrew Stanton", "John Lasseter")


@pytest.mark.parametrize("claim, passage", [
    # the claim's name is in the same sentence: a list, not a swap
    ("Audrey Hepburn was a British actress and humanitarian.",
     "Audrey Hepburn was a British and Dutch actress and humanitarian."),
    # an alias of another length ("Oscars" for "Academy Awards") is not a swap
    ("During a career of five decades, Ingrid Bergman collected three Oscars, two Emmys and a Tony.",
     "With a career of five decades, Bergman won three Academy Awards, two Emmys and a Tony."),
    # a slot inside a name: a middle name, not another person
    ("John F Kennedy served as the 35th president of the United States.",
     "John Fitzgerald Kennedy served as the 35th president of the United States."),
    # the slot must be a name on both sides
    ("Audrey Hepburn was a Belgian actress and humanitarian.",
     "Audrey Hepburn was a famous actress and humanitarian."),
    # one name spelt two ways
    ("The rematch was held in Albuquerque, New Mexico on April 9.",
     "The rematch was held in Albuqerque, New Mexico on April 9."),
    # another sentence of the passage states the claim word for word
    ("Smith scored for Arsenal against Chelsea in the final.",
     "Smith scored for Arsenal against Chelsea in the final. Jones scored for Arsenal against Spurs in the final."),
    ("The composer lived in Paris during his final years.",
     "The composer lived in Vienna during his early years. Later the composer lived in Paris during his final years."),
    # too little of the sentence matches to call it the same statement
    ("Hepburn was American.", "Tracy was British."),
    # the sentence that names another name is a different sentence from the frame
    ("Kuwait borders Iran to its north and Saudi Arabia to its south.",
     "Kuwait borders Saudi Arabia to its south. Iraq lies to its north and Iran across the gulf."),
])
def test_what_is_not_a_swap(claim, passage):
    assert find_substitution(claim, passage) is None


@pytest.mark.parametrize("claim, passage, swap", [
    ("Kuwait borders Iran to the north.", "Kuwait borders Iraq to the north.", ("Iran", "Iraq")),
    ("Banjul is the capital of Gambia today.", "Banjul is the capital of Zambia today.", ("Gambia", "Zambia")),
    ("The river flows through Niger today.", "The river flows through Nigeria today.", ("Niger", "Nigeria")),
    ("The rematch was held in Albuquerque, New Mexico.", "The rematch was held in Albuqerque, New Mexico.", None),
    ("The office of Minister for Food was created.", "The office of Ministers for Food was created.", None),
])
def test_one_name_spelt_two_ways_is_no_swap_but_a_near_name_is(claim, passage, swap):
    got = find_substitution(claim, passage)
    assert (tuple(got) if got else None) == swap


def test_a_run_on_sentence_is_not_aligned():
    # over _LONGEST words with no sentence end (a table or list run together): the alignment
    # leaves it alone, so its cost stays bounded; the letter-for-letter frame still reads it
    claim = "Audrey Hepburn was an American actress and humanitarian."
    sentence = "Audrey Hepburn was a British actress and humanitarian"
    assert find_substitution(claim, sentence + ".") == Substitution("American", "British")
    run_on = " and ".join([sentence] * 20)
    assert find_substitution(claim, run_on) is None


def test_a_titled_passage_about_another_subject_is_not_read():
    # anchored_only: only passages titled with a name of the claim are read this way
    claim = "Audrey Hepburn was an American actress and humanitarian."
    assert find_substitution(claim, LEAD, title="Katharine Hepburn", anchored_only=True) is None
    assert find_substitution(claim, LEAD, title="Audrey Hepburn", anchored_only=True) == \
        Substitution("American", "British")


@pytest.mark.parametrize("claim,passage,swap", [
    # the agent of the same participle, words between the participle and "by" in the passage
    ("Ceres was discovered by William Herschel on 1 January 1801.",
     "Ceres is a dwarf planet. It was discovered on 1 January 1801 by Giuseppe Piazzi.",
     ("William Herschel", "Giuseppe Piazzi")),
    # the claim's agent named elsewhere in the passage, in another role
    ("Toy Story was directed by Andrew Stanton.",
     "Toy Story is a 1995 film directed by John Lasseter, and written by Joss Whedon and "
     "Andrew Stanton.", ("Andrew Stanton", "John Lasseter")),
    # one of several agents, a surname, another participle, another work: no swap
    ("Toy Story was directed by Andrew Stanton.",
     "Toy Story is a 1995 film directed by John Lasseter and Andrew Stanton.", None),
    ("Toy Story was directed by Stanton.", "Toy Story was directed by Andrew Stanton.", None),
    ("Toy Story was directed by Andrew Stanton.",
     "Toy Story is a 1995 film written by Joss Whedon.", None),
    ("Hamlet was directed by Andrew Stanton in 1990.", "Macbeth, directed on stage by John Lasseter.",
     None),
])
def test_the_agent_of_a_by_phrase(claim, passage, swap):
    sub = find_substitution(claim, passage)
    assert (tuple(sub) if sub else None) == swap


@pytest.mark.parametrize("claim, passage, swap", [
    # two names of as many words that differ at one end only: another lake, another person
    ("The river rises at Lake Brenna in Tarsia and flows north.",
     "The river is a stream originating at Lake Olwen in Tarsia, flowing north.", ("Lake Brenna", "Lake Olwen")),
    ("Ada Herne was the younger sister of the astronomer John Herne and worked with him.",
     "Ada Herne was a poet. She was the younger sister of astronomer William Herne, with whom she worked.",
     ("John Herne", "William Herne")),
    # a title is no name of its own, a middle word or an initial is no swap
    ("Ada Herne was the daughter of President Herne and lived in Tarsia.",
     "Ada Herne was the daughter of Tomas Herne and lived in Tarsia.", None),
    ("Ada Herne was the daughter of John Peter Herne and lived in Tarsia.",
     "Ada Herne was the daughter of John Paul Herne and lived in Tarsia.", None),
])
def test_names_that_differ_at_one_end(claim, passage, swap):
    got = find_substitution(claim, passage)
    assert (tuple(got) if got else None) == swap


def test_an_initial_names_the_same_agent():
    """"John F. Kennedy" and "John Fitzgerald Kennedy" are one man; "John Herne" and
    "William Herne" are two."""
    passage = "The Tarsia treaty was signed in Paris by John Fitzgerald Kennedy."
    for claim in ("The Tarsia treaty was signed by John F. Kennedy in Paris.",
                  "The Tarsia treaty was signed by John F Kennedy in Paris."):
        assert find_substitution(claim, passage) is None, claim
    got = find_substitution("The Tarsia treaty was signed by John Herne.",
                            "The Tarsia treaty was signed in Paris by William Herne.")
    assert got == Substitution("John Herne", "William Herne")
