#!/usr/bin/python3
"""Validates result.json files against result.schema.json with a real validator.

Debian's python3-jsonschema (Draft202012Validator), so that what the tests call valid is what
any reader's validator calls valid. The schema itself is checked against the 2020-12
meta-schema first.

  validate.py [--schema FILE] [--nulls] RESULT.json...
  validate.py [--schema FILE] --nullable

--nullable prints every key path where the schema allows null without an x-null-reason, one a
line (`*` a map's key, `[]` an array's elements).

Prints one line per problem, `FILE: PATH: message` (at most MAX_ERRORS schema errors per file,
then a count);
exit 0 when every file validates, 1 when one does not, 2 when a file cannot be read (one line).
With --nulls it also lists every null that has no reason beside it: `FILE: PATH: null without a
reason key` where the schema names no x-null-reason for the key, `... reason key R absent` where
it names one the result does not carry; those lines make the exit 1 too.

x-null-reason is relative to the object holding the null: `reason` is a sibling key, `../x` a
key of the parent object (a list counts as one level), `../../telemetry/x` up and then down, `/a/b`
a key from the result's root (one reason for many nulls, e.g. every power figure's in telemetry);
a `*` stands for the null's own key (a map's entry: `/counters_unavailable/*` for
counters.<w>.components.<name>). A reason key itself (reason, *_reason, *_unavailable) may be
null: nothing to explain.

In a result read through result_upgrade() (harness upgrade), a null at a key its
not_recorded.keys lists is an older build's key it did not write: not_recorded.reason explains
it.

x-null-means is for a null that is a value, not a figure missing: the schema says what it
means (`placement.server_cpus`: the servers are not pinned). Such a key is not listed by
--nullable and needs no reason key in the result.
"""
import json
import os
import re
import signal
import sys

try:
    from jsonschema import Draft202012Validator
except ImportError:
    print("validate.py: needs python3-jsonschema >= 4 (apt-get install python3-jsonschema)", file=sys.stderr)
    sys.exit(2)

# A key that holds a reason (reason, *_reason, *_unavailable) is null when there is nothing to
# explain: not a null that wants a reason itself.
REASON_KEY = re.compile(r"(^|_)reason$|_unavailable$")
MAX_BYTES = 64 << 20  # a result of a large fleet is a few MiB; anything past this is not one
MAX_ERRORS = 40
MAX_MESSAGE = 300


def load(path, what):
    with open(path, "rb") as f:
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError("%s: larger than %d MiB" % (what, MAX_BYTES >> 20))
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError("%s: not JSON (%s)" % (what, e)) from None
    except RecursionError:
        raise ValueError("%s: nested too deeply to be a result" % what) from None


def show(path):
    out = ""
    for p in path:
        out += "[%d]" % p if isinstance(p, int) else "." + str(p)
    return out or "."


def deref(schema, node):
    for _ in range(64):
        if not (isinstance(node, dict) and "$ref" in node):
            return node
        node = schema.get("$defs", {}).get(node["$ref"].rsplit("/", 1)[-1])
    return None


def child(schema, node, key):
    """The schema node for key (a name or an index) below node, or None."""
    node = deref(schema, node)
    if not isinstance(node, dict):
        return None
    if isinstance(key, int):
        return node.get("items") if isinstance(node.get("items"), dict) else None
    if key in node.get("properties", {}):
        return node["properties"][key]
    extra = node.get("additionalProperties")
    return extra if isinstance(extra, dict) else None


def not_recorded(parents, path):
    """Whether path is one the result's not_recorded.keys lists (`a.b`, `a[].b`, `a.*.b`): a
    key an older build did not write, null in the result result_upgrade() made of it."""
    root = parents[0] if parents else None
    keys = ((root or {}).get("not_recorded") or {}).get("keys") if isinstance(root, dict) else None
    for k in keys if isinstance(keys, list) else []:
        want = []
        for part in str(k).split("."):
            name, arrays = re.match(r"^(.*?)((?:\[\])*)$", part).groups()
            want += [name] + ["[]"] * (len(arrays) // 2)
        if len(want) == len(path) and all(
            (w == "[]") if isinstance(p, int) else (w in ("*", p)) for w, p in zip(want, path)
        ):
            return True
    return False


def nulls(schema, node, value, path, parents, out):
    """Every null below value with no reason key beside it, into out."""
    if value is None and path and isinstance(path[-1], str) and REASON_KEY.search(path[-1]):
        return
    if value is None and not_recorded(parents, path):
        return  # an older build's: not_recorded.reason says why
    if value is None:
        target = (deref(schema, node) or {}) if isinstance(node, dict) else {}
        if isinstance(node, dict) and (node.get("x-null-means") or target.get("x-null-means")):
            return  # a value the schema explains
        reason = node.get("x-null-reason") if isinstance(node, dict) else None
        if reason is None:
            reason = target.get("x-null-reason")
        if not reason:
            out.append("%s: null without a reason key" % show(path))
            return
        if "*" in reason and path and isinstance(path[-1], str):
            reason = reason.replace("*", path[-1])  # the null's own key: /counters_unavailable/<name>
        where, name = parents[-1] if parents else None, reason
        if name.startswith("/"):  # from the root: walk the pointer to the reason's object
            parts = name[1:].split("/")
            where = parents[0] if parents else None
            for p in parts[:-1]:
                where = where.get(p) if isinstance(where, dict) else None
            name = parts[-1]
        while name.startswith("../"):
            parents = parents[:-1]
            where, name = parents[-1] if parents else None, name[3:]
        *down, name = name.split("/")  # `../../telemetry/x`: up, then down to the reason
        for p in down:
            where = where.get(p) if isinstance(where, dict) else None
        if not isinstance(where, dict) or where.get(name) is None:
            out.append("%s: null, reason key %s absent" % (show(path), reason))
        return
    if isinstance(value, dict):
        for k, v in value.items():
            nulls(schema, child(schema, node, k), v, path + [k], parents + [value], out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            nulls(schema, child(schema, node, i), v, path + [i], parents + [value], out)


def nullable(schema):
    """Every key path where the schema allows null and names no reason key."""
    out = []

    def walk(node, path, seen):
        if not isinstance(node, dict):
            return
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            target = schema.get("$defs", {}).get(name)
            if name in seen or not isinstance(target, dict):
                return
            merged = dict(target)
            merged.update({k: v for k, v in node.items() if k != "$ref"})
            walk(merged, path, seen | {name})
            return
        t = node.get("type", [])
        key = re.split(r"[.\[]", path)[-1] if path else ""
        explained = node.get("x-null-reason") or node.get("x-null-means")
        if "null" in (t if isinstance(t, list) else [t]) and not explained and not REASON_KEY.search(key):
            out.append(path or ".")
        for k, v in node.get("properties", {}).items():
            walk(v, path + "." + k, seen)
        if isinstance(node.get("additionalProperties"), dict):
            walk(node["additionalProperties"], path + ".*", seen)
        if isinstance(node.get("items"), dict):
            walk(node["items"], path + "[]", seen)

    walk(schema, "", frozenset())
    return out


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the listing, not a traceback
    args = argv[1:]
    schema_file = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "result.schema.json"))
    want_nulls = False
    files = []
    while args:
        a = args.pop(0)
        if a == "--schema" and args:
            schema_file = args.pop(0)
        elif a == "--nulls":
            want_nulls = True
        elif a == "--nullable":
            files.append(None)
        elif a.startswith("--"):
            files = []
            break
        else:
            files.append(a)
    if not files:
        print("usage: validate.py [--schema FILE] [--nulls] RESULT.json... | --nullable", file=sys.stderr)
        return 2
    try:
        schema = load(schema_file, schema_file)
        Draft202012Validator.check_schema(schema)
    except (OSError, ValueError) as e:
        print("validate.py: %s" % e, file=sys.stderr)
        return 2
    except Exception as e:  # jsonschema's SchemaError: the schema breaks the meta-schema
        print("validate.py: %s is not a valid 2020-12 schema: %s" % (schema_file, str(e).splitlines()[0]), file=sys.stderr)
        return 2
    if None in files:  # --nullable: the schema's own list
        for p in nullable(schema):
            print(p)
        return 0
    validator = Draft202012Validator(schema)
    bad = False
    for f in files:
        try:
            result = load(f, f)
        except (OSError, ValueError) as e:
            print("validate.py: %s" % e, file=sys.stderr)
            return 2
        try:
            errors = sorted(validator.iter_errors(result), key=lambda e: [str(p) for p in e.absolute_path])
            lines = ["%s: %s" % (show(list(e.absolute_path)), e.message[:MAX_MESSAGE]) for e in errors]
            found = []
            if want_nulls:
                nulls(schema, schema, result, [], [], found)
        except RecursionError:
            print("validate.py: %s: nested too deeply to be a result" % f, file=sys.stderr)
            return 2
        if len(lines) > MAX_ERRORS:
            lines[MAX_ERRORS:] = ["... and %d more" % (len(lines) - MAX_ERRORS)]
        lines += found  # all of them: the list is what a reader counts
        for line in lines:
            print("%s: %s" % (f, line))
        bad = bad or bool(lines)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
