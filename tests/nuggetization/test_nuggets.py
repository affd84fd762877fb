from __future__ import annotations

import json
import re

import numpy as np
import pytest

from offline_eval.nuggetization.builder import (NuggetBuilder, NuggetConfig, dedupe,
                                             nugget_supports, recall_metrics, support_of)
from offline_eval.importance.ranker import Ranking
from offline_eval.nli.verifier import Verifier
from offline_eval.stages.nuggets import Nuggets
from offline_eval.types import Item, Nugget, Reference, ResponseResult


class WordNLI:
    """Entailment = share of the hypothesis' words found in the premise."""

    labels = ("entailment", "neutral", "contradiction")

    def predict(self, pairs):
        out = []
        for premise, hyp in pairs:
            words = set(re.findall(r"\w+", hyp.lower()))
            p = len(words & set(re.findall(r"\w+", premise.lower()))) / max(1, len(words))
            p = 0.98 if p == 1 else 0.4 * p
            out.append([p, 1 - p - 0.01, 0.01])
        return np.array(out)


def split_facts(jobs):
    return [[s.strip() + "." for s in text.split(".") if s.strip()] for _, text in jobs]


class FirstIsVital:
    def rank_many(self, requests):
        out = []
        for r in requests:
            n = len(r.claims)
            labels = tuple("vital" if i == 0 else "okay" if i < 3 else "less-important"
                           for i in range(n))
            out.append(Ranking(labels, tuple(float(-i) for i in range(n)), tuple(range(n))))
        return out


def builder(embedder, **cfg):
    return NuggetBuilder(FirstIsVital(), split_facts, embedder, NuggetConfig(**cfg))


REFS = (Reference("r1", "Jane Doe founded Acme in 1975. Acme makes rockets. Rockets are loud. "
                        "Loud things scare cats."),
        Reference("r2", "Jane Doe founded Acme in 1975. Acme is in Ohio."))


def test_dedupe_and_support_grades():
    assert dedupe(np.zeros((0, 2)), 0.9) == []
    assert support_of("supported", 0.1) == "support"
    assert support_of("unverifiable", 0.25) == "partial_support"
    assert support_of("unverifiable", 0.2, partial=0.3) == "not_support"


def test_builder_dedupes_ranks_drops_less_important_and_caps(embedder):
    (nuggets,) = builder(embedder).build_many(["who founded Acme"], [REFS])
    texts = [n.text for n in nuggets]
    assert texts == ["Jane Doe founded Acme in 1975.", "Acme makes rockets.", "Rockets are loud."]
    assert nuggets[0].importance == "vital" and nuggets[0].source_ids == ("r1", "r2")
    assert {n.importance for n in nuggets[1:]} == {"okay"}
    assert [n.id for n in nuggets] == ["N0", "N1", "N2"]
    (capped,) = builder(embedder, max_nuggets=2).build_many(["q"], [REFS])
    assert len(capped) == 2
    (kept,) = builder(embedder, keep_less_important=True).build_many(["q"], [REFS])
    assert len(kept) == 5 and kept[-1].importance == "okay"
    assert builder(embedder).build_many(["q"], [()]) == [()]


def test_supports_and_metrics_through_the_verifier():
    verifier = Verifier(WordNLI())
    nuggets = (Nugget("N0", "Jane Doe founded Acme.", "vital"),
               Nugget("N1", "Acme makes big rockets.", "okay"),
               Nugget("N2", "Cats purr.", "okay"))
    grades = nugget_supports(verifier, nuggets, "Acme was founded by Jane Doe. Acme makes rockets.")
    assert grades == ["support", "partial_support", "not_support"]
    graded = tuple(Nugget(n.id, n.text, n.importance, g) for n, g in zip(nuggets, grades))
    m = recall_metrics(graded)
    assert m["nugget_recall_strict_all"].value == pytest.approx(1 / 3)
    assert m["nugget_recall_all"].value == pytest.approx(1.5 / 3)
    assert m["nugget_recall_vital"].value == 1.0 and m["vital_recall"].value == 1.0
    assert m["vital_rlr"].value == 0.0


def test_nuggets_stage_end_to_end_with_fakes(embedder):
    stage = Nuggets(builder(embedder), verifier=Verifier(WordNLI()))
    recs = [ResponseResult(Item("a", "who founded Acme", "Jane Doe founded Acme in 1975.",
                                references=REFS)),
            ResponseResult(Item("b", "who founded Acme", "", references=REFS)),
            ResponseResult(Item("c", "q", "text"))]
    out = stage(recs)
    assert out[0].nuggets[0].support == "support"
    assert out[1].nuggets and all(n.support is None for n in out[1].nuggets)
    assert out[2].nuggets == ()


def test_cli_nuggets_rows(tmp_path, embedder):
    from offline_eval.commands.nuggets import nugget_rows, read as read_nugget_items
    p = tmp_path / "in.jsonl"
    p.write_text(json.dumps({"id": 1, "query": "who founded Acme",
                             "references": [r.text for r in REFS],
                             "response": "Jane Doe founded Acme in 1975."}) + "\n"
                 + json.dumps({"id": 2, "query": "q", "references": []}) + "\n")
    items = read_nugget_items(str(p))
    rows = list(nugget_rows(items, Nuggets(builder(embedder), verifier=Verifier(WordNLI()))))
    assert rows[0]["nuggets"][0]["support"] == "support"
    assert rows[0]["metrics"]["vital_recall"]["value"] == 1.0
    assert rows[1] == {"id": "2", "nuggets": [], "reason": "no references (and no --corpus to retrieve from)"}


class CountingEmbedder:
    """The bag-of-words embedder, counting its calls."""

    def __init__(self, inner):
        self.inner, self.calls = inner, []

    def predict(self, texts):
        self.calls.append(list(texts))
        return self.inner.predict(texts)


def test_every_pool_of_a_batch_is_embedded_in_one_call_with_the_same_nuggets(embedder):
    other = (Reference("r3", "Acme moved to Ohio in 1980. Ohio is a state."),)
    counting = CountingEmbedder(embedder)
    together = builder(counting).build_many(["who founded Acme", "where is Acme"], [REFS, other])
    assert len(counting.calls) == 1
    apart = [builder(embedder).build_many([q], [r])[0]
             for q, r in (("who founded Acme", REFS), ("where is Acme", other))]
    assert together == apart


def test_nuggets_come_from_the_references_that_share_a_word_with_the_query(embedder):
    refs = REFS + (Reference("r9", "Tides rise twice a day. Ferries run hourly."),)
    (focused,) = builder(embedder, keep_less_important=True).build_many(["who founded Acme"], [refs])
    assert focused and all("r9" not in n.source_ids for n in focused)
    (every,) = builder(embedder, keep_less_important=True,
                       source_chars=0).build_many(["who founded Acme"], [refs])
    assert any("r9" in n.source_ids for n in every)
