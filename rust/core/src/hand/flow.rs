//! The turn flow and the claim window (docs/rules.md R2, R3, R4, R8, R11, R14): the transitions
//! of [`Hand`], in the order the Python engine (`xuezhan.engine.round`, `claims`, `setup`) makes
//! them, event for event.

use crate::fan::{ctx, fan_unchecked, FanResult};
use crate::hand::action::{Act, Action};
use crate::hand::event::{EndReason, Event, KongHow, MeldVerb, Win, WinHow};
use crate::hand::ledger::{fired, KongRecord};
use crate::hand::legal::{
    claim_actions, default_discard, default_exchange, default_void, exchange_actions,
    locked_turn_legal, turn_legal, void_actions,
};
use crate::hand::settle::{self, Holding};
use crate::hand::turn::{ClaimWindow, Phase, TurnFlags};
use crate::hand::{Hand, HandError, DIRECTION_OFFSETS};
use crate::tiles::{Counts, Meld, MeldType};
use crate::win::is_win_unchecked;

impl Hand {
    // ================================================================== setup (R11)
    pub(crate) fn start(&mut self) {
        self.ledger.record(Event::Start {
            dealer: self.dealer,
            wall_count: self.wall.tiles.len(),
        });
        if self.rules.exchange_three {
            self.ask(Phase::Exchange, 0);
            exchange_actions(0, &self.seats.counts[0], &mut self.turn.legal);
        } else if self.rules.declare_void {
            self.ask(Phase::Void, 0);
            void_actions(0, &mut self.turn.legal);
        } else {
            self.begin_play();
        }
    }

    fn ask(&mut self, phase: Phase, seat: u8) {
        self.turn.phase = phase;
        self.turn.cur = Some(seat);
    }

    fn apply_exchange(&mut self, seat: u8, tiles: [u8; 3], default: bool) {
        if default {
            self.ledger.defaults_used += 1;
        }
        self.turn.x_choice[seat as usize] = Some(tiles);
        self.ledger.record(Event::Exchange {
            seat,
            tiles,
            default,
        });
        let n = self.seats.n;
        if seat + 1 < n {
            self.turn.cur = Some(seat + 1);
            exchange_actions(
                seat + 1,
                &self.seats.counts[seat as usize + 1],
                &mut self.turn.legal,
            );
            return;
        }
        let d = self.exchange_dir.unwrap_or(0);
        let off = DIRECTION_OFFSETS[d as usize] % n;
        let chosen: Vec<[u8; 3]> = (0..n as usize)
            .map(|s| self.turn.x_choice[s].expect("every seat chose"))
            .collect();
        for (s, t) in chosen.iter().enumerate() {
            for &k in t {
                self.seats.counts[s][k as usize] -= 1;
            }
        }
        for (s, t) in chosen.iter().enumerate() {
            let to = (s + off as usize) % n as usize;
            for &k in t {
                self.seats.counts[to][k as usize] += 1;
            }
        }
        self.ledger.record(Event::Exchanged { direction: d });
        for s in 0..n {
            let from = ((s + n - off) % n) as usize;
            self.ledger.record(Event::Received {
                seat: s,
                tiles: chosen[from],
            });
        }
        self.ledger.fire(fired::EXCHANGE);
        if self.rules.declare_void {
            self.ask(Phase::Void, 0);
            void_actions(0, &mut self.turn.legal);
        } else {
            self.begin_play();
        }
    }

    fn apply_void(&mut self, seat: u8, suit: u8, default: bool) {
        self.turn.v_choice[seat as usize] = suit as i8;
        self.ledger.record(Event::Void {
            seat,
            suit,
            default,
        });
        let n = self.seats.n;
        if seat + 1 < n {
            self.turn.cur = Some(seat + 1);
            void_actions(seat + 1, &mut self.turn.legal);
            return;
        }
        let mut voids = [0u8; 4];
        for (s, v) in voids.iter_mut().enumerate().take(n as usize) {
            self.seats.void[s] = self.turn.v_choice[s];
            *v = self.turn.v_choice[s] as u8;
        }
        self.seats.voids_known = true;
        self.ledger.record(Event::Voids { voids });
        self.ledger.fire(fired::VOID);
        self.begin_play();
    }

    // ================================================================== turns (R2)
    fn begin_play(&mut self) {
        for s in 0..self.seats.n {
            if s != self.dealer {
                self.seats.update_mask(s);
            }
        }
        self.turn.drawn = -1;
        self.turn.flags = TurnFlags::DEALER_FIRST; // R5 heaven_earth: the dealer's first 14 tiles
        self.turn_decision(self.dealer);
    }

    /// R4: the seat on turn holds a winning hand (the drawn tile, or the dealer's first 14).
    fn can_hu(&self, seat: u8) -> bool {
        let t = self.turn.drawn;
        if t >= 0 {
            return self.seats.mask[seat as usize] >> t & 1 != 0;
        }
        let f = self.turn.flags;
        f.heaven
            && !f.after_peng
            && is_win_unchecked(
                &self.seats.counts[seat as usize],
                self.seats.melds[seat as usize].as_slice(),
                self.seats.void_of(seat),
            )
    }

    /// A turn that does not begin with a draw: the dealer's first and the turn after a peng.
    fn turn_decision(&mut self, seat: u8) {
        self.turn.cur = Some(seat);
        self.turn.phase = Phase::Turn;
        let can_hu = self.can_hu(seat);
        let s = seat as usize;
        self.turn.discard_mask = turn_legal(
            seat,
            &self.seats.counts[s],
            self.seats.melds[s].as_slice(),
            self.seats.void_of(seat),
            can_hu,
            self.turn.flags.after_peng,
            self.wall.empty(),
            &mut self.turn.legal,
        );
    }

    /// R1.3: draw from the front of the wall (kong replacements, after `kong`, too). A player
    /// that must draw from an empty wall ends the hand (R4.5).
    fn draw(&mut self, seat: u8, kong: Option<usize>) {
        let left = self.wall.count();
        if left == 0 {
            self.end(EndReason::Wall);
            return;
        }
        // R4.4: the last-tiles phase begins with the first draw made while the wall holds no
        // more tiles than there are active players.
        if left <= self.seats.n_active as usize && !self.turn.last_phase {
            self.turn.last_phase = true;
            self.ledger.record(Event::LastTiles { wall_count: left });
        }
        let t = self.wall.tiles[self.wall.pos];
        self.wall.pos += 1;
        let s = seat as usize;
        self.seats.counts[s][t as usize] += 1;
        self.seats.lock[s] = 0; // R4.3: its own draw clears the restriction
        self.turn.drawn = t as i8;
        let last = left == 1;
        self.turn.flags = if kong.is_some() {
            TurnFlags {
                replacement: true,
                last_tile: last,
                kong,
                ..TurnFlags::default()
            }
        } else {
            // R5 heaven_earth (地胡): a non-dealer's first draw before any claim.
            let heaven = !self.turn.first_drawn[s] && !self.turn.any_claim && seat != self.dealer;
            TurnFlags {
                last_tile: last,
                heaven,
                ..TurnFlags::default()
            }
        };
        self.turn.first_drawn[s] = true;
        self.ledger.record(Event::Draw {
            seat,
            tile: t,
            replacement: kong.is_some(),
        });
        self.turn.cur = Some(seat);
        let can_hu = self.seats.mask[s] >> t & 1 != 0;
        if can_hu && self.rules.last_tiles_forced && self.turn.last_phase {
            self.self_draw_win(seat, true); // R4.4: a self-drawn completing tile must be declared
            return;
        }
        self.turn.phase = Phase::Turn;
        let melds = self.seats.melds[s];
        let void = self.seats.void_of(seat);
        self.turn.discard_mask = if self.seats.locked(seat) {
            locked_turn_legal(
                seat,
                &self.seats.counts[s],
                melds.as_slice(),
                void,
                t,
                can_hu,
                last,
                self.seats.mask[s],
                &mut self.turn.legal,
            )
        } else {
            turn_legal(
                seat,
                &self.seats.counts[s],
                melds.as_slice(),
                void,
                can_hu,
                false,
                last,
                &mut self.turn.legal,
            )
        };
    }

    fn discard(&mut self, seat: u8, t: u8, default: bool) {
        let s = seat as usize;
        self.seats.counts[s][t as usize] -= 1;
        self.seats.river[s].push(t);
        self.seats.last_discard[s] = t as i8;
        self.seats.discarded[s][t as usize] += 1;
        self.wall.see(t, 1);
        self.ledger.record(Event::TileDecision {
            verb: "discard",
            seat,
            tile: t,
            default,
        });
        if !self.seats.locked(seat) {
            // (a winner that stays discards the tile it drew: its hand and waits are back
            // to the locked hand's, R14.2)
            self.seats.update_mask(seat);
        }
        let could_claim = (1..self.seats.n).any(|i| {
            let q = self.seats.after(seat, i) as usize;
            self.seats.active[q]
                && (self.seats.mask[q] >> t & 1 != 0 || self.seats.counts[q][t as usize] >= 2)
        });
        if could_claim {
            let (c, kong) = self.turn.flags.discard_context();
            self.open_claims(seat, t, false, c, kong);
            return;
        }
        self.turn.claim_group += 1;
        // R2.5: the next active player draws
        let next = self.seats.next_active(seat);
        self.draw(next as u8, None);
    }

    /// R2.1 concealed kong, or added kong (R3.3: it can be robbed first).
    fn kong(&mut self, seat: u8, k: u8, concealed: bool, default: bool) {
        let s = seat as usize;
        if concealed {
            self.seats.counts[s][k as usize] = 0;
            self.seats.melds[s].push(
                Meld {
                    ty: MeldType::ConcealedKong,
                    kind: k,
                },
                None,
            );
            self.wall.see(k, 4); // a concealed kong is public (R2.3)
            self.ledger.record(Event::TileDecision {
                verb: "angang",
                seat,
                tile: k,
                default,
            });
            self.kong_paid(seat, k, KongHow::Angang, None);
            return;
        }
        self.ledger.record(Event::TileDecision {
            verb: "jiagang",
            seat,
            tile: k,
            default,
        });
        if self.rules.rob_kong {
            self.open_claims(seat, k, true, ctx::ROBBING_KONG, None);
        } else {
            self.complete_jiagang(seat, k);
        }
    }

    fn complete_jiagang(&mut self, seat: u8, k: u8) {
        let s = seat as usize;
        self.seats.counts[s][k as usize] -= 1;
        let ms = &mut self.seats.melds[s];
        let i = ms
            .as_slice()
            .iter()
            .position(|m| m.ty == MeldType::Pung && m.kind == k)
            .expect("an added kong extends an own pung");
        ms.list[i].ty = MeldType::Kong;
        self.wall.see(k, 1);
        self.ledger.record(Event::Meld {
            seat,
            meld: MeldVerb::Jiagang,
            tile: k,
            frm: None,
        });
        self.kong_paid(seat, k, KongHow::Jiagang, None);
    }

    /// R6.4: the kong pays at once; then the replacement draw (R2.1).
    fn kong_paid(&mut self, seat: u8, k: u8, how: KongHow, frm: Option<u8>) {
        let others: Vec<u8> = self.seats.others(seat).collect();
        let rec: KongRecord =
            settle::settle_kong(&mut self.ledger, &self.rules, seat, k, how, frm, &others);
        self.ledger.kongs.push(rec);
        let i = self.ledger.kongs.len() - 1;
        self.seats.update_mask(seat);
        self.draw(seat, Some(i));
    }

    /// Fan of a win (R5): `counts14` holds the winning tile `kind`.
    fn score(&self, seat: u8, counts14: &Counts, kind: u8, c: u8) -> Option<FanResult> {
        fan_unchecked(
            counts14,
            self.seats.melds[seat as usize].as_slice(),
            kind,
            c,
            &self.rules.core,
            self.seats.void_of(seat),
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn win(
        &mut self,
        seat: u8,
        frm: Option<u8>,
        kind: u8,
        res: &FanResult,
        how: WinHow,
        forced: bool,
        group: i64,
    ) {
        self.seats.leave(seat, true);
        self.turn.cur = None;
        let w = Win {
            seat,
            frm,
            tile: kind,
            fan: res.capped,
            raw_fan: res.raw,
            points: res.points,
            items: res.items,
            how,
            forced,
            group,
        };
        self.ledger.record(Event::Win(w));
        self.ledger.wins.push(w);
        if res.raw >= self.rules.core.max_fan {
            self.ledger.fire(fired::CAPPED); // reached the cap (极品)
        }
        if forced {
            self.ledger.fire(fired::PHASE_WIN);
        }
    }

    fn self_draw_win(&mut self, seat: u8, forced: bool) {
        let s = seat as usize;
        let c = self.seats.counts[s];
        let f = self.turn.flags;
        let mut cx = ctx::SELF_DRAW;
        if f.heaven {
            cx |= ctx::HEAVEN_EARTH;
        }
        if f.last_tile {
            cx |= ctx::LAST_TILE;
        }
        let mut payer = None;
        if f.replacement {
            cx |= ctx::KONG_DRAW;
            if let Some(i) = f.kong {
                let rec = &self.ledger.kongs[i];
                if rec.how == KongHow::Gang && self.rules.kong_draw_discarder_pays {
                    cx |= ctx::DISCARDER_PAYS;
                    payer = rec.frm;
                }
            }
        }
        let (mut kind, res) = if self.turn.drawn >= 0 {
            let k = self.turn.drawn as u8;
            (k, self.score(seat, &c, k, cx))
        } else {
            // 天胡: the dealer's first 14 tiles; the winning tile is the one giving the most fan
            // (then the most raw fan, then the lowest kind).
            let mut best: Option<(u8, FanResult)> = None;
            for k in 0..27u8 {
                if c[k as usize] == 0 {
                    continue;
                }
                if let Some(r) = self.score(seat, &c, k, cx) {
                    if best.is_none_or(|(_, b)| (r.capped, r.raw) > (b.capped, b.raw)) {
                        best = Some((k, r));
                    }
                }
            }
            match best {
                Some((k, r)) => (k, Some(r)),
                None => (0, None),
            }
        };
        let res = res.expect("the wait mask and the fan agree on a self-draw");
        if forced {
            self.ledger.record(Event::Hu {
                seat,
                default: false,
                forced: true,
            });
        }
        if self.seats.stay {
            if self.turn.drawn < 0 {
                // R14.1: 天胡 sets aside the highest tile
                kind = (0..27u8).rev().find(|&k| c[k as usize] != 0).unwrap_or(0);
            }
            if self.seats.won[s] {
                self.ledger.fire(fired::REPEAT_WIN);
            }
            self.seats.set_aside(seat, kind);
            self.wall.see(kind, 1);
        }
        let group = -1 - self.ledger.wins.len() as i64;
        self.win(seat, None, kind, &res, WinHow::SelfDraw, forced, group);
        let payers: Vec<u8> = self.seats.others(seat).collect();
        settle::settle_self_draw(
            &mut self.ledger,
            &self.rules,
            seat,
            res.points as i64,
            &payers,
            payer,
        );
        if self.ledger.wins.len() >= 3 && !self.seats.stay {
            self.end(EndReason::ThreeWon);
        } else {
            let next = self.seats.next_active(seat);
            self.draw(next as u8, None); // R2.5: the first active player after the winner
        }
    }

    // ================================================================== claims (R3)
    fn open_claims(&mut self, frm: u8, t: u8, rob: bool, c: u8, kong: Option<usize>) {
        self.turn.claim_group += 1;
        let queue: Vec<u8> = (1..self.seats.n)
            .map(|i| self.seats.after(frm, i))
            .filter(|&q| self.seats.active[q as usize])
            .collect();
        self.turn.claims = Some(ClaimWindow {
            tile: t,
            frm,
            robbing: rob,
            ctx: c,
            kong,
            queue,
            asked: 0,
            hu: Vec::with_capacity(3),
            meld: None,
            fan: [0; 4],
        });
        self.advance_claims();
    }

    /// R4.3's pass-win lock applies now (the option is on, and not in R4.4's phase).
    fn claim_lock_on(&self) -> bool {
        self.rules.pass_win_lock && !self.turn.last_phase
    }

    /// Ask the seats that could claim, in turn order from the discarder (R13); R4.4's
    /// compulsory wins are taken without asking.
    fn advance_claims(&mut self) {
        let forced = self.turn.last_phase && self.rules.last_tiles_forced;
        let lock_on = self.claim_lock_on();
        let wall_empty = self.wall.empty();
        let mut w = self.turn.claims.take().expect("an open claim window");
        let t = w.tile;
        while w.asked < w.queue.len() {
            let s = w.queue[w.asked];
            let i = s as usize;
            w.fan[i] = 0;
            let can_win = self.seats.mask[i] >> t & 1 != 0;
            if !can_win && self.seats.counts[i][t as usize] < 2 {
                w.asked += 1; // it cannot claim
                continue;
            }
            if can_win {
                let mut h = self.seats.counts[i];
                h[t as usize] += 1;
                if let Some(res) = self.score(s, &h, t, w.ctx) {
                    if forced {
                        // R4.4: a discard that completes a hand is won at once.
                        self.ledger.record(Event::Hu {
                            seat: s,
                            default: false,
                            forced: true,
                        });
                        w.hu.push(s);
                        w.asked += 1;
                        continue;
                    }
                    w.fan[i] = res.capped;
                }
            }
            let lock = if lock_on { self.seats.lock[i] } else { 0 };
            claim_actions(
                s,
                &self.seats.counts[i],
                t,
                self.seats.void_of(s),
                w.fan[i],
                lock,
                w.robbing,
                wall_empty,
                self.seats.locked(s),
                &mut self.turn.legal,
            );
            if !self.turn.legal.is_empty() {
                self.turn.claims = Some(w);
                self.ask(Phase::Claim, s);
                return;
            }
            w.asked += 1;
        }
        self.resolve_claims(w);
    }

    /// Record the asked seat's claim (or pass) and move on to the next seat.
    fn claim(&mut self, seat: u8, act: Act, default: bool) {
        let w = self.turn.claims.as_mut().expect("an open claim window");
        let e = match act {
            Act::Hu => Event::Hu {
                seat,
                default,
                forced: false,
            },
            Act::Peng => Event::SeatDecision {
                verb: "peng",
                seat,
                default,
            },
            Act::Gang => Event::SeatDecision {
                verb: "gang",
                seat,
                default,
            },
            _ => Event::SeatDecision {
                verb: "pass",
                seat,
                default,
            },
        };
        if act == Act::Hu {
            w.hu.push(seat);
        } else {
            let f = w.fan[seat as usize];
            if act != Act::Pass {
                w.meld = Some((seat, act == Act::Gang));
            }
            w.asked += 1;
            self.ledger.record(e);
            if f != 0 && self.rules.pass_win_lock {
                // R4.3: it passed a win; remember the best fan passed.
                let lock = &mut self.seats.lock[seat as usize];
                *lock = (*lock).max(f);
                self.ledger.fire(fired::PASS_WIN);
            }
            self.advance_claims();
            return;
        }
        w.asked += 1;
        self.ledger.record(e);
        self.advance_claims();
    }

    /// R3.2: win > kong, peng; several winners all win (then no peng or kong).
    fn resolve_claims(&mut self, w: ClaimWindow) {
        let (frm, t) = (w.frm, w.tile);
        if !w.hu.is_empty() {
            if w.hu.len() > 1 {
                self.ledger.fire(fired::MULTI_WIN);
            }
            self.turn.any_claim = true;
            if w.robbing {
                // R3.3: the added kong is cancelled; the robbed tile leaves the kong-maker's hand.
                let f = frm as usize;
                self.seats.counts[f][t as usize] -= 1;
                self.seats.river[f].push(t);
                self.wall.see(t, 1);
                self.seats.update_mask(frm);
            }
            for &s in &w.hu {
                let mut h = self.seats.counts[s as usize];
                h[t as usize] += 1;
                let res = self
                    .score(s, &h, t, w.ctx)
                    .expect("a declared win is a win");
                if self.seats.won[s as usize] {
                    self.ledger.fire(fired::REPEAT_WIN);
                }
                let how = if w.robbing {
                    WinHow::Rob
                } else {
                    WinHow::Discard
                };
                self.win(s, Some(frm), t, &res, how, false, self.turn.claim_group);
                settle::settle_discard_win(
                    &mut self.ledger,
                    &self.rules,
                    s,
                    frm,
                    res.points as i64,
                    w.kong,
                    w.robbing,
                );
            }
            if self.ledger.wins.len() >= 3 && !self.seats.stay {
                self.end(EndReason::ThreeWon);
            } else {
                // R2.5: the first active player after the last winner, counting from the discarder
                let last = *w.hu.last().unwrap_or(&frm);
                let next = self.seats.next_active(last);
                self.draw(next as u8, None);
            }
        } else if w.robbing {
            self.complete_jiagang(frm, t);
        } else if let Some((seat, gang)) = w.meld {
            self.turn.any_claim = true;
            // a peng or kong of `seat` on `frm`'s discard (R2.4): the discard leaves the pile
            let s = seat as usize;
            self.seats.river[frm as usize].pop();
            let n = if gang { 3 } else { 2 };
            self.seats.counts[s][t as usize] -= n;
            let ty = if gang { MeldType::Kong } else { MeldType::Pung };
            self.seats.melds[s].push(Meld { ty, kind: t }, Some(frm));
            self.wall.see(t, n);
            self.ledger.record(Event::Meld {
                seat,
                meld: if gang { MeldVerb::Gang } else { MeldVerb::Peng },
                tile: t,
                frm: Some(frm),
            });
            if gang {
                self.kong_paid(seat, t, KongHow::Gang, Some(frm));
            } else {
                // R2.4: after a peng the claimer discards (no draw, no kong)
                self.turn.drawn = -1;
                self.turn.flags = TurnFlags::AFTER_PENG;
                self.turn_decision(seat);
            }
        } else {
            // R2.5: no claim taken: the next active player draws
            let next = self.seats.next_active(frm);
            self.draw(next as u8, None);
        }
    }

    // ================================================================== end (R4.5, R8)
    /// The tiles of each active seat for the ready check (R7, R8); `caught`: a winner on turn
    /// holding the tile it drew, valued without it (R14.5).
    fn holdings(&self, caught: Option<(u8, u8)>) -> Vec<Holding> {
        (0..self.seats.n)
            .filter(|&s| self.seats.active[s as usize])
            .map(|s| {
                let mut counts = self.seats.counts[s as usize];
                if let Some((cs, k)) = caught {
                    if cs == s {
                        counts[k as usize] -= 1;
                    }
                }
                Holding {
                    seat: s,
                    counts,
                    melds: self.seats.melds[s as usize].as_slice().to_vec(),
                    void: self.seats.void_of(s),
                }
            })
            .collect()
    }

    fn winners_in(&self) -> u8 {
        (0..self.seats.n)
            .filter(|&s| self.seats.winners_in(s))
            .fold(0, |m, s| m | 1 << s)
    }

    fn escape(&mut self, seat: u8, default: bool) {
        self.ledger.record(Event::SeatDecision {
            verb: "escape",
            seat,
            default,
        });
        // before the escapee leaves: a winner on turn holding the tile it drew
        let caught = match (self.turn.cur, self.turn.phase) {
            (Some(c), Phase::Turn) if self.turn.drawn >= 0 && self.seats.locked(c) => {
                Some((c, self.turn.drawn as u8))
            }
            _ => None,
        };
        self.seats.leave(seat, false);
        self.turn.cur = None;
        let held = self.holdings(caught);
        self.ledger.checked = held.iter().fold(0, |m, h| m | 1 << h.seat);
        let winners = self.winners_in();
        let (pigs, ready) =
            settle::settle_escape(&mut self.ledger, &self.rules, seat, &held, winners);
        self.ledger.pigs = pigs;
        self.ledger.ready = ready;
        self.end(EndReason::Escape);
    }

    fn end(&mut self, reason: EndReason) {
        if reason == EndReason::Wall {
            let held = self.holdings(None);
            if held.len() >= 2 {
                self.ledger.checked = held.iter().fold(0, |m, h| m | 1 << h.seat);
            }
            let present: Vec<u8> = (0..self.seats.n)
                .filter(|&q| !self.seats.escaped[q as usize])
                .collect();
            let winners = self.winners_in();
            let (pigs, ready) =
                settle::end_of_wall(&mut self.ledger, &self.rules, &held, &present, winners);
            self.ledger.pigs = pigs;
            self.ledger.ready = ready;
        }
        self.turn.phase = Phase::Over;
        self.turn.cur = None;
        self.turn.legal.clear();
        self.turn.claims = None;
        self.ledger.end_reason = Some(reason);
        let nd = self.next_dealer_now();
        self.ledger.next_dealer = Some(nd);
        if self.ledger.defaults_used != 0 {
            self.ledger.fire(fired::DEFAULTS);
        }
        let deltas = self.ledger.deltas;
        self.ledger.record(Event::End {
            reason,
            deltas,
            next_dealer: nd,
        });
    }

    /// R9.2: the first winner; the discarder if the first win was a multiple win on one discard
    /// or robbed kong; the dealer stays if nobody won.
    fn next_dealer_now(&self) -> u8 {
        let wins = &self.ledger.wins;
        let Some(first) = wins.first() else {
            return self.dealer;
        };
        let multiple = wins.iter().filter(|w| w.group == first.group).count() > 1;
        if multiple {
            first.frm.unwrap_or(first.seat)
        } else {
            first.seat
        }
    }

    // ================================================================== decisions
    /// The R10 default of the pending decision.
    pub fn default_action(&self) -> Option<Action> {
        let seat = self.turn.cur?;
        Some(match self.turn.phase {
            Phase::Claim => Action::new(seat, Act::Pass),
            Phase::Turn => default_discard(&self.turn.legal, self.turn.drawn),
            Phase::Void => default_void(seat, &self.seats.counts[seat as usize]),
            Phase::Exchange => default_exchange(seat, &self.seats.counts[seat as usize]),
            Phase::Over => return None,
        })
    }

    /// Take one action of the pending decision (or an escape, R8, from any active seat);
    /// `default` marks an R10 default (it must be the default of the decision). An action that
    /// is not legal is refused with nothing changed.
    pub fn apply(&mut self, action: Action, default: bool) -> Result<(), HandError> {
        let seat = action.seat;
        if self.is_over() {
            return Err(HandError(format!(
                "illegal action '{action}': the hand is over"
            )));
        }
        if action.act == Act::Escape {
            if seat >= self.seats.n || !self.seats.active[seat as usize] {
                return Err(HandError(format!(
                    "illegal action '{action}': seat {seat} is not an active player"
                )));
            }
            self.ledger.defaults_used += default as u32;
            self.escape(seat, default);
            return Ok(());
        }
        if Some(seat) != self.turn.cur {
            return Err(HandError(format!(
                "illegal action '{action}': it is not seat {seat}'s decision"
            )));
        }
        let mut action = action;
        if let Act::Exchange(mut t) = action.act {
            t.sort_unstable();
            action.act = Act::Exchange(t);
        }
        if default && Some(action) != self.default_action() {
            return Err(HandError(format!(
                "illegal action '{action}': it is marked as the R10 default, but it is not"
            )));
        }
        if !self.turn.legal.contains(&action) {
            return Err(HandError(format!(
                "illegal action '{action}': not a legal action now"
            )));
        }
        if self.turn.phase == Phase::Exchange {
            // the exchange counts its own default (R11.1)
            if let Act::Exchange(t) = action.act {
                self.apply_exchange(seat, t, default);
            }
            return Ok(());
        }
        self.ledger.defaults_used += default as u32;
        self.apply_legal(action, default);
        Ok(())
    }

    /// Apply an action known to be among the legal actions of the pending decision.
    pub fn apply_legal(&mut self, action: Action, default: bool) {
        let seat = action.seat;
        match self.turn.phase {
            Phase::Turn => match action.act {
                Act::Discard(k) => self.discard(seat, k, default),
                Act::Hu => {
                    self.ledger.record(Event::Hu {
                        seat,
                        default,
                        forced: false,
                    });
                    self.self_draw_win(seat, false);
                }
                Act::Angang(k) => self.kong(seat, k, true, default),
                Act::Jiagang(k) => self.kong(seat, k, false, default),
                _ => unreachable!("a turn action"),
            },
            Phase::Claim => self.claim(seat, action.act, default),
            Phase::Void => {
                if let Act::Void(s) = action.act {
                    self.apply_void(seat, s, default);
                }
            }
            Phase::Exchange => {
                if let Act::Exchange(t) = action.act {
                    self.apply_exchange(seat, t, default);
                }
            }
            Phase::Over => {}
        }
    }
}
