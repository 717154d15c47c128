"""Turning what users pass (NumPy arrays, PyTorch tensors, Hugging Face tuples) into checked
float32 arrays, with BertViz's error messages where BertViz has one.

Nothing here imports torch: a tensor is recognised by its ``detach``/``cpu``/``numpy`` methods.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

#: What BertViz says when a layer's tensor is not [batch, heads, n, n].
DIMENSIONS_HINT = (
    "The attention tensor does not have the correct number of dimensions. Make sure you set "
    "output_attentions=True when initializing your model."
)


def to_numpy(x: Any) -> np.ndarray:
    """A NumPy array of ``x``: an array, a nested list, or a tensor of any framework that has
    ``detach()``, ``cpu()`` and ``numpy()`` (PyTorch), without importing that framework."""
    if hasattr(x, "detach") and callable(x.detach):
        x = x.detach()
    if hasattr(x, "cpu") and callable(x.cpu):
        x = x.cpu()
    # NumPy has no bfloat16: widen such tensors first (they have .float(), arrays do not).
    if "bfloat16" in str(getattr(x, "dtype", "")) and hasattr(x, "float"):
        x = x.float()
    if hasattr(x, "numpy") and callable(x.numpy) and not isinstance(x, np.ndarray):
        x = x.numpy()
    return np.asarray(x)


def _finite(a: np.ndarray, what: str) -> np.ndarray:
    # Only booleans, integers and reals: astype(float32) would drop a complex array's imaginary
    # part (with no more than a NumPy warning) and turn timedeltas into counts.
    if a.dtype.kind == "c":
        raise ValueError(f"{what} holds complex values ({a.dtype}); attention is real: pass "
                         "its .real or abs() explicitly")
    if a.dtype.kind not in "biuf":
        raise ValueError(f"{what} holds {a.dtype} values, expected numbers")
    a = a.astype(np.float32)
    bad = np.argwhere(~np.isfinite(a))
    if bad.size:
        raise ValueError(f"{what} holds {a[tuple(bad[0])]} at index {tuple(int(i) for i in bad[0])}; "
                         "attention must be finite")
    return a


def num_layers(attention: Any) -> int:
    """The number of layers of a per-layer sequence (BertViz's ``num_layers``)."""
    return len(attention)


def format_attention(attention: Any, include_layers: Optional[Sequence[int]] = None,
                     include_heads: Optional[Sequence[int]] = None,
                     what: str = "attention") -> np.ndarray:
    """BertViz's ``format_attention``: one [1, heads, nq, nk] tensor per layer (a tuple or list,
    as Hugging Face returns with ``output_attentions=True``, or anything whose first axis is the
    layers) → a float32 [layers, heads, nq, nk] array of the included layers and heads."""
    if attention is None:
        raise ValueError(f"'{what}' is None")
    if isinstance(attention, (str, bytes)) or not hasattr(attention, "__len__"):
        raise ValueError(f"'{what}' must be a tuple of per-layer tensors "
                         f"[batch, heads, n, n], got {type(attention).__name__}")
    total = num_layers(attention)
    if total == 0:
        raise ValueError(f"'{what}' holds no layers")
    layers = list(range(total)) if include_layers is None else list(include_layers)
    if not layers:
        raise ValueError("include_layers is empty: nothing to show")
    squeezed: List[np.ndarray] = []
    for index in layers:
        if not isinstance(index, (int, np.integer)) or not 0 <= index < total:
            raise ValueError(f"Layer {index} in include_layers is out of range: '{what}' has "
                             f"{total} layers (0 … {total - 1})")
        a = to_numpy(attention[index])
        if a.ndim != 4:
            raise ValueError(f"{DIMENSIONS_HINT} ({what}[{index}] has shape {tuple(a.shape)}, "
                             "expected [batch, heads, n, n])")
        if a.shape[0] != 1:
            raise ValueError(f"{what}[{index}] has batch size {a.shape[0]}; one example is shown "
                             "at a time (batch_size must be 1): pass "
                             "[a[i:i+1] for a in attention]")
        a = a[0]
        if include_heads is not None:
            heads = list(include_heads)
            for h in heads:
                if not isinstance(h, (int, np.integer)) or not 0 <= h < a.shape[0]:
                    raise ValueError(f"Head {h} in include_heads is out of range: '{what}' has "
                                     f"{a.shape[0]} heads (0 … {a.shape[0] - 1})")
            a = a[heads]
        if squeezed and a.shape != squeezed[0].shape:
            raise ValueError(f"{what}[{index}] is {_dims(a.shape)} (heads × queries × keys) but "
                             f"{what}[{layers[0]}] is {_dims(squeezed[0].shape)}: every layer "
                             "must have the same shape")
        squeezed.append(_finite(a, f"{what}[{index}]"))
    return np.stack(squeezed)


def as_tensor(x: Any, what: str, min_dims: int = 2, max_dims: int = 4) -> np.ndarray:
    """An attention-like argument of ``save``: a [nq, nk], [H, nq, nk] or [L, H, nq, nk] array,
    or Hugging Face's tuple of per-layer [1, H, nq, nk] tensors (stacked into [L, H, nq, nk])."""
    if isinstance(x, (tuple, list)) and x and hasattr(x[0], "shape"):
        return format_attention(x, what=what)
    a = to_numpy(x)
    if a.ndim == 5 and a.shape[1] == 1:  # torch.stack of Hugging Face's tuple: [L, 1, H, n, n]
        a = a[:, 0]
    if not min_dims <= a.ndim <= max_dims:
        raise ValueError(f"'{what}' has shape {tuple(a.shape)}; expected [nq, nk], "
                         "[heads, nq, nk], [layers, heads, nq, nk] or a tuple of per-layer "
                         "[1, heads, nq, nk] tensors")
    if 0 in a.shape:
        raise ValueError(f"'{what}' has shape {tuple(a.shape)}: a dimension is zero")
    return _finite(a, f"'{what}'")


def as_vectors(x: Any, what: str) -> np.ndarray:
    """q, k or v: [L, H, n, d_k] (or a per-layer tuple of [1, H, n, d_k])."""
    a = as_tensor(x, what, 4, 4)
    return a


def token_list(tokens: Any, what: str = "tokens") -> List[str]:
    """Tokens as a list of str (a list, tuple or 1-D array of strings or numbers)."""
    if isinstance(tokens, str):
        raise ValueError(f"'{what}' is one string; pass a list of tokens, e.g. "
                         "tokenizer.convert_ids_to_tokens(input_ids[0])")
    out = [t if isinstance(t, str) else str(t) for t in list(tokens)]
    if not out:
        raise ValueError(f"'{what}' is empty")
    return out


def check_tokens(attention: np.ndarray, left: Sequence[str], right: Sequence[str]) -> None:
    """BertViz's check: as many tokens on each side as the attention has positions."""
    if attention.shape[-2] != len(left):
        raise ValueError(f"Attention has {attention.shape[-2]} positions, while number of tokens "
                         f"is {len(left)} for tokens: {' '.join(left)}")
    if attention.shape[-1] != len(right):
        raise ValueError(f"Attention has {attention.shape[-1]} positions, while number of tokens "
                         f"is {len(right)} for tokens: {' '.join(right)}")


def prettify(tokens: Sequence[str]) -> List[str]:
    """BertViz's ``format_special_chars``: GPT-2's Ġ and SentencePiece's ▁ become spaces, and
    BPE's ``</w>`` goes."""
    return [t.replace("Ġ", " ").replace("▁", " ").replace("</w>", "") for t in tokens]


def _dims(shape: Sequence[int]) -> str:
    return "×".join(str(int(s)) for s in shape)
