"""Embeddings against an OpenAI-compatible server started on 127.0.0.1 (real HTTP through `openai`)."""

import hashlib
import json
import math
import re
import stat
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import keyring
import pytest
from keyring.backends.fail import Keyring as FailKeyring

from kernel.errors import PalliumError
from kernel.paths import global_db_path, pallium_home
from kernel.store import open_global
from services.sessions.embedding import KEYRING_SERVICE
from services.sessions.store import SCHEMA
from tests.services.sessions.conftest import EXPECTED

pytestmark = pytest.mark.anyio

KEY = "sk-test-" + "k" * 24
X2, B = EXPECTED["sessions"][4]["session_id"], EXPECTED["sessions"][2]["session_id"]


class FakeEmbeddings:
    """Deterministic bag-of-words vectors: texts sharing words are close. `mode` scripts failures."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.dim = 16
        self.requests: list[dict] = []
        self.release = threading.Event()
        handler = self._handler()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def vector(self, text: str, dim: int) -> list[float]:
        values = [0.0] * dim
        for word in re.findall(r"\w+", text.lower()):
            values[int(hashlib.md5(word.encode()).hexdigest(), 16) % dim] += 1.0
        norm = math.sqrt(sum(v * v for v in values)) or 1.0
        return [v / norm for v in values]

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                return None

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append({"auth": self.headers.get("Authorization"), "body": body})
                if fake.mode == "slow":
                    fake.release.wait(5)
                if fake.mode == "error":
                    self._send(500, {"error": {"message": "boom"}})
                    return
                dim = 8 if fake.mode == "wrong_size" else body.get("dimensions") or fake.dim
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = [
                    {"object": "embedding", "index": i, "embedding": fake.vector(t, dim)} for i, t in enumerate(texts)
                ]
                self._send(
                    200,
                    {
                        "object": "list",
                        "data": data,
                        "model": body["model"],
                        "usage": {"prompt_tokens": 1, "total_tokens": 1},
                    },
                )

            def _send(self, code: int, payload: dict) -> None:
                raw = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        return Handler


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeEmbeddings]:
    fake = FakeEmbeddings()
    fake.thread.start()
    monkeypatch.setenv("PALLIUM_EMBED_API_KEY", KEY)
    yield fake
    fake.release.set()
    fake.server.shutdown()
    fake.server.server_close()


async def _configure(call, endpoint, model: str = "fake-embed", **extra):
    return await call("embedding_configure", model=model, base_url=endpoint.url, **extra)


async def test_configure_writes_a_private_file_without_the_key(call, endpoint):
    out = await _configure(call, endpoint)
    path = pallium_home() / "embedding.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert KEY not in path.read_text()
    assert out.key_found and out.key_source == "env:PALLIUM_EMBED_API_KEY"
    assert out.spaces == [] and "check" in out.message


async def test_configure_needs_admin(call, endpoint):
    with pytest.raises(PalliumError) as refused:
        await call("embedding_configure", ceiling="edit", model="m")
    assert refused.value.code == "authority_exceeded"


async def test_check_probes_once_and_records_the_vector_space(call, endpoint):
    await _configure(call, endpoint)
    out = await call("embedding_check")
    assert out.check["ok"] is True and out.check["dim"] == 16
    assert [(s["model"], s["dim"], s["vectors"]) for s in out.spaces] == [("fake-embed", 16, 0)]
    assert len(endpoint.requests) == 1 and endpoint.requests[0]["auth"] == f"Bearer {KEY}"


async def test_sync_embeds_each_session_once_and_recall_merges_semantic_ranks(call, endpoint):
    await _configure(call, endpoint)
    first = await call.sync()
    assert first.embedding.embedded == 6 and first.embedding.error is None
    assert first.embedding.space == "openai/fake-embed/16"
    again = await call.sync()
    assert again.embedding.embedded == 0  # unchanged capsules are not embedded again
    out = await call("recall", query="where did the checkout migration stop?")
    assert out.semantic.used is True and out.semantic.reason is None
    assert [r.id for r in out.results[:2]] == [X2, B]
    search = await call("search", query="backfill", hybrid=True, limit=5)
    assert search.semantic.used is True and len(search.hits) == 5
    stored = b"".join(p.read_bytes() for p in global_db_path().parent.glob("pallium.sqlite*"))
    assert KEY.encode() not in stored


async def test_an_endpoint_that_is_down_leaves_lexical_recall_with_the_reason(call, endpoint):
    await _configure(call, endpoint)
    await call("embedding_check")
    endpoint.server.shutdown()
    endpoint.server.server_close()
    out = await call.sync()
    assert out.files_new == 6 and "cannot reach" in out.embedding.error
    recall = await call("recall", query="where did the checkout migration stop?")
    assert recall.semantic.used is False and "cannot reach" in recall.semantic.reason
    assert [r.id for r in recall.results[:2]] == [X2, B]


async def test_a_slow_endpoint_times_out_and_recall_stays_lexical(call, endpoint):
    await _configure(call, endpoint, timeout_seconds=0.3)
    await call("embedding_check")
    endpoint.mode = "slow"
    recall = await call.sync()
    assert "did not answer" in recall.embedding.error
    out = await call("recall", query="backfill")
    assert out.semantic.used is False and "did not answer" in out.semantic.reason and out.results


async def test_vectors_of_the_wrong_size_are_refused_and_reported_once(call, endpoint):
    await _configure(call, endpoint, dimensions=16)
    await call("embedding_check")
    endpoint.mode = "wrong_size"
    out = await call.sync()
    assert "size 8" in out.embedding.error and out.embedding.embedded == 0
    recall = await call("recall", query="backfill")
    assert recall.semantic.used is False and "size 8" in recall.semantic.reason


async def test_a_new_model_is_a_new_space_and_never_mixes_with_the_old(call, endpoint):
    await _configure(call, endpoint)
    await call.sync()
    await _configure(call, endpoint, model="fake-embed-2", dimensions=12)
    status = await call("embedding_status")
    assert status.message.startswith("configured, but not checked")
    out = await call.sync()
    assert out.embedding.space == "openai/fake-embed-2/12" and out.embedding.embedded == 6
    spaces = {(s["model"], s["dim"]): s["vectors"] for s in (await call("embedding_status")).spaces}
    assert spaces == {("fake-embed", 16): 6, ("fake-embed-2", 12): 6}
    assert (await call("recall", query="backfill")).semantic.used is True


async def test_an_endpoint_that_changes_its_vector_size_gets_a_new_space_never_mixed(call, endpoint):
    await _configure(call, endpoint)  # no dimensions configured: the endpoint's own size is the space's
    first = await call.sync()
    assert first.embedding.space == "openai/fake-embed/16" and first.embedding.embedded == 6
    endpoint.dim = 24  # the same model name now answers with 24 dimensions
    before = await call("recall", query="where did the checkout migration stop?")
    assert before.semantic.used is False and "24" in before.semantic.reason and before.results
    out = await call.sync()
    assert out.embedding.error is None
    assert out.embedding.space == "openai/fake-embed/24" and out.embedding.embedded == 6
    spaces = {(s["model"], s["dim"]): s["vectors"] for s in (await call("embedding_status")).spaces}
    assert spaces == {("fake-embed", 16): 6, ("fake-embed", 24): 6}
    with open_global([SCHEMA]) as db:
        sizes = set(
            db.execute(
                "SELECT sp.dim, length(v.embedding) FROM sessions_vector v JOIN sessions_space sp ON sp.id = v.space_id"
            )
        )
    assert sizes == {(16, 16 * 4), (24, 24 * 4)}  # float32 blobs, each in the space of its own size
    after = await call("recall", query="where did the checkout migration stop?")
    assert after.semantic.used is True and [r.id for r in after.results[:2]] == [X2, B]
    assert (await call.sync()).embedding.embedded == 0
    endpoint.dim = 16  # and back: the old space is active again, its vectors still valid
    back = await call("recall", query="where did the checkout migration stop?")
    assert back.semantic.used is True
    assert (await call.sync()).embedding.space == "openai/fake-embed/16"


async def test_observe_ceiling_makes_no_provider_calls(call, endpoint):
    await _configure(call, endpoint)
    await call("embedding_check")
    before = len(endpoint.requests)
    homes = {"claude_home": str(call.homes["claude"]), "codex_home": str(call.homes["codex"])}
    out = await call("sync", ceiling="observe", **homes)
    assert "consult" in out.embedding.error
    recall = await call("recall", ceiling="observe", query="backfill")
    assert recall.semantic.used is False and "observe" in recall.semantic.reason
    assert len(endpoint.requests) == before


async def test_check_without_a_key_says_so(call, endpoint, monkeypatch):
    await _configure(call, endpoint)
    monkeypatch.delenv("PALLIUM_EMBED_API_KEY")
    out = await call("embedding_check")
    assert out.check["ok"] is False and "PALLIUM_EMBED_API_KEY" in out.check["error"]
    assert endpoint.requests == []


@pytest.fixture
def no_keyring() -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(FailKeyring())
    yield
    keyring.set_keyring(previous)


async def test_keyring_store_without_a_keyring_backend_is_a_clear_error(call, endpoint, no_keyring):
    with pytest.raises(PalliumError) as refused:
        await _configure(call, endpoint, credential_store="keyring")
    assert refused.value.code == "unavailable" and "keyring" in refused.value.message


async def test_a_key_in_the_keyring_is_found_there_and_used_by_check(call, endpoint, memory_keyring, monkeypatch):
    out = await _configure(call, endpoint, credential_store="keyring")
    assert memory_keyring.entries == {(KEYRING_SERVICE, "default"): KEY}
    assert out.credential_store == "keyring"
    monkeypatch.delenv("PALLIUM_EMBED_API_KEY")  # from now on only the keyring holds it
    status = await call("embedding_status")
    assert status.key_found and status.key_source == "keyring:app.pallium.embedding"
    checked = await call("embedding_check")
    assert checked.check["ok"] is True
    assert [r["auth"] for r in endpoint.requests] == [f"Bearer {KEY}"]
    assert KEY not in (pallium_home() / "embedding.json").read_text()
