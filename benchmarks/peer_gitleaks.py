"""Read gitleaks' own labelled cases from a fetched copy: every rule's true and false positives.

Each rule in `cmd/generate/config/rules/*.go` is a Go function that builds its `config.Rule` and
hands `utils.Validate(r, tps, fps)` its examples, literal strings and strings made at run time
(`secrets.NewSecret(pattern)`, `utils.GenerateSampleSecrets(id, secret)`, `fmt.Sprintf`, `append`).
This module evaluates that small subset of Go: string literals, `+`, `[]string{...}`, local and
package variables, and those helper calls (the templates and regex builders are read from the
peer's own `utils/generate.go`). A statement it cannot evaluate is skipped and counted.
"""

from __future__ import annotations

import base64
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.go_subset import FAILURES, Evaluator, Unsupported, assignments, go_string, sprintf, tokens
from benchmarks.regex_sample import go_to_python, sample

__all__ = ["Rule", "read_rules"]


@dataclass
class Rule:
    rule_id: str
    family: str  # the rule file's name: aws, slack, generic...
    regex: str
    secret_group: int
    tps: list[str] = field(default_factory=list)
    fps: list[str] = field(default_factory=list)


class _Helpers:
    """The Go helpers the rules call, with the templates and regex pieces read from the peer's utils."""

    def __init__(self, generate_go: str, rnd: random.Random) -> None:
        self.rnd = rnd
        self.const: dict[str, str] = {
            m.group(1): go_string(m.group(2)) for m in re.finditer(r"\n\t(\w+)\s*=\s*(`[^`]*`)", generate_go)
        }
        block = generate_go[generate_go.index("samples := map[string]string{") :]
        block = block[: block.index("\n\t}\n")]
        self.samples = [
            go_string(m.group(1)) for m in re.finditer(r'^\s*"[^"\n]*":\s*(`[^`]*`|"(?:[^"\\\n]|\\.)*"),', block, re.M)
        ]
        single = re.search(r"func GenerateSampleSecret\(.*?Sprintf\((\"(?:[^\"\\]|\\.)*\")", generate_go, re.S)
        self.single = go_string(single.group(1)) if single else '%s_api_token = "%s"'

    def call(self, name: str, args: list, spread: bool):
        short = name.split(".")[-1]
        patterns = {
            "Numeric": "[0-9]{%s}",
            "Hex": "[a-f0-9]{%s}",
            "AlphaNumeric": "[a-z0-9]{%s}",
            "AlphaNumericExtendedShort": "[a-z0-9_-]{%s}",
            "AlphaNumericExtended": r"[a-z0-9=_\-]{%s}",
            "AlphaNumericExtendedLong": r"[a-z0-9\/=_\+\-]{%s}",
        }
        if name.startswith("utils.") and short in patterns:
            return patterns[short] % args[0]
        if short == "Hex8_4_4_4_12":
            return "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        if name == "secrets.NewSecret":
            return sample(args[0], self.rnd)
        if name == "newPlausibleSecret":  # generic.go's own helper: a sample holding a digit 1-9
            while not re.search("[1-9]", value := sample(args[0], self.rnd)):
                pass
            return value
        if name == "utils.GenerateSampleSecrets":
            identifier, secret = args
            return [
                t.replace("{i}", identifier).replace("{I}", identifier.upper()).replace("{s}", secret)
                for t in self.samples
            ]
        if name == "utils.GenerateSampleSecret":
            return self.single.replace("%s", args[0], 1).replace("%s", args[1], 1)
        if name == "fmt.Sprintf":
            return sprintf(args[0], list(args[1:]))
        if name == "append":
            base = list(args[0] or [])
            for extra in args[1:]:
                base += extra if isinstance(extra, list) else [extra]
            return base
        if name == "regexp.MustCompile":
            return args[0]
        if name == "utils.GenerateSemiGenericRegex":
            identifiers, secret, insensitive = args
            c = self.const
            head = (
                "(?i)" + c["identifierPrefix"]
                if insensitive
                else c["identifierCaseInsensitivePrefix"] + c["identifierPrefix"]
            )
            ids = "|".join(identifiers) + c["identifierSuffix"]
            tail = "" if insensitive else c["identifierCaseInsensitiveSuffix"]
            return head + ids + tail + c["operator"] + c["secretPrefix"] + secret + c["secretSuffix"]
        if name == "utils.GenerateUniqueTokenRegex":
            secret, insensitive = args
            c = self.const
            return ("(?i)" if insensitive else "") + c["secretPrefixUnique"] + secret + c["secretSuffix"]
        if name == "utils.MergeRegexps":
            return "|".join(args)
        if name == "strings.Repeat":
            return args[0] * args[1]
        if name == "strings.ToUpper":
            return args[0].upper()
        if name == "strings.ToLower":
            return args[0].lower()
        if short == "EncodeToString":
            data = args[0].encode()
            if "RawURL" in name:
                return base64.urlsafe_b64encode(data).decode().rstrip("=")
            if "URL" in name:
                return base64.urlsafe_b64encode(data).decode()
            if "RawStd" in name:
                return base64.b64encode(data).decode().rstrip("=")
            return base64.b64encode(data).decode()
        raise Unsupported("call " + name)


def _validate_call(toks: list[tuple[str, str]], env: dict, helpers: _Helpers) -> tuple[list, list] | None:
    for i, (_, text) in enumerate(toks):
        if text == "utils.Validate":
            evaluator = Evaluator(toks, env, helpers.call, i + 1)
            evaluator.take("(")
            evaluator.take()  # the rule
            evaluator.take(",")
            try:
                tps = evaluator.expr()
                evaluator.take(",")
                fps = evaluator.expr()
            except FAILURES:
                return None
            return list(tps or []), list(fps or [])
    return None


def read_rules(root: Path, seed: int = 28) -> tuple[list[Rule], list[str]]:
    """Every rule with its cases, and a note for each rule or statement that could not be read."""
    config = root / "cmd" / "generate" / "config"
    helpers = _Helpers((config / "utils" / "generate.go").read_text(encoding="utf-8"), random.Random(seed))
    rules: list[Rule] = []
    notes: list[str] = []
    for path in sorted((config / "rules").glob("*.go")):
        source = path.read_text(encoding="utf-8")
        functions = list(re.finditer(r"^func (\w+)\(\) \*config\.Rule \{$", source, re.M))
        outside = source[: functions[0].start()] if functions else source
        package_env: dict = {}
        assignments(tokens(outside), package_env, helpers.call)
        for n, function in enumerate(functions):
            end = functions[n + 1].start() if n + 1 < len(functions) else len(source)
            body = source[function.end() : end]
            rule_id = re.search(r'RuleID:\s*"([^"]+)"', body)
            if rule_id is None:
                continue
            toks = tokens(body)
            env = dict(package_env)
            _, skipped = assignments(toks, env, helpers.call, watched=("tps", "fps"))
            regex = _rule_regex(toks, env, helpers)
            cases = _validate_call(toks, env, helpers)
            if cases is None or regex is None:
                notes.append(f"{path.name}:{rule_id.group(1)}: cases not readable (ValidateWithPaths or Go we skip)")
                continue
            if skipped:
                notes.append(f"{path.name}:{rule_id.group(1)}: {skipped} tps/fps statement(s) skipped")
            group = re.search(r"SecretGroup:\s*(\d+)", body)
            rules.append(
                Rule(
                    rule_id.group(1),
                    path.stem,
                    go_to_python(regex),
                    int(group.group(1)) if group else 0,
                    [c for c in cases[0] if isinstance(c, str)],
                    [c for c in cases[1] if isinstance(c, str)],
                )
            )
    return rules, notes


def _rule_regex(toks: list[tuple[str, str]], env: dict, helpers: _Helpers) -> str | None:
    for i, (_, text) in enumerate(toks):
        if text == "Regex" and toks[i + 1][1] == ":":
            evaluator = Evaluator(toks, env, helpers.call, i + 2)
            try:
                value = evaluator.expr()
            except FAILURES:
                return None
            return value if isinstance(value, str) else None
    return None


def secrets_in(rule: Rule, text: str) -> list[str]:
    """The values gitleaks' rule reports in `text` (its secret group, else the first non-empty group)."""
    try:
        pattern = re.compile(rule.regex)
    except re.error:
        return []
    out = []
    for match in pattern.finditer(text):
        if rule.secret_group and rule.secret_group <= (pattern.groups or 0):
            value = match.group(rule.secret_group)
        else:
            value = next((g for g in match.groups() if g), None) or match.group()
        if value:
            out.append(value)
    return out
