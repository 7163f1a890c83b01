//! R5 fan examples and every context item, under both presets (RULES.md R5, R11).
//! leshan: max_fan 5, terminals / pairs_258 / concealed / no_terminals / heaven_earth off.
//! chengdu: max_fan 4, terminals, pairs_258 and heaven_earth on.

use xuezhan_core::*;

fn c(s: &str) -> Counts {
    parse_counts(s).unwrap()
}

fn k(s: &str) -> u8 {
    c(s).iter().position(|&x| x > 0).unwrap() as u8
}

fn pung(s: &str) -> Meld {
    Meld {
        ty: MeldType::Pung,
        kind: k(s),
    }
}
fn kong(s: &str) -> Meld {
    Meld {
        ty: MeldType::Kong,
        kind: k(s),
    }
}
fn ckong(s: &str) -> Meld {
    Meld {
        ty: MeldType::ConcealedKong,
        kind: k(s),
    }
}

fn f(hand: &str, melds: &[Meld], win: &str, ctx: u8, r: &RulesCore) -> FanResult {
    fan(&c(hand), melds, k(win), ctx, r, None).unwrap().unwrap()
}

fn le() -> RulesCore {
    RulesCore::leshan()
}
fn ch() -> RulesCore {
    RulesCore::chengdu()
}

#[test]
fn r5_examples_leshan() {
    let r = le();
    // 平胡 1
    assert_eq!(f("123456m789m11p234p", &[], "2p", 0, &r).raw, 1);
    // 大对子 2
    assert_eq!(f("111555m99m222p888p", &[], "8p", 0, &r).raw, 2);
    // 七对 3
    assert_eq!(f("1122m3344p5566p99m", &[], "9m", 0, &r).raw, 3);
    // 清一色 3
    assert_eq!(f("12345678999m123m", &[], "3m", 0, &r).raw, 3);
    // 金钩钓 3: four melds (all_triplets +1, single_wait_melded +1)
    let melds = [pung("1m"), pung("5m"), pung("3p"), pung("9p")];
    let x = f("77m", &melds, "7m", 0, &r);
    assert_eq!(x.raw, 3);
    assert_eq!(x.items[item::SINGLE_WAIT_MELDED], 1);
    assert_eq!(x.items[item::ALL_TRIPLETS], 1);
    // 龙七对 4: seven pairs + one gen
    let x = f("1111m3344p5566p99m", &[], "9m", 0, &r);
    assert_eq!((x.raw, x.items[item::GEN]), (4, 1));
    // 清对 4
    assert_eq!(f("11122233355577m", &[], "7m", 0, &r).raw, 4);
    // 清七对 5
    assert_eq!(f("11223355667799m", &[], "9m", 0, &r).raw, 5);
    // 清金钩钓 5: one suit 2 + all triplets 1 + single wait 1
    let melds = [pung("1m"), pung("3m"), pung("5m"), pung("9m")];
    assert_eq!(f("77m", &melds, "7m", 0, &r).raw, 5);
    // 清龙七对 6 → capped at 5, 16 points
    let x = f("11112233557799m", &[], "9m", 0, &r);
    assert_eq!((x.raw, x.capped, x.points), (6, 5, 16));
}

#[test]
fn r5_examples_chengdu() {
    let r = ch();
    assert_eq!(f("123456m789m11p234p", &[], "2p", 0, &r).raw, 1);
    assert_eq!(f("111555m99m222p888p", &[], "8p", 0, &r).raw, 2);
    assert_eq!(f("1122m3344p5566p99m", &[], "9m", 0, &r).raw, 3);
    let x = f("11112233557799m", &[], "9m", 0, &r);
    assert_eq!((x.raw, x.capped, x.points), (6, 4, 8));
    // 带幺九: 123m 123m 789m 99p 789p (chengdu on, leshan off)
    let hand = "112233m789m99p789p";
    assert_eq!(f(hand, &[], "9p", 0, &r).items[item::TERMINALS], 2);
    assert_eq!(f(hand, &[], "9p", 0, &r).raw, 3);
    assert_eq!(f(hand, &[], "9p", 0, &le()).raw, 1);
    // Melds must hold a terminal too.
    let x = f("112233m789m99m", &[pung("9s")], "9m", 0, &r);
    assert_eq!((x.items[item::TERMINALS], x.raw), (2, 3));
    let x = f("112233m789m99m", &[pung("5s")], "9m", 0, &r);
    assert_eq!((x.items[item::TERMINALS], x.raw), (0, 1));
}

#[test]
fn terminals_and_pairs_258() {
    let r = ch();
    // 将对: all triplets of 2/5/8 (+1 all_triplets +2 pairs_258) = 4 with chengdu.
    let x = f("222555m88m222p555p", &[], "5p", 0, &r);
    assert_eq!(
        (x.items[item::ALL_TRIPLETS], x.items[item::PAIRS_258], x.raw),
        (1, 2, 4)
    );
    assert_eq!(f("222555m88m222p555p", &[], "5p", 0, &le()).raw, 2);
    // Terminals with melds and runs: 123m 11m pair, pung 1p, kong 9p, concealed kong 9m.
    let x = f(
        "11123m",
        &[pung("1p"), kong("9p"), ckong("9m")],
        "3m",
        0,
        &r,
    );
    assert_eq!(
        (
            x.items[item::TERMINALS],
            x.items[item::GEN],
            x.raw,
            x.capped
        ),
        (2, 2, 5, 4)
    );
    // (All-triplets + terminals needs five terminal kinds: impossible in two suits.)
}

#[test]
fn reading_with_most_fan_counts() {
    // 111222333m999p11p: all-triplets reading (+1) vs 123 123 123 999 11 terminal reading
    // (+2). chengdu: terminals → 3 fan; leshan (terminals off): the triplet reading, 2 fan.
    let hand = "111222333m99911p";
    let x = f(hand, &[], "1p", 0, &ch());
    assert_eq!(
        (x.raw, x.items[item::TERMINALS], x.items[item::ALL_TRIPLETS]),
        (3, 2, 0)
    );
    let x = f(hand, &[], "1p", 0, &le());
    assert_eq!((x.raw, x.items[item::ALL_TRIPLETS]), (2, 1));
    // Seven pairs vs a standard reading of the same tiles: seven pairs is worth more.
    let x = f("11223344556677m", &[], "7m", 0, &le());
    assert_eq!((x.items[item::SEVEN_PAIRS], x.raw), (2, 5));
}

#[test]
fn gen_counts_melds_and_concealed_quads() {
    let r = le();
    // A kong is a gen; four concealed 2m split as 222 + 234 is a gen too.
    let x = f("222234m678m99m", &[kong("5p")], "9m", 0, &r);
    assert_eq!(x.items[item::GEN], 2);
    assert_eq!(x.raw, 3);
}

#[test]
fn every_context_item() {
    let hand = "123456m789m11p234p";
    let win = "2p";
    let pairs = [
        (ctx::KONG_DRAW | ctx::SELF_DRAW, item::KONG_DRAW),
        (ctx::KONG_DISCARD, item::KONG_DISCARD),
        (ctx::ROBBING_KONG, item::ROBBING_KONG),
        (ctx::LAST_TILE, item::LAST_TILE),
    ];
    for r in [le(), ch()] {
        for (flag, id) in pairs {
            let x = f(hand, &[], win, flag, &r);
            assert_eq!(x.items[id], 1, "ctx {flag:#x}");
            assert_eq!(x.raw, 2);
            // Disabled item: no fan.
            let off = RulesCore {
                items: r.items & !(1 << id),
                ..r
            };
            assert_eq!(f(hand, &[], win, flag, &off).raw, 1);
        }
    }
    // heaven_earth: fan = max_fan with chengdu, nothing with leshan.
    let x = f(hand, &[], win, ctx::HEAVEN_EARTH | ctx::SELF_DRAW, &ch());
    assert_eq!((x.capped, x.points, x.items[item::HEAVEN_EARTH]), (4, 8, 4));
    assert_eq!(f(hand, &[], win, ctx::HEAVEN_EARTH, &le()).raw, 1);
    // self_draw: only with self_draw_fan, never under DISCARDER_PAYS (R6.3).
    let sd = RulesCore {
        self_draw_fan: true,
        ..le()
    };
    assert_eq!(f(hand, &[], win, ctx::SELF_DRAW, &le()).raw, 1);
    assert_eq!(
        f(hand, &[], win, ctx::SELF_DRAW, &sd).items[item::SELF_DRAW],
        1
    );
    assert_eq!(
        f(hand, &[], win, ctx::SELF_DRAW | ctx::DISCARDER_PAYS, &sd).raw,
        1
    );
    assert_eq!(f(hand, &[], win, 0, &sd).raw, 1);
    // concealed (门清): concealed kongs allowed, pungs not; no_terminals (中张).
    let all = RulesCore {
        items: (1 << 15) - 1,
        ..le()
    };
    let x = f("234567m22p345p", &[ckong("6p")], "2p", 0, &all);
    assert_eq!(
        (
            x.items[item::CONCEALED],
            x.items[item::NO_TERMINALS],
            x.items[item::GEN]
        ),
        (1, 1, 1)
    );
    let x = f("234567m22p345p", &[pung("6p")], "2p", 0, &all);
    assert_eq!(x.items[item::CONCEALED], 0);
    let x = f("123456m789m11p234p", &[], "2p", 0, &all);
    assert_eq!(
        (x.items[item::CONCEALED], x.items[item::NO_TERMINALS]),
        (1, 0)
    );
}

#[test]
fn waits_example_from_the_brief() {
    let w = waits(&c("11122233345m99m"), &[], &le(), None).unwrap();
    assert_eq!(
        w,
        vec![
            Wait {
                kind: 2,
                fan: 4,
                points: 8
            },
            Wait {
                kind: 5,
                fan: 3,
                points: 4
            },
            Wait {
                kind: 8,
                fan: 3,
                points: 4
            },
        ]
    );
    // chengdu caps at 4; a 10-tile hand is refused with the count named.
    let w = waits(&c("11122233345m99m"), &[], &ch(), None).unwrap();
    assert_eq!(
        w[0],
        Wait {
            kind: 2,
            fan: 4,
            points: 8
        }
    );
    let e = waits(&c("1111222233m"), &[], &ch(), None).unwrap_err();
    assert!(e.to_string().contains("10 tiles"));
}

#[test]
fn not_a_win_and_bad_inputs() {
    let r = le();
    assert_eq!(
        fan(&c("123456m789m11p234s"), &[], 0, 0, &r, None).unwrap(),
        None
    ); // three suits
    assert_eq!(
        fan(&c("123456m789m11p234p"), &[], 10, 0, &r, Some(1)).unwrap(),
        None
    ); // void p
    assert_eq!(
        fan(&c("123456m789m11p234p"), &[], 26, 0, &r, None),
        Err(EvalError::WinTileNotInHand(26))
    );
    assert!(fan(&c("123456m789m11p234p"), &[], 27, 0, &r, None).is_err());
}
