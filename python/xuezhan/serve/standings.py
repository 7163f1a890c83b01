"""The room's standings (积分): persistent players, every finished hand and its points, in a
database (SQLite by default, through SQLAlchemy; any SQLAlchemy URL such as PostgreSQL works).

A player is a name plus a secret the browser keeps (localStorage); a password is optional and
lets the same name be used from another browser. Only hashes are stored. Each finished hand is
booked in one transaction: its log (for the replay page, so replay links survive restarts), the
deal's seed and commitment, and for each seat held by a player the hand's points and, apart,
what the seat paid under R8 (the escape penalty). A standing is the sum of a player's entries;
a reset (清零) books for each player the entry that brings the standing back to zero, so the
history keeps what happened.

    >>> led = Standings("sqlite://")
    >>> alice = led.identify("Alice", "s" * 32)
    >>> hid = led.book_hand("Table 1", "leshan", 5, "c0ffee", ['{"type": "header"}'],
    ...                     [alice, None, None, None], [3, -1, -1, -1], [0, 0, 0, 0])
    >>> [(s.name, s.points, s.hands) for s in led.standings()]
    [('Alice', 3, 1)]
    >>> led.reset(), led.standings()[0].points
    (1, 0)
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import hmac
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Concatenate, ParamSpec, TypeVar

import sqlalchemy as sa
from sqlalchemy.pool import StaticPool

__all__ = [
    "SCHEMA_VERSION",
    "Claim",
    "HandRecord",
    "HistoryEntry",
    "Standing",
    "Standings",
    "StandingsError",
    "check_password",
    "hash_password",
]

#: The schema this code writes; a database of another version is refused, never guessed at.
SCHEMA_VERSION = 1

_meta = sa.MetaData()
_version = sa.Table("schema_version", _meta, sa.Column("version", sa.Integer, nullable=False))
_players = sa.Table(
    "players",
    _meta,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(64), nullable=False, unique=True),
    sa.Column("password", sa.String(200), nullable=True),  # scrypt: salt$hash, hex
    sa.Column("created", sa.Float, nullable=False),
)
_secrets = sa.Table(
    "player_secrets",
    _meta,
    sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False, index=True),
    sa.Column("digest", sa.String(64), nullable=False, unique=True),  # SHA-256 of the secret
)
_hands = sa.Table(
    "hands",
    _meta,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("table_name", sa.String(64), nullable=False),
    sa.Column("preset", sa.String(16), nullable=False),
    sa.Column("seed", sa.String(64), nullable=False),  # decimal: 128 bits do not fit an integer column
    sa.Column("commitment", sa.String(64), nullable=False),
    sa.Column("finished", sa.Float, nullable=False),
    sa.Column("log", sa.LargeBinary, nullable=False),  # gzip of the JSON lines
)
_entries = sa.Table(
    "entries",
    _meta,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False, index=True),
    sa.Column("hand_id", sa.Integer, sa.ForeignKey("hands.id"), nullable=True),
    sa.Column("seat", sa.Integer, nullable=True),
    sa.Column("kind", sa.String(8), nullable=False),  # "hand" | "escape" (R8) | "reset" (清零)
    sa.Column("points", sa.Integer, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)


class StandingsError(ValueError):
    """A refused identity (a name that is someone else's) or an unusable database."""


@dataclass(frozen=True)
class Standing:
    """One player's line of the leaderboard."""

    name: str
    points: int
    hands: int


@dataclass(frozen=True)
class HistoryEntry:
    """One booked entry of a player: a hand's points, an R8 penalty, or a reset."""

    kind: str
    points: int
    at: float
    replay_id: str | None
    table: str | None
    seat: int | None


@dataclass(frozen=True)
class HandRecord:
    """A stored hand, for the replay page."""

    replay_id: str
    name: str
    seed: str
    commitment: str
    lines: list[str]


def replay_id(hand_id: int) -> str:
    """The replay page's id of a stored hand."""
    return f"h{hand_id}"


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def hash_password(password: str) -> str:
    """The stored form of a password: scrypt with a fresh salt, ``salt$hash`` in hex. Costs
    about 50-100 ms of a core (the point): the room runs it in its own bounded executor."""
    salt = secrets.token_bytes(16)
    h = hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1)
    return f"{salt.hex()}${h.hex()}"


def check_password(password: str, stored: str) -> bool:
    """Whether ``password`` is the one :func:`hash_password` stored as ``stored``."""
    salt, h = stored.split("$")
    got = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=2**14, r=8, p=1)
    return hmac.compare_digest(got.hex(), h)


@dataclass(frozen=True)
class Claim:
    """What the database knows of a name, for one browser (:meth:`Standings.lookup`)."""

    name: str
    #: The name's player (None: nobody has the name yet).
    player_id: int | None
    #: The browser's secret is this player's: no password is needed.
    owned: bool
    #: The player's stored password (None: it has none; only its browsers may use the name).
    password_hash: str | None

    def refusal(self) -> StandingsError:
        """The error for a browser that did not prove it is this player."""
        if self.password_hash:
            return StandingsError(
                f"the name {self.name!r} belongs to a player; give its password, or choose another name"
            )
        return StandingsError(f"the name {self.name!r} belongs to a player of another browser; choose another name")


_P = ParamSpec("_P")
_T = TypeVar("_T")


def _serialized(method: Callable[Concatenate[Standings, _P], _T]) -> Callable[Concatenate[Standings, _P], _T]:
    """One call at a time where the database is one shared connection (``:memory:``)."""

    @functools.wraps(method)
    def wrapper(self: Standings, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        with self._lock:
            return method(self, *args, **kwargs)

    return wrapper


def _new_id(result: sa.CursorResult) -> int:
    """The id an insert made."""
    key = result.inserted_primary_key
    assert key is not None  # an insert into a table with an integer primary key
    return int(key[0])


def _url(db: str) -> str:
    """A path or ``:memory:`` becomes an SQLite URL; a URL is kept."""
    if "://" in db:
        return db
    return "sqlite://" if db == ":memory:" else f"sqlite:///{db}"


#: Seconds a write waits for another connection's write lock (SQLite) before it gives up.
BUSY_TIMEOUT = 30.0
#: The execution option that marks a write transaction (it begins with the write lock).
_WRITE = "xuezhan_write"
#: The PostgreSQL advisory lock the room's writes take (any fixed 64-bit number: "xuezhan").
_PG_LOCK = int.from_bytes(b"xuezhan", "big")


def _sqlite_transactions(engine: sa.Engine) -> None:
    """Transactions on SQLite as the database defines them, not as Python's driver emulates
    them: the driver would start a transaction only at the first write, so the reads before it
    (is the schema there? what does a player have?) ran outside it. Here each transaction
    begins with the reads: ``BEGIN IMMEDIATE`` (the write lock, waited for up to the busy
    timeout) for writes, ``BEGIN`` for reads (the write-ahead log lets them run beside a writer)."""

    @sa.event.listens_for(engine, "connect")
    def _connect(conn, _record):  # type: ignore[no-untyped-def]
        conn.isolation_level = None  # the driver issues no BEGIN of its own
        cur = conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @sa.event.listens_for(engine, "begin")
    def _begin(conn):  # type: ignore[no-untyped-def]
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(_WRITE) else "BEGIN")


def _write_ahead_log(engine: sa.Engine, busy_timeout: float, db: str) -> None:
    """Put the database file in write-ahead-log mode (readers never wait for the writer; the
    mode is kept in the file). SQLite answers "database is locked" at once, without waiting,
    when another connection holds the file while the mode changes (servers starting together on
    a fresh file), so the change is retried until it holds or ``busy_timeout`` has passed."""
    deadline = time.monotonic() + busy_timeout
    while True:
        try:
            raw = engine.raw_connection()  # outside any transaction: the mode cannot change in one
            try:
                mode = raw.cursor().execute("PRAGMA journal_mode=WAL").fetchone()
            finally:
                raw.close()
            if mode is not None and str(mode[0]).lower() == "wal":
                return
            problem = f"the journal mode stays {mode[0] if mode else None!r}"
        except (sqlite3.Error, sa.exc.DBAPIError) as exc:
            problem = str(getattr(exc, "orig", None) or exc)
            if "locked" not in problem:  # not a matter of waiting (no such folder, not a database)
                raise StandingsError(f"{db}: cannot open the standings database: {problem}") from None
        if time.monotonic() > deadline:
            raise StandingsError(f"{db}: cannot switch the standings database to write-ahead logging: {problem}")
        time.sleep(0.02)


class Standings:
    """The standings database. Methods block (the room calls them from a worker thread).

    Every write is one transaction that holds the database's write lock from its first read
    (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: a transaction-scoped advisory lock), so what a
    write reads cannot change before it commits: servers starting together on a fresh file
    create the schema once, a reset books exactly minus what it summed, and a new name claimed
    twice at once is the first claimant's (the second gets a :class:`StandingsError`). Several
    servers (or ``xuezhan standings reset``) may share one database file. Reads run in their
    own transactions and never wait for a writer (SQLite's write-ahead log)."""

    def __init__(self, db: str = ":memory:", busy_timeout: float = BUSY_TIMEOUT) -> None:
        url = _url(db)
        memory = url in ("sqlite://", "sqlite:///:memory:")
        sqlite = url.startswith("sqlite")
        kw: dict = {}
        if sqlite:
            kw["connect_args"] = {"check_same_thread": False, "timeout": busy_timeout}
            if memory:
                kw["poolclass"] = StaticPool  # one connection, or each would be its own database
        # An in-memory database is one connection shared by every thread: one user at a time.
        self._lock: threading.Lock | contextlib.nullcontext[None] = (
            threading.Lock() if memory else contextlib.nullcontext()
        )
        try:
            self.engine = sa.create_engine(url, **kw)
        except sa.exc.SQLAlchemyError as exc:
            raise StandingsError(f"{db}: cannot open the standings database: {exc}") from None
        try:
            if sqlite:
                _sqlite_transactions(self.engine)
                if not memory:
                    _write_ahead_log(self.engine, busy_timeout, db)
            #: The same engine, for transactions that write: they take the write lock at BEGIN.
            self._writer = self.engine.execution_options(**{_WRITE: True})
            self._migrate()
        except sa.exc.SQLAlchemyError as exc:
            self.engine.dispose()
            raise StandingsError(f"{db}: cannot open the standings database: {exc}") from None
        except StandingsError:
            self.engine.dispose()
            raise

    @contextlib.contextmanager
    def _write(self) -> Iterator[sa.Connection]:
        """One write transaction, holding the write lock from its start to its commit."""
        try:
            with self._writer.begin() as c:
                if c.dialect.name == "postgresql":
                    c.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK})
                yield c
        except sa.exc.OperationalError as exc:  # SQLite: the lock was not had within busy_timeout
            raise StandingsError(f"the standings database is busy or unusable; try again ({exc.orig})") from None

    def _migrate(self) -> None:
        # one transaction: of several servers starting together on a fresh database, the first
        # creates the tables and the version row, the others wait for it and find them
        with self._write() as c:
            _meta.create_all(c)
            got = [int(v) for v in c.execute(sa.select(_version.c.version)).scalars()]
            if not got:
                c.execute(_version.insert().values(version=SCHEMA_VERSION))
            elif set(got) != {SCHEMA_VERSION}:
                other = next(v for v in got if v != SCHEMA_VERSION)
                raise StandingsError(
                    f"the standings database has schema version {other}; this server writes {SCHEMA_VERSION}"
                )
            elif len(got) > 1:  # two rows of this version: written by servers that raced before
                c.execute(_version.delete())
                c.execute(_version.insert().values(version=SCHEMA_VERSION))

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------------ players
    @_serialized
    def lookup(self, name: str, secret: str) -> Claim:
        """What the database knows of ``name`` for the browser whose secret is ``secret``:
        nothing is written (a refused sit leaves no trace)."""
        with self.engine.connect() as c:
            row = c.execute(sa.select(_players.c.id, _players.c.password).where(_players.c.name == name)).first()
            if row is None:
                return Claim(name, None, False, None)
            owner = c.execute(sa.select(_secrets.c.player_id).where(_secrets.c.digest == _digest(secret))).scalar()
        return Claim(name, int(row.id), owner == int(row.id), row.password)

    @_serialized
    def create_player(self, name: str, secret: str, password_hash: str | None = None) -> int:
        """A new player ``name`` owned by this browser's ``secret`` (``password_hash``: from
        :func:`hash_password`). A name someone else claimed first is refused
        (:class:`StandingsError`); one this browser claimed already is its player."""
        with self._write() as c:
            row = c.execute(sa.select(_players.c.id).where(_players.c.name == name)).first()
            if row is not None:
                owner = c.execute(sa.select(_secrets.c.player_id).where(_secrets.c.digest == _digest(secret))).scalar()
                if owner == int(row.id):
                    return int(row.id)
                raise StandingsError(f"the name {name!r} belongs to a player of another browser; choose another name")
            new = _new_id(c.execute(_players.insert().values(name=name, password=password_hash, created=time.time())))
            c.execute(_secrets.insert().values(player_id=new, digest=_digest(secret)))
            return new

    @_serialized
    def add_secret(self, player_id: int, secret: str) -> None:
        """This browser's ``secret`` proves ``player_id`` from now on (its password was given)."""
        with self._write() as c:
            owner = c.execute(sa.select(_secrets.c.player_id).where(_secrets.c.digest == _digest(secret))).scalar()
            if owner is None:
                c.execute(_secrets.insert().values(player_id=player_id, digest=_digest(secret)))

    def identify(self, name: str, secret: str, password: str | None = None) -> int:
        """The player id of ``name``: created on first use; afterwards the browser's secret, or
        the player's password (which adds this browser's secret), proves it is them. (The room
        does the same in steps, hashing in its own bounded executor: :mod:`xuezhan.serve.players`.)"""
        claim = self.lookup(name, secret)
        if claim.player_id is None:
            return self.create_player(name, secret, hash_password(password) if password else None)
        if claim.owned:
            return claim.player_id
        if password and claim.password_hash and check_password(password, claim.password_hash):
            self.add_secret(claim.player_id, secret)
            return claim.player_id
        raise claim.refusal()

    @_serialized
    def set_password(self, player_id: int, password: str) -> None:
        hashed = hash_password(password)
        with self._write() as c:
            c.execute(_players.update().where(_players.c.id == player_id).values(password=hashed))

    # ------------------------------------------------------------------ booking
    @_serialized
    def book_hand(
        self,
        table_name: str,
        preset: str,
        seed: int,
        commitment: str,
        lines: Sequence[str],
        players: Sequence[int | None],
        deltas: Sequence[int],
        escape_paid: Sequence[int],
    ) -> str:
        """Book one finished hand in one transaction; returns its replay id. ``players[i]`` is
        the player of seat ``i`` (None: a bot or a guest, not booked); ``escape_paid[i]`` is what
        seat ``i`` paid under R8, booked apart from the rest of its delta."""
        now = time.time()
        blob = gzip.compress("\n".join(lines).encode(), mtime=0)
        with self._write() as c:
            hid = _new_id(
                c.execute(
                    _hands.insert().values(
                        table_name=table_name,
                        preset=preset,
                        seed=str(seed),
                        commitment=commitment,
                        finished=now,
                        log=blob,
                    )
                )
            )
            for seat, pid in enumerate(players):
                if pid is None:
                    continue
                esc = escape_paid[seat]
                c.execute(
                    _entries.insert().values(
                        player_id=pid, hand_id=hid, seat=seat, kind="hand", points=deltas[seat] + esc, at=now
                    )
                )
                if esc:
                    c.execute(
                        _entries.insert().values(
                            player_id=pid, hand_id=hid, seat=seat, kind="escape", points=-esc, at=now
                        )
                    )
        return replay_id(hid)

    @_serialized
    def reset(self) -> int:
        """清零: every standing back to zero (an entry each, so histories keep the reset);
        returns how many players had a non-zero standing."""
        now = time.time()
        n = 0
        # the sums are read inside the write transaction: no hand is booked between the read
        # and the reset entries (it is either before the reset and cancelled, or after it)
        with self._write() as c:
            rows = c.execute(
                sa.select(_entries.c.player_id, sa.func.sum(_entries.c.points)).group_by(_entries.c.player_id)
            ).all()
            for pid, total in rows:
                if total:
                    n += 1
                    c.execute(_entries.insert().values(player_id=pid, kind="reset", points=-int(total), at=now))
        return n

    # ------------------------------------------------------------------ reading
    @_serialized
    def standings(self, offset: int = 0, limit: int = 100) -> list[Standing]:
        """The leaderboard: players by standing, best first (then by name)."""
        pts = sa.func.coalesce(sa.func.sum(_entries.c.points), 0).label("points")
        hands = sa.func.count(sa.distinct(_entries.c.hand_id)).label("hands")
        q = (
            sa.select(_players.c.name, pts, hands)
            .select_from(_players.outerjoin(_entries, _entries.c.player_id == _players.c.id))
            .group_by(_players.c.id)
            .order_by(pts.desc(), _players.c.name)
            .offset(offset)
            .limit(limit)
        )
        with self.engine.connect() as c:
            return [Standing(r.name, int(r.points), int(r.hands)) for r in c.execute(q)]

    @_serialized
    def player(self, name: str, limit: int = 200) -> tuple[Standing, list[HistoryEntry]] | None:
        """A player's standing and latest entries (newest first), or None for an unknown name."""
        with self.engine.connect() as c:
            pid = c.execute(sa.select(_players.c.id).where(_players.c.name == name)).scalar()
            if pid is None:
                return None
            rows = c.execute(
                sa.select(_entries, _hands.c.table_name)
                .select_from(_entries.outerjoin(_hands, _hands.c.id == _entries.c.hand_id))
                .where(_entries.c.player_id == pid)
                .order_by(_entries.c.id.desc())
            ).all()
        total = sum(int(r.points) for r in rows)
        played = len({r.hand_id for r in rows if r.hand_id is not None})
        hist = [
            HistoryEntry(
                r.kind,
                int(r.points),
                float(r.at),
                replay_id(r.hand_id) if r.hand_id is not None else None,
                r.table_name,
                r.seat,
            )
            for r in rows[:limit]
        ]
        return Standing(name, total, played), hist

    @_serialized
    def hand(self, rid: str) -> HandRecord | None:
        """A stored hand by replay id (``h<n>``), or None."""
        if not (rid[:1] == "h" and rid[1:].isdigit() and len(rid) <= 12):
            return None
        with self.engine.connect() as c:
            r = c.execute(sa.select(_hands).where(_hands.c.id == int(rid[1:]))).first()
        if r is None:
            return None
        lines = gzip.decompress(r.log).decode().split("\n")
        return HandRecord(rid, f"{r.table_name}, hand {rid}", r.seed, r.commitment, lines)

    @_serialized
    def recent_hands(self, limit: int = 64) -> list[tuple[str, str]]:
        """The newest stored hands: (replay id, name)."""
        with self.engine.connect() as c:
            rows = c.execute(
                sa.select(_hands.c.id, _hands.c.table_name).order_by(_hands.c.id.desc()).limit(limit)
            ).all()
        return [(replay_id(r.id), f"{r.table_name}, hand {replay_id(r.id)}") for r in rows]
