"""The adoption tools' input and output models."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kernel.models import ToolInput, ToolOutput

__all__ = [
    "BlockInput",
    "BlockOutput",
    "FileResult",
    "GuideInput",
    "GuideOutput",
    "InstallInput",
    "InstallOutput",
    "McpInstallInput",
    "McpInstallOutput",
    "UpdateInput",
    "UpdateOutput",
]


class GuideInput(ToolInput):
    workflow: bool = Field(False, description="the workflow-authoring guide (PALLIUM_WORKFLOW.md) instead")


class GuideOutput(ToolOutput):
    name: Literal["PALLIUM.md", "PALLIUM_WORKFLOW.md"]
    guide: str


class BlockInput(ToolInput):
    pass


class BlockOutput(ToolOutput):
    block: str = Field(description="the adoption block, markers included")


class InstallInput(ToolInput):
    dir: str | None = Field(
        None, description="folder holding AGENTS.md / CLAUDE.md: the current folder (default) or a git repository"
    )
    dry_run: bool = Field(False, description="say what would change without writing")


class FileResult(ToolOutput):
    path: str
    action: Literal["created", "appended", "updated", "unchanged"]


class InstallOutput(ToolOutput):
    dir: str
    files: list[FileResult]
    dry_run: bool


class McpInstallInput(ToolInput):
    client: Literal["claude", "codex"] = Field(description="the agent to register Pallium's MCP server with")
    scope: Literal["project", "user"] | None = Field(
        None, description="claude: project (.mcp.json, default) or user (`claude mcp add`); codex: user only"
    )
    dir: str | None = Field(
        None, description="project folder for .mcp.json: the current folder (default) or a git repository"
    )
    dry_run: bool = Field(False, description="show the change without writing or running anything")


class McpInstallOutput(ToolOutput):
    client: str
    scope: str
    server_command: str = Field(description="absolute path of the pallium-mcp registered")
    path: str | None = Field(description="the configuration file changed, when one is")
    action: Literal["created", "updated", "unchanged", "ran", "printed"]
    command: list[str] | None = Field(description="the command run (or to run, when printed), without a shell")
    backup: str | None = Field(description="copy of the file as it was, for Codex's config.toml")
    before: str | None = Field(None, description="with dry_run: the file's text now")
    after: str | None = Field(None, description="with dry_run: the file's text after the change")
    dry_run: bool


class UpdateInput(ToolInput):
    dry_run: bool = Field(False, description="say how Pallium would be updated without running anything")


class UpdateOutput(ToolOutput):
    install_kind: Literal["editable", "pipx", "uv_tool", "pip_venv"]
    prefix: str = Field(description="the environment Pallium runs from")
    command: list[str] | None = Field(description="the upgrade command (run without a shell)")
    ran: bool
    version_before: str
    version_after: str | None
    message: str
