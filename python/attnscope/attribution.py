"""What each token contributed to one prediction: ``attnscope attribute`` from Python."""

from __future__ import annotations

import os
import subprocess
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from .app import find_app
from .files import PathLike

#: Keyword options of :func:`attribute` and the command-line option each becomes.
_OPTIONS = {"position": "--position", "target": "--target", "target_id": "--target-id",
            "steps": "--steps",
            "faithfulness": "--faithfulness", "temperature": "--temperature", "mask": "--mask",
            "layers": "--layers", "ablate": "--ablate", "ablate_mode": "--ablate-mode",
            "knockout": "--knockout"}


def _value(value: Any) -> str:
    """A list or tuple as "a,b,c"; anything else as its text."""
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def attribute(model_dir: PathLike, text: str, *,
              methods: Optional[Union[str, Sequence[str]]] = None, no_rotary: bool = False,
              extra_args: Sequence[str] = (), **options: Any) -> Dict[str, np.ndarray]:
    """Runs ``attnscope attribute --model MODEL_DIR --text TEXT`` and returns its arrays.

    Args:
        model_dir: a model folder AttnScope runs (GPT-2, Llama, Mistral, Qwen2/3, BERT), or an
            encoder–decoder's (Marian, T5): then text is the source, target the target
            sentence, position a target position and target_id the explained token; the arrays
            are source_*, target_*, ig_delta and encoder_/decoder_/cross_* (docs/attribution.md).
        text: the prompt.
        methods: "all" (the default: every method the model's family has), a name or a list
            of names: saliency, input_x_gradient, integrated_gradients, attention_x_gradient,
            norm_based, value_zeroing, alti, alti_rollout, attention_flow, rollout.
        no_rotary: rotary positions off in the run.
        extra_args: further command-line options.
        **options: position, target, steps, faithfulness, and the run's controls temperature,
            mask, layers, ablate, ablate_mode, knockout (docs/attribution.md).

    Returns:
        A dict of NumPy arrays: token_ids, position, target, logit and each method's output
        (saliency [n], input_x_gradient [n], integrated_gradients [n] with ig_delta [1],
        attention_x_gradient [L,H,n,n], norm_based [L,H,n,n], value_zeroing [L,n,n], alti [L,n,n], alti_rollout [n,n],
        attention_flow [n,n], rollout [n,n]; with faithfulness, faith_<method> [K+1],
        agreement [M,M] and agreement_methods [M]).

    Raises:
        TypeError: an unknown keyword option.
        RuntimeError: attnscope refused (its message, naming the problem, is included).
    """
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise TypeError(f"attribute() got unknown options {', '.join(unknown)} "
                        f"(known: {', '.join(sorted(_OPTIONS))})")
    command: List[str] = [find_app(), "attribute", "--model", os.fspath(model_dir), "--text", text]
    if methods is not None:
        command += ["--methods", methods if isinstance(methods, str) else ",".join(methods)]
    for name, value in options.items():
        if value is not None:
            command += [_OPTIONS[name], _value(value)]
    if no_rotary:
        command.append("--no-rotary")
    command += list(extra_args)
    with tempfile.TemporaryDirectory(prefix="attnscope-attribute-") as folder:
        out = os.path.join(folder, "attribution.npz")
        result = subprocess.run(command + ["-o", out], stdin=subprocess.DEVNULL,
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(result.stderr.strip()
                               or f"attnscope attribute exited {result.returncode}")
        with np.load(out) as z:
            return {name: z[name] for name in z.files}
