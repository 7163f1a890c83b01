"""The game room's websocket protocol (Starlette TestClient): every message validated, a person
acts only for its own seat, a spectator not at all, a malformed message is refused and changes
nothing; the server's clock applies R10 defaults; leaving is an escape (R8)."""

from __future__ import annotations

import contextlib
import doctest
import json
import warnings

import pytest

with warnings.catch_warnings():  # starlette asks for httpx2; httpx is what the test extra installs
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from _room_helpers import fast_room, hand_events, read_until

from xuezhan.engine import Round, log_lines
from xuezhan.engine.match import run_round
from xuezhan.serve import aids, connections, deals, limits, names, protocol, replay, standings, summary, words
from xuezhan.serve import bots as bots_mod
from xuezhan.serve.app import create_app
from xuezhan.serve.bots import BotCatalog
from xuezhan.serve.protocol import ProtocolError, parse_client
from xuezhan.strategies import GreedyStrategy, RandomStrategy, ValueStrategy
from xuezhan.strategies.guarded import GuardedStrategy
from xuezhan.tournament.config import ConfigError


@pytest.mark.parametrize(
    "module", [protocol, words, replay, bots_mod, names, deals, standings, connections, limits, summary, aids]
)
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize(
    "text, says",
    [
        ("not json", "Invalid JSON"),
        ('{"seat": 1}', "needs a 'type'"),
        ('{"type": "dance"}', "unknown message type"),
        ('{"type": "sit", "seat": 4, "name": "Li"}', "sit.seat"),
        ('{"type": "sit", "seat": 1, "name": "\\u0000"}', "sit.name"),
        ('{"type": "sit", "seat": 1, "name": ""}', "sit.name"),
        ('{"type": "select", "tile": "0m"}', "select.tile"),
        ('{"type": "act", "action": "discard 5p", "seat": 2}', "act.seat"),
        ('{"type": "start", "extra": 1}', "start.extra"),
        ("[1, 2]", ""),
    ],
)
def test_malformed_client_messages_are_refused_naming_the_field(text, says):
    with pytest.raises(ProtocolError) as exc:
        parse_client(text)
    assert says in str(exc.value)


@contextlib.contextmanager
def serving(room):
    """A TestClient whose websockets all close on the way out (also when a test fails)."""
    with TestClient(create_app(room)) as client, contextlib.ExitStack() as stack:
        client.stack = stack
        yield client


def _connect(client, tid, host_token=None):
    """A connection to table ``tid``; with ``host_token``, one that proved to be its host."""
    ws = client.stack.enter_context(client.websocket_connect(f"/ws/{tid}"))
    read_until(ws, lambda m: m.type == "welcome")
    if host_token is not None:
        ws.send_json({"type": "host", "token": host_token})
        assert read_until(ws, lambda m: m.type in ("welcome", "error")).type == "welcome"
    return ws


def test_malformed_message_gets_an_error_and_changes_nothing():
    room = fast_room()
    with serving(room) as client:
        t = client.post("/api/tables", json={"name": "x", "hands": 1}).json()
        ws = _connect(client, t["id"])
        before = room.tables[t["id"]].table_msg().model_dump()
        for bad in [
            '{"type": "sit", "seat": 9, "name": "a"}',
            "{",
            '{"type": "bot", "seat": 0, "strategy": "rm -rf /"}',
            '{"type": "bot", "seat": 0, "strategy": "os:system"}',
        ]:
            ws.send_text(bad)
            err = read_until(ws, lambda m: m.type == "error")
            assert err.message
        assert room.tables[t["id"]].table_msg().model_dump() == before


def test_external_bots_and_module_classes_come_only_from_the_server_file(tmp_path):
    # the browser picks from the catalogue; a name not in it is refused
    room = fast_room()
    with serving(room) as client:
        t = client.post("/api/tables", json={}).json()
        ws = _connect(client, t["id"], t["host_token"])
        ws.send_json({"type": "bot", "seat": 1, "strategy": "xuezhan.strategies:GreedyStrategy"})
        assert "unknown bot" in read_until(ws, lambda m: m.type == "error").message
    f = tmp_path / "bots.toml"
    f.write_text('[[bots]]\nname = "mine"\nstrategy = "xuezhan.strategies:GreedyStrategy"\n')
    cat = BotCatalog.from_file(f)
    # a module:Class bot runs guarded (pre-emptible, R10.3) unless the file trusts it
    bot = cat.build("mine")
    try:
        assert "mine" in cat.names and isinstance(bot, GuardedStrategy)
    finally:
        bot.close()
    f.write_text('[[bots]]\nname = "mine"\nstrategy = "xuezhan.strategies:GreedyStrategy"\ntrusted = true\n')
    assert isinstance(BotCatalog.from_file(f).build("mine"), GreedyStrategy)
    f.write_text('[[bots]]\nname = "x"\nstrategy = "no_such_module_xyz:Bot"\n')
    with pytest.raises(ConfigError, match=r"bots\[0\].*no_such_module_xyz"):
        BotCatalog.from_file(f)
    f.write_text('[[bot]]\nname = "x"\n')
    with pytest.raises(ConfigError, match="unknown key 'bot'"):
        BotCatalog.from_file(f)


def test_api_refuses_bad_tables():
    with serving(fast_room()) as client:
        r = client.post("/api/tables", json={"preset": "tokyo"})
        assert r.status_code == 400 and "preset" in r.json()["error"]
        r = client.post("/api/tables", json={"hands": 0})
        assert r.status_code == 400 and "hands" in r.json()["error"]
        r = client.post("/api/tables", json={"bots": ["greedy", "nobody"]})
        assert r.status_code == 400 and "unknown bot 'nobody'" in r.json()["error"]
        assert client.get("/api/tables").json() == []


def _two_people_table(client, room):
    t = client.post(
        "/api/tables",
        json={"hands": 1, "bots": [None, None, "greedy", "greedy"]},
    ).json()
    a = _connect(client, t["id"])
    b = _connect(client, t["id"])
    a.send_json({"type": "sit", "seat": 0, "name": "A"})
    read_until(a, lambda m: m.type == "welcome" and m.seat == 0)
    b.send_json({"type": "sit", "seat": 1, "name": "B"})
    read_until(b, lambda m: m.type == "welcome" and m.seat == 1)
    return t["id"], a, b


def test_a_person_cannot_act_for_another_seat():
    room = fast_room(turn_timeout=30.0)
    with serving(room) as client:
        tid, a, b = _two_people_table(client, room)
        a.send_json({"type": "start"})
        b.send_json({"type": "start"})
        # seat 0 deals (R1.2) and acts first: seat 1 may not act now, nor name another seat
        st = read_until(a, lambda m: m.type == "state" and m.legal)
        b.send_json({"type": "act", "action": st.legal[-1]})
        assert "seat 1 has no decision" in read_until(b, lambda m: m.type == "error").message
        b.send_json({"type": "act", "action": "0 " + st.legal[-1]})
        assert read_until(b, lambda m: m.type == "error")
        b.send_json({"type": "watch", "seat": 0})
        assert "only its own seat" in read_until(b, lambda m: m.type == "error").message
        b.send_json({"type": "stand", "seat": 0})
        assert read_until(b, lambda m: m.type == "error")
        table = room.tables[tid]
        assert len(table.rnd.ledger.events) == 1 and table.rnd.turn.cur == 0  # nothing happened
        # an illegal action of the right seat is refused too, listing what is legal
        a.send_json({"type": "act", "action": "peng"})
        assert "not legal now" in read_until(a, lambda m: m.type == "error").message
        a.send_json({"type": "act", "action": st.legal[-1]})
        read_until(
            a,
            lambda m: m.type == "state" and any(e["type"] == "discard" for e in m.events),
        )


def test_a_spectator_cannot_act_at_all():
    room = fast_room()
    with serving(room) as client:
        tid, _a, _b = _two_people_table(client, room)
        spec = _connect(client, tid)
        for msg in (
            {"type": "act", "action": "pass"},
            {"type": "select", "tile": "5m"},
            {"type": "start"},
        ):
            spec.send_json(msg)
            assert read_until(spec, lambda m: m.type == "error")
        assert all(not s.started for s in room.tables[tid].seats)


def test_a_person_plays_a_whole_hand_and_the_settlement_names_every_rule():
    room = fast_room(turn_timeout=30.0, claim_timeout=30.0)
    with serving(room) as client:
        t = client.post(
            "/api/tables",
            json={"hands": 2, "bots": [None, "greedy", "value", "random"]},
        ).json()
        ws = _connect(client, t["id"])
        ws.send_json({"type": "sit", "seat": 0, "name": "Me"})
        ws.send_json({"type": "start"})
        acted = 0
        for _ in range(5000):
            m = read_until(ws, lambda m: m.type == "state")
            if m.over:
                break
            if m.legal and m.clock is not None and m.clock.seat == 0:
                ws.send_json(
                    {
                        "type": "act",
                        "action": "pass" if "pass" in m.legal else m.legal[-1],
                    }
                )
                acted += 1
        assert m.over and acted > 0
        rnd = room.tables[t["id"]].rnd
        pays = [e.to_json() for e in rnd.ledger.events if e.type == "pay"]
        # the seats go by their names: the person's, the bots' (unique here, so no wind added)
        assert m.names == ["Me", "greedy", "value", "random"]
        # every payment, in order, in words: payer, payee (by name), amount and rule id
        lines = iter(m.settlement)
        for e in pays:
            to = "nobody" if e["to"] is None else m.names[e["to"]]
            assert any(
                line.endswith(", " + e["rule"])
                and f"{m.names[e['from']]} " in line
                and to in line
                and f" {e['amount']}" in line
                for line in lines
            ), e
        assert len(pays) >= 1
        # the finished hand is offered on the replay page, all four hands open, and its frames
        # end where the engine ended (R12.4: the log reproduces the hand)
        assert m.replay_id is not None
        offered = {e["id"] for e in client.get("/api/logs").json()}
        assert m.replay_id in offered
        doc = client.get(f"/api/replay/{m.replay_id}").json()
        assert doc["frames"][-1]["deltas"] == rnd.ledger.deltas
        assert doc["names"] == m.names and m.names[rnd.dealer] in doc["frames"][0]["text"]
        assert len(doc["frames"]) == len(rnd.ledger.events) + 1
        assert client.get("/api/replay/h999").status_code == 404
        tm = read_until(ws, lambda m: m.type == "table" and m.hand_no == 1)
        assert tm.scores == rnd.ledger.deltas and tm.status == "between"


def _sit_alone(client, **table):
    t = client.post(
        "/api/tables",
        json={
            "hands": 1,
            "bots": [None, "greedy", "greedy", "greedy"],
            **table,
        },
    ).json()
    ws = _connect(client, t["id"])
    ws.send_json({"type": "sit", "seat": 0, "name": "Me"})
    ws.send_json({"type": "start"})
    return t["id"], ws


def test_turn_timer_discards_the_selected_tile_R10_1():
    room = fast_room(turn_timeout=0.5)
    with serving(room) as client:
        tid, ws = _sit_alone(client)
        seen: list = []
        m = read_until(ws, lambda m: m.type == "state" and m.legal, log=seen)
        # the dealer's first turn (no draw): choose a tile that is not the engine's own default
        default = str(room.tables[tid].rnd.default_action(0)).split()[-1]
        choice = next(a.split()[1] for a in m.legal if a.startswith("discard") and a.split()[1] != default)
        ws.send_json({"type": "select", "tile": choice})
        read_until(
            ws,
            lambda m: m.type == "state" and any(e["type"] == "discard" for e in m.events),
            log=seen,
        )
        d = next(e for e in hand_events(seen) if e["type"] == "discard")
        # the player's own choice, played at the timeout: not the R10 default, so not marked as
        # one (a log marks only the engine's R10 default "default", and replays check it)
        assert d == {
            "type": "discard",
            "seat": 0,
            "tile": choice,
            "default": False,
            "note": "timeout",
        }


def test_turn_timer_without_selection_takes_the_engine_default_R10_1():
    room = fast_room(turn_timeout=0.5)
    with serving(room) as client:
        tid, ws = _sit_alone(client)
        read_until(ws, lambda m: m.type == "state" and m.legal)
        default = str(room.tables[tid].rnd.default_action(0)).split()[-1]
        m = read_until(
            ws,
            lambda m: m.type == "state" and any(e["type"] == "discard" for e in m.events),
        )
        assert next(e for e in m.events if e["type"] == "discard")["tile"] == default


def test_leaving_is_an_escape_and_a_bot_stands_in_for_the_next_hand_R8():
    room = fast_room(turn_timeout=0.4)
    room.pace.between_hands = 0.5  # time for the watcher to get the first hand's end
    with serving(room) as client:
        tid, ws = _sit_alone(client, hands=2)
        read_until(ws, lambda m: m.type == "state" and m.legal)
        watcher = _connect(client, tid)
        seen: list = []
        ws.close()  # the tab closes during its own decision
        m = read_until(watcher, lambda m: m.type == "state" and m.over, log=seen)
        esc = [e for e in hand_events(seen) if e["type"] == "escape"]
        assert esc and esc[0]["seat"] == 0
        assert any("R8" in line for line in m.settlement)
        # the table goes on: the next hand is played with a stand-in for seat 0
        tm = read_until(watcher, lambda m: m.type == "table" and m.status == "over")
        assert tm.hand_no == 2 and tm.seats[0].kind == "person" and tm.seats[0].stand_in


def test_coming_back_with_the_token_resumes_the_seat():
    room = fast_room(turn_timeout=30.0)
    with serving(room) as client:
        t = client.post("/api/tables", json={"hands": 1}).json()
        ws = _connect(client, t["id"])
        ws.send_json({"type": "sit", "seat": 2, "name": "Zoe"})
        token = read_until(ws, lambda m: m.type == "welcome" and m.seat == 2).token
        ws.close()
        again = _connect(client, t["id"])
        read_until(again, lambda m: m.type == "table" and not m.seats[2].connected)
        again.send_json({"type": "resume", "token": "x" * 20})
        assert "token" in read_until(again, lambda m: m.type == "error").message
        again.send_json({"type": "resume", "token": token})
        assert read_until(again, lambda m: m.type == "welcome").seat == 2
        assert read_until(again, lambda m: m.type == "table" and m.seats[2].connected).seats[2].name == "Zoe"


@pytest.mark.parametrize("preset", ["leshan", "chengdu", "xueliu"])
def test_replay_frames_end_where_the_engine_ends(preset):
    """The viewer's frames (the engine's state at each event) end in the engine's final state."""
    for seed in range(6):
        rnd = Round.from_seed(preset, seed, seed % 4)
        bots = [
            GreedyStrategy(),
            ValueStrategy(),
            RandomStrategy(seed),
            GreedyStrategy(),
        ]
        for i, b in enumerate(bots):
            b.reset(i, rnd.rules)
        run_round(rnd, bots)
        doc = replay.frames(log_lines(rnd))
        last = doc["frames"][-1]
        assert last["deltas"] == rnd.ledger.deltas
        assert last["wall_count"] == rnd.observation(0).wall_count
        for s in range(4):
            obs = rnd.observation(s).to_dict()
            assert last["hands"][s] == obs["hand"]
            assert last["discards"][s] == obs["discards"][s]
            assert last["wins"][s] == obs["wins"][s] and last["aside"][s] == obs["aside"][s]  # R14
            # melds: pung 0, kong 1 (on a discard or added), concealed kong 2
            code = {"peng": 0, "gang": 1, "jiagang": 1, "angang": 2}
            assert sorted((code[k], t) for k, t in last["melds"][s]) == sorted((int(k), t) for k, t in obs["melds"][s])
        assert len(doc["frames"]) == len(rnd.ledger.events) + 1


def test_replay_refuses_what_is_not_a_log(tmp_path):
    with pytest.raises(replay.LogError, match="x.jsonl, line 1: the first line is not a log header"):
        replay.frames(['{"type": "draw"}'], "x.jsonl")
    with pytest.raises(replay.LogError, match="x.jsonl, line 1: header format: missing"):
        replay.frames([json.dumps({"type": "header"}), "{"], "x.jsonl")
    header = log_lines(Round.from_seed("leshan", 1))[0]
    with pytest.raises(replay.LogError, match="x.jsonl, line 2: not JSON"):
        replay.frames([header, "{"], "x.jsonl")
    with serving(fast_room()) as client:
        r = client.post("/api/replay", content=b"garbage")
        assert r.status_code == 400 and "line 1" in r.json()["error"]


def test_view_command_names_a_bad_log_without_a_traceback(tmp_path):
    from click.testing import CliRunner

    from xuezhan.cli import main

    bad = tmp_path / "bad.jsonl"
    bad.write_text(log_lines(Round.from_seed("leshan", 1))[0] + "\nnot json\n")
    res = CliRunner().invoke(main, ["view", str(bad), "--no-browser"])
    assert res.exit_code == 2  # not a hand log: bad input (a log that differs is a finding, 1)
    assert "bad.jsonl, line 2: not JSON" in res.output and "Traceback" not in res.output


def test_a_hand_in_play_is_never_revealed():
    from xuezhan.engine import Round
    from xuezhan.serve.reveal import revealed_hands

    with pytest.raises(ValueError, match="only once it is over"):
        revealed_hands(Round.from_seed("leshan", 3), ["a", "b", "c", "d"])


def test_the_state_names_the_seats_and_whom_each_meld_came_from():
    """``names`` (duplicates told apart by seat wind) and ``meld_from`` equal the engine's
    claims, in every state message of a hand of bots watched from seat 0."""
    room = fast_room()
    with serving(room) as client:
        t = client.post("/api/tables", json={"hands": 1, "bots": ["greedy", "greedy", "value", "value"]}).json()
        ws = _connect(client, t["id"])
        for _ in range(5000):
            m = read_until(ws, lambda m: m.type == "state")
            if m.view is None:
                continue
            d = m.view["dealer"]
            winds = ["East", "South", "West", "North"]
            bots = ["greedy", "greedy", "value", "value"]
            assert m.names == [f"{n} ({winds[(s - d) % 4]})" for s, n in enumerate(bots)]
            assert [len(f) for f in m.meld_from] == [len(x) for x in m.view["melds"]]
            if m.over:
                break
        rnd = room.tables[t["id"]].rnd
        assert m.over and m.meld_from == [list(x) for x in rnd.seats.meld_from]
        claimed = [(e.seat, e.frm) for e in rnd.ledger.events if e.type == "meld" and e.meld != "jiagang"]
        assert sorted(claimed) == sorted((s, f) for s, fs in enumerate(m.meld_from) for f in fs if f is not None)
