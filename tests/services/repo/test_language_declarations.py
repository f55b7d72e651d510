"""Declarations of the pack languages that ctags finds and the first queries missed, each with its kind.

Every case is a small source file as developers write it; `extract` is the parser the index runs.
"""

from __future__ import annotations

import pytest

from services.repo.parsing import extract

CASES = {
    "c": (
        "lib/str.h",
        "static char *dup(const char *s);\nchar **split(char *s, int *n);\n"
        "struct S {\n  char **argv;\n  int (*cb)(int);\n  void *(*alloc)(size_t n);\n  int v[4];\n};\n"
        "typedef int (*handler_t)(int);\ntypedef void *(*alloc_fn)(size_t);\nenum { LOW, HIGH };\n"
        "int counter = 0;\nstatic const char *names[] = {0};\nextern int shared;\n"
        "int f(void) { int local = 1; return local; }\n"
        'typedef enum colors {\n#define X(n) COLOR_##n,\n#include "colors.def"\n#undef X\n} colors_t;\n',
        {
            ("dup", "function"),
            ("split", "function"),
            ("S", "struct"),
            ("S.argv", "field"),
            ("S.cb", "field"),
            ("S.alloc", "field"),
            ("S.v", "field"),
            ("handler_t", "type"),
            ("alloc_fn", "type"),
            ("LOW", "enum_member"),
            ("HIGH", "enum_member"),
            ("counter", "variable"),
            ("names", "variable"),
            ("shared", "variable"),
            ("f", "function"),
            ("colors", "enum"),
            ("colors_t", "type"),
        },
    ),
    "cpp": (
        "include/cache.h",
        "namespace store {\nclass STORE_EXPORT Cache {\n public:\n  Cache() = default;\n  virtual ~Cache();\n"
        "  char* Allocate(size_t b);\n  static const Cache& Get();\n  bool operator==(const Cache&) const;\n};\n"
        "char* Cache::Allocate(size_t b) { return nullptr; }\n}\n",
        {
            ("store", "namespace"),
            ("store.Cache", "class"),
            ("store.Cache.Cache", "method"),
            ("store.Cache.~Cache", "method"),
            ("store.Cache.Allocate", "method"),
            ("store.Cache.Get", "method"),
            ("store.Cache.operator==", "method"),
        },
    ),
    "ruby": (
        "lib/rack/builder.rb",
        'class Rack::Builder\n  attr_reader :app, :env\n  attr_writer :name\n  attr_accessor "mode"\n'
        "  alias include? has_key?\n  alias_method :<<, :add\n  def obj.frozen?; end\n"
        "  VERSION = '1'\n  A, B = 1, 2\nend\nmodule ::Top; end\n",
        {
            ("Builder", "class"),
            ("Builder.app", "property"),
            ("Builder.env", "property"),
            ("Builder.name=", "property"),
            ("Builder.mode", "property"),
            ("Builder.mode=", "property"),
            ("Builder.include?", "method"),
            ("Builder.<<", "method"),
            ("Builder.frozen?", "method"),
            ("Builder.VERSION", "constant"),
            ("Builder.A", "constant"),
            ("Builder.B", "constant"),
            ("Top", "module"),
        },
    ),
    "php": (
        "src/Router.php",
        "<?php\nnamespace App;\n\n$config = load();\n\nclass Router {\n    private Collector $collector;\n"
        "    public function handler() {\n        return new class($x) extends Base {\n"
        "            public function handle() {}\n        };\n    }\n}\n",
        {
            ("App", "namespace"),
            ("config", "variable"),
            ("Router", "class"),
            ("Router.collector", "field"),
            ("Router.handler", "method"),
            ("Router.handler.class@anonymous", "class"),
            ("Router.handler.class@anonymous.handle", "method"),
        },
    ),
    "kotlin": (
        "src/main/kotlin/a/Strings.kt",
        'package a.text\n\nval greeting: String = "hi"\nval String.shout: String get() = uppercase()\n'
        "var counter = 0\n\nclass Parser {\n    companion object {\n        fun create() = Parser()\n    }\n"
        "}\n\nclass Lexer {\n    companion object Factory {\n        const val MAX = 3\n    }\n}\n",
        {
            ("a.text", "namespace"),
            ("greeting", "variable"),
            ("shout", "variable"),
            ("counter", "variable"),
            ("Parser", "class"),
            ("Parser.Companion", "object"),
            ("Parser.Companion.create", "method"),
            ("Lexer", "class"),
            ("Lexer.Factory", "object"),
            ("Lexer.Factory.MAX", "field"),
        },
    ),
    "swift": (
        "Sources/Geo/Vector.swift",
        "let origin = 0\n\nstruct Vector {\n    init(x: Int) {}\n    init?(text: String) { return nil }\n"
        "    deinit {}\n    static func + (a: Vector, b: Vector) -> Vector { a }\n"
        "    subscript(i: Int) -> Int { i }\n}\n",
        {
            ("origin", "variable"),
            ("Vector", "struct"),
            ("Vector.init", "method"),
            ("Vector.deinit", "method"),
            ("Vector.+", "method"),
            ("Vector.subscript", "method"),
        },
    ),
    "lua": (
        "lua/util/bench.lua",
        "local function helper() end\nlocal later\nlater = function() end\nlocal M = {}\n"
        "M.run = function() end\nfunction M.encode() return helper() end\nfunction M:stop() end\n"
        "local handlers = { start = function() end }\nreturn M\n",
        {
            ("helper", "function"),
            ("later", "function"),
            ("M.run", "function"),
            ("M.encode", "function"),
            ("M.stop", "method"),
            ("start", "function"),
        },
    ),
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_declarations_ctags_finds_are_found_with_their_kinds(language: str):
    path, text, expected = CASES[language]
    facts = extract(path, text.encode())
    assert facts.language == language
    assert {(s[2], s[1]) for s in facts.symbols} == expected


@pytest.mark.parametrize(
    ("path", "text", "language"),
    [
        ("Gemfile", "source 'https://rubygems.org'\ndef local_gem(name) = gem(name, path: name)\n", "ruby"),
        ("Rakefile", "def helper = 1\n", "ruby"),
        ("shop.gemspec", "Gem::Specification.new { |s| s.name = 'shop' }\n", "ruby"),
        ("config.ru", "run App\n", "ruby"),
        ("bin/deploy", "#!/usr/bin/env bash\ndeploy() { :; }\n", "bash"),
        ("bin/console", "#!/usr/bin/env ruby\ndef start; end\n", "ruby"),
        ("scripts/build", "#!/bin/sh -e\nbuild() { :; }\n", "bash"),
        ("tools/gen", "#!/usr/bin/env python3\ndef main():\n    pass\n", "python"),
        ("test/cli.bats", '@test "runs" {\n  run true\n}\nsetup() { :; }\n', "bash"),
    ],
)
def test_files_known_by_name_or_shebang_are_parsed(path: str, text: str, language: str):
    facts = extract(path, text.encode())
    assert (facts.language, facts.status) == (language, "parsed")
    assert facts.symbols or facts.refs, "parsed as code: definitions or references come out"


def test_a_c_header_written_in_cpp_is_parsed_as_cpp_and_a_c_header_as_c():
    assert extract("a.h", b"class Store {\n public:\n  int get();\n};\n").language == "cpp"
    assert extract("b.h", b'#ifdef __cplusplus\nextern "C" {\n#endif\nstruct s { int a; };\n').language == "c"


def test_a_shebang_is_not_the_first_functions_doc():
    facts = extract("bin/deploy", b"#!/usr/bin/env bash\ndeploy() { :; }\n")
    assert [(s[0], s[7]) for s in facts.symbols] == [("deploy", None)]


@pytest.mark.anyio
async def test_symbols_past_the_budget_end_with_a_cursor_that_reaches_every_declaration(tmp_path):
    from tests.services.repo.conftest import ask, new_repo

    header = "".join(
        f"/* Store the value {i} in the table of values. */\nint store_value_{i}(int key);\n" for i in range(120)
    )
    repo = new_repo(tmp_path, {"include/store.h": header})
    seen, cursor, pages = [], None, 0
    while True:
        out = await ask(repo, "pallium_symbols", path="include/store.h", cursor=cursor)
        seen += [s.name for s in out.symbols]
        pages += 1
        assert out.truncated == (out.next_cursor is not None)
        if out.next_cursor is None:
            break
        cursor = out.next_cursor
    assert pages > 1, "120 declarations do not fit one 8 KB answer"
    assert seen == [f"store_value_{i}" for i in range(120)]


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        ("src/json.c", "int JSON_CDECL main(void)\n{\n    return 0;\n}\n", {("main", "function")}),
        (
            "src/hooks.h",
            "typedef struct hooks {\n    void *(JSON_CDECL *allocate)(size_t size);\n} hooks;\n",
            {("hooks", "struct"), ("hooks.allocate", "field"), ("hooks", "type")},
        ),
        (
            "src/lib_json/json_valueiterator.inl",  # jsoncpp's: inline members kept apart from the header
            "namespace Json {\nValueIterator::ValueIterator() = default;\nFastWriter::FastWriter()\n\n    = default;\n"
            "bool ValueIterator::isEqual() const { return true; }\nint x = f();\nValue::~Value() = default;\n}\n",
            {("Json", "namespace"), ("Json.ValueIterator.ValueIterator", "method"), ("Json.x", "variable")}
            | {("Json.Value.~Value", "method")}
            | {("Json.FastWriter.FastWriter", "method"), ("Json.ValueIterator.isEqual", "method")},
        ),
        (
            "util/env_posix.cc",  # leveldb's: the class after it was filed under `Limiter`
            "namespace db {\nclass Limiter {\n public:\n  Limiter(int n)\n      :\n#if !defined(NDEBUG)\n"
            "        max_(n),\n#endif  // !defined(NDEBUG)\n        left_(n) {}\n};\n"
            "class PosixEnv {\n public:\n  void NewLogger();\n};\n}\n",
            {("db", "namespace"), ("db.Limiter", "class"), ("db.Limiter.Limiter", "method")}
            | {("db.PosixEnv", "class"), ("db.PosixEnv.NewLogger", "method")},
        ),
        (
            "src/Flow.kt",
            "class Flow(val channel: Channel) {\n    private val wrapped = object : Channel by channel {\n"
            "        override fun close() = Unit\n    }\n\n"
            '    fun add(item: Int) {\n        println("$item")\n    }\n}\n',
            {
                ("Flow", "class"),
                ("Flow.channel", "field"),
                ("Flow.wrapped", "field"),
                ("Flow.wrapped.close", "function"),
                ("Flow.add", "method"),
            },
        ),
    ],
)
def test_what_only_a_preprocessor_or_a_newer_grammar_reads_does_not_lose_the_declarations(path, text, expected):
    assert {(s[2], s[1]) for s in extract(path, text.encode()).symbols} == expected


def test_a_kotlin_primary_constructor_on_the_line_after_the_class_name_keeps_every_line():
    # kotlinpoet's style: `public class FunSpec` then `private constructor(` on the next line
    text = (
        "public sealed class TypeName\nconstructor(\n  public val isNullable: Boolean,\n) : Annotatable {\n"
        "  internal fun emit(out: Int): Int = out\n}\n\n"
        "public class Spec\n@Inject internal constructor(builder: Builder) {\n"
        "  public val name: String = builder.name\n}\n"
        "\npublic val ANY: TypeName = TypeName(false)\n"
    )
    found = {(s[2], s[1], s[5]) for s in extract("src/TypeName.kt", text.encode()).symbols}
    assert {
        ("TypeName", "class", 1),
        ("TypeName.isNullable", "field", 3),
        ("TypeName.emit", "method", 5),
        ("Spec", "class", 8),
        ("Spec.name", "field", 10),
        ("ANY", "variable", 13),  # a top-level `val` is a variable, as ctags files it
    } <= found


def test_a_bare_ruby_name_no_assignment_makes_local_is_a_call():
    text = (
        "def show(id, format: :html)\n  record = find(id)\n  render\n  record\n  request.path\n"
        "  [1].each { |item| item }\nrescue => error\n  error\nend\n"
    )
    refs = {(name, line): kind for name, line, kind, _receiver in extract("app.rb", text.encode()).refs}
    calls = {key for key, kind in refs.items() if kind == "call"}
    assert {("find", 2), ("render", 3), ("request", 5), ("path", 5)} <= calls
    assert not calls & {("record", 4), ("item", 6), ("error", 8), ("id", 2)}
