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

FAMILIES = {
    "gpt2": (lambda folder, seed, layers: gpt2_tiny.tiny_folder(folder, seed, layers),
             lambda w, ids: gpt2_tiny.reference(w, ids), gpt2_tiny.NPOS),
}


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
