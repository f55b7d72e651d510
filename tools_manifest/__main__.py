"""`python -m tools_manifest` regenerates tools.json and docs/tools.md; `--check` fails when they are stale."""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from tools_manifest import MANIFEST_PATH
from tools_manifest.generate import DOCS_PATH, GUIDE_PATH, manifest_of, markdown_of, render_manifest


def main(
    argv: list[str] | None = None,
    *,
    manifest_path: Path = MANIFEST_PATH,
    docs_path: Path = DOCS_PATH,
    guide_path: Path | None = GUIDE_PATH,
) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools_manifest", description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 and show the difference if stale")
    args = parser.parse_args(argv)

    try:
        from pallium_mcp.registry import all_tools, module_of

        tools = all_tools()
    except ModuleNotFoundError as exc:  # the registry imports every tool module and their dependencies
        print(
            f"error: cannot read the tool registry: Python module {exc.name!r} is not installed\n"
            '  hint: install Pallium first: python3 -m pip install -e ".[test]" (in a virtual environment)',
            file=sys.stderr,
        )
        return 2
    manifest = manifest_of(tools, module_of(tools))
    wanted = {manifest_path: render_manifest(manifest), docs_path: markdown_of(manifest)}
    if guide_path is not None:  # the agent guide's capability table comes from the same registry
        from services.adoption.guide import with_capability_table

        wanted[guide_path] = with_capability_table(guide_path.read_text(encoding="utf-8"), manifest["tools"])
    if not args.check:
        for path, text in wanted.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
        return 0
    stale = False
    for path, text in wanted.items():
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current != text:
            stale = True
            diff = difflib.unified_diff(
                current.splitlines(),
                text.splitlines(),
                f"{path.name} (committed)",
                f"{path.name} (registry)",
                lineterm="",
                n=1,
            )
            print(f"{path} is stale:", file=sys.stderr)
            print("\n".join(list(diff)[:40]), file=sys.stderr)
    if stale:
        print("run `python -m tools_manifest` and commit the result", file=sys.stderr)
        return 1
    print("tools manifest is current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
