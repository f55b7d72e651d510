"""Model prose for module documents: claims in a fixed JSON schema, every citation checked before storage."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernel.errors import PalliumError

if TYPE_CHECKING:
    from kernel.context import ToolContext
    from services.knowledge.build import Built
    from services.knowledge.models import BuildInput, BuildOutput

__all__ = ["add_prose"]


async def add_prose(ctx: ToolContext, built: Built, inp: BuildInput, out: BuildOutput) -> None:
    raise PalliumError(
        "unavailable",
        "model prose is not available in this build of Pallium",
        hint="pass `model: false` (CLI `--no-model`) to build from the index alone",
    )
