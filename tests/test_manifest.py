"""The generated manifest and tool reference stay true to the registry."""

import importlib
import json
import subprocess
import sys
from pathlib import Path

from tools_manifest import MANIFEST_PATH, load_manifest
from tools_manifest.__main__ import main as manifest_main
from tools_manifest.generate import DOCS_PATH

ROOT = Path(__file__).resolve().parent.parent


def test_committed_manifest_and_docs_are_current():
    done = subprocess.run([sys.executable, "-m", "tools_manifest", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_check_fails_and_names_the_difference_on_a_stale_manifest(tmp_path: Path, capsys):
    stale = json.loads(MANIFEST_PATH.read_text(encoding="utf-8"))
    stale["tools"][0]["summary"] = "An old summary."
    manifest = tmp_path / "tools.json"
    manifest.write_text(json.dumps(stale, indent=1), encoding="utf-8")
    docs = tmp_path / "tools.md"
    docs.write_text(DOCS_PATH.read_text(encoding="utf-8"), encoding="utf-8")
    assert manifest_main(["--check"], manifest_path=manifest, docs_path=docs) == 1
    err = capsys.readouterr().err
    assert "tools.json is stale" in err
    assert "An old summary." in err
    assert "tools.md is stale" not in err


def test_every_manifest_entry_imports_its_handler():
    for entry in load_manifest()["tools"]:
        module = importlib.import_module(entry["module"])
        assert entry["name"] in {t.name for t in module.TOOLS}


def test_check_without_the_dependencies_says_what_to_install_instead_of_a_traceback():
    # -S leaves site-packages out: the registry's dependencies (pydantic, apsw...) cannot be imported
    done = subprocess.run(
        [sys.executable, "-S", "-m", "tools_manifest", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "is not installed" in done.stderr and "pip install" in done.stderr
    assert "Traceback" not in done.stderr
