#!/usr/bin/env python3
"""Differential sweep: one attribute at a time, MuJoCo 3.15.0 against flexlab.

A base model marks the places where a case may add attributes with {{SLOT}} placeholders; each
line of a case file is `SLOT attr="value" ...` (or several, `SLOT ... | SLOT ...`). For every
case the model is written with those slots filled (the other slots empty), both engines trace it (../shared/oracle/trace.py and
`flexlab trace`) and the line reports the worst qpos difference, or which engine refused the
model. A compiler or engine that reads an attribute and ignores it shows up here as a gap that
grows with the run, or as a model MuJoCo refuses and flexlab accepts; every such finding should
become a reference case (references.txt) or a located "not supported" error.

The base line (no slot filled) and MuJoCo against itself with every qpos moved by 1e-15 (all one
way, and each a random way) give the noise floor: a CG solve stopped near its tolerance or a
chaotic contact run differs at that level in MuJoCo itself, and a case within it is not a
finding.

  .venv/bin/python scripts/oracle/attr-sweep.py scripts/oracle/sweep/mixed.xml \
      scripts/oracle/sweep/mixed.txt [--steps 300] [--oracle ../shared/oracle (the default)]

Needs target/release/flexlab (cargo build --release; or FLEXLAB_BIN=path) and the venv of
make-references.sh.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import mujoco
import numpy as np

SLOT = re.compile(r"\{\{(\w+)\}\}")
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
# FLEXLAB_BIN: another build (a copy, so that a long run survives rebuilding target/release)
FLEXLAB = os.environ.get("FLEXLAB_BIN") or os.path.join(ROOT, "target", "release", "flexlab")
ORACLE = os.path.join(os.path.dirname(ROOT), "shared", "oracle")


def fill(base, case):
    """The base model with each slot of `case` ({slot: attrs}) filled, every other removed."""
    return SLOT.sub(lambda m: f" {case[m.group(1)]}" if m.group(1) in case else "", base)


def trace(cmd):
    """Runs a tracer; returns (final qpos, None) or (None, its error line)."""
    r = subprocess.run(cmd, capture_output=True, text=True)
    try:
        frames = json.loads(r.stdout)["frames"]
        return np.array(frames[-1]["qpos"]), None
    except (ValueError, KeyError, IndexError):
        # flexlab's message starts its stderr; Python's traceback ends with the exception
        lines = [ln.strip() for ln in (r.stdout + r.stderr).splitlines() if ln.strip()]
        err = next((ln for ln in reversed(lines) if "Error:" in ln), lines[0] if lines else "")
        return None, (err or f"exit {r.returncode}")[:140]


def trace_both(oracle, path, steps, extra=()):
    """Final qpos or error of MuJoCo (`oracle`/trace.py) and of flexlab on one model:
    (ref, ref_err, ours, our_err)."""
    args = [path, "--steps", str(steps), "--every", str(steps), *extra]
    ref, ref_err = trace([sys.executable, os.path.join(oracle, "trace.py"), *args])
    ours, our_err = trace([FLEXLAB, "trace", *args])
    return ref, ref_err, ours, our_err


# MuJoCo's warnings of a run that blew up (it resets the state on them)
UNSTABLE = (mujoco.mjtWarning.mjWARN_BADQPOS, mujoco.mjtWarning.mjWARN_BADQVEL,
            mujoco.mjtWarning.mjWARN_BADQACC)


def compile_model(path, elastic3d=()):
    """The model at `path`, with `elastic3d` ("FLEX=VALUE" items, as trace.py's --elastic3d)
    set through the spec first."""
    if not elastic3d:
        return mujoco.MjModel.from_xml_path(path)
    spec = mujoco.MjSpec.from_file(path)
    for item in elastic3d:
        name, value = item.split("=")
        next(f for f in spec.flexes if f.name == name).elastic3d = int(value)
    return spec.compile()


def self_sensitivity(path, steps, more=0, elastic3d=()):
    """MuJoCo against itself, every qpos moved by 1e-15: the run's own amplification. Twice: all
    one way (a shift), and each a random way (a shift moves a cloth of slide joints rigidly and
    leaves ties between its own elements, such as which of two equal self-contacts is found,
    as they were). `more` moved copies besides (random ways, 1-3e-15) catch a bifurcation that
    only some moves reach (random-scenes.py seeds 1451 and 2187: 1 of 10 copies parts by 1e-2 m,
    the other 9 by 1e-6)."""
    m = compile_model(path, elastic3d)
    signs = np.random.default_rng(1).choice([-1.0, 1.0], m.nq)
    extra = [1e-15 * (k % 3 + 1) * np.random.default_rng(2 + k).choice([-1.0, 1.0], m.nq)
             for k in range(more)]
    out = []
    for eps in (0.0, 1e-15, 1e-15 * signs, *extra):
        d = mujoco.MjData(m)
        d.qpos[:] += eps
        try:
            for _ in range(steps):
                mujoco.mj_step(m, d)
        except mujoco.FatalError:
            # MuJoCo stops with an error on a moved copy (seed 416 of random-scenes.py: an
            # element's body weights summing to 0): no floor to judge against
            return float("inf")
        if any(d.warning[w].number for w in UNSTABLE):
            # MuJoCo found the run unstable and reset it to qpos0 (random-scenes.py seed 1272,
            # an explicit cloth too stiff for its step): the reset erases the moved copies'
            # differences, while the blow-up before it amplifies any (3e7 per step there), so
            # no floor to judge against
            return float("inf")
        out.append(d.qpos.copy())
    return float(max(np.abs(out[0] - o).max(initial=0.0) for o in out[1:]))


def judge(path, steps, ref, ref_err, ours, our_err, flexlab_may_refuse=True, floor=None, elastic3d=()):
    """The verdict on one case and whether it is a finding. `ref`/`ours` are the final qpos (or
    None with an error). A difference is relative to the state's size when that exceeds 1 (a run
    that blew up alike in both engines compares as agreeing); `floor` overrides MuJoCo's own
    sensitivity (which `self_sensitivity` measures on `path`)."""
    if ref_err and our_err:
        return "both refuse", False
    if ref_err:
        return f"FINDING: MuJoCo refuses ({ref_err}), flexlab accepts", True
    if our_err:
        return f"flexlab refuses: {our_err}", not flexlab_may_refuse
    if ref.shape != ours.shape:
        return f"FINDING: nq {ours.size}, MuJoCo {ref.size}", True
    if not (np.isfinite(ref).all() and np.isfinite(ours).all()):
        bad = (int((~np.isfinite(ref)).sum()), int((~np.isfinite(ours)).sum()))
        verdict = f"non-finite qpos entries: MuJoCo {bad[0]}, flexlab {bad[1]}"
        return ("FINDING: " + verdict, True) if bad[0] != bad[1] else (verdict, False)
    size = max(1.0, float(np.abs(ref).max(initial=0.0)))
    diff = float(np.abs(ref - ours).max(initial=0.0)) / size
    measured = floor is None
    floor = (self_sensitivity(path, steps, elastic3d=elastic3d) if measured else floor) / size
    copies = 2
    if measured and diff > max(1e-9, 100 * floor):
        # beyond two moved copies: thirty more before calling it a finding
        floor = self_sensitivity(path, steps, more=30, elastic3d=elastic3d) / size
        copies = 32
    verdict = f"{diff:.1e} (MuJoCo's own sensitivity {floor:.1e}" + (
        f", {copies} moved copies)" if copies > 2 else ")")
    if size > 1e6:
        verdict += f", both at {size:.0e}"
    if diff > max(1e-9, 100 * floor):
        return "FINDING: " + verdict, True
    return verdict, False


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("base")
    ap.add_argument("cases")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--oracle", default=ORACLE)
    a = ap.parse_args()
    assert mujoco.__version__ == "3.15.0", mujoco.__version__
    base = open(a.base).read()
    cases = [("(base)", {})]
    for line in open(a.cases):
        line = line.strip()
        if line and not line.startswith("#"):
            # `SLOT attrs | SLOT attrs` fills several slots at once
            parts = [p.strip().partition(" ") for p in line.split(" | ")]
            cases.append((line, {slot: attrs for slot, _, attrs in parts}))
    findings = 0
    # the models are written to a temporary folder: {{BASEDIR}} names the base's own folder,
    # for mesh files beside it
    base = base.replace("{{BASEDIR}}", os.path.dirname(os.path.abspath(a.base)))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "case.xml")
        for label, case in cases:
            with open(path, "w") as f:
                f.write(fill(base, case))
            verdict, finding = judge(path, a.steps, *trace_both(a.oracle, path, a.steps))
            findings += finding
            print(f"{label:60s} {verdict}", flush=True)
    print(f"{len(cases)} cases, {findings} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
