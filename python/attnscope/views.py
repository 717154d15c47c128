"""BertViz's ``head_view`` and ``model_view``, opening the attention in AttnScope's window."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from ._arrays import check_tokens, format_attention, num_layers, prettify, token_list
from .app import open_in_app
from .files import save, scratch_folder, write_session


def _collect(attention: Any, tokens: Any, sentence_b_start: Optional[int],
             prettify_tokens: bool, encoder_attention: Any, decoder_attention: Any,
             cross_attention: Any, encoder_tokens: Any, decoder_tokens: Any,
             include_layers: Optional[Sequence[int]],
             include_heads: Optional[Sequence[int]]) -> Dict[str, Any]:
    """The arguments of ``save`` for BertViz's arguments, checked as BertViz checks them."""
    pretty = prettify if prettify_tokens else list
    if attention is not None:
        if tokens is None:
            raise ValueError("'tokens' is required")
        if encoder_attention is not None or decoder_attention is not None or \
                cross_attention is not None or encoder_tokens is not None or \
                decoder_tokens is not None:
            raise ValueError("If you specify 'attention' you may not specify any "
                             "encoder-decoder arguments. This argument is only for "
                             "self-attention models.")
        att = format_attention(attention, include_layers, include_heads)
        toks = token_list(tokens)
        check_tokens(att, toks, toks)
        args: Dict[str, Any] = {"attention": att, "tokens": pretty(toks)}
        if sentence_b_start is not None:
            args["sentence_b_start"] = sentence_b_start
        return args
    if encoder_attention is None and decoder_attention is None and cross_attention is None:
        raise ValueError("You must specify at least one attention argument.")
    args = {}
    if encoder_attention is not None and encoder_tokens is None:
        raise ValueError("'encoder_tokens' required if 'encoder_attention' is not None")
    if decoder_attention is not None and decoder_tokens is None:
        raise ValueError("'decoder_tokens' required if 'decoder_attention' is not None")
    if cross_attention is not None and encoder_tokens is None:
        raise ValueError("'encoder_tokens' required if 'cross_attention' is not None")
    if cross_attention is not None and decoder_tokens is None:
        raise ValueError("'decoder_tokens' required if 'cross_attention' is not None")
    enc = token_list(encoder_tokens, "encoder_tokens") if encoder_tokens is not None else None
    dec = token_list(decoder_tokens, "decoder_tokens") if decoder_tokens is not None else None
    for key, value, left, right in (("encoder_attention", encoder_attention, enc, enc),
                                    ("decoder_attention", decoder_attention, dec, dec),
                                    ("cross_attention", cross_attention, dec, enc)):
        if value is not None:
            a = format_attention(value, include_layers, include_heads, what=key)
            check_tokens(a, left, right)
            args[key] = a
    if enc is not None:
        args["encoder_tokens"] = pretty(enc)
    if dec is not None:
        args["decoder_tokens"] = pretty(dec)
    return args


def _layers_of(attention: Any, encoder_attention: Any, decoder_attention: Any,
               cross_attention: Any, include_layers: Optional[Sequence[int]]) -> List[int]:
    if include_layers is not None:
        return list(include_layers)
    first = next(a for a in (attention, encoder_attention, decoder_attention, cross_attention)
                 if a is not None)
    return list(range(num_layers(first)))


def _open(args: Dict[str, Any], view: str, tab: str, layer_index: int, head: Optional[int],
          focus: bool) -> str:
    folder = scratch_folder()
    data = save(os.path.join(folder, "attention.npz"), **args)
    session = write_session(os.path.join(folder, f"{view}.attnscope"), data, tab=tab,
                            layer=layer_index, head=head, focus=focus)
    return open_in_app(session)


def head_view(attention: Any = None, tokens: Optional[Sequence[str]] = None,
              sentence_b_start: Optional[int] = None, prettify_tokens: bool = True,
              layer: Optional[int] = None, heads: Optional[Sequence[int]] = None,
              encoder_attention: Any = None, decoder_attention: Any = None,
              cross_attention: Any = None, encoder_tokens: Optional[Sequence[str]] = None,
              decoder_tokens: Optional[Sequence[str]] = None,
              include_layers: Optional[Sequence[int]] = None) -> str:
    """BertViz's head view, in AttnScope: opens the attention on the Heads tab (every head of a
    layer as a heatmap; the Views tab's ``lines`` view is BertViz's drawing) of this user's
    running AttnScope window, or of a new one. Returns the session file it opened.

    Args:
        For self-attention models:
            attention: list of tensors (one for each layer) of shape
                ``(batch_size(must be 1), num_heads, sequence_length, sequence_length)``,
                as Hugging Face returns with ``output_attentions=True``; PyTorch tensors or
                NumPy arrays.
            tokens: list of tokens
            sentence_b_start: index of first wordpiece in sentence B if input text is sentence
                pair (optional): the app's component list then has BertViz's "Sentence A →
                Sentence B" filters.
        For encoder-decoder models:
            encoder_attention: per layer ``(1, num_heads, encoder_length, encoder_length)``
            decoder_attention: per layer ``(1, num_heads, decoder_length, decoder_length)``
            cross_attention: per layer ``(1, num_heads, decoder_length, encoder_length)``
            encoder_tokens, decoder_tokens: list of tokens of each side
        For all models:
            prettify_tokens: remove special characters in wordpieces, e.g. Ġ
            layer: index (zero-based) of the initial layer. Defaults to the first included one.
            heads: indices (zero-based) of the initially selected heads; one head is shown
                alone (double-click or Esc to see all), several select the first.
            include_layers: indices (zero-based) of layers to include. Defaults to all layers;
                the app numbers the included layers from 0 in this order.

    Raises:
        ValueError: missing tokens, mixed self- and encoder-decoder arguments, or shapes that
            disagree, in BertViz's words.
    """
    args = _collect(attention, tokens, sentence_b_start, prettify_tokens, encoder_attention,
                    decoder_attention, cross_attention, encoder_tokens, decoder_tokens,
                    include_layers, None)
    layers = _layers_of(attention, encoder_attention, decoder_attention, cross_attention,
                        include_layers)
    if layer is not None and layer not in layers:
        raise ValueError(f"Layer {layer} is not in include_layers: {layers}")
    n_heads = next(v for k, v in args.items() if k.endswith("attention")).shape[1]
    selected = list(heads) if heads is not None else []
    for h in selected:
        if not isinstance(h, (int, np.integer)) or not 0 <= h < n_heads:
            raise ValueError(f"Head {h} in heads is out of range: the attention has {n_heads} "
                             f"heads (0 … {n_heads - 1})")
    return _open(args, "head_view", "heads", layers.index(layer) if layer is not None else 0,
                 selected[0] if selected else None, focus=len(selected) == 1)


def model_view(attention: Any = None, tokens: Optional[Sequence[str]] = None,
               sentence_b_start: Optional[int] = None, prettify_tokens: bool = True,
               display_mode: str = "dark", encoder_attention: Any = None,
               decoder_attention: Any = None, cross_attention: Any = None,
               encoder_tokens: Optional[Sequence[str]] = None,
               decoder_tokens: Optional[Sequence[str]] = None,
               include_layers: Optional[Sequence[int]] = None,
               include_heads: Optional[Sequence[int]] = None) -> str:
    """BertViz's model view, in AttnScope: opens the attention on the Model tab (every layer ×
    head as a thumbnail, with the head census beneath; double-click one to open it). Arguments
    as :func:`head_view`, and:

    Args:
        display_mode: BertViz's 'light' or 'dark'; accepted for compatibility (AttnScope
            follows its own colour map).
        include_heads: indices (zero-based) of heads to include. Defaults to all heads; the app
            numbers the included heads from 0 in this order.

    Returns the session file it opened.
    """
    if display_mode not in ("light", "dark"):
        raise ValueError(f"display_mode must be 'light' or 'dark', got {display_mode!r}")
    args = _collect(attention, tokens, sentence_b_start, prettify_tokens, encoder_attention,
                    decoder_attention, cross_attention, encoder_tokens, decoder_tokens,
                    include_layers, include_heads)
    return _open(args, "model_view", "model", 0, None, focus=False)
