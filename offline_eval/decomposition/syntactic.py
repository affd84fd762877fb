"""The ``syntactic`` decomposer: clause splits on the spaCy parse, then
decontextualisation of pronouns and short references. ``granularity="atomic"`` splits
further, FActScore-style (:mod:`~offline_eval.decomposition.atomic`).

>>> from offline_eval.decomposition.syntactic import SyntacticDecomposer
>>> d = SyntacticDecomposer()
>>> out = d.decompose("Who was Barack Obama?", [
...     "Barack Obama was the 44th president of the United States.",
...     "He was born in Honolulu and studied law at Harvard."])
>>> list(out[1].claims)
['Barack Obama was born in Honolulu.', 'Barack Obama studied law at Harvard.']
"""
from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any, Iterator, Sequence

from offline_eval.decomposition import atomic
from offline_eval.decomposition.base import GRANULARITIES, Request, SentenceClaims
from offline_eval.decomposition.clauses import Unit, distribute, plan_units
from offline_eval.decomposition.nlp import DEFAULT_SPACY_MODEL, load_spacy
from offline_eval.decomposition.resolve import Memory, Mention, resolve_sentence, topic_from_query
from offline_eval.decomposition.tokens import render, tidy

MAX_CLAIMS = 12
TOPIC_CACHE = 4096
#: sentences to parse in one call that start the shared spaCy workers
POOL_START = 128
#: sentences per chunk sent to a spaCy worker: at least / at most
CHUNK_MIN, CHUNK_MAX = 16, 128


class ParseCache:
    """Recent spaCy parses by (model, text), shared by the syntactic decomposers of a
    process, bounded by their tokens (a parse costs about 400 bytes a token, its tensor
    most of it): :attr:`TOKENS` in all, none longer than :attr:`LONGEST`; the least
    recently used go first. Safe to share between threads.

    >>> c = ParseCache(); c.put(("m", "a b"), ["a", "b"]); c.get(("m", "a b"))
    ['a', 'b']
    """

    TOKENS = 200_000   # about 80 MB; 0 turns it off
    LONGEST = 256

    def __init__(self) -> None:
        import threading
        self._d: "OrderedDict[tuple[str, str], Any]" = OrderedDict()
        self._tokens = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> Any:
        with self._lock:
            doc = self._d.get(key)
            if doc is not None:
                self._d.move_to_end(key)
            return doc

    def put(self, key: tuple[str, str], doc: Any) -> None:
        n = len(doc)
        if n > self.LONGEST or n > self.TOKENS:
            return
        with self._lock:
            if key in self._d:
                self._d.move_to_end(key)
                return
            self._d[key] = doc
            self._tokens += n
            while self._tokens > self.TOKENS:
                _, old = self._d.popitem(last=False)
                self._tokens -= len(old)

    def clear(self) -> None:
        with self._lock:
            self._d.clear()
            self._tokens = 0


_PARSED = ParseCache()
_INTRO_LEAD = re.compile(r"^\W*(?:(?:sure|certainly|of course|okay|ok)\W+)?(?:here\s+(?:is|are)|"
                         r"below\s+(?:is|are)|the\s+following\s+(?:is|are)|these\s+are)\s+"
                         r"(?:a\s+list\s+of\s+|some\s+(?:of\s+the\s+)?|a\s+few\s+|the\s+)?",
                         re.IGNORECASE)
_LABEL = re.compile(r"^(?P<label>[^:–—]{1,60}?)\s*(?::|\s[–—-])\s+(?P<rest>.+)$")


class SyntacticDecomposer:
    """Rule-based decomposer on the spaCy dependency parse (fast, deterministic).

    Args:
        spacy_model: installed spaCy package to parse with.
        max_claims: cap on claims per sentence.
        granularity: ``"clause"`` (the guideline's clause-level claims, default) or
            ``"atomic"`` (finer, FActScore-style; see
            :mod:`~offline_eval.decomposition.atomic`).
        workers: share calls with more than :data:`POOL_START` sentences to parse with
            the process's spaCy worker processes
            (:func:`~offline_eval.spacy_workers.shared_pool`); the claims are the same.

    Raises:
        ValueError: for an unknown granularity.
    """

    name = "syntactic"
    #: a sentence's claims do not depend on the other sentences of a call (spaCy parses each
    #: text alone), so callers may batch freely
    batch_invariant = True

    def __init__(self, spacy_model: str = DEFAULT_SPACY_MODEL, max_claims: int = MAX_CLAIMS,
                 granularity: str = "clause", workers: bool = True) -> None:
        if granularity not in GRANULARITIES:
            raise ValueError(f"unknown granularity {granularity!r}; valid: {', '.join(GRANULARITIES)}")
        self.spacy_model = spacy_model
        self.max_claims = max_claims
        self.granularity = granularity
        self.workers = workers
        self._nlp: Any = None
        self._topic_cache: dict[str, Mention | None] = {}

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            self._nlp = load_spacy(self.spacy_model, "parse")
        return self._nlp

    def decompose(self, query: str, sentences: Sequence[str],
                  targets: Sequence[int] | None = None) -> list[SentenceClaims]:
        """Decompose ``sentences[i]`` for ``i`` in ``targets`` (all by default)."""
        req = Request(query, tuple(sentences), None if targets is None else tuple(targets))
        return self.decompose_batch([req])[0]

    def decompose_batch(self, requests: Sequence[Request]) -> list[list[SentenceClaims]]:
        """Parse all units of all requests in one spaCy stream, then decompose.

        Units after a request's last target are not parsed: they can change no claim.
        Each distinct query is parsed once (and its topic cached across calls: many
        responses often answer the same question). A request's claims depend on it alone,
        so a call with many sentences is cut into chunks of requests, shared with the
        process's spaCy workers (``workers``)."""
        pool = self._pool(requests)
        if pool is None:
            return self._decompose_here(requests)
        from offline_eval.spacy_workers import chunked
        chunks = chunked(list(requests), pool, CHUNK_MIN, CHUNK_MAX, weight=_context_end)
        options = {"granularity": self.granularity, "max_claims": self.max_claims}
        return pool.map("decompose", options, chunks, self._decompose_here, _claims_from_json,
                        _request_json)

    def _pool(self, requests: Sequence[Request]) -> Any:
        """The shared spaCy pool for a call of these requests, or None to work here: it
        is started by a call with more than :data:`POOL_START` sentences to parse, and
        used by any call with at least two chunks' worth."""
        if not self.workers:
            return None
        from offline_eval.spacy_workers import pool_for
        return pool_for(self.spacy_model, sum(_context_end(r) for r in requests), 2 * CHUNK_MIN, POOL_START)

    def _decompose_here(self, requests: Sequence[Request]) -> list[list[SentenceClaims]]:
        topics = self._topics({r.query for r in requests if r.query.strip()})
        texts = [_drop_label(t) for r in requests for t in r.sentences[:_context_end(r)]]
        docs = self.parsed(texts)
        return [self._one(req, docs, topics.get(req.query)) for req in requests]

    def parsed(self, texts: Sequence[str]) -> Iterator[Any]:
        """The parse of each text, in order, as the parser streams them: a text parsed
        before by a syntactic decomposer of this process (among its recent parses, see
        :class:`ParseCache`) is taken from memory. A parse does not depend on the other
        texts of a call, so this changes no claim; in RAG mode the nuggets and
        comprehensiveness stages read the same reference sentences, and the second reads
        them from here."""
        key = self.spacy_model
        todo = [t for t in dict.fromkeys(texts) if _PARSED.get((key, t)) is None]
        fresh, ptr = iter(self.nlp.pipe(todo, batch_size=256)), 0
        for t in texts:
            doc = _PARSED.get((key, t))
            if doc is None and ptr < len(todo) and todo[ptr] == t:
                doc, ptr = next(fresh), ptr + 1
            elif doc is None:   # parsed earlier in this call, then pushed out of memory
                doc = self.nlp(t)
            _PARSED.put((key, t), doc)
            yield doc

    def _topics(self, queries: set[str]) -> dict[str, Mention | None]:
        found = {q: self._topic_cache[q] for q in queries if q in self._topic_cache}
        todo = sorted(queries - set(found))
        for query, doc in zip(todo, self.nlp.pipe(todo, batch_size=256)):
            found[query] = topic_from_query(doc)
        if len(self._topic_cache) + len(todo) > TOPIC_CACHE:
            self._topic_cache.clear()
        self._topic_cache.update((q, found[q]) for q in todo)
        return found

    def _one(self, req: Request, docs: Iterator[Any], topic: Mention | None) -> list[SentenceClaims]:
        wanted = set(range(len(req.sentences)) if req.targets is None else req.targets)
        mem = Memory()
        mem.topic = topic
        out: list[SentenceClaims] = []
        intro, since = "", 0
        end = _context_end(req)
        for i, text in enumerate(req.sentences):
            if i >= end:
                out.append(SentenceClaims(text))
                continue
            doc = next(docs)
            repl = resolve_sentence(doc, mem)
            claims: tuple[str, ...] = ()
            if i in wanted:
                claims = tuple(self.claims_of(doc, repl, intro))[: self.max_claims]
            out.append(SentenceClaims(text, claims))
            since += 1
            if text.rstrip().endswith(":"):
                intro, since = text, 0
            elif since > 20:
                intro = ""
        return out

    def claims_of(self, doc: Any, repl: dict[int, str], previous: str = "") -> list[str]:
        """Claims of one parsed sentence given token replacements."""
        if doc.text.rstrip().endswith(":"):
            return []
        if not any(t.pos_ in ("VERB", "AUX") for t in doc):
            return [c for c in [_fragment(doc.text, previous)] if c]
        fine = self.granularity == "atomic"
        units = plan_units(doc, atomic.split_point if fine else None)
        heads = {u.head for u in units}
        claims: list[str] = []
        for unit in units:
            if unit.head in unit.drop:
                continue
            subs = {**repl, **_flat(unit)}
            for parts in distribute(doc, _parts(doc, unit, heads), unit.head):
                for plan in atomic.atomize(doc, parts, unit.head, subs) if fine else [parts]:
                    text = render(doc, plan, subs)
                    if _keep(text) and text not in claims:
                        claims.append(text)
        return claims or [tidy(doc.text)]


def _context_end(req: Request) -> int:
    """One past the last unit that is a target (all units when ``targets`` is None)."""
    if req.targets is None:
        return len(req.sentences)
    return max(req.targets, default=-1) + 1


def _flat(unit: Unit) -> dict[int, str]:
    # A relative pronoun may be replaced by a token list (its antecedent NP): render
    # that list as text through the parts mechanism instead (see _parts).
    return {i: r for i, r in unit.repl.items() if isinstance(r, str)}


def _parts(doc: Any, unit: Unit, heads: set[int]) -> list[int | str]:
    head = doc[unit.head]
    cut: set[int] = set(unit.drop)
    for tok in head.subtree:
        if tok.i != unit.head and tok.i in heads and _inside(tok, head, heads):
            span = {t.i for t in tok.subtree}
            if tok.dep_ == "pcomp" and tok.head.i != head.i:  # "by"/"including" goes too
                span |= {t.i for t in tok.head.subtree}
            cut |= span
            cut |= _glue(doc, doc[min(span)], span)
    parts: list[int | str] = list(unit.prefix)
    for tok in head.subtree:
        if tok.i in cut:
            continue
        r = unit.repl.get(tok.i)
        if isinstance(r, list):
            parts.extend(r)
        else:
            parts.append(tok.i)
    return parts


def _inside(tok: Any, head: Any, heads: set[int]) -> bool:
    # ``tok`` is a split point directly under ``head`` (no other split point between).
    cur = tok.head
    while cur.i != head.i:
        if cur.i in heads:
            return False
        if cur.head.i == cur.i:
            return False
        cur = cur.head
    return True


def _glue(doc: Any, tok: Any, span: set[int]) -> set[int]:
    """Commas, dashes and conjunctions that attach a removed split to its host."""
    out: set[int] = set()
    left, right = min(span), max(span)
    j = left - 1
    while j >= 0 and (doc[j].dep_ in ("cc", "punct", "mark", "preconj") or doc[j].lower_ in ("so",)) \
            and doc[j].text not in (".", "!", "?"):
        out.add(j)
        j -= 1
    if right + 1 < len(doc) and doc[right + 1].text in (",", ")", "–", "—", ";"):
        out.add(right + 1)
    return out


_LEAD_LABEL = re.compile(r"^[^:.!?]{1,50}:\s+(?=[A-Z])")


def _drop_label(text: str) -> str:
    """"Hardware support: Drivers are missing." -> "Drivers are missing." (a list
    label before a full sentence carries no claim of its own)."""
    m = _LEAD_LABEL.match(text)
    if m and len(m.group(0).split()) <= 6 and len(text[m.end():].split()) >= 4:
        return text[m.end():]
    return text


def _keep(text: str) -> bool:
    words = re.findall(r"[^\W_]+", text)
    return len(words) >= 3


def _fragment(text: str, previous: str) -> str:
    """A verbless unit (a list item): join it to the introduction it completes."""
    t = text.strip()
    m = _LABEL.match(t)
    if m and len(m.group("label").split()) <= 6:
        return tidy(f"{m.group('label')} is {m.group('rest')}")
    prev = previous.strip()
    if prev.endswith(":"):
        intro = prev[:-1].strip()
        lead = _INTRO_LEAD.match(intro)
        if lead:
            return tidy(f"{t.rstrip('.')} is one of the {intro[lead.end():]}")
        return tidy(f"{intro} {t}")
    return tidy(t) if len(t.split()) >= 3 else ""


def _request_json(req: Request) -> list[Any]:
    return [req.query, list(req.sentences), None if req.targets is None else list(req.targets)]


def _claims_from_json(data: list[Any]) -> list[SentenceClaims]:
    return [SentenceClaims(str(s), tuple(c), tuple(w)) for s, c, w in data]


_IN_WORKER: dict[tuple[str, str, int], SyntacticDecomposer] = {}


def decompose_task(model: str, options: dict[str, Any], items: list[Any]) -> list[Any]:
    """A spaCy worker's side of :meth:`SyntacticDecomposer.decompose_batch`: the claims of
    each request (``[query, sentences, targets]``), as JSON."""
    key = (model, str(options.get("granularity", "clause")), int(options.get("max_claims", MAX_CLAIMS)))
    if key not in _IN_WORKER:
        _IN_WORKER[key] = SyntacticDecomposer(model, key[2], key[1], workers=False)
    reqs = [Request(str(q), tuple(s), None if t is None else tuple(t)) for q, s, t in items]
    return [[[sc.sentence, list(sc.claims), list(sc.warnings)] for sc in out]
            for out in _IN_WORKER[key].decompose_batch(reqs)]
