"""The game room's websocket protocol: every message as a pydantic model (docs/room.md).

A browser (or any client) sends one JSON object per websocket message; :func:`parse_client`
validates it against :data:`ClientMessage` (a union tagged by ``type``) and a malformed message
is answered with an :class:`ErrorMsg` naming what is wrong, changing nothing. The server's
messages are built as models too, so each one it sends has been validated.

    >>> parse_client('{"type": "act", "action": "discard 5p"}')
    ActMsg(type='act', action='discard 5p')
    >>> parse_client('{"type": "sit", "seat": 7, "name": "Li"}')
    Traceback (most recent call last):
    ...
    xuezhan.serve.protocol.ProtocolError: sit.seat: Input should be less than or equal to 3
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from xuezhan.serve.names import NAME_MAX, clean_name

__all__ = [
    "SERVER_ADAPTER",
    "ActMsg",
    "BotMsg",
    "ClientMessage",
    "Clock",
    "Aids",
    "ErrorMsg",
    "FanItem",
    "GridPayment",
    "GridRow",
    "GridWin",
    "HandSummary",
    "HostMsg",
    "ProtocolError",
    "ResumeMsg",
    "RevealedHand",
    "SeatInfo",
    "SelectMsg",
    "ShowHandMsg",
    "ServerMessage",
    "SitMsg",
    "StandMsg",
    "StartMsg",
    "StateMsg",
    "TableMsg",
    "WaitInfo",
    "WatchMsg",
    "WelcomeMsg",
    "Words",
    "parse_client",
]

Seat = Annotated[int, Field(ge=0, le=3)]
#: A person's name: NFKC-normalised, printable, 1 to 24 characters (:mod:`xuezhan.serve.names`).
Name = Annotated[str, Field(max_length=4 * NAME_MAX), AfterValidator(clean_name)]
#: A secret token (seat, host, player): URL-safe base64 characters.
Token = Annotated[str, Field(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
TileText = Annotated[str, Field(pattern=r"^[1-9][mps]$")]


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ----------------------------------------------------------------------- client -> server
class SitMsg(_Msg):
    """Take a free seat as a person. With ``secret`` (a random token the browser keeps) the
    name is a player whose points are kept (积分); ``password`` lets that player use the name
    from another browser. Without a secret one plays as a guest."""

    type: Literal["sit"]
    seat: Seat
    name: Name
    secret: Token | None = None
    password: Annotated[str, Field(min_length=1, max_length=128)] | None = None


class BotMsg(_Msg):
    """Seat a bot: ``strategy`` is one of the names the server offers (``welcome.bots``)."""

    type: Literal["bot"]
    seat: Seat
    strategy: Annotated[str, Field(min_length=1, max_length=64)]


class StandMsg(_Msg):
    """Free a seat (between hands only): one's own, or a bot's."""

    type: Literal["stand"]
    seat: Seat


class StartMsg(_Msg):
    """A seated person is ready: the hand starts when four are seated and every person started."""

    type: Literal["start"]


class WatchMsg(_Msg):
    """A spectator chooses the player whose view it sees."""

    type: Literal["watch"]
    seat: Seat


class ShowHandMsg(_Msg):
    """A seated person's 允许旁观看牌: whether spectators watching its seat see its concealed
    tiles during play (off until it says so; a new seat starts off). It takes effect at once
    for everyone watching the seat; every hand is revealed at its end regardless."""

    type: Literal["show_hand"]
    allow: bool


class SelectMsg(_Msg):
    """The player's selected tile (or none): played for it if its turn timer runs out (R10.1)."""

    type: Literal["select"]
    tile: TileText | None = None


class ActMsg(_Msg):
    """A decision, written as an R13 script line without the seat: ``discard 5p``, ``hu``,
    ``peng``, ``gang``, ``pass``, ``angang 5p``, ``jiagang 5p``, ``exchange 789s``, ``void m``."""

    type: Literal["act"]
    action: Annotated[str, Field(min_length=2, max_length=32)]


class ResumeMsg(_Msg):
    """Come back to one's seat after a lost connection, with the token ``welcome`` gave."""

    type: Literal["resume"]
    token: Token


class HostMsg(_Msg):
    """Prove to be the table's host with the ``host_token`` that opening the table returned:
    the host may seat and remove bots and free any seat between hands."""

    type: Literal["host"]
    token: Token


ClientMessage = Annotated[
    SitMsg | BotMsg | StandMsg | StartMsg | WatchMsg | ShowHandMsg | SelectMsg | ActMsg | ResumeMsg | HostMsg,
    Field(discriminator="type"),
]
_CLIENT_ADAPTER: TypeAdapter[Any] = TypeAdapter(ClientMessage)


class ProtocolError(ValueError):
    """A client message that is not valid; the message says what is wrong."""


def parse_client(text: str | bytes) -> Any:
    """Validate one client message (JSON text) into its model, or raise :class:`ProtocolError`."""
    try:
        return _CLIENT_ADAPTER.validate_json(text)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"] if p != "function-after")
        msg = err["msg"]
        if err["type"] == "union_tag_invalid":
            msg = (
                "unknown message type; expected one of sit, bot, stand, start, watch, show_hand, select, act, "
                "resume, host"
            )
        elif err["type"] == "union_tag_not_found":
            msg = "a message needs a 'type'"
        raise ProtocolError(f"{loc}: {msg}" if loc else msg) from None


# ----------------------------------------------------------------------- server -> client
class Words(_Msg):
    """A name in Chinese and in English (the page shows the player's language)."""

    zh: str
    en: str


class WelcomeMsg(_Msg):
    """First message on a connection: who you are at this table and the bots on offer."""

    type: Literal["welcome"] = "welcome"
    table: str
    seat: Seat | None = None
    token: str | None = None
    #: Whether this connection proved the host token.
    host: bool = False
    #: The bots on offer, by name (what ``bot`` messages name), in the order to show them.
    bots: list[str]
    #: Each offered bot's label: what it is in a few words (``search``: looks ahead, slower).
    bot_labels: dict[str, str] = Field(default_factory=dict)
    #: Each payment rule's name in Chinese and English (the engine's registry), for the log.
    rule_words: dict[str, Words] = Field(default_factory=dict)


class SeatInfo(_Msg):
    seat: Seat
    kind: Literal["empty", "person", "bot"]
    name: str = ""
    connected: bool = True
    started: bool = False
    stand_in: bool = False
    #: Spectators watching this seat see its concealed tiles during play: a person who allows it
    #: (``show_hand``), a bot at a table where no person plays.
    shown: bool = False


class TableMsg(_Msg):
    """The table as everyone may see it: seats, scores, rules preset, match progress."""

    type: Literal["table"] = "table"
    id: str
    name: str
    preset: str
    hands: int
    hand_no: int
    status: Literal["waiting", "playing", "between", "over"]
    seats: list[SeatInfo]
    scores: list[int]
    turn_timeout: float
    claim_timeout: float
    spectators: int


class Clock(_Msg):
    """The decision being timed (R10): whose, what kind, and time left (the server's clock)."""

    seat: Seat
    kind: Literal["turn", "claim", "exchange", "void"]
    remaining_ms: int
    total_ms: int


class RevealedHand(_Msg):
    """One seat's tiles once the hand is over, never before: its concealed tiles (``hand``,
    without the tile it won on, ``win_tile``: its first win's) and how its hand ended (``result``): ``won``;
    at the ready check (查叫, R7) ``ready`` with its ``waits`` and ``value`` (R7.3),
    ``not_ready`` (R7.4) or ``pig`` (花猪, R7.1); ``escaped`` (R8); ``playing`` when the hand
    ended without a ready check (three players won)."""

    seat: Seat
    name: str
    hand: str
    win_tile: TileText | None = None
    result: Literal["won", "ready", "not_ready", "pig", "escaped", "playing"]
    value: int = 0
    waits: list[TileText] = []
    #: Each of its wins' tiles, in order (several only when winners stay, R14; then ``value``
    #: is the points of all its wins) and its self-drawn winning tiles set aside (R14.1).
    wins: list[TileText] = []
    aside: str = ""


class FanItem(_Msg):
    """One fan item of a win (R5): its key, its name (the core's label, and in English), its fan."""

    key: str
    zh: str
    en: str
    fan: int


class GridWin(_Msg):
    """One win of a seat: the tile, how (``self_draw``, ``discard``, ``rob``), from whom, its fan
    and points (R5), and its fan items (empty: a plain win, 平胡)."""

    tile: TileText
    how: Literal["self_draw", "discard", "rob"]
    discarder: Seat | None = None
    fan: int
    points: int
    items: list[FanItem] = []
    forced: bool = False


class GridPayment(_Msg):
    """One payment of the hand: who paid whom (``payee`` None: a penalty paid to nobody), how
    much, under which rule (its id, its name, its title in the rules), and the grid column it
    adds to: ``hu`` (R3.3, R6.1-R6.3), ``kong`` (R6.4, R6.5), ``check`` (R7.2, R7.4, R7.5),
    ``escape`` (R8)."""

    payer: Seat
    payee: Seat | None
    amount: int
    rule: str
    words: Words
    title: str
    column: Literal["hu", "kong", "check", "escape"]


class GridRow(_Msg):
    """One seat's line of the end-of-hand grid: its wins, their fan, and its points by column;
    ``total`` is the hand's change of its score (the sum of the columns)."""

    seat: Seat
    name: str
    wins: list[GridWin] = []
    fan: int = 0
    hu: int = 0
    kong: int = 0
    check: int = 0
    escape: int = 0
    total: int = 0


class HandSummary(_Msg):
    """The end of a hand as a grid (one row per seat) and every payment, in order."""

    rows: list[GridRow]
    payments: list[GridPayment]
    reason: str


class WaitInfo(_Msg):
    """A tile the hand waits on, and how many of it the seat has not seen (its own concealed
    tiles, every river and meld counted): what is left for it in the wall and the other hands."""

    tile: TileText
    left: int


class Aids(_Msg):
    """The player's aids, from what its own seat knows: its waits when its hand is ready
    (听牌), the waits each discard would leave on its turn, and the exchange or void a built-in
    strategy would choose (换三张, 定缺, R11)."""

    waits: list[WaitInfo] = []
    discards: dict[str, list[WaitInfo]] = {}
    suggest: str | None = None


class StateMsg(_Msg):
    """One seat's view of the hand: its :class:`~xuezhan.engine.Observation` (``view``), the
    public views of the new events since the last state message (``events`` from index
    ``events_from``; ``reset`` = the list starts over), the clock, and for the seated player
    its legal actions. ``settlement`` is every payment in words, with its rule id.

    ``names`` is what the table calls each seat this hand (the events and the settlement use
    them); ``meld_from`` gives, for each seat's melds in order, the seat its claimed tile came
    from (``None`` for a concealed kong; public, as the claim was); ``reveal`` is every seat's
    hand once the hand is over, and empty until then."""

    type: Literal["state"] = "state"
    seat: Seat
    role: Literal["player", "spectator"]
    #: The seat's concealed tiles are not shown to this spectator (its player does not allow it,
    #: or a person plays against the bot it watches): ``view.hand`` is empty, ``view.drawn``
    #: null, ``view.phase`` never ``claim``, and ``events`` are the views everyone may see.
    hidden: bool = False
    hand_no: int
    view: dict[str, Any] | None = None
    legal: list[str] = []
    selected: str | None = None
    clock: Clock | None = None
    events_from: int = 0
    reset: bool = False
    events: list[dict[str, Any]] = []
    settlement: list[str] = []
    names: list[str] = []
    meld_from: list[list[Seat | None]] = []
    #: Each seat's locked state (R14.2: it has won and stays in the hand; public, as wins are).
    #: A seat's wins so far are ``view.wins`` (tile strings) and its self-drawn winning tiles
    #: set aside face up ``view.aside`` (R14.1).
    locked: list[bool] = []
    #: For the seated player only: the discard the table will play for its locked hand (R14.2,
    #: its only legal action, e.g. ``"discard 5p"``) in ``forced_ms`` milliseconds, unless it
    #: acts first; None otherwise.
    forced: str | None = None
    forced_ms: int | None = None
    reveal: list[RevealedHand] = []
    #: Once the hand is over: the end-of-hand grid (one row per seat) and every payment.
    summary: HandSummary | None = None
    #: The player's aids (and a spectator's of a seat it may see): waits, suggestions.
    aids: Aids | None = None
    over: bool = False
    #: Once the hand is over: its id for the replay page (``/replay?log=ID``, all hands open).
    replay_id: str | None = None
    #: SHA-256 of the hand's seed, shown from the deal on (:mod:`xuezhan.serve.deals`).
    commitment: str | None = None
    #: The hand's seed (decimal), revealed once the hand is over: its hash is ``commitment``.
    seed: str | None = None
    server_ms: float = 0.0


class ErrorMsg(_Msg):
    """A refused message: what was wrong. Nothing changed."""

    type: Literal["error"] = "error"
    message: str


ServerMessage = Annotated[WelcomeMsg | TableMsg | StateMsg | ErrorMsg, Field(discriminator="type")]
#: Validates any server message (the tests check every message they receive with it).
SERVER_ADAPTER: TypeAdapter[Any] = TypeAdapter(ServerMessage)
