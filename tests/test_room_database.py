"""Where the game room keeps its standings: ``room.db`` in the user's data folder
(platformdirs; ``XDG_DATA_HOME`` on Linux) unless ``--db`` says otherwise, never the folder
``xuezhan serve`` was started from (it used to leave ``xuezhan-room.db`` and its ``-shm`` and
``-wal`` files there); ``standings`` and ``review`` read the same database, and ``--help``
says where it is."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from _room_helpers import free_port
from click.testing import CliRunner

from xuezhan.cli import main


def _serve(args: list[str], cwd: Path, data: Path) -> str:
    """Start ``xuezhan serve``, wait until it answers, stop it; what it said on stderr."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "xuezhan", "serve", "--port", str(port), *args],
        cwd=cwd,
        env={**os.environ, "XDG_DATA_HOME": str(data)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        said = proc.stderr.readline() if proc.stderr else ""
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/standings", timeout=2) as r:
                    assert r.status == 200
                    return said
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, said
                time.sleep(0.1)
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_serve_keeps_the_standings_in_the_data_folder_not_the_working_folder(tmp_path, monkeypatch):
    work, data = tmp_path / "work", tmp_path / "data"
    work.mkdir()
    said = _serve([], work, data)
    db = data / "xuezhan" / "room.db"
    assert f"standings in {db}" in said and db.is_file()
    assert list(work.iterdir()) == []
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    r = CliRunner().invoke(main, ["standings", "show"])
    assert r.exit_code == 0 and r.output.strip() == "no players yet", r.output
    for command in (["serve"], ["standings", "show"]):
        shown = subprocess.run(
            [sys.executable, "-m", "xuezhan", *command, "--help"],
            env={**os.environ, "XDG_DATA_HOME": str(data)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        # click wraps the help (and a long path) across lines: compare without the white space
        assert f"room.dbinyourdatafolder,here{db}" in "".join(shown.split()), shown


def test_db_names_another_database_and_the_data_folder_stays_untouched(tmp_path):
    work, data = tmp_path / "work", tmp_path / "data"
    work.mkdir()
    said = _serve(["--db", "mine.db"], work, data)
    assert "standings in mine.db" in said and (work / "mine.db").is_file()
    assert not data.exists()
