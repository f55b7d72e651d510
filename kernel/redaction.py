"""Likely secrets replaced in any value Pallium is about to show or store: texts, and texts inside models,
lists and dicts (keys are names, left as they are). The detector itself is `kernel.secrets`.

The dispatcher passes every answer through `redact_value` unless its tool says why not, and the
knowledge base passes what it stores, so a key a repository commits is never echoed or written.
"""

from __future__ import annotations

from typing import Any

__all__ = ["redact_text", "redact_value"]


def redact_text(text: str) -> str:
    """`text` with each likely secret replaced by `[REDACTED:<kind>]`."""
    from kernel.secrets import redact

    return redact(text)[0]


def redact_value(value: Any) -> tuple[Any, int]:
    """`value` with every text in it redacted, and how many secrets were replaced."""
    from pydantic import BaseModel

    from kernel.secrets import redact

    count = 0

    def clean(item: Any) -> Any:
        nonlocal count
        if isinstance(item, str):
            text, found = redact(item)
            count += found
            return text
        if isinstance(item, BaseModel):
            changed = {name: clean(getattr(item, name)) for name in type(item).model_fields}
            return item.model_copy(update=changed)
        if isinstance(item, list):
            return [clean(v) for v in item]
        if isinstance(item, tuple):
            return tuple(clean(v) for v in item)
        if isinstance(item, dict):
            return {k: clean(v) for k, v in item.items()}
        return item

    return clean(value), count
