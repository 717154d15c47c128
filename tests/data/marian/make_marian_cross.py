#!/usr/bin/env python3
"""Writes marian_en_de_cross.json: a BertViz encoder-decoder payload shaped like
Helsinki-NLP/opus-mt-en-de's (6 layers, 8 heads; SentencePiece pieces with "▁", "</s>" and the
decoder's start token "<pad>") for BertViz's own example pair. The numbers are NOT a trained
model's: no weights can be downloaded here. They are seeded softmaxes of a hand-made alignment
prior, so the fixture has what real Marian cross-attention has (a near-monotone alignment,
heads that park on "</s>", causal decoder self-attention) and exactly known tokens.

    /usr/bin/python3 make_marian_cross.py > marian_en_de_cross.json
"""
import json
import sys

import numpy as np

LAYERS, HEADS = 6, 8
# "She sees the small elephant." → "Sie sieht den kleinen Elefanten." (bertviz's Marian example)
ENC = ["▁She", "▁sees", "▁the", "▁small", "▁ele", "phant", ".", "</s>"]
DEC = ["<pad>", "▁Sie", "▁sieht", "▁den", "▁kleinen", "▁Elefant", "en", ".", "</s>"]
# For each decoder token, the source token it translates (the decoder predicts the NEXT token,
# so "<pad>" already looks at "▁She"); "</s>" aligns with "</s>".
ALIGN = [0, 1, 2, 3, 4, 5, 6, 6, 7]


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def main():
    rng = np.random.default_rng(2021)
    ne, nd = len(ENC), len(DEC)
    cross = np.zeros((LAYERS, HEADS, nd, ne))
    for layer in range(LAYERS):
        for head in range(HEADS):
            logits = rng.normal(0.0, 0.6, (nd, ne))
            if head % 4 == 3:  # a "no-op" head: most weight on the final </s>
                logits[:, ne - 1] += 4.0
            else:  # sharper alignment in later layers
                sharp = 1.0 + 0.6 * layer
                for i, j in enumerate(ALIGN):
                    logits[i, j] += 2.0 * sharp
                    logits[i, min(j + 1, ne - 1)] += 0.6 * sharp
            cross[layer, head] = softmax(logits)
    enc = softmax(rng.normal(0.0, 1.0, (LAYERS, HEADS, ne, ne)) + 2.0 * np.eye(ne))
    causal = np.triu(np.full((nd, nd), -np.inf), 1)
    dec = softmax(rng.normal(0.0, 1.0, (LAYERS, HEADS, nd, nd)) + causal)

    def rows(a):
        return np.round(a, 4).tolist()

    payload = {
        "attention": [
            {"name": "Encoder", "attn": rows(enc), "left_text": ENC, "right_text": ENC},
            {"name": "Decoder", "attn": rows(dec), "left_text": DEC, "right_text": DEC},
            {"name": "Cross", "attn": rows(cross), "left_text": DEC, "right_text": ENC},
        ],
        "default_filter": "0",
        "root_div_id": "bertviz-marian",
        "layer": None,
        "heads": None,
        "include_layers": list(range(LAYERS)),
    }
    json.dump(payload, sys.stdout, ensure_ascii=False, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
