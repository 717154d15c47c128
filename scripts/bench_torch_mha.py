#!/usr/bin/python3
# PyTorch reference for tests/bench/core_attention_bench.cpp: nn.MultiheadAttention forward,
# float32, d_model 768, 12 heads, need_weights=True, average_attn_weights=False, 2 threads.
# Prints the median wall time of several runs per n, in ms. Needs python3-torch (Debian) and
# libopenblas0-pthread. Uses the system interpreter, where Debian installs torch.
import statistics
import sys
import time

import torch

torch.set_num_threads(2)
torch.manual_seed(0)
D, H = 768, 12
mha = torch.nn.MultiheadAttention(D, H, batch_first=True).eval()
print(f"torch {torch.__version__}, threads {torch.get_num_threads()}")
for n in [int(a) for a in sys.argv[1:]] or [128, 512, 2048]:
    x = torch.randn(1, n, D)
    runs = 30 if n <= 512 else 8
    times, cpus = [], []
    with torch.no_grad():
        for i in range(runs + 3):
            c0, t0 = time.process_time(), time.perf_counter()
            out, w = mha(x, x, x, need_weights=True, average_attn_weights=False)
            t1, c1 = time.perf_counter(), time.process_time()
            if i >= 3:  # warm-up runs are not counted
                times.append((t1 - t0) * 1e3)
                cpus.append((c1 - c0) * 1e3)
    assert w.shape == (1, H, n, n)
    # CPU time of every thread: on a shared machine it separates work from waiting for a core.
    print(f"torch_mha n={n:5d}  median {statistics.median(times):8.2f} ms  "
          f"min {min(times):8.2f} ms  cpu(all threads) {statistics.median(cpus):8.2f} ms  "
          f"({runs} runs)")
