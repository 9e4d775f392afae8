#!/usr/bin/python3
"""One-time costs of the CLBlast shim in a fresh process (docs/predict.md):
the seconds of each 64x64x64 product, first in NN, then the other
transpositions, each followed by a second call of the same kind.

    bench/clblast_first_calls.py build/lib/libsibyl-accel-clblast.so
    POCL_CACHE_DIR=$(mktemp -d) bench/clblast_first_calls.py ...   # cache empty
"""
import ctypes
import sys
import time

import numpy as np

shim = ctypes.CDLL(sys.argv[1])
P, D = ctypes.POINTER(ctypes.c_double), ctypes.c_double
n = 64
a = np.asfortranarray(np.random.default_rng(1).random((n, n)))
c = np.zeros((n, n), order="F")
out = []
for ta, tb in [(111, 111), (111, 111), (112, 111), (112, 111), (111, 112), (111, 112),
               (112, 112), (112, 112)]:
    t = time.perf_counter()
    shim.cblas_dgemm(102, ta, tb, n, n, n, D(1.0), a.ctypes.data_as(P), n, a.ctypes.data_as(P),
                     n, D(0.0), c.ctypes.data_as(P), n)
    out.append(f"{'NT'[ta - 111]}{'NT'[tb - 111]} {time.perf_counter() - t:.4f}")
print(" | ".join(out))
