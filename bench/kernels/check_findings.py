#!/usr/bin/env python3
"""`sibyl kernel --check` over a corpus of .cl files (bench/kernels/check).

Every kernel of every file that clang-14 compiles runs with --check at
-g 1024 -l 64 --timeout 10 (the run rate's figures); the findings are
tallied by kind, the runs by exit status (7: findings).  ORACLE=1 also
runs `oclgrind --data-races` and `oclgrind --uninitialized` on the plain kernel (same
seed, -g 64 -l 16) and compares, kernel by kernel at that size, its
barrier divergence, its data races on __local and on __global memory and
its uninitialised reads of __local memory with --check's (Oclgrind's use
of an uninitialised value of any origin stands for the latter), ending
with a table, kernel by kernel ("n/a": --check's probe did not run, as
when the kernel crashes)."""
import collections, json, os, re, subprocess, sys

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


def kind(f):
    """A finding's kind, a race on __global memory told apart."""
    return "global-race" if f.get("memory") == "global" else f["kind"]


def kinds(rc, out):
    """The --json findings' kinds (a failure's object carries them too)."""
    try:
        return [kind(f) for f in json.loads(out).get("findings", [])]
    except (ValueError, AttributeError):
        return []


# What Oclgrind's messages say, by the kinds --check reports.
OCLGRIND = {
    "barrier-divergence": re.compile(r"divergence detected"),
    "data-race": re.compile(r"data race at local memory"),
    "global-race": re.compile(r"data race at global memory"),
    # Oclgrind reports an uninitialised value where it is used (written to
    # __global memory, branched on), not where it was read: whatever its origin
    "uninitialised-read": re.compile(r"Uninitialized"),
}
COMPARED = ("barrier-divergence", "data-race", "global-race", "uninitialised-read")


def oclgrind(f, k):
    """Oclgrind's verdicts on the plain kernel, by kind (None: it did not end).
    Two runs: Oclgrind stops reporting after --max-errors messages (1000
    by default), and a kernel's uninitialised values alone can use them
    up before the races, reported at each barrier, are said."""
    base = [SIBYL, "kernel", f, "-k", k, "-v"] + SMALL  # -v: the runner's stderr, Oclgrind's
    rc, _, races = run(["oclgrind", "--data-races", "--max-errors", "1000000"] + base,
                       timeout=600)
    if rc is None:
        return None
    rc, _, uninit = run(["oclgrind", "--uninitialized"] + base, timeout=600)
    if rc is None:
        return None
    return {kind: bool(r.search(uninit if kind == "uninitialised-read" else races))
            for kind, r in OCLGRIND.items()}


def not_run(err, mine):
    """The kinds --check could not judge: its probe did not run (-v says),
    or the race probe was skipped after a divergent barrier."""
    out = set()
    if "the barrier probe did not run" in err:
        out.add("barrier-divergence")
    if "the race probe did not run" in err or "barrier-divergence" in mine:
        out |= {"data-race", "global-race", "uninitialised-read"}
    return out


def compare(f, k, table, agree):
    """Oclgrind and --check on kernel k at -g 64 -l 16: a row of the table
    (--check's verdict None where its probe did not run)."""
    o = oclgrind(f, k)
    rc, out, err = run([SIBYL, "kernel", f, "-k", k, "--check", "--json", "-v"] + SMALL)
    mine = set(kinds(rc, out))
    unjudged = not_run(err, mine)
    if o is None:
        print("  oclgrind did not end", flush=True)
        return
    row = [(o[kind], None if kind in unjudged and kind not in mine else kind in mine)
           for kind in COMPARED]
    print("  oclgrind/--check (-g 64 -l 16): " + ", ".join(
        f"{kind} {a}/{b}" for kind, (a, b) in zip(COMPARED, row)), flush=True)
    agree["compared"] += 1
    for kind, (a, b) in zip(COMPARED, row):
        agree[(kind, "probe did not run" if b is None else "both" if a and b else
               "oclgrind only" if a else "--check only" if b else "neither")] += 1
    table.append((f"{os.path.relpath(f, ROOT)} {k}", row))


def yes(v):
    return "n/a" if v is None else "yes" if v else "no"


def print_table(table, agree):
    print(f"against oclgrind on {agree['compared']} kernels (-g 64 -l 16):")
    for kind in COMPARED:
        print(f"  {kind}: " + ", ".join(f"{w} {agree[(kind, w)]}" for w in
                                         ("both", "oclgrind only", "--check only", "neither",
                                          "probe did not run")))
    print("| kernel | race __local: oclgrind / --check | race __global: oclgrind / --check "
          "| uninit.: oclgrind (any) / --check (__local) | divergence: oclgrind / --check |")
    print("|---|---|---|---|---|")
    for name, row in table:
        div, race, glob, uninit = row
        print(f"| {name} | " + " | ".join(f"{yes(a)} / {yes(b)}" for a, b in
                                           (race, glob, uninit, div)) + " |")


def main():
    files = sorted(os.path.join(d, n) for d, _, ns in os.walk(ROOT) for n in ns if n.endswith(".cl"))
    status, found = collections.Counter(), collections.Counter()
    agree, table = collections.Counter(), []
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
            compare(f, k, table, agree)
    print(f"bench/kernels: --check on {kernels} kernels of {len(files)} files under {ROOT} "
          f"({' '.join(RUN)})")
    print("status: " + ", ".join(f"{s} {status[s]}" for s in STATUS.values()))
    print("findings: " + (", ".join(f"{k} {n}" for k, n in sorted(found.items())) or "none"))
    if os.environ.get("ORACLE"):
        print_table(table, agree)


main()
