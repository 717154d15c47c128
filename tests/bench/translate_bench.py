#!/usr/bin/env python3
# AttnScope — the benchmarks of `attnscope translate` (issue #40): greedy translation of 24
# tokens from 24 source tokens on a random opus-mt-shaped Marian or T5-base-shaped folder, and
# its PyTorch anchor: the same forward written here in float32 eager PyTorch, incremental
# decoding with cached self-attention keys/values and the cross keys/values computed once.
# GPL-3.0-or-later.
#   translate_bench.py write DIR [--shape marian|t5|tiny|tiny-t5]
#       writes DIR/model (config.json, model.safetensors, SentencePiece models trained on a few
#       sentences, for Marian vocab.json) and DIR/source.json (the text, its 24 source ids)
#   translate_bench.py text DIR
#       prints the source text (for `attnscope translate --text`)
#   translate_bench.py torch DIR [--repeat N] [--check OUT.npz]
#       the greedy loop in PyTorch (N timed runs, default 1; prints its output ids and the
#       median loop time); --check compares the ids with an `attnscope translate` output
import json
import math
import os
import struct
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))

TOKENS = 24  # source ids (with </s>) and generated ids
SHAPES = {"marian": dict(family="marian", d=512, L=6, H=8, f=2048, V=58101, gain=2, emb=0.02),
          "tiny": dict(family="marian", d=16, L=2, H=4, f=32, V=300, gain=4, emb=0.3),
          "t5": dict(family="t5", d=768, L=12, H=12, dkv=64, f=3072, V=32128, gain=2, emb=1),
          "tiny-t5": dict(family="t5", d=16, L=2, H=4, dkv=4, f=24, V=200, gain=2, emb=1)}


def pick_text(encode):
    """Words of the test sentences, each kept when the ids (with </s>) stay within TOKENS,
    until they are exactly TOKENS long."""
    import seq2seq_tiny as st
    words = " ".join(st.SOURCE).split()
    words += ["a", "i", "o"] * TOKENS  # short fillers for the last few ids
    text = ""
    for word in words:
        ids = encode((text + " " + word).strip())
        if len(ids) <= TOKENS:
            text = (text + " " + word).strip()
        if len(ids) == TOKENS:
            return text, ids
    sys.exit("no text of exactly 24 source tokens")


def write(folder, shape):
    import seq2seq_tiny as st
    s = SHAPES[shape]
    model = os.path.join(folder, "model")
    os.makedirs(model, exist_ok=True)
    rng = np.random.default_rng(7)
    d, L, H, f, V = s["d"], s["L"], s["H"], s["f"], s["V"]
    # Projection gain and embedding scale: the layers, not the input token's own row, decide the
    # next token (random models' greedy output still mostly repeats one token).
    G, EMB = s["gain"], s["emb"]

    def r(scale, *shape_):
        return (rng.standard_normal(shape_, dtype=np.float32) * np.float32(scale))
    w = {}
    if s["family"] == "marian":
        src_blob, tgt_blob = st.train_spm(st.SOURCE, 40), st.train_spm(st.TARGET, 40)
        open(os.path.join(model, "source.spm"), "wb").write(src_blob)
        open(os.path.join(model, "target.spm"), "wb").write(tgt_blob)
        src, tgt = st.processor(src_blob), st.processor(tgt_blob)
        vocab = st.marian_vocab(src, tgt)
        del vocab[">>de<<"], vocab["<pad>"]
        while len(vocab) < V - 1:  # opus-mt's size: filler pieces, <pad> last
            vocab[f"▁filler{len(vocab)}"] = len(vocab)
        vocab["<pad>"] = V - 1
        json.dump(vocab, open(os.path.join(model, "vocab.json"), "w"))
        text, ids = pick_text(lambda t: st.marian_ids(src, vocab, t))
        c = {"model_type": "marian", "d_model": d, "encoder_layers": L, "decoder_layers": L,
             "encoder_attention_heads": H, "decoder_attention_heads": H, "encoder_ffn_dim": f,
             "decoder_ffn_dim": f, "vocab_size": V, "decoder_vocab_size": V,
             "max_position_embeddings": 512, "scale_embedding": True,
             "activation_function": "swish", "share_encoder_decoder_embeddings": True,
             "pad_token_id": V - 1, "eos_token_id": 0, "decoder_start_token_id": V - 1,
             "bad_words_ids": [[V - 1]]}
        w["model.shared.weight"] = r(EMB, V, d)
        bias = np.zeros((1, V), np.float32)
        bias[0, 0] = -100.0  # </s> never wins: exactly 24 tokens
        w["final_logits_bias"] = bias
        for side, blocks in (("encoder", ["self_attn"]), ("decoder", ["self_attn", "encoder_attn"])):
            for l in range(L):
                p = f"model.{side}.layers.{l}."
                for b in blocks:
                    for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
                        w[p + f"{b}.{proj}.weight"] = r(G / math.sqrt(d), d, d)
                        w[p + f"{b}.{proj}.bias"] = r(0.02, d)
                    w[p + f"{b}_layer_norm.weight"] = 1 + r(0.1, d)
                    w[p + f"{b}_layer_norm.bias"] = r(0.1, d)
                w[p + "fc1.weight"], w[p + "fc1.bias"] = r(G / math.sqrt(d), f, d), r(0.02, f)
                w[p + "fc2.weight"], w[p + "fc2.bias"] = r(G / math.sqrt(f), d, f), r(0.02, d)
                w[p + "final_layer_norm.weight"] = 1 + r(0.1, d)
                w[p + "final_layer_norm.bias"] = r(0.1, d)
    else:
        blob = st.train_spm(st.SOURCE + st.TARGET, 60, pad_id=0, eos_id=1, unk_id=2, bos_id=-1)
        open(os.path.join(model, "spiece.model"), "wb").write(blob)
        p_ = st.processor(blob)
        text, ids = pick_text(lambda t: p_.encode(t) + [1])
        dkv = s["dkv"]
        c = {"model_type": "t5", "d_model": d, "d_kv": dkv, "d_ff": f, "num_layers": L,
             "num_decoder_layers": L, "num_heads": H, "vocab_size": V,
             "relative_attention_num_buckets": 32, "relative_attention_max_distance": 128,
             "layer_norm_epsilon": 1e-6, "feed_forward_proj": "relu", "tie_word_embeddings": True,
             "decoder_start_token_id": 0, "eos_token_id": 1, "pad_token_id": 0}
        w["shared.weight"] = r(EMB, V, d)
        w["shared.weight"][1] *= 0.01  # </s> never wins: exactly 24 tokens
        for side, blocks in (("encoder", ["SelfAttention"]),
                             ("decoder", ["SelfAttention", "EncDecAttention"])):
            for l in range(L):
                p = f"{side}.block.{l}.layer."
                for i, b in enumerate(blocks):
                    for q in "qkv":
                        w[p + f"{i}.{b}.{q}.weight"] = r(G / math.sqrt(d), H * dkv, d)
                    w[p + f"{i}.{b}.o.weight"] = r(G / math.sqrt(H * dkv), d, H * dkv)
                    w[p + f"{i}.layer_norm.weight"] = 1 + r(0.1, d)
                if l == 0:
                    w[p + "0.SelfAttention.relative_attention_bias.weight"] = r(0.5, 32, H)
                k = len(blocks)
                w[p + f"{k}.DenseReluDense.wi.weight"] = r(G / math.sqrt(d), f, d)
                w[p + f"{k}.DenseReluDense.wo.weight"] = r(G / math.sqrt(f), d, f)
                w[p + f"{k}.layer_norm.weight"] = 1 + r(0.1, d)
            w[f"{side}.final_layer_norm.weight"] = 1 + r(0.1, d)
    st.write_folder(model, c, w)
    json.dump({"text": text, "source_ids": [int(i) for i in ids]},
              open(os.path.join(folder, "source.json"), "w"))
    print(f"wrote {model} ({shape}): {len(ids)} source ids")


def load(model):
    import torch
    raw = open(os.path.join(model, "model.safetensors"), "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    W = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        a, b = e["data_offsets"]
        W[name] = torch.from_numpy(np.frombuffer(raw, np.float32, (b - a) // 4, 8 + n + a)
                                   .reshape(e["shape"]).copy())
    return W


def marian_greedy(W, c, src):
    """Greedy search as `attnscope translate`: returns the generated ids."""
    import torch
    import torch.nn.functional as F
    from seq2seq_reference import marian_positions
    d, H, L = c["d_model"], c["encoder_attention_heads"], c["encoder_layers"]
    hd = d // H
    E = W["model.shared.weight"]
    pos = torch.from_numpy(marian_positions(TOKENS + 1 + len(src), d).astype(np.float32))
    lin = lambda x, p: F.linear(x, W[p + ".weight"], W[p + ".bias"])  # noqa: E731
    ln = lambda x, p: F.layer_norm(x, (d,), W[p + ".weight"], W[p + ".bias"], 1e-5)  # noqa: E731
    heads = lambda x: x.view(-1, H, hd).transpose(0, 1)  # noqa: E731 [n,d] -> [H,n,hd]

    def attend(q, k, v, p):
        a = ((q @ k.transpose(-1, -2)) / math.sqrt(hd)).softmax(-1) @ v
        return lin(a.transpose(0, 1).reshape(-1, d), p + ".out_proj")

    def ffn(x, p):
        return lin(F.silu(lin(x, p + "fc1")), p + "fc2")
    x = E[src] * math.sqrt(d) + pos[:len(src)]
    for l in range(L):
        p = f"model.encoder.layers.{l}."
        q, k, v = (heads(lin(x, p + f"self_attn.{n}_proj")) for n in "qkv")
        x = ln(x + attend(q, k, v, p + "self_attn"), p + "self_attn_layer_norm")
        x = ln(x + ffn(x, p), p + "final_layer_norm")
    cross = [tuple(heads(lin(x, f"model.decoder.layers.{l}.encoder_attn.{n}_proj")) for n in "kv")
             for l in range(L)]
    cache = [[None, None] for _ in range(L)]
    banned = [b[0] for b in c.get("bad_words_ids", []) if len(b) == 1]
    token, out = c["decoder_start_token_id"], []
    for t in range(TOKENS):
        y = E[token:token + 1] * math.sqrt(d) + pos[t:t + 1]
        for l in range(L):
            p = f"model.decoder.layers.{l}."
            q, k, v = (heads(lin(y, p + f"self_attn.{n}_proj")) for n in "qkv")
            ck, cv = cache[l]
            cache[l] = [k if ck is None else torch.cat([ck, k], 1),
                        v if cv is None else torch.cat([cv, v], 1)]
            y = ln(y + attend(q, *cache[l], p + "self_attn"), p + "self_attn_layer_norm")
            q = heads(lin(y, p + "encoder_attn.q_proj"))
            y = ln(y + attend(q, *cross[l], p + "encoder_attn"), p + "encoder_attn_layer_norm")
            y = ln(y + ffn(y, p), p + "final_layer_norm")
        logits = y[0] @ E.T + W["final_logits_bias"][0]
        logits[banned] = -math.inf
        token = int(logits.argmax())
        out.append(token)
        if token == c["eos_token_id"]:
            break
    return out


def t5_greedy(W, c, src):
    import torch
    import torch.nn.functional as F
    from seq2seq_reference import t5_bucket
    d, H, dkv, L = c["d_model"], c["num_heads"], c["d_kv"], c["num_layers"]
    nb, md, eps = c["relative_attention_num_buckets"], c["relative_attention_max_distance"], c["layer_norm_epsilon"]
    E = W["shared.weight"]
    lin = lambda x, p: F.linear(x, W[p + ".weight"])  # noqa: E731
    heads = lambda x: x.view(-1, H, dkv).transpose(0, 1)  # noqa: E731

    def rms(x, p):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * W[p + ".weight"]

    def attend(q, k, v, p, bias=None):
        s = q @ k.transpose(-1, -2)
        if bias is not None:
            s = s + bias
        a = s.softmax(-1) @ v
        return lin(a.transpose(0, 1).reshape(-1, H * dkv), p + ".o")

    def ffn(x, p):
        return lin(F.relu(lin(x, p + ".wi")), p + ".wo")
    n = len(src)
    rel = np.arange(n)[None, :] - np.arange(n)[:, None]
    bucket = torch.from_numpy(t5_bucket(rel, True, nb, md))
    ebias = W["encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"][bucket].permute(2, 0, 1)
    x = E[src]
    for l in range(L):
        p = f"encoder.block.{l}.layer."
        h = rms(x, p + "0.layer_norm")
        q, k, v = (heads(lin(h, p + f"0.SelfAttention.{m}")) for m in "qkv")
        x = x + attend(q, k, v, p + "0.SelfAttention", ebias)
        x = x + ffn(rms(x, p + "1.layer_norm"), p + "1.DenseReluDense")
    x = rms(x, "encoder.final_layer_norm")
    cross = [tuple(heads(lin(x, f"decoder.block.{l}.layer.1.EncDecAttention.{m}")) for m in "kv")
             for l in range(L)]
    rel = -np.arange(TOKENS)  # key j - query t, for the t + 1 keys of step t (reversed below)
    dbuckets = torch.from_numpy(t5_bucket(rel, False, nb, md))
    dtable = W["decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"]
    cache = [[None, None] for _ in range(L)]
    token, out = c["decoder_start_token_id"], []
    for t in range(TOKENS):
        bias = dtable[dbuckets[:t + 1].flip(0)].T.unsqueeze(1)  # [H,1,t+1]
        y = E[token:token + 1]
        for l in range(L):
            p = f"decoder.block.{l}.layer."
            h = rms(y, p + "0.layer_norm")
            q, k, v = (heads(lin(h, p + f"0.SelfAttention.{m}")) for m in "qkv")
            ck, cv = cache[l]
            cache[l] = [k if ck is None else torch.cat([ck, k], 1),
                        v if cv is None else torch.cat([cv, v], 1)]
            y = y + attend(q, *cache[l], p + "0.SelfAttention", bias)
            q = heads(lin(rms(y, p + "1.layer_norm"), p + "1.EncDecAttention.q"))
            y = y + attend(q, *cross[l], p + "1.EncDecAttention")
            y = y + ffn(rms(y, p + "2.layer_norm"), p + "2.DenseReluDense")
        y = rms(y, "decoder.final_layer_norm")
        logits = (y[0] * d ** -0.5) @ E.T
        token = int(logits.argmax())
        out.append(token)
        if token == c["eos_token_id"]:
            break
    return out


def torch_greedy(folder, repeat, check):
    import torch
    torch.set_grad_enabled(False)
    model = os.path.join(folder, "model")
    c = json.load(open(os.path.join(model, "config.json")))
    src = torch.tensor(json.load(open(os.path.join(folder, "source.json")))["source_ids"])
    W = load(model)
    greedy = marian_greedy if c["model_type"] == "marian" else t5_greedy
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = greedy(W, c, src)
        times.append(time.perf_counter() - t0)
    print("torch output_ids:", " ".join(map(str, out)))
    print(f"torch greedy loop ({len(out)} tokens): median {np.median(times):.3f} s over "
          f"{repeat} (min {min(times):.3f}, max {max(times):.3f})")
    if check:
        got = np.load(check)
        ids, sids = [int(i) for i in got["output_ids"]], [int(i) for i in got["source_ids"]]
        if sids != src.tolist():
            sys.exit(f"FAIL: source ids differ: attnscope {sids} vs {src.tolist()}")
        if ids != out:
            sys.exit(f"FAIL: output ids differ: attnscope {ids} vs torch {out}")
        print(f"attnscope's {len(ids)} output ids equal torch's")


if __name__ == "__main__":
    args = sys.argv[1:]
    opt = lambda name, default: args[args.index(name) + 1] if name in args else default  # noqa: E731
    if len(args) >= 2 and args[0] == "write":
        write(args[1], opt("--shape", "marian"))
    elif len(args) >= 2 and args[0] == "text":
        print(json.load(open(os.path.join(args[1], "source.json")))["text"])
    elif len(args) >= 2 and args[0] == "torch":
        torch_greedy(args[1], int(opt("--repeat", "1")), opt("--check", None))
    else:
        sys.exit(__doc__ or "usage: translate_bench.py write DIR | torch DIR")
