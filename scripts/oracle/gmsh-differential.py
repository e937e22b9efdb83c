#!/usr/bin/env python3
"""GMSH files, flexlab against MuJoCo 3.15.0: mutates the test files (crate/tests/models/gmsh_*.msh)
and has both engines load each one in a flexcomp; they must agree on the outcome: the same
error message, or a model with the same number of vertices and elements.

    FLEXLAB_BIN=target/release/flexlab .venv/bin/python scripts/oracle/gmsh-differential.py --seed 1 --count 500

MuJoCo runs in a child process per file (a file that makes it read past its buffer must not
end the run). Files on which the engines differ are kept in --keep (default /tmp/gmsh-diff)
and named in the output; the last line is "same N diff N".
"""
import argparse
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
NUMBERS = [b"0", b"-1", b"1e308", b"1e-310", b"nan", b"inf", b"abc", b"0x1p3", b"2147483648",
           b"99999999999999999999", b" ", b"\n", b"\r\n", b"\x0b", b"3.5", b"-0", b"1.", b".5e"]
MODEL = ('<mujoco><worldbody><body name="b"><flexcomp name="f" type="gmsh" file="m.msh" '
         'scale=".05 .05 .05"/></body></worldbody></mujoco>')
MUJOCO = r"""
import sys, mujoco
assert mujoco.__version__ == "3.15.0", mujoco.__version__
try:
    m = mujoco.MjModel.from_xml_path(sys.argv[1])
    print("ok %d %d" % (m.nflexvert, m.nflexelem))
except Exception as e:
    print(str(e).splitlines()[0])
"""


def mutate(data, rng):
    b = bytearray(data)
    binary = b"4.1 1" in b[:24] or b"2.2 1" in b[:24]
    for _ in range(rng.randint(1, 2)):
        i = rng.randrange(len(b))
        kind = rng.randrange(3 if binary else 5)
        if kind == 0:
            b[i] = rng.randrange(256) if binary else rng.choice(b"0123456789 \n.-xe")
        elif kind == 1:
            del b[i:i + rng.randrange(1, 40)]
        elif kind == 2:
            b[i:i] = b[i:i + rng.randrange(1, 40)]
        elif kind == 3:
            b[i:i] = rng.choice(NUMBERS)
        else:
            del b[i:]
    return bytes(b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--keep", default="/tmp/gmsh-diff")
    args = ap.parse_args()
    flexlab = os.environ.get("FLEXLAB_BIN", os.path.join(ROOT, "target", "release", "flexlab"))
    files = [(f, open(f, "rb").read()) for f in sorted(glob.glob(os.path.join(ROOT, "crate/tests/models/gmsh_*.msh")))]
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="gmsh-diff-")
    model = os.path.join(work, "m.xml")
    with open(model, "w") as f:
        f.write(MODEL)
    os.makedirs(args.keep, exist_ok=True)
    same = diff = 0
    for case in range(args.count):
        name, data = rng.choice(files)
        with open(os.path.join(work, "m.msh"), "wb") as f:
            f.write(mutate(data, rng))
        r = subprocess.run([sys.executable, "-c", MUJOCO, model], capture_output=True, text=True)
        want = (r.stdout.strip() or f"MuJoCo ended with code {r.returncode}").replace("XML Error: ", "")
        out = subprocess.run([flexlab, "compile", model], capture_output=True, text=True).stdout
        o = json.loads(out.splitlines()[0])
        if o["ok"]:
            got = "ok %d %d" % (o["sizes"]["nflexvert"], o["sizes"]["nflexelem"])
        else:
            got = o["error"].splitlines()[0].replace("XML Error: ", "")
        if got == want:
            same += 1
            continue
        diff += 1
        kept = os.path.join(args.keep, f"seed{args.seed}_case{case}.msh")
        shutil.copy(os.path.join(work, "m.msh"), kept)
        print(f"differ: {kept} (from {os.path.basename(name)}) | MuJoCo: {want} | flexlab: {got}")
    shutil.rmtree(work)
    print(f"same {same} diff {diff}")


if __name__ == "__main__":
    main()
