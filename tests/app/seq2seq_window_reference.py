# AttnScope app tests — a tiny Marian or T5 folder (tests/cli/seq2seq_tiny.py) and what numpy's
# independent encoder–decoder (tests/cli/seq2seq_reference.py) makes of a source and a target:
# their ids, every attention of the teacher-forced run, and the greedy translation of the source
# with its own teacher-forced cross-attention, and the cross-attention with head 1 of the first
# decoder layer's cross-attention ablated, as JSON on stdout. GPL-3.0-or-later.
# Usage: seq2seq_window_reference.py marian|t5 FOLDER SOURCE TARGET MAX_TOKENS
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
import seq2seq_reference as ref  # noqa: E402
import seq2seq_tiny as tiny  # noqa: E402


def main(family, folder, source, target, max_tokens):
    if family == "marian":
        c, w, (sp, sv), (tp, tv) = tiny.marian_folder(folder, 3, True, eos_bias=0.3)
        src = tiny.marian_ids(sp, sv, source)
        tgt = [c["decoder_start_token_id"]] + tiny.marian_ids(tp, tv, target)
        model, eos = ref.marian, 0
    else:
        c, w, sp = tiny.t5_folder(folder, 5, "relu", True, eos_boost=1.6)
        src = sp.encode(source) + [1]
        tgt = [0] + sp.encode(target) + [1]
        model, eos = ref.t5, 1
    banned = [b[0] for b in c.get("bad_words_ids", []) if len(b) == 1]
    enc, dec, cross = model(w, c, src, tgt)[:3]
    greedy, _, _ = ref.search(lambda ids: model(w, c, src, ids)[3][-1],
                              c["decoder_start_token_id"], eos, 1, max_tokens, 1.0, banned)
    greedy_cross = model(w, c, src, [c["decoder_start_token_id"]] + greedy)[2]
    ablated = model(w, c, src, tgt, None, ("cross.0.1",))[2]
    json.dump({"source_ids": src, "target_ids": tgt, "encoder": enc.tolist(),
               "decoder": dec.tolist(), "cross": cross.tolist(), "greedy": greedy,
               "greedy_cross": greedy_cross.tolist(), "cross_ablated": ablated.tolist()},
              sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
