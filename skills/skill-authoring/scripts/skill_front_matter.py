#!/usr/bin/env python3
"""The part of YAML that SKILL.md front matter uses, read with the standard library only.

This is a helper module for check_skill.py, not a script to run. It reads block mappings
and sequences, flow collections ([a, b], {a: b}), plain, quoted and block (| >) scalars,
and comments, resolving plain scalars the way YAML 1.2's core schema does. It raises
YamlError for text that YAML itself refuses, and Unsupported for YAML it does not read
(anchors, aliases, tags, complex keys), so a caller can say "not checked" instead of
guessing.
"""
import json
import re

INT = re.compile(r"[-+]?[0-9]+$|0o[0-7]+$|0x[0-9a-fA-F]+$")
FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$|[-+]?\.(inf|Inf|INF)$|\.(nan|NaN|NAN)$")


class YamlError(Exception):
    def __init__(self, line, message):
        super().__init__("line %d: %s" % (line, message))
        self.line = line
        self.reason = message


class Unsupported(Exception):
    pass


def resolve(text):
    """A plain scalar's value under the core schema."""
    if text in ("", "~", "null", "Null", "NULL"):
        return None
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    if INT.match(text):
        return int(text, 0) if text[:2] in ("0o", "0x") else int(text)
    if FLOAT.match(text):
        lowered = text.lower().lstrip("+")
        return float(lowered.replace(".inf", "inf").replace(".nan", "nan"))
    return text


def strip_comment(text):
    """Text before a comment: a # at the start or after white space, outside quotes."""
    quote = None
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = None
        elif char in "\"'" and (index == 0 or text[index - 1] in " [{,:"):
            quote = char
        elif char == "#" and (index == 0 or text[index - 1] in " \t"):
            return text[:index].rstrip()
    return text.rstrip()


def unquote(text, line):
    if text[0] == "'":
        if len(text) < 2 or not text.endswith("'"):
            raise YamlError(line, "a single-quoted value has no closing quote")
        inner = text[1:-1]
        if re.search(r"(?<!')'(?!')", inner.replace("''", "")):
            raise YamlError(line, "text after a closing quote")
        return inner.replace("''", "'")
    if len(text) < 2 or not text.endswith('"') or text.endswith('\\"') and not text.endswith('\\\\"'):
        raise YamlError(line, "a double-quoted value has no closing quote")
    try:
        return json.loads(text.replace("\\/", "/").replace("\t", "\\t"))
    except ValueError:
        raise Unsupported("double-quoted escapes beyond JSON's on line %d" % line)


def plain(text, line):
    """A plain (unquoted) scalar, refused where YAML refuses it."""
    if text[0] in "&*!":
        raise Unsupported("anchors, aliases and tags (line %d)" % line)
    if text[0] in "@`%":
        raise YamlError(line, "a plain value cannot start with %s; quote the value" % text[0])
    if text[0] in "]}" or (text[0] in "-?:" and text[1:2] in ("", " ")):
        raise YamlError(line, "a value cannot start with %s; quote the value" % json.dumps(text[:2]))
    if ": " in text or text.endswith(":"):
        raise YamlError(line, "a plain value cannot contain \": \"; quote the value (description: \"...\")")
    return resolve(text)


class FlowReader:
    """Reads [..] and {..} collections from one string."""

    def __init__(self, text, line):
        self.text, self.at, self.line = text, 0, line

    def fail(self, message):
        raise YamlError(self.line, message)

    def skip(self):
        while self.at < len(self.text) and self.text[self.at] in " \t\n":
            self.at += 1

    def value(self):
        self.skip()
        char = self.text[self.at:self.at + 1]
        if char == "[":
            return self.sequence()
        if char == "{":
            return self.mapping()
        if char in ("'", '"'):
            end = self.at + 1
            while end < len(self.text):
                if self.text[end] == char and not (char == '"' and self.text[end - 1] == "\\"):
                    if char == "'" and self.text[end + 1:end + 2] == "'":
                        end += 2
                        continue
                    break
                end += 1
            token = self.text[self.at:end + 1]
            self.at = end + 1
            return unquote(token, self.line)
        match = re.compile(r"[^,\[\]{}]*?(?=\s*(,|\]|\}|:\s|:$|$))").match(self.text, self.at)
        token = match.group(0).strip() if match else ""
        self.at = match.end() if match else self.at
        if token == "":
            self.fail("an empty entry in a [..] or {..} collection")
        return plain(token, self.line)

    def sequence(self):
        self.at += 1
        items = []
        while True:
            self.skip()
            if self.text[self.at:self.at + 1] == "]":
                self.at += 1
                return items
            items.append(self.value())
            self.skip()
            char = self.text[self.at:self.at + 1]
            if char == ",":
                self.at += 1
            elif char == ":":
                raise Unsupported("key: value pairs inside a [..] list (line %d)" % self.line)
            elif char != "]":
                self.fail("expected , or ] in a [..] list")

    def mapping(self):
        self.at += 1
        items = {}
        while True:
            self.skip()
            if self.text[self.at:self.at + 1] == "}":
                self.at += 1
                return items
            key = self.value()
            self.skip()
            if self.text[self.at:self.at + 1] != ":":
                self.fail("expected key: value in a {..} mapping")
            self.at += 1
            if key in items:
                self.fail("the key %s appears twice" % json.dumps(key))
            items[key] = self.value()
            self.skip()
            char = self.text[self.at:self.at + 1]
            if char == ",":
                self.at += 1
            elif char != "}":
                self.fail("expected , or } in a {..} mapping")


class BlockReader:
    """Reads indentation-based YAML from a list of lines."""

    def __init__(self, text):
        self.lines = text.split("\n")
        self.at = 0

    def next_line(self):
        """Index of the next line with content, skipping blank and comment-only lines."""
        index = self.at
        while index < len(self.lines):
            stripped = self.lines[index].strip()
            if stripped and not stripped.startswith("#"):
                return index
            index += 1
        return None

    def indent_of(self, index):
        line = self.lines[index]
        indent = len(line) - len(line.lstrip(" "))
        if line[indent:indent + 1] == "\t":
            raise YamlError(index + 1, "a tab is used for indentation; YAML allows only spaces")
        return indent

    def document(self):
        first = self.next_line()
        if first is None:
            return None
        if self.indent_of(first) != 0:
            raise YamlError(first + 1, "front matter must start at the left margin")
        value = self.block(0)
        rest = self.next_line()
        if rest is not None:
            raise YamlError(rest + 1, "this line is indented in a way that does not fit the lines above")
        return value

    def block(self, indent):
        index = self.next_line()
        content = self.lines[index].strip()
        if content == "-" or content.startswith("- "):
            return self.sequence(indent)
        if content[0] in "[{":
            return self.flow(index)
        return self.mapping(indent)

    def sequence(self, indent):
        items = []
        while True:
            index = self.next_line()
            if index is None or self.indent_of(index) != indent:
                return items
            content = self.lines[index].strip()
            if not (content == "-" or content.startswith("- ")):
                return items
            rest = content[1:].strip()
            if rest == "":
                self.at = index + 1
                following = self.next_line()
                items.append(self.block(self.indent_of(following)) if following is not None
                             and self.indent_of(following) > indent else None)
            elif re.match(r"[^'\"\[{][^:]*:( |$)", rest) or re.match(r"(\"[^\"]*\"|'[^']*'):( |$)", rest):
                self.lines[index] = " " * (indent + 2) + rest
                self.at = index
                items.append(self.mapping(indent + 2))
            else:
                self.lines[index] = " " * (indent + 2) + rest
                self.at = index
                items.append(self.inline(index, indent, rest))

    def mapping(self, indent):
        result = {}
        while True:
            index = self.next_line()
            if index is None or self.indent_of(index) < indent:
                return result
            if self.indent_of(index) > indent:
                raise YamlError(index + 1, "this line is indented more than the key above it allows")
            content = strip_comment(self.lines[index].strip())
            if content.startswith("- "):
                return result
            if content.startswith(("? ", "&", "*", "!")) or content == "?":
                raise Unsupported("complex keys, anchors, aliases or tags (line %d)" % (index + 1))
            match = re.match(r"(\"(?:[^\"\\]|\\.)*\"|'(?:[^']|'')*'|[^#'\"][^#]*?)\s*:(?: +(.*))?$", content)
            if match is None:
                raise YamlError(index + 1, "expected \"key: value\", found %s" % json.dumps(content[:60]))
            key = match.group(1)
            key = unquote(key, index + 1) if key[0] in "'\"" else resolve(key)
            if key in result:
                raise YamlError(index + 1, "the key %s appears twice" % json.dumps(key))
            rest = (match.group(2) or "").strip()
            self.at = index + 1
            if rest == "":
                following = self.next_line()
                if following is not None and self.indent_of(following) > indent:
                    result[key] = self.block(self.indent_of(following))
                elif following is not None and self.indent_of(following) == indent and \
                        self.lines[following].strip().startswith("- "):
                    result[key] = self.sequence(indent)
                else:
                    result[key] = None
            else:
                result[key] = self.inline(index, indent, rest)

    def inline(self, index, indent, rest):
        """A value that starts on the line of its key (or its "- ")."""
        self.at = index + 1
        if rest[0] in "|>":
            return self.block_scalar(index, indent, rest)
        if rest[0] in "[{" or rest[0] in "'\"":
            text = rest
            while True:
                try:
                    if rest[0] in "[{":
                        reader = FlowReader(text, index + 1)
                        value = reader.value()
                        if strip_comment(reader.text[reader.at:]).strip():
                            raise YamlError(index + 1, "text after the end of a [..] or {..} collection")
                        return value
                    return unquote(strip_comment(text) if text[-1] != text[0] else text, index + 1)
                except YamlError:
                    following = self.next_line()
                    if following is None or self.indent_of(following) <= indent:
                        raise
                    text += (" " if rest[0] in "[{" else " ") + self.lines[following].strip()
                    self.at = following + 1
        pieces = [rest]
        while True:
            following = self.next_line()
            if following is None or self.indent_of(following) <= indent:
                break
            piece = strip_comment(self.lines[following].strip())
            if re.match(r"[^\s'\"]+:( |$)", piece):
                raise YamlError(following + 1, "this line is indented more than the key above it; "
                                               "keys at the same level must line up")
            pieces.append(piece)
            self.at = following + 1
        return plain(" ".join(strip_comment(piece) for piece in pieces), index + 1)

    def block_scalar(self, index, indent, header):
        match = re.match(r"([|>])([-+]?)\s*(#.*)?$", header)
        if match is None:
            raise Unsupported("block scalar indentation indicators (line %d)" % (index + 1))
        style, chomp = match.group(1), match.group(2)
        if chomp == "+":
            raise Unsupported("|+ and >+ blocks (line %d)" % (index + 1))
        body, own_indent = [], None
        while self.at < len(self.lines):
            line = self.lines[self.at]
            if line.strip() == "":
                body.append("")
                self.at += 1
                continue
            current = len(line) - len(line.lstrip(" "))
            if current <= indent:
                break
            own_indent = current if own_indent is None else own_indent
            if current < own_indent:
                raise YamlError(self.at + 1, "a line of a | or > block is indented less than its first line")
            body.append(line[own_indent:])
            self.at += 1
        while body and body[-1] == "":
            body.pop()
        text = "\n".join(body) if style == "|" else fold(body)
        if chomp == "-":
            return text
        return text + "\n" if text else ""


def fold(lines):
    """A > block: single line breaks become spaces; blank lines become line breaks."""
    out = ""
    for number, line in enumerate(lines):
        if number == 0:
            out = line
        elif line == "":
            out += "\n"
        elif out.endswith("\n") or line.startswith(" ") or lines[number - 1].startswith(" "):
            out += ("" if out.endswith("\n") else "\n") + line
        else:
            out += " " + line
    return out


def split_front_matter(text):
    """(yaml, body, unterminated), found by line the way skillgate finds it."""
    text = (text[1:] if text.startswith("\ufeff") else text).replace("\r\n", "\n").replace("\r", "\n")
    if not text.startswith("---\n") and text != "---":
        return None, text, False
    lines = text.split("\n")
    for index in range(1, len(lines)):
        if lines[index] == "---":
            return "\n".join(lines[1:index]) + "\n", "\n".join(lines[index + 1:]), False
    return None, text, True


def parse_front_matter(text):
    """The front matter as Python values; raises YamlError or Unsupported."""
    return BlockReader(text).document()


if __name__ == "__main__":
    print("ERROR: skill_front_matter.py is a helper module; run scripts/check_skill.py instead")
    raise SystemExit(2)
