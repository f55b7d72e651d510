"""A synthetic repository for the index benchmark: many files in four languages and a long history.

History is written with `git fast-import` (one process, no per-commit cost), then checked out.
Files import each other inside their package, so resolution and callers have real work to do;
commits touch one to four files of one package, with an occasional mass edit, so co-change
has structure.
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

__all__ = ["build"]

_MIX = (("py", 0.5), ("ts", 0.25), ("go", 0.15), ("md", 0.10))


def build(root: Path, *, files: int, commits: int, seed: int = 7) -> Path:
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    (root / "go.mod").write_text("module example.com/synth\n\ngo 1.22\n", encoding="utf-8")
    paths = _paths(files, rng)
    packages: dict[str, list[str]] = {}
    for p in paths:
        packages.setdefault(p.rsplit("/", 1)[0], []).append(p)
    versions = dict.fromkeys(paths, 0)
    stream = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=root, stdin=subprocess.PIPE)
    assert stream.stdin is not None
    when = 1_600_000_000
    authors = [f"dev{i}" for i in range(12)]
    for n in range(commits):
        if n == 0:
            touched = [*paths, "go.mod"]
        elif n % 97 == 0:
            touched = rng.sample(paths, min(40, len(paths)))
        else:
            package = rng.choice(list(packages))
            members = packages[package]
            touched = rng.sample(members, min(len(members), rng.randint(1, 4)))
        when += rng.randint(60, 7200)
        author = rng.choice(authors)
        message = f"Change {len(touched)} file(s) in step {n}\n\nBecause step {n} needed it.\n".encode()
        out = [
            b"commit refs/heads/main\n",
            f"mark :{n + 1}\n".encode(),
            f"author {author} <{author}@example.com> {when} +0000\n".encode(),
            f"committer {author} <{author}@example.com> {when} +0000\n".encode(),
            f"data {len(message)}\n".encode() + message,
        ]
        if n:
            out.append(f"from :{n}\n".encode())
        for path in touched:
            if path == "go.mod":
                content = (root / "go.mod").read_bytes()
            else:
                versions[path] += 1
                content = _content(path, versions[path], packages[path.rsplit("/", 1)[0]]).encode()
            out.append(f"M 100644 inline {path}\n".encode())
            out.append(f"data {len(content)}\n".encode() + content + b"\n")
        stream.stdin.write(b"".join(out))
    stream.stdin.close()
    if stream.wait() != 0:
        raise RuntimeError("git fast-import failed")
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=root, check=True)
    return root


def _paths(count: int, rng: random.Random) -> list[str]:
    out = []
    for i in range(count):
        roll, total = rng.random(), 0.0
        ext = "py"
        for candidate, share in _MIX:
            total += share
            if roll < total:
                ext = candidate
                break
        package = f"pkg{i // 20:03d}"
        top = {"py": "src", "ts": "web", "go": "svc", "md": "docs"}[ext]
        out.append(f"{top}/{package}/mod{i:05d}.{ext}")
    return out


def _content(path: str, version: int, siblings: list[str]) -> str:
    stem = path.rsplit("/", 1)[1].split(".")[0]
    ext = path.rsplit(".", 1)[1]
    peers = [s.rsplit("/", 1)[1].split(".")[0] for s in siblings if s.endswith("." + ext) and s != path][:3]
    if ext == "py":
        imports = "".join(f"from .{p} import handle_{p}\n" for p in peers)
        calls = "".join(f"        handle_{p}(value)\n" for p in peers) or "        pass\n"
        body = "".join(
            f'\ndef helper_{stem}_{k}(value: int) -> int:\n    """Compute step {k} of {stem}."""\n'
            f"    return value * {k + version}\n"
            for k in range(6)
        )
        return (
            f'"""Module {stem}, version {version}."""\n{imports}\n\nclass Service{stem.title()}:\n'
            f'    """Serve {stem} requests."""\n\n    def handle(self, value):\n{calls}'
            f"        return value\n\n\ndef handle_{stem}(value):\n    return Service{stem.title()}().handle(value)\n"
            + body
        )
    if ext == "ts":
        imports = "".join(f'import {{ handle_{p} }} from "./{p}";\n' for p in peers)
        body = "".join(
            f"export function helper{stem}{k}(value: number): number {{ return value * {k + version}; }}\n"
            for k in range(6)
        )
        return (
            f"{imports}\n/** Serve {stem}. */\nexport class Service{stem} {{\n  handle(value: number): number {{\n"
            + "".join(f"    handle_{p}(value);\n" for p in peers)
            + f"    return value;\n  }}\n}}\n\nexport function handle_{stem}(value: number) {{ return value; }}\n"
            + body
        )
    if ext == "go":
        package = path.split("/")[1]
        body = "".join(f"func Helper{stem}{k}(value int) int {{ return value * {k + version} }}\n\n" for k in range(6))
        return (
            f'package {package}\n\nimport "fmt"\n\n// Service{stem} serves {stem}.\ntype Service{stem} struct{{}}\n\n'
            f"// Handle handles a value.\nfunc (s *Service{stem}) Handle(value int) int {{\n"
            f'\tfmt.Println("v{version}")\n\treturn value\n}}\n\n' + body
        )
    return f"# {stem}\n\nVersion {version}.\n\n## Usage\n\nCall `handle_{stem}`.\n"
