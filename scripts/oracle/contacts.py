"""MuJoCo 3.15.0's contact list after STEPS steps, one line per contact, in the format of
flexlab's `cargo run --release --example contact_dump -- MODEL.xml STEPS`, for diffing:
  .venv/bin/python scripts/oracle/contacts.py MODEL.xml STEPS [STATE]
With STATE, also writes MuJoCo's qpos and qvel there (one number a line, qpos first), which
`contact_dump MODEL.xml 0 STATE` loads, so the two collide the very same configuration."""
import os
import re
import sys

import mujoco

m = mujoco.MjModel.from_xml_path(sys.argv[1])
d = mujoco.MjData(m)
if m.nkey > 0:
    mujoco.mj_resetDataKeyframe(m, d, 0)
for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 0):
    mujoco.mj_step(m, d)
mujoco.mj_forward(m, d)
if len(sys.argv) > 3:
    with open(sys.argv[3], "w") as out:
        out.writelines(f"{float(x)!r}\n" for x in list(d.qpos) + list(d.qvel))


DIGITS = int(os.environ.get("DIGITS", "12"))


def e(x):
    """Rust's `{:.12e}` (DIGITS digits): no '+' and no leading zeros in the exponent."""
    m, x = f"{x:.{DIGITS}e}".split("e")
    return f"{m}e{int(x)}"


f = lambda v: " ".join(e(x) for x in v)
for c in d.contact[: d.ncon]:
    print(
        f"geom {c.geom[0]} {c.geom[1]} flex {c.flex[0]} {c.flex[1]} elem {c.elem[0]} {c.elem[1]} "
        f"vert {c.vert[0]} {c.vert[1]} dist {e(c.dist)} pos {f(c.pos)} normal {f(c.frame[:3])}"
    )
