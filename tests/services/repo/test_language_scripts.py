"""Bash and PHP declarations ctags finds that the queries missed: Bash aliases, functions after a
string built for `eval`, and PHP constants made by `define()` (plain or fully qualified)."""

from __future__ import annotations

from services.repo.parsing import extract


def declared(path: str, text: str) -> set[tuple[str, str, int]]:
    return {(s[2], s[1], s[5]) for s in extract(path, text.encode()).symbols}


def test_a_bash_alias_defines_each_name_it_assigns_and_an_argument_named_alias_defines_none():
    text = "alias ll='ls -l' la=\"ls -a\"\nalias g=git\nalias -g G='| grep'\nnvm alias default=18\nalias\n"
    assert declared("bin/env.sh", text) == {
        ("ll", "alias", 1),
        ("la", "alias", 1),
        ("g", "alias", 2),
        ("G", "alias", 3),  # zsh's global alias is still the name `G`
    }


def test_a_string_built_for_eval_does_not_lose_the_functions_around_it():
    text = (
        "append_args() {\n  local name=$1\n"
        '  if eval "(( \\${#${name}[@]} > 0 ))"; then\n    eval "args+=(\\"\\${${name}[@]}\\")"\n  fi\n}\n'
        "after() {\n  echo done\n}\n"
    )
    assert declared("lib/common.bash", text) == {("append_args", "function", 1), ("after", "function", 7)}


def test_php_define_calls_plain_or_fully_qualified_are_constants():
    text = "<?php\n\\define('IDNA_DEFAULT', 0);\ndefine(\"APP_ROOT\", __DIR__);\n$x = undefine('NOT_ONE');\n"
    found = declared("tests/bootstrap.php", text)
    assert {("IDNA_DEFAULT", "constant", 2), ("APP_ROOT", "constant", 3)} <= found
    assert not any(name == "NOT_ONE" for name, _, _ in found)


def test_a_test_whose_operator_comes_from_its_arguments_does_not_lose_the_functions_after_it():
    # pyenv's `python-build`: `[ "$(osx_version)" "$@" ]` reads `-ge 1010` from the caller's arguments
    text = (
        'is_mac() {\n  [ $# -eq 0 ] || [ "$(osx_version)" "$@" ]\n}\n'
        'both() {\n  if [ "$a" "$b" ]; then :; fi\n  [ x "$@" ] && echo yes\n}\n'
        "osx_version() {\n  echo 1010\n}\n"
    )
    facts = extract("bin/python-build", ("#!/usr/bin/env bash\n" + text).encode())
    assert {(s[2], s[1], s[5]) for s in facts.symbols} == {
        ("is_mac", "function", 2),
        ("both", "function", 5),
        ("osx_version", "function", 9),
    }
    assert ("osx_version", 3, "call", "") in facts.refs  # the command substituted inside stays a call


def test_a_test_with_its_own_operator_is_parsed_as_written():
    text = 'check() {\n  [ "$(uname)" = Darwin ] && [ -n "$HOME" ]\n}\nafter() {\n  uname\n}\n'
    facts = extract("lib/check.sh", text.encode())
    assert {(s[2], s[5]) for s in facts.symbols} == {("check", 1), ("after", 4)}
    assert ("uname", 2, "call", "") in facts.refs and (":", 2, "call", "") not in facts.refs
