# `attnscope census` and `attnscope compute --rollout` against independent numpy computations
# (tests/cli/census_reference.py) on the real fixtures.
source "$(dirname "$0")/lib.sh"
REF="$HERE/census_reference.py"
PY=/usr/bin/python3  # Debian's python3-numpy (scripts/common.sh installs it)

for f in gpt2_small_ex0.npz bertviz_gpt2_headview.json bertviz_distilbert_headview.json; do
  b="${f%%.*}"
  for ext in csv json; do
    expect_rc 0 "$f census $ext" -- "$BIN" census "$FIX/$f" -o "$TMP/$b.$ext" \
      && { $PY "$REF" census "$FIX/$f" "$TMP/$b.$ext" && pass || fail "$f census $ext differs from numpy"; }
  done
  for ext in npz json; do
    expect_rc 0 "$f rollout $ext" -- "$BIN" compute "$FIX/$f" --rollout -o "$TMP/$b-r.$ext" \
      && { $PY "$REF" rollout "$FIX/$f" "$TMP/$b-r.$ext" && pass || fail "$f rollout $ext differs from numpy"; }
  done
done

# GPT-2 small's previous-token head is layer 4, head 11 (numpy: mean A[i, i-1] = 0.99986).
$PY "$REF" census "$FIX/gpt2_small_ex0.npz" "$TMP/gpt2_small_ex0.csv" 4,11,previous-token \
  && pass || fail "layer 4 head 11 is not labelled previous-token"
grep -q '^4,11,previous-token,0.9998' "$TMP/gpt2_small_ex0.csv" && pass || fail "4,11 row: $(grep '^4,11,' "$TMP/gpt2_small_ex0.csv")"

# Induction follows the latest earlier occurrence: in "a b a c a" query 4's target is key 3 (after
# the second "a"), not key 1. The census of a computed causal scene against numpy's, on its weights
# (the first-occurrence rule gives another score: asserted below on the same weights).
for mask in causal none; do
  expect_rc 0 "compute a b a c a ($mask)" -- "$BIN" compute --text "a b a c a" --mask $mask --heads 4 \
    -o "$TMP/abaca-$mask.npz" &&
  expect_rc 0 "census a b a c a ($mask)" -- "$BIN" census --text "a b a c a" --mask $mask --heads 4 \
    -o "$TMP/abaca-$mask.csv" &&
  { $PY "$REF" census "$TMP/abaca-$mask.npz" "$TMP/abaca-$mask.csv" && pass || fail "a b a c a ($mask) census differs from numpy"; }
done
$PY - "$TMP/abaca-causal.npz" "$TMP/abaca-causal.csv" <<'PY' && pass || fail "a b a c a: induction is not the latest occurrence's"
import csv, sys
import numpy as np
w = np.load(sys.argv[1])["weights"].astype(np.float64)  # [H, 5, 5]
assert [str(t) for t in np.load(sys.argv[1])["q_tokens"]] == ["a", "b", "a", "c", "a"]
got = [float(r["induction"]) for r in csv.DictReader(open(sys.argv[2]))]
latest = (w[:, 2, 1] + w[:, 4, 3]) / 2  # targets: query 2 → key 1, query 4 → key 3
first = (w[:, 2, 1] + w[:, 4, 1]) / 2   # the first occurrence's rule: query 4 → key 1
print("induction:", got, "latest:", latest.round(6).tolist(), "first:", first.round(6).tolist())
assert np.abs(np.array(got) - latest).max() < 1e-6
assert np.abs(latest - first).max() > 1e-3  # the weights tell the two rules apart
PY

# The component's weights give the same census as its scores under the causal mask.
expect_rc 0 "census of the attention component" -- "$BIN" census "$FIX/gpt2_small_ex0.npz" \
  --component attention -o "$TMP/att.csv" \
  && { $PY "$REF" census "$FIX/gpt2_small_ex0.npz" "$TMP/att.csv" && pass || fail "attention component census"; }

# Cross-attention is refused, with the sizes, and leaves no output.
expect_rc 1 "census of cross-attention" -- "$BIN" census --text "a b c" --cross-text "x y" -o "$TMP/x.csv" \
  && expect_err "self-attention" "census refusal names the need"
[ -e "$TMP/x.csv" ] && fail "a refused census wrote a file" || pass
expect_rc 1 "rollout of cross-attention" -- "$BIN" compute --text "a b c" --cross-text "x y" --rollout -o "$TMP/x.npz" \
  && expect_err "3 queries × 2 keys" "rollout refusal names the sizes"
[ -e "$TMP/x.npz" ] && fail "a refused rollout wrote a file" || pass
expect_rc 1 "census to .txt" -- "$BIN" census -o "$TMP/x.txt" && expect_err "csv or .json" "census output types"
expect_rc 1 "--rollout on render" -- "$BIN" render --rollout -o "$TMP/x.png" && expect_err "compute" "--rollout is compute's"

finish
