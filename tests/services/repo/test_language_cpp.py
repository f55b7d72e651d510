"""C++ declarations that macros standing for specifiers, deep qualified names and template
specialisations hid from the parser (the classes of ctags' misses on spdlog, leveldb, cxxopts).

Each source is as a library writes it: only a preprocessor knows what `SPDLOG_INLINE` or
`FMT_BEGIN_NAMESPACE` expands to, so the parser must read around them without moving a line.
"""

from __future__ import annotations

import pytest

from services.repo.parsing import extract
from services.repo.repairs import repaired_source


def declared(path: str, text: str) -> set[tuple[str, str, int]]:
    return {(s[2], s[1], s[5]) for s in extract(path, text.encode()).symbols}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # a specifier macro before the type, one after the parameters
            "LOG_INLINE size_t thread_id() LOG_NOEXCEPT {\n  return 1;\n}\n",
            {("thread_id", "function", 1)},
        ),
        (  # two macros before the type; the declaration without a body
            "LOG_NORETURN LOG_API void fail(const char* file, int line);\n",
            {("fail", "function", 1)},
        ),
        (  # a macro after the parameters on the next line
            "LOG_CONSTEXPR_FUNC view to_view(const buf &b)\n    LOG_NOEXCEPT {\n  return view{};\n}\n",
            {("to_view", "function", 1)},
        ),
        (  # an out-of-line constructor: no type between the macro and the name
            "LOG_INLINE log::logger::logger(std::string name) : name_(name) {}\n",
            {("logger", "method", 1)},
        ),
    ],
)
def test_specifier_macros_around_a_declaration_do_not_hide_it(text: str, expected: set):
    assert {(q.rsplit(".", 1)[-1], k, line) for q, k, line in declared("src/log.cpp", text)} == expected


def test_a_macro_before_a_constructor_inside_a_class_is_read_as_a_specifier():
    text = (
        "struct rgb {\n  FMT_CONSTEXPR rgb() : r(0) {}\n  FMT_CONSTEXPR rgb(int hex) : r(hex) {}\n"
        "  FMT_CONSTEXPR operator bool() const noexcept { return r; }\n  int r;\n};\n"
    )
    assert declared("fmt/color.hpp", text) >= {
        ("rgb", "struct", 1),
        ("rgb.rgb", "method", 2),
        ("rgb.rgb", "method", 3),
        ("rgb.r", "field", 5),
    }


def test_a_return_type_in_capitals_is_kept_when_a_calling_macro_follows_it():
    text = "DWORD WINAPI worker(void* arg) {\n  return 0;\n}\nBOOL ready(void);\n"
    source = repaired_source("cpp", ("}\n" + text).encode())  # an error, so that a repair is tried
    assert source is not None and b"DWORD" in source and b"BOOL" in source
    assert {("worker", "function", 1), ("ready", "function", 4)} <= declared("src/win.cpp", text)


def test_statement_macros_without_a_semicolon_do_not_lose_what_follows():
    text = (
        "FMT_BEGIN_NAMESPACE\nFMT_MODULE_EXPORT_BEGIN\n"
        "enum class color : unsigned {\n  alice_blue = 1,\n  antique_white = 2\n};\n"
        "enum level {\n  LOW,\n  HIGH\n};\n"
        "void run(sink* s) {\n  LOG_TRY { s->log(); }\n  LOG_CATCH(s->where())\n}\n"
        "void after() {}\nFMT_END_NAMESPACE\n"
    )
    assert declared("fmt/color.hpp", text) >= {
        ("color", "enum", 3),
        ("color.alice_blue", "enum_member", 4),
        ("color.antique_white", "enum_member", 5),
        ("level.LOW", "enum_member", 8),
        ("level.HIGH", "enum_member", 9),  # the last member alone on its line is no macro
        ("run", "function", 11),
        ("after", "function", 15),
    }
    assert b"LOG_CATCH" not in (repaired_source("cpp", text.encode()) or b"")


def test_a_member_defined_under_a_deep_qualified_name_belongs_to_its_class_without_template_arguments():
    text = (
        "template <typename Mutex>\nvoid LOG_INLINE app::sinks::base_sink<Mutex>::flush() {}\n"
        "template <typename M>\nansi_sink<M>::ansi_sink(FILE *target, int mode) : file_(target) {}\n"
    )
    assert declared("src/sink-inl.h", text) >= {
        ("app.sinks.base_sink.flush", "method", 2),
        ("ansi_sink.ansi_sink", "method", 4),
    }


def test_reference_fields_specialisations_and_namespace_aliases_are_declarations():
    text = (
        "namespace fmt_lib = fmt;\nclass sink {\n  mutex_t &mutex_;\n  buf_t &&pending_;\n};\n"
        "template <>\nstruct formatter<stopwatch> : formatter<double> {\n  int precision;\n};\n"
        "struct fmt::formatter<my_type> : fmt::formatter<std::string> {};\n"
    )
    assert declared("src/sink.h", text) >= {
        ("fmt_lib", "namespace", 1),
        ("sink.mutex_", "field", 3),
        ("sink.pending_", "field", 4),
        ("formatter", "struct", 7),
        ("formatter.precision", "field", 8),
        ("formatter", "struct", 10),
    }


def test_directives_are_blanked_in_an_x_macro_list_but_read_in_a_namespace():
    text = (
        'namespace app {\n#define APP_LEVEL 3\nenum codes {\n#define X(n) CODE_##n,\n#include "codes.def"\n'
        "#undef X\n};\nLOG_API int level();\n}\n"
    )
    found = declared("src/codes.h", text)
    assert {("app.APP_LEVEL", "macro", 2), ("app.codes", "enum", 3), ("app.level", "function", 8)} <= found


def test_a_comment_before_a_macros_line_continuation_does_not_end_the_macro():
    # the grammar ends a `#define` at a comment followed by `\`, and reads the rest of the body as code
    text = (
        "#define READ_LINE(p)                  \\\n"
        "    ((CHECK(p, '\\r') ?  /* CR LF */   \\\n"
        "      (p)->pointer += 2 : 0))\n"
        "\n"
        "int\nscan_anchor(parser_t *parser)\n{\n    return READ_LINE(parser);\n}\n"
    )
    macro = [s for s in extract("src/scanner.c", text.encode()).symbols if s[0] == "READ_LINE"]
    assert [(s[1], s[5], s[6]) for s in macro] == [("macro", 1, 4)]  # its body, and the line it ends
    assert ("scan_anchor", "function", 5) in declared("src/scanner.c", text)


def test_a_return_type_macro_alone_on_its_line_above_a_definition_is_kept():
    # `YAML_DECLARE(int)` alone on its line: blanked, `yaml_scan(...) {` would be a call without a `;`
    text = (
        "YAML_DECLARE(int)\nyaml_scan(parser_t *parser)\n{\n    return 0;\n}\n"
        "#define TWICE(p) (TRY(p) ? /* one */ \\\n   TRY(p) : 0)\n"  # an error the repairs mend
        "void run(void) {\n    yaml_scan(p);\n}\n"
    )
    expected = {("yaml_scan", "function", 1), ("TWICE", "macro", 6), ("run", "function", 8)}
    assert expected <= declared("src/scanner.c", text)
    assert b"YAML_DECLARE(int)" in (repaired_source("c", text.encode()) or b"")


def test_an_export_macro_in_a_class_head_whose_brace_is_on_the_next_line_is_no_declaration():
    text = "class TINYXML2_LIB XMLNode\n{\npublic:\n    XMLNode* InsertFirstChild(XMLNode* addThis);\n};\n"
    assert declared("tinyxml2.h", text) >= {("XMLNode", "class", 1), ("XMLNode.InsertFirstChild", "method", 4)}
