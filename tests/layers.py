#!/usr/bin/env python3
"""tests/layers.py -- the layer rule of README "Layout", derived from the code.

Reads every quoted #include of the C sources and headers of the layers, and
  1. draws the folder graph: an edge A -> B when a file of A includes one of B;
  2. fails on an edge that runs against the documented order (a folder may use
     only the folders below it; the order is LAYERS in the Makefile, bottom
     first, and cmd/ on top of all);
  3. fails on any circle between files, read from the built objects' symbols
     (build/rel, nm): a file that references a function or an object another
     file defines uses it, whatever header declared it; a circle of such uses,
     of any length, within a folder or across, means files that call each
     other (db.c calls db_util.c, which takes &db_workload from db.c). Types
     shared through a header are not uses: a module's own header, included by
     each of its files, closes no circle. A reference upward through a stray
     extern is an upward edge too;
  4. fails when one folder holds more than a quarter of the lines of C of all
     the layers (SHARE_MAX), or coordinator/, one host's run, reaches
     COORDINATOR_MAX lines: a layer that takes in every new concern erodes
     the order as surely as an upward include does (round 3 split
     coordinator/ to 5,059 lines, and it grew back to 10,567).
Prints the graph (folders bottom first, each with the folders it uses and its
lines of C, .c and .h) and every violation; exit 0 when the rule holds, 1 when not.

  tests/layers.py [--root DIR]
"""
import argparse
import os
import re
import subprocess
import sys

SHARE_MAX = 0.25  # of the lines of C (.c and .h) of all the layers, cmd/ included
COORDINATOR_MAX = 3000  # lines of C in coordinator/

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layers_from_makefile(root):
    out = subprocess.run(["make", "-s", "--no-print-directory", "-C", root, "print-LAYERS"],
                         capture_output=True, text=True)
    names = out.stdout.split()
    if out.returncode != 0 or not names:
        sys.exit("tests/layers.py: cannot read LAYERS from the Makefile (make -s print-LAYERS): "
                 + out.stderr.strip())
    return names + ["cmd"]


def sources(root, layers):
    for layer in layers:
        top = os.path.join(root, layer)
        for d, _, files in os.walk(top):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(d, f), root)


def unit_of(path):
    return os.path.splitext(path)[0]


def folder_of(path, layers):
    first = path.split(os.sep)[0]
    return first if first in layers else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    root = os.path.abspath(ap.parse_args().root)
    layers = layers_from_makefile(root)
    rank = {name: i for i, name in enumerate(layers)}

    files = list(sources(root, layers))
    known = set(files)
    lines = {name: 0 for name in layers}
    unit_edges = {}  # unit -> {unit: the include that made the edge}
    folder_edges = {}  # folder -> {folder: an example include}
    problems = []
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        src_folder = folder_of(f, layers)
        lines[src_folder] += text.count("\n")
        for inc in INCLUDE.findall(text):
            target = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            if target not in known:
                continue  # a header outside the layers (tests, a library's)
            dst_folder = folder_of(target, layers)
            if dst_folder != src_folder:
                folder_edges.setdefault(src_folder, {}).setdefault(dst_folder, f"{f} -> {inc}")
                if rank[dst_folder] > rank[src_folder]:
                    problems.append(f"upward: {f} includes {target} ({src_folder}/ is below "
                                    f"{dst_folder}/ in the order)")

    # The objects' symbols: who defines what, and who uses it.
    # One nm for all of them (-A names the object on each line), with the
    # paths relative to root so that a line splits at its first ": ".
    objs = {}  # "build/rel/<unit>.o" -> unit
    for f in files:
        if not f.endswith(".c"):
            continue
        obj = os.path.join("build", "rel", unit_of(f) + ".o")
        full = os.path.join(root, obj)
        if not os.path.exists(full):
            problems.append(f"not built: {obj} (make harness first; the symbols are read from it)")
        elif os.path.getmtime(full) < os.path.getmtime(os.path.join(root, f)):
            problems.append(f"stale: {obj} is older than {f} (make harness first)")
        else:
            objs[obj] = unit_of(f)
    defined, used = {}, {}
    out = subprocess.run(["nm", "-P", "-A"] + sorted(objs), cwd=root, capture_output=True,
                         text=True) if objs else None
    if out is not None and out.returncode != 0:
        sys.exit("tests/layers.py: nm failed: " + out.stderr.strip()[:500])
    for line in out.stdout.splitlines() if out is not None else []:
        obj, _, rest = line.partition(": ")
        parts = rest.split()
        if obj not in objs or len(parts) < 2:
            continue
        sym, kind = parts[0], parts[1]
        if kind == "U":
            used.setdefault(objs[obj], set()).add(sym)
        elif kind.isupper():
            defined[sym] = objs[obj]
    for a, syms in used.items():
        for sym in sorted(syms):
            b = defined.get(sym)
            if b is None or b == a:
                continue
            unit_edges.setdefault(a, {}).setdefault(b, sym)
            fa, fb = folder_of(a, layers), folder_of(b, layers)
            if fa != fb:
                folder_edges.setdefault(fa, {}).setdefault(fb, f"{a}.c uses {sym}")
                if rank[fb] > rank[fa]:
                    problems.append(f"upward: {a}.c uses {sym} of {b}.c ({fa}/ is below {fb}/)")

    # Circles: strongly connected components of the unit graph (Tarjan, iterative).
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
    nodes = sorted(set(unit_edges) | {b for e in unit_edges.values() for b in e})
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(unit_edges.get(start, {}))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(unit_edges.get(nxt, {})))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
    for comp in comps:
        ties = [f"{a} -> {b} ({unit_edges[a][b]})" for a in comp for b in sorted(unit_edges.get(a, {})) if b in comp]
        problems.append("circle of " + str(len(comp)) + " files: " + ", ".join(ties))

    total = sum(lines.values())
    for name in layers:
        if total and lines[name] > SHARE_MAX * total:
            problems.append(f"too big: {name}/ holds {lines[name]} of the {total} lines of C "
                            f"({100.0 * lines[name] / total:.1f} %, more than "
                            f"{100 * SHARE_MAX:.0f} %): move what is not its own to its layer")
    if lines.get("coordinator", 0) >= COORDINATOR_MAX:
        problems.append(f"too big: coordinator/ holds {lines['coordinator']} lines of C "
                        f"(at most {COORDINATOR_MAX - 1}): one host's run, and nothing else")
    print("layers, bottom first (a folder may use only those below it):")
    for name in layers:
        uses = sorted(folder_edges.get(name, {}), key=lambda n: rank[n])
        share = 100.0 * lines[name] / total if total else 0
        print(f"  {name + '/':<14} {lines[name]:>6} lines of C ({share:4.1f} %)  uses: "
              + (", ".join(u + "/" for u in uses) if uses else "-"))
    if problems:
        for p in problems:
            print("FAIL " + p)
        print(f"{len(problems)} violation(s) of the layer rule")
        return 1
    print(f"ok: every include runs downward, no two files use each other, no folder holds more "
          f"than {100 * SHARE_MAX:.0f} % of the {total} lines of C, and coordinator/ has fewer "
          f"than {COORDINATOR_MAX}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
