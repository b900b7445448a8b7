#!/usr/bin/env python3
"""json-tools: validate, format, query and diff JSON documents.

Arguments arrive as one JSON object on stdin (or, when stdin is empty, in the
SKILLGATE_SKILL_ARGS environment variable). Bad arguments print a line starting
with "ERROR:" and exit 2. Nothing is written to disk and nothing uses the network.
"""
import json
import os
import re
import sys

MAX_INPUT_BYTES = 2 * 1024 * 1024
MAX_OUTPUT_CHARS = 100_000
MAX_DIFFERENCES = 200
OPERATIONS = ("validate", "format", "query", "diff")
KNOWN_KEYS = {"operation", "document", "other", "path", "indent", "sort_keys", "node"}


def fail(message):
    print("ERROR: " + message)
    sys.exit(2)


def read_arguments():
    text = ""
    if sys.stdin is not None and not sys.stdin.isatty():
        raw = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        if len(raw) > MAX_INPUT_BYTES:
            fail("arguments are larger than %d bytes" % MAX_INPUT_BYTES)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            fail("arguments on stdin are not UTF-8 text")
    if not text.strip():
        text = os.environ.get("SKILLGATE_SKILL_ARGS", "")
    if not text.strip():
        fail('no arguments; send a JSON object such as {"operation": "validate", "document": "{}"}')
    try:
        value = json.loads(text)
    except ValueError as error:
        fail("arguments are not valid JSON: %s" % error)
    if not isinstance(value, dict):
        fail("arguments must be a JSON object, not %s" % type_name(value))
    return value


def type_name(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def reject_constant(name):
    raise ValueError("%s is not valid JSON" % name)


class Duplicates:
    """Collects keys that repeat inside one object: JSON parsers disagree on which value wins."""

    def __init__(self):
        self.keys = []

    def hook(self, pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen and len(self.keys) < 20:
                self.keys.append(key)
            seen.add(key)
        return dict(pairs)


def parse_document(label, raw, duplicates=None):
    """A document is JSON text (a string) or an already-parsed object or array."""
    if isinstance(raw, (dict, list)):
        return raw
    if not isinstance(raw, str):
        fail("%s must be JSON text (a string) or an object or array, not %s" % (label, type_name(raw)))
    hook = duplicates.hook if duplicates is not None else None
    try:
        return json.loads(raw, parse_constant=reject_constant, object_pairs_hook=hook)
    except json.JSONDecodeError as error:
        fail("%s is not valid JSON: %s" % (label, describe_decode_error(raw, error)))
    except ValueError as error:
        fail("%s is not valid JSON: %s" % (label, error))
    except RecursionError:
        fail("%s nests too deeply to read" % label)


def describe_decode_error(text, error):
    lines = text.splitlines() or [""]
    line = lines[error.lineno - 1] if error.lineno - 1 < len(lines) else ""
    start = max(0, error.colno - 40)
    excerpt = line[start:start + 80]
    caret = " " * (error.colno - 1 - start) + "^"
    return "%s at line %d column %d\n  %s\n  %s" % (error.msg, error.lineno, error.colno, excerpt, caret)


def summarize(value):
    if isinstance(value, dict):
        return "an object with %d key%s" % (len(value), "" if len(value) == 1 else "s")
    if isinstance(value, list):
        return "an array of %d item%s" % (len(value), "" if len(value) == 1 else "s")
    return type_name(value)


def depth_of(value):
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def render(value, indent, sort_keys):
    if indent == 0:
        return json.dumps(value, ensure_ascii=False, sort_keys=sort_keys, separators=(",", ":"))
    return json.dumps(value, ensure_ascii=False, sort_keys=sort_keys, indent=indent)


def emit(text):
    if len(text) > MAX_OUTPUT_CHARS:
        print(text[:MAX_OUTPUT_CHARS])
        print("...[output clipped: %d more characters]" % (len(text) - MAX_OUTPUT_CHARS))
    else:
        print(text)


def run_validate(arguments):
    raw = arguments.get("document")
    if not isinstance(raw, str):
        fail("validate needs document as JSON text (a string), not %s" % type_name(raw))
    duplicates = Duplicates()
    try:
        value = json.loads(raw, parse_constant=reject_constant, object_pairs_hook=duplicates.hook)
    except json.JSONDecodeError as error:
        print("INVALID: " + describe_decode_error(raw, error))
        return
    except ValueError as error:
        print("INVALID: %s" % error)
        return
    except RecursionError:
        print("INVALID: the document nests too deeply to read")
        return
    print("VALID: %s, nesting depth %d" % (summarize(value), depth_of(value)))
    if duplicates.keys:
        print("WARNING: repeated keys %s; parsers disagree on which value wins" % ", ".join(
            json.dumps(key) for key in duplicates.keys))


PATH_TOKEN = re.compile(r'\.?([A-Za-z0-9_$@-]+|\*)|\[(-?\d+|\*)\]|\[("(?:[^"\\]|\\.)*")\]')


def parse_path(path):
    """Splits a path such as items[0].name, $.a["key.with.dots"] or items[*].id into steps."""
    text = path.strip()
    if text.startswith("$"):
        text = text[1:]
    steps, position = [], 0
    while position < len(text):
        match = PATH_TOKEN.match(text, position)
        if match is None or match.end() == position:
            fail('path %s cannot be read at character %d; use names, [index], ["quoted key"] or *'
                 % (json.dumps(path), position + 1))
        name, index, quoted = match.groups()
        if name is not None:
            steps.append(("any", None) if name == "*" else ("key", name))
        elif index is not None:
            steps.append(("any", None) if index == "*" else ("index", int(index)))
        else:
            steps.append(("key", json.loads(quoted)))
        position = match.end()
    return steps


def walk(value, steps, where):
    """Yields (location, value) for each value the steps reach; fails with the first broken step."""
    if not steps:
        yield where, value
        return
    (kind, key), rest = steps[0], steps[1:]
    if kind == "any":
        if isinstance(value, dict):
            items = [(where + step_text(name), item) for name, item in value.items()]
        elif isinstance(value, list):
            items = [("%s[%d]" % (where, number), item) for number, item in enumerate(value)]
        else:
            fail("%s is %s; * needs an object or an array" % (where, type_name(value)))
        for location, item in items:
            for found in walk(item, rest, location):
                yield found
        return
    if kind == "index":
        if isinstance(value, dict) and str(key) in value:
            kind, key = "key", str(key)
        elif not isinstance(value, list):
            fail("%s is %s, not an array; [%d] needs an array" % (where, type_name(value), key))
        elif not -len(value) <= key < len(value):
            fail("%s has %d items; index %d is out of range" % (where, len(value), key))
        else:
            for found in walk(value[key], rest, "%s[%d]" % (where, key)):
                yield found
            return
    if isinstance(value, list) and re.fullmatch(r"-?\d+", key):
        for found in walk(value, [("index", int(key))] + rest, where):
            yield found
        return
    if not isinstance(value, dict):
        fail("%s is %s, not an object; it has no key %s" % (where, type_name(value), json.dumps(key)))
    if key not in value:
        names = ", ".join(json.dumps(name) for name in list(value)[:20])
        fail("%s has no key %s; its keys are: %s" % (where, json.dumps(key), names or "(none)"))
    for found in walk(value[key], rest, where + step_text(key)):
        yield found


def step_text(key):
    return "." + key if re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", key) else "[%s]" % json.dumps(key)


def run_query(arguments, indent, sort_keys):
    path = arguments.get("path")
    if not isinstance(path, str):
        fail('query needs path, a string such as "items[0].name" ("$" is the whole document)')
    steps = parse_path(path)
    document = parse_document("document", arguments.get("document"))
    results = list(walk(document, steps, "$"))
    if not any(kind == "any" for kind, _ in steps):
        emit(render(results[0][1], indent, sort_keys))
        return
    print("%d value%s matched" % (len(results), "" if len(results) == 1 else "s"))
    emit("\n".join("%s = %s" % (where, render(value, 0, sort_keys)) for where, value in results))


def diff(left, right, where, changes):
    if len(changes) >= MAX_DIFFERENCES:
        return
    if isinstance(left, dict) and isinstance(right, dict):
        for key in left:
            if key not in right:
                changes.append("removed %s: %s" % (where + step_text(key), short(left[key])))
            else:
                diff(left[key], right[key], where + step_text(key), changes)
        for key in right:
            if key not in left:
                changes.append("added   %s: %s" % (where + step_text(key), short(right[key])))
        return
    if isinstance(left, list) and isinstance(right, list):
        for number in range(max(len(left), len(right))):
            location = "%s[%d]" % (where, number)
            if number >= len(right):
                changes.append("removed %s: %s" % (location, short(left[number])))
            elif number >= len(left):
                changes.append("added   %s: %s" % (location, short(right[number])))
            else:
                diff(left[number], right[number], location, changes)
        return
    if type_name(left) != type_name(right):
        changes.append("changed %s: %s (%s) -> %s (%s)" % (
            where, short(left), type_name(left), short(right), type_name(right)))
    elif left != right or isinstance(left, bool) != isinstance(right, bool):
        changes.append("changed %s: %s -> %s" % (where, short(left), short(right)))


def short(value):
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= 120 else text[:117] + "..."


def run_diff(arguments):
    if "other" not in arguments:
        fail("diff needs other, the second document, as JSON text or an object or array")
    left = parse_document("document", arguments.get("document"))
    right = parse_document("other", arguments.get("other"))
    changes = []
    diff(left, right, "$", changes)
    if not changes:
        print("EQUAL: the documents hold the same data")
        return
    clipped = len(changes) >= MAX_DIFFERENCES
    print("%s%d difference%s (document -> other; arrays compared by position)" % (
        "at least " if clipped else "", len(changes), "" if len(changes) == 1 else "s"))
    print("\n".join(changes))
    if clipped:
        print("...[stopped after %d differences]" % MAX_DIFFERENCES)


def main():
    arguments = read_arguments()
    unknown = sorted(set(arguments) - KNOWN_KEYS)
    if unknown:
        fail("unknown argument %s; expected: %s" % (", ".join(unknown), ", ".join(sorted(KNOWN_KEYS - {"node"}))))
    operation = arguments.get("operation")
    if operation not in OPERATIONS:
        fail("operation must be one of %s (got %s)" % (", ".join(OPERATIONS), json.dumps(operation)))
    if "document" not in arguments:
        fail("%s needs document, the JSON text to work on" % operation)
    indent = arguments.get("indent", 2)
    if isinstance(indent, bool) or not isinstance(indent, int) or not 0 <= indent <= 8:
        fail("indent must be a whole number from 0 (compact) to 8")
    sort_keys = arguments.get("sort_keys", False)
    if not isinstance(sort_keys, bool):
        fail("sort_keys must be true or false")
    if operation == "validate":
        run_validate(arguments)
    elif operation == "format":
        emit(render(parse_document("document", arguments.get("document")), indent, sort_keys))
    elif operation == "query":
        run_query(arguments, indent, sort_keys)
    else:
        run_diff(arguments)


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    try:
        main()
    except RecursionError:
        fail("the document nests too deeply to work on")
