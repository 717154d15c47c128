"""The Python module (python/attnscope) against the real program: Hugging Face-shaped tensors,
encoder–decoder triples, sentence pairs and bad shapes, the saved files read back by
`attnscope compute` to the numbers numpy and torch hold, and one window for every open (two
GUI processes on the offscreen platform).

Run by ctest with ATTNSCOPE_BIN (the built program) and PYTHONPATH (the clone's python/).
"""

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np

try:
    import torch
except ImportError:  # a check that cannot run fails
    torch = None

import attnscope

BIN = os.environ.get("ATTNSCOPE_BIN", "")
#: The issue's bound for a second `attnscope FILE` handing its file over and exiting.
HANDOFF_BOUND_S = 1.0
#: How long a first window may take to come up and open its file on a loaded test machine;
#: only a bound on waiting for the condition, never a speed measure.
WINDOW_BOUND_S = 90.0


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def compute(path, *args):
    """`attnscope compute` of a file: the numbers the app shows, as an .npz dict."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.npz")
        r = subprocess.run([BIN, "compute", path, "--stages", "weights", *args, "-o", out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise AssertionError(f"attnscope compute {path} {args}: {r.stderr}")
        with np.load(out) as z:
            return {k: z[k] for k in z.files}


def layer_of(got, layer):
    """One layer's weights [H, nq, nk] of a compute output ([L, H, nq, nk] when several)."""
    w = got["weights"]
    return w[list(got["layer"]).index(layer)] if w.ndim == 4 else w


def hf_attentions(layers=3, heads=4, n=6, seed=0):
    """What a Hugging Face model returns with output_attentions=True: a tuple of per-layer
    [1, heads, n, n] tensors, here from torch's own attention (requires_grad, so detach
    matters)."""
    torch.manual_seed(seed)
    out = []
    x = torch.randn(1, n, 8 * heads)
    for _ in range(layers):
        mha = torch.nn.MultiheadAttention(8 * heads, heads, batch_first=True)
        x, w = mha(x, x, x, need_weights=True, average_attn_weights=False)
        out.append(w)  # [1, heads, n, n]
    return tuple(out)


class Common(unittest.TestCase):
    def setUp(self):
        if not BIN or not os.access(BIN, os.X_OK):
            self.fail(f"ATTNSCOPE_BIN={BIN!r} is not the built program")
        self.dir = tempfile.TemporaryDirectory()
        self.tmp = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.tmp, name)


class Tensors(Common):
    def test_torch_is_installed(self):
        self.assertIsNotNone(torch, "python3-torch is missing; scripts/common.sh installs it")

    def test_hugging_face_tuple_round_trips_to_the_apps_numbers(self):
        att = hf_attentions()
        self.assertTrue(att[0].requires_grad)
        tokens = ["[CLS]", "the", "Ġcat", "sat", "▁down", "[SEP]"]
        path = attnscope.save(self.path("hf.npz"), attention=att, tokens=tokens)
        expected = torch.stack([a[0] for a in att]).detach().numpy()  # [L, H, n, n]
        with np.load(path) as z:
            self.assertEqual(z["attention"].dtype, np.float32)
            np.testing.assert_array_equal(z["attention"], expected)
            self.assertEqual(list(z["tokens"]), tokens)
        got = compute(path)
        self.assertEqual(got["weights"].shape, (3, 4, 6, 6))
        np.testing.assert_allclose(got["weights"], expected, rtol=0, atol=1e-6)
        self.assertEqual(list(got["q_tokens"]), tokens)

    def test_q_and_k_give_the_scores_numpy_computes(self):
        rng = np.random.default_rng(3)
        q = rng.standard_normal((2, 3, 5, 4)).astype(np.float32)
        k = rng.standard_normal((2, 3, 5, 4)).astype(np.float32)
        path = attnscope.save(self.path("qk.npz"), q=torch.from_numpy(q), k=k,
                              tokens=list("abcde"))
        got = compute(path)
        want = softmax(q[1] @ k[1].transpose(0, 2, 1) / 2.0)  # √d_k = 2
        np.testing.assert_allclose(layer_of(got, 1), want, rtol=0, atol=2e-6)

    def test_module_never_imports_torch(self):
        code = ("import sys, numpy as np, attnscope\n"
                "attnscope.save(sys.argv[1], attention=np.eye(3, dtype=np.float32))\n"
                "assert 'torch' not in sys.modules, 'attnscope imported torch'\n")
        r = subprocess.run([sys.executable, "-c", code, self.path("e.npz")],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_encoder_decoder_triple(self):
        rng = np.random.default_rng(7)
        enc = tuple(torch.from_numpy(softmax(rng.standard_normal((1, 2, 4, 4))).astype(np.float32))
                    for _ in range(2))
        dec = tuple(torch.from_numpy(softmax(rng.standard_normal((1, 2, 3, 3))).astype(np.float32))
                    for _ in range(2))
        cross = tuple(torch.from_numpy(softmax(rng.standard_normal((1, 2, 3, 4))).astype(np.float32))
                      for _ in range(2))
        src, tgt = ["▁Das", "▁ist", "▁gut", "</s>"], ["<pad>", "▁That", "▁is"]
        path = attnscope.save(self.path("s2s.npz"), encoder_attention=enc,
                              decoder_attention=dec, cross_attention=cross,
                              encoder_tokens=src, decoder_tokens=tgt)
        got = compute(path, "--component", "Cross")
        self.assertEqual(list(got["q_tokens"]), tgt)
        self.assertEqual(list(got["k_tokens"]), src)
        np.testing.assert_allclose(layer_of(got, 1), cross[1][0].numpy(), rtol=0, atol=1e-6)
        got = compute(path, "--component", "Encoder")
        np.testing.assert_allclose(layer_of(got, 0), enc[0][0].numpy(), rtol=0, atol=1e-6)

    def test_sentence_pair_blocks(self):
        att = hf_attentions(layers=2, heads=2, n=7, seed=4)
        path = attnscope.save(self.path("pair.npz"), attention=att, tokens=list("abcdefg"),
                              sentence_b_start=3)
        full = torch.stack([a[0] for a in att]).detach().numpy()
        got = compute(path, "--component", "ab")
        self.assertEqual(list(got["q_tokens"]), list("abc"))
        self.assertEqual(list(got["k_tokens"]), list("defg"))
        np.testing.assert_allclose(layer_of(got, 1), full[1][:, :3, 3:], rtol=0, atol=1e-6)
        got = compute(path, "--component", "ba")
        np.testing.assert_allclose(layer_of(got, 0), full[0][:, 3:, :3], rtol=0, atol=1e-6)

    def test_render_draws_a_png_of_the_asked_size(self):
        att = hf_attentions(layers=1, heads=2, n=4)
        out = attnscope.render({"attention": att, "tokens": list("abcd")}, view="lines",
                               out=self.path("lines.png"), size=(400, 300))
        out = out if isinstance(out, str) else out.filename
        with open(out, "rb") as f:
            head = f.read(24)
        self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n")
        self.assertEqual((int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")),
                         (400, 300))
        with self.assertRaisesRegex(RuntimeError, "layer"):
            attnscope.render({"attention": att, "tokens": list("abcd")}, layer=5,
                             out=self.path("bad.png"))


class BadShapes(Common):
    """Refused before anything is written or opened, in BertViz's words where it has them."""

    def test_messages(self):
        att = hf_attentions(layers=2, heads=2, n=4)
        tokens = list("abcd")
        cases = [
            (lambda: attnscope.head_view(att), "'tokens' is required"),
            (lambda: attnscope.head_view(att, list("abc")),
             "Attention has 4 positions, while number of tokens is 3 for tokens: a b c"),
            (lambda: attnscope.head_view(tuple(a[0] for a in att), tokens),
             "The attention tensor does not have the correct number of dimensions. Make sure "
             "you set output_attentions=True when initializing your model."),
            (lambda: attnscope.head_view(tuple(torch.cat([a, a]) for a in att), tokens),
             "batch size 2"),
            (lambda: attnscope.head_view(att, tokens, encoder_tokens=tokens),
             "If you specify 'attention' you may not specify any encoder-decoder arguments."),
            (lambda: attnscope.head_view(), "You must specify at least one attention argument."),
            (lambda: attnscope.head_view(encoder_attention=att),
             "'encoder_tokens' required if 'encoder_attention' is not None"),
            (lambda: attnscope.head_view(cross_attention=att, encoder_tokens=tokens),
             "'decoder_tokens' required if 'cross_attention' is not None"),
            (lambda: attnscope.head_view(att, tokens, layer=1, include_layers=[0]),
             "Layer 1 is not in include_layers: [0]"),
            (lambda: attnscope.model_view(att, tokens, include_layers=[0, 2]),
             "Layer 2 in include_layers is out of range"),
            (lambda: attnscope.model_view(att, tokens, include_heads=[3]),
             "Head 3 in include_heads is out of range"),
            (lambda: attnscope.head_view((att[0], att[1][:, :, :3, :3]), list("abcd")),
             "attention[1] is 2×3×3 (heads × queries × keys) but attention[0] is 2×4×4"),
            (lambda: attnscope.save(self.path("x.npz"), attention=np.ones(4)),
             "'attention' has shape (4,)"),
            (lambda: attnscope.save(self.path("x.npz"), attention=np.full((2, 2), np.nan)),
             "holds nan at index (0, 0)"),
            (lambda: attnscope.save(self.path("x.npz"), attention=att, tokens=tokens,
                                    sentence_b_start=4),
             "sentence_b_start = 4 must be between 1 and 3"),
            (lambda: attnscope.save(self.path("x.npz"), q=np.ones((1, 1, 3, 4)),
                                    k=np.ones((1, 1, 3, 5))),
             "'q' is (1, 1, 3, 4) but 'k' is (1, 1, 3, 5)"),
            (lambda: attnscope.save(self.path("x.npz"), cross_attention=att,
                                    encoder_tokens=list("abc")),
             "Attention has 4 positions, while number of tokens is 3 for tokens: a b c"),
        ]
        for call, message in cases:
            with self.subTest(message=message):
                with self.assertRaises(ValueError) as caught:
                    call()
                self.assertIn(message, str(caught.exception))
        self.assertFalse(os.path.exists(self.path("x.npz")))

    def test_app_refuses_what_python_could_not_check(self):
        # A cross-attention whose keys disagree with the encoder's, written by hand: the app
        # names the file and both sizes.
        enc = softmax(np.zeros((1, 1, 4, 4))).astype(np.float32)
        cross = softmax(np.zeros((1, 1, 3, 5))).astype(np.float32)
        np.savez(self.path("bad.npz"), encoder_attention=enc, cross_attention=cross)
        r = subprocess.run([BIN, "compute", self.path("bad.npz"), "-o", self.path("o.npz")],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("bad.npz: cross_attention has 5 key columns but encoder_attention covers 4",
                      r.stderr)

    def test_negative_weights_are_refused_by_the_program(self):
        # "Weights" with negative entries (scores passed as attention): the program refuses
        # them by core's one rule, naming the entry; the same numbers as scores open.
        att = np.full((1, 2, 2, 2), 0.5, dtype=np.float32)
        att[0, 1, 0, 1] = -0.25
        with self.assertRaises(RuntimeError) as caught:
            attnscope.render({"attention": att, "tokens": ["a", "b"]}, out=self.path("w.png"))
        self.assertIn("attention.npy: attention weights are post-softmax (≥ 0), but entry "
                      "[layer, head, query, key] [0, 1, 0, 1] is -0.25 (1 of 8 entries are "
                      "negative); save raw scores as 'scores' instead", str(caught.exception))
        out = attnscope.render({"scores": att, "tokens": ["a", "b"]}, out=self.path("s.png"))
        self.assertTrue(os.path.exists(out if isinstance(out, str) else out.filename))


def wait_for_line(log, line, process):
    """Waits until `line` is in the file `log` (written by the window), failing if the window
    ends first or WINDOW_BOUND_S passes."""
    deadline = time.monotonic() + WINDOW_BOUND_S
    while time.monotonic() < deadline:
        if os.path.exists(log):
            with open(log, encoding="utf-8") as f:
                if line in f.read().splitlines():
                    return
        if process.poll() is not None:
            raise AssertionError(f"the window exited ({process.returncode}) before opening {line}")
        time.sleep(0.05)
    raise AssertionError(f"{log} never listed {line}")


class OneWindow(Common):
    """Two GUI processes on the offscreen platform, on a socket of the test's own."""

    def setUp(self):
        super().setUp()
        self.env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
                        ATTNSCOPE_INSTANCE=self.path("instance"),
                        XDG_CONFIG_HOME=self.path("config"), XDG_DATA_HOME=self.path("data"))
        self.windows = []
        self.files = {}
        for name in "ABCDE":
            self.files[name] = attnscope.save(self.path(f"{name}.npz"),
                                              attention=np.eye(3, dtype=np.float32),
                                              tokens=[name, "x", "y"])

    def tearDown(self):
        for w in self.windows:
            if w.poll() is None:
                w.kill()
            w.wait()
        super().tearDown()

    def window(self, log, *args):
        env = dict(self.env, ATTNSCOPE_OPEN_LOG=log)
        w = subprocess.Popen([BIN, *args], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        self.windows.append(w)
        return w

    def hand(self, name, log):
        """A second `attnscope FILE`: exits 0 within the issue's bound, having opened nothing
        itself."""
        r = subprocess.run([BIN, self.files[name]], env=dict(self.env, ATTNSCOPE_OPEN_LOG=log),
                           capture_output=True, text=True, timeout=HANDOFF_BOUND_S)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_second_open_goes_to_the_running_window(self):
        first = self.path("first.log")
        w = self.window(first, self.files["A"])
        wait_for_line(first, self.files["A"], w)
        second = self.path("second.log")
        self.hand("B", second)
        wait_for_line(first, self.files["B"], w)
        self.assertFalse(os.path.exists(second), "the second process opened a window itself")
        # head_view from Python goes to the same window, as a session on the Heads tab.
        att = hf_attentions(layers=2, heads=2, n=3)
        saved = dict(os.environ)
        os.environ.update(self.env, ATTNSCOPE_OPEN_LOG=second)
        try:
            session = attnscope.head_view(att, ["Ġa", "b", "c"], layer=1, heads=[1])
        finally:
            os.environ.clear()
            os.environ.update(saved)
        wait_for_line(first, session, w)
        self.assertFalse(os.path.exists(second))
        with open(session, encoding="utf-8") as f:
            s = json.load(f)
        self.assertEqual((s["views"]["open_tab"], s["data"]["layer"],
                          s["views"]["focused_head"]),
                         ("heads", 1, 1))
        with np.load(os.path.join(os.path.dirname(session), s["data"]["path"])) as z:
            self.assertEqual(list(z["tokens"]), [" a", "b", "c"])  # prettified as BertViz does
        self.assertIsNone(w.poll())

    def test_stale_socket_is_taken_over_and_new_window_opts_out(self):
        # A crashed window's socket: a file nobody listens on.
        stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stale.bind(self.env["ATTNSCOPE_INSTANCE"])
        stale.close()
        self.assertTrue(os.path.exists(self.env["ATTNSCOPE_INSTANCE"]))
        first = self.path("first.log")
        w = self.window(first, self.files["C"])
        wait_for_line(first, self.files["C"], w)
        self.hand("D", self.path("second.log"))
        wait_for_line(first, self.files["D"], w)
        # A window killed outright leaves its socket behind: the next one takes it over.
        w.send_signal(signal.SIGKILL)
        w.wait()
        self.assertTrue(os.path.exists(self.env["ATTNSCOPE_INSTANCE"]))
        third = self.path("third.log")
        w3 = self.window(third, self.files["A"])
        wait_for_line(third, self.files["A"], w3)
        self.hand("B", self.path("fourth.log"))
        wait_for_line(third, self.files["B"], w3)
        # --new-window: a window of its own, which opens the file itself and keeps running.
        own = self.path("own.log")
        w4 = self.window(own, "--new-window", self.files["E"])
        wait_for_line(own, self.files["E"], w4)
        with open(third, encoding="utf-8") as f:
            self.assertNotIn(self.files["E"], f.read().splitlines())


if __name__ == "__main__":
    unittest.main(verbosity=2)
