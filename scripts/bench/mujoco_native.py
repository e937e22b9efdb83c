#!/usr/bin/env python3
"""MuJoCo 3.15.0 native steps/s, measured exactly as `flexlab bench` measures flexlab.

  python3 mujoco_native.py MODEL.xml [--steps N] [--warmup W] [--repeat R]

Per run: reset (keyframe 0 if any), mj_forward, W untimed mj_step calls, then N timed mj_step
calls; R runs from the same initial state, keeping the fastest. Prints one JSON line with the
keys of `flexlab bench`: model, steps, seconds, steps_per_second, ncon, nefc, then warmup,
repeat, timestep, realtime, niter (mean solver iterations per timed step, island 0) and bad
(bad qpos/qvel/qacc warnings).
"""
import argparse
import json
import sys
import time
from pathlib import Path

import mujoco

EXPECTED = "3.15.0"
BAD = (mujoco.mjtWarning.mjWARN_BADQPOS, mujoco.mjtWarning.mjWARN_BADQVEL,
       mujoco.mjtWarning.mjWARN_BADQACC)


def run(path, steps, warmup, repeat):
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    step = mujoco.mj_step
    best = None
    bad = 0
    for _ in range(max(1, repeat)):
        mujoco.mj_resetData(m, d)
        if m.nkey > 0:
            mujoco.mj_resetDataKeyframe(m, d, 0)
        mujoco.mj_forward(m, d)
        for _ in range(warmup):
            step(m, d)
        niter = 0
        it = d.solver_niter
        t0 = time.perf_counter()
        for _ in range(steps):
            step(m, d)
            niter += int(it[0])
        seconds = time.perf_counter() - t0
        bad += sum(int(d.warning[w].number) for w in BAD)
        if best is None or seconds < best[0]:
            best = (seconds, int(d.ncon), int(d.nefc), niter / steps)
    seconds, ncon, nefc, niter = best
    sps = steps / seconds if seconds > 0 else 0.0
    return {
        "model": Path(path).stem, "steps": steps, "seconds": seconds, "steps_per_second": sps,
        "ncon": ncon, "nefc": nefc, "warmup": warmup, "repeat": repeat,
        "timestep": m.opt.timestep, "realtime": sps * m.opt.timestep, "niter": niter,
        "bad": bad, "engine": "mujoco " + mujoco.__version__,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    if mujoco.__version__ != EXPECTED:
        sys.exit(f"expected mujoco=={EXPECTED}, found {mujoco.__version__}")
    if a.steps <= 0 or a.repeat <= 0:
        sys.exit("--steps and --repeat must be positive")
    try:
        r = run(a.model, a.steps, a.warmup, a.repeat)
    except ValueError as e:  # compile errors
        sys.exit(f"mujoco: {e}")
    print(json.dumps(r))


if __name__ == "__main__":
    main()
