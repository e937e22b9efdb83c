#!/usr/bin/env python3
"""Lists the functions of the browser build that print an f64 with Rust's float printer
(core::fmt::float: Display, Debug, LowerExp, precision). The browser build prints numbers
through crate::decimal (JavaScript's String(x)) instead, and scripts/build-wasm.sh fails when
the printer is back in the wasm; this finds the site.

It builds the wasm once more with wasm-ld's --emit-relocs (into target/float-sites), reads the
symbol table and the code relocations with llvm-objdump (Debian package llvm), and walks back
from the printer's functions to the first flexlab functions that reach them: with LTO the
format call is usually inlined into the function named.

  python3 scripts/wasm-float-sites.py
"""
import bisect
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.path.join(ROOT, "target", "float-sites")
WASM = os.path.join(TARGET, "wasm32-unknown-unknown", "wasm", "flexlab.wasm")


def main():
    env = dict(os.environ, CARGO_TARGET_DIR=TARGET,
               RUSTFLAGS="-C link-arg=--emit-relocs -C target-feature=+simd128")
    subprocess.run(["cargo", "build", "--profile", "wasm", "--lib", "--target",
                    "wasm32-unknown-unknown", "-p", "flexlab"], cwd=ROOT, env=env, check=True)
    symbols = subprocess.run(["llvm-objdump", "-t", WASM], capture_output=True, text=True,
                             check=True).stdout
    funcs = sorted((int(f[0], 16), f[-1]) for f in map(str.split, symbols.splitlines())
                   if len(f) >= 4 and f[2] == "F" and f[3] == "CODE")
    starts = [a for a, _ in funcs]
    relocs = subprocess.run(["llvm-objdump", "-r", WASM], capture_output=True, text=True,
                            check=True).stdout
    # target function -> functions whose code calls it or takes its table index
    callers = {}
    section = ""
    for line in relocs.splitlines():
        if line.startswith("RELOCATION RECORDS FOR"):
            section = line
            continue
        m = re.match(r"([0-9a-f]{8}) (R_WASM_(?:FUNCTION_INDEX_LEB|TABLE_INDEX_\w+))\s+(\S+)\+",
                     line)
        if m and "CODE" in section:
            owner = funcs[bisect.bisect_right(starts, int(m.group(1), 16)) - 1][1]
            callers.setdefault(m.group(3), set()).add(owner)
    seeds = [t for t in callers if re.search(r"4core3fmt5float|float_to_", t)]
    seen, found, todo = set(seeds), set(), list(seeds)
    while todo:
        for owner in callers.get(todo.pop(), ()):
            if owner in seen:
                continue
            seen.add(owner)
            # stop at flexlab's own functions; walk on through generic glue (&T as Display)
            (found.add if "flexlab" in owner else todo.append)(owner)
    if not found:
        print("no flexlab function prints an f64 with Rust's float printer")
        return 0
    for name in sorted(found):
        # the legacy mangling's path, readable enough: _ZN7flexlab4mjcf5attrs...4ints17h..E
        print(demangle(name))
    return 1


def demangle(name):
    """flexlab::mjcf::attrs::...::ints from a legacy-mangled name; others as they are."""
    m = re.match(r"_ZN(.*)17h[0-9a-f]{16}E$", name)
    if not m:
        return name
    rest, out = m.group(1), []
    while rest and rest[0].isdigit():
        n = re.match(r"\d+", rest).group(0)
        out.append(rest[len(n):len(n) + int(n)])
        rest = rest[len(n) + int(n):]
    return "::".join(out).replace("$LT$", "<").replace("$GT$", ">").replace("$u20$", " ") \
        .replace("..", "::").replace("$RF$", "&")


if __name__ == "__main__":
    sys.exit(main())
