from __future__ import annotations

import numpy as np

from offline_eval.importance import signals as sg
from offline_eval.importance.features import FEATURES, QueryView, response_features
from offline_eval.importance.query import clean_query, expected_answer_type

QUERY = "In a paragraph, could you answer: who founded the Acme Rocket Company"
CLAIMS = (
    "The Acme Rocket Company was founded.",
    "Jane Doe founded the Acme Rocket Company in 1975.",
    "The company builds rockets.",
    "Rockets are loud.",
)


def _features(nlp, embedder, claims=CLAIMS, sent=(0, 0, 1, 2)):
    q = clean_query(QUERY)
    qdoc = nlp(q)
    view = QueryView.from_doc(qdoc, expected_answer_type(q))
    vecs = embedder.predict([q, *claims])
    return view, response_features(view, vecs[0], [nlp(c) for c in claims], vecs[1:], sent)


def col(x, name):
    return x[:, FEATURES.index(name)]


def test_shapes_and_query_view(nlp, embedder):
    view, x = _features(nlp, embedder)
    assert x.shape == (4, len(FEATURES)) and np.isfinite(x).all()
    assert view.answer_type == "person"
    assert {"acme", "rocket", "company"} <= view.head and "who" not in view.focus


def test_answer_signals_pick_the_answer_claim(nlp, embedder):
    _, x = _features(nlp, embedder)
    assert col(x, "type_match").tolist() == [0.0, 1.0, 0.0, 0.0]
    assert col(x, "new_entity")[1] == 1.0
    assert col(x, "restatement")[0] == 1.0 and col(x, "novelty")[0] == 0.0
    assert col(x, "answer_link")[1] == 1.0  # it is the answer candidate itself
    assert col(x, "head_phrase")[0] == 1.0 and col(x, "head_phrase")[3] < 0.5


def test_position_and_sentence_columns(nlp, embedder):
    _, x = _features(nlp, embedder)
    assert col(x, "claim_position").tolist() == [0.0, 1 / 3, 2 / 3, 1.0]
    assert col(x, "sentence_position").tolist() == [0.0, 0.0, 0.5, 1.0]
    assert col(x, "first_sentence").tolist() == [1.0, 1.0, 0.0, 0.0]
    assert col(x, "sentence_cos")[0] == col(x, "sentence_cos")[1]
    assert col(x, "cos_rank").max() == 1.0 and col(x, "redundancy").min() == 0.0


def test_empty_and_single_claim(nlp, embedder):
    _, x = _features(nlp, embedder, claims=(), sent=())
    assert x.shape == (0, len(FEATURES))
    _, x = _features(nlp, embedder, claims=("Jane Doe founded it.",), sent=(0,))
    assert x.shape == (1, len(FEATURES)) and np.isfinite(x).all()


def test_signals_on_parses(nlp):
    doc = nlp("Jane Doe founded the company in 1975.")
    assert "jane" in sg.subject_lemmas(doc) or "doe" in sg.subject_lemmas(doc)
    assert "found" in sg.predicate_lemmas(doc)
    assert {"PERSON", "DATE"} <= sg.entity_labels(doc)
    assert sg.type_match("date", doc) == 1.0 and sg.type_match(None, doc) == 0.0
    assert sg.new_entities({"jane", "doe"}, doc) >= 1
