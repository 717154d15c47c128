#!/usr/bin/python3
"""Small .npz files written by NumPy itself for scene_loaded_sources_test.cpp: read row by row
once the test lowers the streaming threshold (attn::io::set_long_tensor_cells). Run once with
Debian's python3-numpy and commit the output: /usr/bin/python3 tests/core/data/make_long_fixtures.py
"""
import os

import numpy as np

NPY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "npy")
shape = (2, 3, 12, 12)
e = np.arange(int(np.prod(shape)), dtype=np.int64)
# The test's reference tensor: eighths in [-6.25, 6.25], exact in float16.
ref = (((e * 37 + 11) % 101) - 50).astype(np.float64).reshape(shape) / 8.0

np.savez(os.path.join(NPY, "long_savez_f4.npz"), scores=ref.astype("<f4"))
np.savez(os.path.join(NPY, "long_savez_f2.npz"), scores=ref.astype("<f2"))
np.savez_compressed(os.path.join(NPY, "long_savez_compressed_f8_be_fortran.npz"),
                    scores=np.asfortranarray(ref.astype(">f8")))
