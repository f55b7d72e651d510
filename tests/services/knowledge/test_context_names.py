"""`knowledge context` resolves the names a task spells to the code that owns them, in a Go package.

The traps are the classes a held-out Go repository showed: a plain verb of the task ("split") naming
an unexported helper of another file, a quoted header (`Content-Type`) spelling the name of a file
the task is not about, and a method name (`WriteHeader`) that every writer type in the package
implements while the task names the one type it means, and a standard-library name (`io.Writer`)
matching a `writer` method here; an external test package (`package gate_test`) imports every
file of the package and is no one file's test.
"""

from pathlib import Path

import pytest

from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio


def _go_test(name: str, call: str) -> str:
    return f'package gate\n\nimport "testing"\n\nfunc Test{name}(t *testing.T) {{\n\t_ = {call}\n}}\n'


@pytest.fixture
def gate_repo(empty_repo: Path) -> Path:
    commit(
        empty_repo,
        "Start",
        {
            "go.mod": "module example.com/gate\n\ngo 1.22\n",
            "gate/charset.go": 'package gate\n\nimport "net/http"\n\n'
            "// AcceptCharset answers 415 when the body's charset is not one of charsets.\n"
            "func AcceptCharset(charsets ...string) func(http.Handler) http.Handler {\n"
            "\treturn func(next http.Handler) http.Handler { return next }\n}\n\n"
            "// charsetOf reads the charset parameter of a Content-Encoding or Content-Type value.\n"
            'func charsetOf(value string) string {\n\t_, v := split(value, ";")\n\treturn v\n}\n\n'
            "func split(s, sep string) (string, string) { return s, sep }\n",
            "gate/encoding.go": 'package gate\n\nimport "net/http"\n\n'
            "// AcceptEncoding answers 415 when the request's Content-Encoding is not allowed.\n"
            "func AcceptEncoding(codings ...string) func(http.Handler) http.Handler {\n"
            "\treturn func(next http.Handler) http.Handler { return next }\n}\n",
            "gate/content_type.go": 'package gate\n\nimport "net/http"\n\n'
            "// RequireContentType answers 415 unless the Content-Type header is one of types.\n"
            "func RequireContentType(types ...string) func(http.Handler) http.Handler {\n"
            '\treturn func(next http.Handler) http.Handler { _ = "Content-Type"; return next }\n}\n',
            "gate/recorder.go": 'package gate\n\nimport "net/http"\n\n'
            "// StatusRecorder remembers the status a handler wrote.\n"
            "type StatusRecorder interface {\n\thttp.ResponseWriter\n\tStatus() int\n}\n\n"
            "type plainRecorder struct {\n\thttp.ResponseWriter\n\tcode int\n}\n\n"
            "func (r *plainRecorder) WriteHeader(code int) { r.code = code }\n\n"
            "func (r *plainRecorder) Write(b []byte) (int, error) { return len(b), nil }\n\n"
            "func (r *plainRecorder) Status() int { return r.code }\n",
            "gate/gzip.go": 'package gate\n\nimport "net/http"\n\n'
            "// Gzip compresses response bodies.\n"
            "func Gzip(next http.Handler) http.Handler { return next }\n\n"
            "type gzipWriter struct {\n\thttp.ResponseWriter\n\twrote bool\n}\n\n"
            "func (w *gzipWriter) WriteHeader(code int) { w.wrote = true }\n\n"
            "func (w *gzipWriter) Write(b []byte) (int, error) { w.wrote = true; return len(b), nil }\n\n"
            "func (w *gzipWriter) writer() http.ResponseWriter { return w.ResponseWriter }\n",
            "gate/report.go": 'package gate\n\nimport (\n\t"fmt"\n\t"os"\n)\n\n'
            "// Report prints a recovered panic.\n"
            "func Report(v any) { fmt.Fprintln(os.Stderr, v) }\n",
            "gate/report_test.go": _go_test("Report", "Report"),
            "gate/example_test.go": 'package gate_test\n\nimport "example.com/gate/gate"\n\n'
            "func Example() {\n\t_ = gate.Gzip\n\t_ = gate.Report\n}\n",
            "gate/charset_test.go": _go_test("Charset", "AcceptCharset"),
            "gate/encoding_test.go": _go_test("Encoding", "AcceptEncoding"),
            "gate/content_type_test.go": _go_test("ContentType", "RequireContentType"),
            "gate/recorder_test.go": _go_test("Recorder", "(&plainRecorder{}).Status"),
            "gate/gzip_test.go": _go_test("Gzip", "Gzip"),
        },
    )
    return empty_repo


async def _read(repo: Path, task: str) -> tuple[list[str], list[str]]:
    out = await ask(repo, "pallium_knowledge_context", task=task)
    return [f.path for f in out.read], out.tests


async def test_a_plain_verb_is_no_name_for_an_unexported_go_helper(gate_repo: Path):
    await ask(gate_repo, "pallium_knowledge_build", model=False)
    task = "AcceptEncoding should split a comma-separated Content-Encoding value and check every coding"
    read, tests = await _read(gate_repo, task)
    assert read[0] == "gate/encoding.go"
    assert "gate/charset.go" not in read  # `split` and `charsetOf` are its own, unexported
    assert tests == ["gate/encoding_test.go"]  # not the example test, which imports every file of the package


async def test_an_exported_go_function_is_still_named_by_a_plain_word(gate_repo: Path):
    await ask(gate_repo, "pallium_knowledge_build", model=False)
    read, _ = await _read(gate_repo, "the gzip middleware should skip bodies under one kilobyte")
    assert read[0] == "gate/gzip.go"


async def test_a_quoted_header_spelling_a_file_name_is_words_beside_spelled_code(gate_repo: Path):
    await ask(gate_repo, "pallium_knowledge_build", model=False)
    task = "AcceptCharset should accept a quoted charset parameter in the request's Content-Type header"
    read, tests = await _read(gate_repo, task)
    assert read == ["gate/charset.go"]
    assert tests[0] == "gate/charset_test.go"


async def test_a_method_name_beside_the_type_the_task_names_is_that_types_method(gate_repo: Path):
    await ask(gate_repo, "pallium_knowledge_build", model=False)
    task = "StatusRecorder should tell whether the status was already sent, true after WriteHeader or Write"
    out = await ask(gate_repo, "pallium_knowledge_context", task=task)
    read = {f.path: f.why for f in out.read}
    assert next(iter(read)) == "gate/recorder.go"
    assert "defines plainRecorder.WriteHeader" in read["gate/recorder.go"]
    assert "gate/gzip.go" not in read  # `gzipWriter.WriteHeader` is another type's method


async def test_a_quoted_header_naming_a_module_the_spelled_code_imports_is_read(empty_repo: Path):
    commit(
        empty_repo,
        "Start",
        {
            "headers/__init__.py": "",
            "headers/permissions_policy.py": '"""The Permissions-Policy directives known by name."""\n\n'
            'DIRECTIVES = ("camera", "geolocation")\n',
            "headers/secure.py": "from headers.permissions_policy import DIRECTIVES\n\n\n"
            "def secure_headers(policy):\n    return {k: v for k, v in policy.items() if k in DIRECTIVES}\n",
            "headers/cache.py": "def cache_headers(seconds):\n    return {'Cache-Control': f'max-age={seconds}'}\n",
            "tests/test_secure.py": "from headers.secure import secure_headers\n\n\ndef test_policy():\n"
            "    assert secure_headers({}) == {}\n",
        },
    )
    await ask(empty_repo, "pallium_knowledge_build", model=False)
    task = "secure_headers should accept Permissions-Policy features newer than its built-in list"
    read, tests = await _read(empty_repo, task)
    assert set(read[:2]) == {"headers/secure.py", "headers/permissions_policy.py"}  # the change spans both
    assert tests[0] == "tests/test_secure.py"


async def test_a_standard_library_name_is_not_a_same_named_method_here(gate_repo: Path):
    await ask(gate_repo, "pallium_knowledge_build", model=False)
    read, tests = await _read(gate_repo, "Report should print to a configurable io.Writer instead of os.Stderr")
    assert read == ["gate/report.go"]  # not gzip.go for its unexported `gzipWriter.writer`
    assert tests == ["gate/report_test.go"]


async def test_a_go_test_of_another_package_importing_this_one_is_no_one_files_test(empty_repo: Path):
    router = "package web\n\n// Router routes requests.\ntype Router struct{ routes map[string]string }\n\n"
    files = {
        "go.mod": "module example.com/web\n\ngo 1.22\n",
        "tree.go": "package web\n\n// RegisterVerb adds a request method the router accepts.\n"
        "func RegisterVerb(verb string) { verbs[verb] = true }\n\nvar verbs = map[string]bool{}\n",
        "tree_test.go": _go_test("RegisterVerb", 'RegisterVerb("LINK")').replace("package gate", "package web"),
        "router.go": router + "// Handle adds a route.\nfunc (r *Router) Handle(p, h string) { r.routes[p] = h }\n",
        "router_test.go": _go_test("Handle", "(&Router{}).Handle").replace("package gate", "package web"),
    }
    for i, name in enumerate(("params", "walk", "chain", "context")):
        title = f"{name.title()}{i}"
        files[f"{name}.go"] = f"package web\n\n// {title} is part of the router.\nfunc {title}() {{}}\n"
    files["plugins/trim.go"] = (
        "package plugins\n\n// Trim drops a trailing slash of the path.\nfunc Trim(p string) string { return p }\n"
    )
    files["plugins/trim_test.go"] = (
        'package plugins\n\nimport (\n\t"testing"\n\n\t"example.com/web"\n)\n\n'
        'func TestTrim(t *testing.T) {\n\tweb.RegisterVerb("TRIM")\n'
        '\t_ = (&web.Router{}).Handle\n\t_ = Trim("/a/")\n}\n'
    )
    commit(empty_repo, "Start", files)
    await ask(empty_repo, "pallium_knowledge_build", model=False)
    read, tests = await _read(empty_repo, "RegisterVerb should panic on a verb that is not a valid HTTP token")
    assert read[0] == "tree.go"
    assert tests[0] == "tree_test.go"
    assert "plugins/trim_test.go" not in tests  # it tests Trim, using the router only to do so
