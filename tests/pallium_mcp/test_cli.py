"""The CLI adapter: in-process for behaviour, as a subprocess where the process itself matters."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernel.errors import PalliumError
from pallium_mcp.cli import main
from tests.conftest import script, write

PALLIUM = script("pallium")


def run_cli(args: list[str], cwd: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(cwd)
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_changed_now_json_prints_the_output_model(git_repo, capsys, monkeypatch):
    write(git_repo, "src/app.py", "changed\n")
    code, out, err = run_cli(["changed-now", "--json"], git_repo, capsys, monkeypatch)
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["files"][0]["path"] == "src/app.py"
    assert data["counts"]["unstaged"] == 1


def test_changed_now_text_is_short(git_repo, capsys, monkeypatch):
    write(git_repo, "notes.txt", "x\n")
    code, out, _ = run_cli(["changed-now"], git_repo, capsys, monkeypatch)
    assert code == 0
    assert out.splitlines() == ["main: 1 changed file (1 untracked)", "  ??  untracked    notes.txt"]


def test_repo_flag_and_positional_paths_are_taken_from_the_caller(git_repo, tmp_path, capsys, monkeypatch):
    code, out, _ = run_cli(["changed-now", "--repo", str(git_repo), "--json"], tmp_path, capsys, monkeypatch)
    assert code == 0
    assert json.loads(out)["repo"] == str(git_repo.resolve())


def test_unknown_command_suggests_the_closest(git_repo, capsys, monkeypatch):
    code, _, err = run_cli(["chnaged-now"], git_repo, capsys, monkeypatch)
    assert code == 2
    assert "did you mean `pallium changed-now`?" in err
    assert "Traceback" not in err


def test_invalid_argument_names_the_field_as_json(git_repo, capsys, monkeypatch):
    code, out, err = run_cli(["changed-now", "--limit", "0", "--json"], git_repo, capsys, monkeypatch)
    assert code == 2 and out == ""
    error = json.loads(err)["error"]
    assert error["code"] == "invalid_input"
    assert error["details"]["field"] == "limit"


@pytest.mark.parametrize(
    ("argv", "command", "exit_code"),
    [(["changed-now", "--limit", "x"], "changed-now", 2), (["loop", "tick"], "loop tick", 64)],
)
def test_usage_error_hint_names_the_command_that_was_typed(argv, command, exit_code, git_repo, capsys, monkeypatch):
    code, out, err = run_cli([*argv, "--json"], git_repo, capsys, monkeypatch)
    error = json.loads(err)["error"]
    assert code == exit_code and out == "" and error["code"] == "invalid_input"
    assert error["hint"] == f"see `pallium {command} --help`"
    assert error["message"].startswith(f"pallium {command}: ")


def test_not_a_repository_is_a_clear_error(tmp_path, capsys, monkeypatch):
    code, _, err = run_cli(["changed-now"], tmp_path, capsys, monkeypatch)
    assert code == 2
    assert "is not inside a git repository" in err


def test_authority_refusal_exits_non_zero_and_moves_nothing(git_repo, capsys, monkeypatch):
    run_cli(["version"], git_repo, capsys, monkeypatch)
    db = git_repo / ".pallium" / "pallium.sqlite"
    db.parent.mkdir()
    db.write_bytes(b"corrupt")
    code, _, err = run_cli(["db", "reset", "--confirm", "--json"], git_repo, capsys, monkeypatch)
    assert code == 1
    assert json.loads(err)["error"]["details"] == {"tool": "pallium_db_reset", "needed": "admin", "ceiling": "edit"}
    assert db.read_bytes() == b"corrupt"


def test_db_reset_previews_then_moves_a_corrupt_database_aside(git_repo, capsys, monkeypatch):
    db = git_repo / ".pallium" / "pallium.sqlite"
    db.parent.mkdir()
    db.write_bytes(b"corrupt")
    code, out, _ = run_cli(["db", "reset", "--json"], git_repo, capsys, monkeypatch)
    preview = json.loads(out)
    assert code == 0 and preview["moved"] == [] and preview["would_move"] == [str(db)]
    assert db.exists()
    confirmed = ["db", "reset", "--confirm", "--authority", "admin", "--json"]
    code, out, _ = run_cli(confirmed, git_repo, capsys, monkeypatch)
    moved = json.loads(out)["moved"]
    assert code == 0 and not db.exists()
    assert Path(moved[0]).read_bytes() == b"corrupt"


def test_corrupt_database_is_reported_by_doctor_and_version_still_answers(git_repo, capsys, monkeypatch):
    db = git_repo / ".pallium" / "pallium.sqlite"
    db.parent.mkdir()
    garbage = b"not sqlite at all" * 200
    db.write_bytes(garbage)
    code, out, _ = run_cli(["doctor", "--json"], git_repo, capsys, monkeypatch)
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert code == 1
    assert checks["repo database"]["status"] == "fail"
    assert "corrupt" in checks["repo database"]["detail"]
    assert "pallium db reset" in checks["repo database"]["hint"]
    assert db.read_bytes() == garbage
    code, out, _ = run_cli(["version", "--json"], git_repo, capsys, monkeypatch)
    assert code == 0
    assert json.loads(out)["databases"][1] == {"scope": "repo", "path": str(db), "exists": True, "schemas": {}}


def _damage_repo_database(repo: Path, sql: str) -> None:
    """Create the repo database as the repo service does, then change it behind Pallium's back."""
    from kernel.store import open_database, open_repo
    from services.repo.store import SCHEMA

    open_repo(repo, [SCHEMA]).close()
    with open_database(repo / ".pallium" / "pallium.sqlite") as db:
        db.execute(sql)


def _refusal_on_open(repo: Path):
    from kernel.store import open_repo
    from services.repo.store import SCHEMA

    with pytest.raises(PalliumError) as raised:
        open_repo(repo, [SCHEMA])
    return raised.value


@pytest.mark.parametrize(
    ("damage", "code"),
    [
        ("UPDATE kernel_schema SET version = 99 WHERE service = 'repo'", "conflict"),
        ("DROP TABLE repo_content", "unavailable"),
        ("ALTER TABLE repo_files DROP COLUMN skip_reason", "unavailable"),
    ],
    ids=["newer version", "missing table", "missing column"],
)
def test_doctor_fails_on_a_repo_database_every_command_would_refuse(damage, code, git_repo, capsys, monkeypatch):
    _damage_repo_database(git_repo, damage)
    refusal = _refusal_on_open(git_repo)
    assert refusal.code == code
    exit_code, out, _ = run_cli(["doctor", "--json"], git_repo, capsys, monkeypatch)
    data = json.loads(out)
    checks = {c["name"]: c for c in data["checks"]}
    assert exit_code == 1 and data["ok"] is False
    assert checks["repo database"] == {
        "name": "repo database",
        "status": "fail",
        "detail": refusal.message,
        "hint": refusal.hint,
    }


def test_doctor_passes_a_database_an_older_pallium_wrote(git_repo, capsys, monkeypatch):
    """A file at an older schema version is migrated on its next open, so it is not a failure."""
    from kernel.store import Schema, open_global
    from services.workflows.store import SCHEMA

    assert SCHEMA.version > 1
    open_global([Schema(SCHEMA.service, SCHEMA.migrations[:1])]).close()
    code, out, _ = run_cli(["doctor", "--json"], git_repo, capsys, monkeypatch)
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert code == 0
    assert checks["global database"]["status"] == "ok"
    assert f"{SCHEMA.service} v1" in checks["global database"]["detail"]


def test_doctor_checks_every_service_table_a_used_global_database_holds(git_repo, capsys, monkeypatch):
    from kernel.store import open_global
    from pallium_mcp.system import _known_schemas

    schemas = _known_schemas()
    open_global(schemas).close()
    code, out, _ = run_cli(["doctor", "--json"], git_repo, capsys, monkeypatch)
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert code == 0 and checks["global database"]["status"] == "ok"
    assert {"loops", "workflows", "sessions", "kernel_runs"} <= {s.service for s in schemas}


def test_doctor_reports_each_check_and_passes_here(git_repo, capsys, monkeypatch):
    code, out, _ = run_cli(["doctor", "--json"], git_repo, capsys, monkeypatch)
    data = json.loads(out)
    names = [c["name"] for c in data["checks"]]
    assert code == 0 and data["ok"] is True
    for expected in (
        "python",
        "git",
        "sqlite",
        "sqlite-vec",
        "pallium home",
        "repo database",
        "keyring",
        "claude",
        "codex",
    ):
        assert expected in names
    assert {c["status"] for c in data["checks"]} <= {"ok", "warn"}


def test_doctor_fails_on_an_unwritable_home(git_repo, tmp_path, capsys, monkeypatch):
    blocker = write(tmp_path, "file", "x")
    monkeypatch.setenv("PALLIUM_HOME", str(blocker / "home"))
    code, out, _ = run_cli(["doctor", "--json"], git_repo, capsys, monkeypatch)
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert code == 1
    assert checks["pallium home"]["status"] == "fail"


def test_version_lists_key_dependencies_and_schema_versions(git_repo, capsys, monkeypatch):
    from kernel.store import Schema, open_global

    open_global([Schema("demo", ("CREATE TABLE demo_t (x)",))]).close()
    code, out, _ = run_cli(["version", "--json"], git_repo, capsys, monkeypatch)
    data = json.loads(out)
    assert code == 0
    assert {d["name"] for d in data["dependencies"]} >= {"mcp", "apsw", "pydantic", "tree-sitter"}
    assert data["databases"][0]["schemas"] == {"demo": 1}


def test_help_lists_nested_commands(git_repo, capsys, monkeypatch):
    code, out, _ = run_cli([], git_repo, capsys, monkeypatch)
    assert code == 0
    assert "db reset" in out and "changed-now" in out and "mcp serve" in out


def test_help_imports_no_handler_and_no_heavy_library():
    probe = (
        "import sys, contextlib, io\n"
        "from pallium_mcp.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    for argv in (['--help'], ['changed-now', '--help'], ['db', 'reset', '--help']):\n"
        "        try: main(argv)\n"
        "        except SystemExit: pass\n"
        "heavy = ('mcp', 'pydantic', 'tree_sitter', 'openai', 'apsw', 'py_mini_racer', 'services', "
        "'pallium_mcp.system', 'anyio')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy or m in heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_runs_from_a_folder_with_its_own_services_and_kernel_packages(git_repo):
    for package in ("services", "kernel"):
        write(git_repo, f"{package}/__init__.py", "raise ImportError('the project under test, not pallium')\n")
        write(git_repo, f"{package}/repo/__init__.py", "")
    done = subprocess.run(
        [PALLIUM, "changed-now", "--json"],
        cwd=git_repo,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ""},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["counts"]["untracked"] == 4


def test_doctor_warns_when_a_provider_cli_help_lost_a_flag_the_dispatcher_uses(git_repo, tmp_path, capsys, monkeypatch):
    from kernel.providers.fake import install

    install(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    monkeypatch.setenv("PALLIUM_FAKE_HELP_DROP", "--safe-mode")
    _, out, _ = run_cli(["doctor", "--json"], git_repo, capsys, monkeypatch)
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert checks["claude"]["status"] == "warn" and "--safe-mode" in checks["claude"]["detail"]
    assert checks["codex"]["status"] == "ok"


def _hint_command(hint: str) -> list[str]:
    """The `pallium db reset ...` command a hint quotes, as argv."""
    import shlex

    quoted = next(part for part in hint.split("`") if part.startswith("pallium db reset"))
    return shlex.split(quoted)[1:]


def test_the_corrupt_database_hint_works_pasted(git_repo, capsys, monkeypatch):
    db = git_repo / ".pallium" / "pallium.sqlite"
    db.parent.mkdir()
    db.write_bytes(b"not sqlite at all" * 200)
    code, out, _ = run_cli(["doctor", "--json"], git_repo, capsys, monkeypatch)
    hint = {c["name"]: c for c in json.loads(out)["checks"]}["repo database"]["hint"]
    assert "--authority admin" in hint
    code, _, err = run_cli([*_hint_command(hint), "--json"], git_repo.parent, capsys, monkeypatch)
    assert code == 0, err
    assert not db.exists()


def test_doctor_finds_a_database_damaged_in_the_middle_that_opening_does_not(git_repo, capsys, monkeypatch):
    code, _, err = run_cli(["index", "--json"], git_repo, capsys, monkeypatch)
    assert code == 0, err
    from kernel.store import open_database

    db = git_repo / ".pallium" / "pallium.sqlite"
    with open_database(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("CREATE TABLE filler(x)")
        conn.execute("INSERT INTO filler VALUES (randomblob(4096))")
        conn.execute("INSERT INTO filler SELECT randomblob(4096) FROM filler")
        conn.execute("CREATE INDEX filler_x ON filler(x)")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(db.read_bytes())
    page = 4096
    for offset in range(len(data) - 3 * page, len(data) - page, 997):
        data[offset] ^= 0xFF  # damage pages near the end, well past the schema the open checks
    db.write_bytes(bytes(data))
    code, out, _ = run_cli(["doctor", "--json"], git_repo, capsys, monkeypatch)
    check = {c["name"]: c for c in json.loads(out)["checks"]}["repo database"]
    assert code == 1 and check["status"] == "fail"
    assert "--authority admin" in check["hint"]


def test_every_command_and_group_prints_its_help(capsys):
    """argparse %-formats help text, so one `%` in a description (`src%2Fapp`) crashed `--help`."""
    from tools_manifest import load_manifest

    commands = {tuple(e["cli"].split()) for e in load_manifest()["tools"]}
    groups = {words[:depth] for words in commands for depth in range(1, len(words))}
    for words in sorted(commands | groups | {()}):
        with pytest.raises(SystemExit) as done:
            main([*words, "--help"])
        out, err = capsys.readouterr()
        assert done.value.code == 0, f"pallium {' '.join(words)} --help: {err[-300:]}"
        assert "usage: pallium" in out and "Traceback" not in err


def test_pallium_help_is_the_help_of_what_it_names(capsys):
    from pallium_mcp.cli import main as cli_main

    assert cli_main(["help"]) == 0
    whole = capsys.readouterr().out
    assert whole.startswith("usage: pallium") and "workflow" in whole
    assert cli_main(["help", "workflow", "run"]) == 0
    assert capsys.readouterr().out.startswith("usage: pallium workflow run")
    done = subprocess.run([script("pallium"), "help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("usage: pallium"), done.stderr
