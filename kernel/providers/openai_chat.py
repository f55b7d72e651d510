"""The `openai` provider: any OpenAI-compatible chat endpoint (hosted or local), for read-only work only.

There is no process to spawn: one HTTP request per call. The key comes from the environment or the
keyring, never the database or argv; a local server that needs no key gets a placeholder.
"""

from __future__ import annotations

import os
import time

from kernel.providers.contract import Failure, ProviderRequest, ProviderResult, Usage
from kernel.providers.dialects import classify_text, schema_suffix

__all__ = ["call_openai"]

KEY_ENV = ("PALLIUM_OPENAI_API_KEY", "OPENAI_API_KEY")
KEYRING_SERVICE = "pallium-openai"


async def call_openai(req: ProviderRequest) -> ProviderResult:
    """Ask the endpoint once; failures come back classified from the client's exception types."""
    from kernel.credentials import get_credential

    started = time.monotonic()
    base_url = os.environ.get("PALLIUM_OPENAI_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
    model = req.model or os.environ.get("PALLIUM_OPENAI_MODEL")
    if req.mode != "read-only":
        return _fail(
            Failure(
                "not_configured", f"the openai provider does read-only work only, not {req.mode!r}", "mode_unsupported"
            ),
            started,
        )
    if not model:
        return _fail(
            Failure("not_configured", "no model: pass model or set PALLIUM_OPENAI_MODEL", "missing_model"), started
        )
    credential = get_credential(env_vars=KEY_ENV, keyring_service=KEYRING_SERVICE)
    if credential is None and not base_url:
        return _fail(
            Failure("not_configured", "no API key: set OPENAI_API_KEY or store one in the keyring", "missing_key"),
            started,
        )
    import openai

    client = openai.AsyncOpenAI(
        api_key=credential.value if credential else "unused",
        base_url=base_url,
        timeout=req.timeout or None,
        max_retries=0,
    )
    prompt = req.prompt + (schema_suffix(req.schema) if req.schema else "")
    try:
        reply = await client.chat.completions.create(model=model, messages=[{"role": "user", "content": prompt}])
    except openai.AuthenticationError as exc:
        return _fail(Failure("auth", _words(exc)), started)
    except openai.RateLimitError as exc:  # a 429 is also how OpenAI says the account is out of credit
        quota = "insufficient_quota" in (exc.code, exc.type) or "quota" in _words(exc).lower()
        return _fail(Failure("quota" if quota else "rate_limit", _words(exc)), started)
    except openai.NotFoundError as exc:
        reason = "model_not_found" if exc.code == "model_not_found" or "model" in _words(exc).lower() else "not_found"
        return _fail(
            Failure("not_configured", f"{model!r} at {base_url or 'the OpenAI API'}: {_words(exc)}", reason), started
        )
    except openai.APITimeoutError as exc:
        return _fail(Failure("timeout", _words(exc)), started)
    except openai.APIConnectionError as exc:
        return _fail(
            Failure("not_configured", f"cannot reach {base_url or 'the OpenAI API'}: {_words(exc)}", "unreachable"),
            started,
        )
    except openai.APIError as exc:
        return _fail(Failure(classify_text(_words(exc)) or "unknown", _words(exc)), started)
    finally:
        await client.close()
    text = (reply.choices[0].message.content or "") if reply.choices else ""
    usage = Usage(reply.usage.prompt_tokens, reply.usage.completion_tokens, None) if reply.usage else Usage()
    return ProviderResult("openai", text=text.strip(), usage=usage, duration_ms=_ms(started))


def _fail(failure: Failure, started: float) -> ProviderResult:
    return ProviderResult("openai", failure=failure, duration_ms=_ms(started))


def _words(exc: Exception) -> str:
    from kernel.secrets import redact

    return redact(str(exc))[0][:4096]


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
