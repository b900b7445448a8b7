#!/usr/bin/env python3
"""The checks behind check_skill.py: each reads one part of a parsed SKILL.md and adds findings.

This is a helper module for check_skill.py, not a script to run. The rules mirror what
`skillgate validate` (strict validation) reports, plus advice that validation does not give.
"""
import difflib
import json
import re

MAX_SKILL_FILE_BYTES = 1024 * 1024
MAX_FRONT_MATTER_BYTES = 64 * 1024
MAX_BODY_CHARS = 20_000
INDEX_DESCRIPTION_CHARS = 250
MAX_FILES = 200
MAX_DOMAINS = 50
SPEC_FIELDS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
CHOICES = {
    "skillgate.execution": ("local", "sandbox", "node", "queue"),
    "skillgate.tier": ("read", "change", "destructive"),
    "skillgate.network": ("none", "bridge"),
}
KNOWN_SKILLGATE_KEYS = set(CHOICES) | {"skillgate.allowed-domains", "skillgate.author", "skillgate.source-chats",
                                       "skillgate.rationale", "skillgate.last-edit", "skillgate.review-warnings"}
GOVERNANCE_NAMES = {"execution", "tier", "network", "allowed-domains", "parameters_schema", "parameters-schema"}
JSON_TYPES = {"object", "array", "string", "number", "integer", "boolean", "null"}
RUNNABLE = (".py", ".js", ".mjs")


class Findings:
    def __init__(self):
        self.items = []

    def add(self, severity, code, field, message):
        self.items.append((severity, code, field, message))

    def error(self, code, field, message):
        self.add("error", code, field, message)

    def warning(self, code, field, message):
        self.add("warning", code, field, message)

    def note(self, field, message):
        self.add("note", "advice", field, message)


def code_points(text):
    return len(text)


def check_name(data, folder, findings):
    name = data.get("name")
    if name in (None, ""):
        findings.error("missing_name", "name", "front matter has no name")
        return
    if not isinstance(name, str):
        findings.error("invalid_name", "name", "name must be text, not %s" % type_name(name))
        return
    if not re.match(r"^[\x21-\x7e]+$", name):
        findings.error("invalid_name", "name", "name %s may use only a-z, 0-9 and \"-\"" % json.dumps(name))
        return
    if len(name) > 64:
        findings.error("name_too_long", "name", "name is %d characters; the limit is 64" % len(name))
    if not NAME.match(name):
        fixed = re.sub(r"-+", "-", re.sub(r"[^a-z0-9]+", "-", name.lower())).strip("-")
        findings.error("invalid_name", "name", "name %s may use only lower-case a-z, 0-9 and single hyphens, "
                       "not at the start or end (try %s)" % (json.dumps(name), json.dumps(fixed)))
    if folder is None:
        findings.note("name", "send folder_name to check that the name matches its folder (it must)")
    elif name != folder:
        findings.error("name_mismatch", "name", "name %s does not match its folder %s"
                       % (json.dumps(name), json.dumps(folder)))


def check_description(data, findings):
    description = data.get("description")
    if description is None or (isinstance(description, str) and not description.strip()):
        findings.error("missing_description", "description", "the skill has no description")
        return
    if not isinstance(description, str):
        findings.error("invalid_field", "description", "description must be text, not %s" % type_name(description))
        return
    length = code_points(description)
    if length > 1024:
        findings.error("description_too_long", "description",
                       "description is %d characters; the limit is 1024" % length)
    if length < 40:
        findings.warning("short_description", "description", "a %d-character description rarely tells a model "
                         "when to use the skill; say what it does and when to use it" % length)
    elif not re.search(r"\b(use|when|whenever|for)\b", description, re.IGNORECASE):
        findings.note("description", "say when to use the skill (\"Use when ...\"): the description is all a "
                      "model sees when it decides which skill to load")
    head = description[:INDEX_DESCRIPTION_CHARS]
    if length > INDEX_DESCRIPTION_CHARS and not re.search(r"\b(use|when|whenever)\b", head, re.IGNORECASE):
        findings.note("description", "the skill index shows the first %d characters; put what the skill does "
                      "and when to use it first" % INDEX_DESCRIPTION_CHARS)


def check_other_fields(data, findings):
    for key in ("license", "compatibility"):
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            findings.error("invalid_field", key, "%s must be text, not %s" % (key, type_name(value)))
    compatibility = data.get("compatibility")
    if isinstance(compatibility, str) and not 1 <= code_points(compatibility) <= 500:
        findings.error("invalid_field", "compatibility",
                       "compatibility must be 1 to 500 characters (has %d)" % code_points(compatibility))
    tools = data.get("allowed-tools")
    if tools is not None and not isinstance(tools, str) and not (
            isinstance(tools, list) and all(isinstance(tool, str) for tool in tools)):
        findings.error("invalid_allowed_tools", "allowed-tools",
                       "allowed-tools must be space-separated text or a list of text")
    for key in data:
        if key in SPEC_FIELDS:
            continue
        hint = ""
        if str(key).startswith(("skillgate.", "lucia.")) or key in GOVERNANCE_NAMES:
            hint = "; governance keys go under metadata:"
        elif key in ("version", "author", "tags", "category", "homepage"):
            hint = "; put it under metadata: as text, such as version: \"1.0\""
        else:
            close = difflib.get_close_matches(str(key), SPEC_FIELDS, n=1)
            hint = "; did you mean %s?" % close[0] if close else ""
        findings.error("unknown_field", str(key), "front matter key %s is not part of the Agent Skills "
                       "specification%s" % (json.dumps(key), hint))


def check_metadata(data, findings):
    metadata = data.get("metadata")
    if metadata is None:
        findings.note("metadata", "no metadata: the skill runs in the sandbox at tier change, so every call "
                      "asks first; add skillgate.tier: read if its scripts change nothing")
        return None
    if not isinstance(metadata, dict):
        findings.error("invalid_metadata", "metadata", "metadata must be a mapping, not %s" % type_name(metadata))
        return None
    for key, value in metadata.items():
        if not isinstance(value, str) and key not in ("parameters_schema", "skillgate.allowed-domains"):
            hint = "; quote it" if isinstance(value, (int, float, bool)) or value is None else ""
            findings.error("invalid_metadata", "metadata.%s" % key, "metadata.%s must be text, not %s%s"
                           % (key, type_name(value), hint))
        if str(key).startswith("lucia."):
            findings.warning("foreign_governance_key", "metadata.%s" % key,
                             "skillgate reads skillgate.* keys and ignores this one; rename it to skillgate.%s"
                             % key[6:])
        elif str(key).startswith("skillgate.") and key not in KNOWN_SKILLGATE_KEYS:
            close = difflib.get_close_matches(key, sorted(KNOWN_SKILLGATE_KEYS), n=1)
            findings.warning("unknown_governance_key", "metadata.%s" % key, "skillgate does not read %s%s"
                             % (key, "; did you mean %s?" % close[0] if close else ""))
        elif key in GOVERNANCE_NAMES and key != "parameters_schema":
            wanted = "parameters_schema" if key == "parameters-schema" else "skillgate." + key
            findings.warning("unknown_governance_key", "metadata.%s" % key,
                             "skillgate does not read %s; rename it to %s" % (key, wanted))
    for key, choices in CHOICES.items():
        value = metadata.get(key)
        if value is not None and value not in choices:
            findings.error("invalid_governance", "metadata.%s" % key, "%s must be one of %s (got %s)"
                           % (key, ", ".join(choices), json.dumps(value)))
    if "skillgate.tier" not in metadata:
        findings.note("metadata.skillgate.tier", "no tier: it defaults to change, so every call asks until "
                      "the owner grants it; use read when the scripts change nothing")
    execution = metadata.get("skillgate.execution", "sandbox")
    if "skillgate.network" in metadata and execution != "queue":
        findings.warning("network_ignored", "metadata.skillgate.network", "skillgate.network applies only to "
                         "queue scripts; a sandbox gets network only through skillgate.allowed-domains")
    check_domains(metadata.get("skillgate.allowed-domains"), findings)
    return metadata


def check_domains(raw, findings):
    field = "metadata.skillgate.allowed-domains"
    if raw is None:
        return
    if isinstance(raw, str):
        entries = [entry for entry in re.split(r"[\s,]+", raw) if entry]
    elif isinstance(raw, list):
        entries = raw
    else:
        findings.error("invalid_governance", field, "skillgate.allowed-domains must be a list of host names")
        return
    if len(entries) > MAX_DOMAINS:
        findings.error("invalid_governance", field, "%d hosts listed; the limit is %d" % (len(entries), MAX_DOMAINS))
    for entry in entries:
        problem = host_problem(entry)
        if problem:
            findings.error("invalid_governance", field, "%s: %s" % (json.dumps(entry), problem))


def host_problem(entry):
    if not isinstance(entry, str):
        return "a host must be text"
    if "://" in entry or "/" in entry:
        return "name the host only, without a scheme or path (api.github.com)"
    if "*" in entry:
        return "wildcards are not allowed; list each host"
    if re.search(r"[\s@\\?#\x00-\x1f]", entry):
        return "a host name cannot contain spaces, @, \\, ? or #"
    host, _, port = entry.partition(":")
    if port and (not port.isdigit() or not 1 <= int(port) <= 65535):
        return "the port must be 1-65535"
    try:
        ascii_host = host.rstrip(".").encode("idna").decode("ascii").lower()
    except UnicodeError:
        return "not a valid host name"
    labels = ascii_host.split(".")
    if len(labels) < 2 or not all(re.match(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$", label) for label in labels):
        return "not a full host name such as api.example.com"
    if labels[-1].isdigit():
        return "IP addresses are not allowed; allow-lists name hosts"
    return None


def check_schema(metadata, findings, files):
    field = "metadata.parameters_schema"
    raw = metadata.get("parameters_schema")
    if raw is None:
        findings.note(field, "no parameters_schema: models guess the arguments; declare one with \"type\": "
                      "\"object\", properties and required")
        return
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError as error:
            findings.error("invalid_parameters_schema", field, "parameters_schema is text but not valid JSON: %s" % error)
            return
    if not isinstance(raw, dict):
        findings.error("invalid_parameters_schema", field, "parameters_schema must be a JSON Schema object")
        return
    schemas = {"": raw} if "type" in raw else raw
    if not schemas:
        findings.error("invalid_parameters_schema", field,
                       "parameters_schema must have \"type\": \"object\" or map script paths to schemas")
    for script, schema in schemas.items():
        label = "parameters_schema" if script == "" else "parameters_schema for %s" % script
        if script and (script.startswith("/") or "\\" in script or any(part in ("", ".", "..") for part in script.split("/"))):
            findings.error("invalid_parameters_schema", field, "%s names a path outside the skill" % label)
            continue
        if script and files is not None and script not in files:
            findings.error("invalid_parameters_schema", field, "%s: there is no such file in files" % label)
        if not isinstance(schema, dict) or schema.get("type") != "object":
            findings.error("invalid_parameters_schema", field, "%s must have \"type\": \"object\"" % label)
            continue
        properties = schema.get("properties", {})
        if not isinstance(properties, dict) or not all(isinstance(item, dict) for item in properties.values()):
            findings.error("invalid_parameters_schema", field, "%s: properties must map names to schemas" % label)
            properties = {}
        for name, item in properties.items():
            kinds = item.get("type", [])
            for kind in kinds if isinstance(kinds, list) else [kinds]:
                if kind not in JSON_TYPES:
                    findings.error("invalid_parameters_schema", field, "%s: property %s has type %s, which JSON "
                                   "Schema does not know" % (label, name, json.dumps(kind)))
        required = schema.get("required", [])
        if not isinstance(required, list) or not all(isinstance(item, str) for item in required):
            findings.error("invalid_parameters_schema", field, "%s: required must be a list of names" % label)
        elif schema.get("additionalProperties") is False:
            for name in required:
                if name not in properties and name != "node":
                    findings.error("invalid_parameters_schema", field, "%s requires %s, which additionalProperties: "
                                   "false forbids because it is not in properties" % (label, name))
    if "type" in raw and raw.get("additionalProperties") is None:
        findings.note(field, "additionalProperties: false makes a misspelt argument name an error instead of "
                      "being ignored")


def check_body(body, files, findings):
    text = body.strip()
    if not text:
        findings.warning("empty_body", "body", "the body is empty: it is what a model reads after choosing the "
                         "skill; say how to use it, what to send and what comes back")
        return
    if len(text) > MAX_BODY_CHARS:
        findings.warning("body_clipped", "body", "the body is %d characters; models see the first %d. Move "
                         "reference material into references/*.md and link to it" % (len(text), MAX_BODY_CHARS))
    if files is None:
        return
    for path in files:
        if path.startswith("scripts/") and path.endswith(RUNNABLE) and path not in text and path[8:] not in text:
            findings.warning("script_not_mentioned", path, "the body never mentions this script, so a model "
                             "will not know when to run it")
    # Paths inside fenced code blocks are examples, not links to this skill's files.
    prose = re.sub(r"^(```|~~~).*?^\1", "", text, flags=re.MULTILINE | re.DOTALL)
    for link in sorted(set(re.findall(r"\b((?:references|assets|scripts)/[\w./-]+\w)", prose))):
        if link not in files:
            findings.warning("missing_file", link, "the body names this file but files does not list it")


def check_files(files, findings):
    if files is None:
        return
    if len(files) > MAX_FILES:
        findings.error("limit_exceeded", "files", "%d files; a skill may hold at most %d" % (len(files), MAX_FILES))
    for path in files:
        if path.startswith("/") or "\\" in path or ".." in path.split("/"):
            findings.error("path_not_allowed", path, "paths must stay inside the skill folder")
        elif path.startswith("scripts/") and not path.endswith(RUNNABLE) and "/" not in path[8:]:
            findings.note(path, "the sandbox runs .py, .js and .mjs scripts; other kinds need another runner")


def type_name(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "text"


if __name__ == "__main__":
    print("ERROR: skill_checks.py is a helper module; run scripts/check_skill.py instead")
    raise SystemExit(2)
