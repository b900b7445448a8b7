#!/usr/bin/env python3
"""cron-explain: explain a standard 5-field cron expression and list its next run times.

Arguments arrive as one JSON object on stdin (or, when stdin is empty, in the
SKILLGATE_SKILL_ARGS environment variable). Bad arguments print a line starting
with "ERROR:" and exit 2. Nothing is written to disk and nothing uses the network.
"""
import datetime
import json
import os
import re
import sys

MAX_INPUT_BYTES = 64 * 1024
MAX_COUNT = 100
HORIZON_DAYS = 3660
KNOWN_KEYS = {"expression", "count", "start", "timezone", "node"}
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]
DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
MACROS = {
    "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}


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
        fail('no arguments; send a JSON object such as {"expression": "*/15 9-17 * * 1-5"}')
    try:
        value = json.loads(text)
    except ValueError as error:
        fail("arguments are not valid JSON: %s" % error)
    if not isinstance(value, dict):
        fail("arguments must be a JSON object")
    return value


class Field:
    """One cron field: its text, the values it allows and the parts it was written as."""

    def __init__(self, label, low, high, names, unit):
        self.label, self.low, self.high, self.names, self.unit = label, low, high, names, unit
        self.text, self.values, self.parts, self.star = "", set(), [], False

    def name(self, value):
        if self.names is not None:
            return self.names[value % 7] if self.label == "day-of-week" else self.names[value - 1]
        return str(value)

    def number(self, token):
        short_names = [name[:3].lower() for name in self.names or []]
        if token.isdigit():
            value = int(token)
        elif token.lower() in short_names:
            value = short_names.index(token.lower()) + (1 if self.label == "month" else 0)
        elif re.fullmatch(r"(\d+|[a-z]{3})?l|\d+w|lw", token.lower()):
            fail("%s: %s is not standard cron syntax (L and W come from Quartz and other schedulers)"
                 % (self.label, json.dumps(token)))
        elif token[:3].lower() in short_names:
            fail("%s: write names as three letters, such as %s (got %s)"
                 % (self.label, short_names[1].upper(), json.dumps(token)))
        else:
            kind = "a number or a three-letter name" if self.names else "a number"
            fail("%s: %s is not %s" % (self.label, json.dumps(token), kind))
        if not self.low <= value <= self.high:
            fail("%s: %d is out of range %d-%d" % (self.label, value, self.low, self.high))
        return value

    def parse(self, text):
        self.text = text
        self.star = text.startswith("*")
        for marker in ("?", "#"):
            if marker in text:
                fail("%s: %s is not standard cron syntax (it comes from Quartz and other schedulers)"
                     % (self.label, json.dumps(marker)))
        for part in text.split(","):
            self.parse_part(part)

    def parse_part(self, part):
        body, _, step_text = part.partition("/")
        step = 1
        if "/" in part:
            if not step_text.isdigit() or int(step_text) == 0:
                fail("%s: the step in %s must be a whole number above 0" % (self.label, json.dumps(part)))
            step = int(step_text)
        if body == "*":
            start, end, star = self.low, self.high, True
        elif "-" in body:
            first, _, last = body.partition("-")
            start, end, star = self.number(first), self.number(last), False
            if start > end:
                fail("%s: the range %s runs backwards; cron does not wrap around" % (self.label, body))
        elif body == "":
            fail("%s: %s has an empty part" % (self.label, json.dumps(self.text)))
        else:
            start, star = self.number(body), False
            end = self.high if "/" in part else start
        if self.label == "day-of-week" and star:
            end = 6
        self.parts.append((start, end, step, star))
        for value in range(start, end + 1, step):
            self.values.add(0 if self.label == "day-of-week" and value == 7 else value)

    def everything(self):
        return len(self.values) == (7 if self.label == "day-of-week" else self.high - self.low + 1)

    def phrase(self):
        pieces = []
        for start, end, step, star in self.parts:
            if star and step == 1:
                pieces.append("every " + self.unit)
            elif star:
                pieces.append("every %d %ss" % (step, self.unit))
            elif start == end:
                pieces.append(self.name(start))
            elif step == 1:
                pieces.append("%s through %s" % (self.name(start), self.name(end)))
            else:
                pieces.append("every %d %ss from %s through %s" % (step, self.unit, self.name(start), self.name(end)))
        return join_words(pieces)

    def fixed(self):
        return all(start == end for start, end, _, _ in self.parts)

    def listing(self):
        if self.everything():
            return "every " + self.unit
        return ", ".join(self.name(value) for value in sorted(self.values))


def join_words(pieces):
    if len(pieces) <= 1:
        return "".join(pieces)
    return ", ".join(pieces[:-1]) + " and " + pieces[-1]


def parse_expression(expression):
    text = " ".join(expression.split())
    if text.lower() in MACROS:
        text = MACROS[text.lower()]
    elif text.startswith("@"):
        fail("unknown macro %s; known: %s, @reboot" % (json.dumps(text), ", ".join(sorted(MACROS))))
    words = text.split(" ")
    if len(words) != 5:
        hint = " A 6- or 7-field expression has seconds or years (Quartz); drop them." if len(words) in (6, 7) else ""
        fail("expected 5 fields (minute hour day-of-month month day-of-week), got %d.%s" % (len(words), hint))
    fields = [Field("minute", 0, 59, None, "minute"), Field("hour", 0, 23, None, "hour"),
              Field("day-of-month", 1, 31, None, "day"), Field("month", 1, 12, MONTHS, "month"),
              Field("day-of-week", 0, 7, DAYS, "day")]
    for field, word in zip(fields, words):
        field.parse(word)
    return fields


def describe(fields):
    minute, hour, day, month, weekday = fields
    if minute.everything() and hour.everything():
        time = "every minute"
    elif minute.fixed() and hour.fixed() and len(minute.values) * len(hour.values) <= 6:
        times = ["%02d:%02d" % (h, m) for h in sorted(hour.values) for m in sorted(minute.values)]
        time = "at " + join_words(times)
    else:
        if minute.fixed():
            time = "at minute%s %s past " % ("s" if len(minute.values) > 1 else "", minute.phrase())
            time += "every hour" if hour.everything() else (
                hour.phrase() if not hour.fixed() else "hour%s %s" % ("s" if len(hour.values) > 1 else "", hour.phrase()))
        else:
            time = minute.phrase() if minute.parts[0][3] else "at minutes " + minute.phrase()
            if not hour.everything():
                hours = join_words([str(value) for value in sorted(hour.values)]) if hour.star else hour.phrase()
                time += ", during hour%s %s" % ("s" if len(hour.values) > 1 else "", hours)
    dates = []
    if day.star:
        day_text = "on %s of the month" % join_words([str(value) for value in sorted(day.values)])
        day_text = day_text.replace("on ", "on days ", 1) if len(day.values) > 1 else day_text
    else:
        day_text = "on day%s %s of the month" % ("s" if len(day.values) > 1 else "", day.phrase())
    weekday_text = "on " + (join_words([DAYS[value] for value in sorted(weekday.values)])
                            if weekday.star else weekday.phrase())
    if not day.star and not weekday.star:
        dates.append("%s or %s" % (day_text, weekday_text))
    elif not day.star or not day.everything():
        dates.append(day_text)
        if not weekday.everything():
            dates.append("and only " + weekday_text)
    elif not weekday.everything():
        dates.append(weekday_text)
    if not month.everything():
        dates.append("in " + month.phrase())
    sentence = time[0].upper() + time[1:] + (", " + ", ".join(dates) if dates else "") + "."
    return sentence.replace("every 1 ", "every ")


def day_matches(fields, date):
    _, _, day, _, weekday = fields
    day_ok = date.day in day.values
    weekday_ok = (date.weekday() + 1) % 7 in weekday.values
    if day.star or weekday.star:
        return day_ok and weekday_ok
    return day_ok or weekday_ok


def attach(local, zone):
    """The aware time for a wall-clock time, or None when a DST change skips it."""
    aware = local.replace(tzinfo=zone)
    if aware.astimezone(datetime.timezone.utc).astimezone(zone).replace(tzinfo=None) != local:
        return None
    return aware


def next_runs(fields, start, zone, count):
    minute, hour, _, month, _ = fields
    minutes = sorted(minute.values)
    local = start.astimezone(zone).replace(tzinfo=None, second=0, microsecond=0)
    local += datetime.timedelta(minutes=1)
    horizon = local + datetime.timedelta(days=HORIZON_DAYS)
    runs = []
    while len(runs) < count and local <= horizon:
        if local.month not in month.values:
            year, next_month = (local.year + 1, 1) if local.month == 12 else (local.year, local.month + 1)
            local = datetime.datetime(year, next_month, 1)
        elif not day_matches(fields, local):
            local = datetime.datetime(local.year, local.month, local.day) + datetime.timedelta(days=1)
        elif local.hour not in hour.values:
            local = local.replace(minute=0) + datetime.timedelta(hours=1)
        else:
            later = [value for value in minutes if value >= local.minute]
            if not later:
                local = local.replace(minute=0) + datetime.timedelta(hours=1)
                continue
            local = local.replace(minute=later[0])
            aware = attach(local, zone)
            if aware is not None and aware > start:
                runs.append(aware)
            local += datetime.timedelta(minutes=1)
    return runs


def read_zone(name):
    if name is None:
        return None
    if not isinstance(name, str) or not name:
        fail('timezone must be an IANA name such as "Europe/Berlin" or "UTC"')
    if name.upper() == "UTC":
        return datetime.timezone.utc
    try:
        import zoneinfo
        return zoneinfo.ZoneInfo(name)
    except ImportError:
        fail("timezone needs Python 3.9 or newer; send start with an offset instead")
    except Exception:
        fail("unknown timezone %s (or no time zone database here); use a name such as \"Europe/Berlin\", "
             "or give start with an offset such as 2025-03-01T08:00:00+01:00" % json.dumps(name))


def read_start(text, zone):
    if text is None:
        now = datetime.datetime.now(datetime.timezone.utc)
        return now.astimezone(zone) if zone is not None else now
    if not isinstance(text, str):
        fail('start must be an ISO 8601 time such as "2025-03-01T08:00:00Z"')
    cleaned = text.strip().replace(" ", "T", 1)
    if cleaned.endswith(("Z", "z")):
        cleaned = cleaned[:-1] + "+00:00"
    try:
        start = datetime.datetime.fromisoformat(cleaned)
    except ValueError:
        fail('start %s is not an ISO 8601 time such as "2025-03-01T08:00:00Z"' % json.dumps(text))
    if start.tzinfo is None:
        return start.replace(tzinfo=zone or datetime.timezone.utc)
    return start.astimezone(zone) if zone is not None else start


def main():
    arguments = read_arguments()
    unknown = sorted(set(arguments) - KNOWN_KEYS)
    if unknown:
        fail("unknown argument %s; expected: expression, count, start, timezone" % ", ".join(unknown))
    expression = arguments.get("expression")
    if not isinstance(expression, str) or not expression.strip():
        fail('expression must be a cron expression such as "*/15 9-17 * * 1-5"')
    if len(expression) > 500:
        fail("expression is longer than 500 characters")
    count = arguments.get("count", 5)
    if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_COUNT:
        fail("count must be a whole number from 0 to %d" % MAX_COUNT)
    zone = read_zone(arguments.get("timezone"))
    start = read_start(arguments.get("start"), zone)
    if expression.strip().lower() == "@reboot":
        print("Expression: @reboot")
        print("Meaning: Once, when the cron daemon starts (usually at boot). It has no schedule of run times.")
        return
    fields = parse_expression(expression)
    print("Expression: %s" % expression.strip())
    if expression.strip().lower() in MACROS:
        print("Expands to: %s" % MACROS[expression.strip().lower()])
    print("Meaning: %s" % describe(fields))
    if not fields[2].star and not fields[4].star:
        print("Note: day-of-month and day-of-week are both restricted, so cron runs when EITHER matches.")
    print("Fields:")
    for field in fields:
        print("  %-13s %-12s %s" % (field.label, field.text, field.listing()))
    if count == 0:
        return
    zone_name = arguments.get("timezone") or ("UTC" if start.utcoffset() == datetime.timedelta(0)
                                              else "UTC" + start.isoformat()[-6:])
    runs = next_runs(fields, start, zone or start.tzinfo, count)
    print("Next %d run%s after %s (%s):" % (count, "" if count == 1 else "s", start.isoformat(), zone_name))
    for run in runs:
        print("  %s  %s" % (run.isoformat(), DAYS[(run.weekday() + 1) % 7]))
    if not runs:
        print("  none: the expression matches no date in the next %d years (such as day 31 of a 30-day month)."
              % (HORIZON_DAYS // 366))
    elif len(runs) < count:
        print("  (only %d run%s in the next %d years)" % (len(runs), "" if len(runs) == 1 else "s", HORIZON_DAYS // 366))


if __name__ == "__main__":
    main()
