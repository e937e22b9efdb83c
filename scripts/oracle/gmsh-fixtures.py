#!/usr/bin/env python3
"""Writes the GMSH test files of `<flexcomp type="gmsh">` and the models that load them.

    python3 scripts/oracle/gmsh-fixtures.py

Valid files (crate/tests/models/gmsh_*.msh, with the models gmsh_*.xml there) in every
layout MuJoCo 3.15.0 reads: 4.1 ASCII and binary, 2.2 ASCII (with CRLF line ends) and binary
(as gmsh writes it, and as fTetWild does), for lines, triangles and tetrahedra. Broken files
(crate/tests/rejections/gmsh_*.msh and .xml), one per check of MuJoCo's reader. Run
compile-dumps.py and make-references.sh afterwards: the expected results come from MuJoCo,
not from this script.
"""
import os
import random
import struct

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODELS = os.path.join(ROOT, "crate", "tests", "models")
REJECT = os.path.join(ROOT, "crate", "tests", "rejections")


def jittered_grid(n, spacing, jitter, seed):
    """Points of an n[0] x n[1] x n[2] grid (x slowest), each moved by up to `jitter`."""
    rng = random.Random(seed)
    pts = []
    for i in range(n[0]):
        for j in range(n[1]):
            for k in range(n[2]):
                p = [i * spacing, j * spacing, k * spacing]
                pts.append([round(c + rng.uniform(-jitter, jitter), 6) for c in p])
    return pts


def block_tets(n, flip_every=3):
    """Six tets per cell; every `flip_every`-th listed with the other orientation."""
    idx = lambda i, j, k: (i * n[1] + j) * n[2] + k
    corners = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
    tets = []
    for i in range(n[0] - 1):
        for j in range(n[1] - 1):
            for k in range(n[2] - 1):
                c = [idx(i + a, j + b, k + d) for a, b, d in corners]
                for t in ([0, 3, 1, 7], [0, 1, 4, 7], [1, 3, 2, 7], [1, 2, 6, 7], [1, 5, 4, 7], [1, 6, 5, 7]):
                    tet = [c[q] for q in t]
                    if len(tets) % flip_every == 0:
                        tet[1], tet[2] = tet[2], tet[1]
                    tets.append(tet)
    return tets


def sheet(n, spacing, jitter, seed):
    rng = random.Random(seed)
    pts = [[round(i * spacing + rng.uniform(-jitter, jitter), 6),
            round(j * spacing + rng.uniform(-jitter, jitter), 6), 0.0]
           for i in range(n) for j in range(n)]
    tris = []
    for i in range(n - 1):
        for j in range(n - 1):
            a, b, c, d = i * n + j, (i + 1) * n + j, (i + 1) * n + j + 1, i * n + j + 1
            tris += [[a, b, c], [a, c, d]] if (i + j) % 2 == 0 else [[a, b, d], [b, c, d]]
    return pts, tris


def ascii41(pts, elems, dim, nl="\n"):
    etype = {1: 1, 2: 2, 3: 4}[dim]
    n, m = len(pts), len(elems)
    lines = ["$MeshFormat", "4.1 0 8", "$EndMeshFormat", "$Nodes", f"1 {n} 1 {n}", f"{dim} 1 0 {n}"]
    lines += [str(i + 1) for i in range(n)]
    lines += [" ".join(repr(c) for c in p) for p in pts]
    lines += ["$EndNodes", "$Elements", f"1 {m} 1 {m}", f"{dim} 1 {etype} {m}"]
    lines += [" ".join(str(x) for x in [e + 1] + [v + 1 for v in el]) for e, el in enumerate(elems)]
    lines += ["$EndElements"]
    return (nl.join(lines) + nl).encode()


def binary41(pts, elems, dim):
    etype = {1: 1, 2: 2, 3: 4}[dim]
    n, m = len(pts), len(elems)
    out = b"$MeshFormat\n4.1 1 8\n" + struct.pack("<i", 1) + b"\n$EndMeshFormat\n$Nodes\n"
    out += struct.pack("<QQQQiiiQ", 1, n, 1, n, dim, 1, 0, n)
    out += b"".join(struct.pack("<Q", i + 1) for i in range(n))
    out += b"".join(struct.pack("<ddd", *p) for p in pts)
    out += b"\n$EndNodes\n$Elements\n"
    out += struct.pack("<QQQQiiiQ", 1, m, 1, m, dim, 1, etype, m)
    for e, el in enumerate(elems):
        out += struct.pack("<Q", e + 1) + b"".join(struct.pack("<Q", v + 1) for v in el)
    return out + b"\n$EndElements\n"


def ascii22(pts, elems, nl="\n"):
    etype = {3: 2, 4: 4}[len(elems[0])]
    lines = ["$MeshFormat", "2.2 0 8", "$EndMeshFormat", "$Nodes", str(len(pts))]
    lines += [f"{i + 1} " + " ".join(repr(c) for c in p) for i, p in enumerate(pts)]
    lines += ["$EndNodes", "$Elements", str(len(elems))]
    lines += [f"{e + 1} {etype} 2 0 1 " + " ".join(str(v + 1) for v in el) for e, el in enumerate(elems)]
    lines += ["$EndElements"]
    return (nl.join(lines) + nl).encode()


def binary22(pts, elems, ftetwild=False, count_digits=0):
    """As gmsh writes it (each element: type, 1, 2 tags, number, 2 tags, nodes), or as
    fTetWild does (no tags). MuJoCo's size checks assume a section header (the count and its
    line feed) of at least 4 bytes (nodes) or 5 bytes (fTetWild's elements): `count_digits`
    writes the element count with leading zeros to that width."""
    etype = {3: 2, 4: 4}[len(elems[0])]
    out = b"$MeshFormat\n2.2 1 8\n" + struct.pack("<i", 1) + b"\n$EndMeshFormat\n$Nodes\n"
    out += f"{len(pts)}\n".encode()
    out += b"".join(struct.pack("<iddd", i + 1, *p) for i, p in enumerate(pts))
    out += b"\n$EndNodes\n$Elements\n" + f"{len(elems):0{count_digits}d}\n".encode()
    if ftetwild:
        out += struct.pack("<iii", etype, len(elems), 0)
        for e, el in enumerate(elems):
            out += struct.pack("<i", e + 1) + b"".join(struct.pack("<i", v + 1) for v in el)
    else:
        for e, el in enumerate(elems):
            out += struct.pack("<iiiiii", etype, 1, 2, e + 1, 0, 1)
            out += b"".join(struct.pack("<i", v + 1) for v in el)
    return out + b"\n$EndElements\n"


def drop_last_number(text, section_end):
    """The text without the last number before `section_end` (a truncated last line)."""
    head, tail = text.split("\n" + section_end, 1)
    return head.rsplit(" ", 1)[0] + "\n" + section_end + tail


MODEL = """<mujoco model="{name}">
  <!-- {comment} Written by scripts/oracle/gmsh-fixtures.py. -->
  <option timestep="{dt}"{option}/>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 .1"/>
    <body name="holder" pos="0 0 {z}">
      <flexcomp name="{flex}" type="gmsh" file="{file}" {attrs}>
{children}      </flexcomp>
    </body>
  </worldbody>
</mujoco>
"""


def write(path, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path, mode) as f:
        f.write(data)


def main():
    n = [4, 3, 3]
    block = jittered_grid(n, 1.0, 0.15, seed=41)
    tets = block_tets(n)
    sheet_pts, tris = sheet(6, 1.0, 0.2, seed=22)
    line_pts = [[round(0.1 * i, 6), 0.0, round(0.01 * (i % 2), 6)] for i in range(12)]
    lines = [[i, i + 1] for i in range(11)]

    write(os.path.join(MODELS, "gmsh_block41.msh"), ascii41(block, tets, 3))
    write(os.path.join(MODELS, "gmsh_block41_binary.msh"), binary41(block, tets, 3))
    write(os.path.join(MODELS, "gmsh_sheet22.msh"), ascii22(sheet_pts, tris, nl="\r\n"))
    write(os.path.join(MODELS, "gmsh_sheet22_binary.msh"), binary22(sheet_pts, tris))
    write(os.path.join(MODELS, "gmsh_line41.msh"), ascii41(line_pts, lines, 1))
    cube = jittered_grid([3, 3, 3], 1.0, 0.1, seed=7)
    write(os.path.join(MODELS, "gmsh_ftetwild.msh"),
          binary22(cube, block_tets([3, 3, 3]), ftetwild=True, count_digits=4))

    elastic3 = '        <elasticity young="2e4" poisson="0.3" damping="0.002"/>\n'
    models = {
        "gmsh_block_drop": dict(
            comment="A jittered tet block from a GMSH 4.1 ASCII file, scaled, turned and dropped on the floor.",
            dt="0.002", option=' integrator="discrete"', z=".3", flex="block", file="gmsh_block41.msh",
            attrs='scale=".05 .05 .05" euler="10 20 30" mass=".4" radius=".004" dim="3"',
            children=elastic3),
        "gmsh_block_binary": dict(
            comment="The same block from the GMSH 4.1 binary file, one face pinned, discrete integrator.",
            dt="0.002", option=' integrator="discrete"', z=".3", flex="block", file="gmsh_block41_binary.msh",
            attrs='scale=".05 .05 .05" mass=".4" radius=".004"',
            children=elastic3 + '        <pin id="0 1 2 3 4 5 6 7 8"/>\n'),
        "gmsh_sheet": dict(
            comment="A triangle sheet from a GMSH 2.2 ASCII file with CRLF line ends, two corners pinned.",
            dt="0.002", option=' integrator="discrete"', z=".4", flex="sheet", file="gmsh_sheet22.msh",
            attrs='scale=".06 .06 .06" mass=".2" radius=".005"',
            children='        <elasticity young="5e3" poisson="0.2" thickness="2e-3" elastic2d="both"/>\n'
                     '        <pin id="0 5"/>\n'),
        "gmsh_sheet_binary": dict(
            comment="The same sheet from the GMSH 2.2 binary file as gmsh writes it, falling flat on the floor.",
            dt="0.002", option="", z=".2", flex="sheet", file="gmsh_sheet22_binary.msh",
            attrs='scale=".06 .06 .06" mass=".2" radius=".005"',
            children='        <elasticity young="5e3" poisson="0.2" thickness="2e-3"/>\n'),
        "gmsh_cable": dict(
            comment="A cable of line elements from a GMSH 4.1 ASCII file (dim 1), one end pinned.",
            dt="0.001", option="", z=".5", flex="cable", file="gmsh_line41.msh",
            attrs='mass=".05" radius=".005"',
            children='        <edge stiffness="200" damping=".02"/>\n        <pin id="0"/>\n'),
        "gmsh_ftetwild": dict(
            comment="Tets from a GMSH 2.2 binary file as fTetWild writes it (no element tags).",
            dt="0.002", option=' integrator="discrete" solver="CG"', z=".2", flex="tets", file="gmsh_ftetwild.msh",
            attrs='scale=".05 .05 .05" mass=".1" radius=".004"',
            children=elastic3),
    }
    for name, kw in models.items():
        write(os.path.join(MODELS, name + ".xml"), MODEL.format(name=name, **kw))

    # broken files: each trips one check of MuJoCo's reader (or the flexcomp's element check)
    good41 = ascii41(block, tets, 3).decode()
    good22 = ascii22(sheet_pts, tris).decode()
    bad = {
        "gmsh_version30": good41.replace("4.1 0 8", "3.0 0 8"),
        "gmsh_no_format": good41.replace("$MeshFormat", "$Mesh_Format", 1),
        "gmsh_no_endnodes": good41.replace("$EndNodes", "$Endnodes"),
        "gmsh_no_endelements": good41.replace("$EndElements", "$EndElement"),
        "gmsh_two_blocks": good41.replace("1 36 1 36", "2 36 1 36", 1),
        "gmsh_maxtag": good41.replace("1 36 1 36", "1 36 1 40", 1),
        "gmsh_tags_gap": good41.replace("\n5\n6\n", "\n5\n7\n", 1),
        "gmsh_entity_dim": good41.replace("3 1 0 36", "4 1 0 36", 1),
        "gmsh_dim_mismatch": good41.replace("3 1 4 72", "2 1 4 72", 1),
        "gmsh_type_mismatch": good41.replace("3 1 4 72", "3 1 5 72", 1),
        "gmsh_short_coords": drop_last_number(good41, "$EndNodes"),
        "gmsh_short_elements": drop_last_number(good41, "$EndElements"),
        "gmsh_element_range": good41.replace("\n1 1 ", "\n1 99 ", 1),
        "gmsh22_quads": good22.replace(" 2 2 0 1 ", " 3 2 0 1 "),
        "gmsh22_node_tag": good22.replace("\n1 2 2 0 1 1 ", "\n1 2 2 0 1 0 ", 1),
        "gmsh22_node_header": good22.replace("$Nodes\n36", "$Nodes\n36 ", 1),
        # 8 nodes: "8\n" and the node data are 3 bytes short of what MuJoCo's check expects
        "gmsh22_binary_small": binary22(jittered_grid([2, 2, 2], 1.0, 0.1, seed=7), block_tets([2, 2, 2]),
                                        ftetwild=True),
        "gmsh22_binary_count": binary22(sheet_pts, tris).replace(b"$Elements\n50\n", b"$Elements\nx\n", 1),
    }
    for name, text in bad.items():
        data = text if isinstance(text, bytes) else text.encode()
        write(os.path.join(REJECT, name + ".msh"), data)
        write(os.path.join(REJECT, name + ".xml"), MODEL.format(
            name=name, comment="A broken GMSH file: MuJoCo 3.15.0 must reject it, and flexlab with the same message.",
            dt="0.002", option="", z=".3", flex="f", file=name + ".msh",
            attrs='scale=".05 .05 .05"', children=""))
    write(os.path.join(REJECT, "gmsh_empty.msh"), b"")
    write(os.path.join(REJECT, "gmsh_empty.xml"), MODEL.format(
        name="gmsh_empty", comment="An empty GMSH file.", dt="0.002", option="", z=".3",
        flex="f", file="gmsh_empty.msh", attrs="", children=""))


if __name__ == "__main__":
    main()
