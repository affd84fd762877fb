from __future__ import annotations

from offline_eval.pipeline import Pipeline
from offline_eval.stages.rank import Rank
from offline_eval.types import Claim, Item, ResponseResult


def record(n, rid="r"):
    claims = tuple(Claim(id=f"c{i}", text=f"claim {i}", sentence_index=i // 2) for i in range(n))
    return ResponseResult(item=Item(id=rid, query="q?", response="..."), claims=claims)


def test_rank_stage_assigns_importance_rank_and_order(fake_ranker):
    fake = fake_ranker
    stage = Rank(ranker=fake)
    pipe = Pipeline([stage], provided=("item", "claims"))
    out = pipe([record(3), record(0, "empty")])
    c = out[0].claims
    assert [x.importance for x in c] == ["vital", "less-important", "less-important"]
    assert [x.rank for x in c] == [1, 2, 3] and c[0].importance_score == 0.0
    assert out[0].order == ("c0", "c1", "c2")
    assert out[1].claims == () and out[1].order == ()
    assert len(fake.requests) == 1 and fake.requests[0].sentence_index == (0, 0, 1)


def test_rank_stage_declares_its_fields():
    assert Rank.requires == ("claims",) and set(Rank.assigns) == {"claims", "order"}
    assert Rank.name == "offline_eval.stages.rank.v1"
