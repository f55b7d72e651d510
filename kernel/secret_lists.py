"""Secrets whose name does not stand just before their value: the detector's positional rules.

- Names and values paired by position, as Go, Python, JavaScript and Ruby assign several at once
  (`user, password := "app", "<value>"`, `const a, b string = "x", "y"`): each value is read under its
  own name, so the secret one goes and the others stay.
- The items of a YAML list under a secret-named key on the line above (`db_passwords:` then
  `- "<value>"`), or of a JSON array of strings (`"db_passwords": ["<value>"]`): each item is read
  as a value of the key's singular (`db_password`). Items that are
  names (`- db_password`, a workflow's secrets), references (`- ${PW}`), mappings (`- name: regcred`)
  or several words (an authorized public key with its comment) stay.
"""

from __future__ import annotations

import re

from kernel.secret_values import acceptable_value, secret_name

__all__ = ["listed_values", "paired_values", "starts_a_name_list"]

_NAME = r"[A-Za-z_$][\w.$]*"
_QUOTED = r"""(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`\n]*`)"""
_PAIRED = re.compile(
    rf"(?m)^[ \t]*(?:(?:const|var|let|local)[ \t]+)?({_NAME}(?:[ \t]*,[ \t]*{_NAME})+)"
    rf"(?:[ \t]+[A-Za-z_][\w.\[\]*]*)?[ \t]*:?=[ \t]*({_QUOTED}(?:[ \t]*,[ \t]*{_QUOTED})+)[ \t]*;?[ \t]*$"
)
_ONE_QUOTED = re.compile(_QUOTED)
# What stands before a name that is one of several assigned at once: only names and commas on its line
_NAME_LIST_BEFORE = re.compile(rf"^[ \t]*(?:(?:const|var|let|local)[ \t]+)?(?:{_NAME}[ \t]*,[ \t]*)+$")


def starts_a_name_list(text: str, line_start: int, name_start: int) -> bool:
    """The name at `name_start` follows other names and commas only (`a, password := ...`): its value is
    the one at its position, which `paired_values` finds, not the first after the separator."""
    return _NAME_LIST_BEFORE.match(text, line_start, name_start) is not None


def paired_values(text: str) -> list[tuple[int, int, str, int]]:
    found: list[tuple[int, int, str, int]] = []
    for match in _PAIRED.finditer(text):
        names = [n.strip() for n in match.group(1).split(",")]
        values = list(_ONE_QUOTED.finditer(text, match.start(2), match.end(2)))
        if len(names) != len(values):
            continue
        for name, value in zip(names, values, strict=True):
            body = value.group()[1:-1]
            if secret_name(name) and acceptable_value(body, quoted=True, separator="=", name=name):
                found.append((value.start() + 1, value.end() - 1, "assignment", 2))
    return found


_LIST_KEY = re.compile(r"(?m)^([ \t]*)([\w.-]{2,80}):[ \t]*\r?$")
_ITEM = re.compile(r"""[ \t]*-[ \t]+(?:(["'])([^"'\n]+)\1|([^\s"'#][^\s#]*))[ \t]*(?:#[^\n]*)?\r?$""")


def _singular(name: str) -> str:
    return name[:-1] if name.endswith("s") and not name.endswith("ss") else name


def _listed_item(value: str, quoted: bool, name: str) -> bool:
    return (
        not value.startswith(("$", "{", "[", "<", "%"))
        and ": " not in value
        and not value.endswith(":")
        and acceptable_value(value, quoted=quoted, separator=":", name=name)
    )


# `"db_passwords": [ "<value>", ... ]`: a JSON array of strings under a secret-named key
_STRING = r'"(?:[^"\\\n]|\\.)*"'
_JSON_LIST = re.compile(rf""""([\w.-]{{2,80}})"[ \t]*:[ \t]*\[(\s*{_STRING}(?:\s*,\s*{_STRING})*)\s*,?\s*\]""")
_JSON_ITEM = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def listed_values(text: str) -> list[tuple[int, int, str, int]]:
    found: list[tuple[int, int, str, int]] = []
    if '": [' in text or '":[' in text:
        for array in _JSON_LIST.finditer(text):
            name = _singular(array.group(1))
            if not secret_name(name):
                continue
            for item in _JSON_ITEM.finditer(text, array.start(2), array.end(2)):
                if _listed_item(item.group(1), True, name):
                    found.append((item.start(1), item.end(1), "assignment", 2))
    for key in _LIST_KEY.finditer(text):
        name = _singular(key.group(2))
        if not secret_name(name):
            continue
        at = key.end() + 1
        while at < len(text):
            line_end = text.find("\n", at)
            line_end = len(text) if line_end == -1 else line_end
            entry = _ITEM.match(text, at, line_end)
            if entry is None or not text.startswith(key.group(1), at):
                break
            quote = entry.group(1) or ""
            value = entry.group(2) if quote else entry.group(3)
            start = entry.start(2) if quote else entry.start(3)
            if _listed_item(value, bool(quote), name):
                found.append((start, start + len(value), "assignment", 2))
            at = line_end + 1
    return found
