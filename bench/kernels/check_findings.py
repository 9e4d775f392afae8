#!/usr/bin/env python3
"""`sibyl kernel --check` over a corpus of .cl files (bench/kernels/check).

Every kernel of every file that clang-14 compiles runs with --check at
-g 1024 -l 64 --timeout 10 (the run rate's figures); the findings are
tallied by kind, the runs by exit status (7: findings).  ORACLE=1 also
runs `oclgrind --data-races --uninitialized` on the plain kernel (same
seed, -g 64 -l 16) and compares its barrier divergence with --check's
at that size, kernel by kernel; its races and uninitialised reads are
counted beside (--check does not look for them)."""
import collections, json, os, subprocess, sys

SIBYL, ROOT = sys.argv[1], sys.argv[2]
STATUS = {0: "clean", 1: "error", 3: "compile-error", 4: "unsupported", 5: "crash",
          6: "timeout", 7: "findings"}
RUN = ["-g", "1024", "-l", "64", "--timeout", "10"]
SMALL = ["-g", "64", "-l", "16", "--seed", "0", "--timeout", "60", "--build-timeout", "120"]


def run(cmd, timeout=300):
    """SIGTERM past the timeout: sibyl then ends its runner and removes
    its temporary directories (SIGKILL, subprocess.run's, would not)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, LC_ALL="C"))
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        p.terminate()
        p.communicate()
        return None, "", ""


def kinds(rc, out):
    """The --json findings' kinds (a failure's object carries them too)."""
    try:
        return [f["kind"] for f in json.loads(out).get("findings", [])]
    except (ValueError, AttributeError):
        return []


def oclgrind(f, k):
    """Oclgrind's verdicts on the plain kernel: divergence, races, uninitialised."""
    # -v: the runner's stderr, where Oclgrind reports, is shown
    rc, _, err = run(["oclgrind", "--data-races", "--uninitialized", SIBYL, "kernel", f, "-k", k,
                      "-v"] + SMALL, timeout=600)
    if rc is None:
        return None
    return ("divergence detected" in err, "data race" in err, "Uninitialized" in err)


def main():
    files = sorted(os.path.join(d, n) for d, _, ns in os.walk(ROOT) for n in ns if n.endswith(".cl"))
    status, found = collections.Counter(), collections.Counter()
    agree = collections.Counter()
    kernels = 0
    for f in files:
        rc, out, _ = run([SIBYL, "kernel", f, "--json"])
        if rc != 0:
            continue
        for k in (k["name"] for k in json.loads(out)["kernels"]):
            kernels += 1
            rc, out, _ = run([SIBYL, "kernel", f, "-k", k, "--check", "--json"] + RUN)
            status[STATUS.get(rc, "killed" if rc is None else "error")] += 1
            ks = kinds(rc, out)
            found.update(ks)
            print(f"{os.path.relpath(f, ROOT)} {k}: status {rc} {' '.join(ks)}", flush=True)
            if not os.environ.get("ORACLE"):
                continue
            o = oclgrind(f, k)
            rc, out, _ = run([SIBYL, "kernel", f, "-k", k, "--check", "--json"] + SMALL)
            mine = "barrier-divergence" in kinds(rc, out)
            print(f"  oclgrind divergence/race/uninitialised {o}, --check divergence {mine} "
                  f"(-g 64 -l 16)", flush=True)
            if o is not None:
                agree["compared"] += 1
                agree["both" if o[0] and mine else "oclgrind only" if o[0] else
                      "--check only" if mine else "neither"] += 1
                agree["oclgrind races"] += o[1]
                agree["oclgrind uninitialised"] += o[2]
    print(f"bench/kernels: --check on {kernels} kernels of {len(files)} files under {ROOT} "
          f"({' '.join(RUN)})")
    print("status: " + ", ".join(f"{s} {status[s]}" for s in STATUS.values()))
    print("findings: " + (", ".join(f"{k} {n}" for k, n in sorted(found.items())) or "none"))
    if os.environ.get("ORACLE"):
        print("barrier divergence against oclgrind: " + ", ".join(f"{k} {n}" for k, n in agree.items()))


main()
