"""Claim parses for the importance ranker, in this process and, optionally, in worker
processes beside it.

spaCy runs on one thread at a time in a process (the GIL; two threads in one process
parsed slower than one, measured ad hoc), and the rank stage's parse is its longest part:
on the project's 2-core box spaCy parses about 1,000 texts/s while the int8 embedder
beside it needs well under half a core. :class:`ParsePool` lets worker processes parse
too. Each loads the same spaCy pipeline once (``python -m
offline_eval.importance.parse_worker``) and receives chunks of texts as JSON lines on its
stdin; it answers with the chunks' :class:`~offline_eval.importance.signals.ClaimView`\\ s,
all the features read from a parse, as JSON lines (no pickle crosses the pipe, and no
``multiprocessing`` re-import of the caller's main module).

The texts are cut into fixed chunks of :data:`CHUNK`, each parsed as one spaCy batch,
whoever parses it, so the views are the same with any number of workers (a text's parse
does not depend on its batch mates either: views matched with batches of 1 to 256 on
3,037 claims and queries, ad hoc). This process parses chunks too, so a worker that is
still loading, or none, only costs speed; a chunk whose worker fails is parsed here.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from offline_eval.errors import ModelError
from offline_eval.importance.signals import ClaimView

if TYPE_CHECKING:
    from spacy.language import Language

#: Texts per chunk, and per spaCy batch.
CHUNK = 128


def parse_views(nlp: Language, texts: Sequence[str]) -> list[ClaimView]:
    """Views of ``texts`` parsed here, in batches of :data:`CHUNK`."""
    return [ClaimView.from_doc(doc) for doc in nlp.pipe(texts, batch_size=CHUNK)]


class ParseWorker:
    """One worker process running ``offline_eval.importance.parse_worker`` on ``model``.

    It starts loading at construction; :attr:`ready` is set once it has loaded (a
    background thread waits for its first line), :attr:`settled` once it has loaded or
    failed, and :meth:`parse` may only be called when ready, by one thread at a time.
    """

    def __init__(self, model: str) -> None:
        root = str(Path(__file__).resolve().parents[2])
        path = os.environ.get("PYTHONPATH")
        env = dict(os.environ, OMP_NUM_THREADS="1",
                   PYTHONPATH=root + (os.pathsep + path if path else ""))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "offline_eval.importance.parse_worker", model],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            encoding="utf-8", env=env)
        self.ready, self.settled = threading.Event(), threading.Event()
        self.error: str | None = None
        threading.Thread(target=self._await_ready, daemon=True).start()

    def _await_ready(self) -> None:
        try:
            first = self.proc.stdout.readline() if self.proc.stdout else ""
        except (OSError, ValueError):  # closed meanwhile
            first = ""
        if first.strip() == "ready":
            self.ready.set()
        else:
            self.error = _reason(first)
        self.settled.set()

    def parse(self, texts: Sequence[str]) -> list[ClaimView]:
        """The views of ``texts``, parsed in the worker.

        Raises:
            ModelError: the worker failed or exited (the reason it gave, if any).
        """
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write(json.dumps(list(texts)) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except (OSError, ValueError) as exc:
            raise ModelError(f"spaCy parse worker failed: {exc}") from None
        data = json.loads(line) if line.strip() else None
        if not isinstance(data, list) or len(data) != len(texts):
            raise ModelError(f"spaCy parse worker failed: {_reason(line)}")
        return [ClaimView.from_json(x) for x in data]

    def cpu_seconds(self) -> float:
        """CPU time the worker has used so far (Linux; 0.0 elsewhere)."""
        return process_cpu_seconds(self.proc.pid)

    def close(self) -> None:
        """Ask the worker to exit (end of its input), and kill it if it does not."""
        _stop(self.proc)


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of the live process ``pid``, from ``/proc/<pid>/stat``
    (Linux; 0.0 elsewhere or when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _reason(line: str) -> str:
    try:
        data = json.loads(line)
    except ValueError:
        data = None
    if isinstance(data, dict) and "error" in data:
        return str(data["error"])
    return "it exited" if not line else f"unexpected reply {line[:80]!r}"


def _stop(proc: subprocess.Popen) -> None:
    try:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        proc.kill()
        proc.wait()


class ParsePool:
    """This process plus ``workers`` parse worker processes, sharing the chunks of each
    call.

    The workers start at construction and load in the background; a call uses those
    that are ready. They exit on :meth:`close`, when the pool is garbage collected, or
    when this process exits (their input closes).
    """

    def __init__(self, model: str, workers: int) -> None:
        self.model = model
        self.workers = [ParseWorker(model) for _ in range(max(0, int(workers)))]
        self._finalizer = weakref.finalize(self, _close_all, [w.proc for w in self.workers])

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until every worker has loaded or failed; True if all loaded."""
        for w in self.workers:
            w.settled.wait(timeout)
        return all(w.ready.is_set() for w in self.workers)

    def cpu_seconds(self) -> float:
        """CPU time the workers have used so far."""
        return sum(w.cpu_seconds() for w in self.workers)

    def views(self, nlp: Language, texts: Sequence[str]) -> list[ClaimView]:
        """Views of ``texts``, in order; this thread parses with ``nlp`` (the same
        pipeline the workers load) while the ready workers parse other chunks."""
        chunks = [texts[i:i + CHUNK] for i in range(0, len(texts), CHUNK)]
        out: list[list[ClaimView] | None] = [None] * len(chunks)
        lock, nxt = threading.Lock(), iter(range(len(chunks)))

        def take() -> int | None:
            with lock:
                return next(nxt, None)

        def remote(worker: ParseWorker) -> None:
            while (i := take()) is not None:
                try:
                    out[i] = worker.parse(chunks[i])
                except ModelError as exc:  # parsed here after the others; the worker retires
                    worker.error = str(exc)
                    worker.ready.clear()
                    return

        threads = [threading.Thread(target=remote, args=(w,), daemon=True)
                   for w in self.workers if w.ready.is_set()]
        for t in threads:
            t.start()
        while (i := take()) is not None:
            out[i] = parse_views(nlp, chunks[i])
        for t in threads:
            t.join()
        for i, got in enumerate(out):
            if got is None:  # a failed worker's chunk
                out[i] = parse_views(nlp, chunks[i])
        return [v for got in out for v in got or ()]

    def close(self) -> None:
        """Stop the workers."""
        self._finalizer()


def _close_all(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        _stop(proc)
