#!/usr/bin/env python3
"""The names of MuJoCo 3.15.0's numeric mjModel and mjData arrays, as JSON, for the inspector's
unit test (web/unit/inspector.test.ts checks that every array flexlab lists under mjModel or mjData
is MuJoCo's there, or is one of the inspector's declared exceptions):
  .venv/bin/python scripts/oracle/mujoco-names.py > web/unit/mujoco-names.json
Never edit the output by hand."""
import json
import sys

import mujoco
import numpy as np

m = mujoco.MjModel.from_xml_string("<mujoco><worldbody><geom size='1'/></worldbody></mujoco>")
d = mujoco.MjData(m)


def arrays(obj):
    return sorted(n for n in dir(obj) if not n.startswith("_")
                  and isinstance(getattr(obj, n), np.ndarray) and getattr(obj, n).dtype.kind in "biuf")


json.dump({"engine": f"mujoco {mujoco.__version__}", "model": arrays(m), "data": arrays(d)},
          sys.stdout, indent=0)
sys.stdout.write("\n")
