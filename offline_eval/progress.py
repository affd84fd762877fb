"""Progress of a run and what it loads, for the CLI to show on stderr.

The library prints nothing itself. Model loads are logged (logger ``offline_eval``, level
INFO) by :func:`loading`, one line each; :class:`RunProgress` is the engine's progress: on a
terminal a tqdm bar that moves per row and stage (rows/s, ETA, the current stage),
elsewhere one log line every ``every`` seconds in tqdm's format, so a log file shows the
run advancing. The CLI attaches a stderr handler unless ``--quiet``.
"""
from __future__ import annotations

import logging
import sys
import time
from contextlib import contextmanager
from typing import IO, Any, Iterator

log = logging.getLogger("offline_eval")


_SAID: set[str] = set()


@contextmanager
def loading(what: str) -> Iterator[None]:
    """Log ``loaded WHAT in S s`` once the body has run (nothing when it fails), the first
    time ``what`` is loaded in this process.

    >>> with loading("a model"):
    ...     pass
    """
    t0 = time.perf_counter()
    yield
    if what not in _SAID:
        _SAID.add(what)
        log.info("loaded %s in %.1f s", what, time.perf_counter() - t0)


class RunProgress:
    """Rows done out of ``total``, advanced by fractions as each stage of a batch ends.

    Args:
        total: rows to score.
        enabled: False shows nothing.
        file: where to write (stderr).
        tty: a live bar (True) or log lines (False); None asks ``file``.
        every: seconds between log lines when not on a terminal.

    >>> import io
    >>> out = io.StringIO()
    >>> p = RunProgress(4, file=out, tty=False, every=0)
    >>> p.stage("verify"); p.advance(2); p.close()
    >>> "2/4" in out.getvalue() and "verify" in out.getvalue()
    True
    """

    def __init__(self, total: int, enabled: bool = True, file: IO[str] | None = None,
                 tty: bool | None = None, every: float = 30.0) -> None:
        self.total, self.enabled, self.every = total, enabled and total > 0, every
        self.file = file if file is not None else sys.stderr
        self.tty = bool(getattr(self.file, "isatty", lambda: False)()) if tty is None else tty
        self.n, self.name = 0.0, ""
        self.t0 = self.last = time.monotonic()
        self.bar: Any = None
        if self.enabled and self.tty:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="row", file=self.file, dynamic_ncols=True,
                            smoothing=0.1, bar_format="{l_bar}{bar}| {n:.0f}/{total} "
                            "[{elapsed}<{remaining}, {rate_fmt}{postfix}]")

    def stage(self, name: str) -> None:
        """The stage now running."""
        self.name = name.rsplit(".", 2)[-2] if name.count(".") >= 2 else name
        if self.bar is not None:
            self.bar.set_postfix_str(f"stage {self.name}", refresh=True)

    def advance(self, k: float) -> None:
        """``k`` more rows done (a fraction while a batch is between stages)."""
        if not self.enabled:
            return
        k = max(0.0, min(k, self.total - self.n))
        before, self.n = self.n, self.n + k
        if self.bar is not None:   # whole rows: "9/10" until the tenth is done
            self.bar.update(int(self.n + 1e-9) - int(before + 1e-9))
            return
        now = time.monotonic()
        if now - self.last >= self.every:
            self.last = now
            self._line(now)

    def _line(self, now: float) -> None:
        from tqdm import tqdm

        meter = tqdm.format_meter(int(self.n + 1e-9), self.total, now - self.t0, unit="row",
                                  bar_format="{n:.0f}/{total} rows ({percentage:.0f}%) "
                                             "[{elapsed}<{remaining}, {rate_fmt}]")
        stage = f", stage {self.name}" if self.name and self.n < self.total - 1e-6 else ""
        self.file.write(f"offline-eval: {meter}{stage}\n")
        self.file.flush()

    def close(self) -> None:
        """Finish the bar (or write the last log line)."""
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.close()
        else:
            self._line(time.monotonic())


class _Stderr(logging.Handler):
    """Writes ``offline-eval: MESSAGE`` to the stderr of the moment (tests swap it)."""

    def emit(self, record: logging.LogRecord) -> None:
        from tqdm import tqdm

        # through tqdm, so a line said while the bar is drawn does not break it
        tqdm.write(f"offline-eval: {record.getMessage()}", file=sys.stderr)


_HANDLER = _Stderr(logging.INFO)


def show_progress(on: bool) -> None:
    """The library's INFO lines (one per model loaded) on stderr, or none. transformers'
    own weight-loading bars are silenced either way: the line says the same."""
    log = logging.getLogger("offline_eval")
    if on and _HANDLER not in log.handlers:
        log.addHandler(_HANDLER)
        log.setLevel(logging.INFO)
        log.propagate = False   # said once, here, not again by a root handler
    elif not on and _HANDLER in log.handlers:
        log.removeHandler(_HANDLER)
        log.setLevel(logging.NOTSET)
        log.propagate = True
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:  # nothing to silence
        return
    hf_logging.disable_progress_bar()


@contextmanager
def warnings_on_stderr() -> Iterator[None]:
    """The library's warnings, each once, as ``offline-eval: warning: MESSAGE`` on the
    stderr of the moment (through tqdm, so a progress bar is not broken)."""
    import warnings

    from offline_eval.errors import RenamedFieldWarning

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: Any = None, line: str | None = None) -> None:
        from tqdm import tqdm

        text = (f"offline-eval: warning: {message}"
                if issubclass(category, (UserWarning, RenamedFieldWarning))
                else warnings.formatwarning(message, category, filename, lineno, line).rstrip())
        tqdm.write(text, file=sys.stderr)

    with warnings.catch_warnings():
        # the library's own warnings are shown (once each); other filters stay as the user set them
        for category in (UserWarning, RenamedFieldWarning):
            warnings.filterwarnings("default", category=category, module=r"offline_eval(\.|$)")
        warnings.showwarning = show
        yield
