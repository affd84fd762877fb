"""Every reader, on generated files: it returns or raises a clear InputError, never a
traceback (1,000 files per reader here; ``benchmarks/fuzz.py`` runs 10,000)."""
from __future__ import annotations

import pytest

pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402

from tests.fuzz import FIELDS, files, outcome  # noqa: E402

EXAMPLES = 1000


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_a_reader_never_raises_a_traceback(name, tmp_path_factory):
    path = tmp_path_factory.mktemp(name) / "in.jsonl"
    seen: dict[str, int] = {}

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=files(name))
    def check(data: bytes) -> None:
        got = outcome(name, data, path)
        seen[got] = seen.get(got, 0) + 1

    check()
    assert seen.get("refused") and seen.get("read"), seen   # both kinds were generated
