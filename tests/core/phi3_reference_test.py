#!/usr/bin/env python3
# AttnScope — core's Phi-3 (fused qkv_proj and gate_up_proj, RMSNorm, GQA, RoPE default and
# longrope with its short / long factors and attention factor, the optional window) against
# decoder_tiny's numpy forward on tiny random folders: attention weights to 3e-5, logits to 1e-4
# relative, the controls inside the run; malformed configs refused by name. GPL-3.0-or-later.
#   phi3_reference_test.py RUN_TOOL
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_run import check, checked_run, finish, refused  # noqa: E402
from decoder_tiny import config, phi3_longrope, reference, tiny_folder  # noqa: E402


def compare(name, folder, w, c, ids, args=(), **ref):
    return checked_run(name, folder, ids, args, lambda: reference(w, c, ids, **ref)[:2],
                       weights_tol=3e-5)


LONG = [3, 17, 5, 39, 0, 12, 12, 8, 21, 30]  # 10 > the original context 8: long factors
SHORT = LONG[:6]  # 6 ≤ 8: short factors
CASES = [
    # name, config, dtype, ids
    ("phi3 F32, GQA 4/2, default rope", config("phi3"), "F32", LONG),
    ("phi3 F32, longrope past the original context (long factors)", phi3_longrope(config("phi3")),
     "F32", LONG),
    ("phi3 F32, longrope within the original context (short factors)",
     phi3_longrope(config("phi3")), "F32", SHORT),
    ("phi3 BF16, longrope \"su\" with attention_factor 1.3, multi-head 4/4",
     phi3_longrope(config("phi3", kv_heads=4), type="su", attention_factor=1.3), "BF16", LONG),
    ("phi3 F16 tied, sliding window 4", config("phi3", sliding_window=4, tie_word_embeddings=True),
     "F16", LONG),
]

with tempfile.TemporaryDirectory() as tmp:
    folders = []
    for i, (name, c, dtype, ids) in enumerate(CASES):
        folder = os.path.join(tmp, f"m{i}")
        used = tiny_folder(folder, 200 + i, c, dtype)
        folders.append((folder, used, c))
        got = compare(name, folder, used, c, ids)
        if got:
            info = got[1]
            check(info["family"] == "phi3" and info["dtype"] == dtype,
                  f"{name}: info says {info['family']} {info['dtype']}")
            n_params = sum(v.size for v in used.values())
            check(info["parameters"] == n_params,
                  f"{name}: {info['parameters']} parameters, the files hold {n_params}")
    # The long and short factors must differ (else the switch is not tested).
    folder, used, c = folders[1]
    a = reference(used, c, LONG)[0][:, :, :6, :6]
    b = reference(used, c, SHORT)[0]
    check(abs(a - b).max() > 1e-3, "longrope: the long and short factors must change weights")

    folder, used, c = folders[1]
    compare("longrope, scaling off", folder, used, c, LONG, ["--no-scale"], scale=False)
    compare("longrope, temperature 2 in layer 1", folder, used, c, LONG,
            ["--temperature", "2", "--layers", "1"], temperature=2.0, layers=[1])
    compare("longrope, rotary off", folder, used, c, LONG, ["--no-rotary"], rotary=False)

    # Prefix reuse: a run of 6 ids (short factors) lends nothing to the run of 10 (long
    # factors at every position); a run of 9 (long) lends its 9 rows to the run of 10.
    for k, reused in ((6, 0), (9, 9)):
        got = compare(f"longrope, the first {k} ids run first", folder, used, c, LONG,
                      ["--prefix", str(k)])
        if got:
            check(got[1]["reused"] == reused,
                  f"prefix of {k}: {got[1]['reused']} rows reused, expected {reused}")

    def with_config(name, **extra):
        f = os.path.join(tmp, name)
        tiny_folder(f, 1, config("phi3") | extra)
        return f

    refused("rope_scaling yarn", with_config("yarn", rope_scaling={"type": "yarn", "factor": 2.0}),
            LONG, "config.json", "\"yarn\"", "phi3")
    short3 = phi3_longrope(config("phi3"))["rope_scaling"] | {"short_factor": [1.0, 1.0, 1.0]}
    refused("short_factor of the wrong length", with_config("short", rope_scaling=short3), LONG,
            "config.json", "short_factor", "4 numbers")
    refused("partial rotary", with_config("partial", partial_rotary_factor=0.5), LONG,
            "partial_rotary_factor")
    refused("hidden_act gelu", with_config("gelu", hidden_act="gelu"), LONG, "hidden_act")

finish()
