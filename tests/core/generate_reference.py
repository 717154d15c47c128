# AttnScope — greedy generation in numpy, by chaining full recomputes: the independent reference
# of generate_test.cpp. GPL-3.0-or-later.
#   generate_reference.py FAMILY DIR SEED LAYERS IDS N
# writes FAMILY's tiny random folder into DIR and prints, as JSON, numpy's greedy continuation of
# IDS (N tokens, or until the model's last position) and log p(ids[i] | ids[:i]) of every id
# (null at 0). Each step runs the whole sequence again, so nothing is cached: what the C++ key-value
# cache must equal. A family is one entry of FAMILIES: its folder writer (returning the weights)
# and its numpy forward (returning (weights, last logits)).
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpt2_tiny  # noqa: E402
import llama_tiny  # noqa: E402

# The Llama-family rows: grouped-query attention (4 query / 2 key-value heads); qwen2 with its
# q/k/v biases, tied, BF16; qwen3 with q_norm/k_norm and head_dim 12 ≠ 32 / 4.
LLAMA_CONFIGS = {
    "llama": (lambda layers: llama_tiny.config("llama", layers=layers), "F32"),
    "qwen2": (lambda layers: llama_tiny.config("qwen2", layers=layers, rope_theta=1e6,
                                               tie_word_embeddings=True), "BF16"),
    "qwen3": (lambda layers: llama_tiny.config("qwen3", layers=layers, head_dim=12), "F32"),
}


def llama_family(kind):
    make, dtype = LLAMA_CONFIGS[kind]
    configs = {}

    def write(folder, seed, layers):
        configs[folder] = c = make(layers)
        return folder, llama_tiny.tiny_folder(folder, seed, c, dtype)

    def forward(w, ids):
        folder, used = w
        return llama_tiny.reference(used, configs[folder], ids)

    return write, forward, make(1)["max_position_embeddings"]


FAMILIES = {
    "gpt2": (lambda folder, seed, layers: gpt2_tiny.tiny_folder(folder, seed, layers),
             lambda w, ids: gpt2_tiny.reference(w, ids), gpt2_tiny.NPOS),
} | {kind: llama_family(kind) for kind in LLAMA_CONFIGS}


def log_softmax(z):
    z = z - z.max()
    return z - np.log(np.exp(z).sum())


def greedy(forward, w, ids, n, positions):
    ids = list(ids)
    logprobs = [None]
    for i in range(1, len(ids)):
        logprobs.append(float(log_softmax(forward(w, ids[:i])[1])[ids[i]]))
    for _ in range(n):
        if len(ids) >= positions:
            break
        lp = log_softmax(forward(w, ids)[1])
        best = int(np.argmax(lp))  # the first of equal maxima: the lowest id, as the C++ side
        ids.append(best)
        logprobs.append(float(lp[best]))
    return ids, logprobs


if __name__ == "__main__":
    family, folder, seed, layers, ids, n = sys.argv[1:7]
    write, forward, positions = FAMILIES[family]
    w = write(folder, int(seed), int(layers))
    out_ids, logprobs = greedy(forward, w, [int(t) for t in ids.split(",")], int(n), positions)
    print(json.dumps({"ids": out_ids, "logprobs": logprobs}))
