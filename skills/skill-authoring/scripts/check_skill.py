#!/usr/bin/env python3
"""check_skill: find the common mistakes in a SKILL.md before it is saved or imported.

Arguments arrive as one JSON object on stdin (or, when stdin is empty, in the
SKILLGATE_SKILL_ARGS environment variable):
  {"skill_md": "<the whole SKILL.md text>", "folder_name": "my-skill", "files": ["scripts/run.py"]}
Findings print one a line as "error|warning|note [code] field: message". A finished
check exits 0 whatever it found; bad arguments print "ERROR: ..." and exit 2. It reads
nothing but its arguments, writes nothing and needs no network.
"""
import json
import os
import sys

sys.dont_write_bytecode = True  # the skill folder is read-only in a sandbox, and its hash must not change
from skill_checks import (Findings, check_body, check_description, check_files, check_metadata,  # noqa: E402
                          check_name, check_other_fields, check_schema, MAX_FRONT_MATTER_BYTES,
                          MAX_SKILL_FILE_BYTES)
from skill_front_matter import Unsupported, YamlError, parse_front_matter, split_front_matter  # noqa: E402

MAX_INPUT_BYTES = 2 * 1024 * 1024


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
        fail('no arguments; send {"skill_md": "<the SKILL.md text>", "folder_name": "<its folder>"}')
    try:
        value = json.loads(text)
    except ValueError as error:
        fail("arguments are not valid JSON: %s" % error)
    if not isinstance(value, dict):
        fail("arguments must be a JSON object")
    unknown = sorted(set(value) - {"skill_md", "folder_name", "files", "node"})
    if unknown:
        fail("unknown argument %s; expected skill_md, and optionally folder_name and files" % ", ".join(unknown))
    if not isinstance(value.get("skill_md"), str):
        fail("skill_md must be the whole SKILL.md text, as a string")
    folder = value.get("folder_name")
    if folder is not None and (not isinstance(folder, str) or not folder or "/" in folder):
        fail("folder_name must be the skill folder's name, such as \"my-skill\"")
    files = value.get("files")
    if files is not None and (not isinstance(files, list) or not all(isinstance(item, str) for item in files)):
        fail("files must be a list of paths inside the skill, such as [\"scripts/run.py\"]")
    return value


def check(arguments):
    text, folder, files = arguments["skill_md"], arguments.get("folder_name"), arguments.get("files")
    findings = Findings()
    size = len(text.encode("utf-8"))
    if size > MAX_SKILL_FILE_BYTES:
        findings.error("file_too_large", "SKILL.md", "%d bytes; the limit is %d" % (size, MAX_SKILL_FILE_BYTES))
    if "\x00" in text:
        findings.error("binary_content", "SKILL.md", "the text holds a NUL character")
    yaml, body, unterminated = split_front_matter(text)
    check_files(files, findings)
    if unterminated:
        findings.error("unterminated_front_matter", "front matter", "starts with --- but has no closing --- line")
        return findings
    if yaml is None:
        findings.error("missing_front_matter", "front matter", "SKILL.md must start with a line ---, then name: "
                       "and description:, then a closing line ---")
        check_body(body, files, findings)
        return findings
    if len(yaml.encode("utf-8")) > MAX_FRONT_MATTER_BYTES:
        findings.error("front_matter_too_large", "front matter", "more than %d bytes" % MAX_FRONT_MATTER_BYTES)
        return findings
    try:
        data = parse_front_matter(yaml)
    except YamlError as error:
        # YAML line 1 is SKILL.md line 2, after the opening ---.
        findings.error("duplicate_key" if "appears twice" in error.reason else "invalid_front_matter",
                       "front matter", "not valid YAML on SKILL.md line %d: %s" % (error.line + 1, error.reason))
        return findings
    except (Unsupported, RecursionError) as error:
        findings.add("note", "not_checked", "front matter", "uses YAML this checker does not read (%s); run "
                     "`skillgate validate` to check it" % error)
        return findings
    if data is None:
        data = {}
    if not isinstance(data, dict):
        findings.error("front_matter_not_mapping", "front matter", "front matter must be a mapping of keys to values")
        return findings
    check_name(data, folder, findings)
    check_description(data, findings)
    check_other_fields(data, findings)
    metadata = check_metadata(data, findings)
    if metadata is not None:
        check_schema(metadata, findings, files)
    check_body(body, files, findings)
    return findings


def main():
    findings = check(read_arguments())
    counts = {severity: sum(1 for item in findings.items if item[0] == severity)
              for severity in ("error", "warning", "note")}
    unchecked = any(item[1] == "not_checked" for item in findings.items)
    verdict = "FAIL" if counts["error"] else "INCOMPLETE" if unchecked else "PASS"
    print("%s: %d error%s, %d warning%s, %d note%s" % (
        verdict, counts["error"], "" if counts["error"] == 1 else "s", counts["warning"],
        "" if counts["warning"] == 1 else "s", counts["note"], "" if counts["note"] == 1 else "s"))
    order = {"error": 0, "warning": 1, "note": 2}
    for severity, code, field, message in sorted(findings.items, key=lambda item: order[item[0]]):
        print("%-7s [%s] %s: %s" % (severity, code, field, message))


if __name__ == "__main__":
    main()
