#!/usr/bin/env python3
# AttnScope — core's Mixtral (Mistral's attention, a sparse mixture of experts: softmax over every
# expert's router logit, top-k, renormalised) against decoder_tiny's numpy forward on tiny random
# folders: attention weights to 3e-5, logits to 1e-4 relative, the routing per layer and position
# (experts equal, weights to 3e-5); malformed configs refused by name. GPL-3.0-or-later.
#   mixtral_reference_test.py RUN_TOOL
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_run import check, checked_run, finish, refused  # noqa: E402
from decoder_tiny import config, reference, tiny_folder  # noqa: E402


IDS = [3, 17, 5, 39, 0, 12, 12, 8, 21, 30]
CASES = [
    ("mixtral F32, 4 experts, top 2, GQA 4/2", config("mixtral"), "F32"),
    ("mixtral BF16, 6 experts, top 3, window 4",
     config("mixtral", num_local_experts=6, num_experts_per_tok=3, sliding_window=4), "BF16"),
    ("mixtral F16 tied, 3 experts, top 1, rope_theta default 1e6",
     {k: v for k, v in config("mixtral", num_local_experts=3, num_experts_per_tok=1,
                              tie_word_embeddings=True).items() if k != "rope_theta"}, "F16"),
]

with tempfile.TemporaryDirectory() as tmp:
    for i, (name, c, dtype) in enumerate(CASES):
        folder = os.path.join(tmp, f"m{i}")
        used = tiny_folder(folder, 400 + i, c, dtype)
        ref_c = c | {"rope_theta": c.get("rope_theta", 1e6)}
        _, _, (experts, routing) = reference(used, ref_c, IDS)
        got = checked_run(name, folder, IDS, (), lambda: reference(used, ref_c, IDS)[:2],
                          weights_tol=3e-5)
        if not got:
            continue
        info = got[1]
        check(info["family"] == "mixtral" and info["dtype"] == dtype,
              f"{name}: info says {info['family']} {info['dtype']}")
        n_params = sum(v.size for v in used.values())
        check(info["parameters"] == n_params,
              f"{name}: {info['parameters']} parameters, the files hold {n_params}")
        got_e, got_w = np.array(info["router_experts"]), np.array(info["router_weights"])
        check(got_e.shape == experts.shape and (got_e == experts).all(),
              f"{name}: router experts {got_e.tolist()} ≠ {experts.tolist()}")
        if got_w.shape == routing.shape:
            err = np.abs(got_w - routing).max()
            check(err <= 3e-5, f"{name}: router weights differ by {err:.1e}")
            print(f"{name}: routing {experts.shape} equal, weights max |diff| {err:.1e}")
        else:
            check(False, f"{name}: router weights of shape {got_w.shape}, not {routing.shape}")
        # Some positions must go to different experts, or the routing is not exercised.
        check(len(set(experts.reshape(-1, experts.shape[-1])[:, 0].tolist())) > 1,
              f"{name}: every position chose the same expert")

    folder, used, c = os.path.join(tmp, "m0"), None, config("mixtral")
    used = tiny_folder(folder, 400, c, "F32")
    checked_run("temperature 2, rotary off", folder, IDS, ["--temperature", "2", "--no-rotary"],
                lambda: reference(used, c, IDS, temperature=2.0, rotary=False)[:2],
                weights_tol=3e-5)

    # Prefix reuse keeps the earlier positions' routing.
    got = checked_run("the first 6 ids run first", folder, IDS, ["--prefix", "6"],
                      lambda: reference(used, c, IDS)[:2], weights_tol=3e-5)
    if got:
        experts, routing = reference(used, c, IDS)[2]
        check(got[1]["reused"] == 6, f"prefix: {got[1]['reused']} rows reused, expected 6")
        check((np.array(got[1]["router_experts"]) == experts).all(),
              "prefix: the routing of every position equals numpy's")
        check(np.abs(np.array(got[1]["router_weights"]) - routing).max() <= 3e-5,
              "prefix: the routing weights equal numpy's")

    f = os.path.join(tmp, "too_many")
    tiny_folder(f, 1, config("mixtral", num_experts_per_tok=5))
    refused("num_experts_per_tok > num_local_experts", f, IDS, "config.json",
            "num_experts_per_tok 5")
    f = os.path.join(tmp, "dense")
    tiny_folder(f, 1, config("mixtral"))
    os.rename(os.path.join(f, "config.json"), os.path.join(f, "c.json"))
    cfg = json.load(open(os.path.join(f, "c.json")))
    json.dump(cfg | {"num_local_experts": 5}, open(os.path.join(f, "config.json"), "w"))
    refused("a config of more experts than the router has", f, IDS, "block_sparse_moe.gate.weight",
            "expected [5, 32]")

finish()
