"""The Ray engine: the same pipeline as a Ray Data dataset (``pip install offline-eval[ray]``).

``read_text`` of the input, then one ``map_batches`` per stage, then the rows are streamed
back to the driver and appended to ``OUT_DIR/scores.jsonl`` (flushed per row, like the local
engine, so ``resume`` works the same way). Records travel between stages as JSON lines
(:mod:`offline_eval.io.records`), never as pickled objects. Model stages run in actor pools
that build their stage (and load its model) once per actor, with ``num_gpus`` per actor when
asked (stages whose model can use a GPU only: :func:`actor_gpus`); model-free stages run as
tasks. Inputs are validated on the driver first, so a bad row fails before any work.

``read_text`` rather than ``read_json``: Arrow schema inference fails on heterogeneous rows
(``references`` as strings in one row and objects in another); lines are parsed by our own
validated reader instead.
"""
from __future__ import annotations

import os
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from offline_eval.engines.local import RunStats, error_row, scored_ok
from offline_eval.engines.spec import StageSpec
from offline_eval.errors import OfflineEvalError, StageError
from offline_eval.io.items import parse_item
from offline_eval.io.jsonl import dumps
from offline_eval.io.resume import RunOutput
from offline_eval.io.records import decode, encode
from offline_eval.types import ResponseResult

OUTPUT_NAME = "scores.jsonl"
TASK_CPUS = 0.25  # CPUs asked by each model-free task (read, parse, metrics, audit, rows)


LOOPBACK = "127.0.0.1"
#: Ray's switch for multi-node clusters. Off ("0"), Ray takes loopback as this machine's address.
_CLUSTER_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def _require_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ImportError("the Ray engine needs the 'ray' extra: pip install 'offline-eval[ray]'") from None
    return ray


def _init_kwargs(address: str | None, local: bool, runtime_env: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of ``ray.init``: a local instance gets this machine's CPUs and
    the loopback address as its node address; a cluster is joined as it is.

    >>> sorted(_init_kwargs("ray://head:10001", False, {}))
    ['address', 'include_dashboard', 'log_to_driver', 'runtime_env']
    >>> _init_kwargs(None, True, {})["_node_ip_address"]
    '127.0.0.1'
    """
    kwargs: dict[str, Any] = {"address": address, "runtime_env": runtime_env,
                              "log_to_driver": False, "include_dashboard": False}
    if local:
        kwargs.update(num_cpus=os.cpu_count(), _node_ip_address=LOOPBACK)
    return kwargs


@contextmanager
def _loopback_only() -> Iterator[None]:
    """Keep a local instance that ``ray.init`` starts on loopback, for the call only.

    ``_node_ip_address="127.0.0.1"`` alone is not enough: Ray (2.60,
    ``services.resolve_ip_for_localhost``) rewrites a loopback node address to the
    machine's interface address, and its servers then listen beyond loopback, unless its
    cluster switch is off. Ray reads that switch from :data:`_CLUSTER_ENV` once, when it is
    first imported, into ``ray._private.ray_constants.ENABLE_RAY_CLUSTER``; so the driver's
    copy is set directly (whenever ray was imported), and the variable too, for the
    processes the call starts (GCS, raylet, workers). Both are restored afterwards, so a
    later cluster run in the same process is unaffected. An explicit setting of the
    variable is left alone.
    """
    if _CLUSTER_ENV in os.environ:
        yield
        return
    try:  # a private module: a Ray that moved it still gets the variable
        from ray._private import ray_constants
    except ImportError:
        ray_constants = None
    saved = getattr(ray_constants, "ENABLE_RAY_CLUSTER", None)
    os.environ[_CLUSTER_ENV] = "0"
    if ray_constants is not None:
        ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        del os.environ[_CLUSTER_ENV]
        if ray_constants is not None:
            if saved is None:
                del ray_constants.ENABLE_RAY_CLUSTER
            else:
                ray_constants.ENABLE_RAY_CLUSTER = saved


class _StageRunner:
    """Builds one stage and applies it to a batch of encoded records; failures become
    encoded error markers so one bad row never fails the job."""

    def __init__(self, spec: StageSpec) -> None:
        self.spec = spec
        self.stage = spec.build()

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        lines = list(batch["record"])
        recs = [None if line.startswith("!") else decode(line) for line in lines]
        live = [r for r in recs if r is not None]
        try:
            done = iter(self.stage(live)) if live else iter(())
            out = [line if r is None else encode(next(done)) for line, r in zip(lines, recs)]
        except Exception:  # noqa: BLE001 - isolate the failing rows one at a time
            out = []
            for line, r in zip(lines, recs):
                if r is None:
                    out.append(line)
                    continue
                try:
                    out.append(encode(self.stage([r])[0]))
                except Exception as exc:  # noqa: BLE001
                    name = getattr(self.stage, "name", self.spec.target)
                    out.append("!" + dumps(error_row(r.item, StageError(name, f"{type(exc).__name__}: {exc}"))))
        return {"record": out}


def _parse(batch: dict[str, Any], source: str, limits: Any = None) -> dict[str, Any]:
    import json
    import warnings

    from offline_eval.io.items import DEFAULT_LIMITS

    out = []
    for line in batch["text"]:
        with warnings.catch_warnings():   # the driver read the input first and said them
            warnings.simplefilter("ignore")
            item = parse_item(json.loads(line), source, 0, limits or DEFAULT_LIMITS)
        out.append(encode(ResponseResult(item=item)))
    return {"record": out}


def _to_rows(batch: dict[str, Any], to_row: Callable[[ResponseResult], dict]) -> dict[str, Any]:
    rows = []
    for line in batch["record"]:
        rows.append(line[1:] if line.startswith("!") else dumps(to_row(decode(line))))
    return {"row": rows}


def actor_gpus(spec: StageSpec, num_gpus_per_actor: float) -> float | None:
    """The GPU share a stage's actors ask for: ``num_gpus_per_actor`` for the stages whose
    model can use a GPU (``spec.uses_gpu``: the NLI stages, the generative decomposer), None
    for the others, whose actors (spaCy, BM25, the ranker's CPU features) would only hold
    GPU shares they never use.

    >>> actor_gpus(StageSpec("offline_eval.stages.verify.v1", uses_model=True, uses_gpu=True), 0.25)
    0.25
    >>> actor_gpus(StageSpec("offline_eval.stages.split.v1", uses_model=True), 0.25) is None
    True
    """
    return num_gpus_per_actor if spec.uses_gpu and num_gpus_per_actor > 0 else None


def run_ray(input_path: str | os.PathLike[str], specs: Sequence[StageSpec],
            out_dir: str | os.PathLike[str], to_row: Callable[[ResponseResult], dict], *,
            address: str | None = None, actors: int = 1, num_gpus_per_actor: float = 0.0,
            batch_size: int = 32, resume: bool = False, limits: Any = None,
            out: RunOutput | None = None) -> RunStats:
    """Score the (already validated) input on a Ray cluster into ``out_dir/scores.jsonl``;
    ``limits`` (:class:`~offline_eval.io.items.Limits`) as the driver read it with. ``out``:
    that file already open (:class:`~offline_eval.io.resume.RunOutput`; its ``kept`` rows
    are skipped, and ``resume`` is the caller's), else opened here (``resume`` keeps the
    scored rows)."""
    if out is None:
        with RunOutput(Path(out_dir) / OUTPUT_NAME, None, resume=resume, keep=scored_ok) as opened:
            return run_ray(input_path, specs, out_dir, to_row, address=address, actors=actors,
                           num_gpus_per_actor=num_gpus_per_actor, batch_size=batch_size,
                           limits=limits, out=opened)
    local = address in (None, "local")
    ray = _require_ray()
    done_ids = out.kept_ids
    t0 = time.monotonic()
    if not ray.is_initialized():
        # Actors see the driver's data home (corpora, imported models): a path every node
        # must be able to read.
        env = {"env_vars": {"PYTHONPATH": os.pathsep.join(
            p for p in (os.getcwd(), os.environ.get("PYTHONPATH", "")) if p),
            **{k: os.environ[k] for k in ("OFFLINE_EVAL_HOME",) if k in os.environ}}}
        with _loopback_only() if local else nullcontext():
            ray.init(**_init_kwargs(address, local, env))
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.execution_options.preserve_order = True
    # Model stages each hold `actors` actors for the whole run; give them fractional CPUs so
    # they, plus the model-free tasks, fit the cluster instead of starving each other.
    n_model = sum(s.uses_model for s in specs)
    cpus = float(ray.cluster_resources().get("CPU", 1.0))
    actor_cpus = min(1.0, cpus / (n_model * actors + 1)) if n_model else 1.0
    # Model-free stages are light JSON transforms; a small share keeps them schedulable on a
    # node whose CPUs are mostly held by actors (with one actor per 1-CPU node, a share as
    # large as an actor's fits nowhere and the dataset stalls).
    task_cpus = min(TASK_CPUS, actor_cpus)
    # Every operator, the read included, asks for at most `task_cpus`: Ray's default of one
    # CPU per read task does not fit beside the actor pools on a small cluster and stalls
    # the whole dataset until an actor is torn down.
    ds = ray.data.read_text(str(input_path), num_cpus=task_cpus)
    if done_ids:
        ds = ds.filter(lambda r, d=frozenset(done_ids): _row_id(r["text"]) not in d)
    ds = ds.map_batches(_parse, fn_kwargs={"source": str(input_path), "limits": limits},
                        batch_size=batch_size,
                        num_cpus=task_cpus)
    for spec in specs:
        if spec.uses_model:
            # Ray Data creates pool actors with max_restarts=-1 and max_task_retries=-1: a
            # lost actor is restarted and its batches are retried.
            ds = ds.map_batches(_StageRunner, fn_constructor_kwargs={"spec": spec},
                                batch_size=batch_size, compute=ray.data.ActorPoolStrategy(size=actors),
                                num_cpus=actor_cpus, num_gpus=actor_gpus(spec, num_gpus_per_actor))
        else:
            ds = ds.map_batches(lambda b, s=spec: _StageRunner(s)(b), batch_size=batch_size,
                                num_cpus=task_cpus)
    ds = ds.map_batches(_to_rows, fn_kwargs={"to_row": to_row}, batch_size=batch_size,
                        num_cpus=task_cpus)
    done = failed = 0
    try:
        for batch in ds.iter_batches(batch_size=batch_size, batch_format="numpy"):
            lines = [str(line) for line in batch["row"]]
            out.write_lines(lines)  # one write, flushed and fsynced, per batch
            ok = sum(_row_status(line) == "ok" for line in lines)
            done += ok
            failed += len(lines) - ok
    except Exception as exc:  # the job failed: finished rows are on disk, resume completes it
        raise OfflineEvalError(f"the Ray job failed ({type(exc).__name__}: {exc}); {done + len(done_ids)} "
                               f"rows are saved in {out.path}; rerun with --resume to finish") from exc
    return RunStats(done, failed, len(done_ids), time.monotonic() - t0)


def _row_id(line: str) -> str:
    import json

    try:
        return str(json.loads(line).get("id"))
    except ValueError:
        return ""


def _row_status(line: str) -> str | None:
    import json

    return json.loads(line).get("status")


def native_input(input_path: str, output: str, fmt: str) -> str:
    """The input Ray workers read: the file itself when it is native, uncompressed JSONL,
    else its rows mapped onto the native format (as the driver read them), as JSONL in the
    output folder."""
    import json

    from offline_eval.io.formats import to_native
    from offline_eval.io.jsonl import COMPRESSED
    from offline_eval.io.tables import is_table, read_rows

    if fmt == "native" and not is_table(input_path) and \
            Path(input_path).suffix.lower() not in COMPRESSED:  # Ray workers read plain text
        return input_path
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    native = out / "input.native.jsonl"
    with native.open("w", encoding="utf-8") as fh:
        for n, (line, row) in enumerate(read_rows(input_path), 1):
            fh.write(json.dumps(to_native(row, fmt, input_path, line, n), ensure_ascii=False)
                     + "\n")
    return str(native)
