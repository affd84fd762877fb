"""Loads the VITAL NQ importance labels (human and LLM) aligned claim by claim.

Used by ``benchmarks/importance.py`` and ``models/importance-ranker/train.py``.
Reads ``../shared/data/vitalerrors-nq/model-outputs/<annotator>/<condition>.jsonl``.
"""
from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CONDITIONS = ("normal", "missing", "wrong")
LEVEL = {"vital": 2, "okay": 1, "less-important": 0}
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "vitalerrors-nq"


@dataclass(frozen=True)
class LabelledResponse:
    condition: str
    qid: int                      # line index = query id, shared across conditions
    query: str
    claim_ids: tuple[str, ...]
    claims: tuple[str, ...]
    sentence_index: tuple[int, ...]
    human: tuple[int, ...]        # LEVEL of the human label
    human_order: tuple[str, ...]
    gpt: tuple[int, ...]
    gpt_order: tuple[str, ...]


def _rows(annotator: str, condition: str, data: Path) -> list[dict]:
    path = data / "model-outputs" / annotator / f"{condition}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load(data: Path = DATA) -> list[LabelledResponse]:
    """All responses, keeping claims that both humans and gpt-4o labelled."""
    out: list[LabelledResponse] = []
    for cond in CONDITIONS:
        for qid, (h, g) in enumerate(zip(_rows("human-eval", cond, data), _rows("gpt-4o", cond, data))):
            if h["query"] != g["query"]:
                raise ValueError(f"{cond}:{qid}: human and gpt-4o rows disagree on the query")
            glab = {c["id"]: c.get("importance") for s in g["decomposition"] for c in s["decomp"]}
            ids, texts, sents, hum, gpt = [], [], [], [], []
            for si, sent in enumerate(h["decomposition"]):
                for c in sent["decomp"]:
                    if c.get("importance") in LEVEL and glab.get(c["id"]) in LEVEL:
                        ids.append(c["id"]); texts.append(c["text"]); sents.append(si)
                        hum.append(LEVEL[c["importance"]]); gpt.append(LEVEL[glab[c["id"]]])
            out.append(LabelledResponse(cond, qid, h["query"], tuple(ids), tuple(texts),
                                        tuple(sents), tuple(hum),
                                        tuple(h.get("subclaim-importance-order") or ()),
                                        tuple(gpt), tuple(g.get("subclaim-importance-order") or ())))
    return out


_FC_LEVEL = {"yes": 2, "intermediate": 1, "no": 0}


def load_factcheck(data: Path = DATA.parent / "factcheck-gpt") -> list[LabelledResponse]:
    """Factcheck-GPT (dev part) as weak importance labels for its prompts' claims.

    A claim's level combines its sentence's ``most_importance_sentence`` and its own
    ``if_most_important_claim`` (yes 2 / intermediate 1 / no 0): the sum 4 is vital,
    3 okay, anything lower less-important.
    """
    out: list[LabelledResponse] = []
    path = data / "benchmark.jsonl"
    for qid, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue
        row = json.loads(line)
        ids, texts, sents, levels = [], [], [], []
        for si, sent in enumerate(row["sentences"].values()):
            s_level = _FC_LEVEL.get(str(sent.get("most_importance_sentence")), 0)
            marks = sent.get("if_most_important_claim") or []
            for ci, claim in enumerate(sent.get("claims") or []):
                c_level = _FC_LEVEL.get(str(marks[ci]) if ci < len(marks) else "no", 0)
                total = s_level + c_level
                ids.append(f"S{si}C{ci}"); texts.append(str(claim)); sents.append(si)
                levels.append(2 if total == 4 else 1 if total == 3 else 0)
        if ids:
            out.append(LabelledResponse("factcheck-gpt", 1000 + qid, row["prompt"], tuple(ids),
                                        tuple(texts), tuple(sents), tuple(levels), tuple(ids),
                                        tuple(levels), tuple(ids)))
    return out


#: Sources whose code decides the feature values; a change to any of them (or to the texts,
#: the spaCy model's version or the embedder) gives a new cache key.
FEATURE_SOURCES = ("importance/features.py", "importance/signals.py", "importance/query.py",
                   "importance/ranker.py", "runners/base.py", "runners/embedding.py",
                   "runners/embedding_ort.py",
                   "decomposition/nlp.py", "decomposition/ruler.py")
CACHE = Path(tempfile.gettempdir()) / "oe_importance_bench"


def npz_cached(path: Path | None, n: int, compute: Any) -> list[Any]:
    """``compute()`` (a list of ``n`` arrays), kept at ``path`` as an ``.npz`` (no pickle,
    written through a temporary file); ``path=None`` always recomputes."""
    import numpy as np

    if path is not None and path.is_file():
        with np.load(path, allow_pickle=False) as z:
            return [z[f"r{i}"] for i in range(n)]
    out = compute()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, **{f"r{i}": a for i, a in enumerate(out)})
        tmp.replace(path)
    return out


def cached_features(ranker: Any, requests: list[Any], tag: str,
                    cache: Path | None = CACHE) -> list[Any]:
    """``ranker.features(requests)``, kept in ``cache`` as an ``.npz`` (no pickle) keyed
    by the sha256 of the texts, ``tag`` (the embedder), the spaCy model's version and
    the source of :data:`FEATURE_SOURCES`; ``cache=None`` always recomputes."""
    import hashlib

    import spacy

    import offline_eval
    from offline_eval.importance.features import FEATURES
    from offline_eval.importance.ranker import SPACY_MODEL

    if cache is None:
        return ranker.features(requests)
    h = hashlib.sha256()
    root = Path(offline_eval.__file__).resolve().parent
    for part in FEATURE_SOURCES:
        h.update((root / part).read_bytes())
    h.update(json.dumps([tag, list(FEATURES), SPACY_MODEL, spacy.util.get_package_version(
        SPACY_MODEL), [[r.query, list(r.claims), list(r.sentence_index or ())]
                        for r in requests]]).encode())
    return npz_cached(cache / f"features-{h.hexdigest()[:20]}.npz", len(requests),
                      lambda: ranker.features(requests))


def labelled_features(rs: list[LabelledResponse], fc: list[LabelledResponse],
                      cache: Path | None = CACHE) -> tuple[Any, Any]:
    """Ranker features (torch, CPU) of the NQ responses and of the Factcheck-GPT weak labels,
    as two :class:`~offline_eval.importance.selection.Labelled` sets (cached, see
    :func:`cached_features`)."""
    import numpy as np

    from offline_eval.importance.combiner import Combiner
    from offline_eval.importance.features import FEATURES
    from offline_eval.importance.ranker import ImportanceRanker, RankRequest
    from offline_eval.importance.selection import Labelled

    k = len(FEATURES)
    ranker = ImportanceRanker(combiner=Combiner(FEATURES, np.zeros(k), np.ones(k), np.zeros(k)),
                              backend="torch", device="cpu")
    feats = cached_features(ranker, [RankRequest(r.query, r.claims, r.sentence_index)
                                     for r in rs + fc], "all-MiniLM-L6-v2 torch cpu fp32", cache)

    def labelled(part: list[Any], rows: list[LabelledResponse]) -> Any:
        return Labelled(tuple(part), tuple(np.asarray(r.human) for r in rows), tuple(r.qid for r in rows))

    return labelled(feats[:len(rs)], rs), labelled(feats[len(rs):], fc)


def cross_encoder_scores(ckpt: Path, rows: list[LabelledResponse],
                         cache: Path | None = CACHE) -> list[Any]:
    """One logit per claim from a ``train_ce.py`` checkpoint (torch, CPU, max 64 tokens),
    on (cleaned query, claim) pairs; cached as ``.npz`` keyed by the weights' sha256 and
    the texts (``cache=None`` always recomputes)."""
    import hashlib

    h = hashlib.sha256((ckpt / "model.safetensors").read_bytes())
    h.update(json.dumps([[r.query, list(r.claims)] for r in rows]).encode())

    def compute() -> list[Any]:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        from offline_eval.importance.query import clean_query

        tok = AutoTokenizer.from_pretrained(ckpt, local_files_only=True)
        model = AutoModelForSequenceClassification.from_pretrained(
            ckpt, local_files_only=True, use_safetensors=True).eval()
        out = []
        with torch.inference_mode():
            for r in rows:
                enc = tok([clean_query(r.query)] * len(r.claims), list(r.claims), truncation=True,
                          max_length=64, padding=True, return_tensors="pt")
                out.append(model(**enc).logits[:, 0].double().numpy())
        return out

    return npz_cached(cache / f"ce-{h.hexdigest()[:20]}.npz" if cache is not None else None,
                      len(rows), compute)
