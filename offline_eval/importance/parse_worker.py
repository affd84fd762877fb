"""A spaCy parse worker for :class:`~offline_eval.importance.parsing.ParsePool`.

``python -m offline_eval.importance.parse_worker MODEL`` loads the spaCy package
``MODEL`` (the ranker's pipeline, as :func:`~offline_eval.decomposition.nlp.load_spacy`
loads it), writes ``ready``, then for every JSON list of texts read on stdin writes the
JSON list of their :class:`~offline_eval.importance.signals.ClaimView`\\ s, one line
each, until stdin closes. A failure is written as ``{"error": ...}`` in place of the
answer (or of ``ready``).

torch is kept out of the worker: thinc imports it when it can, which doubles the worker's
memory (about 330 MB of peak RSS with it, 190 MB without; the small English pipeline
runs on numpy).
"""
from __future__ import annotations

import json
import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out, sys.stdout = sys.stdout, sys.stderr  # the replies alone go to stdout
    sys.modules.setdefault("torch", None)  # type: ignore[arg-type]  # `import torch` fails
    try:
        from offline_eval.decomposition.nlp import load_spacy
        from offline_eval.importance.parsing import parse_views

        nlp = load_spacy(args[0], mode="parse")
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which falls back
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}), file=out, flush=True)
        return 1
    print("ready", file=out, flush=True)
    for line in sys.stdin:
        try:
            texts = json.loads(line)
            reply: object = [v.to_json() for v in parse_views(nlp, [str(t) for t in texts])]
        except Exception as exc:  # noqa: BLE001 - reported to the parent, which falls back
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(reply), file=out, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
