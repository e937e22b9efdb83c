#!/usr/bin/env python3
"""The open box–flex finding of random scene 51098 (`random-scenes.py --adhesion --articulated`),
measured: the figures README gives for it come from this script.

At the first RK4 stage of step 82, a static body's box (margin 0.01) and the vertex of a pinned
cloth beside the box's edge are within the margin by mjraw_BoxTriangle's face test but not in
truth. The script prints
- both engines' contact counts from that state (MuJoCo 3.15.0 and flexlab's contact_dump);
- the vertex's face distance and its true distance to the box;
- the smallest geom margin at which MuJoCo keeps the pair's contacts (bisection);
- how far apart the 3.12 source's broad phase puts the box's body and the cloth;
- whether MuJoCo collides the same box with each of the vertex's triangles alone.

  .venv/bin/python scripts/oracle/box-flex-filter-probe.py

Needs the venv of make-references.sh and target/release/examples/contact_dump
(cargo build --release -p flexlab --examples).
"""
import importlib.util
import os
import random
import subprocess
import tempfile

import mujoco
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
_spec = importlib.util.spec_from_file_location("random_scenes", os.path.join(HERE, "random-scenes.py"))
rs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rs)

SEED, STEP, STAGE, BOX, FLEX, VERT = 51098, 81, 1, 2, 1, 5


def scene_xml():
    scene = rs.Scene(random.Random(SEED), adhesion_rng=random.Random(SEED + 3 * 10**7))
    return scene.xml(None, random.Random(SEED + 2 * 10**7))


def stage_state(m):
    """qpos and qvel of RK4 stage STAGE of step STEP + 1 (the control callback runs once in
    each of the step's forward passes)."""
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    for _ in range(STEP):
        mujoco.mj_step(m, d)
    states = []
    mujoco.set_mjcb_control(lambda m, d: states.append((d.qpos.copy(), d.qvel.copy())))
    try:
        mujoco.mj_step(m, d)
    finally:
        mujoco.set_mjcb_control(None)
    return states[STAGE]


def pair_contacts(m, q, v, margin):
    m.geom_margin[BOX] = margin
    d = mujoco.MjData(m)
    d.qpos[:], d.qvel[:] = q, v
    mujoco.mj_forward(m, d)
    return d, [c for c in d.contact[: d.ncon] if c.geom[0] == BOX and c.flex[1] == FLEX]


def broadphase_gap(m, d, margin):
    """The 3.12 source's broad phase for the box's body and the cloth (mj_broadphase's
    covariance frame from mju_eig3, makeAAMM's boxes): per axis, how far apart the two boxes are
    (negative: they overlap there)."""
    pts = [d.geom_xpos[g] for g in range(m.ngeom) if m.geom_bodyid[g]]
    pts += [d.flexvert_xpos[i] for i in range(m.nflexvert) if m.flex_vertbodyid[i]]
    pts = np.array(pts)
    cen = pts.mean(0)
    cov = (pts - cen).T @ (pts - cen) / len(pts)
    val, vec, quat = np.zeros(3), np.zeros(9), np.zeros(4)
    mujoco.mju_eig3(val, vec, quat, cov.ravel())
    frame = vec.reshape(3, 3)
    b = m.geom_bodyid[BOX]
    lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
    for g in range(m.body_geomadr[b], m.body_geomadr[b] + m.body_geomnum[b]):
        aabb, xmat, xpos = m.geom_aabb[g], d.geom_xmat[g].reshape(3, 3), d.geom_xpos[g]
        pos = xmat @ aabb[:3] + xpos
        for j in range(3):
            half = sum(abs(aabb[3 + k] * (xmat[:, k] @ frame[j])) for k in range(3))
            r = m.geom_rbound[g]
            lo[j] = min(lo[j], max(xpos @ frame[j] - r, pos @ frame[j] - half) - margin)
            hi[j] = max(hi[j], min(xpos @ frame[j] + r, pos @ frame[j] + half) + margin)
    verts = d.flexvert_xpos[m.flex_vertadr[FLEX] : m.flex_vertadr[FLEX] + m.flex_vertnum[FLEX]]
    bound = m.flex_radius[FLEX] + m.flex_margin[FLEX] + m.flex_gap[FLEX]
    vlo, vhi = (verts @ frame.T).min(0) - bound, (verts @ frame.T).max(0) + bound
    return [float(max(lo[j] - vhi[j], vlo[j] - hi[j])) for j in range(3)]


def num(xs):
    return " ".join(repr(float(x)) for x in xs)


def triangle_alone(m, d, elem, margin):
    adr = m.flex_elemdataadr[FLEX] + 3 * elem
    verts = d.flexvert_xpos[m.flex_vertadr[FLEX] + m.flex_elem[adr : adr + 3]]
    pos, size = d.geom_xpos[BOX], m.geom_size[BOX]
    xml = f"""<mujoco><option gravity="0 0 0"/><worldbody>
<body pos="{num(pos)}"><geom type="box" size="{num(size)}"
 margin="{margin}"/></body>
<flexcomp name="t" type="direct" dim="2" point="{num(verts.ravel())}"
 element="0 1 2" radius="{m.flex_radius[FLEX]}" mass="0.01"><contact selfcollide="none"/>
 <edge equality="false"/></flexcomp></worldbody></mujoco>"""
    mt = mujoco.MjModel.from_xml_string(xml)
    dt = mujoco.MjData(mt)
    mujoco.mj_forward(mt, dt)
    return dt.ncon


def main():
    assert mujoco.__version__ == "3.15.0", mujoco.__version__
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "scene.xml")
        with open(path, "w") as f:
            f.write(scene_xml())
        m = mujoco.MjModel.from_xml_path(path)
        q, v = stage_state(m)
        state = os.path.join(tmp, "state")
        with open(state, "w") as f:
            f.writelines(f"{float(x)!r}\n" for x in list(q) + list(v))
        margin = float(m.geom_margin[BOX])
        d, ours_pair = pair_contacts(m, q, v, margin)
        dump = os.path.join(ROOT, "target", "release", "examples", "contact_dump")
        out = subprocess.run([dump, path, "0", state], capture_output=True, text=True, check=True)
        lines = out.stdout.splitlines()
        flexlab_pair = [l for l in lines if l.startswith(f"geom {BOX} -1 flex -1 {FLEX} ")]
        print(f"contacts at the stage's state: MuJoCo {d.ncon}, flexlab {len(lines)}")
        print(f"box-cloth contacts: MuJoCo {len(ours_pair)}, flexlab {len(flexlab_pair)}")

        p = d.flexvert_xpos[m.flex_vertadr[FLEX] + VERT]
        local = d.geom_xmat[BOX].reshape(3, 3).T @ (p - d.geom_xpos[BOX])
        out = np.abs(local) - m.geom_size[BOX]
        rt = m.flex_radius[FLEX]
        print(f"vertex {VERT}: face distance {out.max() - rt:.7f}, "
              f"true distance {np.linalg.norm(np.maximum(out, 0)) - rt:.7f} (margin {margin})")

        lo, hi = margin, 2 * margin
        for _ in range(50):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if pair_contacts(m, q, v, mid)[1] else (mid, hi)
        print(f"MuJoCo keeps the pair's contacts from a geom margin of {hi:.7f}")

        d, _ = pair_contacts(m, q, v, margin)
        gap = ", ".join(f"{x:.4f}" for x in broadphase_gap(m, d, margin))
        print(f"3.12 broad phase, box body against cloth, gap per axis (negative: overlap): {gap}")
        adr = m.flex_elemdataadr[FLEX]
        elems = [e for e in range(m.flex_elemnum[FLEX]) if VERT in m.flex_elem[adr + 3 * e : adr + 3 * e + 3]]
        alone = {e: triangle_alone(m, d, e, margin) for e in elems}
        print(f"each of the vertex's triangles alone against the box (contacts): {alone}")


if __name__ == "__main__":
    main()
