#!/usr/bin/env python3
# AttnScope — core's GPT-2 forward against an independent numpy implementation, on tiny random
# GPT-2s written here in exactly the Hugging Face layout (config.json + model.safetensors).
# GPL-3.0-or-later.
#   gpt2_reference_test.py RUN_TOOL
# The numpy side follows the GPT-2 paper / Hugging Face's modeling_gpt2 formulas directly, not the
# C++ code's structure: attention weights of every layer must agree to 1e-5, logits to 1e-4
# relative, with GPT-2's own settings, with scaling off and with temperature 2 inside the run;
# and every malformed weights folder must be refused with a message naming the tensor.
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_run import check, checked_run, finish, run  # noqa: E402
from gpt2_tiny import NPOS, VOCAB, reference, weights, write_model, write_tokenizer  # noqa: E402


def write_folder(folder, *args, **kw):
    """write_model's folder with a vocabulary of the model's VOCAB tokens beside it: the run tool
    opens the folder through the family registry, which loads the tokenizer too."""
    used = write_model(folder, *args, **kw)
    write_tokenizer(folder, VOCAB)
    return used


def compare(name, folder, w, ids, args, **ref):
    """checked_run against gpt2_tiny's numpy GPT-2 with the controls REF: the weights, or None."""
    got = checked_run(name, folder, ids, args, lambda: reference(w, ids, **ref))
    return got[0] if got else None


with tempfile.TemporaryDirectory() as tmp:
    rng = np.random.default_rng(7)
    w = weights(rng)
    ids = [3, 17, 5, 39, 0, 12, 12, 8, 21, 30]
    f32 = os.path.join(tmp, "f32")
    # GPT2LMHeadModel's layout: "transformer." prefix, causal-mask buffers, a tied lm_head.
    used = write_folder(f32, w, prefix="transformer.",
                        extra={"transformer.h.0.attn.bias": (b"\x01" * 4, "BOOL"),
                               "transformer.h.0.attn.masked_bias": (np.float32([-1e4]), "F32")})
    used = {k: v for k, v in used.items() if k not in ("h.0.attn.bias", "h.0.attn.masked_bias")}
    base = compare("F32, GPT-2's own settings", f32, used, ids, [])
    compare("F32, scaling off inside the run", f32, used, ids, ["--no-scale"], scale=False)
    hot = compare("F32, temperature 2 inside the run", f32, used, ids, ["--temperature", "2"],
                  temperature=2.0)
    compare("F32, causal mask removed", f32, used, ids, ["--no-mask"], mask=False)
    one = compare("F32, temperature 2 in layer 1 only", f32, used, ids,
                  ["--temperature", "2", "--layers", "1"], temperature=2.0, layers=[1])
    if base is not None and hot is not None and one is not None:
        check(np.abs(base - hot).max() > 1e-3, "temperature 2 must change the weights")
        check(np.abs(one[0] - base[0]).max() < 1e-6, "a layer-1 control must leave layer 0 as is")
    for dt in ("F16", "BF16"):
        folder = os.path.join(tmp, dt)
        used = write_folder(folder, w, dtype=dt)
        compare(f"{dt}, no prefix", folder, used, ids, [])

    # config.json fields that change the forward pass, each against numpy's GPT2Attention /
    # GPT2MLP: implemented, never ignored.
    flags = {
        "scale_attn_weights false": ({"scale_attn_weights": False},
                                     dict(scale_attn_weights=False)),
        "scale_attn_by_inverse_layer_idx": ({"scale_attn_by_inverse_layer_idx": True},
                                            dict(scale_attn_by_inverse_layer_idx=True)),
        "both scaling flags": ({"scale_attn_weights": False, "scale_attn_by_inverse_layer_idx": True},
                               dict(scale_attn_weights=False, scale_attn_by_inverse_layer_idx=True)),
        # _upcast_and_reordered_attn: the same scores and softmax in float32, which AttnScope
        # always computes in.
        "reorder_and_upcast_attn": ({"reorder_and_upcast_attn": True,
                                     "scale_attn_by_inverse_layer_idx": True},
                                    dict(scale_attn_by_inverse_layer_idx=True)),
        "n_inner null": ({"n_inner": None}, {}),
    }
    for name, (cfg, ref) in flags.items():
        folder = os.path.join(tmp, name.replace(" ", "_"))
        got = compare(name, folder, write_folder(folder, w, config=cfg), ids, [], **ref)
        if got is not None and base is not None and ref:
            check(np.abs(got - base).max() > 1e-3, f"{name} must change the weights")
    folder = os.path.join(tmp, "inverse_layer_no_scale")
    used = write_folder(folder, w, config={"scale_attn_by_inverse_layer_idx": True})
    compare("scale_attn_by_inverse_layer_idx, scaling off inside the run", folder, used, ids,
            ["--no-scale"], scale=False, scale_attn_by_inverse_layer_idx=True)
    narrow = weights(np.random.default_rng(9), inner=20)
    folder = os.path.join(tmp, "n_inner")
    compare("n_inner 20 (not 4 · 8)", folder, write_folder(folder, narrow, config={"n_inner": 20}),
            ids, [])

    # Malformed folders: each refused with a message naming the tensor (or the field).
    bad = {k: v.copy() for k, v in w.items()}
    bad["h.1.mlp.c_fc.bias"][3] = np.nan
    cases = {
        "missing tensor": (dict(w=dict((k, v) for k, v in w.items() if k != "h.1.ln_2.bias")),
                           "h.1.ln_2.bias"),
        "wrong shape": (dict(w=w | {"h.0.attn.c_attn.weight": w["h.0.attn.c_attn.weight"][:, :8]}),
                        "h.0.attn.c_attn.weight"),
        "truncated file": (dict(w=w, truncate=100), "truncated"),
        "NaN value": (dict(w=bad), "h.1.mlp.c_fc.bias"),
        "not gpt2": (dict(w=w, config={"model_type": "bert"}), "model_type"),
        "bad activation": (dict(w=w, config={"activation_function": "relu"}), "activation_function"),
        "n_head not dividing": (dict(w=w, config={"n_head": 3}), "n_head"),
        "scale_attn_weights not a flag": (dict(w=w, config={"scale_attn_weights": "no"}),
                                          '"scale_attn_weights" must be true or false'),
        "n_inner not the weights' width": (dict(w=w, config={"n_inner": 20}),
                                           ('"h.0.mlp.c_fc.weight" has shape [8, 32], '
                                            'expected [8, 20]')),
    }
    # Defects that keep every tensor's element count: only a check of the shape itself, of the
    # header's names and of the byte ranges refuses them.
    d_attn = "h.0.attn.c_attn.weight"

    def repeated(header):  # h.0.ln_1.bias appears a second time, pointing at ln_1.weight's bytes
        text = json.dumps(header)
        again = json.dumps({"dtype": "F32", "shape": [8],
                            "data_offsets": header["h.0.ln_1.weight"]["data_offsets"]})
        return text[:-1] + ', "h.0.ln_1.bias": ' + again + "}"

    def overlapping(header):  # ln_f.bias's range moved onto ln_f.weight's
        header["ln_f.bias"]["data_offsets"] = header["ln_f.weight"]["data_offsets"]
        return json.dumps(header)

    stf = "model.safetensors"
    cases |= {
        "transposed c_attn": (dict(w=w | {d_attn: np.ascontiguousarray(w[d_attn].T)}),
                              (stf, '"h.0.attn.c_attn.weight" has shape [24, 8], expected [8, 24]')),
        "transposed wte": (dict(w=w | {"wte.weight": np.ascontiguousarray(w["wte.weight"].T)}),
                           (stf, '"wte.weight" has shape [8, 40], expected [40, 8]')),
        "bias as a matrix": (dict(w=w | {"ln_f.bias": w["ln_f.bias"].reshape(2, 4)}),
                             (stf, '"ln_f.bias" has shape [2, 4], expected [8]')),
        "repeated name": (dict(w=w, header_text=repeated),
                          (stf, 'tensor "h.0.ln_1.bias" appears twice')),
        "overlapping offsets": (dict(w=w, header_text=overlapping),
                                (stf, '"ln_f.bias" and "ln_f.weight" overlap')),
    }

    def refused(name, folder, needles, *args):
        """The run tool on FOLDER must exit 1 with a message holding every one of NEEDLES."""
        code, message = run(folder, ids, *args)
        check(code == 1 and all(n in message for n in needles),
              f"{name}: expected a refusal naming {needles}, got exit {code}: {message}")
        print(f"{name}: refused: {message}")

    for name, (kw, needle) in cases.items():
        folder = os.path.join(tmp, name.replace(" ", "_"))
        write_folder(folder, **kw)
        # The registry would open a "bert" folder as BERT: GPT-2's own check must refuse it.
        refused(name, folder, needle if isinstance(needle, tuple) else (needle,),
                *(["--family", "gpt2"] if name == "not gpt2" else []))
    # Finite weights whose products overflow float32: the run's refusal names the folder, the
    # layer and its tensors, the head, and what to do.
    huge = {k: v.copy() for k, v in w.items()}
    huge["h.1.ln_1.weight"][:] = 1e30
    huge["h.1.attn.c_attn.weight"] *= 1e10
    folder = os.path.join(tmp, "overflow_q")
    write_folder(folder, huge)
    refused("overflowing Q", folder,
            (folder + ": layer 1 (tensors h.1.*), head 0: Q contains a non-finite value",
             "at row 0, column 0.", "The weights in " + folder, "check the weight files"))
    huge = {k: v.copy() for k, v in w.items()}
    huge["h.0.ln_2.weight"][:] = 1e30
    huge["h.0.mlp.c_fc.weight"] *= 1e10
    folder = os.path.join(tmp, "overflow_mlp")
    write_folder(folder, huge, prefix="transformer.")
    refused("overflowing MLP", folder,
            (folder + ": layer 0 (tensors transformer.h.0.*): its output (the residual stream) "
             "has a non-finite value", "check the weight files"))
    huge = {k: v.copy() for k, v in w.items()}
    huge["ln_f.weight"][:] = 3e38
    folder = os.path.join(tmp, "overflow_head")
    write_folder(folder, huge)
    refused("overflowing logits", folder,
            (folder + ": the logits at position 9 (the final norm and the output head) have a "
             "non-finite value.", "check the weight files"))
    code, message = run(os.path.join(tmp, "nowhere"), ids)
    check(code == 1 and "config.json" in message, f"missing folder: {message}")
    code, message = run(f32, list(range(NPOS + 1)))
    check(code == 1 and "positions" in message, f"too many tokens: {message}")

finish()
