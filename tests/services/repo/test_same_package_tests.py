"""A Kotlin (or Java, Scala) test in the same package as the file it tests needs no import: it covers
the file when it uses a name the file declares, and the module's own tests come before another's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio

RESULT = """\
package com.example.result

sealed class Result<out V, out E>

fun <V> Ok(value: V): Result<V, Nothing> = TODO()
"""

MAP_TEST = """\
package com.example.result

import kotlin.test.Test

class MapTest {
    @Test
    fun mapsOk() {
        Ok(1)
    }
}
"""

OTHER_PACKAGE_TEST = """\
package com.example.other

import kotlin.test.Test

class OkTest {
    @Test
    fun unrelated() {
        Ok(2)
    }
}
"""

SILENT_TEST = """\
package com.example.result

import kotlin.test.Test

class SilentTest {
    @Test
    fun nothing() {}
}
"""

COROUTINES_TEST = """\
package com.example.result.coroutines

import com.example.result.Result
import kotlin.test.Test

class BindingTest {
    @Test
    fun binds() {}
}
"""


async def test_a_same_package_test_using_the_files_names_covers_it(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    files = {
        "settings.gradle.kts": 'include("result", "result-coroutines")\n',
        "result/build.gradle.kts": 'plugins { kotlin("jvm") }\n',
        "result/src/main/kotlin/com/example/result/Result.kt": RESULT,
        "result/src/test/kotlin/com/example/result/MapTest.kt": MAP_TEST,
        "result/src/test/kotlin/com/example/result/SilentTest.kt": SILENT_TEST,
        "result/src/test/kotlin/com/example/other/OkTest.kt": OTHER_PACKAGE_TEST,
        "result-coroutines/build.gradle.kts": 'plugins { kotlin("jvm") }\n',
        "result-coroutines/src/test/kotlin/com/example/result/coroutines/BindingTest.kt": COROUTINES_TEST,
    }
    commit(repo, "Start", files)
    (repo / "gradlew").write_text("#!/bin/sh\n")
    out = await ask(repo, "pallium_explain", path="result/src/main/kotlin/com/example/result/Result.kt")
    assert out.verification.fast == [
        "./gradlew -p result test --tests MapTest",  # its own module's, with no import
        "./gradlew -p result-coroutines test --tests BindingTest",  # imports it, from another module
    ]
