"""``xuezhan eval``: evaluate one hand from the command line (R4, R5, R7.3).

14 tiles (concealed + 3 per meld): whether it wins, with its fan items and points, its shanten
and the best discards. 13 tiles: shanten and waits, each with its ready-check value (R7.3).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from xuezhan.evaluate import UNREACHABLE, NotAWinError, best_discards, fan, is_win, shanten_parts, waits
from xuezhan.rules import FAN_NAMES, Rules, as_rules
from xuezhan.tiles import (
    SUITS,
    format_melds,
    format_tiles,
    hand_size,
    parse_melds,
    parse_tiles,
    parse_void,
    tile_kind,
    to_counts,
    total_counts,
)


def evaluate_hand(
    hand: str,
    melds: str = "",
    rules: Any = "leshan",
    void: str | None = None,
    win_tile: str | None = None,
) -> dict[str, Any]:
    """Everything ``xuezhan eval`` reports, as a JSON-ready dict. Raises ``ValueError`` on bad input."""
    r: Rules = as_rules(rules)
    ms = parse_melds(melds)
    counts = to_counts(hand)
    total_counts(counts, ms)
    v = parse_void(void)
    n = hand_size(counts, ms)
    out: dict[str, Any] = {
        "hand": format_tiles(counts),
        "melds": [str(m) for m in ms],
        "tiles": n,
        "rules": r.rules_id,
        "void": None if v < 0 else SUITS[v],
    }
    if n == 14:
        win = is_win(counts, ms, void=v)
        parts = shanten_parts(counts, ms, void=v)
        out["win"] = win
        out["shanten"] = parts.total
        out["shanten_parts"] = parts._asdict()
        out["waits"] = []
        if win:
            wt = win_tile if win_tile is not None else parse_tiles(hand)[-1]
            res = fan(counts, ms, win_tile=wt, rules=r, void=v)
            out.update(
                win_tile=format_tiles([tile_kind(wt)]),
                fan=res.fan,
                raw_fan=res.raw_fan,
                points=res.points,
                items=res.items,
            )
        out["best_discards"] = [d._asdict() for d in best_discards(counts, ms, void=v)]
    elif n == 13:
        if win_tile is not None:
            raise click.BadParameter("--win-tile needs a 14-tile hand", param_hint="--win-tile")
        parts = shanten_parts(counts, ms, void=v)
        ws = waits(counts, ms, rules=r, void=v)
        out["win"] = False
        out["shanten"] = parts.total
        out["shanten_parts"] = parts._asdict()
        out["waits"] = [{"tile": w.tile, "fan": w.fan, "points": w.points} for w in ws]
    else:
        raise ValueError(
            f'"{out["hand"]}"'
            + (f" + melds {format_melds(ms)}" if ms else "")
            + f" has {n} tiles (concealed + 3 per meld), expected 13 or 14"
        )
    return out


def _render(d: dict[str, Any]) -> str:
    lines = []
    melds = f"  melds {', '.join(d['melds'])}" if d["melds"] else ""
    void = f"  void {d['void']}" if d["void"] else ""
    lines.append(f"hand   {d['hand']}{melds}  ({d['tiles']} tiles, rules {d['rules']}{void})")
    sp = d["shanten_parts"]
    pairs = "-" if sp["seven_pairs"] is None else sp["seven_pairs"]
    shanten_line = f"shanten {d['shanten']}  (standard {sp['standard']}, seven pairs {pairs})"
    if d["shanten"] == UNREACHABLE:
        shanten_line = f"shanten {UNREACHABLE}: no win is reachable (melds in three suits, or in the void suit)"
    if d["tiles"] == 14:
        if d["win"]:
            lines.append(
                f"win    yes, on {d['win_tile']}: {d['fan']} fan"
                + (f" (raw {d['raw_fan']})" if d["raw_fan"] != d["fan"] else "")
                + f", {d['points']} points"
            )
            lines.append("       1  base (平胡)")
            for item, f in d["items"].items():
                lines.append(f"       +{f} {item} ({FAN_NAMES[item]})")
        else:
            lines.append("win    no")
        lines.append(shanten_line)
        lines.append("discards (best first):")
        for row in d["best_discards"]:
            lines.append(f"  {row['tile']:<3} shanten {row['shanten']:>2}  ukeire {row['ukeire']:>3}")
    else:
        lines.append(shanten_line)
        if d["waits"]:
            lines.append("waits:")
            for w in d["waits"]:
                lines.append(f"  {w['tile']:<3} {w['fan']} fan  {w['points']:>4} points")
        else:
            lines.append("waits: none" + (" (not ready)" if d["shanten"] > 0 else ""))
    return "\n".join(lines)


@click.command("eval", short_help="Evaluate one hand: win, fan, shanten, waits, discards.")
@click.argument("hand")
@click.option(
    "--melds",
    default="",
    metavar="MELDS",
    help='Exposed and concealed melds: "666p,7777s,(7777s)" (pung, kong, concealed kong).',
)
@click.option(
    "--rules",
    "rules",
    default="leshan",
    metavar="PRESET|FILE.toml",
    show_default=True,
    help="A preset name (leshan, chengdu) or a rules TOML file.",
)
@click.option(
    "--void", type=click.Choice(["m", "p", "s"], case_sensitive=False), default=None, help="Declared void suit (R11.2)."
)
@click.option(
    "--win-tile", default=None, metavar="TILE", help="Winning tile of a 14-tile hand (default: the last tile written)."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def eval_command(hand: str, melds: str, rules: str, void: str | None, win_tile: str | None, as_json: bool) -> None:
    """Evaluate HAND (e.g. 11122233345m99m): win, fan and points, shanten, waits, discards.

    \b
    14 tiles (melds count 3 each): win or not, fan items and points, shanten, best discards.
    13 tiles: shanten and the waits with their ready-check value (R7.3).
    """
    try:
        d = evaluate_hand(hand, melds, rules, void, win_tile)
    except click.ClickException:
        raise
    except NotAWinError as exc:  # pragma: no cover - evaluate_hand checks is_win first
        _fail(str(exc))
    except ValueError as exc:  # TileError, RulesError: the message names the input
        _fail(str(exc))
    if as_json:
        click.echo(json.dumps(d, ensure_ascii=False))
    else:
        click.echo(_render(d))


def _fail(message: str) -> None:
    from xuezhan.cli._common import one_line

    click.echo(f"Error: {one_line(message)}", err=True)
    sys.exit(2)


COMMANDS = [eval_command]
