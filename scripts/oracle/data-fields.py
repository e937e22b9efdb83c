#!/usr/bin/env python3
"""MuJoCo 3.15.0's mjData arrays at one of its states, as JSON, for crate/tests/data_fields.rs:
  .venv/bin/python scripts/oracle/data-fields.py MODEL.xml STEPS [DATA_RS] > NAME.json
Runs STEPS steps of MuJoCo (from keyframe 0 if any), then mj_forward, and writes the state the
next step starts from (qpos, qvel, qacc_warmstart), whether MuJoCo keeps efc_J sparse
(`mj_isSparse`), its island count, and every numeric array of mjData as the Python bindings give it
(constraint arrays trimmed to nefc rows, efc_J as nefc x nv when dense). With DATA_RS (flexlab's
crate/core/src/data.rs), only the arrays flexlab's `DataArrays` names, and each of them must exist
in MuJoCo. The test loads the state into flexlab, runs forward, and compares each array flexlab
names with MuJoCo's of that name."""
import json
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
state = {k: getattr(d, k).tolist() for k in ("qpos", "qvel", "qacc_warmstart")}
mujoco.mj_forward(m, d)
names = None
if len(sys.argv) > 3:
    # the array declarations of flexlab's data macro: `    name: f64[cols],`
    text = open(sys.argv[3]).read()
    names = set(re.findall(r"^\s+([A-Za-z_0-9]+): (?:f64|i32|u8)\[\d+\],$", text, re.M))
    if not names:
        sys.exit(f"no array declarations found in {sys.argv[3]}")
    missing = sorted(n for n in names if not hasattr(d, n))
    if missing:
        sys.exit(f"flexlab names arrays MuJoCo's mjData does not have: {missing}")
fields = {}
for name in dir(d):
    if name.startswith("_") or (names is not None and name not in names):
        continue
    v = getattr(d, name)
    if isinstance(v, np.ndarray) and v.dtype.kind in "biuf":
        fields[name] = [float(x) for x in v.ravel()]
out = {
    "format": "flexlab-data-fields/1",
    "engine": f"mujoco {mujoco.__version__}",
    "steps": int(sys.argv[2]),
    "state": state,
    "sparse": bool(mujoco.mj_isSparse(m)),
    "nisland": int(d.nisland),
    "nefc": int(d.nefc),
    "fields": fields,
}
json.dump(out, sys.stdout, separators=(",", ":"))
