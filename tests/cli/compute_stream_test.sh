# `attnscope compute` writes layer by layer: the .npz (stored zip, one [L,H,…] array a stage) and
# the .json of a multi-layer input hold the same values, the archive is a valid zip, and a failed
# write leaves nothing behind.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_tools unzip
require_numpy

IN="$FIX/gpt2_small_ex0.npz"  # 12 layers × 12 heads of raw scores
expect_rc 0 "compute npz" -- "$BIN" compute "$IN" --mask causal -o "$TMP/c.npz"
expect_rc 0 "compute json" -- "$BIN" compute "$IN" --mask causal -o "$TMP/c.json"
unzip -tq "$TMP/c.npz" >"$TMP/unzip" 2>&1 && pass || fail "c.npz: $(cat "$TMP/unzip")"
if /usr/bin/python3 - "$IN" "$TMP/c.npz" "$TMP/c.json" <<'PY'
import json, sys, zipfile
import numpy as np
zipfile.ZipFile(sys.argv[2]).testzip()  # every member's CRC
src, out, doc = np.load(sys.argv[1]), np.load(sys.argv[2]), json.load(open(sys.argv[3]))
L, H, nq, nk = src["scores"].shape
assert list(out.keys())[:4] == ["raw", "scaled", "masked", "weights"], list(out.keys())
assert np.array_equal(out["raw"], src["scores"].astype(np.float32))
assert out["layer"].tolist() == list(range(L)) and len(doc["layers"]) == L
for stage in ("raw", "scaled", "masked", "weights"):
    assert out[stage].shape == (L, H, nq, nk), (stage, out[stage].shape)
    js = np.array([[[[np.float32(-np.inf) if v is None else v for v in row]
                     for row in h[stage]] for h in l["heads"]] for l in doc["layers"]],
                  dtype=np.float32)
    assert np.array_equal(js, out[stage]), stage
assert out["empty_rows"].shape == (L, H, nq) and out["scale_factor"].shape == (L, H)
print("npz and json agree on", L, "layers")
PY
then pass; else fail "npz and json of the streamed compute differ"; fi

# An output that cannot be created fails before computing, with code 3 and no temporary file
# (a read-only folder; for root, who may write there anyway, /proc).
mkdir -p "$TMP/ro" && chmod 500 "$TMP/ro"
RO="$TMP/ro"
[ "$(id -u)" -eq 0 ] && RO=/proc
if [ -d "$RO" ]; then
  expect_rc 3 "unwritable folder" -- "$BIN" compute "$IN" -o "$RO/attnscope_x.npz" &&
    expect_err "attnscope_x.npz: cannot write" "unwritable folder"
  ls "$RO"/attnscope_x.npz* >/dev/null 2>&1 && fail "unwritable folder: left a file" || pass
fi

finish
