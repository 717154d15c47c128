"""Writing what AttnScope opens: the attention ``.npz`` (docs/session-format.md, "What the
loaders accept") and a session that opens it on a given tab, layer and head."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Dict, Optional, Sequence, Union

import numpy as np

from ._arrays import as_tensor, as_vectors, token_list
from ._output import check_output, write_file

PathLike = Union[str, "os.PathLike[str]"]


def save(path: PathLike, attention: Any = None, tokens: Optional[Sequence[str]] = None,
         q: Any = None, k: Any = None, scores: Any = None, *, v: Any = None,
         query_tokens: Optional[Sequence[str]] = None,
         key_tokens: Optional[Sequence[str]] = None, d_k: Optional[float] = None,
         sentence_b_start: Optional[int] = None, encoder_attention: Any = None,
         decoder_attention: Any = None, cross_attention: Any = None,
         encoder_tokens: Optional[Sequence[str]] = None,
         decoder_tokens: Optional[Sequence[str]] = None) -> str:
    """Writes an ``.npz`` that AttnScope opens, and returns its path.

    Args:
        path: where to write (``.npz`` is not added: the name is used as given).
        attention: post-softmax weights: [nq, nk], [heads, nq, nk], [layers, heads, nq, nk], or
            Hugging Face's tuple of per-layer [1, heads, nq, nk] tensors
            (``output_attentions=True``). NumPy arrays or PyTorch tensors. Weights are ≥ 0: the
            program refuses a file whose weights have a negative entry, naming it (raw scores
            go in ``scores``).
        tokens: labels of both sides of self-attention (nq == nk).
        q, k: query and key vectors [layers, heads, n, d_k] (v likewise, optional): AttnScope
            computes the raw scores q·kᵀ from them, and the neuron and query–key views show them.
        scores: raw scores q·kᵀ before scaling and masking (the app's controls then apply).
        query_tokens, key_tokens: the two sides' labels when they differ (instead of tokens).
        d_k: the width used to scale raw scores (default: the vectors' width, else 64).
        sentence_b_start: index of sentence B's first token: the app adds BertViz's "Sentence A
            → Sentence B" views of ``attention``.
        encoder_attention, decoder_attention, cross_attention: an encoder–decoder model's
            attentions (BertViz's arguments; cross: [.., decoder n, encoder n]), labelled by
            encoder_tokens and decoder_tokens. Not together with attention, scores or q/k.

    The file is written as the command line writes its outputs: to a new temporary file beside
    ``path``, renamed over it when whole, with the replaced file's permissions (a new file gets
    0666 less the umask). A symbolic link, folder, device, FIFO, socket or read-only file at
    ``path`` is refused, never replaced or written through; a hard-linked file is replaced by
    name (its other links keep the old contents).

    Raises:
        ValueError: shapes or tokens that disagree, named as BertViz names them, complex or
            non-numeric arrays, or a ``path`` that is not replaced (named, with what it is).
        FileNotFoundError: ``path``'s folder does not exist.
    """
    check_output(os.fspath(path))  # before anything is computed, as the command line does
    members: Dict[str, np.ndarray] = {}
    seq2seq = {"encoder_attention": encoder_attention, "decoder_attention": decoder_attention,
               "cross_attention": cross_attention}
    if any(a is not None for a in seq2seq.values()):
        if attention is not None or scores is not None or q is not None or k is not None:
            raise ValueError("If you specify 'attention' you may not specify any "
                             "encoder-decoder arguments. This argument is only for "
                             "self-attention models.")
        for key, value in seq2seq.items():
            if value is not None:
                members[key] = as_tensor(value, key)
        enc = token_list(encoder_tokens, "encoder_tokens") if encoder_tokens is not None else None
        dec = token_list(decoder_tokens, "decoder_tokens") if decoder_tokens is not None else None
        _check_seq2seq(members, enc, dec)
        if enc is not None:
            members["encoder_tokens"] = np.array(enc, dtype=str)
        if dec is not None:
            members["decoder_tokens"] = np.array(dec, dtype=str)
    else:
        if attention is None and scores is None and (q is None or k is None):
            raise ValueError("You must specify at least one attention argument "
                             "(attention, scores, or q and k).")
        if (q is None) != (k is None):
            raise ValueError("'q' and 'k' go together: pass both")
        if attention is not None:
            members["attention"] = as_tensor(attention, "attention")
        if scores is not None:
            members["scores"] = as_tensor(scores, "scores")
        if q is not None:
            members["q"] = as_vectors(q, "q")
            members["k"] = as_vectors(k, "k")
            if members["q"].shape[:2] != members["k"].shape[:2] or \
                    members["q"].shape[3] != members["k"].shape[3]:
                raise ValueError(f"'q' is {members['q'].shape} but 'k' is {members['k'].shape} "
                                 "(expected [L, H, n, d_k] with the same L, H and d_k)")
            if v is not None:
                members["v"] = as_vectors(v, "v")
        if "attention" in members or "scores" in members:
            nq, nk = members.get("attention", members.get("scores")).shape[-2:]
        else:
            nq, nk = members["q"].shape[-2], members["k"].shape[-2]
        if "attention" in members and "scores" in members and \
                members["attention"].shape != members["scores"].shape:
            raise ValueError(f"'attention' is {members['attention'].shape} but 'scores' is "
                             f"{members['scores'].shape}: they must have the same shape")
        if tokens is not None:
            toks = token_list(tokens)
            if nq != nk:
                raise ValueError(f"'tokens' labels both sides but the attention is {nq}×{nk}; "
                                 "pass query_tokens and key_tokens")
            if len(toks) != nq:
                raise ValueError(f"Attention has {nq} positions, while number of tokens is "
                                 f"{len(toks)} for tokens: {' '.join(toks)}")
            members["tokens"] = np.array(toks, dtype=str)
        elif query_tokens is not None or key_tokens is not None:
            if query_tokens is None or key_tokens is None:
                raise ValueError("'query_tokens' and 'key_tokens' go together: pass both")
            qt, kt = token_list(query_tokens, "query_tokens"), token_list(key_tokens, "key_tokens")
            if len(qt) != nq:
                raise ValueError(f"Attention has {nq} query positions, while number of "
                                 f"query_tokens is {len(qt)} for tokens: {' '.join(qt)}")
            if len(kt) != nk:
                raise ValueError(f"Attention has {nk} key positions, while number of "
                                 f"key_tokens is {len(kt)} for tokens: {' '.join(kt)}")
            members["query_tokens"] = np.array(qt, dtype=str)
            members["key_tokens"] = np.array(kt, dtype=str)
        if sentence_b_start is not None:
            if "attention" not in members:
                raise ValueError("sentence_b_start splits 'attention' (the weights); pass it")
            n = members["attention"].shape[-1]
            if not isinstance(sentence_b_start, (int, np.integer)) or \
                    not 0 < sentence_b_start < n or members["attention"].shape[-2] != n:
                raise ValueError(f"sentence_b_start = {sentence_b_start} must be between 1 and "
                                 f"{n - 1} (the index of sentence B's first token of {n})")
            members["sentence_b_start"] = np.array([sentence_b_start], dtype=np.int64)
    if d_k is not None:
        if not d_k > 0:
            raise ValueError(f"d_k = {d_k} must be positive")
        members["d_k"] = np.array([d_k], dtype=np.float32)
    return _write_npz(os.fspath(path), members)


def _check_seq2seq(members: Dict[str, np.ndarray], enc: Optional[Sequence[str]],
                   dec: Optional[Sequence[str]]) -> None:
    """The cross-attention's queries are the decoder's tokens, its keys the encoder's."""
    sides = {"encoder_attention": (enc, enc, "encoder_tokens"),
             "decoder_attention": (dec, dec, "decoder_tokens"),
             "cross_attention": (dec, enc, "decoder_tokens")}
    for key, a in members.items():
        left, right, name = sides[key]
        if key != "cross_attention" and a.shape[-1] != a.shape[-2]:
            raise ValueError(f"'{key}' is {a.shape[-2]}×{a.shape[-1]}; self-attention is square")
        if left is not None and a.shape[-2] != len(left):
            raise ValueError(f"Attention has {a.shape[-2]} positions, while number of tokens is "
                             f"{len(left)} for tokens: {' '.join(left)} ('{key}' against "
                             f"'{name}')")
        if right is not None and a.shape[-1] != len(right):
            raise ValueError(f"Attention has {a.shape[-1]} positions, while number of tokens is "
                             f"{len(right)} for tokens: {' '.join(right)} ('{key}' against "
                             "'encoder_tokens')")
    cross = members.get("cross_attention")
    if cross is not None:
        if "encoder_attention" in members and cross.shape[-1] != members["encoder_attention"].shape[-1]:
            raise ValueError(f"'cross_attention' has {cross.shape[-1]} keys but "
                             f"'encoder_attention' {members['encoder_attention'].shape[-1]} tokens")
        if "decoder_attention" in members and cross.shape[-2] != members["decoder_attention"].shape[-1]:
            raise ValueError(f"'cross_attention' has {cross.shape[-2]} queries but "
                             f"'decoder_attention' {members['decoder_attention'].shape[-1]} tokens")


def _write_npz(path: str, members: Dict[str, np.ndarray]) -> str:
    """np.savez by the program's output rules (_output.write_file): never through a link nor
    over a device, FIFO or folder, the replaced file's mode kept, a reader never sees half."""
    return write_file(path, lambda f: np.savez(f, **members))


def write_session(path: PathLike, data_path: PathLike, *, tab: str = "heads", component: int = 0,
                  layer: int = 0, head: Optional[int] = None, focus: bool = False) -> str:
    """Writes an AttnScope session (docs/session-format.md) that opens ``data_path`` (referenced
    relative to the session) on ``tab`` ("heads" or "model": the app's constant tab keys),
    showing ``component`` and ``layer``; ``head`` is selected, and shown alone when ``focus``."""
    path = os.fspath(path)
    rel = os.path.relpath(os.path.abspath(os.fspath(data_path)),
                          os.path.dirname(os.path.abspath(path)))
    session = {
        "format": "attnscope-session",
        "version": 1,
        "scene": {},
        "data": {"path": rel, "absolute_path": os.path.abspath(os.fspath(data_path)),
                 "component": int(component), "layer": int(layer), "d_k": None},
        "views": {"open_tab": tab.lower(),
                  "selection": {"query": -1, "key": -1, "head": int(head or 0)},
                  "focused_head": int(head) if focus and head is not None else -1},
    }
    text = json.dumps(session, ensure_ascii=False, indent=2)
    return write_file(path, lambda f: f.write(text.encode("utf-8")))


#: The file that marks a scratch folder: the window keeps what it opens from one out of
#: File ▸ Recent (they are handed over, not the user's documents).
SCRATCH_MARKER = ".attnscope-scratch"


def scratch_folder(prefix: str = "attnscope-") -> str:
    """A new private folder for files written only to be opened (under $TMPDIR), marked by an
    empty SCRATCH_MARKER file."""
    folder = tempfile.mkdtemp(prefix=prefix)
    open(os.path.join(folder, SCRATCH_MARKER), "xb").close()
    return folder
