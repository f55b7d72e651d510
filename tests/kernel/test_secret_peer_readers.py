"""The parsing helpers of the secret benchmark's peer readers (`benchmarks/peer_*.py`, `go_subset`,
`regex_sample`), on small inline samples written here: the conformance figures are only as good as
what these read. No peer checkout is needed."""

from __future__ import annotations

import random
import re

from benchmarks.go_subset import go_string, sprintf, tokens
from benchmarks.peer_noseyparker import _parse_rules, _python_pattern, _values
from benchmarks.regex_sample import go_to_python, sample
from benchmarks.secret_corpora import secret_part

_RULES = """\
rules:
- name: Example Token
  id: ex.token.1
  pattern: |
    (?x)
    \\b
    (exa_[a-z0-9]{8})  # the token
    \\b
  examples:
  - 'key = exa_1234abcd'
  - "quoted \\"exa_abcd1234\\" here"
  - |
    first line
    exa_0000ffff
  negative_examples:
  - exa_short
  references:
  - https://example.com/docs
- name: Folded
  id: ex.folded.1
  pattern: 'plain'
  examples:
  - >-
    folded
    into one
"""


def test_the_yaml_subset_reader_reads_block_scalars_quotes_and_sequences():
    parsed = _parse_rules(_RULES)
    first, second = parsed["rules"]
    assert first["id"] == "ex.token.1"
    assert first["pattern"].startswith("(?x)\n") and "# the token" in first["pattern"]
    assert first["examples"] == ["key = exa_1234abcd", 'quoted "exa_abcd1234" here', "first line\nexa_0000ffff\n"]
    assert first["negative_examples"] == ["exa_short"]
    assert first["references"] == ["https://example.com/docs"]
    assert second["examples"] == ["folded into one"]


def test_a_verbose_rust_pattern_becomes_python_and_yields_its_group():
    parsed = _parse_rules(_RULES)
    pattern = _python_pattern(parsed["rules"][0]["pattern"])
    assert pattern is not None
    assert _values(pattern, "key = exa_1234abcd") == (["exa_1234abcd"], [])
    assert _values(pattern, "exa_short") == ([], [])
    assert _python_pattern(r"[[:alnum:]]{4}\z").pattern == r"[a-zA-Z0-9]{4}\Z"


def test_several_groups_are_parts_of_one_credential():
    pattern = _python_pattern(r"login\s+(\S+)\s+password\s+(\S+)")
    assert _values(pattern, "login bob password hunter2") == ([], [["bob", "hunter2"]])


def test_the_part_that_must_go_is_the_one_the_text_names_as_the_password():
    text = "machine example.com login averylongusername password s3cret"
    assert secret_part(["averylongusername", "s3cret"], text) == "s3cret"
    assert secret_part(["averylongusername", "s3cret"]) == "averylongusername"  # longest, without the text
    assert secret_part(["id-1234", "https://host.example/x", "sk9"], None, last=True) == "sk9"
    assert secret_part(["user@example.com", "tok3n"]) == "tok3n"


def test_go_tokens_strings_and_sprintf():
    found = tokens('x := "a\\tb" + `raw\\n` // note\n')  # the comment and spaces are dropped
    assert found == [("name", "x"), ("op", ":="), ("str", '"a\\tb"'), ("op", "+"), ("raw", "`raw\\n`")]
    assert go_string('"a\\tb\\x41"') == "a\tbA"
    assert go_string("`raw\\n`") == "raw\\n"
    assert sprintf("%s=%d %q %[1]s %%", ["k", 5, "v"]) == 'k=5 "v" k %'


def test_a_sampled_pattern_matches_its_pattern():
    rnd = random.Random(5)
    for pattern in (r"ghp_[A-Za-z0-9]{36}", r"(?:AKIA|ASIA)[A-Z0-9]{16}", r"[[:xdigit:]]{32}\z"):
        value = sample(pattern, rnd)
        assert re.fullmatch(go_to_python(pattern), value), (pattern, value)


def test_the_ripsecrets_reader_takes_each_line_or_file_as_a_case(tmp_path):
    from benchmarks.peer_ripsecrets import read_cases

    (tmp_path / "test" / "one_per_line").mkdir(parents=True)
    (tmp_path / "test" / "one_per_file").mkdir()
    (tmp_path / "test" / "one_per_line" / "vendor").write_text("tok_one\n\ntok_two\n")
    (tmp_path / "test" / "one_per_file" / "block").write_text("line a\nline b\n")
    (tmp_path / "test" / "none").write_text("harmless = 1\n")
    cases, notes = read_cases(tmp_path)
    assert [(c.family, c.text, c.positive) for c in cases] == [
        ("vendor", "tok_one", True),
        ("vendor", "tok_two", True),
        ("block", "line a\nline b\n", True),
        ("none", "harmless = 1", False),
    ]
    assert notes == []


def test_the_part_that_must_go_is_the_secret_named_one_never_the_id():
    text = 'api:\n  caspio_id: "qye6c979b55w55hz7nqrdga"\n  caspio_secret: "x5vz1o2fm"\n'
    assert secret_part(["qye6c979b55w55hz7nqrdga", "x5vz1o2fm"], text) == "x5vz1o2fm"
    text = "<id>{acme 17c55fba5c93de5646b10507c36fbc23}</id>\n<data>{acme ab12}</data>"
    assert secret_part(["17c55fba5c93de5646b10507c36fbc23", "ab12cd"], text + " ab12cd") == "ab12cd"


def test_the_secretlint_reader_takes_each_reported_range_and_each_silent_snapshot(tmp_path):
    import json

    from benchmarks.peer_secretlint import read_cases

    base = tmp_path / "packages" / "@secretlint"
    rule = base / "secretlint-rule-acme" / "test" / "snapshots"

    def snapshot(name: str, text: str, ranges: list[tuple[int, int]], **extra: str) -> None:
        folder = rule / name
        folder.mkdir(parents=True)
        (folder / "input.txt").write_text(text, encoding="utf-8")
        messages = [{"range": list(r)} for r in ranges]
        (folder / "output.json").write_text(json.dumps({"messages": messages}), encoding="utf-8")
        for file, content in extra.items():
            (folder / file).write_text(content, encoding="utf-8")

    snapshot("ng.two", "é TOKEN=acme_1\nTOKEN=acme_2\n", [(8, 14), (21, 27)])  # JS ranges: UTF-16 units
    snapshot("ok.clean", "nothing here\n", [])
    snapshot("ok.allows", "TOKEN=acme_3\n", [], **{".secretlintrc.json": '{"rules": [{"options": {"allows": ["x"]}}]}'})
    (base / "secretlint-rule-no-homedir" / "test" / "snapshots" / "ng.home").mkdir(parents=True)
    binary = rule / "ng.p12"
    binary.mkdir(parents=True)
    (binary / "input.p12").write_bytes(b"\x80\x81\xff")
    (binary / "output.json").write_text('{"messages": [{"range": [0, 1]}]}', encoding="utf-8")
    cases, notes = read_cases(tmp_path)
    assert [(c.where, c.positive, c.secrets) for c in cases] == [
        ("acme/ng.two#1", True, ["acme_1"]),
        ("acme/ng.two#2", True, ["acme_2"]),
        ("acme/ok.clean", False, []),
    ]
    assert any("ok.allows" in n for n in notes) and any("binary" in n for n in notes)
    assert any(n.startswith("no-homedir") for n in notes)


def test_the_semgrep_reader_takes_each_annotated_line_and_a_pem_block_whole(tmp_path):
    from benchmarks.peer_semgrep import read_cases

    base = tmp_path / "generic" / "secrets" / "security"
    base.mkdir(parents=True)
    (base / "detected-acme-key.yaml").write_text("rules:\n- id: detected-acme-key\n")
    (base / "detected-acme-key.txt").write_text(
        "# ruleid: detected-acme-key\nKEY=acme_1\n\nnot a case\n# ok: detected-acme-key\nKEY=${ACME}\n"
        "// todoruleid: detected-acme-key\nacme 2\n# ruleid: detected-other\nKEY=acme_3\n"
        "# ruleid: detected-acme-key\n-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\ntail\n"
        "# ruleid: detected-acme-key\n-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: 1\n\nxcF\n-----END PGP\n"
        "# ok: detected-acme-key\n-----BEGIN PRIVATE KEY-----\nabab\n\n# ruleid: detected-acme-key\nlast\n"
    )
    (base / "detected-lonely.yaml").write_text("rules:\n- id: detected-lonely\n")
    cases, notes = read_cases(tmp_path)
    assert [(c.family, c.text, c.positive) for c in cases] == [
        ("acme-key", "KEY=acme_1", True),
        ("acme-key", "KEY=${ACME}", False),
        ("acme-key", "acme 2", True),
        ("acme-key", "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----", True),
        ("acme-key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: 1\n\nxcF\n-----END PGP", True),
        ("acme-key", "-----BEGIN PRIVATE KEY-----\nabab", False),
        ("acme-key", "last", True),
    ]
    assert cases[2].where == "detected-acme-key.txt:8 (todoruleid)"
    assert notes == ["detected-lonely: no test file"]


def test_the_kingfisher_reader_leaves_out_companion_rules_and_unread_keys(tmp_path):
    from benchmarks.peer_kingfisher import read_cases

    rules = tmp_path / "data" / "rules"
    rules.mkdir(parents=True)
    (rules / "acme.yml").write_text(
        "rules:\n"
        "  - name: Acme Key\n    id: kingfisher.acme.1\n    pattern: |\n      (?x)\n      acme_\n      ([a-z0-9]{8})\n"
        "    examples:\n      - key = acme_1234abcd\n    negative_examples:\n      - acme_short\n"
        "    validation:\n      type: Http\n      content:\n        request:\n          headers:\n"
        "            Authorization: 'Basic {{ TOKEN | b64enc }}'\n"
        "    depends_on_rule:\n      - rule_id: kingfisher.acme.2\n        variable: HOST\n"
        "  - name: Acme Host\n    id: kingfisher.acme.2\n    pattern: '(acme\\.example)'\n    visible: false\n"
        "    examples:\n      - acme.example\n"
    )
    cases, notes = read_cases(tmp_path)
    assert [(c.family, c.text, c.positive, c.secrets) for c in cases] == [
        ("kingfisher.acme.1", "key = acme_1234abcd", True, ["1234abcd"]),
        ("kingfisher.acme.1", "acme_short", False, []),
    ]
    assert notes == ["1 companion rules (visible: false, not secrets): kingfisher.acme.2 (1+0)"]


def test_a_secret_is_gone_when_it_no_longer_stands_where_the_original_had_it_standing():
    from benchmarks.secrets import _left_in

    text = 'the password for the user "pyne-user" is "pyne".'
    assert not _left_in("pyne", text, 'the password for the user "pyne-user" is "[REDACTED:x]".')
    assert _left_in("pyne", text, text)
    glued = "cloudplanSECRET-ABCD1234EFGH5678"  # the peer's value is part of a longer token: anywhere counts
    assert _left_in("ABCD1234EFGH5678", glued, glued)
    assert not _left_in("ABCD1234EFGH5678", glued, "cloudplanSECRET-[REDACTED:x]")


def test_the_whispers_reader_labels_lines_by_their_compliant_or_noncompliant_part(tmp_path):
    from benchmarks.peer_whispers import read_cases

    (tmp_path / "tests" / "unit").mkdir(parents=True)
    (tmp_path / "tests" / "unit" / "test_secrets.py").write_text(
        '@pytest.mark.parametrize(("src", "expected"), [("keys.yml", ["noncompliant_key"])])\n'
        '@pytest.mark.parametrize(("src", "count"), [("app.yml", 2), ("quiet.yml", 0), ("cards.yml", 1)])\n'
    )
    fixtures = tmp_path / "tests" / "fixtures"
    fixtures.mkdir()
    (fixtures / "app.yml").write_text(
        "compliant:\n  username: hardcoded\n  token: ${TOKEN}\n"
        "noncompliant:\n  password: hardcoded1\n  01_hardcoded_list:\n    - Hardcoded2\n  url: https://u:hardcoded3@h\n"
    )
    (fixtures / "quiet.yml").write_text("password: password\n")
    (fixtures / "keys.yml").write_text("compliant_key: a\nnoncompliant_key:\n  Default: admin\n")
    (fixtures / "unread.txt").write_text("x\n")
    cases, notes = read_cases(tmp_path)
    got = [(c.family, c.positive, c.secrets, c.text.splitlines()[-1].strip()) for c in cases]
    assert got == [
        ("app.yml", False, [], "username: hardcoded"),
        ("app.yml", False, [], "token: ${TOKEN}"),
        ("app.yml", True, ["hardcoded1"], "password: hardcoded1"),
        ("app.yml", True, ["Hardcoded2"], "- Hardcoded2"),
        ("app.yml", True, ["hardcoded3"], "url: https://u:hardcoded3@h"),
        ("keys.yml", False, [], "compliant_key: a"),
        ("keys.yml", True, [], "Default: admin"),
        ("quiet.yml", False, [], "password: password"),
    ]
    assert "- Hardcoded2" in cases[3].text and "01_hardcoded_list:" in cases[3].text  # its parent, for context
    assert any("unread.txt" in note for note in notes)


def test_the_earlybird_reader_takes_credential_examples_and_filter_verdicts(tmp_path):
    from benchmarks.peer_earlybird import read_cases

    rules = tmp_path / "config" / "rules"
    rules.mkdir(parents=True)
    (rules / "content.yaml").write_text(
        "---\nSearcharea: body\nrules:\n"
        "  - Code: 3001\n    Pattern: x\n    Category: password-secret\n    Example: password = 'foobar'\n"
        "  - Code: 3013\n    Pattern: x\n    Category: infrastructure\n    Example: \"'480-123-1234'\"\n"
        "  - Code: 3023\n    Pattern: x\n    Category: key\n    Example: |-\n      BEGIN RSA\n      PRIVATE KEY\n",
        encoding="utf-8",
    )
    (rules / "filename.yaml").write_text(
        "---\nSearcharea: filename\nrules:\n  - Code: 4005\n    Category: key\n    Example: file.pem\n",
        encoding="utf-8",
    )
    scan = tmp_path / "pkg" / "scan"
    scan.mkdir(parents=True)
    (tmp_path / "pkg" / "postprocess").mkdir()
    (scan / "falsePositives_test.go").write_text(
        '{\n MatchValue: `password = "Strong5813!"`,\n },\n wantIsFP: false,\n'
        '{\n MatchValue: "password=None",\n },\n wantIsFP: true,\n'
        '{\n MatchValue: "None",\n },\n wantIsFP: true,\n',
        encoding="utf-8",
    )
    cases, notes = read_cases(tmp_path)
    got = [(c.family, c.text, c.positive) for c in cases]
    assert got == [
        ("password-secret", "password = 'foobar'", True),
        ("key", "BEGIN RSA\nPRIVATE KEY", True),
        ("false-positive-filter", 'password = "Strong5813!"', True),
        ("false-positive-filter", "password=None", False),
    ]
    assert any("filename.yaml" in n for n in notes) and any("infrastructure" in n for n in notes)
    assert any("bare value" in n for n in notes)
