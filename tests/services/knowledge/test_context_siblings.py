"""`knowledge context` tells a type the task names from its look-alike siblings, in a Rust crate.

The classes a held-out Rust repository showed: a plain word describing the named type's work that
names a sibling type beside it ("Take ... cut to the limit" is no lead to `Limit`); a trait method
that several types implement, placed by the task on one of them (`Buf::chunks_vectored for
VecDeque<u8>` is not `Chain`'s); a method the task names beside the types it is about but defined
here only on other types (`copy_from_slice`, the standard slice's); a look-alike type the named
definition uses (`Bytes` in `BytesMut::copy_to_bytes`, for a task that names `BytesMut` and never
`Bytes`); and test crates named as variants of a test (`test_bytes_odd_alloc.rs`) for a task that
does not say the variant's words.
"""

from pathlib import Path

import pytest

from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio


def _impl_buf(owner: str, body: str) -> str:
    return f"impl Buf for {owner} {{\n{body}}}\n"


_VECTORED = "    fn chunks_vectored(&self, dst: &mut [IoSlice]) -> usize {\n        dst.len()\n    }\n"


@pytest.fixture
def crate_repo(empty_repo: Path) -> Path:
    commit(
        empty_repo,
        "Start",
        {
            "Cargo.toml": '[package]\nname = "bufs"\nversion = "0.1.0"\nedition = "2021"\n',
            "src/lib.rs": "pub mod buf;\nmod bytes;\nmod bytes_mut;\n\npub use crate::bytes::Bytes;\n"
            "pub use crate::bytes_mut::BytesMut;\npub use crate::buf::{Buf, BufMut};\n",
            "src/bytes.rs": "/// A cheaply cloneable, shared slice of memory.\n"
            "pub struct Bytes {\n    len: usize,\n}\n\n"
            "impl Bytes {\n    /// Creates a Bytes by copying a slice.\n"
            "    pub fn copy_from_slice(data: &[u8]) -> Bytes {\n        Bytes { len: data.len() }\n    }\n\n"
            "    /// Shortens the buffer to len bytes.\n"
            "    pub fn truncate(&mut self, len: usize) {\n        self.len = len;\n    }\n}\n",
            "src/bytes_mut.rs": "use crate::bytes::Bytes;\nuse crate::buf::Buf;\n\n"
            "/// A unique reference to a growable buffer.\npub struct BytesMut {\n    len: usize,\n}\n\n"
            "impl BytesMut {\n    /// Appends the bytes of a source buffer.\n"
            "    pub fn put<B: Buf>(&mut self, src: B) {\n        self.len += src.remaining();\n    }\n}\n\n"
            "impl Buf for BytesMut {\n    fn remaining(&self) -> usize {\n        self.len\n    }\n\n"
            "    fn copy_to_bytes(&mut self, len: usize) -> Bytes {\n"
            "        let taken = Bytes::copy_from_slice(&[]);\n        self.len -= len;\n        taken\n    }\n}\n",
            "src/buf/mod.rs": "mod buf_impl;\nmod buf_mut;\nmod chain;\nmod limit;\nmod take;\nmod uninit_slice;\n"
            "mod vec_deque;\n\npub use self::buf_impl::Buf;\npub use self::buf_mut::BufMut;\n"
            "pub use self::chain::Chain;\npub use self::limit::Limit;\npub use self::take::Take;\n"
            "pub use self::uninit_slice::UninitSlice;\n",
            "src/buf/buf_impl.rs": "use std::io::IoSlice;\n\n/// Read bytes from a buffer.\npub trait Buf {\n"
            "    /// Bytes left to read.\n    fn remaining(&self) -> usize;\n\n"
            "    /// Fills dst with slices of the buffer.\n" + _VECTORED + "}\n",
            "src/buf/buf_mut.rs": "/// A trait for values that provide sequential write access to bytes.\n"
            "pub trait BufMut {\n"
            "    /// Writes a whole slice.\n    fn put_slice(&mut self, src: &[u8]);\n}\n\n"
            "impl BufMut for &mut [u8] {\n    fn put_slice(&mut self, src: &[u8]) {\n"
            "        self[..src.len()].copy_from_slice(src);\n    }\n}\n",
            "src/buf/take.rs": "use std::io::IoSlice;\n\nuse crate::buf::Buf;\n\n"
            "/// A Buf adapter which limits the bytes read from an inner buffer.\n"
            "pub struct Take<T> {\n    inner: T,\n    limit: usize,\n}\n\n"
            + _impl_buf("Take<T>", "    fn remaining(&self) -> usize {\n        self.limit\n    }\n"),
            "src/buf/limit.rs": "/// A BufMut adapter which limits the amount of bytes that can be written.\n"
            "pub struct Limit<T> {\n    inner: T,\n    limit: usize,\n}\n\n"
            "impl<T> Limit<T> {\n    /// The limit of this adapter.\n"
            "    pub fn limit(&self) -> usize {\n        self.limit\n    }\n}\n",
            "src/buf/chain.rs": "use std::io::IoSlice;\n\nuse crate::buf::Buf;\n\n"
            "/// A Buf chaining two buffers, the ring of one after the other.\n"
            "pub struct Chain<T, U> {\n    a: T,\n    b: U,\n}\n\n"
            + _impl_buf("Chain<T, U>", "    fn remaining(&self) -> usize {\n        0\n    }\n\n" + _VECTORED),
            "src/buf/vec_deque.rs": "use std::collections::VecDeque;\nuse std::io::IoSlice;\n\n"
            "use crate::buf::Buf;\n\n"
            + _impl_buf("VecDeque<u8>", "    fn remaining(&self) -> usize {\n        self.len()\n    }\n"),
            "src/buf/uninit_slice.rs": "/// Uninitialized byte slice.\npub struct UninitSlice([u8]);\n\n"
            "impl UninitSlice {\n    /// Copies bytes from src into the slice.\n"
            "    pub fn copy_from_slice(&mut self, src: &[u8]) {\n        let _ = src;\n    }\n}\n",
            "tests/test_bytes.rs": "use bufs::Bytes;\n\n#[test]\nfn truncate() {\n"
            '    let mut b = Bytes::copy_from_slice(b"ab");\n    b.truncate(1);\n}\n',
            "tests/test_bytes_odd_alloc.rs": "//! Bytes under an allocator giving odd addresses.\nuse bufs::Bytes;\n\n"
            '#[test]\nfn odd() {\n    let mut b = Bytes::copy_from_slice(b"ab");\n    b.truncate(1);\n}\n',
            "tests/test_take.rs": "use bufs::Take;\n\n#[test]\nfn take() {\n"
            "    let _ = std::mem::size_of::<Take<u8>>();\n}\n",
            "tests/test_limit.rs": "use bufs::buf::Limit;\n\n#[test]\nfn limit() {\n"
            "    let _ = std::mem::size_of::<Limit<u8>>();\n}\n",
            "tests/test_chain.rs": "use bufs::buf::Chain;\n\n#[test]\nfn chain() {\n"
            "    let _ = std::mem::size_of::<Chain<u8, u8>>();\n}\n",
            "tests/test_buf.rs": "use std::collections::VecDeque;\n\nuse bufs::Buf;\n\n#[test]\nfn deque() {\n"
            "    let d: VecDeque<u8> = VecDeque::new();\n    assert_eq!(d.remaining(), 0);\n}\n",
            "tests/test_buf_mut.rs": "use bufs::BufMut;\n\n#[test]\nfn put_slice() {\n"
            '    let mut a = [0u8; 2];\n    let mut s = &mut a[..];\n    s.put_slice(b"ab");\n}\n',
        },
    )
    return empty_repo


async def _read(repo: Path, task: str) -> tuple[list[str], list[str]]:
    await ask(repo, "pallium_knowledge_build", model=False)
    out = await ask(repo, "pallium_knowledge_context", task=task)
    return [f.path for f in out.read], out.tests


async def test_a_plain_word_naming_a_sibling_of_the_named_type_describes_it(crate_repo: Path):
    read, tests = await _read(crate_repo, "Take should count each chunk it returns against the limit, cut to it.")
    assert read[0] == "src/buf/take.rs"
    assert "src/buf/limit.rs" not in read  # `limit` is what Take keeps, not the Limit adapter
    assert "tests/test_take.rs" in tests
    assert "tests/test_limit.rs" not in tests


async def test_a_trait_method_the_task_places_on_one_type_is_not_every_implementers(crate_repo: Path):
    read, _ = await _read(crate_repo, "Implement Buf::chunks_vectored for VecDeque<u8> so both halves are returned.")
    assert read[0] == "src/buf/vec_deque.rs"
    assert "src/buf/chain.rs" not in read  # Chain implements chunks_vectored too; the task is not about it


async def test_a_method_defined_only_on_types_the_task_does_not_name_is_no_lead(crate_repo: Path):
    read, tests = await _read(
        crate_repo, "Override BufMut::put_slice for &mut [u8] so that it copies with one copy_from_slice."
    )
    assert read[0] == "src/buf/buf_mut.rs"
    assert "src/buf/uninit_slice.rs" not in read  # its copy_from_slice is UninitSlice's, the task's is the slice's
    assert tests[0] == "tests/test_buf_mut.rs"


async def test_a_look_alike_of_the_named_type_that_its_method_uses_is_not_read(crate_repo: Path):
    read, _ = await _read(crate_repo, "BytesMut::copy_to_bytes should not shrink a BytesMut of zero length.")
    assert read[0] == "src/bytes_mut.rs"
    assert "src/bytes.rs" not in read  # the Bytes it returns is the sibling the task tells apart


async def test_a_test_crate_named_as_a_variant_is_listed_only_for_its_words(crate_repo: Path):
    _, tests = await _read(crate_repo, "Bytes::truncate(0) should release the shared buffer at once.")
    assert tests[0] == "tests/test_bytes.rs"
    assert "tests/test_bytes_odd_alloc.rs" not in tests
    _, tests = await _read(crate_repo, "Bytes::truncate(0) under an odd alloc should release the buffer at once.")
    assert "tests/test_bytes_odd_alloc.rs" in tests


@pytest.mark.parametrize("spelled", ["BytesMut::put", "BytesMut#put"])
async def test_a_method_qualified_by_its_type_with_colons_or_a_hash_is_that_types(crate_repo: Path, spelled: str):
    """`BytesMut::put` (Rust, C++, Ruby) and `BytesMut#put` (Javadoc, YARD) qualify `put` as `BytesMut.put`
    does: a three-letter method name the task never spells alone is that type's method, defined there."""
    await ask(crate_repo, "pallium_knowledge_build", model=False)
    out = await ask(
        crate_repo, "pallium_knowledge_context", task=f"{spelled} should return at once for an empty source."
    )
    assert out.read[0].path == "src/bytes_mut.rs"
    assert any(s.startswith("BytesMut.put:") for s in out.read[0].symbols)
