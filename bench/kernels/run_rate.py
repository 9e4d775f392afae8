#!/usr/bin/env python3
"""Run rate of `sibyl kernel` over a corpus of .cl files (bench/kernels/run).

Every file is first listed (`sibyl kernel FILE --json`) and counted by
how that ended: compiled, missing header (clang's "file not found" for
an #include: scraped files often include headers that were not
scraped), another compile error, no kernel defined, or another failure.
Every kernel of every file that clang-14 compiles runs once with
-g 1024 -l 64 --timeout 10 (the figures of docs/kernel.md), plain and
with -i; the exit status says how it ended (docs/kernel.md: 0 ran,
3 compile error, 4 unsupported, 5 crash, 6 timeout, 1 other).
ORACLE=1 also compares -i with Oclgrind on --spir (-g 64 -l 16);
KERNELS=1 prints each kernel's status per mode (to compare two builds)
with the first line of why it failed, each file that did not compile and
each kernel's verdict against Oclgrind;
MODES=plain runs the plain mode only; EXTRA="--no-infer" adds options to
every run (arguments from the signature only: the figures before sibyl
inferred sizes, with the same build)."""
import collections, json, os, re, subprocess, sys

SIBYL, ROOT = sys.argv[1], sys.argv[2]
STATUS = {0: "ran", 1: "error", 3: "compile-error", 4: "unsupported", 5: "crash", 6: "timeout"}
FILES = ("compiled", "missing-header", "compile-error", "no-kernel", "other")
MISSING_HEADER = re.compile(r"fatal error: '[^']*' file not found")
RUN = ["-g", "1024", "-l", "64", "--timeout", "10"] + os.environ.get("EXTRA", "").split()


def sibyl(args, timeout=300, env=None):
    try:
        p = subprocess.run([SIBYL, "kernel"] + args, capture_output=True, text=True,
                           timeout=timeout, env=env)
        return p.returncode, p.stdout, why(p.stderr)
    except subprocess.TimeoutExpired:
        return None, "", f"no exit within {timeout} s"


def why(stderr):
    """The error lines of a failure, warnings left out, on one line."""
    lines = [l.strip() for l in stderr.splitlines()
             if l.strip() and not l.startswith("sibyl: warning:")]
    return " | ".join(lines)[:300]


def file_class(rc, out, why):
    """How listing a file's kernels ended, one of FILES."""
    if rc == 0:
        return "compiled"
    if rc == 3:
        try:
            diag = json.loads(out).get("diagnostics") or ""
        except ValueError:
            diag = why
        return "missing-header" if MISSING_HEADER.search(diag) else "compile-error"
    return "no-kernel" if "defines no kernel" in why else "other"


def listing(text):
    out, on = [], False
    for line in text.splitlines():
        on = on or line.startswith("Instructions executed for kernel")
        if on:
            if not line.strip():
                break
            out.append(line)
    return out


def oracle(f, k):
    """None when either side failed, else whether the listings are equal."""
    args = [f, "-k", k, "-g", "64", "-l", "16", "--seed", "3", "--timeout", "30"]
    rc, mine, _ = sibyl(args + ["-i"])
    if rc != 0:
        return None
    env = dict(os.environ, LC_ALL="C")
    try:
        p = subprocess.run(["oclgrind", "--inst-counts", SIBYL, "kernel"] + args + ["--spir"],
                           capture_output=True, text=True, timeout=300, env=env)
    except subprocess.TimeoutExpired:
        return None
    if p.returncode:
        return None
    return listing(mine) == listing(p.stdout)


def main():
    files = sorted(os.path.join(d, n) for d, _, ns in os.walk(ROOT) for n in ns if n.endswith(".cl"))
    modes = [m for m in (("plain", []), ("-i", ["-i"]))
             if m[0] in os.environ.get("MODES", "plain,-i").split(",")]
    tally = {m: collections.Counter() for m, _ in modes}
    verbose = os.environ.get("KERNELS")
    by_file = collections.Counter()
    kernels = equal = compared = 0
    for f in files:
        rc, out, why = sibyl([f, "--json"])
        how = file_class(rc, out, why)
        by_file[how] += 1
        if how != "compiled":
            if verbose:
                print(f"{os.path.relpath(f, ROOT)} - file {how}: {why}", flush=True)
            continue
        for k in (k["name"] for k in json.loads(out)["kernels"]):
            kernels += 1
            for mode, extra in modes:
                rc, _, why = sibyl([f, "-k", k] + RUN + extra)
                status = STATUS.get(rc, "killed" if rc is None else "error")
                tally[mode][status] += 1
                if verbose:
                    print(f"{os.path.relpath(f, ROOT)} {k} {mode} {status}"
                          + (f": {why}" if rc else ""), flush=True)
            if os.environ.get("ORACLE"):
                same = oracle(f, k)
                if verbose:
                    verdict = "failed" if same is None else "equal" if same else "differ"
                    print(f"{os.path.relpath(f, ROOT)} {k} oracle {verdict}", flush=True)
                if same is not None:
                    compared += 1
                    equal += same
    print(f"bench/kernels: {len(files)} files of {ROOT}: "
          + ", ".join(f"{by_file[c]} {c}" for c in FILES)
          + f"; {kernels} kernels in the files that compiled; sibyl kernel {' '.join(RUN)}")
    print(f"{'':8} {'ran':>5} {'rate':>6}  " + " ".join(f"{s:>13}" for s in STATUS.values() if s != "ran"))
    for mode, c in tally.items():
        print(f"{mode:8} {c['ran']:5d} {100 * c['ran'] / max(kernels, 1):5.0f}%  "
              + " ".join(f"{c[s]:13d}" for s in STATUS.values() if s != "ran"))
    if os.environ.get("ORACLE"):
        print(f"-i = oclgrind --inst-counts on --spir: {equal} of {compared} kernels where both ran")


main()
