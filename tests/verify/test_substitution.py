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
    # too little of the sentence matches to call it the same statement
    ("Hepburn was American.", "Tracy was British."),
    # the sentence that names another name is a different sentence from the frame
    ("Kuwait borders Iran to its north and Saudi Arabia to its south.",
     "Kuwait borders Saudi Arabia to its south. Iraq lies to its north and Iran across the gulf."),
])
def test_what_is_not_a_swap(claim, passage):
    assert find_substitution(claim, passage) is None


def test_a_titled_passage_about_another_subject_is_not_read():
    # anchored_only: only passages titled with a name of the claim are read this way
    claim = "Audrey Hepburn was an American actress and humanitarian."
    assert find_substitution(claim, LEAD, title="Katharine Hepburn", anchored_only=True) is None
    assert find_substitution(claim, LEAD, title="Audrey Hepburn", anchored_only=True) == \
        Substitution("American", "British")
