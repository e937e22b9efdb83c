#!/usr/bin/env python3
"""Looks for a slow path a student can reach by switching the integrator or the solver: a 30x30
cloth (elastic, or held by edge equality rows) and 8x8x8 tet and trilinear blocks under every
integrator and solver MuJoCo 3.15.0 accepts, flexlab beside MuJoCo natively, as
`flexlab bench` and `mujoco_native.py` measure them. Prints one line per model with the ratio
flexlab/MuJoCo (steps/s) and both engines' rows; a ratio far below 1 is a finding. Not a test.

  .venv/bin/python scripts/bench/solver-sweep.py [--steps 20] [--warmup 50] [NAME-FILTER ...]

FLEXLAB_BIN overrides the flexlab binary (default target/release/flexlab).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLOTH = """<mujoco><option timestep="0.001" integrator="{integ}" solver="{solver}"/>
<worldbody><geom type="sphere" size=".25" pos="0 0 .3"/><geom type="plane" size="2 2 .1"/>
<flexcomp name="c" type="grid" dim="2" count="30 30 1" spacing=".04 .04 .04" pos="0 0 .6"
 radius=".005" mass=".5">{body}<contact selfcollide="none" {contact}/></flexcomp>
</worldbody></mujoco>"""
BLOCK = """<mujoco><option timestep="0.001" integrator="{integ}" solver="{solver}"/>
<worldbody><geom type="plane" size="2 2 .1"/>
<flexcomp name="t" type="grid" dim="3" count="8 8 8" spacing=".03 .03 .03" pos="0 0 .3"
 radius=".002" mass="1" dof="{dof}"><elasticity young="1e5" poisson="0.3" damping="0.001"/>
<contact selfcollide="none"/></flexcomp></worldbody></mujoco>"""
ELASTIC = ('<elasticity young="5e4" poisson="0.2" thickness="1e-3" elastic2d="both" '
           'damping="0.002"/>')
EQUALITY = '<edge equality="true" damping="0.01"/>'


def cases():
    for integ in ["Euler", "RK4", "discrete"]:
        for solver in ["PGS", "CG", "Newton"]:
            yield (f"clothel_{integ}_{solver}",
                   CLOTH.format(integ=integ, solver=solver, body=ELASTIC, contact=""))
    for integ in ["Euler", "RK4", "implicit", "implicitfast", "discrete"]:
        for solver in ["PGS", "CG", "Newton"]:
            yield (f"clotheq_{integ}_{solver}",
                   CLOTH.format(integ=integ, solver=solver, body=EQUALITY, contact=""))
    for integ in ["Euler", "discrete"]:
        for solver in ["CG", "Newton"]:
            yield f"tet_{integ}_{solver}", BLOCK.format(integ=integ, solver=solver, dof="full")
            yield (f"tri_{integ}_{solver}",
                   BLOCK.format(integ=integ, solver=solver, dof="trilinear"))
    yield ("clothpassive_discrete_CG",
           CLOTH.format(integ="discrete", solver="CG", body=ELASTIC, contact='passive="true"'))


def bench(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        return None, (out.stderr.strip().splitlines() or ["failed"])[-1]
    return json.loads(lines[-1]), None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("only", nargs="*")
    a = ap.parse_args()
    flexlab = os.environ.get("FLEXLAB_BIN", str(ROOT / "target/release/flexlab"))
    native = [sys.executable, str(ROOT / "scripts/bench/mujoco_native.py")]
    counts = ["--steps", str(a.steps), "--warmup", str(a.warmup)]
    with tempfile.TemporaryDirectory() as tmp:
        for name, xml in cases():
            if a.only and not any(o in name for o in a.only):
                continue
            path = Path(tmp) / f"{name}.xml"
            path.write_text(xml)
            mj, err = bench(native + [str(path)] + counts)
            if mj is None:
                print(f"{name:28s} MuJoCo refuses it: {err[:80]}", flush=True)
                continue
            fl, err = bench([flexlab, "bench", str(path)] + counts)
            if fl is None:
                print(f"{name:28s} flexlab failed: {err[:80]}", flush=True)
                continue
            ratio = fl["steps_per_second"] / mj["steps_per_second"]
            print(f"{name:28s} flexlab/MuJoCo {ratio:6.2f}  steps/s {fl['steps_per_second']:9.1f}"
                  f" · {mj['steps_per_second']:9.1f}  nefc {fl['nefc']} · {mj['nefc']}",
                  flush=True)


if __name__ == "__main__":
    main()
