"""PHP receivers the typed declarations do not give: docblocks, fields assigned from typed
parameters, and the calls through an interface method the asked one implements."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio

WRITER = """\
<?php
namespace Env\\Adapter;

interface WriterInterface
{
    public function write(string $name, string $value);
}
"""

PUTENV = """\
<?php
namespace Env\\Adapter;

final class PutenvAdapter implements WriterInterface
{
    public function write(string $name, string $value)
    {
        return putenv("$name=$value");
    }
}
"""

ARRAY = """\
<?php
namespace Env\\Adapter;

final class ArrayAdapter implements WriterInterface
{
    public function write(string $name, string $value)
    {
        return true;
    }
}
"""

GUARDED = """\
<?php
namespace Env\\Adapter;

final class GuardedWriter implements WriterInterface
{
    /**
     * The inner writer.
     *
     * @var \\Env\\Adapter\\WriterInterface
     */
    private $writer;

    private $backup;

    private $spare;

    /**
     * @param \\Env\\Adapter\\ArrayAdapter|null $spare
     */
    public function __construct(PutenvAdapter $backup, $spare)
    {
        $this->backup = $backup;
        $this->spare = $spare;
    }

    public function write(string $name, string $value)
    {
        $this->backup->write($name, $value);
        $this->spare->write($name, $value);
        return $this->writer->write($name, $value);
    }
}
"""


@pytest.fixture(scope="module")
def php_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("php") / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    files = {
        "src/Adapter/WriterInterface.php": WRITER,
        "src/Adapter/PutenvAdapter.php": PUTENV,
        "src/Adapter/ArrayAdapter.php": ARRAY,
        "src/Adapter/GuardedWriter.php": GUARDED,
    }
    commit(repo, "Start", files)
    return repo


async def test_fields_typed_by_docblock_or_by_a_typed_parameter_resolve_their_calls(php_repo: Path) -> None:
    out = await ask(php_repo, "pallium_callers", name="write")
    found = {r.line: (r.resolution, r.target_qualified) for r in out.references if r.path.endswith("GuardedWriter.php")}
    assert found == {
        28: ("receiver", "PutenvAdapter.write"),  # `$this->backup = $backup`, a `PutenvAdapter $backup`
        29: ("receiver", "ArrayAdapter.write"),  # an untyped parameter the docblock's @param types
        30: ("receiver", "WriterInterface.write"),  # the property's @var
    }


async def test_a_call_through_the_interface_is_a_reference_of_each_implementation(php_repo: Path) -> None:
    out = await ask(php_repo, "pallium_callers", name="PutenvAdapter.write")
    assert [(d.path, d.qualified) for d in out.implements] == [
        ("src/Adapter/WriterInterface.php", "WriterInterface.write")
    ]
    assert {(r.line, r.target_qualified) for r in out.references} == {
        (28, "PutenvAdapter.write"),
        (30, "WriterInterface.write"),  # through the interface: it may run PutenvAdapter's
    }
    sibling = await ask(php_repo, "pallium_callers", name="ArrayAdapter.write")
    assert (28, "PutenvAdapter.write") not in {(r.line, r.target_qualified) for r in sibling.references}
    interface = await ask(php_repo, "pallium_callers", name="WriterInterface.write")
    assert interface.implements == []


BUILDER = """\
<?php
namespace Env\\Store;

final class StoreBuilder
{
    private $fileEncoding;

    /**
     * @return \\Env\\Store\\StoreBuilder
     */
    public static function create()
    {
        return new self();
    }

    public function fileEncoding(?string $encoding): static
    {
        return $this;
    }

    /**
     * @return \\Env\\Store\\FileStore
     */
    public function make()
    {
        return new FileStore();
    }
}
"""

STORES = """\
<?php
namespace Env\\Store;

final class FileStore
{
    public function read(): string
    {
        return '';
    }
}

final class StringStore
{
    public function read(): string
    {
        return 'x';
    }
}
"""

USES = """\
<?php
namespace Env\\Tests;

use Env\\Store\\StoreBuilder;

final class StoreTest
{
    public function testRead()
    {
        $builder = StoreBuilder::create()
            ->fileEncoding('UTF-8');
        $builder->make()->read();
        StoreBuilder::create()->make()->read();
        $unknown->make()->read();
    }
}
"""


async def test_a_call_chain_is_resolved_through_declared_and_docblock_return_types(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Start", {"src/StoreBuilder.php": BUILDER, "src/Stores.php": STORES, "tests/StoreTest.php": USES})
    symbols = await ask(repo, "pallium_symbols", path="src/StoreBuilder.php")
    signatures = {s.name: s.signature for s in symbols.symbols}
    assert signatures["make"] == "public function make() /** @return \\Env\\Store\\FileStore */"
    out = await ask(repo, "pallium_callers", name="read")
    found = {r.line: (r.resolution, r.target_qualified) for r in out.references if r.path == "tests/StoreTest.php"}
    assert found == {
        12: ("receiver", "FileStore.read"),  # $builder: create() then fileEncoding(): static, then make()
        13: ("receiver", "FileStore.read"),
        14: ("unresolved", None),  # a chain on a variable of unknown class: never guessed
    }


MULTI = """\
<?php
namespace Env\\Adapter;

final class MultiWriter
{
    /**
     * @var \\Env\\Adapter\\WriterInterface[]
     */
    private $writers;

    /**
     * @param array<string, \\Env\\Adapter\\ArrayAdapter> $spares
     */
    public function __construct(array $writers, array $spares)
    {
        $this->writers = $writers;
        foreach ($spares as $key => $spare) {
            $spare->write($key, '');
        }
    }

    public function write(string $name, string $value)
    {
        foreach ($this->writers as $writer) {
            $writer->write($name, $value);
        }
        return true;
    }
}
"""


async def test_a_foreach_over_an_array_a_docblock_types_binds_its_value_to_the_element_class(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    files = {
        "src/Adapter/WriterInterface.php": WRITER,
        "src/Adapter/PutenvAdapter.php": PUTENV,
        "src/Adapter/ArrayAdapter.php": ARRAY,
        "src/Adapter/MultiWriter.php": MULTI,
    }
    commit(repo, "Start", files)
    out = await ask(repo, "pallium_callers", name="write")
    found = {r.line: (r.resolution, r.target_qualified) for r in out.references if r.path.endswith("MultiWriter.php")}
    assert found == {
        18: ("receiver", "ArrayAdapter.write"),  # `array<string, ArrayAdapter> $spares`, `as $key => $spare`
        25: ("receiver", "WriterInterface.write"),  # the property's `@var WriterInterface[]`
    }


SPINNER = """\
<?php
namespace Term;

class Spinner
{
    private $timeLimit = 0.1;

    public function timeLimit($timeLimit)
    {
        $this->timeLimit = (float) $timeLimit;
        return $this;
    }

    public function spin()
    {
        $this->timeLimit(0.5);
        return $this->timeLimit * 2;
    }
}
"""


async def test_a_property_read_is_never_a_reference_of_the_method_of_that_name(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Start", {"src/Spinner.php": SPINNER})
    out = await ask(repo, "pallium_callers", name="Spinner.timeLimit")  # the property and the method
    by_target = {(r.line, r.kind, r.target_line) for r in out.references}
    assert by_target == {(10, "attribute", 6), (16, "call", 8), (17, "attribute", 6)}  # `$this->timeLimit` is line 6's


PROMPTS = {
    "src/InputAbstract.php": "<?php\nnamespace Term;\n\nabstract class InputAbstract\n{\n    protected $prompt;\n}\n",
    "src/Input.php": (
        "<?php\nnamespace Term;\n\nclass Input extends InputAbstract\n{\n"
        "    public function __construct($prompt)\n    {\n        $this->prompt = $prompt;\n    }\n\n"
        "    public function prompt()\n    {\n        return $this->prompt;\n    }\n}\n"
    ),
    "src/Password.php": (
        "<?php\nnamespace Term;\n\nclass Password extends Input\n{\n"
        "    public function prompt()\n    {\n        return parent::prompt();\n    }\n}\n"
    ),
}


async def test_a_base_s_property_of_the_method_s_name_is_not_a_method_it_implements(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Start", PROMPTS)
    out = await ask(repo, "pallium_callers", name="Password.prompt")
    assert [(d.qualified, d.kind) for d in out.implements] == [("Input.prompt", "method")]
    assert not any(r.kind == "attribute" for r in out.references)  # `$this->prompt` reads the property
