"""Subject linking and the evidence order it gives: subject, topic, then BM25 naming them."""
from __future__ import annotations

import numpy as np

from offline_eval.index.chunk import Document
from offline_eval.index.link import Linker, lead_names
from offline_eval.index.searcher import SearchIndex
from offline_eval.nli.config import VerifyConfig
from offline_eval.nli.verifier import Verifier
from offline_eval.types import Evidence

LEADS = [
    ("Marie Curie", "Marie Curie", "Maria Salomea Sklodowska, better known as Marie Curie, was a "
     "Polish physicist. She shared the 1903 Nobel Prize in Physics with Pierre Curie."),
    ("Pierre Curie", "Pierre Curie", "Pierre Curie was a French physicist born in Paris. He "
     "married the physicist Marie Curie in 1895. He died in 1906."),
    ("Australia", "Australia", "Australia, officially the Commonwealth of Australia, is a "
     "country. Its capital is Canberra."),
    ("Australia (continent)", "Australia (continent)", "The continent of Australia is a landmass."),
    ("Sydney", "Sydney", "Sydney is the capital city of the state of New South Wales and the most "
     "populous city in Australia."),
    ("Nile", "Nile", "The Nile is a river in Africa. It is 6,650 km long."),
    ("Blue Nile", "Blue Nile", "The Blue Nile is a river that rises at Lake Tana. It joins the "
     "White Nile at Khartoum."),
    ("World Health Organization", "World Health Organization",
     "The World Health Organization (WHO) is an agency of the United Nations."),
    ("Psycho (1960 film)", "Psycho (1960 film)", "Psycho is a 1960 horror film."),
    ("Alfred Hitchcock", "Alfred Hitchcock", "Alfred Hitchcock was an English film director. "
     "His films include Psycho."),
    ("Paris", "Paris", "Paris is the capital of France."),
    ("Warsaw", "Warsaw", "Warsaw is the capital of Poland."),
    ("Mars", "Mars", "Mars is the fourth planet from the Sun."),
    ("Doctor Who", "Doctor Who", "Doctor Who is a television programme."),
]
DOCS = [Document(i, text, title) for i, title, text in LEADS]


def linker() -> Linker:
    return Linker.from_documents(LEADS)


def test_an_exact_title_beats_a_bare_title_and_a_lead_name_is_an_alias():
    L = linker()
    assert L.subject("The capital of Australia is Sydney.").doc_id == "Australia"
    link = L.subject("The Commonwealth of Australia has six states.")
    assert (link.doc_id, link.how) == ("Australia", "alias")
    assert L.subject("Psycho was released in 1960.").doc_id == "Psycho (1960 film)"


def test_a_shared_surname_links_nothing_and_says_why():
    link = linker().subject("Curie was born in Warsaw.")
    assert link.doc_id is None
    assert link.why == "'Curie' matches 2 documents (Marie Curie, Pierre Curie); none is linked"


def test_a_shared_name_is_linked_when_the_texts_other_words_pick_one_title():
    L = Linker.from_documents([
        ("river", "Amazon River", "The Amazon River is a river in South America."),
        ("firm", "Amazon (company)", "Amazon is an American company."),
        ("forest", "Amazon rainforest", "The Amazon rainforest, or simply the Amazon, is a forest."),
        *LEADS])
    link = L.subject("The Amazon is the world's largest river by discharge.")
    assert (link.doc_id, link.how) == ("river", "context")
    assert "matches 3 documents" in link.why and "'Amazon River'" in link.why
    assert L.subject("Amazon sells books as a company.").doc_id == "firm"
    # no word picks one, or two do: none is linked, as before
    assert L.subject("The Amazon is vast.").doc_id is None
    assert L.subject("The Amazon river and rainforest are vast.").doc_id is None
    assert L.subject("Curie was born in Warsaw.").doc_id is None
    assert L.subject("Curie, like Pierre, was a physicist.").doc_id == "Pierre Curie"
    # the query's topic, one of the documents the name could mean, still comes first
    index = SearchIndex.from_documents(DOCS)
    hit = index.search_about("Curie, like Pierre, was a physicist.", k=1,
                             query="Where was Marie Curie born?")[0]
    assert (hit.passage.doc_id, hit.found_by) == ("Marie Curie", "topic")


def test_a_numbered_work_is_named_by_its_ordinal_and_the_creator_picks_which():
    L = Linker.from_documents([
        ("b5", "Symphony No. 5 (Beethoven)", "The Symphony No. 5 in C minor, Op. 67, is a symphony "
         "by Ludwig van Beethoven. First performed in Vienna in 1808, it is famous."),
        ("m5", "Symphony No. 5 (Mahler)", "The Symphony No. 5 by Gustav Mahler was composed in 1901."),
        ("b9", "Symphony No. 9 (Beethoven)", "The Symphony No. 9 in D minor is a choral symphony."),
        ("lvb", "Ludwig van Beethoven", "Ludwig van Beethoven was a German composer."),
        ("gm", "Gustav Mahler", "Gustav Mahler was an Austro-Bohemian composer."), *LEADS])
    link = L.subject("Beethoven's Fifth Symphony was first performed in Vienna in 1808.")
    assert (link.doc_id, link.how) == ("b5", "context")  # two Fifth Symphonies: "Beethoven" picks
    assert L.subject("Mahler's Fifth Symphony was composed in 1901.").doc_id == "m5"
    assert L.subject("The Ninth Symphony is a choral symphony.").doc_id == "b9"  # one holder
    assert L.subject("The Fifth Symphony is famous.").doc_id is None  # two, and no word picks
    # the claim is judged against its own article, not the composer's
    index = SearchIndex.from_documents([Document(i, t, n) for i, n, t in (
        ("b5", "Symphony No. 5 (Beethoven)", "The Symphony No. 5 in C minor, Op. 67, is a symphony by "
         "Ludwig van Beethoven. First performed in Vienna in 1808, it is famous."),
        ("lvb", "Ludwig van Beethoven", "Ludwig van Beethoven was a German composer. His Symphony "
         "No. 5 and Symphony No. 9 are famous."))])
    hit = index.search_about("Beethoven's Fifth Symphony was first performed in Vienna in 1808.", k=1)[0]
    assert (hit.passage.doc_id, hit.found_by) == ("b5", "subject")


def test_the_subject_is_not_a_name_after_a_preposition_nor_a_possessor():
    L = linker()
    assert L.subject("In Paris, Marie Curie studied physics.").doc_id == "Marie Curie"
    assert L.subject("Alfred Hitchcock's Psycho is a horror film.").doc_id == "Psycho (1960 film)"
    assert L.subject("Alfred Hitchcock directed Psycho.").doc_id == "Alfred Hitchcock"
    # the phrase's determiners and names stand between: "in the Blue Nile", "of the Sun"
    assert L.subject("After the Blue Nile trip of 1890, Pierre Curie was a physicist."
                     ).doc_id == "Pierre Curie"
    assert L.subject("With the Sun far away, Mars is cold.").doc_id == "Mars"
    assert L.subject("The capital of Australia is Canberra.").doc_id == "Australia"  # a noun's "of"


def test_an_unknown_first_name_links_nothing_rather_than_a_later_one():
    link = linker().subject("Leonardo painted in Paris.")
    assert link.doc_id is None and "Leonardo" in link.why


def test_acronyms_match_only_in_capitals_and_accents_fold():
    L = linker()
    assert L.subject("WHO coordinates health policy.").doc_id == "World Health Organization"
    assert L.subject("Who founded Paris?").doc_id == "Paris"
    assert L.subject("The Who played loud.").doc_id is None  # no stop word is a surname
    assert L.subject("Mar. 3 was a Monday.").doc_id is None  # no "Mar" for Mars
    assert Linker.from_documents([("t", "Tōkyō", "")]).subject("Tokyo is big.").doc_id == "t"


def test_naming_a_longer_name_is_not_naming_the_subject():
    L = linker()
    assert L.names_subject("It joins the White Nile and then the Nile.", "Nile")
    assert not L.names_subject("The Blue Nile rises at Lake Tana.", "Nile")


def test_lead_names():
    assert lead_names("Australia, officially the Commonwealth of Australia, is a country.") == [
        "Commonwealth of Australia"]
    assert lead_names("The gaur, also known as the Indian bison, is a bovine.") == []


def test_search_about_reads_the_subject_first_then_sentences_that_speak_of_it():
    docs = DOCS + [Document("Polish school", "It taught girls. In 1883 Marie Curie finished "
                            "school in Warsaw with a gold medal. It closed later.", "Polish school")]
    index = SearchIndex.from_documents(docs)
    hits = index.search_about("Marie Curie was born in Warsaw.", k=5)
    # Pierre Curie's "He married the physicist Marie Curie" names her on the way: it is
    # about him, and is not read; the school's sentence is about her
    assert [(h.passage.doc_id, h.found_by) for h in hits] == [
        ("Marie Curie", "subject"), ("Polish school", "bm25")]
    school = hits[1]
    assert school.passage.text == "In 1883 Marie Curie finished school in Warsaw with a gold medal."
    doc = next(d for d in docs if d.id == "Polish school")
    assert doc.text[school.passage.start:school.passage.end] == school.passage.text
    assert school.why.endswith("its sentences about 'Marie Curie'")
    # BM25 alone ranks Sydney's lead first for an Australia claim; the subject comes first here
    claim = "The capital of Australia is Sydney."
    assert index.search(claim, 1)[0].passage.doc_id == "Sydney"
    hits = index.search_about(claim, 2)
    assert hits[0].passage.doc_id == "Australia"
    # the claim speaks of Sydney too: Sydney's sentence that names Australia is read
    assert (hits[1].passage.doc_id, hits[1].found_by) == ("Sydney", "bm25")
    assert hits[1].why.endswith("its sentences that name 'Australia' (the claim speaks of 'Sydney' too)")
    # a claim that does not: it is not ("the most populous city in Australia" is Sydney's)
    assert "Sydney" not in [h.passage.doc_id for h in index.search_about("Australia is a big country.", 5)]


def test_a_sentence_speaks_of_its_first_name_not_of_names_on_the_way():
    L = Linker.from_documents(LEADS)
    assert L.is_subject_of("In 1903 Marie Curie won a prize with Pierre Curie.", "Marie Curie")
    assert not L.is_subject_of("In 1903 Marie Curie won a prize with Pierre Curie.", "Pierre Curie")
    assert not L.is_subject_of("He married the physicist Marie Curie.", "Marie Curie")
    assert not L.is_subject_of("The Blue Nile joins the Nile.", "Nile")
    # a title word the subject's names lack: "Pierre"; a shared surname is not one
    assert L.shares_title("Marie Curie married Pierre in Paris.", "Pierre Curie", "Marie Curie")
    assert not L.shares_title("Marie Curie was a Curie.", "Pierre Curie", "Marie Curie")
    assert not L.shares_title("Marie Curie loved the continent.", "Australia (continent)",
                              "Marie Curie")


def test_search_about_falls_back_to_the_query_topic_then_to_bm25_with_a_reason():
    index = SearchIndex.from_documents(DOCS)
    hits = index.search_about("It is 6,650 km long.", k=2, query="How long is the Nile?")
    assert (hits[0].passage.doc_id, hits[0].found_by) == ("Nile", "topic")
    # a pronoun subject: the topic, not the place the claim names
    q = "Where was Marie Curie born?"
    hits = index.search_about("She was born in Warsaw.", k=2, query=q)
    assert (hits[0].passage.doc_id, hits[0].found_by) == ("Marie Curie", "topic")
    # a shared surname: the topic when it is one of the documents the name could mean
    assert index.search_about("Curie was born in Warsaw.", k=1, query=q)[0].found_by == "topic"
    # a subject the corpus does not hold is not replaced by the query's topic
    hits = index.search_about("Irene Joliot-Curie won a prize in 1935.", k=3, query=q)
    assert {h.found_by for h in hits} == {"bm25"}
    hits = index.search_about("Curie was a physicist.", k=2)
    assert {h.found_by for h in hits} == {"bm25"}
    assert all("matches 2 documents" in h.why for h in hits)
    untitled = SearchIndex.from_documents([Document("n1", "Notes on Curie and physics.")])
    (hit,) = untitled.search_about("Curie was a physicist.", k=3)
    assert hit.found_by == "bm25" and hit.why.endswith("the corpus has no titles")


class _Runner:
    """Contradicts any premise holding ``bad``, entails any other."""

    labels = ("entailment", "neutral", "contradiction")

    def __init__(self, bad: str) -> None:
        self.bad = bad

    def predict(self, pairs):
        return np.array([[.02, .03, .95] if self.bad in p else [.95, .03, .02] for p, _ in pairs])


def _ev(doc: str, text: str, found_by: str | None) -> Evidence:
    return Evidence(f"{doc}#0", text, doc_id=doc, title=doc, found_by=found_by)


CFG = VerifyConfig(support=0.5, contradict=0.5, strong=0.99, assemble_sentences=0)


def _unlinked(passages: list[Evidence]) -> list[Evidence]:
    """The same passages as given evidence: no retrieval reason on them."""
    return [Evidence(e.passage_id, e.text, doc_id=e.doc_id, title=e.title) for e in passages]


def test_another_entity_contradicts_only_when_it_speaks_to_the_claim():
    claim = "Marie Curie was born in Warsaw."
    v = Verifier(_Runner("married"), CFG)
    linked = [_ev("Marie Curie", "Marie Curie was born in Warsaw.", "subject"),
              _ev("Pierre Curie", "He married Marie Curie in 1895.", "bm25")]
    assert v.verify(claim, linked).label == "supported"
    # the same passages, not linked: a passage naming her may contradict, as before
    assert v.verify(claim, _unlinked(linked)).label == "contradicted"
    # it speaks to the predicate: it can contradict
    born = [linked[0], _ev("Pierre Curie", "Marie Curie was born in Paris, he married her.", "bm25")]
    assert v.verify(claim, born).label in ("contradicted", "inconclusive")


def test_the_number_rule_reads_only_the_subjects_document_when_linked():
    claim = "Lake Tana is 84 km long."
    v = Verifier(_Runner("never"), CFG)
    linked = [_ev("Lake Tana", "Lake Tana is a lake in Ethiopia.", "subject"),
              _ev("Bahir Dar", "Bahir Dar lies 3 km from Lake Tana.", "bm25")]
    assert v.verify(claim, linked).label == "supported"
    verdict = v.verify(claim, _unlinked(linked))
    assert (verdict.label, verdict.rule) == ("contradicted", "numbers")
