//! The searches: they find a move that finishes, prefer hop ladders to steps, answer for every
//! player count, and the greedy player takes the longest gain.

use kroon_chinese_checkers::search::{greedy, Limit, Searcher};
use kroon_chinese_checkers::{Camp, Hole, Holes, Position};

const A: Camp = Camp::ALL[0];
const D: Camp = Camp::ALL[3];

fn at(q: i8, r: i8) -> Hole {
    Hole::at(q, r).unwrap()
}

/// A has nine pieces home in D's camp; the tenth, two rows short, finishes only by hopping over
/// D's piece at the camp's mouth. D holds nine holes of A's camp.
fn race() -> Position {
    let gap = at(-1, 5);
    let a = Holes(D.holes().0 & !gap.bit().0) | at(-1, 3).bit();
    let d = Holes(A.holes().0 & !at(1, -5).bit().0) | at(-1, 4).bit();
    Position::setup(&[(A, a), (D, d)], A)
}

#[test]
fn the_search_takes_the_finishing_hop() {
    let pos = race();
    assert!(!pos.is_over());
    let mut s = Searcher::new(4);
    for limit in [Limit::Depth(1), Limit::Depth(3), Limit::Nodes(5000)] {
        let r = s.search(&pos, limit, &mut |_| {});
        let mv = r.best.unwrap();
        assert!(pos.play(mv).has_finished(A), "{limit:?}: {mv}");
    }
}

#[test]
fn every_player_count_gets_a_legal_move() {
    for n in 2..=6 {
        let pos = Position::start(n).unwrap();
        let mut s = Searcher::new(4);
        let r = s.search(&pos, Limit::Depth(2), &mut |_| {});
        let mv = r.best.unwrap();
        assert!(pos.is_legal(mv), "{n} players: {mv}");
        assert_eq!(r.depth, 2);
        // The opening move of every searcher gains ground.
        assert!(A.forward(mv.to) > A.forward(mv.from), "{n} players: {mv}");
    }
}

#[test]
fn greedy_takes_the_longest_gain() {
    let pos = Position::start(2).unwrap();
    let mv = greedy(&pos).unwrap();
    // From the start the longest gain is a hop over the front row: two rows.
    assert_eq!(A.forward(mv.to) - A.forward(mv.from), 2);
    let best = pos
        .legal_moves()
        .iter()
        .map(|m| A.forward(m.to) - A.forward(m.from))
        .max()
        .unwrap();
    assert_eq!(best, 2);
}
