"""The exception hierarchy. User errors carry enough context to fix the input."""
from __future__ import annotations


class OfflineEvalError(Exception):
    """Base class of every error this library raises on purpose."""


class InputError(OfflineEvalError, ValueError):
    """Bad user input. Names the file, the 1-based line and the field when known.

    >>> str(InputError("must be a string", path="in.jsonl", line=3, field="query"))
    "in.jsonl:3: field 'query': must be a string"
    """

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.path, self.line, self.field, self.reason = path, line, field, message
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        elif line is not None:
            where = f"line {line}: "
        what = f"field '{field}': " if field else ""
        super().__init__(f"{where}{what}{message}")


class RenamedFieldWarning(FutureWarning):
    """An input used a field's older name (read for one release; see CHANGELOG.md)."""


class ModelError(OfflineEvalError):
    """A model is missing, corrupt, tampered with, or has unusable labels."""


class StageError(OfflineEvalError):
    """A pipeline stage failed or was wired wrongly; names the stage."""

    def __init__(self, stage: str, message: str) -> None:
        self.stage = stage
        super().__init__(f"stage '{stage}': {message}")
