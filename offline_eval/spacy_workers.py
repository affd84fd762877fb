"""spaCy work in worker processes beside this one, so the CPU stages use every core.

spaCy runs on one thread at a time in a process (the GIL; two threads in one process
parsed slower than one, measured ad hoc). Three kinds of work are spread over worker
processes: the importance ranker's claim parses (``views``), the splitter's sentence
segmentation (``split``) and the syntactic decomposer's parse and clause splits
(``decompose``). Each task's module defines what a worker runs (:data:`TASKS`), on JSON in
and JSON out.

A worker (``python -m offline_eval.spacy_workers MODEL``) loads the spaCy package
``MODEL`` once, as :func:`~offline_eval.decomposition.nlp.load_spacy` loads it, writes
``ready``, then answers each JSON line ``{"task", "options", "items"}`` read on its stdin
with the JSON list of results, one line each (no pickle crosses the pipe, and no
``multiprocessing`` re-import of the caller's main module). A failure is written as
``{"error": ...}``.

A call cuts its items into chunks; this process works through chunks too, so a worker that
is still loading, or none, only costs speed, and a chunk whose worker fails is done here.
Every task's result for an item depends on that item alone (a spaCy parse does not depend
on its batch mates: the tests compare), so the output is the same with any number of
workers and any chunking.

:func:`shared_pool` is the process's pool for a spaCy package, started by the first call
with enough work: one fewer worker than the CPUs this process may use (``OMP_NUM_THREADS``
when set, so a Ray actor given one CPU starts none), at most :data:`MAX_WORKERS`, or
``OFFLINE_EVAL_SPACY_WORKERS`` when set (0 turns the workers off).
"""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import threading
import weakref
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

from offline_eval.errors import ModelError

T = TypeVar("T")

#: task name -> "module:function" run in a worker as ``function(model, options, items)``,
#: returning one JSON-ready result per item
TASKS = {
    "views": "offline_eval.importance.parsing:views_task",
    "split": "offline_eval.decomposition.splitting:split_task",
    "decompose": "offline_eval.decomposition.syntactic:decompose_task",
}
#: the most workers :func:`shared_pool` starts by default (each holds about 200 MB)
MAX_WORKERS = 8
#: the environment variable that sets :func:`shared_pool`'s worker count
WORKERS_ENV = "OFFLINE_EVAL_SPACY_WORKERS"
#: seconds a worker may take to answer one chunk (a chunk takes well under a second) before
#: it is stopped and the chunk done here: a stuck worker never stalls a run
REPLY_TIMEOUT = 120.0


def _task(name: str) -> Callable[[str, dict, list], list]:
    if name not in TASKS:
        raise ValueError(f"unknown spaCy worker task {name!r}; valid: {', '.join(TASKS)}")
    module, func = TASKS[name].split(":")
    return getattr(importlib.import_module(module), func)  # type: ignore[no-any-return]


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of the live process ``pid``, from ``/proc/<pid>/stat``
    (Linux; 0.0 elsewhere or when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


class SpacyWorker:
    """One worker process on the spaCy package ``model``.

    It starts loading at construction; :attr:`ready` is set once it has loaded (a
    background thread waits for its first line), :attr:`settled` once it has loaded or
    failed. :attr:`lock` is held by whoever is sending it work.
    """

    def __init__(self, model: str) -> None:
        root = str(Path(__file__).resolve().parents[1])
        path = os.environ.get("PYTHONPATH")
        env = dict(os.environ, OMP_NUM_THREADS="1", **{WORKERS_ENV: "0"},  # no pools of its own
                   PYTHONPATH=root + (os.pathsep + path if path else ""))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "offline_eval.spacy_workers", model],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            encoding="utf-8", env=env)
        self.ready, self.settled = threading.Event(), threading.Event()
        self.lock = threading.Lock()
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

    def call(self, task: str, options: dict[str, Any], items: Sequence[Any],
             timeout: float | None = None) -> list[Any]:
        """The JSON results of ``task`` on ``items``, computed in the worker (call it when
        ready, holding :attr:`lock`). A worker that has not answered within ``timeout``
        seconds (default :data:`REPLY_TIMEOUT`) is killed.

        Raises:
            ModelError: the worker failed, exited or did not answer in time (the reason it
                gave, if any).
        """
        import select
        assert self.proc.stdin is not None and self.proc.stdout is not None
        wait = REPLY_TIMEOUT if timeout is None else timeout
        try:
            self.proc.stdin.write(json.dumps({"task": task, "options": options,
                                              "items": list(items)}) + "\n")
            self.proc.stdin.flush()
            if not select.select([self.proc.stdout], [], [], wait)[0]:
                self.proc.kill()
                raise ModelError(f"spaCy worker failed: no answer in {wait:g} s; it was stopped")
            line = self.proc.stdout.readline()
        except (OSError, ValueError) as exc:
            raise ModelError(f"spaCy worker failed: {exc}") from None
        try:
            data = json.loads(line) if line.strip() else None
        except ValueError:
            data = None
        if not isinstance(data, list) or len(data) != len(items):
            raise ModelError(f"spaCy worker failed: {_reason(line)}")
        return data

    def cpu_seconds(self) -> float:
        """CPU time the worker has used so far (Linux; 0.0 elsewhere)."""
        return process_cpu_seconds(self.proc.pid)

    def close(self) -> None:
        """Ask the worker to exit (end of its input), and kill it if it does not."""
        _stop(self.proc)


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


class SpacyPool:
    """This process plus ``workers`` worker processes, sharing the chunks of each call.

    The workers start at construction and load in the background; a call uses those that
    are ready and not busy with another call. They exit on :meth:`close`, when the pool is
    garbage collected, or when this process exits (their input closes).
    """

    def __init__(self, model: str, workers: int) -> None:
        self.model = model
        self.workers = [SpacyWorker(model) for _ in range(max(0, int(workers)))]
        self._finalizer = weakref.finalize(self, _close_all, [w.proc for w in self.workers])

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until every worker has loaded or failed; True if all loaded."""
        for w in self.workers:
            w.settled.wait(timeout)
        return all(w.ready.is_set() for w in self.workers)

    def ready_workers(self) -> int:
        """How many workers have loaded and not failed."""
        return sum(w.ready.is_set() for w in self.workers)

    def cpu_seconds(self) -> float:
        """CPU time the workers have used so far."""
        return sum(w.cpu_seconds() for w in self.workers)

    def map(self, task: str, options: dict[str, Any], chunks: Sequence[Sequence[Any]],
            here: Callable[[Sequence[Any]], list[T]], decode: Callable[[Any], T],
            encode: Callable[[Any], Any] = lambda x: x) -> list[T]:
        """``here(chunk)`` for every chunk, in order, flattened: this thread runs ``here``
        on some chunks while the ready workers run ``task`` on others (each item sent as
        ``encode(item)``, each JSON result read by ``decode``); a chunk whose worker fails
        is done here."""
        out: list[list[T] | None] = [None] * len(chunks)
        lock, nxt = threading.Lock(), iter(range(len(chunks)))

        def take() -> int | None:
            with lock:
                return next(nxt, None)

        def remote(worker: SpacyWorker) -> None:
            try:
                while (i := take()) is not None:
                    try:
                        got = worker.call(task, options, [encode(x) for x in chunks[i]])
                        out[i] = [decode(x) for x in got]
                    except Exception as exc:  # noqa: BLE001 - a failed call, or a reply that
                        # does not read: the chunk is done here after the others, the worker retires
                        worker.error = f"{type(exc).__name__}: {exc}"
                        worker.ready.clear()
                        return
            finally:
                worker.lock.release()

        threads = []
        if len(chunks) > 1:
            for w in self.workers:
                if w.ready.is_set() and w.lock.acquire(blocking=False):  # not busy elsewhere
                    threads.append(threading.Thread(target=remote, args=(w,), daemon=True))
        for t in threads:
            t.start()
        while (i := take()) is not None:
            out[i] = here(chunks[i])
        for t in threads:
            t.join()
        for i, got in enumerate(out):
            if got is None:  # a failed worker's chunk
                out[i] = here(chunks[i])
        return [x for got in out for x in got or ()]

    def close(self) -> None:
        """Stop the workers."""
        self._finalizer()


def _close_all(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        _stop(proc)


def default_workers() -> int:
    """:func:`shared_pool`'s worker count: ``OFFLINE_EVAL_SPACY_WORKERS`` when set, else
    one fewer than the CPUs this process may use, at most :data:`MAX_WORKERS`.

    Raises:
        InputError: ``OFFLINE_EVAL_SPACY_WORKERS`` is not a whole number >= 0.
    """
    env = os.environ.get(WORKERS_ENV, "").strip()
    if env:
        if not env.isdigit():
            from offline_eval.errors import InputError
            raise InputError(f"the environment variable {WORKERS_ENV} must be a whole number "
                             f">= 0 (0: no spaCy worker processes), got {env!r}")
        return int(env)
    from offline_eval.runners.ort import cpu_workers
    return max(0, min(MAX_WORKERS, cpu_workers() - 1))


_SHARED: dict[str, SpacyPool] = {}
_SHARED_LOCK = threading.Lock()


def shared_pool(model: str, start: bool = True) -> SpacyPool | None:
    """The process's pool for the spaCy package ``model``; started here when ``start`` (a
    call with enough work for it), else None until some call has started it. None when
    the worker count is 0."""
    with _SHARED_LOCK:
        pool = _SHARED.get(model)
        if pool is None and start:
            workers = default_workers()
            if workers <= 0:
                return None
            pool = _SHARED[model] = SpacyPool(model, workers)
            from offline_eval.progress import log
            log.info("started %d spaCy worker process(es) for %s (%s)", workers, model, WORKERS_ENV)
        return pool


def pool_for(model: str, work: int, least: int, start_above: int) -> SpacyPool | None:
    """The shared pool for a call of ``work`` units (sentences, characters), or None to work
    in this process: a call of under ``least`` units is not worth cutting, and only one of
    more than ``start_above`` starts the workers (a smaller one uses them once started)."""
    if work < least:
        return None
    return shared_pool(model, start=work > start_above)


def close_shared() -> None:
    """Stop every shared pool's workers (they also stop when this process exits)."""
    with _SHARED_LOCK:
        for pool in _SHARED.values():
            pool.close()
        _SHARED.clear()


def chunked(items: Sequence[T], pool: SpacyPool | None, smallest: int, largest: int,
            weight: Callable[[T], int] = lambda _: 1) -> list[list[T]]:
    """``items`` cut into consecutive chunks for ``pool``: about two per process (this one
    and the workers), each of ``smallest`` to ``largest`` in total ``weight``.

    >>> chunked(list(range(10)), None, 2, 4)
    [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    """
    total = sum(weight(x) for x in items)
    procs = 1 + (len(pool.workers) if pool is not None else 0)
    size = max(smallest, min(largest, -(-total // (2 * procs))))
    out: list[list[T]] = []
    held = size
    for x in items:
        if held >= size:
            out.append([])
            held = 0
        out[-1].append(x)
        held += weight(x)
    return out


def main(argv: list[str] | None = None) -> int:
    """The worker: load ``MODEL`` (argv[0]), then answer tasks line by line."""
    args = sys.argv[1:] if argv is None else argv
    out, sys.stdout = sys.stdout, sys.stderr  # the replies alone go to stdout
    # torch is kept out of the worker: thinc imports it when it can, which doubles the
    # worker's memory (about 330 MB of peak RSS with it, 190 MB without; the small English
    # pipeline runs on numpy)
    sys.modules.setdefault("torch", None)  # type: ignore[arg-type]  # `import torch` fails
    try:
        from offline_eval.decomposition.nlp import load_spacy

        load_spacy(args[0], mode="parse")
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which falls back
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}), file=out, flush=True)
        return 1
    print("ready", file=out, flush=True)
    for line in sys.stdin:
        try:
            msg = json.loads(line)
            reply: object = _task(str(msg["task"]))(args[0], dict(msg.get("options") or {}),
                                                    list(msg["items"]))
        except Exception as exc:  # noqa: BLE001 - reported to the parent, which falls back
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(reply), file=out, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
