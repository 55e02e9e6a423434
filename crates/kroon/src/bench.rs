//! `kroon bench`: fixed positions, fixed depth, one thread, fresh table. The node total is the
//! search's signature: it changes only when the search does. The time is the searches' alone:
//! one engine serves every position, its table cleared between them outside the clock, so that
//! neither the table's allocation nor its clearing is counted.

use kroon_rules::{parse_fen, Position, Variant};
use kroon_search::{Engine, Eval, Limits, SearchRequest};
use std::time::Instant;

pub const DEFAULT_DEPTH: u32 = 13;

/// Openings, middlegames and endgames of international draughts.
const POSITIONS: [&str; 10] = [
    "W:W31-50:B1-20",
    "B:W31-48,50:B1-19,23",
    "W:W25,27,28,30,32,33,34,35,37,38:B12,13,14,16,18,19,21,23,24,26",
    "W:W27,28,29,31,32,33,34,35,36,38,39,40,42,43,45:B3,6,7,8,9,11,12,13,14,16,17,18,19,22,24",
    "B:W22,26,27,28,32,33,34,36,37,38,39,41,43,44,48:B2,6,7,8,9,11,12,13,15,16,17,19,20,23,24",
    "W:W24,27,30,32,33,35,38,39,40,42,44,47:B4,8,9,10,12,13,14,16,17,19,21,26",
    "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46",
    "W:W6,7,8,9,10:B41,42,43,44,45",
    "W:W28,32,37,38,43:B9,13,14,19,23",
    "W:WK46,33:B15,K3",
];

/// The bench positions of `v`: the set above on 10x10 (read under `v`'s rules), and on 8x8 the
/// start and the positions 4, 8, ... 28 plies into one fixed line of play.
fn positions(v: Variant) -> Vec<Position> {
    if v.geometry().columns == 10 {
        return POSITIONS
            .iter()
            .map(|fen| parse_fen(fen, v).expect("bench positions are valid"))
            .collect();
    }
    let mut pos = Position::initial(v);
    let mut out = vec![pos];
    for ply in 1..=28 {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        pos = pos.play(&legal[ply % legal.len()]);
        if ply % 4 == 0 {
            out.push(pos);
        }
    }
    out
}

pub fn run(depth: u32, v: Variant, eval: &Eval) -> std::io::Result<()> {
    let mut total = 0u64;
    let mut secs = 0f64;
    let set = positions(v);
    let mut engine = Engine::new(1, 64);
    engine.set_eval(eval.clone());
    for &pos in &set {
        // Every position starts from an empty table, as a new game would.
        engine.new_game();
        let start = Instant::now();
        total += engine
            .search(&SearchRequest::position(pos, Limits::Depth(depth)), &|_| {})
            .nodes;
        secs += start.elapsed().as_secs_f64();
    }
    let kind = if eval.is_learned_for(v) {
        "learned"
    } else {
        "hand"
    };
    say!(
        "bench depth {depth} positions {} variant {v} eval {kind}",
        set.len()
    )?;
    say!("nodes {total}")?;
    say!("seconds {secs:.3}")?;
    say!("nps {:.0}", total as f64 / secs.max(1e-9))
}

/// Depth of the build signature that queue jobs carry: deep enough that a change to the search
/// shows, shallow enough to compute at every worker's and producer's start (about 0.3 s).
pub const SIGNATURE_DEPTH: u32 = 9;

/// The bench node total at [`SIGNATURE_DEPTH`] with the hand evaluation on international
/// draughts: the search's signature, without the evaluation (whose fingerprint travels apart).
#[must_use]
pub fn signature() -> u64 {
    positions(Variant::International)
        .into_iter()
        .map(|pos| {
            let mut engine = Engine::new(1, 64);
            engine.set_eval(Eval::Hand);
            engine
                .search(
                    &SearchRequest::position(pos, Limits::Depth(SIGNATURE_DEPTH)),
                    &|_| {},
                )
                .nodes
        })
        .sum()
}
