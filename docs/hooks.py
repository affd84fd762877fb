"""MkDocs hook (the CLI reference) and a griffe extension (doctests shown as code).

**The CLI reference**, generated from the argparse parsers.

A page holding the marker ``<!-- cli-reference -->`` gets, in its place, the help of the
``offline-eval`` parser and of every subcommand and sub-subcommand (``corpus build``,
``models import``, ...), each under its own heading in a fenced code block. The text is
``format_help()`` of the parsers that ``offline_eval.cli.build_parser`` builds, so the page
can never disagree with ``offline-eval COMMAND --help``. Registered in ``mkdocs.yml``
(``hooks:``).

**Doctests as code.** The package's docstrings carry doctests as bare ``>>>`` lines (they
run under ``pytest --doctest-modules``). Griffe's Google parser reads them as code only
inside an ``Examples:`` section; elsewhere Markdown would render them as nested quotes.
:class:`DoctestBlocks`, loaded by mkdocstrings (``extensions:`` in ``mkdocs.yml``), wraps
each run of doctest lines in a ``pycon`` fence before the docstring is parsed. The source
files are not touched.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, Iterator

from griffe import Extension

MARKER = "<!-- cli-reference -->"
WIDTH = "100"  # help is wrapped to $COLUMNS; fixed so the page does not depend on the terminal


def _subcommands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line help, parser) of each subcommand, in --help order."""
    for action in parser._actions:  # argparse keeps subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, helps.get(name, ""), sub


def _section(parser: argparse.ArgumentParser, path: list[str], level: int) -> list[str]:
    out: list[str] = []
    for name, summary, sub in _subcommands(parser):
        cmd = path + [name]
        out += [f"{'#' * level} `{' '.join(cmd)}`", ""]
        if summary:
            text = summary[0].upper() + summary[1:]
            out += [text if text.endswith(".") else text + ".", ""]
        out += ["```text", sub.format_help().rstrip(), "```", ""]
        out += _section(sub, cmd, level + 1)
    return out


def cli_reference() -> str:
    """The Markdown of the whole reference."""
    root = str(Path(__file__).resolve().parent.parent)
    if root not in sys.path:
        sys.path.insert(0, root)
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        from offline_eval.cli import build_parser

        parser = build_parser()
        lines = ["## `offline-eval`", "", "```text", parser.format_help().rstrip(), "```", ""]
        lines += _section(parser, ["offline-eval"], 2)
    finally:
        if before is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = before
    return "\n".join(lines)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ANN001 (MkDocs' signature)
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, cli_reference())


def fence_doctests(text: str) -> str:
    """``text`` with every unindented run of doctest lines (a ``>>>`` line, through the
    next blank line) inside a ``pycon`` code fence; text already fenced is left alone."""
    out: list[str] = []
    fenced = in_test = False
    for line in text.split("\n"):
        if in_test and not line.strip():
            out += ["```", line]
            in_test = False
            continue
        if not in_test and line.startswith("```"):
            fenced = not fenced
        elif not in_test and not fenced and line.startswith(">>>"):
            out.append("```pycon")
            in_test = True
        out.append(line)
    if in_test:
        out.append("```")
    return "\n".join(out)


class DoctestBlocks(Extension):
    """Griffe extension: doctests outside an ``Examples:`` section become code blocks."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        doc = getattr(obj, "docstring", None)
        if doc is not None and ">>>" in doc.value:
            doc.value = fence_doctests(doc.value)
