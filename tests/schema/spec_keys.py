#!/usr/bin/python3
"""SPEC.md's fixed keys against result.schema.json, so that the two cannot drift apart unseen.

SPEC.md's section "result.json: the keys other tools rely on" lists, in a compact notation, the
keys whose names and meanings are fixed. The schema marks each of them with "x-spec": true.
This reads the notation into key paths and reports, one line each:

  spec-only   a path SPEC names that the schema has no node for (a key SPEC promises and
              no result carries);
  unmarked    a path SPEC names that the schema has but does not mark x-spec;
  schema-only a node the schema marks x-spec that SPEC does not name;
  prose       an item of SPEC that is prose rather than a key name, so cannot be checked.

Exit status: 0 when no line is printed, 1 when some are, 2 when a file cannot be read.
SPEC.md is /work/shared/SPEC.md unless AOPS_SPEC names another; --schema FILE overrides the
repository's result.schema.json.

The notation: `name: items` starts a group of keys under `name` (continuation lines are
indented); `a{b, c}` is a with children b and c; `{x, y}{b, c}` is each of x and y with those
children; `a[]` an array, `a[{b}]` an array of objects; `<w>` any name (a map's key); `a/b`
either key; `{…}`, `{...}` and `{}` are children not listed; `(...)` is a comment; `;` ends a
group (what follows is top-level); `x: text` inside braces is x followed by a comment.
"""
import json
import os
import re
import sys

SECTION = "### result.json: the keys other tools rely on"
MAX_SPEC_BYTES = 1 << 20


def spec_block(text):
    """The fenced block after SECTION's heading, as lines."""
    start = text.find(SECTION)
    if start < 0:
        raise ValueError("no section %r" % SECTION)
    m = re.search(r"^```[^\n]*\n(.*?)^```", text[start:], re.S | re.M)
    if not m:
        raise ValueError("no fenced block in section %r" % SECTION)
    return m.group(1).splitlines()


def strip_parens(s):
    """Text without (...) comments, nested ones too."""
    out, depth = [], 0
    for c in s:
        if c == "(":
            depth += 1
        elif c == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(c)
    return "".join(out)


TOKEN = re.compile(r"\s*(<[A-Za-z_]+>|[A-Za-z0-9_\-]+|\.\.\.|…|[{}\[\],:/;.]|\S)")


def tokens(s):
    pos, out = 0, []
    while pos < len(s):
        m = TOKEN.match(s, pos)
        if not m:
            break
        out.append(m.group(1))
        pos = m.end()
    return out


class Parser:
    """Items into paths (tuples of names; "[]" for an array's elements, "*" for any name);
    prose items into self.prose."""

    NAME = re.compile(r"^(<[A-Za-z_]+>|[A-Za-z0-9_\-]+)$")

    def __init__(self, toks):
        self.t, self.i, self.prose = toks, 0, []

    def peek(self, k=0):
        return self.t[self.i + k] if self.i + k < len(self.t) else None

    def take(self):
        tok = self.peek()
        self.i += 1
        return tok

    def skip_to_closer(self):
        """Past the rest of a comment, up to (not over) the group's closer."""
        depth = 0
        while self.peek() is not None:
            tok = self.peek()
            if tok in "{[":
                depth += 1
            elif tok in "}]":
                if depth == 0:
                    return
                depth -= 1
            self.i += 1

    def items(self, closer):
        """A comma-separated list up to closer: (every path, the items' own paths)."""
        every, tops = set(), set()
        while self.peek() is not None and self.peek() != closer:
            tok = self.peek()
            if tok in (",", "…", "..."):
                self.i += 1
                continue
            if tok == ":":  # `x: comment` inside braces
                self.skip_to_closer()
                continue
            start = self.i
            got = self.item()
            nxt = self.peek()
            if got is None or (nxt is not None and nxt not in (",", closer, ":")):
                # words side by side: prose, up to the next comma at this depth
                self.i, depth = start, 0
                while self.peek() is not None:
                    tok = self.peek()
                    if depth == 0 and tok in (",", closer):
                        break
                    depth += 1 if tok in "{[" else -1 if tok in "}]" else 0
                    self.i += 1
                self.prose.append(" ".join(self.t[start:self.i]))
                continue
            every |= got[0]
            tops |= got[1]
        return every, tops

    def names(self):
        """NAME or NAME/NAME...: the alternatives, or None."""
        out = []
        while True:
            tok = self.peek()
            if tok is None or not self.NAME.match(tok):
                return None
            self.take()
            out.append(("*",) if tok.startswith("<") else (tok,))
            if self.peek() != "/":
                return out
            self.take()

    def item(self):
        """One item and its suffixes: (every path, the paths that a next suffix attaches to)."""
        if self.peek() == "{":  # a group of names, each with what follows
            self.take()
            every, tops = self.items("}")
            if self.take() != "}":
                return None
        else:
            alts = self.names()
            if alts is None:
                return None
            every, tops = set(alts), set(alts)
        while self.peek() in ("{", "[", "."):
            tok = self.take()
            if tok == "{":
                if self.peek() in ("}", "…", "..."):  # children not listed
                    self.skip_to_closer()
                    self.take()
                    continue
                sub_every, sub_tops = self.items("}")
                if self.take() != "}":
                    return None
                every |= {t + s for t in tops for s in sub_every}
                tops = {t + s for t in tops for s in sub_tops}
            elif tok == "[":
                tops = {t + ("[]",) for t in tops}
                every |= tops
                if self.peek() == "{":
                    self.take()
                    sub_every, sub_tops = self.items("}")
                    if self.take() != "}":
                        return None
                    every |= {t + s for t in tops for s in sub_every}
                    tops = {t + s for t in tops for s in sub_tops}
                if self.take() != "]":
                    return None
            else:
                alts = self.names()
                if alts is None:
                    return None
                tops = {t + a for t in tops for a in alts}
                every |= tops
        return every, tops


def spec_paths(text):
    """All key paths SPEC's fixed-keys block names, and its prose items."""
    groups = []  # one string per top-level group, in the notation
    for line in spec_block(text):
        body = strip_parens(line).rstrip()
        if not body.strip():
            continue
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_.]*):\s*(.*)$", body)
        if line.startswith(" ") and groups:
            groups[-1][1].append(body.strip())
            continue
        if m:
            groups.append((m.group(1), [m.group(2)]))
        else:
            # `config.runtime   cgroup | docker`: the key, then its values
            if re.match(r"^\S+\s{2,}\S", body) and "," not in body:
                body = re.split(r"\s{2,}", body.strip())[0]
            groups.append((None, [body]))
    paths, prose = set(), []
    for name, bodies in groups:
        parts = ", ".join(bodies).split(";")  # a new line is a new item
        texts = []
        head = parts[0].strip().rstrip(",")
        if name is None:
            texts.append(head)
        elif head.startswith(("{", "[")):
            texts.append(name + head)
        else:
            texts.append(name + "{" + head + "}")
        texts.extend(p.strip() for p in parts[1:])  # after `;`: top-level again
        for s in texts:
            p = Parser(tokens(s))
            every, _ = p.items(None)
            prose.extend(p.prose)
            for full in every:
                # a dotted name (config.runtime) names its parents too
                paths |= {full[:k] for k in range(1, len(full) + 1)}
    return paths, prose


def resolve(schema, node, path):
    """The schema nodes that path leads to (through $ref, properties, additionalProperties,
    items). "*" is any name: a map's additionalProperties, or else each named property that
    is an object (SPEC's `<event>` where the schema lists the events)."""
    nodes = [node]
    for seg in path:
        nxt = []
        for n in nodes:
            n = deref(schema, n)
            if not isinstance(n, dict):
                continue
            if seg == "[]":
                if isinstance(n.get("items"), dict):
                    nxt.append(n["items"])
            elif seg in n.get("properties", {}):
                nxt.append(n["properties"][seg])
            elif isinstance(n.get("additionalProperties"), dict):
                nxt.append(n["additionalProperties"])
            elif seg == "*":
                nxt.extend(v for v in n.get("properties", {}).values() if "object" in types(v) + types(deref(schema, v)))
        nodes = nxt
    return nodes


def types(node):
    t = node.get("type", []) if isinstance(node, dict) else []
    return t if isinstance(t, list) else [t]


def deref(schema, node):
    for _ in range(64):  # a loop of $refs ends here
        if not (isinstance(node, dict) and "$ref" in node):
            return node
        ref = node["$ref"]
        if not ref.startswith("#/$defs/"):
            return None
        node = schema.get("$defs", {}).get(ref[len("#/$defs/"):])
    return None


def marked(schema):
    """Every x-spec node, as a readable path, by id of the node (a $defs node reached through
    several paths counts once per path)."""
    out = {}

    def walk(node, path, seen):
        if not isinstance(node, dict):
            return
        if node.get("x-spec"):
            out.setdefault(id(node), []).append(path)
        if "$ref" in node:
            name = node["$ref"].split("/")[-1]
            if name not in seen:
                walk(schema["$defs"].get(name), path, seen | {name})
        for k, v in node.get("properties", {}).items():
            walk(v, path + (k,), seen)
        if isinstance(node.get("additionalProperties"), dict):
            walk(node["additionalProperties"], path + ("*",), seen)
        if isinstance(node.get("items"), dict):
            walk(node["items"], path + ("[]",), seen)
        for b in node.get("anyOf", []) + node.get("oneOf", []):
            walk(b, path, seen)

    walk(schema, (), frozenset())
    return out


def show(path):
    return ".".join(path).replace(".[]", "[]")


def check(spec_text, schema):
    paths, prose = spec_paths(spec_text)
    lines, reached = [], set()
    for p in sorted(paths):
        nodes = resolve(schema, schema, p)
        if not nodes:
            lines.append("spec-only %s" % show(p))
            continue
        reached |= {id(n) for n in nodes}
        if not all(n.get("x-spec") for n in nodes):
            lines.append("unmarked %s" % show(p))
    for nid, where in marked(schema).items():
        if nid not in reached:
            lines.append("schema-only %s" % show(where[0]))
    lines.extend("prose %s" % s for s in prose)
    return lines


def main(argv):
    spec = os.environ.get("AOPS_SPEC", "/work/shared/SPEC.md")
    schema_file = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "result.schema.json"))
    args = argv[1:]
    if args[:1] == ["--schema"] and len(args) >= 2:
        schema_file, args = args[1], args[2:]
    if args:
        print("usage: spec_keys.py [--schema FILE]   (SPEC.md from AOPS_SPEC)", file=sys.stderr)
        return 2
    try:
        with open(spec, encoding="utf-8") as f:
            text = f.read(MAX_SPEC_BYTES)
        with open(schema_file, encoding="utf-8") as f:
            schema = json.load(f)
        lines = check(text, schema)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as e:
        print("spec_keys.py: %s" % e, file=sys.stderr)
        return 2
    for line in lines:
        print(line)
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
