from __future__ import annotations

from dataclasses import replace

import pytest

from offline_eval.errors import StageError
from offline_eval.pipeline import Pipeline
from offline_eval.types import Claim, Item, ResponseResult


class AddClaim:
    name = "test.add_claim.v1"
    requires = ("item",)
    assigns = ("claims",)

    def __call__(self, batch):
        return [replace(r, claims=(Claim("c1", r.item.response, judgment=True),)) for r in batch]


class NeedsOrder:
    name = "test.needs_order.v1"
    requires = ("order",)
    assigns = ("metrics",)

    def __call__(self, batch):
        return batch


class Boom:
    name = "test.boom.v1"
    requires = ("claims",)
    assigns = ()

    def __call__(self, batch):
        raise ZeroDivisionError("bad")


class ReturnsNone:
    name = "test.none.v1"
    requires = ()
    assigns = ()

    def __call__(self, batch):
        return None


def rec(i="a"):
    return ResponseResult(item=Item(id=i, query="q", response="Paris is in France."))


def test_order_is_validated_before_running():
    with pytest.raises(StageError, match="requires \\['order'\\]"):
        Pipeline([AddClaim(), NeedsOrder()])


def test_unknown_field_is_refused():
    bad = type("Bad", (), {"name": "b", "requires": ("nope",), "assigns": (), "__call__": None})
    with pytest.raises(StageError, match="unknown fields"):
        Pipeline([bad()])


def test_failure_is_wrapped_with_stage_name():
    pipe = Pipeline([AddClaim(), Boom()])
    with pytest.raises(StageError, match="test.boom.v1.*ZeroDivisionError"):
        pipe([rec()])


def test_return_type_is_checked():
    with pytest.raises(StageError, match="test.none.v1"):
        Pipeline([ReturnsNone()])([rec()])


def test_run_streams_in_batches_and_keeps_order():
    pipe = Pipeline([AddClaim()])
    out = list(pipe.run((rec(str(i)) for i in range(7)), batch_size=3))
    assert [r.id for r in out] == [str(i) for i in range(7)]
    assert all(r.claims[0].text == "Paris is in France." for r in out)
