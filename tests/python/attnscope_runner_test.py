"""attnscope.run and attnscope.batch (python/attnscope/runner.py) against the program's own
outputs on a tiny random GPT-2 folder: run's arrays are `attnscope compute`'s, batch's are
`attnscope batch`'s (from a list of dicts and from a file), progress events arrive, and a
failing run raises AttnScopeError carrying the program's message.

Run by ctest with ATTNSCOPE_BIN (the built program) and PYTHONPATH (the clone's python/ and
tests/core, for the tiny model).
"""

import json
import os
import subprocess
import tempfile
import unittest

import numpy as np

import attnscope
from gpt2_tiny import tiny_folder

BIN = os.environ.get("ATTNSCOPE_BIN", "")


def program(*args):
    r = subprocess.run([BIN, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(f"attnscope {args}: {r.stderr}")


def load(path):
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


class RunnerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.model = os.path.join(cls.tmp.name, "tiny-gpt2")
        tiny_folder(cls.model, 11, 3)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def assertSameArrays(self, got, want):
        self.assertEqual(sorted(got), sorted(want))
        for k in want:
            np.testing.assert_array_equal(got[k], want[k], err_msg=k)

    def test_run_is_compute(self):
        got = attnscope.run(self.model, "the cat sat", ablate=["0.1", "2.0"], ablate_mode="mean",
                            logit_lens=True)
        program("compute", "--model", self.model, "--text", "the cat sat", "--ablate", "0.1,2.0",
                "--ablate-mode", "mean", "--logit-lens", "-o", self.path("c.npz"))
        want = load(self.path("c.npz"))
        self.assertIn("weights", got)
        self.assertEqual(got["weights"].shape[:2], (3, 2))
        self.assertIn("lens_logits", got)
        self.assertSameArrays(got, want)

    def test_batch_is_the_program(self):
        pairs = [{"clean": "the cat sat", "corrupt": "the dog sat", "answer": 116, "wrong": 99},
                 {"clean": "we saw it", "corrupt": "we ate it", "answer": "x", "wrong": "y"},
                 {"clean": "the cat", "corrupt": "the dog sat", "answer": 1, "wrong": 2}]
        events = []
        got = attnscope.batch(self.model, pairs, "patch", on_error="skip", progress=events.append)
        dataset = self.path("pairs.jsonl")
        with open(dataset, "w") as f:
            f.write("".join(json.dumps(p) + "\n" for p in pairs))
        program("batch", "--model", self.model, "--dataset", dataset, "--analysis", "patch",
                "--on-error", "skip", "-o", self.path("b.npz"))
        want = load(self.path("b.npz"))
        for k in want:  # the dataset's own path and hash differ: the file was another
            if k not in ("dataset", "hashes"):
                np.testing.assert_array_equal(got[k], want[k], err_msg=k)
        self.assertEqual(got["per_example/head_patch"].shape, (2, 3, 2))
        self.assertEqual(list(got["skipped/line"]), [3])
        self.assertEqual([e.get("done") for e in events[:-1]], [1, 2, 3])
        self.assertTrue(events[-1]["finished"])
        from_file = attnscope.batch(self.model, dataset, "patch", on_error="skip", progress=False)
        self.assertSameArrays(from_file, want)

    def test_failures_raise_with_the_message(self):
        with self.assertRaises(attnscope.AttnScopeError) as caught:
            attnscope.run(os.path.join(self.tmp.name, "no-such-model"), "the cat")
        self.assertIn("no-such-model", caught.exception.message)
        self.assertEqual(caught.exception.code, 2)
        with self.assertRaises(attnscope.AttnScopeError) as caught:
            attnscope.batch(self.model, [{"text": "the cat"}, {"txt": "x"}], "census",
                            progress=False)
        self.assertIn('line 2: no "text" field', str(caught.exception))
        with self.assertRaises(attnscope.AttnScopeError) as caught:
            attnscope.batch(self.model, [{"text": "a"}], "attribute", methods=["norm_based"],
                            progress=False)
        self.assertIn("norm_based gives a map per layer (or head)", str(caught.exception))
        self.assertEqual(caught.exception.code, 1)

    def test_batch_attribute_equals_the_command(self):
        texts = [{"text": "the cat sat"}, {"text": "we saw", "answer": 105}]
        got = attnscope.batch(self.model, texts, "attribute", methods=["saliency", "rollout"],
                              faithfulness=2, steps=4, progress=False)
        self.assertEqual(list(got["agreement_methods"]), ["attention", "saliency", "rollout"])
        self.assertEqual(got["per_example/faith_saliency"].shape, (2, 3))
        self.assertEqual(got["per_example/target"][1], 105)
        for e, example in enumerate(texts):
            one = attnscope.attribute(self.model, example["text"], methods=["saliency", "rollout"],
                                      faithfulness=2, steps=4,
                                      target=int(got["per_example/target"][e]))
            lo, hi = got["examples/token_offsets"][e:e + 2]
            np.testing.assert_array_equal(got["per_example/saliency"][lo:hi], one["saliency"])
            np.testing.assert_array_equal(got["per_example/rollout"][lo:hi],
                                          one["rollout"][int(one["position"][0])])
            np.testing.assert_array_equal(got["per_example/faith_rollout"][e],
                                          one["faith_rollout"].astype(np.float64))


if __name__ == "__main__":
    unittest.main()
