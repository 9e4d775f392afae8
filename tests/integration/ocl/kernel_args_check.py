"""Check that the arguments sibyl generated reached the kernel unchanged.

Each test kernel writes its by-value arguments into output buffers; sibyl
reports what it generated ("args") and the buffers after the run ("after")
with --dump-args --json. Usage: kernel_args_check.py KERNEL RESULT.json GSIZE
"""
import json
import sys

kernel, path, g = sys.argv[1], sys.argv[2], int(sys.argv[3])
j = json.load(open(path))
s = j["samples"][0]
args = {a["name"]: a.get("value", a.get("data")) for a in s["args"]}
after = {a["name"]: a.get("data") for a in s["after"]}


def flat(v):
    if isinstance(v, list):
        return [x for e in v for x in flat(e)]
    return [v]


def expect(what, want, got):
    if want != got:
        sys.exit(f"FAIL: {kernel}: {what}: generated {want}, kernel saw {got}")
    print(f"ok: {kernel}: {what} ({len(want)} values)")


def in_range(name, lo, hi):
    for v in flat(args[name]):
        if not lo <= v <= hi:
            sys.exit(f"FAIL: {kernel}: {name} = {v} outside [{lo}, {hi}]")


if kernel == "scalars":
    ints = ["c", "uc", "s", "us", "i", "ui", "l", "ul"]
    expect("integers", [args[n] for n in ints], after["o"][:8])
    expect("floats", [args["f"], args["d"]], after["fo"][:2])
    for n in ["c", "s", "i", "l", "f", "d"]:
        in_range(n, -g, g)
    for n in ["uc", "us", "ui", "ul"]:
        in_range(n, 0, g - 1)
    if len(set(args[n] for n in ints)) < 3:
        sys.exit("FAIL: scalars: the generated integers are (nearly) constant")
elif kernel == "vectors":
    ints = ["c2", "uc3", "s4", "i8", "l16", "u3"]
    want = flat([args[n] for n in ints])
    expect("integer vectors", want, after["o"][: len(want)])
    want = flat([args[n] for n in ["f3", "d2", "f16"]])
    expect("float vectors", want, after["fo"][: len(want)])
    for n, w in [("c2", 2), ("uc3", 3), ("l16", 16), ("f3", 3), ("f16", 16)]:
        expect(f"{n} width", [w], [len(args[n])])
elif kernel == "structs":
    f, inner, d, v, sh = args["x"]
    want = flat([[c, a] for c, a in inner]) + v + [sh]
    expect("struct integers", want, after["o"][: len(want)])
    expect("struct floats", [f, d], after["fo"][:2])
    expect("struct buffer copied", args["src"], after["dst"])
    expect("struct buffer length", [g], [len(args["src"])])
    # Signedness of members comes from the source (libclang): char, int
    # and short members take negative values too, uchar2 never does.
    signed = flat([[[c, a] for c, a in e[1]] + [e[4]] for e in args["src"]])
    unsigned = flat([e[3] for e in args["src"]])
    if not any(v < 0 for v in signed) or any(not -g <= v <= g for v in signed):
        sys.exit(f"FAIL: structs: signed members not in [-{g}, {g}] with negatives")
    if any(not 0 <= v < g for v in unsigned):
        sys.exit(f"FAIL: structs: unsigned members outside [0, {g})")
    print("ok: structs: member signedness from the source")
elif kernel == "padded":
    expect("members without clang's padding", [2], [len(args["p"])])
    expect("int4 and uchar", flat(args["p"]), after["o"][:5])
elif kernel == "bools":
    b = [e[1] for e in args["r"]]
    expect("bool members", b, after["o"])
    if set(b) != {0, 1}:
        sys.exit(f"FAIL: bools: expected both 0 and 1, got {sorted(set(b))}")
elif kernel == "pointers":
    expect("constant -> local -> global", args["in"], after["out"])
    expect("half buffer", args["h"], after["hf"])
else:
    sys.exit(f"unknown kernel {kernel}")
