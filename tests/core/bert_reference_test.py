#!/usr/bin/env python3
# AttnScope — core's BERT forward against an independent numpy implementation (bert_tiny.py),
# on tiny random BertForMaskedLM and BertModel folders written here in the Hugging Face layout.
# GPL-3.0-or-later.
#   bert_reference_test.py RUN_TOOL
# Attention weights of every layer must agree to 1e-5, the fill-mask logits to 1e-4 relative,
# with BERT's own settings and with the controls (scaling off, temperature, a causal mask, one
# layer's scope) applied inside the run; BERT attends both ways; malformed folders are refused.
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_run import check, checked_run, finish, run  # noqa: E402
from bert_tiny import CLS, MASK, SEP, reference, weights, write_model  # noqa: E402


def compare(name, folder, w, ids, args, **ref):
    """checked_run against bert_tiny's numpy BERT with the controls REF: (weights, JSON), or
    (None, None) when the run failed."""
    return checked_run(name, folder, ids, args, lambda: reference(w, ids, **ref)) or (None, None)


with tempfile.TemporaryDirectory() as tmp:
    w = weights(np.random.default_rng(5))
    # [CLS] the cat [MASK] on the mat . [SEP] a dog [MASK] [SEP]: a pair, two masks.
    ids = [CLS, 6, 7, MASK, 9, 6, 10, 20, SEP, 11, 12, MASK, SEP]
    f32 = os.path.join(tmp, "f32")
    used = write_model(f32, w)
    base, out = compare("F32, BERT's own settings", f32, used, ids, [])
    if base is not None:
        check(out["family"] == "bert" and not out["causal"] and not out["pre_norm"],
              f"ModelInfo: {out['family']}, causal {out['causal']}, pre_norm {out['pre_norm']}")
        check(out["parameters"] == sum(v.size for v in w.values()),
              f"parameters {out['parameters']} != {sum(v.size for v in w.values())}")
        # Bidirectional: every query sees later keys (entries above the diagonal are non-zero).
        upper = np.triu(base, 1).sum(axis=(2, 3))  # weight above the diagonal, per head
        check(upper.min() > 1e-2, f"BERT must attend both ways: weight above the diagonal "
              f"per head {upper.min():.2e}")
        check(np.allclose(base.sum(-1), 1, atol=1e-5), "every row of weights sums to 1")
        check(out["logits_position"] == 3, f"fill-mask at the first [MASK] (3), got "
              f"{out['logits_position']}")
    compare("F32, scaling off inside the run", f32, used, ids, ["--no-scale"], scale=False)
    hot, _ = compare("F32, temperature 2 inside the run", f32, used, ids, ["--temperature", "2"],
                     temperature=2.0)
    causal, _ = compare("F32, causal mask inside the run", f32, used, ids, ["--causal"],
                        causal=True)
    one, _ = compare("F32, temperature 2 in layer 1 only", f32, used, ids,
                     ["--temperature", "2", "--layers", "1"], temperature=2.0, layers=[1])
    if base is not None and hot is not None and one is not None and causal is not None:
        check(np.abs(base - hot).max() > 1e-3, "temperature 2 must change the weights")
        check(np.abs(one[0] - base[0]).max() < 1e-6, "a layer-1 control must leave layer 0 as is")
        check(np.abs(one[1] - base[1]).max() > 1e-3, "a layer-1 control must change layer 1")
        check(np.abs(np.triu(causal[0, 0], 1)).max() == 0, "a causal mask zeroes the upper part")
    no_mask = [CLS, 6, 7, 8, 9, 6, 10, SEP]
    _, out = compare("F32, no [MASK]: logits at the last position", f32, used, no_mask, [])
    if out:
        check(out["logits_position"] == len(no_mask) - 1, "without [MASK], the last position")

    for dt in ("F16", "BF16"):
        folder = os.path.join(tmp, dt)
        compare(f"{dt} BertForMaskedLM", folder, write_model(folder, w, dtype=dt), ids, [])
    untied = weights(np.random.default_rng(6), untied=True)
    folder = os.path.join(tmp, "untied")
    compare("F32, untied decoder", folder, write_model(folder, untied), ids, [])
    folder = os.path.join(tmp, "gamma")
    compare("F32, LayerNorm gamma/beta names", folder, write_model(folder, w, gamma_beta=True),
            ids, [])
    bare = weights(np.random.default_rng(8), head=False)
    folder = os.path.join(tmp, "bertmodel")
    compare("F16 BertModel (no prefix, no head)", folder,
            write_model(folder, bare, dtype="F16", prefix=False), ids, [])

    # Malformed folders: each refused with a message naming the tensor or the field.
    cases = {
        "missing tensor": (dict(w={k: v for k, v in w.items()
                                   if k != "encoder.layer.1.output.LayerNorm.bias"}),
                           "encoder.layer.1.output.LayerNorm.bias"),
        "transposed intermediate": (
            dict(w=w | {"encoder.layer.0.intermediate.dense.weight":
                        np.ascontiguousarray(w["encoder.layer.0.intermediate.dense.weight"].T)}),
            "has shape [8, 16], expected [16, 8]"),
        "relu": (dict(w=w, config={"hidden_act": "relu"}), "hidden_act"),
        "relative positions": (dict(w=w, config={"position_embedding_type": "relative_key"}),
                               "position_embedding_type"),
        "heads not dividing": (dict(w=w, config={"num_attention_heads": 3}),
                               "num_attention_heads"),
        # A decoder (BertLMHeadModel) attends causally: refused by name, never run as an encoder.
        "is_decoder true": (dict(w=w, config={"is_decoder": True}),
                            'config.json: "is_decoder" is true'),
    }
    nan = {k: v.copy() for k, v in w.items()}
    nan["encoder.layer.0.attention.self.key.bias"][1] = np.nan
    cases["NaN value"] = (dict(w=nan), "encoder.layer.0.attention.self.key.bias")
    for name, (kw, needle) in cases.items():
        folder = os.path.join(tmp, name.replace(" ", "_"))
        write_model(folder, **kw)
        code, message = run(folder, ids)
        check(code == 1 and needle in message,
              f"{name}: expected a refusal naming {needle!r}, got exit {code}: {message}")
        print(f"{name}: refused: {message}")
    # is_decoder false is BertConfig's default: the encoder runs as before.
    folder = os.path.join(tmp, "encoder_flag")
    compare("F32, is_decoder false", folder, write_model(folder, w, config={"is_decoder": False}),
            ids, [])
    os.remove(os.path.join(f32, "vocab.txt"))
    code, message = run(f32, ids)
    check(code == 1 and "vocab.txt" in message, f"no vocabulary: {message}")
    code, message = run(os.path.join(tmp, "F16"), list(range(30)))
    check(code == 1 and "positions" in message, f"too many tokens: {message}")

finish()
