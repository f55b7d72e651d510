"""Rust `Struct.method` where the method comes from a trait: an `impl Trait for Struct` block, or
the trait's default method that the impl does not override.

A Rust struct names no bases in its header: `impl Shape for Circle` (in any file of the crate) is
what makes Circle a Shape, so the base walk reads those headers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.errors import PalliumError
from tests.services.repo.conftest import ask, new_repo

pytestmark = pytest.mark.anyio


@pytest.fixture
def crate(tmp_path: Path) -> Path:
    return new_repo(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "shapes"\nversion = "0.1.0"\n',
            "src/lib.rs": (
                "pub mod shapes;\npub mod circle;\npub mod square;\npub mod impls;\npub mod plain;\n"
                "pub mod label;\npub mod named;\n"
            ),
            "src/named.rs": 'pub trait Named {\n    fn label(&self) -> &str {\n        "named"\n    }\n}\n',
            "src/shapes.rs": (
                "use crate::named::Named;\n\npub trait Shape: Named {\n    fn area(&self) -> f64;\n"
                '    fn describe(&self) -> String {\n        String::from("shape")\n    }\n}\n'
            ),
            "src/circle.rs": (
                "use crate::shapes::Shape;\n\npub struct Circle {\n    r: f64,\n}\n\n"
                "impl Circle {\n    pub fn new(r: f64) -> Self {\n        Circle { r }\n    }\n}\n\n"
                "impl Shape for Circle {\n    fn area(&self) -> f64 {\n        3.0 * self.r\n    }\n}\n\n"
                "pub fn show() -> String {\n    let c = Circle::new(1.0);\n    c.describe()\n}\n"
            ),
            "src/square.rs": "pub struct Square {\n    pub side: f64,\n}\n",
            # another `describe`, so a call of the trait's is not found for being the only one
            "src/label.rs": (
                "pub struct Label;\n\nimpl Label {\n    pub fn describe(&self) -> String {\n"
                "        String::new()\n    }\n}\n"
            ),
            # the impl in another file, with only the default method
            "src/impls.rs": (
                "use crate::shapes;\nuse crate::square::Square;\n\n"
                "impl shapes::Shape for Square {\n    fn area(&self) -> f64 {\n        self.side\n    }\n}\n"
            ),
            # a struct implementing no trait, and an impl of a foreign trait naming Circle as a parameter
            "src/plain.rs": (
                "use crate::circle::Circle;\n\npub struct Plain;\n\nimpl Plain {\n    pub fn new() -> Self {\n"
                "        Plain\n    }\n}\n\nimpl From<Circle> for Plain {\n    fn from(_c: Circle) -> Self {\n"
                "        Plain\n    }\n}\n"
            ),
        },
    )


@pytest.mark.parametrize(("name", "defined_in"), [("Circle.area", "src/circle.rs"), ("Square.area", "src/impls.rs")])
async def test_a_method_of_an_impl_trait_for_block_is_the_struct_s(crate: Path, name: str, defined_in: str) -> None:
    out = await ask(crate, "pallium_callers", name=name)
    assert [(d.path, d.qualified) for d in out.definitions] == [(defined_in, name)]
    assert out.inherited is None


async def test_a_supertrait_s_default_method_is_found_through_the_trait(crate: Path) -> None:
    out = await ask(crate, "pallium_callers", name="Circle.label")
    assert [(d.path, d.qualified) for d in out.definitions] == [("src/named.rs", "Named.label")]
    assert out.inherited == "Circle -> Shape -> Named"


@pytest.mark.parametrize(
    ("name", "chain"), [("Circle.describe", "Circle -> Shape"), ("Square.describe", "Square -> Shape")]
)
async def test_a_trait_s_default_method_is_found_through_the_impl(crate: Path, name: str, chain: str) -> None:
    out = await ask(crate, "pallium_callers", name=name)
    assert [(d.path, d.qualified) for d in out.definitions] == [("src/shapes.rs", "Shape.describe")]
    assert out.inherited == chain


async def test_a_call_of_a_default_method_on_a_struct_resolves_to_the_trait(crate: Path) -> None:
    out = await ask(crate, "pallium_callers", name="Shape.describe")
    assert ("src/circle.rs", 21, "src/shapes.rs") in {(r.path, r.line, r.target) for r in out.references}


@pytest.mark.parametrize("name", ["Plain.describe", "Circle.from"])
async def test_a_struct_without_that_trait_inherits_nothing(crate: Path, name: str) -> None:
    with pytest.raises(PalliumError) as raised:
        await ask(crate, "pallium_callers", name=name)
    assert raised.value.code == "not_found"
