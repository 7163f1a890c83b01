// scratch: best_discards timing, core vs peer, medians of alternating passes
use std::hint::black_box;
use std::time::Instant;
use xuezhan_core::*;
#[path = "../benches/common/hands.rs"]
mod hands;
#[path = "../benches/common/peer.rs"]
mod peer;
use hands::{peer_sets, N};
type Turn = (Counts, Counts, Option<u8>);

fn main() {
    warm_up();
    let s = peer_sets();
    let z = [0u8; 27];
    let plain = |v: &Vec<Counts>| -> Vec<Turn> { v.iter().map(|&c| (c, z, None)).collect() };
    let sets: Vec<(&str, Vec<Turn>)> = vec![
        (
            "selfplay",
            s.selfplay
                .iter()
                .map(|p| (p.counts, p.visible, Some(p.void)))
                .collect(),
        ),
        ("two14", plain(&s.two14)),
        ("three14", plain(&s.three14)),
        ("ready14", plain(&s.ready14)),
    ];
    let passes: usize = std::env::args()
        .nth(1)
        .map(|x| x.parse().unwrap())
        .unwrap_or(15);
    let mut out = Vec::with_capacity(14);
    for (name, hands) in &sets {
        let (mut a, mut b) = (vec![], vec![]);
        for _ in 0..passes {
            let t = Instant::now();
            for i in 0..N {
                let (c, v, void) = &hands[black_box(i)];
                best_discards_unchecked(c, &[], v, *void, &mut out);
                black_box(out.len());
            }
            a.push(t.elapsed().as_nanos() as f64 / N as f64);
            let t = Instant::now();
            for i in 0..N {
                let (c, v, _) = &hands[black_box(i)];
                peer::best_discards(c, v, &mut out);
                black_box(out.len());
            }
            b.push(t.elapsed().as_nanos() as f64 / N as f64);
        }
        a.sort_by(f64::total_cmp);
        b.sort_by(f64::total_cmp);
        let (ma, mb) = (a[passes / 2], b[passes / 2]);
        println!(
            "{name:10} core {ma:7.1} (min {:7.1} max {:7.1})  peer {mb:7.1}  ratio {:.2}",
            a[0],
            a[passes - 1],
            mb / ma
        );
    }
}
