"""Loads every lesson scene in real MuJoCo 3.15.0 (with each value of its include/choice
parameters that swap files), so no scene of a lesson is flexlab-only.

usage: .venv/bin/python scripts/lessons/verify-mujoco.py lessons/
"""
import pathlib, sys, tomllib, re
import mujoco

assert mujoco.__version__ == "3.15.0", mujoco.__version__
root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "lessons")
bad = 0
for scenes in sorted(root.glob("*/scenes.toml")):
    lesson = scenes.parent
    for s in tomllib.loads(scenes.read_text())["scene"]:
        path = lesson / s["file"]
        variants = [path.read_text()]
        for p in s.get("param", []):
            if p["target"] == "include@file":
                variants = [re.sub(r'<include file="[^"]*"', f'<include file="{c}"', v)
                            for v in variants for c in p["choices"]]
        for i, xml in enumerate(variants):
            tmp = path.parent / f".verify-{i}.xml"
            tmp.write_text(xml)
            try:
                m = mujoco.MjModel.from_xml_path(str(tmp))
                print(f"ok   {s['id']} ({path.name} #{i}): nv={m.nv} nflexvert={m.nflexvert}")
            except Exception as e:
                bad += 1
                print(f"FAIL {s['id']} ({path.name} #{i}): {e}")
            finally:
                tmp.unlink()
print(f"{bad} failed")
sys.exit(1 if bad else 0)
