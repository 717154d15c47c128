# AttnScope — GGUF files written by the tests, and ggml's block formats decoded in numpy: the
# independent reference of tests/core/weights/gguf_test.cpp. GPL-3.0-or-later.
# The decoders transcribe ggml-quants.c's dequantize_row_q4_0 / q8_0 / q4_K / q5_K / q6_K with
# numpy's vector operations (not the C++ code's loops), in float32 as ggml computes.
#   gguf_writer.py OUT.gguf EXPECTED.bin [SEED] [--alignment A]: one tensor of every type AttnScope
#       reads (random valid blocks), metadata of every value type; EXPECTED holds the tensors'
#       decoded values as float32, one after the other in the file's order.
import struct
import sys

import numpy as np

TYPES = {"F32": 0, "F16": 1, "Q4_0": 2, "Q4_1": 3, "Q5_0": 6, "Q5_1": 7, "Q8_0": 8, "Q4_K": 12,
         "Q5_K": 13, "Q6_K": 14, "BF16": 30}
BLOCK = {"F32": (1, 4), "F16": (1, 2), "BF16": (1, 2), "Q4_0": (32, 18), "Q4_1": (32, 20),
         "Q5_0": (32, 22), "Q5_1": (32, 24), "Q8_0": (32, 34),
         "Q4_K": (256, 144), "Q5_K": (256, 176), "Q6_K": (256, 210)}
f32 = np.float32


def f16(raw):
    return raw.view(np.float16).astype(f32)


def scale_min_k4(s):
    """s [blocks, 12] uint8 → (scales, mins) [blocks, 8], ggml's get_scale_min_k4."""
    s = s.astype(np.uint8)
    sc = np.concatenate([s[:, 0:4] & 63, (s[:, 8:12] & 0x0F) | ((s[:, 0:4] >> 6) << 4)], 1)
    mn = np.concatenate([s[:, 4:8] & 63, (s[:, 8:12] >> 4) | ((s[:, 4:8] >> 6) << 4)], 1)
    return sc.astype(f32), mn.astype(f32)


def decode(kind, raw):
    """RAW: the tensor's bytes → its float32 values."""
    per, size = BLOCK[kind]
    b = np.frombuffer(raw, np.uint8).reshape(-1, size)
    if kind == "F32":
        return b.copy().view(f32).ravel()
    if kind == "F16":
        return f16(b.copy().view(np.uint16)).ravel()
    if kind == "BF16":
        return (b.copy().view(np.uint16).astype(np.uint32) << 16).view(f32).ravel()
    if kind == "Q4_0":
        d = f16(b[:, 0:2].copy().view(np.uint16))
        q = b[:, 2:18]
        lo, hi = (q & 0x0F).astype(np.int32) - 8, (q >> 4).astype(np.int32) - 8
        return (np.concatenate([lo, hi], 1).astype(f32) * d).ravel()
    if kind == "Q4_1":
        d, m = f16(b[:, 0:2].copy().view(np.uint16)), f16(b[:, 2:4].copy().view(np.uint16))
        q = b[:, 4:20]
        return (np.concatenate([q & 0x0F, q >> 4], 1).astype(f32) * d + m).ravel()
    if kind in ("Q5_0", "Q5_1"):
        d = f16(b[:, 0:2].copy().view(np.uint16))
        at = 2 if kind == "Q5_0" else 4
        m = f16(b[:, 2:4].copy().view(np.uint16)) if kind == "Q5_1" else None
        qh = b[:, at:at + 4].copy().view("<u4")  # [blocks, 1]
        qs = b[:, at + 4:at + 20].astype(np.uint32)
        j = np.arange(16, dtype=np.uint32)
        xh0 = ((qh >> j) << 4) & 0x10  # the fifth bit of value j: bit j of qh
        xh1 = (qh >> (j + 12)) & 0x10  # of value j + 16: bit j + 16
        x = np.concatenate([(qs & 0x0F) | xh0, (qs >> 4) | xh1], 1).astype(np.int32)
        if m is None:
            return ((x - 16).astype(f32) * d).ravel()
        return (x.astype(f32) * d + m).ravel()
    if kind == "Q8_0":
        d = f16(b[:, 0:2].copy().view(np.uint16))
        return (b[:, 2:34].view(np.int8).astype(f32) * d).ravel()
    if kind in ("Q4_K", "Q5_K"):
        d = f16(b[:, 0:2].copy().view(np.uint16))
        dmin = f16(b[:, 2:4].copy().view(np.uint16))
        sc, mn = scale_min_k4(b[:, 4:16])
        dl, ml = d * sc, dmin * mn  # [blocks, 8]: sub-block k's d·scale and dmin·min
        if kind == "Q4_K":
            qs = b[:, 16:144].reshape(-1, 4, 32)
            high = np.zeros((b.shape[0], 8, 32), np.uint8)
        else:
            qh = b[:, 16:48]
            qs = b[:, 48:176].reshape(-1, 4, 32)
            # Sub-block k (values 32k … 32k + 31) takes bit k of each qh byte as its fifth bit.
            high = np.stack([((qh >> k) & 1) * 16 for k in range(8)], 1).astype(np.uint8)
        q = np.empty((b.shape[0], 8, 32), np.uint8)
        q[:, 0::2], q[:, 1::2] = qs & 0x0F, qs >> 4
        q = (q + high).astype(f32)
        return (dl[:, :, None] * q - ml[:, :, None]).ravel()
    if kind == "Q6_K":
        ql, qh = b[:, 0:128].reshape(-1, 2, 64), b[:, 128:192].reshape(-1, 2, 32)
        sc = b[:, 192:208].view(np.int8).astype(f32).reshape(-1, 2, 8)
        d = f16(b[:, 208:210].copy().view(np.uint16)).reshape(-1, 1, 1)
        out = np.empty((b.shape[0], 2, 128), f32)
        for part, (low, shift) in enumerate([(ql[:, :, :32] & 0x0F, 0), (ql[:, :, 32:] & 0x0F, 2),
                                             (ql[:, :, :32] >> 4, 4), (ql[:, :, 32:] >> 4, 6)]):
            q = (low | (((qh >> shift) & 3) << 4)).astype(np.int32) - 32
            # Values 32·part + l use scale 2·part + l // 16 of their half.
            s = np.repeat(sc[:, :, 2 * part:2 * part + 2], 16, axis=2)
            out[:, :, 32 * part:32 * part + 32] = d * s * q.astype(f32)
        return out.ravel()
    raise ValueError(kind)


def random_blocks(rng, kind, count, scale=1.0):
    """COUNT values' worth of random valid blocks of KIND (finite scales of moderate size, times
    SCALE: the values scale with it)."""
    per, size = BLOCK[kind]
    n = count // per
    if kind == "F32":
        return rng.normal(0, scale, count).astype(f32).tobytes()
    if kind == "F16":
        return rng.normal(0, scale, count).astype(np.float16).tobytes()
    if kind == "BF16":
        return (rng.normal(0, scale, count).astype(f32).view(np.uint32) >> 16).astype(np.uint16).tobytes()
    b = rng.integers(0, 256, (n, size), dtype=np.uint8)

    def put_f16(at, sigma):
        b[:, at:at + 2] = (rng.normal(0, sigma * scale, n).astype(np.float16)).view(np.uint8).reshape(n, 2)

    if kind in ("Q4_0", "Q8_0", "Q5_0"):
        put_f16(0, 0.05)
    elif kind in ("Q4_1", "Q5_1"):
        put_f16(0, 0.05)
        put_f16(2, 0.05)
    elif kind in ("Q4_K", "Q5_K"):
        put_f16(0, 0.01)
        put_f16(2, 0.01)
    else:
        put_f16(208, 0.01)
    return b.tobytes()


def gstr(s):
    data = s.encode()
    return struct.pack("<Q", len(data)) + data


def kv(key, vtype, payload):
    return gstr(key) + struct.pack("<I", vtype) + payload


def metadata(alignment):
    items = [kv("general.architecture", 8, gstr("llama")),
             kv("general.alignment", 4, struct.pack("<I", alignment)),
             kv("test.u8", 0, struct.pack("<B", 200)), kv("test.i8", 1, struct.pack("<b", -100)),
             kv("test.u16", 2, struct.pack("<H", 60000)), kv("test.i16", 3, struct.pack("<h", -30000)),
             kv("test.i32", 5, struct.pack("<i", -7)), kv("test.f32", 6, struct.pack("<f", 0.25)),
             kv("test.bool", 7, struct.pack("<B", 1)), kv("test.u64", 10, struct.pack("<Q", 2**40 + 3)),
             kv("test.i64", 11, struct.pack("<q", -(2**40))), kv("test.f64", 12, struct.pack("<d", 1e-6)),
             kv("test.strings", 9, struct.pack("<IQ", 8, 3) + gstr("a") + gstr("") + gstr("ĠHello")),
             kv("test.floats", 9, struct.pack("<IQ", 6, 3) + struct.pack("<3f", -1.5, 0.0, 2.0)),
             kv("test.ints", 9, struct.pack("<IQ", 5, 2) + struct.pack("<2i", -1, 5))]
    return items


def gguf_bytes(tensors, alignment=32, kvs=None):
    """TENSORS: (name, dims (ggml order), kind, raw bytes) → a whole GGUF v3 file."""
    kvs = metadata(alignment) if kvs is None else kvs
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) + b"".join(kvs)
    infos, data = b"", b""
    for name, dims, kind, raw in tensors:
        data += b"\0" * (-len(data) % alignment)
        infos += gstr(name) + struct.pack("<I", len(dims)) + struct.pack(f"<{len(dims)}Q", *dims)
        infos += struct.pack("<IQ", TYPES[kind], len(data))
        data += raw
    out = head + infos
    out += b"\0" * (-len(out) % alignment)
    return out + data


def sample(seed, alignment=32):
    """Every type once: (file bytes, {tensor name: decoded values})."""
    rng = np.random.default_rng(seed)
    tensors, expected = [], {}
    for i, kind in enumerate(TYPES):
        dims = [512, 3] if i % 2 == 0 else [256, 2, 2]
        raw = random_blocks(rng, kind, int(np.prod(dims)))
        name = f"blk.{i}.{kind.lower()}.weight"
        tensors.append((name, dims, kind, raw))
        expected[name] = decode(kind, raw)
    return gguf_bytes(tensors, alignment), expected


if __name__ == "__main__":
    args = sys.argv[1:]
    align = int(args[args.index("--alignment") + 1]) if "--alignment" in args else 32
    plain = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] != "--alignment")]
    blob, want = sample(int(plain[2]) if len(plain) > 2 else 5, align)
    open(plain[0], "wb").write(blob)
    open(plain[1], "wb").write(b"".join(v.astype(f32).tobytes() for v in want.values()))
