"""A language's reserved word is its statement, by the file's extension; another language's is a name."""

from kernel.keywords import is_keyword, keywords_of


def test_a_keyword_is_one_of_the_files_language():
    assert is_keyword("throw", "lib/application.js")
    assert is_keyword("raise", "src/attr/_make.py")
    assert is_keyword("defer", "middleware/compress.go")
    assert is_keyword("match", "src/bytes.rs")


def test_another_languages_keyword_is_a_name_here():
    assert not is_keyword("raise", "lib/application.js")
    assert not is_keyword("throw", "src/attr/_make.py")
    assert not is_keyword("match", "middleware/compress.go")
    assert not is_keyword("toJSON", "lib/context.js")


def test_an_unknown_extension_or_no_extension_has_no_keywords():
    assert keywords_of("README") == frozenset()
    assert keywords_of("notes.txt") == frozenset()
    assert keywords_of(None) == frozenset()
    assert is_keyword("class", "Lib/Types.TS")  # the extension's case does not matter
