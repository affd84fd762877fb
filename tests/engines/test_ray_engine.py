"""The Ray engine gives the same rows as the local engine (skipped without the ray extra)."""
from __future__ import annotations

import json
import os

import pytest

ray = pytest.importorskip("ray")  # imported before the engine runs, without Ray's cluster switch

from offline_eval.engines.local import run_local  # noqa: E402
from offline_eval.engines.ray_engine import (_CLUSTER_ENV, LOOPBACK, OUTPUT_NAME,  # noqa: E402
                                             _loopback_only, run_ray)
from offline_eval.engines.spec import build_pipeline  # noqa: E402
from offline_eval.io.items import read_items  # noqa: E402
from offline_eval.io.rows import score_row  # noqa: E402
from tests.engines.test_local_engine import make_input, sorted_lines  # noqa: E402
from tests.engines.toy_run import toy_specs  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    with _loopback_only():  # as run_ray starts a local instance
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address=LOOPBACK,
                 runtime_env={"env_vars": {"PYTHONPATH": str(__import__("pathlib").Path.cwd())}})
    yield
    ray.shutdown()


def test_local_instance_is_on_loopback(local_ray):
    if os.environ.get(_CLUSTER_ENV, "0") != "0":
        pytest.skip(f"{_CLUSTER_ENV} is set explicitly")
    assert {n["NodeManagerAddress"] for n in ray.nodes()} == {LOOPBACK}
    assert ray.get_runtime_context().gcs_address.startswith(f"{LOOPBACK}:")


def test_ray_rows_equal_local_rows(tmp_path, local_ray):
    inp = make_input(tmp_path, n=9, explode=4)
    local = tmp_path / "local.jsonl"
    stats = run_local(read_items(inp), build_pipeline(toy_specs()), local, score_row,
                      batch_size=2, progress=False)
    assert stats.failed == 1
    rstats = run_ray(inp, toy_specs(), tmp_path / "ray", score_row, batch_size=3)
    assert (rstats.done, rstats.failed) == (8, 1)
    assert sorted_lines(tmp_path / "ray" / OUTPUT_NAME) == sorted_lines(local)


def test_ray_resume_skips_finished_rows(tmp_path, local_ray):
    inp = make_input(tmp_path, n=6)
    out = tmp_path / "ray"
    out.mkdir()
    full = tmp_path / "full.jsonl"
    run_local(read_items(inp), build_pipeline(toy_specs()), full, score_row, progress=False)
    first = full.read_text().splitlines()[:2]
    (out / OUTPUT_NAME).write_text("\n".join(first) + "\n")
    stats = run_ray(inp, toy_specs(), out, score_row, resume=True)
    assert (stats.skipped, stats.done) == (2, 4)
    assert sorted_lines(out / OUTPUT_NAME) == sorted_lines(full)
    assert len({json.loads(x)["id"] for x in (out / OUTPUT_NAME).read_text().splitlines()}) == 6
