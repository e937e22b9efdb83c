#!/usr/bin/env python3
"""MuJoCo 3.15.0's mjModel and mjData arrays at one of its states, as JSON, for
crate/tests/data_fields.rs:
  .venv/bin/python scripts/oracle/data-fields.py MODEL.xml STEPS [CORE_SRC] > NAME.json
Runs STEPS steps of MuJoCo (from keyframe 0 if any), then mj_forward, and writes the state the
next step starts from (qpos, qvel, qacc_warmstart), whether MuJoCo keeps efc_J sparse
(`mj_isSparse`), its island count, every numeric array of mjModel ("model") and every one of
mjData ("fields") as the Python bindings give them (constraint arrays trimmed to nefc rows, efc_J
as nefc x nv when dense). With CORE_SRC (flexlab's crate/core/src), only the arrays flexlab's
`Model` and `DataArrays` name (from model.rs and data.rs); each data array must exist in mjData,
and the model arrays MuJoCo's mjModel lacks are left out (the inspector lists those apart). The
test loads the state into flexlab, runs forward, and compares each array with MuJoCo's of that
name."""
import json
import os
import re
import sys

import mujoco
import numpy as np

m = mujoco.MjModel.from_xml_path(sys.argv[1])
d = mujoco.MjData(m)
if m.nkey > 0:
    mujoco.mj_resetDataKeyframe(m, d, 0)
mujoco.mj_forward(m, d)
for _ in range(int(sys.argv[2])):
    mujoco.mj_step(m, d)
state = {k: getattr(d, k).tolist() for k in ("qpos", "qvel", "act", "qacc_warmstart")}
state["time"] = d.time  # the clock sensor reads it
mujoco.mj_forward(m, d)


def declared(path):
    """The array declarations of one of flexlab's field macros: `    name: f64[cols],`."""
    found = set(re.findall(r"^\s+([A-Za-z_0-9]+): (?:f64|f32|i32|u8)\[\d+\],$",
                           open(path).read(), re.M))
    if not found:
        sys.exit(f"no array declarations found in {path}")
    return found


def arrays(obj, names):
    out = {}
    for name in dir(obj):
        if name.startswith("_") or (names is not None and name not in names):
            continue
        v = getattr(obj, name)
        if isinstance(v, np.ndarray) and v.dtype.kind in "biuf":
            out[name] = [float(x) for x in v.ravel()]
    return out


model_names = data_names = None
if len(sys.argv) > 3:
    model_names = declared(os.path.join(sys.argv[3], "model.rs"))
    data_names = declared(os.path.join(sys.argv[3], "data.rs"))
    missing = sorted(n for n in data_names if not hasattr(d, n))
    if missing:
        sys.exit(f"flexlab names mjData arrays MuJoCo does not have: {missing}")
out = {
    "format": "flexlab-data-fields/1",
    "engine": f"mujoco {mujoco.__version__}",
    "steps": int(sys.argv[2]),
    "state": state,
    "sparse": bool(mujoco.mj_isSparse(m)),
    "nisland": int(d.nisland),
    "nefc": int(d.nefc),
    "model": arrays(m, model_names),
    "fields": arrays(d, data_names),
}
json.dump(out, sys.stdout, separators=(",", ":"))
