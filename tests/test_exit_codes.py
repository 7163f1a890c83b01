"""One exit-code convention for every command (README, "Exit status"): 0 done, 1 a finding,
2 bad input or a refused request, 130 after Ctrl-C. This walks every command of ``xuezhan``
(sub-commands included) through its refusals: each exits 2 with one ``Error:`` line naming
the input, and an unknown option is a usage error (2) everywhere. A command added without
its refusals here fails :func:`test_every_command_has_its_refusals_walked`."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from xuezhan.cli import main

TOURNAMENT = 'strategies = ["random", "greedy", "value", "value"]\n'


def _leaves(group: click.Group, prefix: tuple[str, ...] = ()) -> list[str]:
    out = []
    for name, cmd in sorted(group.commands.items()):
        if isinstance(cmd, click.Group):
            out += _leaves(cmd, (*prefix, name))
        else:
            out.append(" ".join((*prefix, name)))
    return out


COMMANDS = _leaves(main)


def _files(d: Path) -> dict[str, str]:
    """The bad inputs the refusals name, written into ``d``."""
    files = {
        "bad.toml": TOURNAMENT + "handz = 4\n",
        "bad-study.toml": TOURNAMENT + "[[variants]]\nmax_fan = []\n",
        "bad.json": '{"hands": 5}',
        "bad.jsonl": "not a hand log\n",
        "bots.toml": "[[bots]]\nname = 'x'\n",
        "notes.txt": "",
    }
    for name, text in files.items():
        (d / name).write_text(text, encoding="utf-8")
    return {name: str(d / name) for name in files} | {"dir": str(d), "missing": str(d / "missing")}


#: Each command's refusals: (arguments, words the one error line holds). ``{name}`` is a file of
#: :func:`_files`.
REFUSALS: dict[str, list[tuple[list[str], list[str]]]] = {
    "check-bot": [
        (["no-such-program-xyz"], ["cannot find the program 'no-such-program-xyz'"]),
        (["python {notes.txt}", "--rules", "nowhere"], ["--rules", "nowhere"]),
    ],
    "eval": [(["1m2x"], ["'x' is not a suit"])],
    "replay": [
        (["{missing}"], ["missing"]),
        (["{bad.json}"], ["bad.json", "hands: expected a list of four tile strings"]),
    ],
    "report": [(["{missing}"], ["missing", "no such results file"]), (["{dir}"], ["not a tournament output folder"])],
    "review": [
        (["{bad.jsonl}", "--seat", "7"], ["--seat 7", "a seat is 0, 1, 2 or 3"]),
        (["{bad.jsonl}", "--seat", "0"], ["bad.jsonl"]),
        (["h12", "--seat", "0", "--db", "{missing}"], ["--db", "no standings database there"]),
        (["h12", "--seat", "0"], ["h12", "room.db", "no standings database there"]),  # the default database
    ],
    "rules": [(["R99"], ["R99"])],
    "serve": [
        (["--bots", "{bots.toml}"], ["bots.toml", "bots[0]"]),
        (["--db", "{missing}/room.db"], ["--db", "no folder"]),
    ],
    "standings reset": [(["--db", "{missing}", "--yes"], ["missing", "no standings database there"])],
    "standings show": [
        (["--db", "{missing}"], ["missing", "no standings database there"]),
        ([], ["room.db", "no standings database there"]),  # the default database, never made yet
    ],
    "study": [(["{missing}"], ["missing"]), (["{bad-study.toml}"], ["bad-study.toml", "max_fan"])],
    "tournament": [(["{missing}"], ["missing"]), (["{bad.toml}"], ["bad.toml", "handz"])],
    "validate": [(["{missing}"], ["missing", "no such folder"])],
    "view": [(["{bad.jsonl}", "--no-browser"], ["bad.jsonl"])],
}


def _fill(text: str, files: dict[str, str]) -> str:
    for name, path in files.items():
        text = text.replace("{" + name + "}", path)
    return text


def test_every_command_has_its_refusals_walked():
    assert len(COMMANDS) >= 13 and "standings show" in COMMANDS
    assert sorted(REFUSALS) == COMMANDS, set(COMMANDS) ^ set(REFUSALS)


@pytest.mark.parametrize(
    "command, args, words",
    [(c, a, w) for c, cases in REFUSALS.items() for a, w in cases],
    ids=[f"{c}-{i}" for c, cases in REFUSALS.items() for i in range(len(cases))],
)
def test_a_refusal_is_one_error_line_and_exit_2(command, args, words, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # the room's default database: none yet
    monkeypatch.chdir(tmp_path)
    files = _files(tmp_path)
    assert not (tmp_path / "data").exists()
    argv = [*command.split(), *(_fill(a, files) for a in args)]
    r = CliRunner().invoke(main, argv)
    out = r.output.strip()
    assert r.exit_code == 2, (argv, r.exit_code, out)
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert len(out.splitlines()) == 1 and out.startswith("Error: "), out
    assert "Traceback" not in out and "this is a bug" not in out, out
    for w in words:
        assert _fill(w, files) in out, (w, out)
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted(n for n in files if "." in n), f"a refused request wrote something: {written}"


@pytest.mark.parametrize("command", COMMANDS)
def test_an_unknown_option_is_a_usage_error_everywhere(command):
    r = CliRunner().invoke(main, [*command.split(), "--no-such-option"])
    assert r.exit_code == 2 and "No such option '--no-such-option'" in r.output, r.output
