#!/usr/bin/env python3
"""regex-lab: test a Python regular expression against sample lines or text.

Arguments arrive as one JSON object on stdin (or, when stdin is empty, in the
SKILLGATE_SKILL_ARGS environment variable). Bad arguments print a line starting
with "ERROR:" and exit 2; a pattern that runs past its time limit prints what was
found so far, then an "ERROR:" line, and exits 1. Nothing is written to disk.
"""
import json
import os
import re
import signal
import sys

MAX_INPUT_BYTES = 1024 * 1024
MAX_PATTERN = 2000
MAX_LINES = 1000
MAX_LINE = 10_000
MAX_TEXT = 100_000
MAX_OUTPUT_CHARS = 100_000
KNOWN_KEYS = {"pattern", "lines", "text", "flags", "mode", "replacement", "max_matches", "time_limit_ms", "node"}
FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE, "a": re.ASCII}
FLAG_NAMES = {"i": "IGNORECASE", "m": "MULTILINE", "s": "DOTALL", "x": "VERBOSE", "a": "ASCII"}
MODES = ("search", "match", "fullmatch")


def fail(message, code=2):
    sys.stdout.flush()
    print("ERROR: " + message)
    sys.exit(code)


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
        fail('no arguments; send a JSON object such as {"pattern": "\\\\d+", "lines": ["a1", "b22"]}')
    try:
        value = json.loads(text)
    except ValueError as error:
        fail("arguments are not valid JSON: %s" % error)
    if not isinstance(value, dict):
        fail("arguments must be a JSON object")
    return value


def whole_number(arguments, key, low, high, default):
    value = arguments.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        fail("%s must be a whole number from %d to %d" % (key, low, high))
    return value


def read_subjects(arguments):
    """The subjects to match: each line on its own, or the whole text as one subject."""
    has_lines, has_text = "lines" in arguments, "text" in arguments
    if has_lines == has_text:
        fail("send exactly one of lines (a list of strings, each matched on its own) or text (one string)")
    if has_text:
        text = arguments["text"]
        if not isinstance(text, str):
            fail("text must be a string")
        if len(text) > MAX_TEXT:
            fail("text is longer than %d characters" % MAX_TEXT)
        return [text], True
    lines = arguments["lines"]
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        fail("lines must be a list of strings")
    if not lines:
        fail("lines is empty; send at least one sample line")
    if len(lines) > MAX_LINES:
        fail("lines has %d items; the limit is %d" % (len(lines), MAX_LINES))
    for number, line in enumerate(lines, 1):
        if len(line) > MAX_LINE:
            fail("line %d is longer than %d characters" % (number, MAX_LINE))
    return lines, False


def compile_pattern(pattern, flags):
    if not isinstance(pattern, str) or pattern == "":
        fail("pattern must be a non-empty string")
    if len(pattern) > MAX_PATTERN:
        fail("pattern is longer than %d characters" % MAX_PATTERN)
    if not isinstance(flags, str) or any(letter not in FLAGS for letter in flags):
        hint = " (g is not needed: every match is listed)" if isinstance(flags, str) and "g" in flags else ""
        fail('flags must be a string of the letters i, m, s, x and a, such as "im"%s' % hint)
    value = 0
    for letter in flags:
        value |= FLAGS[letter]
    try:
        return re.compile(pattern, value)
    except re.error as error:
        fail("pattern does not compile: %s%s" % (error, compile_hint(pattern)))
    except (OverflowError, RecursionError):
        fail("pattern is too complex to compile")


def compile_hint(pattern):
    if "(?<" in pattern and not re.search(r"\(\?<[=!]", pattern):
        return ". Python writes named groups as (?P<name>...) and references them as (?P=name)"
    if "\\k<" in pattern:
        return ". Python refers back to a named group with (?P=name), not \\k<name>"
    return ""


class TimeLimit(Exception):
    pass


def on_alarm(signum, frame):
    raise TimeLimit()


def quote(text):
    return json.dumps(text, ensure_ascii=False)


def group_text(compiled, match):
    names = {number: name for name, number in compiled.groupindex.items()}
    parts = []
    for number in range(1, compiled.groups + 1):
        value = match.group(number)
        label = "%d:%s" % (number, names[number]) if number in names else str(number)
        parts.append("%s=%s" % (label, "(no part)" if value is None else quote(value)))
    return "  ".join(parts)


def position(subject, offset, whole_text):
    if not whole_text:
        return "%d-" % offset
    line = subject.count("\n", 0, offset) + 1
    column = offset - (subject.rfind("\n", 0, offset) + 1) + 1
    return "line %d col %d, offset %d-" % (line, column, offset)


class Report:
    """Collects output under a character budget, so a huge result cannot flood the caller."""

    def __init__(self):
        self.size, self.clipped = 0, False

    def line(self, text):
        if self.clipped:
            return
        if self.size + len(text) > MAX_OUTPUT_CHARS:
            self.clipped = True
            print("...[output clipped at %d characters]" % MAX_OUTPUT_CHARS)
            return
        self.size += len(text) + 1
        print(text)


def examine(compiled, subjects, whole_text, mode, replacement, max_matches, report, progress):
    matched_subjects = total = 0
    for number, subject in enumerate(subjects, 1):
        progress["subject"] = number
        report.line("text (%d characters):" % len(subject) if whole_text else "line %d: %s" % (number, quote(subject)))
        if mode == "search":
            matches = []
            for match in compiled.finditer(subject):
                if total + len(matches) >= max_matches:
                    progress["capped"] = True
                    break
                matches.append(match)
        else:
            match = (compiled.match if mode == "match" else compiled.fullmatch)(subject)
            matches = [match] if match is not None and total < max_matches else []
        if not matches:
            report.line("  no match")
        for index, match in enumerate(matches, 1):
            found = "  match %d at %s%d: %s" % (index, position(subject, match.start(), whole_text), match.end(),
                                               quote(match.group(0)))
            groups = group_text(compiled, match)
            report.line(found + ("  " + groups if groups else ""))
        if replacement is not None:
            count = 0 if mode == "search" else 1
            if mode == "search" or matches:
                try:
                    report.line("  replaced: %s" % quote(compiled.sub(replacement, subject, count=count)))
                except (re.error, IndexError) as error:
                    fail("replacement cannot be used: %s (write groups as \\1 or \\g<name>)" % error)
        total += len(matches)
        matched_subjects += 1 if matches else 0
        if progress.get("capped"):
            break
    return matched_subjects, total


def main():
    arguments = read_arguments()
    unknown = sorted(set(arguments) - KNOWN_KEYS)
    if unknown:
        fail("unknown argument %s; expected: %s" % (", ".join(unknown), ", ".join(sorted(KNOWN_KEYS - {"node"}))))
    flags = arguments.get("flags", "")
    compiled = compile_pattern(arguments.get("pattern"), flags)
    subjects, whole_text = read_subjects(arguments)
    mode = arguments.get("mode", "search")
    if mode not in MODES:
        fail("mode must be one of %s" % ", ".join(MODES))
    replacement = arguments.get("replacement")
    if replacement is not None and not isinstance(replacement, str):
        fail("replacement must be a string such as \"\\\\2-\\\\1\"")
    max_matches = whole_number(arguments, "max_matches", 1, 1000, 100)
    time_limit = whole_number(arguments, "time_limit_ms", 100, 10_000, 2000)

    flag_text = ", ".join(FLAG_NAMES[letter] for letter in sorted(set(flags))) or "none"
    print("Pattern: %s  flags: %s  mode: %s" % (quote(compiled.pattern), flag_text, mode))
    names = sorted(compiled.groupindex, key=compiled.groupindex.get)
    print("Groups: %d%s" % (compiled.groups, " (named: %s)" % ", ".join(names) if names else ""))
    if len(compiled.pattern) > 1 and compiled.pattern.startswith("/") and re.search(r"/[a-z]*$", compiled.pattern):
        print("Note: the pattern starts and ends with /; send it without delimiters and put flags in flags.")
    report, progress = Report(), {"subject": 0}
    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, time_limit / 1000.0)
    try:
        matched, total = examine(compiled, subjects, whole_text, mode, replacement, max_matches, report, progress)
    except TimeLimit:
        where = "the text" if whole_text else "line %d" % progress["subject"]
        fail("matching stopped after the %d ms time limit, on %s. The pattern backtracks catastrophically "
             "on this input: nested quantifiers such as (a+)+ or (.*)*, or alternatives that overlap such as "
             "(a|a)*, are the usual cause. Make each part match in only one way." % (time_limit, where), 1)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    plural = "" if total == 1 else "es"
    if whole_text:
        summary = "Summary: the text has %d match%s" % (total, plural)
    else:
        summary = "Summary: %d of %d lines matched, %d match%s" % (matched, len(subjects), total, plural)
    if progress.get("capped"):
        summary += "; stopped at max_matches=%d" % max_matches
    print(summary + ".")


if __name__ == "__main__":
    main()
