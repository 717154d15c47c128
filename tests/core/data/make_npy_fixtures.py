#!/usr/bin/python3
"""Generates the NumPy test fixtures and the malformed corpus under tests/core/data/.

Run ONCE (with Debian's python3-numpy) and commit the output; the tests never need Python:
    /usr/bin/python3 tests/core/data/make_npy_fixtures.py
The reference tensor of every dtype/order/endianness file is (arange(n) - n/2) / 16 in C order,
exactly representable in float16, so every file must load to the same numbers.
"""
import io
import json
import os
import struct
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
NPY = os.path.join(HERE, "npy")
BAD = os.path.join(HERE, "malformed")
os.makedirs(NPY, exist_ok=True)
os.makedirs(BAD, exist_ok=True)


def ref(shape):
    n = int(np.prod(shape))
    return ((np.arange(n, dtype=np.float64) - n // 2) / 16.0).reshape(shape)


def save(path, arr, version=None):
    with open(path, "wb") as f:
        np.lib.format.write_array(f, arr, version=version, allow_pickle=False)


def npy_bytes(arr, version=None):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, version=version, allow_pickle=False)
    return buf.getvalue()


def raw_npy(header, data=b"", version=1, pad=True):
    """An .npy with a hand-written (possibly lying) header."""
    h = header.encode("utf-8")
    if pad:
        pre = 10 if version == 1 else 12
        total = (pre + len(h) + 1 + 63) // 64 * 64
        h = h + b" " * (total - pre - len(h) - 1) + b"\n"
    lenfield = struct.pack("<H", len(h)) if version == 1 else struct.pack("<I", len(h))
    return b"\x93NUMPY" + bytes([version, 0]) + lenfield + h + data


def write(path, data):
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))


def npz(path, members, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression) as z:
        for name, payload in members.items():
            z.writestr(name + ".npy", payload if isinstance(payload, bytes) else npy_bytes(payload))


# --- every dtype × order × endianness, same numbers ---------------------------------------
shape = (2, 3, 4, 5)
for dt in ("f2", "f4", "f8"):
    for end, mark in (("le", "<"), ("be", ">")):
        for order in ("C", "F"):
            a = np.asarray(ref(shape), dtype=np.dtype(mark + dt), order=order)
            save(os.path.join(NPY, f"ref_{dt}_{end}_{order.lower()}.npy"), a)
save(os.path.join(NPY, "ref_f4_v2.npy"), ref(shape).astype("<f4"), version=(2, 0))
save(os.path.join(NPY, "ref_f4_v3.npy"), ref(shape).astype("<f4"), version=(3, 0))
save(os.path.join(NPY, "ref_2d_f4.npy"), ref((4, 5)).astype("<f4"))
save(os.path.join(NPY, "ref_3d_f8_be_f.npy"), np.asfortranarray(ref((3, 4, 5)).astype(">f8")))
ints = (np.arange(20) - 10).reshape(4, 5)
save(os.path.join(NPY, "int32_le.npy"), ints.astype("<i4"))
save(os.path.join(NPY, "int64_be.npy"), ints.astype(">i8"))
save(os.path.join(NPY, "bool.npy"), (ints % 3 == 0))
# float16 specials: ±0, smallest/largest subnormal, smallest normal, max, ±inf, NaN
halves = np.array([0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0x3C00,
                   0xC000, 0x3555], dtype="<u2").view("<f2")
save(os.path.join(NPY, "f2_specials.npy"), halves)
save(os.path.join(NPY, "f2_specials_be.npy"), halves.astype(">f2"))
tokens = np.array(["The", "cat", "sat", "on", "the", "mät", "😀"])
save(os.path.join(NPY, "tokens_le.npy"), tokens.astype("<U3"))
save(os.path.join(NPY, "tokens_be.npy"), tokens.astype(">U5"))
# weights (rows sum to 1) and scores
w = np.random.default_rng(7).random((2, 5, 5)).astype("<f4")
w /= w.sum(-1, keepdims=True)
save(os.path.join(NPY, "weights_3d.npy"), w)
save(os.path.join(NPY, "scores_3d.npy"), (ref((2, 5, 5)) * 3).astype("<f4"))
# npz: stored / deflated, tokens / query+key tokens, d_k
npz(os.path.join(NPY, "stored.npz"),
    {"scores": ref((2, 2, 5, 5)).astype("<f4"), "attention": w[None].repeat(2, 0),
     "tokens": np.array(["a", "b", "c", "d", "e"])})
npz(os.path.join(NPY, "deflated.npz"),
    {"attention": w, "tokens": np.array(["a", "b", "c", "d", "e"]), "d_k": np.array([32.0])},
    zipfile.ZIP_DEFLATED)
npz(os.path.join(NPY, "cross.npz"),
    {"attention": np.full((1, 3, 4), 0.25, dtype="<f4"),
     "query_tokens": np.array(["x", "y", "z"]), "key_tokens": np.array(["A", "B", "C", "D"])},
    zipfile.ZIP_DEFLATED)
npz(os.path.join(NPY, "no_tokens.npz"), {"scores": ref((4, 4)).astype("<f8")})
save(os.path.join(NPY, "embeddings.npy"), ref((3, 4)).astype("<f4"))
write(os.path.join(NPY, "embeddings.csv"), "\ufeff-0.5,0.25,1e-3,4\r\n0,1,2,3\n\n-1.5,2.5,3.5,-4.5\n")
write(os.path.join(NPY, "sentence.txt"), "\ufeffThe cat sat on the mat.\r\n")
write(os.path.join(NPY, "lines.txt"), "\ufeff[CLS]\r\nthe\r\n\r\n cat\r\nmät\r\n[SEP]")

# --- malformed corpus: file → expected message substring -----------------------------------
expected = []


def bad(name, data, message):
    write(os.path.join(BAD, name), data)
    expected.append((name, message))


f4 = np.zeros((2, 2), dtype="<f4").tobytes()
good = npy_bytes(np.zeros((2, 2), dtype="<f4"))
bad("wrong_magic.npy", b"\x93NUMPZ" + good[6:], "magic string")
bad("truncated_preamble.npy", good[:8], "truncated")
bad("bad_version.npy", good[:6] + b"\x04\x00" + good[8:], "unsupported .npy format version 4.0")
bad("header_len_lies.npy", good[:8] + struct.pack("<H", 60000) + good[10:], "the header claims 60000 bytes")
bad("lying_shape.npy",
    raw_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (12, 12, 1024, 1024), }",
            b"\0" * 4200),
    "header promises 12×12×1024×1024 float32 (604 MB) but the file holds 4.2 kB")
bad("extra_data.npy", good + b"\0\0\0\0", "4 more bytes follow the data")
bad("overflow_shape.npy",
    raw_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }"),
    "more elements than any file can hold")
bad("absurd_bytes.npy",
    raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }"),
    "more bytes than any file can hold")
bad("bad_dtype.npy", raw_npy("{'descr': '<c8', 'fortran_order': False, 'shape': (2, 2), }", f4 * 2),
    "unsupported dtype '<c8'")
bad("structured_dtype.npy",
    raw_npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2, 2), }", f4),
    "structured")
bad("missing_shape.npy", raw_npy("{'descr': '<f4', 'fortran_order': False, }", f4),
    "the key 'shape' is missing")
bad("extra_key.npy",
    raw_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), 'foo': 1, }", f4),
    "unexpected key 'foo'")
bad("no_newline.npy",
    raw_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }" + " " * 10, f4, pad=False),
    "does not end with a newline")
bad("fortran_not_bool.npy",
    raw_npy("{'descr': '<f4', 'fortran_order': 1, 'shape': (2, 2), }", f4),
    "expected True or False")
bad("non_ascii_header.npy",
    raw_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), } é", f4),
    "non-ASCII character")
nan3 = np.zeros((2, 3, 4), dtype="<f4")
nan3[1, 0, 2] = np.nan
bad("nan.npy", npy_bytes(nan3), "NaN at [1, 0, 2]")
inf2 = np.full((3, 3), 1 / 3, dtype=">f8")
inf2[0, 1] = -np.inf
bad("inf.npy", npy_bytes(inf2), "-Inf at [0, 1]")
bad("one_d.npy", npy_bytes(np.zeros(5, dtype="<f4")), "expected a 2-D [Nq,Nk]")
bad("five_d.npy", npy_bytes(np.zeros((1, 1, 1, 2, 2), dtype="<f4")), "got 5-D")
bad("zero_tokens.npy", npy_bytes(np.zeros((2, 0, 0), dtype="<f4")), "no tokens")
bad("strings.npy", npy_bytes(np.array(["a", "b"])), "strings, not an attention tensor")
bad("truncated_data.npy", npy_bytes(ref((4, 4)).astype("<f4"))[:-10], "but the file holds")

# npz
ok_npz = io.BytesIO()
with zipfile.ZipFile(ok_npz, "w") as z:
    z.writestr("attention.npy", npy_bytes(np.full((6, 6), 1 / 6, dtype="<f4")))
    z.writestr("tokens.npy", npy_bytes(np.array(list("abcdef"))))
ok_npz = ok_npz.getvalue()
bad("not_a_zip.npz", b"PK\x03\x04" + b"garbage" * 20, "not a valid .npz (zip) archive")
bad("truncated.npz", ok_npz[: len(ok_npz) // 2], "not a valid .npz (zip) archive")
buf = io.BytesIO()
npz(buf, {"tokens": np.array(list("abc"))})
bad("no_attention.npz", buf.getvalue(), "holds neither 'attention' nor 'scores'")
buf = io.BytesIO()
npz(buf, {"attention": np.full((2, 6, 6), 1 / 6, dtype="<f4"), "tokens": np.array(list("abcde"))})
bad("token_mismatch.npz", buf.getvalue(), "tokens holds 5 tokens but the matrices have 6 rows")
buf = io.BytesIO()
npz(buf, {"scores": np.zeros((2, 6, 6), "<f4"), "attention": np.zeros((3, 6, 6), "<f4")})
bad("shape_mismatch.npz", buf.getvalue(), "'scores' and 'attention' have different shapes")
buf = io.BytesIO()
npz(buf, {"attention": b"\x93NUMPZ" + good[6:]})
bad("bad_member.npz", buf.getvalue(), "attention.npy: not a NumPy .npy file")
buf = io.BytesIO()
npz(buf, {"scores": nan3})
bad("nan_member.npz", buf.getvalue(), "scores.npy: NaN at [1, 0, 2]")
buf = io.BytesIO()
npz(buf, {"attention": np.full((2, 2), 0.5, "<f4"), "tokens": np.array([], dtype="<U1")})
bad("zero_tokens.npz", buf.getvalue(), "holds zero tokens")
corrupt = bytearray(ok_npz)
pos = corrupt.find(b"\x93NUMPY", 40) + 200  # inside attention.npy's data
corrupt[pos] ^= 0xFF
bad("crc_mismatch.npz", bytes(corrupt), "CRC")
buf = io.BytesIO()
npz(buf, {"attention": np.full((2, 3), 1 / 3, "<f4"), "tokens": np.array(list("abc"))})
bad("rectangular_tokens.npz", buf.getvalue(), "use query_tokens and key_tokens")

# a member whose entries (local and central) claim 2 GB uncompressed from a few stored bytes
claim = bytearray(ok_npz)
for sig, off in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
    at = claim.find(sig)
    claim[at + off:at + off + 4] = struct.pack("<I", 0x7FFFFFFF)
bad("size_claim.npz", bytes(claim), "attention.npy: claims 2.1 GB uncompressed from 272 B")

# JSON
def bertviz_list(attn, left, right, name="Encoder"):
    return {"attention": [{"name": name, "attn": attn, "left_text": left, "right_text": right}]}

sq = lambda n: [[1.0 / n] * n for _ in range(n)]
ragged = [[sq(10) for _ in range(2)] for _ in range(4)]
ragged[3][1][7] = [0.1] * 9
bad("ragged.json", json.dumps(bertviz_list(ragged, list("abcdefghij"), list("abcdefghij"))),
    "attention[0].attn[3][1][7] has 9 entries, expected 10")
bad("nan.json", '{"attention": [{"name": null, "attn": [[[[NaN]]]], "left_text": ["a"], '
    '"right_text": ["a"]}]}', "NaN and Infinity are not JSON numbers")
bad("huge_number.json", '{"attention": {"all": {"attn": [[[[1e999]]]], "left_text": ["a"], '
    '"right_text": ["a"]}}}', "not valid JSON: number overflow parsing '1e999'")
bad("string_entry.json", json.dumps(bertviz_list([[[[0.5, "x"], [0.5, 0.5]]]], ["a", "b"], ["a", "b"])),
    "attention[0].attn[0][0][0][1] is a string, expected a number")
bad("left_text_mismatch.json", json.dumps(bertviz_list([[sq(4)]], list("abc"), list("abcd"))),
    "attention[0].left_text has 3 tokens but the attention matrices have 4 rows")
bad("zero_tokens.json", json.dumps(bertviz_list([[[]]], [], [])),
    "attention[0].left_text is empty (zero tokens)")
bad("no_attention.json", '{"foo": 1}', "no \"attention\" key")
bad("truncated.json", json.dumps(bertviz_list([[sq(3)]], list("abc"), list("abc")))[:50],
    "not valid JSON at byte")
bad("top_level_list.json", "[1, 2, 3]", "the top level is a list")
bad("circuitsvis_tokens.json", json.dumps({"attention": [sq(3)], "tokens": ["a", "b"]}),
    ".tokens has 2 tokens but the attention matrices are 3×3")
bad("circuitsvis_depth.json", json.dumps({"attention": [0.5, 0.5], "tokens": ["a", "b"]}),
    "nested 1 lists deep")
bad("bad_utf8.json", b'{"attention": [{"name": "\xff\xfe", "attn": []}]}', "not valid JSON at byte")
bad("no_filter_entries.json", '{"attention": {"all": 3}}', "holds no filter entries")
bad("missing_attn.json", json.dumps({"attention": [{"name": "Cross", "left_text": ["a"]}]}),
    "attention[0].attn is missing")
bad("wrong_depth.json", json.dumps(bertviz_list([sq(2)], ["a", "b"], ["a", "b"])),
    "attention[0].attn[0][0][0] is a number, expected a list")

# token text
bad("bad_utf8.txt", b"the \xff cat", "invalid UTF-8 at byte 4")
bad("overlong_utf8.txt", b"\xef\xbb\xbfab\xc0\xafc", "invalid UTF-8 at byte 5")
bad("surrogate.txt", b"one\ntwo\xed\xa0\x80\n", "invalid UTF-8 at byte 7")
bad("empty.txt", b"", "file is empty (0 bytes)")
bad("blank.txt", b"\xef\xbb\xbf  \r\n\t\n   ", "holds no tokens")
bad("nul.txt", b"the cat\x00sat", "NUL byte at byte 7")

# embeddings csv
bad("ragged.csv", "1,2,3\n4,5,6\n7,8\n", "line 3 has 2 values, expected 3")
bad("not_number.csv", "1,2,3\n4,five,6\n", "line 2, column 2: 'five' is not a number")
bad("empty.csv", "\n\n", "holds no rows of numbers")

# sessions
session = {"format": "attnscope-session", "version": 1, "scene": {"text": "a b", "heads": 2}}
bad("newer_version.attnscope", json.dumps(dict(session, version=2)),
    "session version 2 is newer than this AttnScope reads")
bad("wrong_format.attnscope", json.dumps(dict(session, format="other")), "not an AttnScope session")
bad("bad_type.attnscope", json.dumps(dict(session, scene={"heads": "four"})),
    "scene.heads is a string, expected an integer")
bad("truncated.attnscope", json.dumps(session)[:40], "not valid JSON at byte")
bad("bad_enum.attnscope", json.dumps(dict(session, scene={"score": "quadratic"})),
    "scene.score is \"quadratic\", not a known value")
bad("ragged_weights.attnscope",
    json.dumps(dict(session, scene={"weights": {"W_Q": [[1, 2], [3]], "W_K": [], "W_V": [], "W_O": []}})),
    "scene.weights.W_Q[1] has 1 entries, expected 2")
bad("negative_heads.attnscope", json.dumps(dict(session, scene={"heads": -3})),
    "scene.heads is -3, expected 1")
bad("no_scene.attnscope", json.dumps({"format": "attnscope-session", "version": 1}),
    "scene is missing")
bad("unknown.bin", b"\x00\x01\x02\x03 what is this", "unknown format")

with open(os.path.join(BAD, "expected.tsv"), "w", encoding="utf-8") as f:
    f.write("# file\texpected substring of the error message (loaded with attn::io::load_any;\n")
    f.write("# .csv with attn::io::load_embeddings). Generated by ../make_npy_fixtures.py.\n")
    for name, msg in expected:
        f.write(f"{name}\t{msg}\n")
print(f"{len(expected)} malformed files")
