#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that libfring's source files respect their layers.

Why: the library grew into one tangle in which the lowest files call the
highest ones, so no part can be read, tested or replaced alone. The layers
are written down in doc/architecture.md (the first ```layers block, lowest
layer first); this script compares them with what the compiled objects
really use, so the suite fails the day a lower layer reaches up, or two
folders of one layer lean on each other, and the list cannot go stale.

The rule: a file may use a file of a lower layer, or a file of its own
layer in the same folder; anything else is a violation ("upward" when the
used file is in a higher layer, "sideways" when it is in the same layer but
another folder). Every source of the shared library must be in exactly one
layer, and every listed path must match a file of the source tree (a file
that exists but was not built, such as src/fault.c without
-Dfault_injection=true, is fine).

The uses come from the objects: compile_commands.json says which object
comes from which source (only the shared library's objects, under
src/libfring.so*.p/), `nm` says which global symbols each object defines
and which it leaves undefined; A -> B when A leaves undefined a symbol B
defines. The strongly connected groups of that graph (Tarjan) are
reported, the largest first; one spanning two layers or two folders fails.
"""
import argparse
import fnmatch
import glob
import json
import os
import re
import subprocess
import sys

SRCROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB_OBJECTS = "src/libfring.so*.p/*"
DEFINED_TYPES = set("TDBRCVWGS")
MAX_SYMS = 5

HELP_EPILOG = """\
layer list syntax (a ```layers block in the doc, or the --layers file):
  # comment               blank lines and comments are ignored
  NAME  path path ...     one layer per line, lowest layer first; paths are
                          relative to the source root, shell globs allowed
                          (src/ring_*.c), expanded against the source tree

precedence: a file listed explicitly (without a glob) belongs to that layer
even when a glob of another layer also matches it (src/dispatch_*.c does
not take src/dispatch_debug.c from the layer that names it). A file named
explicitly in two layers, or matched only by globs of two layers, is an
error. A listed path that matches no file at all is an error (stale list);
one that matches a file the build did not compile (src/fault.c without
-Dfault_injection=true) is not.

exit status: 0 the layers hold, 1 a violation or list error, 2 usage or
missing input (no compile_commands.json, no layers block, nm failing).
"""


class InputError(Exception):
    """Missing or malformed input: exit status 2."""


# --- the layer list -------------------------------------------------------

def layers_block(text):
    """The lines inside the first ```layers fenced block of a markdown text."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == "```layers":
            for j in range(i + 1, len(lines)):
                if lines[j].strip().startswith("```"):
                    return lines[i + 1:j]
            raise InputError("the ```layers block is never closed")
    raise InputError("no ```layers block")


def parse_layers(lines):
    """[(name, [pattern, ...]), ...] lowest first, from the block's lines."""
    layers = []
    seen = set()
    for n, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        name, paths = words[0], words[1:]
        if not paths:
            raise InputError(f"layer list line {n}: layer {name} lists no path")
        if name in seen:
            raise InputError(f"layer list line {n}: layer {name} twice")
        seen.add(name)
        layers.append((name, paths))
    if not layers:
        raise InputError("the layer list is empty")
    return layers


def is_glob(pattern):
    return re.search(r"[*?\[]", pattern) is not None


def tree_matcher(root):
    """A function pattern -> sorted files (relative to root) it matches."""
    def match(pattern):
        found = glob.glob(os.path.join(root, pattern))
        return sorted(os.path.relpath(f, root) for f in found
                      if os.path.isfile(f))
    return match


def list_matcher(files):
    """The same as tree_matcher over a list of paths (for the self-test)."""
    def match(pattern):
        return sorted(f for f in files if fnmatch.fnmatchcase(f, pattern))
    return match


def assign_layers(layers, match):
    """Each matched file's layer index, the files claimed at all (a file
    claimed twice has no layer), and the list's errors.

    An explicit path wins over globs; two explicit layers, or (without an
    explicit one) two glob layers, are an error; so is a pattern that
    matches nothing."""
    explicit, globbed, errors = {}, {}, []
    for index, (name, patterns) in enumerate(layers):
        for pattern in patterns:
            files = match(pattern)
            if not files:
                errors.append(f"ERROR stale: layer {name} lists {pattern},"
                              " which matches no file")
            where = globbed if is_glob(pattern) else explicit
            for f in files:
                where.setdefault(f, set()).add(index)
    layer_of = {}
    for f in sorted(set(explicit) | set(globbed)):
        claims = explicit.get(f) or globbed[f]
        if len(claims) > 1:
            how = "named" if f in explicit else "matched by globs"
            names = " and ".join(layers[i][0] for i in sorted(claims))
            errors.append(f"ERROR twice: {f} is {how} in layers {names}")
            continue
        layer_of[f] = next(iter(claims))
    return layer_of, set(explicit) | set(globbed), errors


def unlisted(sources, claimed):
    """Errors for the built sources no layer holds."""
    return [f"ERROR unlisted: {f} is in no layer"
            for f in sorted(sources) if f not in claimed]


# --- the objects ----------------------------------------------------------

def library_objects(builddir, srcroot):
    """{source (relative to srcroot): object path} of the shared library."""
    path = os.path.join(builddir, "compile_commands.json")
    if not os.path.isfile(path):
        raise InputError(f"{path} does not exist: is {builddir} a meson"
                         " build directory (meson setup)?")
    with open(path) as f:
        entries = json.load(f)
    objects = {}
    for e in entries:
        directory = e.get("directory", builddir)
        obj = os.path.normpath(os.path.join(directory, e["output"]))
        if not fnmatch.fnmatch(os.path.relpath(obj, builddir), LIB_OBJECTS):
            continue
        src = os.path.relpath(os.path.normpath(
            os.path.join(directory, e["file"])), srcroot)
        if src.startswith(".."):
            raise InputError(f"{builddir} compiles {e['file']}, outside"
                             f" {srcroot}: configured from another tree?")
        objects[src] = obj
    if not objects:
        raise InputError(f"{path} holds no object of {LIB_OBJECTS}")
    return objects


def nm_symbols(obj):
    """(defined globals, undefined) of one object, by `nm -P`."""
    if not os.path.isfile(obj):
        raise InputError(f"{obj} is not built (ninja -C the build directory)")
    try:
        out = subprocess.run(["nm", "-P", obj], check=True, text=True,
                             capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise InputError(f"nm {obj}: {e}")
    defined, undefined = set(), set()
    for line in out.splitlines():
        words = line.split()
        if len(words) < 2:
            continue
        name, kind = words[0], words[1]
        if kind == "U":
            undefined.add(name)
        elif kind in DEFINED_TYPES:
            defined.add(name)
    return defined, undefined


# --- the graph ------------------------------------------------------------

def build_edges(symbols):
    """{(A, B): [symbols]} from {file: (defined, undefined)}."""
    definers = {}
    for f, (defined, _) in symbols.items():
        for s in defined:
            definers.setdefault(s, []).append(f)
    edges = {}
    for a, (_, undefined) in symbols.items():
        for s in undefined:
            for b in definers.get(s, ()):
                if b != a:
                    edges.setdefault((a, b), []).append(s)
    return {k: sorted(v) for k, v in sorted(edges.items())}


def edge_kind(a, b, layer_of):
    """None when a may use b, else "upward" or "sideways"."""
    la, lb = layer_of[a], layer_of[b]
    if lb < la:
        return None
    if lb > la:
        return "upward"
    return None if os.path.dirname(a) == os.path.dirname(b) else "sideways"


def violations(edges, layer_of):
    """[(kind, A, B, symbols)] for the edges the rule forbids."""
    out = []
    for (a, b), syms in edges.items():
        if a in layer_of and b in layer_of:
            kind = edge_kind(a, b, layer_of)
            if kind:
                out.append((kind, a, b, syms))
    return out


def tarjan(nodes, edges):
    """Strongly connected components (lists of nodes), iteratively."""
    succ = {n: [] for n in nodes}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
        succ.setdefault(b, [])
    index, low, on_stack = {}, {}, set()
    stack, comps, counter = [], [], 0
    for root in sorted(succ):
        if root in index:
            continue
        work = [(root, iter(succ[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        n = stack.pop()
                        on_stack.discard(n)
                        comp.append(n)
                        if n == node:
                            break
                    comps.append(sorted(comp))
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(succ[child])))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return comps


def cycles(nodes, edges, layers, layer_of):
    """[(files, layer names, folders)] of the groups of 2 or more, largest
    first."""
    out = []
    for comp in tarjan(nodes, edges):
        if len(comp) < 2:
            continue
        names = sorted({layers[layer_of[f]][0] for f in comp
                        if f in layer_of},
                       key=lambda n: [l[0] for l in layers].index(n))
        folders = sorted({os.path.dirname(f) for f in comp})
        out.append((comp, names, folders))
    out.sort(key=lambda c: (-len(c[0]), c[0]))
    return out


# --- the verdict ----------------------------------------------------------

def check(layers, match, symbols):
    """The whole check on in-memory data: layers as parse_layers() gives
    them, match as tree_matcher(), symbols {source: (defined, undefined)}.
    Returns a dict the report and the self-test read."""
    layer_of, claimed, errors = assign_layers(layers, match)
    errors += unlisted(symbols, claimed)
    edges = build_edges(symbols)
    bad = violations(edges, layer_of)
    groups = cycles(sorted(symbols), edges, layers, layer_of)
    spanning = [g for g in groups if len(g[1]) > 1 or len(g[2]) > 1]
    return {"layers": layers, "layer_of": layer_of, "errors": errors,
            "edges": edges, "violations": bad, "cycles": groups,
            "spanning": spanning, "files": len(symbols),
            "ok": not (errors or bad or spanning)}


def layer_name(result, f):
    i = result["layer_of"].get(f)
    return "?" if i is None else result["layers"][i][0]


def sym_list(syms, limit=MAX_SYMS):
    return ", ".join(syms[:limit]) + (", ..." if len(syms) > limit else "")


def graph_lines(result):
    """--graph: every edge with all its symbols."""
    out = []
    for (a, b), syms in result["edges"].items():
        kind = (edge_kind(a, b, result["layer_of"])
                if a in result["layer_of"] and b in result["layer_of"]
                else "unlisted")
        out.append(f"EDGE {a} ({layer_name(result, a)}) -> {b}"
                   f" ({layer_name(result, b)}) [{kind or 'ok'}]:"
                   f" {sym_list(syms, len(syms))}")
    return out


def report_lines(result):
    out = list(result["errors"])
    for kind, a, b, syms in result["violations"]:
        out.append(f"VIOLATION {kind}: {a} (layer {layer_name(result, a)})"
                   f" uses {b} (layer {layer_name(result, b)}):"
                   f" {sym_list(syms)}")
    for i, (files, names, folders) in enumerate(result["cycles"]):
        label = "largest strongly connected group" if i == 0 else \
            "strongly connected group"
        out.append(f"{label}: {len(files)} files: {' '.join(files)}")
        out.append(f"  layers: {' '.join(names)}; folders: {' '.join(folders)}"
                   + ("  <- FAILS: spans more than one layer or folder"
                      if len(names) > 1 or len(folders) > 1 else ""))
    if not result["cycles"]:
        out.append("largest strongly connected group: none (no cycle)")
    out.append(summary_line(result))
    return out


def summary_line(result):
    groups = result["cycles"]
    size = len(groups[0][0]) if groups else 0
    if result["ok"]:
        where = f", inside {' '.join(groups[0][2])}" if groups else ""
        return (f"layers: OK ({result['files']} files,"
                f" {len(result['edges'])} edges, largest cycle {size} files"
                f"{where})")
    kinds = {}
    for v in result["violations"]:
        kinds[v[0]] = kinds.get(v[0], 0) + 1
    parts = [f"{len(result['violations'])} violations"
             + (" (" + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
                + ")" if kinds else "")]
    if result["errors"]:
        parts.append(f"{len(result['errors'])} layer list errors")
    if result["spanning"]:
        parts.append(f"{len(result['spanning'])} cycles spanning layers or"
                     " folders")
    return (f"layers: FAILED ({', '.join(parts)}; {result['files']} files,"
            f" {len(result['edges'])} edges, largest cycle {size} files)")


# --- the self-test --------------------------------------------------------

def synthetic(layer_text, uses, extra_files=()):
    """check() on made-up data: uses {file: [files it calls]}; each file
    defines f"{file}_sym" and leaves undefined the symbols of those it
    calls. extra_files exist in the tree but were not built."""
    layers = parse_layers(layer_text.splitlines())
    symbols = {f: ({f + "_sym"}, {g + "_sym" for g in callees})
               for f, callees in uses.items()}
    return check(layers, list_matcher(list(uses) + list(extra_files)),
                 symbols)


def selftest():
    """Asserts on synthetic graphs that the check fails and passes when it
    should. Returns the exit status."""
    cases = []

    def case(name, cond):
        cases.append((name, bool(cond)))

    base_top = "# lowest first\nbase a/x.c\n\ntop a/y.c\n"
    r = synthetic(base_top, {"a/x.c": ["a/y.c"], "a/y.c": []})
    case("upward edge fails", not r["ok"] and
         [v[0] for v in r["violations"]] == ["upward"] and
         "VIOLATION upward: a/x.c (layer base) uses a/y.c (layer top):"
         " a/y.c_sym" in report_lines(r))
    r = synthetic(base_top, {"a/x.c": [], "a/y.c": ["a/x.c"]})
    case("downward edge passes", r["ok"] and len(r["edges"]) == 1)

    r = synthetic("one a/x.c b/y.c\n", {"a/x.c": ["b/y.c"], "b/y.c": []})
    case("sideways edge fails", not r["ok"] and
         [v[0] for v in r["violations"]] == ["sideways"])

    r = synthetic("low a/z.c\none a/*.c\n",
                  {"a/x.c": ["a/y.c", "a/z.c"], "a/y.c": ["a/x.c"],
                   "a/z.c": []})
    case("same-folder cycle inside one layer passes", r["ok"] and
         [c[0] for c in r["cycles"]] == [["a/x.c", "a/y.c"]] and
         "largest cycle 2 files, inside a" in summary_line(r))

    r = synthetic(base_top, {"a/x.c": ["a/y.c"], "a/y.c": ["a/x.c"]})
    case("cycle across layers fails and is reported", not r["ok"] and
         len(r["spanning"]) == 1 and r["cycles"][0][1] == ["base", "top"])

    r = synthetic(base_top, {"a/x.c": [], "a/y.c": [], "a/w.c": []})
    case("file missing from the list fails", not r["ok"] and
         r["errors"] == ["ERROR unlisted: a/w.c is in no layer"])

    r = synthetic("base a/x.c a/gone.c\ntop a/y.c\n",
                  {"a/x.c": [], "a/y.c": []})
    case("stale path fails", not r["ok"] and len(r["errors"]) == 1 and
         "a/gone.c" in r["errors"][0])
    r = synthetic("base a/x.c a/nomatch_*.c\ntop a/y.c\n",
                  {"a/x.c": [], "a/y.c": []})
    case("glob matching nothing fails", not r["ok"] and
         "stale" in r["errors"][0])

    r = synthetic("base a/x.c a/fault.c\ntop a/y.c\n",
                  {"a/x.c": [], "a/y.c": ["a/x.c"]}, ["a/fault.c"])
    case("listed file present but not built passes", r["ok"])

    r = synthetic("low a/d_debug.c\nmid a/d.c a/d_*.c\n",
                  {"a/d.c": ["a/d_e.c", "a/d_debug.c"], "a/d_e.c": [],
                   "a/d_debug.c": []})
    case("explicit path wins over a glob", r["ok"] and
         r["layer_of"]["a/d_debug.c"] == 0)
    r = synthetic("low a/d_*.c\nmid a/d*.c\n",
                  {"a/d.c": [], "a/d_e.c": []})
    case("file matched by globs of two layers fails", not r["ok"] and
         r["errors"] == ["ERROR twice: a/d_e.c is matched by globs in"
                         " layers low and mid"])
    r = synthetic("low a/x.c\nmid a/x.c\n", {"a/x.c": []})
    case("file named in two layers fails", not r["ok"] and
         r["errors"] == ["ERROR twice: a/x.c is named in layers low and mid"])

    r = synthetic("base a/x.c b/z.c\nmid a/y.c\ntop a/m.c c/n.c\n",
                  {"a/m.c": ["a/y.c", "b/z.c"], "c/n.c": ["a/x.c"],
                   "a/y.c": ["a/x.c"], "a/x.c": [], "b/z.c": []})
    case("clean graph passes", r["ok"] and not r["cycles"] and
         len(r["edges"]) == 4 and summary_line(r).startswith("layers: OK"))

    chain = {f"a/f{i}.c": [f"a/f{i + 1}.c"] for i in range(3000)}
    chain["a/f3000.c"] = ["a/f0.c"]
    r = synthetic("one a/*.c\n", chain)
    case("a 3001-file cycle is one group (no recursion limit)",
         r["ok"] and len(r["cycles"]) == 1 and len(r["cycles"][0][0]) == 3001)

    doc = "# t\n```\nnot x.c\n```\n```layers\nbase a/x.c\n```\n```layers\n"
    case("first ```layers block is read",
         parse_layers(layers_block(doc)) == [("base", ["a/x.c"])])

    for n, (name, ok) in enumerate(cases, 1):
        print(f"{'ok' if ok else 'not ok'} {n} - {name}")
    failed = sum(1 for _, ok in cases if not ok)
    print(f"selftest: {len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


# --- the command line -----------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Check that libfring's lower layers do not use higher"
        " ones and that no cycle spans layers or folders.",
        epilog=HELP_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("builddir", nargs="?",
                   help="meson build directory (with compile_commands.json)")
    p.add_argument("--doc", default=os.path.join(SRCROOT, "doc",
                                                 "architecture.md"),
                   help="markdown file with the ```layers block"
                   " (default: doc/architecture.md of the source root)")
    p.add_argument("--layers", metavar="FILE",
                   help="read the layer list from a plain file instead")
    p.add_argument("--graph", action="store_true",
                   help="also print every edge with all its symbols")
    p.add_argument("--selftest", action="store_true",
                   help="check the checker on synthetic graphs; no build")
    args = p.parse_args(argv)
    if not args.selftest and not args.builddir:
        p.error("the build directory is required (or --selftest)")
    return args


def read_layers(args):
    path = args.layers or args.doc
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise InputError(f"cannot read the layer list: {e}")
    try:
        lines = text.splitlines() if args.layers else layers_block(text)
        return parse_layers(lines)
    except InputError as e:
        raise InputError(f"{path}: {e}")


def main(argv):
    args = parse_args(argv)
    if args.selftest:
        return selftest()
    try:
        layers = read_layers(args)
        builddir = os.path.abspath(args.builddir)
        objects = library_objects(builddir, SRCROOT)
        symbols = {src: nm_symbols(obj) for src, obj in objects.items()}
    except InputError as e:
        print(f"check-layers: {e}", file=sys.stderr)
        return 2
    result = check(layers, tree_matcher(SRCROOT), symbols)
    if args.graph:
        print("\n".join(graph_lines(result)))
    print("\n".join(report_lines(result)))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
