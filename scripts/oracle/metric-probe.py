#!/usr/bin/env python3
"""MuJoCo 3.15.0's discrete-integrator metric at one state, printed as a Python list for a
bit-for-bit comparison with flexlab's `cargo run --release -p flexlab --example metric_dump`
(same arguments, same STEPS in the environment):

  STEPS=48 .venv/bin/python scripts/oracle/metric-probe.py MODEL.xml WHAT [VECTOR_FILE]

WHAT: an mjData array (efm_c, efm_L, flexvert_hessian, flexedge_hessian, ...), or `mul`, `prec`
or `mulM` with a vector file (whitespace-separated numbers, one per dof): 3.15.0's exported
`mjd_effMulAdd` (on zeros) and `mjd_effPrec` called through ctypes, or `mj_mulM`. The state is
keyframe 0 (if any), then STEPS steps, then `mj_forward`; ELASTIC3D=FLEX=V sets that flex's
elastic3d through the spec first. Used to find the roundings where the
two engines part (a sum in another order shows as a last-bit difference here long before it
shows in a trajectory)."""
import ctypes
import glob
import os
import sys

import mujoco
import numpy as np

if os.environ.get("ELASTIC3D"):
    # as ../shared/oracle/trace.py --elastic3d: mjsFlex.elastic3d through the spec
    spec = mujoco.MjSpec.from_file(sys.argv[1])
    name, value = os.environ["ELASTIC3D"].split("=")
    next(f for f in spec.flexes if f.name == name).elastic3d = int(value)
    m = spec.compile()
else:
    m = mujoco.MjModel.from_xml_path(sys.argv[1])
d = mujoco.MjData(m)
if m.nkey:
    mujoco.mj_resetDataKeyframe(m, d, 0)
mujoco.mj_forward(m, d)
for _ in range(int(os.environ.get("STEPS", "0"))):
    mujoco.mj_step(m, d)
mujoco.mj_forward(m, d)
what = sys.argv[2]
if what in ("mul", "prec", "mulM"):
    lib = ctypes.CDLL(glob.glob(os.path.join(os.path.dirname(mujoco.__file__), "libmujoco.so*"))[0])
    v = np.array([float(x) for x in open(sys.argv[3]).read().split()])
    r = np.zeros(m.nv)
    ptr = ctypes.c_void_p
    if what == "mul":
        # 3.15.0: mjd_effMulAdd(m, d, res, vec, flg_contact)
        lib.mjd_effMulAdd(ptr(m._address), ptr(d._address), r.ctypes.data_as(ptr),
                          v.ctypes.data_as(ptr), ctypes.c_int(1))
    elif what == "prec":
        lib.mjd_effPrec(ptr(m._address), ptr(d._address), r.ctypes.data_as(ptr),
                        v.ctypes.data_as(ptr))
    else:
        mujoco.mj_mulM(m, d, r, v)
    print(repr([float(x) for x in r]))
else:
    print(repr([float(x) for x in getattr(d, what).flatten()]))
