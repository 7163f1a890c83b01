"""Each endpoint of the room is a module-level function that reads ``request.app.state``: it
can be mounted alone, in an app of its own, and answers as in the whole room."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import Route, WebSocketRoute
from starlette.testclient import TestClient

from xuezhan.serve import endpoints
from xuezhan.serve.lobby import Room
from xuezhan.serve.served import Served
from xuezhan.serve.table_socket import table_socket


def _alone(*routes: Route | WebSocketRoute, room: Room | None = None) -> Starlette:
    app = Starlette(routes=list(routes))
    app.state.served = Served(room or Room())
    return app


def test_an_http_endpoint_answers_mounted_alone():
    app = _alone(
        Route("/bots", endpoints.list_bots),
        Route("/tables", endpoints.list_tables),
        Route("/tables", endpoints.create_table, methods=["POST"]),
    )
    with TestClient(app) as client:
        assert "greedy" in client.get("/bots").json()
        made = client.post("/tables", json={"name": "Alone", "bots": [None, "greedy"]})
        assert made.status_code == 201 and made.json()["host_token"]
        listed = client.get("/tables").json()
        assert [t["name"] for t in listed] == ["Alone"] and listed[0]["seats"][1]["name"] == "greedy"
        assert client.get("/tables?limit=0").status_code == 400


def test_the_table_socket_answers_mounted_alone():
    room = Room()
    app = _alone(
        Route("/t", endpoints.create_table, methods=["POST"]), WebSocketRoute("/ws/{table}", table_socket), room=room
    )
    with TestClient(app) as client:
        tid = client.post("/t", json={}).json()["id"]
        with client.websocket_connect(f"/ws/{tid}") as ws:
            assert ws.receive_json()["type"] == "welcome"
            ws.send_json({"type": "sit", "seat": 2, "name": "Li"})
            seen = [ws.receive_json() for _ in range(3)]
            assert any(m["type"] == "welcome" and m["seat"] == 2 for m in seen)
        with client.websocket_connect("/ws/nope") as ws:
            assert "no table" in ws.receive_json()["message"]
