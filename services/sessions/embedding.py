"""Optional semantic recall: one continuity vector per session from an OpenAI-compatible endpoint.

The configuration (`$PALLIUM_HOME/embedding.json`, mode 0600) names the provider, model and endpoint,
never the key: that comes from `PALLIUM_EMBED_API_KEY` or the OS keyring. Each (provider, model,
dimension) is its own vector space; a new model or size starts a new space and never mixes with the
old one. Without configured `dimensions` the endpoint's own size is the space's: when it answers with
another size (the same model name, re-deployed), that is a new space, started by whichever call
notices first (sync, check or a recall), and filled by the next sync. With `dimensions` configured,
any other size is an error. Every failure here degrades to lexical recall with a reason, reported once.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import time
from typing import Any

from kernel import paths, writes
from kernel.credentials import Credential, get_credential, keyring_status, store_in_keyring
from kernel.errors import PalliumError
from services.sessions import capsule as capsules
from services.sessions.models import EmbeddingConfigureInput, EmbeddingOutput, EmbeddingReport
from services.sessions.rows import Filters, NearSession, SpaceRow
from services.sessions.store import SessionsStore

__all__ = ["ENV_KEY", "KEYRING_SERVICE", "check", "configure", "embed_pending", "ranker", "status"]

ENV_KEY = "PALLIUM_EMBED_API_KEY"
KEYRING_SERVICE = "app.pallium.embedding"
CONFIG_NAME = "embedding.json"
_BATCH = 64
_MAX_PER_SYNC = 5000
_QUERY_TIMEOUT = 5.0


class EmbeddingError(Exception):
    """The endpoint could not give usable vectors; the message says why, without the key."""


def config_path() -> Any:
    return paths.pallium_home() / CONFIG_NAME


def load_config() -> dict[str, Any] | None:
    try:
        data = json.loads(config_path().read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise PalliumError(
            "unavailable", f"cannot read {config_path()}: {exc}", hint="rerun `pallium sessions embedding configure`"
        ) from exc
    return data if isinstance(data, dict) and data.get("model") else None


def configure(store: SessionsStore, inp: EmbeddingConfigureInput) -> EmbeddingOutput:
    credential_store = "keyring" if inp.credential_store == "keychain" else inp.credential_store  # same OS keyring
    if credential_store == "keyring":
        usable, why = keyring_status()
        if not usable:
            raise PalliumError(
                "unavailable",
                f"cannot use the OS keyring: {why}",
                hint=f"use --credential-store env and export {ENV_KEY}",
            )
        key = os.environ.get(ENV_KEY)
        if not key:
            raise PalliumError(
                "invalid_input",
                f"export {ENV_KEY} once so configure can copy it into the keyring",
                hint="the key is never accepted as an argument",
                details={"field": "credential_store"},
            )
        store_in_keyring(KEYRING_SERVICE, "default", key)
    config = {
        "provider": inp.provider,
        "model": inp.model,
        "base_url": inp.base_url,
        "credential_store": credential_store,
        "dimensions": inp.dimensions,
        "timeout_seconds": inp.timeout_seconds,
    }
    writes.write_text(writes.home() / CONFIG_NAME, json.dumps(config, indent=2), mode=0o600, atomic=True)
    return status(store, message=f"configured {inp.provider} {inp.model}; run `pallium sessions embedding check`")


def status(
    store: SessionsStore, message: str | None = None, check_result: dict[str, Any] | None = None
) -> EmbeddingOutput:
    config = load_config()
    key = _key(config) if config else None
    space = _space(store, config) if config else None
    missing = None
    if space is not None:
        missing = sum(1 for c in store.embed_candidates(space.id, _MAX_PER_SYNC) if not c.text_hash)
    if message is None:
        message = (
            "no embedding provider is configured: recall is lexical"
            if not config
            else (
                "semantic recall is ready"
                if key and space
                else "configured, but "
                + ("no key found" if not key else "not checked yet: run `pallium sessions embedding check`")
            )
        )
    return EmbeddingOutput(
        configured=config is not None,
        config_path=str(config_path()),
        provider=(config or {}).get("provider"),
        model=(config or {}).get("model"),
        base_url=(config or {}).get("base_url"),
        credential_store=(config or {}).get("credential_store"),
        key_found=key is not None,
        key_source=key.source if key else None,
        spaces=store.spaces(),
        sessions_without_vector=missing,
        check=check_result,
        message=message,
    )


def check(store: SessionsStore, now: str) -> EmbeddingOutput:
    config = load_config()
    if config is None:
        why = "no embedding provider is configured: run `pallium sessions embedding configure --model MODEL`"
        return status(store, message=f"check failed: {why}", check_result={"ok": False, "error": why})
    key = _key(config)
    if key is None:
        why = f"no embedding key: export {ENV_KEY} (or store it in the OS keyring)"
        return status(store, message=f"check failed: {why}", check_result={"ok": False, "error": why})
    started = time.perf_counter()
    try:
        vector = _embed(config, key, ["pallium embedding check"], timeout=config.get("timeout_seconds") or 10)[0]
    except EmbeddingError as exc:
        result = {"ok": False, "error": str(exc)}
        return status(store, message=f"check failed: {exc}", check_result=result)
    if config.get("dimensions") and len(vector) != config["dimensions"]:
        why = f"the endpoint returned vectors of size {len(vector)}, not the configured {config['dimensions']}"
        return status(store, message=f"check failed: {why}", check_result={"ok": False, "error": why})
    space_id = _start_space(store, config, len(vector), now).id
    result = {"ok": True, "dim": len(vector), "space_id": space_id, "ms": int((time.perf_counter() - started) * 1000)}
    return status(store, message=f"ok: {config['model']} gives {len(vector)} dimensions", check_result=result)


def embed_pending(store: SessionsStore, *, now: str, allowed: bool) -> EmbeddingReport:
    """Embed sessions whose continuity text changed; stop at the first failure and say why."""
    config = load_config()
    if config is None:
        return EmbeddingReport(configured=False)
    if not allowed:
        return EmbeddingReport(configured=True, error="skipped: embedding calls need authority consult")
    key = _key(config)
    if key is None:
        return EmbeddingReport(configured=True, error=f"skipped: no key ({ENV_KEY} or the OS keyring)")
    space = _space(store, config)
    embedded = [0]
    try:
        if space is None:
            probe = _embed(config, key, ["pallium embedding check"], timeout=config.get("timeout_seconds") or 10)[0]
            space = _start_space(store, config, len(probe), now)
        try:
            _embed_changed(store, config, key, space, embedded)
        except _SizeChanged as changed:  # the endpoint's size changed: a new space, filled from scratch
            space = _start_space(store, config, changed.dim, now)
            _embed_changed(store, config, key, space, embedded)
    except EmbeddingError as exc:
        return EmbeddingReport(configured=True, embedded=embedded[0], space=_space_name(config, space), error=str(exc))
    return EmbeddingReport(configured=True, embedded=embedded[0], space=_space_name(config, space))


class _SizeChanged(Exception):
    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        self.dim = dim


def _embed_changed(
    store: SessionsStore, config: dict[str, Any], key: Credential, space: SpaceRow, embedded: list[int]
) -> None:
    """Embed into `space` every session whose continuity text changed, counting into `embedded`."""
    space_id, dim = space.id, space.dim
    pending = []
    for candidate in store.embed_candidates(space_id, _MAX_PER_SYNC):
        text = capsules.continuity_text(candidate.capsule, candidate.fields)
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if digest != candidate.text_hash:
            pending.append((candidate.session_id, text, digest))
    for start in range(0, len(pending), _BATCH):
        batch = pending[start : start + _BATCH]
        vectors = _embed(config, key, [text for _, text, _ in batch], timeout=config.get("timeout_seconds") or 10)
        _check_size(config, {len(v) for v in vectors}, dim)
        with store.db.transaction():
            for (session_id, _, digest), vector in zip(batch, vectors, strict=True):
                store.put_vector(space_id, session_id, digest, _blob(vector))
        embedded[0] += len(batch)


def _check_size(config: dict[str, Any], sizes: set[int], dim: int) -> None:
    """Raise unless every vector has the space's size; a uniform new size without configured
    dimensions means the endpoint changed (`_SizeChanged`), anything else is an error."""
    if sizes <= {dim}:
        return
    if len(sizes) > 1:
        raise EmbeddingError(f"the endpoint returned vectors of mixed sizes {sorted(sizes)}")
    (size,) = sizes
    if config.get("dimensions"):
        raise EmbeddingError(f"the endpoint returned vectors of size {size}, not the configured {config['dimensions']}")
    raise _SizeChanged(size)


def _start_space(store: SessionsStore, config: dict[str, Any], dim: int, now: str) -> SpaceRow:
    """The space of (provider, model, dim), created if new, and made the active one."""
    with store.db.transaction():
        space_id = store.space(config["provider"], config["model"], dim, now)
        store.mark_space_checked(space_id, now)
    return SpaceRow(space_id, dim)


def ranker(store: SessionsStore, *, allowed: bool, now: str) -> tuple[Any, str | None]:
    """A semantic ranker for recall and search, or None and the reason there is none."""
    try:
        config = load_config()
    except PalliumError as exc:
        return None, exc.message
    if config is None:
        return None, "no embedding provider is configured"
    if not allowed:
        return None, "the authority ceiling (observe) does not allow embedding calls"
    key = _key(config)
    if key is None:
        return None, f"no embedding key ({ENV_KEY} or the OS keyring)"
    space = _space(store, config)
    if space is None:
        return None, "no vectors yet: run `pallium sessions embedding check`, then `pallium sessions sync`"
    space_id, dim = space.id, space.dim

    def rank(query: str, filters: Filters, k: int) -> list[NearSession]:
        vector = _embed(config, key, [query], timeout=min(config.get("timeout_seconds") or 10, _QUERY_TIMEOUT))[0]
        try:
            _check_size(config, {len(vector)}, dim)
        except _SizeChanged as changed:
            new_id = _start_space(store, config, changed.dim, now).id
            if not store.space_has_vectors(new_id):
                raise EmbeddingError(
                    f"the endpoint now returns vectors of size {changed.dim}, not {dim}: a new vector space "
                    "was started; run `pallium sessions sync` to fill it"
                ) from None
            return store.nearest(new_id, _blob(vector), filters, k)
        return store.nearest(space_id, _blob(vector), filters, k)

    return rank, None


def _embed(config: dict[str, Any], key: Credential, texts: list[str], *, timeout: float) -> list[list[float]]:
    import openai

    client = openai.OpenAI(api_key=key.value, base_url=config.get("base_url"), timeout=timeout, max_retries=0)
    extra = {"dimensions": config["dimensions"]} if config.get("dimensions") else {}
    try:
        response = client.embeddings.create(model=config["model"], input=texts, **extra)
    except openai.APITimeoutError as exc:
        raise EmbeddingError(f"the endpoint did not answer within {timeout:g}s") from exc
    except openai.APIConnectionError as exc:
        raise EmbeddingError(f"cannot reach the endpoint ({type(exc.__cause__ or exc).__name__})") from exc
    except openai.APIStatusError as exc:
        raise EmbeddingError(f"the endpoint answered HTTP {exc.status_code}") from exc
    except openai.OpenAIError as exc:
        raise EmbeddingError(f"embedding failed: {type(exc).__name__}") from exc
    finally:
        client.close()
    data = sorted(response.data, key=lambda d: d.index)
    if len(data) != len(texts):
        raise EmbeddingError(f"asked for {len(texts)} vectors, got {len(data)}")
    return [list(d.embedding) for d in data]


def _key(config: dict[str, Any] | None) -> Credential | None:
    service = KEYRING_SERVICE if (config or {}).get("credential_store") == "keyring" else None
    return get_credential(env_vars=[ENV_KEY], keyring_service=service)


def _space(store: SessionsStore, config: dict[str, Any]) -> SpaceRow | None:
    return store.find_space(config["provider"], config["model"], config.get("dimensions"))


def _space_name(config: dict[str, Any], space: SpaceRow | None) -> str | None:
    return f"{config['provider']}/{config['model']}/{space.dim}" if space else None


def _blob(vector: list[float]) -> bytes:
    return struct.pack(f"{len(vector)}f", *vector)
