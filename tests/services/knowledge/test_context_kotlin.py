"""`knowledge context` on a Kotlin command-line library laid out as Gradle projects: the code in `lib/`
and `mordant/`, every test in a project of its own (`test/`), as a held-out Kotlin repository is.

The classes it showed: a test reaching the edited class only through the interface it implements
(`HelpRendererTest` drives `HelpRenderer`; the change is in `PlainFormatter`); a test in the edited file's
own package, which uses it without an import or a name in common (`OptionGroupsTest` for `Exclusive.kt`),
while the tests importing a package by a star share it among its files; and the test project's
support classes (`TestCommand.kt`, `TestFormatter.kt`, the abstract `FormatterTestBase.kt`), named
like tests: neighbours of the tests, never tests themselves, unlike a `*Test` class inheriting its
`@Test`s from such a base.
"""

from pathlib import Path

import pytest

from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio

_LIB = "lib/src/main/kotlin/org/cli/"
_MOR = "mordant/src/main/kotlin/org/cli/"
_TEST = "test/src/commonTest/kotlin/org/cli/"


def _test_class(name: str, package: str, body: str, imports: str = "") -> str:
    return f"package org.cli.{package}\n\n{imports}import kotlin.test.Test\n\nclass {name} {{\n{body}}}\n"


@pytest.fixture
def kotlin_repo(empty_repo: Path) -> Path:
    star = "import org.cli.options.*\n"
    commit(
        empty_repo,
        "Start",
        {
            "settings.gradle.kts": 'include("lib", "mordant", "test")\n',
            "lib/build.gradle.kts": 'plugins { kotlin("jvm") }\n',
            "mordant/build.gradle.kts": 'plugins { kotlin("jvm") }\n',
            "test/build.gradle.kts": 'plugins { kotlin("jvm") }\n',
            _LIB + "output/HelpRenderer.kt": "package org.cli.output\n\n/** Formats the help of a command. */\n"
            "interface HelpRenderer {\n    /** The help text, formatted. */\n"
            "    fun format(text: String): String\n}\n\n"
            "/** The formatter commands use unless told otherwise. */\n"
            "fun defaultRenderer(): HelpRenderer = PlainFormatter()\n",
            _LIB + "output/PlainFormatter.kt": "package org.cli.output\n\n"
            "/** Plain text help, each paragraph wrapped at the terminal width. */\n"
            "class PlainFormatter(private val width: Int = 80) : HelpRenderer {\n"
            "    override fun format(text: String): String = text.trim().take(width)\n}\n",
            _LIB + "output/MarkdownFormatter.kt": "package org.cli.output\n\n"
            "/** Help written as Markdown, each paragraph rendered. */\n"
            "class MarkdownFormatter : HelpRenderer {\n"
            '    override fun format(text: String): String = "**" + text + "**"\n}\n',
            _LIB + "groups/Exclusive.kt": "package org.cli.groups\n\n"
            "/** Options of which at most one may be given on the command line. */\n"
            "fun exclusiveOptions(vararg names: String): Group = Group(names.toList())\n",
            _LIB + "groups/Group.kt": "package org.cli.groups\n\n/** A group of options parsed together. */\n"
            "class Group(val names: List<String>) {\n"
            '    /** Fail when no option of the group is given: "must provide one of" the names. */\n'
            "    fun required(): Group = this\n}\n",
            _LIB + "groups/Cooccurring.kt": "package org.cli.groups\n\n"
            "/** Options that must all be given together, or none of them. */\n"
            "fun cooccurring(group: Group): Group = group\n",
            _LIB + "options/Option.kt": "package org.cli.options\n\n/** An option of a command. */\n"
            "open class Option(val name: String) {\n    /** The value given, else the default. */\n"
            "    fun value(): String = name\n}\n",
            _MOR + "options/PromptOptions.kt": "package org.cli.options\n\n"
            "/** Ask for the option's value on the terminal when it is not given. */\n"
            'fun Option.prompt(text: String = "Value"): Option = this\n',
            _TEST + "output/HelpRendererTest.kt": _test_class(
                "HelpRendererTest",
                "output",
                '    @Test\n    fun wraps() {\n        check(defaultRenderer().format(" a ") == "a")\n    }\n',
            ),
            _TEST + "output/MarkdownFormatterTest.kt": "package org.cli.output\n\n"
            "class MarkdownFormatterTest : FormatterTestBase() {\n"
            "    override val formatter = MarkdownFormatter()\n}\n",
            _TEST + "groups/OptionGroupsTest.kt": _test_class(
                "OptionGroupsTest",
                "groups",
                "    @Test\n    fun exclusive() {\n"
                '        check(exclusiveOptions("--a", "--b").required().names.size == 2)\n    }\n',
            ),
            _TEST + "options/OptionTest.kt": _test_class(
                "OptionTest",
                "options",
                '    @Test\n    fun value() {\n        check(Option("a").value() == "a")\n    }\n',
                star,
            ),
            _TEST + "options/EagerOptionTest.kt": _test_class(
                "EagerOptionTest",
                "options",
                '    @Test\n    fun eager() {\n        Option("v").prompt()\n    }\n',
                star,
            ),
            _TEST + "options/PromptOptionsTest.kt": _test_class(
                "PromptOptionsTest",
                "options",
                '    @Test\n    fun prompts() {\n        Option("name").prompt("Your name")\n    }\n',
                star,
            ),
            _TEST + "testing/TestCommand.kt": "package org.cli.testing\n\nimport org.cli.groups.*\n"
            "import org.cli.options.*\n\n/** A command for tests: exclusive options and a prompt. */\n"
            "open class TestCommand {\n"
            '    val group = exclusiveOptions("--a", "--b").required()\n'
            '    val name = Option("name").prompt()\n}\n',
            _TEST + "testing/TestFormatter.kt": "package org.cli.testing\n\nimport org.cli.output.*\n\n"
            "/** A plain formatter for tests, wrapping nothing. */\n"
            "class TestFormatter : HelpRenderer {\n    override fun format(text: String): String = text\n}\n",
            _TEST + "output/FormatterTestBase.kt": "package org.cli.output\n\n"
            "/** What every formatter's test checks: plain text and paragraphs wrapped. */\n"
            "import kotlin.test.Test\n\nabstract class FormatterTestBase {\n"
            "    abstract val formatter: HelpRenderer\n\n"
            '    @Test\n    fun plain() {\n        check(formatter.format("a").isNotEmpty())\n    }\n}\n',
        },
    )
    return empty_repo


async def _context(repo: Path, task: str):
    await ask(repo, "pallium_knowledge_build", model=False)
    out = await ask(repo, "pallium_knowledge_context", task=task)
    return [f.path for f in out.read], out.tests


async def test_a_test_of_the_interface_checks_the_class_implementing_it(kotlin_repo: Path):
    read, tests = await _context(
        kotlin_repo, "PlainFormatter should indent each wrapped line of a paragraph by two spaces."
    )
    assert read[0] == _LIB + "output/PlainFormatter.kt"
    assert tests[0] == _TEST + "output/HelpRendererTest.kt"
    assert _TEST + "output/MarkdownFormatterTest.kt" not in tests  # a sibling's own test checks the sibling


async def test_a_test_in_the_files_own_package_needs_no_import_to_test_it(kotlin_repo: Path):
    read, tests = await _context(
        kotlin_repo, "exclusiveOptions with required() should list the option names joined with or when none is given."
    )
    assert _LIB + "groups/Exclusive.kt" in read[:2]
    assert _TEST + "groups/OptionGroupsTest.kt" in tests[:3]


async def test_test_support_classes_without_a_test_are_never_tests(kotlin_repo: Path):
    for task in (
        "exclusiveOptions with required() should list the option names joined with or when none is given.",
        "PlainFormatter should indent each wrapped line of a paragraph by two spaces.",
        "prompt should show the option's default value in the prompt text.",
    ):
        _read, tests = await _context(kotlin_repo, task)
        support = {
            _TEST + f for f in ("testing/TestCommand.kt", "testing/TestFormatter.kt", "output/FormatterTestBase.kt")
        }
        assert tests and not support & set(tests), (task, tests)
    _read, tests = await _context(kotlin_repo, "MarkdownFormatter should render a paragraph in bold.")
    assert tests[0] == _TEST + "output/MarkdownFormatterTest.kt"  # its tests are its base's
