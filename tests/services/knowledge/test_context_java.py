"""`knowledge context` on a Java library laid out the Maven way (`src/main/java/`, `src/test/java/`).

The classes a held-out Java repository showed: a capitalised name matches in its own case
(`DocumentType` is the class, not a `documentType()` getter of `Document`; `Pattern` in a quoted
message is no `pattern` field); a plain word that is the plural of a type the task qualifies a
method by ("boolean attributes" beside `Attribute.isBooleanAttribute`) names its look-alike sibling
`Attributes` only by coincidence; and tests in a package named like a support folder (`helper/`)
are tests, and a class with no test of its own is checked by the test named after the kind its
name ends in (`RegexTest.java` for `Re2jRegex.java`).
"""

from pathlib import Path

import pytest

from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio

_MAIN = "src/main/java/org/lib/"
_TEST = "src/test/java/org/lib/"


@pytest.fixture
def java_repo(empty_repo: Path) -> Path:
    commit(
        empty_repo,
        "Start",
        {
            "pom.xml": "<project><artifactId>lib</artifactId></project>\n",
            _MAIN + "nodes/Attribute.java": "package org.lib.nodes;\n\n/** A single key and value attribute. */\n"
            'public class Attribute {\n    private static final String[] booleanAttributes = {"checked"};\n\n'
            "    /** Whether the key names a boolean attribute, printed without a value. */\n"
            "    public static boolean isBooleanAttribute(String key) {\n"
            "        return booleanAttributes[0].equals(key);\n    }\n}\n",
            _MAIN + "nodes/Attributes.java": "package org.lib.nodes;\n\n"
            "/** The attributes of an element, printed in HTML output with their values. */\n"
            "public class Attributes {\n    /** Print the attributes, each boolean attribute without a value. */\n"
            '    public String html() {\n        return Attribute.isBooleanAttribute("x") ? "" : "x";\n    }\n}\n',
            _MAIN + "nodes/DocumentType.java": "package org.lib.nodes;\n\n/** A doctype node. */\n"
            "public class DocumentType {\n    /** Write the public ID between double quotes. */\n"
            '    public String outerHtml(String publicId) {\n        return "\\"" + publicId + "\\"";\n    }\n}\n',
            _MAIN + "nodes/Document.java": "package org.lib.nodes;\n\n/** A parsed document with its doctype. */\n"
            "public class Document {\n    private DocumentType doctype;\n\n"
            "    /** The document type of this document, written with its public ID. */\n"
            "    public DocumentType documentType() {\n        return doctype;\n    }\n}\n",
            _MAIN + "helper/Regex.java": "package org.lib.helper;\n\n/** A compiled regular expression. */\n"
            "public abstract class Regex {\n    /** Compile a regular expression. */\n"
            "    public static Regex compile(String regex) {\n        return null;\n    }\n}\n",
            _MAIN + "helper/Re2jRegex.java": "package org.lib.helper;\n\n/** A regex backed by re2j. */\n"
            "final class Re2jRegex extends Regex {\n    /** Compile, reporting a complexity error. */\n"
            "    static Re2jRegex compile(String regex) {\n        return new Re2jRegex();\n    }\n}\n",
            _MAIN + "select/Evaluator.java": "package org.lib.select;\n\n/** Evaluates selectors. */\n"
            "public abstract class Evaluator {\n    /** Matches text against a regex pattern. */\n"
            "    public static final class Matches extends Evaluator {\n        private final Object pattern;\n\n"
            "        /** Match the error complexity of the pattern. */\n"
            "        public Matches(Object pattern) {\n            this.pattern = pattern;\n        }\n    }\n}\n",
            _TEST + "nodes/AttributeTest.java": "package org.lib.nodes;\n\nclass AttributeTest {\n"
            '    @Test void booleans() {\n        assertTrue(Attribute.isBooleanAttribute("checked"));\n    }\n}\n',
            _TEST + "nodes/AttributesTest.java": "package org.lib.nodes;\n\nclass AttributesTest {\n"
            '    @Test void html() {\n        assertEquals("x", new Attributes().html());\n    }\n}\n',
            _TEST + "nodes/DocumentTypeTest.java": "package org.lib.nodes;\n\nclass DocumentTypeTest {\n"
            '    @Test void outer() {\n        new DocumentType().outerHtml("a");\n    }\n}\n',
            _TEST + "helper/RegexTest.java": "package org.lib.helper;\n\nclass RegexTest {\n"
            '    @Test void complexity() {\n        Regex.compile("a");\n    }\n}\n',
        },
    )
    return empty_repo


async def _context(repo: Path, task: str):
    await ask(repo, "pallium_knowledge_build", model=False)
    out = await ask(repo, "pallium_knowledge_context", task=task)
    return [f.path for f in out.read], out.tests


async def test_a_plural_of_the_type_a_method_is_qualified_by_is_no_lead_to_its_sibling(java_repo: Path):
    read, tests = await _context(
        java_repo, "Attribute.isBooleanAttribute should recognise inert as one of the boolean attributes."
    )
    assert read[0] == _MAIN + "nodes/Attribute.java"
    assert _MAIN + "nodes/Attributes.java" not in read
    assert tests[0] == _TEST + "nodes/AttributeTest.java"


async def test_a_capitalised_name_matches_in_its_own_case(java_repo: Path):
    read, tests = await _context(
        java_repo, "DocumentType should write a public ID holding a quote between single quotes."
    )
    assert read[0] == _MAIN + "nodes/DocumentType.java"
    assert _MAIN + "nodes/Document.java" not in read  # its documentType() getter is not the class
    assert tests[0] == _TEST + "nodes/DocumentTypeTest.java"
    read, tests = await _context(
        java_repo, 'Re2jRegex should throw "Pattern complexity error" when matching overflows.'
    )
    assert read[0] == _MAIN + "helper/Re2jRegex.java"
    assert _MAIN + "select/Evaluator.java" not in read  # `Pattern` is the standard library's, no `pattern` field
    # a test in the package `helper/`, named after the kind Re2jRegex is, which has no test of its own
    assert tests[0] == _TEST + "helper/RegexTest.java"


def test_a_class_without_a_test_of_its_own_takes_the_test_of_the_kind_its_name_ends_in():
    from services.knowledge.context_tests import _tests_of_the_kind

    tests = [
        _TEST + "helper/RegexTest.java",
        _TEST + "select/RegexTest.java",  # another package's
        _TEST + "helper/ValidateTest.java",
    ]
    assert _tests_of_the_kind(_MAIN + "helper/Re2jRegex.java", tests) == [_TEST + "helper/RegexTest.java"]
    assert _tests_of_the_kind(_MAIN + "helper/Validate.java", tests) == []  # its own would have been found


async def test_the_own_test_of_a_file_to_read_outranks_tests_named_after_plain_words(empty_repo: Path):
    """For "the XML parser ... as the HTML parser", `XmlTreeBuilderTest.java` is the test of a file to read;
    `ElementTest.java` is named after a plain word ("element") whose `Element.java` is not read, and the
    tests that reach `Parser.java` only by calling it (as nearly every test does) are no test of it."""
    users = {
        f"{_TEST}nodes/Use{i}Test.java": f"package org.lib.nodes;\n\nclass Use{i}Test {{\n"
        f"    @Test void parse() {{\n        Parser.htmlParser();\n    }}\n}}\n"
        for i in range(10)
    }
    commit(
        empty_repo,
        "Start",
        {
            "pom.xml": "<project><artifactId>lib</artifactId></project>\n",
            _MAIN + "parser/Parser.java": "package org.lib.parser;\n\n"
            "/** The XML parser and the HTML parser, each with a maximum stack depth. */\n"
            "public class Parser {\n    /** The XML parser. */\n    public static Parser xmlParser() {\n"
            "        return new Parser();\n    }\n\n    /** The HTML parser. */\n"
            "    public static Parser htmlParser() {\n        return new Parser();\n    }\n}\n",
            _MAIN + "parser/XmlTreeBuilder.java": "package org.lib.parser;\n\n"
            "/** Builds the XML parser's tree: the element stack grows without bound. */\n"
            "class XmlTreeBuilder {\n    /** Push an element on the stack. */\n"
            "    void insertElement(Object element) {\n    }\n}\n",
            _MAIN + "parser/HtmlTreeBuilder.java": "package org.lib.parser;\n\n"
            "/** Builds the HTML parser's tree within a maximum stack depth. */\n"
            "class HtmlTreeBuilder {\n    /** Push an element on the stack, up to the maximum depth. */\n"
            "    void insertElement(Object element) {\n    }\n}\n",
            _MAIN + "nodes/Element.java": "package org.lib.nodes;\n\n/** A node with a name. */\n"
            "public class Element {\n    /** Its name. */\n"
            '    public String name() {\n        return "";\n    }\n}\n',
            _TEST + "parser/ParserTest.java": "package org.lib.parser;\n\nclass ParserTest {\n"
            "    @Test void xml() {\n        Parser.xmlParser();\n    }\n}\n",
            _TEST + "parser/XmlTreeBuilderTest.java": "package org.lib.parser;\n\nclass XmlTreeBuilderTest {\n"
            "    @Test void deep() {\n        new XmlTreeBuilder().insertElement(null);\n    }\n}\n",
            _TEST + "parser/HtmlTreeBuilderTest.java": "package org.lib.parser;\n\nclass HtmlTreeBuilderTest {\n"
            "    @Test void deep() {\n        new HtmlTreeBuilder().insertElement(null);\n    }\n}\n",
            _TEST + "nodes/ElementTest.java": "package org.lib.nodes;\n\nclass ElementTest {\n"
            "    @Test void name() {\n        Parser.htmlParser();\n        new Element().name();\n    }\n}\n",
            **users,
        },
    )
    read, tests = await _context(
        empty_repo,
        "The XML parser should apply the same maximum stack depth as the HTML parser, so a nested element "
        "stack does not grow without bound.",
    )
    assert _MAIN + "parser/XmlTreeBuilder.java" in read
    assert _TEST + "parser/XmlTreeBuilderTest.java" in tests[:3]
    assert _TEST + "nodes/ElementTest.java" not in tests[:3]
