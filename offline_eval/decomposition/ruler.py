"""A table-driven stand-in for the matching inside spaCy's attribute ruler: the same
matches, applied the same way, at a fraction of the cost.

spaCy's ``AttributeRuler`` runs a ``Matcher`` over ~180 patterns per token (the tag
map, pronoun and auxiliary rules), then builds a ``Span`` per match to find the token
to change. In the English pipelines every pattern is one or two tokens long and tests
only ``TAG``, ``LOWER``, ``DEP`` and ``IS_SPACE``, so which patterns match a token is
a function of those four values. :class:`FastRuler` tests the patterns once per
distinct (tag, lower, dep, is_space), keeps the answer, and sets the attributes with
spaCy's own ``set_token_attrs`` in the ruler's order. A ruler with any other kind of
pattern is left alone.

>>> FastRuler([{"patterns": [[{"TAG": "NN", "OP": "+"}]], "attrs": {}}], {}, [], [])
Traceback (most recent call last):
...
ValueError: unsupported attribute ruler pattern [{'TAG': 'NN', 'OP': '+'}]
"""
from __future__ import annotations

import re
from typing import Any, Callable, Mapping, Sequence

_FIELDS = ("TAG", "LOWER", "DEP", "IS_SPACE")
_MAX_KEYS = 500_000
Test = Callable[[tuple[str, str, str, bool]], bool]
Match = tuple[int, int, int, int]


def _value_test(field: int, spec: Any) -> Callable[[tuple[str, str, str, bool]], bool] | None:
    """A test of one token field against one pattern value (None: unsupported)."""
    if isinstance(spec, bool) or isinstance(spec, str):
        if isinstance(spec, bool) != (_FIELDS[field] == "IS_SPACE"):
            return None
        return lambda key: key[field] == spec
    if not isinstance(spec, Mapping) or len(spec) != 1:
        return None
    (op, arg), = spec.items()
    if op in ("IN", "NOT_IN") and isinstance(arg, (list, tuple)) and \
            all(isinstance(a, str) for a in arg) and _FIELDS[field] != "IS_SPACE":
        values = frozenset(arg)
        if op == "IN":
            return lambda key: key[field] in values
        return lambda key: key[field] not in values
    if op == "REGEX" and isinstance(arg, str) and _FIELDS[field] != "IS_SPACE":
        regex = re.compile(arg)
        return lambda key: regex.search(key[field]) is not None
    return None


def _token_test(token_spec: Any) -> Test | None:
    if not isinstance(token_spec, Mapping) or not token_spec:
        return None
    tests = []
    for name, spec in token_spec.items():
        if name not in _FIELDS:
            return None
        test = _value_test(_FIELDS.index(name), spec)
        if test is None:
            return None
        tests.append(test)
    return lambda key: all(t(key) for t in tests)


def _gate(token_spec: Mapping[str, Any]) -> tuple[int, frozenset[str]] | None:
    """The field and values a token must have for the pattern to possibly match (a
    LOWER, TAG or DEP equality or IN list), so a token meets few patterns."""
    for name in ("LOWER", "TAG", "DEP"):
        spec = token_spec.get(name)
        if isinstance(spec, str):
            return _FIELDS.index(name), frozenset([spec])
        if isinstance(spec, Mapping) and list(spec) == ["IN"]:
            return _FIELDS.index(name), frozenset(spec["IN"])
    return None


class _Tests:
    """Token tests indexed by their gate: ``passing(key)`` runs only the candidates."""

    def __init__(self, tests: Sequence[tuple[int, Mapping[str, Any], Test]]) -> None:
        self._gated: tuple[dict[str, list[tuple[int, Test]]], ...] = tuple({} for _ in _FIELDS)
        self._open: list[tuple[int, Test]] = []
        for ident, spec, test in tests:
            gate = _gate(spec)
            if gate is None:
                self._open.append((ident, test))
            else:
                for value in gate[1]:
                    self._gated[gate[0]].setdefault(value, []).append((ident, test))

    def passing(self, key: tuple[str, str, str, bool]) -> tuple[int, ...]:
        found = [ident for ident, test in self._open if test(key)]
        for field, index in enumerate(self._gated):
            if index:
                found += [ident for ident, test in index.get(key[field], ()) if test(key)]  # type: ignore[call-overload]
        return tuple(sorted(set(found)))


class FastRuler:
    """``match`` and ``set_annotations`` for an ``AttributeRuler`` whose patterns are
    one or two tokens long and test only TAG, LOWER, DEP and IS_SPACE.

    Args:
        patterns: ``AttributeRuler.patterns`` (rule ``r`` is the ruler's key ``str(r)``).
        strings: the vocabulary's ``StringStore``.
        columns: the spaCy attribute ids of TAG, LOWER, DEP and IS_SPACE.
        attrs: the ruler's normalised attributes per rule (``AttributeRuler.attrs``).

    Raises:
        ValueError: for a pattern of another kind (see :meth:`install`).
    """

    def __init__(self, patterns: Sequence[Mapping[str, Any]], strings: Any,
                 columns: Sequence[int], attrs: Sequence[Any]) -> None:
        single, pairs = [], []
        self._indices = [int(rule.get("index", 0)) for rule in patterns]
        for r, rule in enumerate(patterns):
            for pattern in rule["patterns"]:
                if not isinstance(pattern, list) or not 1 <= len(pattern) <= 2 or \
                        not -len(pattern) <= self._indices[r] < len(pattern):
                    raise ValueError(f"unsupported attribute ruler pattern {pattern!r}")
                tests = [_token_test(tok) for tok in pattern]
                if any(t is None for t in tests):
                    raise ValueError(f"unsupported attribute ruler pattern {pattern!r}")
                if len(pattern) == 1:
                    single.append((r, pattern[0], tests[0]))
                else:
                    pairs.append((r, pattern, tests))
        self._single = _Tests(single)
        self._first = _Tests([(k, pat[0], tests[0]) for k, (_, pat, tests) in enumerate(pairs)])
        self._second = _Tests([(k, pat[1], tests[1]) for k, (_, pat, tests) in enumerate(pairs)])
        self._rule_of_pair = [r for r, _, _ in pairs]
        self._ids = [strings[str(r)] for r in range(len(patterns))]
        self._strings, self._columns, self._attrs = strings, list(columns), list(attrs)
        self._cache: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...],
                                                  frozenset[int]]] = {}

    @classmethod
    def install(cls, ruler: Any) -> bool:
        """Replace ``ruler.match`` and ``ruler.set_annotations`` when every pattern is
        supported; returns whether it did (otherwise the ruler is left as it is)."""
        from spacy.attrs import DEP, IS_SPACE, LOWER, TAG

        try:
            fast = cls(ruler.patterns, ruler.vocab.strings, [TAG, LOWER, DEP, IS_SPACE], ruler.attrs)
        except ValueError:
            return False
        ruler.match, ruler.set_annotations = fast.match, fast.set_annotations
        return True

    def _lookup(self, key: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...], frozenset[int]]:
        hit = self._cache.get(key)
        if hit is None:
            s = self._strings
            text = (s[key[0]], s[key[1]], s[key[2]], bool(key[3]))
            hit = (self._single.passing(text), self._first.passing(text),
                   frozenset(self._second.passing(text)))
            if len(self._cache) >= _MAX_KEYS:
                self._cache.clear()
            self._cache[key] = hit
        return hit

    def match(self, doc: Any) -> list[Match]:
        """The ruler's matches, as its own ``match`` returns them: ``(rule, match_id,
        start, end)`` sorted, so that later rules take precedence."""
        if not len(doc):
            return []
        rows = [self._lookup(tuple(row)) for row in doc.to_array(self._columns).tolist()]
        ids = self._ids
        # a set: like the Matcher, one match per (rule, span) however many patterns agree
        out = {(r, ids[r], i, i + 1) for i, (single, _, _) in enumerate(rows) for r in single}
        for i in range(len(rows) - 1):
            for k in rows[i][1]:
                if k in rows[i + 1][2]:
                    r = self._rule_of_pair[k]
                    out.add((r, ids[r], i, i + 2))
        return sorted(out)

    def set_annotations(self, doc: Any, matches: Sequence[Match]) -> None:
        """Set each match's attributes on its target token, in order (what the ruler's
        own method does, without building a ``Span`` per match)."""
        from spacy.tokens._retokenize import set_token_attrs

        for rule, _, start, end in matches:
            index = self._indices[rule]
            set_token_attrs(doc[start + index if index >= 0 else end + index], self._attrs[rule])
