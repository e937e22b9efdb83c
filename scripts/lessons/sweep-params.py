#!/usr/bin/env python3
"""Every value a student can give a lesson scene's parameters, run by MuJoCo 3.15.0 and by
flexlab: what the player shows for each choice, each bool and each number range end must be what
MuJoCo computes (or both must refuse the model).

One parameter is set at a time, the others keep their defaults, as a student changing one
control would. The scene is traced by both engines (300 steps by default) and judged by
scripts/oracle/attr-sweep.py's `judge`: worst qpos difference (relative to the state's size
when that exceeds 1) beside MuJoCo's own sensitivity, a refusal by one engine only (flexlab
refusing counts here: a lesson scene must run), or a run that ends non-finite in one engine
only.

Lesson B6 has no known finding (the last, ramp-cloth with passive=true, was box–triangle contacts
past the ramp's edge that MuJoCo's midphase leaves out: the cloth_box_edge references).

  .venv/bin/python scripts/lessons/sweep-params.py lessons/ [--steps 300]

Needs target/release/flexlab and the venv of scripts/oracle/make-references.sh.
"""
import argparse
import importlib.util
import os
import pathlib
import re
import sys
import tempfile
import tomllib
import xml.etree.ElementTree as ET

HERE = pathlib.Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("attr_sweep", HERE.parent / "oracle" / "attr-sweep.py")
sweep = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sweep)

STEP = re.compile(r"^(\w+)(?:\[@(\w+)='([^']*)'\])?$")


def apply(xml, target, value):
    """The model text with `target` (scenes.toml's path, ending in @attribute) set to `value`;
    an empty value removes the attribute, as the player does."""
    path, _, attr = target.rpartition("@")
    root = ET.fromstring(xml)
    selected = [root]
    for k, step in enumerate(path.split("/")):
        tag, fattr, fval = STEP.match(step).groups()
        found = []
        for e in selected:
            for c in (e.iter(tag) if k == 0 else e.findall(tag)):
                if c is not root and (fattr is None or c.get(fattr) == fval):
                    found.append(c)
        selected = found
    for e in selected:
        if value == "":
            e.attrib.pop(attr, None)
        else:
            e.set(attr, value)
    return ET.tostring(root, encoding="unicode")


def values(p):
    """The values a student can give parameter `p`."""
    if p["kind"] == "choice":
        return [str(c) for c in p["choices"]]
    if p["kind"] == "bool":
        return [p.get("on", "true"), p.get("off", "false")]
    return [repr(float(p[k])) for k in ("min", "max") if k in p]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lessons", nargs="?", default="lessons")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--oracle", default=sweep.ORACLE)
    a = ap.parse_args()
    cases = findings = 0
    for scenes in sorted(pathlib.Path(a.lessons).glob("*/scenes.toml")):
        for s in tomllib.loads(scenes.read_text())["scene"]:
            path = scenes.parent / s["file"]
            text = path.read_text()
            runs = [("(defaults)", text, [])]
            for p in s.get("param", []):
                for v in values(p):
                    label = f"{p['name']}={v}"
                    if p["target"].startswith("spec:elastic3d:"):
                        flex = p["target"].split(":")[2]
                        on = v == p.get("on", "true")
                        runs.append((label, text, ["--elastic3d", f"{flex}=1"] if on else []))
                    elif p["target"] == "include@file":
                        runs.append((label, re.sub(r'<include file="[^"]*"', f'<include file="{v}"', text), []))
                    else:
                        runs.append((label, apply(text, p["target"], v), []))
            for label, xml, extra in runs:
                # beside the scene file, so its includes and meshes resolve
                fd, tmp = tempfile.mkstemp(suffix=".xml", prefix=".sweep-", dir=path.parent)
                with os.fdopen(fd, "w") as f:
                    f.write(xml)
                try:
                    # a lesson scene must run: flexlab refusing a value MuJoCo takes is a
                    # finding; SNH goes through the spec, which self_sensitivity cannot apply
                    verdict, finding = sweep.judge(
                        tmp, a.steps, *sweep.trace_both(a.oracle, tmp, a.steps, extra),
                        flexlab_may_refuse=False, floor=0.0 if extra else None,
                    )
                finally:
                    os.unlink(tmp)
                cases += 1
                findings += finding
                print(f"{s['id']:20s} {label:34s} {verdict}", flush=True)
    print(f"{cases} runs, {findings} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
