# usage: python3 scripts/lessons/make-b6-skins.py lessons/b6-flex/scenes
"""Writes the coarse and fine visual skins of lessons/b6-flex/scenes/skin_chain.xml: a tube
around three 0.1 m links along x, each vertex bound to the link it lies on."""
import math, sys
def skin(rings, sides, name):
    L, r, z0 = 0.3, 0.02, 0.5
    verts, faces = [], []
    for i in range(rings):
        x = L * i / (rings - 1)
        for k in range(sides):
            a = 2 * math.pi * k / sides
            verts.append((x, r * math.sin(a), z0 + r * math.cos(a)))
    for i in range(rings - 1):
        for k in range(sides):
            a, b = i * sides + k, i * sides + (k + 1) % sides
            c, d = a + sides, b + sides
            faces += [(a, c, b), (b, c, d)]
    bones = {0: [], 1: [], 2: []}
    for vid, (x, _, _) in enumerate(verts):
        bones[min(int(x / 0.1 + 1e-9), 2)].append(vid)
    f = lambda v: " ".join(f"{c:.5g}" for c in v)
    out = ["<mujoco>", f"  <!-- visual skin: {rings} rings x {sides} vertices ({len(verts)} vertices) -->",
           "  <deformable>", f'    <skin name="{name}" rgba="0.9 0.6 0.2 1" inflate="0.002"',
           '          vertex="' + "  ".join(f(v) for v in verts) + '"',
           '          face="' + "  ".join(" ".join(map(str, t)) for t in faces) + '">']
    for b in range(3):
        ids = bones[b]
        out.append(f'      <bone body="l{b+1}" bindpos="{0.1*b:g} 0 0.5" bindquat="1 0 0 0"')
        out.append('            vertid="' + " ".join(map(str, ids)) + '" vertweight="' + " ".join("1" for _ in ids) + '"/>')
    out += ["    </skin>", "  </deformable>", "</mujoco>", ""]
    return "\n".join(out)
d = sys.argv[1]
open(f"{d}/skin_coarse.xml", "w").write(skin(4, 4, "coarse"))
open(f"{d}/skin_fine.xml", "w").write(skin(31, 16, "fine"))
