"""Matrix products of a real program (numpy, and BLAS called through
ctypes the way C code calls it) checked against numpy's own long-double
product, which uses no BLAS.  Run under a redirect wrapper to the CLBlast
shim (tests/integration/clblast.sh); prints one line per kind and exits 1
on the first wrong result.

    clblast_check.py SHIM.so [numpy|fortran|cblas|nan|threads|fork|bad]...
"""
import ctypes
import os
import sys
import threading

import numpy as np

SHIM = sys.argv[1]
rng = np.random.default_rng(7)
# dlopen + dlsym of the library numpy links, as a plugin would call it:
# sibyl trace binds these lookups to the wrapper too (docs/trace.md).
blas = ctypes.CDLL("libblas.so.3")
blas.cblas_dgemm.restype = None
blas.dgemm_.restype = None
I = ctypes.c_int
D = ctypes.c_double
P = ctypes.POINTER(ctypes.c_double)


def exact(a, b, alpha=1.0, beta=0.0, c=None):
    """alpha a b + beta c in long double, by numpy's loops, not BLAS."""
    r = np.longdouble(alpha) * (a.astype(np.longdouble) @ b.astype(np.longdouble))
    if beta != 0:
        r += np.longdouble(beta) * c.astype(np.longdouble)
    return r


def check(what, got, want, k):
    scale = max(1.0, float(np.max(np.abs(want))))
    err = float(np.max(np.abs(got.astype(np.longdouble) - want))) / scale
    if not np.all(np.isfinite(got)) or err > 64 * k * np.finfo(float).eps:
        print(f"FAIL {what}: relative error {err:.3g}")
        sys.exit(1)


def ptr(x):
    return x.ctypes.data_as(P)


def numpy_products():
    shapes = [(64, 64, 64), (17, 300, 41), (300, 5, 129), (1, 200, 200), (513, 70, 257)]
    for m, n, k in shapes:
        a, b = rng.random((m, k)) - 0.5, rng.random((k, n)) - 0.5
        check(f"numpy {m}x{k} @ {k}x{n}", a @ b, exact(a, b), k)
        at, bt = rng.random((k, m)), rng.random((n, k))
        check(f"numpy transposed {m}x{n}x{k}", at.T @ bt.T, exact(at.T, bt.T), k)
        af = np.asfortranarray(a)
        check(f"numpy Fortran order {m}x{n}x{k}", af @ b, exact(af, b), k)
        # Slices of wider arrays: leading dimension > the rows used.
        big_a, big_b = rng.random((m, k + 13)), rng.random((k, n + 7))
        sa, sb = big_a[:, 3:k + 3], big_b[:, :n]
        check(f"numpy slices {m}x{n}x{k}", sa @ sb, exact(sa, sb), k)
    print(f"ok numpy: {len(shapes) * 4} products")


def fortran_products():
    count = 0
    for ta in "NT":
        for tb in "NTC":
            for m, n, k in [(40, 33, 21), (128, 96, 200), (7, 301, 64)]:
                alpha, beta = 0.75, -1.5
                ra, ca = (m, k) if ta == "N" else (k, m)
                rb, cb = (k, n) if tb == "N" else (n, k)
                lda, ldb, ldc = ra + 5, rb + 3, m + 9
                # Column-major storage with padding rows: Fortran arrays.
                A = np.asfortranarray(rng.random((lda, ca)) - 0.5)
                B = np.asfortranarray(rng.random((ldb, cb)) - 0.5)
                C = np.asfortranarray(rng.random((ldc, n)) - 0.5)
                opa = A[:ra].T if ta == "T" else A[:ra]
                opb = B[:rb].T if tb != "N" else B[:rb]
                want = exact(opa, opb, alpha, beta, C[:m].copy())
                padding = C[m:].copy()
                blas.dgemm_(ta.encode(), tb.encode(), ctypes.byref(I(m)), ctypes.byref(I(n)),
                            ctypes.byref(I(k)), ctypes.byref(D(alpha)), ptr(A), ctypes.byref(I(lda)),
                            ptr(B), ctypes.byref(I(ldb)), ctypes.byref(D(beta)), ptr(C),
                            ctypes.byref(I(ldc)), ctypes.c_size_t(1), ctypes.c_size_t(1))
                check(f"dgemm_ {ta}{tb} {m}x{n}x{k}", C[:m], want, k)
                if not np.array_equal(C[m:], padding):
                    print(f"FAIL dgemm_ {ta}{tb}: wrote between the columns of C")
                    sys.exit(1)
                count += 1
    print(f"ok dgemm_: {count} products, alpha/beta != 1/0, ld > rows")


def cblas_products():
    count = 0
    for layout in (101, 102):  # row-major, column-major
        for ta, tb in [(111, 111), (112, 111), (111, 112), (112, 113)]:
            m, n, k = 45, 70, 33
            alpha, beta = -2.0, 0.5
            ra, ca = (m, k) if ta == 111 else (k, m)
            rb, cb = (k, n) if tb == 111 else (n, k)
            order = "C" if layout == 101 else "F"
            pad = 6
            # The padded dimension is the contiguous one's stride.
            shape = (lambda r, c: (r, c + pad)) if layout == 101 else (lambda r, c: (r + pad, c))
            A = np.array(rng.random(shape(ra, ca)) - 0.5, order=order)
            B = np.array(rng.random(shape(rb, cb)) - 0.5, order=order)
            C = np.array(rng.random(shape(m, n)) - 0.5, order=order)
            ld = (lambda x: x.shape[1]) if layout == 101 else (lambda x: x.shape[0])
            va, vb, vc = A[:ra, :ca], B[:rb, :cb], C[:m, :n]
            want = exact(va.T if ta != 111 else va, vb.T if tb != 111 else vb, alpha, beta, vc.copy())
            blas.cblas_dgemm(layout, ta, tb, m, n, k, D(alpha), ptr(A), ld(A), ptr(B), ld(B),
                             D(beta), ptr(C), ld(C))
            check(f"cblas_dgemm layout {layout} trans {ta},{tb}", C[:m, :n], want, k)
            count += 1
    print(f"ok cblas_dgemm: {count} products, both layouts")


def nan_in_c():
    """beta = 0: C is not read, so a NaN there (or left on the device by
    an earlier product) must not reach the result."""
    m = n = k = 50
    a, b = np.asfortranarray(rng.random((m, k))), np.asfortranarray(rng.random((k, n)))
    bad = a.copy(order="F")
    bad[0, 0] = np.nan
    c = np.full((m, n), np.nan, order="F")
    call = lambda x, c: blas.cblas_dgemm(102, 111, 111, m, n, k, D(1.0), ptr(x), m, ptr(b), k,
                                         D(0.0), ptr(c), m)
    call(bad, c)  # NaN results, now in the device's C
    c[:] = np.nan
    call(a, c)
    check("beta = 0 over NaN", c, exact(a, b), k)
    print("ok nan: beta = 0 ignores C")


def threads():
    errors = []

    def work(seed):
        r = np.random.default_rng(seed)
        for _ in range(5):
            m, n, k = (int(x) for x in r.integers(20, 200, 3))
            a = np.asfortranarray(r.random((m, k)))
            b = np.asfortranarray(r.random((k, n)))
            c = np.zeros((m, n), order="F")
            blas.cblas_dgemm(102, 111, 111, m, n, k, D(1.0), ptr(a), m, ptr(b), k, D(0.0),
                             ptr(c), m)  # ctypes releases the GIL: truly concurrent
            want = exact(a, b)
            if float(np.max(np.abs(c - want))) > 1e-10 * k:
                errors.append((seed, m, n, k))
    ts = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        print(f"FAIL threads: {errors}")
        sys.exit(1)
    print("ok threads: 4 x 5 concurrent products")


def fork():
    """A child cannot use its parent's OpenCL context: its products run on
    the original BLAS, and are right."""
    shim = ctypes.CDLL(SHIM)  # the handle the wrapper opened
    pid = os.fork()
    if pid == 0:
        before = shim.sibyl_clblast_fallbacks()
        a, b = rng.random((64, 32)), rng.random((32, 48))
        ok = np.allclose(a @ b, exact(a, b).astype(float), rtol=1e-12, atol=1e-12)
        os._exit(0 if ok and shim.sibyl_clblast_fallbacks() == before + 1 else 3)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        print(f"FAIL fork: child status {status}")
        sys.exit(1)
    print("ok fork: the child's product ran on the original BLAS")


def bad():
    """Invalid arguments: the original BLAS reports them exactly as it
    would (numpy replaces xerbla_ with one raising ValueError; reference
    CBLAS's cblas_xerbla prints and exits)."""
    A = np.zeros(16)
    try:
        blas.dgemm_(b"N", b"N", ctypes.byref(I(4)), ctypes.byref(I(4)), ctypes.byref(I(4)),
                    ctypes.byref(D(1.0)), ptr(A), ctypes.byref(I(2)), ptr(A), ctypes.byref(I(4)),
                    ctypes.byref(D(0.0)), ptr(A), ctypes.byref(I(4)), ctypes.c_size_t(1),
                    ctypes.c_size_t(1))
    except SystemError as e:
        print(f"dgemm_ with lda < m: {type(e.__cause__).__name__}: {e.__cause__}")
    sys.stdout.flush()
    blas.cblas_dgemm(99, 111, 111, 4, 4, 4, D(1.0), ptr(A), 4, ptr(A), 4, D(0.0), ptr(A), 4)
    print("cblas_dgemm with layout 99 returned")


def on_device():
    """Every product that reached the shim ran on the device."""
    maps = open("/proc/self/maps").read()
    if "libsibyl-accel-clblast" not in maps:
        return print("reference: the shim is not loaded")
    if "libclblast" not in maps or "libpocl" not in maps:
        print("FAIL: the shim is loaded but CLBlast or PoCL is not")
        sys.exit(1)
    n = ctypes.CDLL(SHIM).sibyl_clblast_fallbacks()
    if n:
        print(f"FAIL: {n} products fell back to the CPU")
        sys.exit(1)
    print("device: every product ran through CLBlast")


kinds = {"numpy": numpy_products, "fortran": fortran_products, "cblas": cblas_products,
         "nan": nan_in_c, "threads": threads, "fork": fork, "bad": bad}
for kind in sys.argv[2:]:
    kinds[kind]()
if "bad" not in sys.argv[2:]:
    on_device()
