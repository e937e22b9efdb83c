#!/usr/bin/env python3
"""Writes MuJoCo 3.15.0's compiled model, for every model flexlab's compiler tests read, as
crate/tests/compile/<set>__<name>.json (never edit those by hand; rerun this script).

Sets: "oracle" = ../shared/oracle/models, "examples" = ../shared/oracle/mujoco-examples
(MuJoCo's own model/flex examples), "ours" = crate/tests/models, "rejections" =
crate/tests/rejections (one small model per compile-time check of claims-3.15.0.md). A dump
holds the sizes, the arrays in FIELDS that the model has and the statistics (mjModel.stat), or
MuJoCo's error (first line) if it rejects it, and the warnings MuJoCo gives while compiling it
(their first lines, in order). A model whose header comment says
`spec: elastic3d FLEX=V` is compiled through the spec with that spec-only setting, as trace.py
does.

  .venv/bin/python scripts/oracle/compile-dumps.py [--oracle ../shared/oracle]
"""
import argparse
import glob
import json
import math
import os
import re
import warnings

import mujoco

SIZES = ["nq", "nv", "nu", "nbody", "njnt", "ngeom", "nsite", "nmocap", "ntendon", "nwrap", "nJfv",
         "nflex", "nflexvert", "nflexnode", "nflexedge", "nflexelem", "nflexelemdata",
         "nflexshelldata", "neq", "nkey", "nplugin", "nmesh", "nmeshvert", "nmeshface",
         "nmeshgraph", "nmeshpoly", "nmeshpolyvert", "nmeshpolymap", "nefm0dof", "nsensor",
         "nsensordata", "na", "nC", "nD", "nB", "npair", "ngravcomp"]

# Structure and every flex array the compiler and mj_setConst make.
FIELDS = """
body_parentid body_rootid body_weldid body_mocapid body_jntnum body_jntadr body_dofnum
body_dofadr body_geomnum body_geomadr body_simple body_pos body_quat body_ipos body_iquat
body_mass body_subtreemass body_inertia body_plugin jnt_actuatorid eq_objtype eq_data
jnt_type jnt_qposadr jnt_dofadr jnt_bodyid jnt_limited jnt_pos jnt_axis jnt_range jnt_stiffness
jnt_actfrclimited jnt_actfrcrange jnt_actgravcomp body_gravcomp actuator_group key_mpos key_qvel key_time tendon_limited tendon_range
actuator_actlimited
dof_bodyid dof_jntid dof_parentid dof_damping dof_armature dof_M0 dof_Madr dof_simplenum
M_rownnz M_rowadr M_colind D_rownnz D_rowadr D_diag D_colind mapM2D mapD2M B_rownnz B_rowadr B_colind
geom_type geom_bodyid geom_size geom_pos geom_quat geom_contype geom_conaffinity geom_condim
geom_friction geom_adhesion geom_dataid geom_plugin geom_aabb geom_rbound geom_matid site_bodyid site_pos site_quat site_size
cam_bodyid cam_pos cam_quat light_bodyid light_pos light_dir
mesh_vertadr mesh_vertnum mesh_faceadr mesh_facenum mesh_graphadr mesh_pos mesh_quat mesh_vert
mesh_face mesh_polynum mesh_polyadr mesh_polymapadr mesh_polymapnum
flex_dim flex_interp flex_cellnum flex_nodeadr flex_nodenum flex_vertadr flex_vertnum
flex_edgeadr flex_edgenum flex_elemadr flex_elemnum flex_elemdataadr flex_elemedgeadr
flex_shellnum flex_shelldataadr flex_nodebodyid flex_vertbodyid flex_edge flex_elem
flex_elemedge flex_elemlayer flex_shell flex_vert0 flex_node flex_node0 flexedge_length0
flexedge_invweight0 flex_radius flex_stiffnessadr flex_stiffness flex_bendingadr flex_bending
flex_damping flex_edgestiffness flex_edgedamping flex_edgeequality flex_rigid flexedge_rigid
flex_centered flex_contype flex_conaffinity flex_condim flex_selfcollide flex_activelayers
flex_passive flex_friction flex_margin flex_gap flex_solref flex_solimp flex_edgeflap
flex_vertedgeadr flex_vertedgenum flex_vertedge flex_vertmetric flexvert_J_rownnz flexvert_J_rowadr
flexvert_J_colind flexedge_J_rownnz flexedge_J_rowadr flexedge_J_colind efm0_dofid efm0_L_rownnz efm0_L_rowadr efm0_L_colind efm0_L
eq_type eq_solref eq_solimp
tendon_adr tendon_num tendon_stiffness tendon_damping tendon_lengthspring tendon_length0
tendon_invweight0
actuator_trntype actuator_trnid actuator_gear actuator_gaintype actuator_biastype
actuator_gainprm actuator_biasprm actuator_ctrllimited actuator_forcelimited
actuator_ctrlrange actuator_forcerange actuator_length0 actuator_acc0
actuator_dyntype actuator_dynprm actuator_actadr actuator_actnum actuator_actlimited
actuator_actrange actuator_actearly key_act
key_qpos key_ctrl key_mquat
sensor_type sensor_datatype sensor_needstage sensor_objtype sensor_objid sensor_reftype
sensor_refid sensor_dim sensor_adr sensor_cutoff sensor_noise
pair_dim pair_geom1 pair_geom2 pair_signature pair_solref pair_solreffriction pair_solimp
pair_margin pair_gap pair_adhesion pair_friction
""".split()

# mjModel.stat (mj_setConst's statistics, or <statistic>'s values where the model sets them).
STAT = ["meaninertia", "meanmass", "meansize", "extent"]

# Arrays left out of a dump when longer than BIG_LIMIT values, to keep the dumps small.
BIG_FIELDS = {"mesh_vert", "mesh_face", "efm0_L", "efm0_L_colind"}
BIG_LIMIT = 30000


# MuJoCo caches mesh assets by file name within a process, and this script compiles every
# model in one: a second model that reads the same mesh file with other processing (seen with
# refquat) gets the first one's mesh. Give such a test model its own mesh file.
def compile_model(path):
    settings = re.findall(r"spec: elastic3d (\S+)=(-?\d+)", open(path).read())
    if not settings:
        return mujoco.MjModel.from_xml_path(path)
    spec = mujoco.MjSpec.from_file(path)
    for name, value in settings:
        next(f for f in spec.flexes if f.name == name).elastic3d = int(value)
    return spec.compile()


def compile_warnings(path):
    """First lines of the warnings MuJoCo gives while compiling `path`. The spec's compile
    passes them to Python's warnings (from_xml_path prints them instead)."""
    settings = re.findall(r"spec: elastic3d (\S+)=(-?\d+)", open(path).read())
    spec = mujoco.MjSpec.from_file(path)
    for name, value in settings:
        next(f for f in spec.flexes if f.name == name).elastic3d = int(value)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spec.compile()
    return [str(w.message).splitlines()[0] for w in caught]


def number(x):
    """A float for JSON, which has no infinities or NaN: those become "inf", "-inf", "nan"."""
    x = float(x)
    if math.isfinite(x):
        return x
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def dump(path):
    try:
        m = compile_model(path)
    except Exception as e:  # MuJoCo's compile error: its first line is the message
        return {"ok": False, "error": str(e).splitlines()[0]}
    out = {"ok": True, "sizes": {s: int(getattr(m, s)) for s in SIZES}, "fields": {}}
    out["warnings"] = compile_warnings(path)
    # mjStatistic: meaninertia scales the solver's tolerance; the others frame the camera
    out["stat"] = {k: number(getattr(m.stat, k)) for k in STAT}
    out["stat"]["center"] = [number(x) for x in m.stat.center]
    for f in FIELDS:
        if not hasattr(m, f):
            continue
        a = getattr(m, f).ravel()
        if f in BIG_FIELDS and a.size > BIG_LIMIT:
            continue  # e.g. an SDF's marching-cubes mesh: the sizes and frames stay checked
        out["fields"][f] = [int(x) for x in a] if a.dtype.kind in "iub" else [number(x) for x in a]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default="../shared/oracle")
    args = ap.parse_args()
    root = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
    sets = {
        "oracle": os.path.join(args.oracle, "models"),
        "examples": os.path.join(args.oracle, "mujoco-examples"),
        "ours": os.path.join(root, "crate", "tests", "models"),
        "rejections": os.path.join(root, "crate", "tests", "rejections"),
    }
    outdir = os.path.join(root, "crate", "tests", "compile")
    os.makedirs(outdir, exist_ok=True)
    assert mujoco.__version__ == "3.15.0", mujoco.__version__
    for name, d in sets.items():
        for path in sorted(glob.glob(os.path.join(d, "*.xml"))):
            stem = os.path.splitext(os.path.basename(path))[0]
            res = dump(path)
            res = {"engine": "mujoco " + mujoco.__version__, "set": name, "model": stem, **res}
            with open(os.path.join(outdir, f"{name}__{stem}.json"), "w") as f:
                json.dump(res, f, separators=(",", ":"))
            print(f"{name}/{stem}: {'ok' if res['ok'] else 'rejected: ' + res['error']}")


if __name__ == "__main__":
    main()
