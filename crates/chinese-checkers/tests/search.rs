//! The searches: they find a move that finishes, prefer hop ladders to steps, answer for every
//! player count, and the greedy player takes the longest gain.

use kroon_chinese_checkers::mcts::{Mcts, MctsConfig};
use kroon_chinese_checkers::search::{greedy, Algorithm, Limit, Searcher};
use kroon_chinese_checkers::{Camp, Hole, Holes, Position};

const A: Camp = Camp::ALL[0];
const C: Camp = Camp::ALL[2];
const D: Camp = Camp::ALL[3];
const E: Camp = Camp::ALL[4];

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

/// Round 30, A to move. A's last piece at home stands on its camp's tip, walled in by five of
/// D's pieces; the others of both stand in the middle. When `d_short`, A's tenth piece is out
/// too, and D keeps two pieces at the mouth of its own camp instead: one move cannot bring both
/// out before the round ends.
fn walled_in(d_short: bool) -> Position {
    let bits = |it: &mut dyn Iterator<Item = Hole>| Holes(it.fold(0, |acc, h| acc | h.bit().0));
    let tip = A.holes().iter().find(|&h| A.forward(h) == -8).unwrap();
    let wall = bits(
        &mut A
            .holes()
            .iter()
            .filter(|&h| (-7..=-6).contains(&A.forward(h))),
    );
    assert_eq!(wall.count(), 5);
    let mut middle = Holes::ALL
        .iter()
        .filter(|&h| (-2..=2).contains(&A.forward(h)) && A.lateral(h) <= 4);
    let a = bits(&mut middle.by_ref().take(9));
    let (a, d) = if d_short {
        let mouth = bits(&mut D.holes().iter().filter(|&h| D.forward(h) == -5).take(2));
        (
            a | middle.next().unwrap().bit(),
            wall | mouth | bits(&mut middle.take(3)),
        )
    } else {
        (a | tip.bit(), wall | bits(&mut middle.take(5)))
    };
    Position::setup(&[(A, a), (D, d)], A).in_round(30)
}

#[test]
fn the_search_sees_the_anti_blocking_rule_within_its_horizon() {
    // A cannot bring its last piece out before the round ends: lost, whatever it plays.
    let pos = walled_in(false);
    assert_eq!(pos.outside_home(A), 9);
    let r = Searcher::new(4).search(&pos, Limit::Depth(2), &mut |_| {});
    assert!(r.score < -900_000, "score {}", r.score);
    // D brings only one of its two pieces out before the round ends: A has won.
    let pos = walled_in(true);
    assert_eq!((pos.outside_home(A), pos.outside_home(D)), (10, 8));
    let r = Searcher::new(4).search(&pos, Limit::Depth(2), &mut |_| {});
    assert!(r.score > 900_000, "score {}", r.score);
}

/// The three multi-player searchers: best-reply, paranoid, and Monte Carlo (by iterations).
fn each_player(pos: &Position) -> Vec<(&'static str, Option<kroon_chinese_checkers::Move>)> {
    let depth = Limit::Depth(3);
    vec![
        ("brs", Searcher::new(4).search(pos, depth, &mut |_| {}).best),
        (
            "paranoid",
            Searcher::with_algorithm(4, Algorithm::Paranoid)
                .search(pos, depth, &mut |_| {})
                .best,
        ),
        (
            "mcts",
            Mcts::new(MctsConfig::default())
                .search(pos, Limit::Nodes(4000))
                .best,
        ),
    ]
}

/// Whether A, to move, can fill its goal with one move.
fn finishes_now(pos: &Position) -> bool {
    pos.legal_moves()
        .into_iter()
        .any(|m| pos.play(m).has_finished(A))
}

#[test]
fn every_player_takes_a_one_move_finish() {
    // Two players: the finishing hop over D's piece.
    let pos = race();
    for (name, mv) in each_player(&pos) {
        assert!(pos.play(mv.unwrap()).has_finished(A), "{name}");
    }
    // Three players: nine pieces home and the tenth a step short; C and E at home.
    let gap = at(-1, 5);
    let a = Holes(D.holes().0 & !gap.bit().0) | at(-1, 4).bit();
    let pos = Position::setup(&[(A, a), (C, C.holes()), (E, E.holes())], A);
    assert!(finishes_now(&pos));
    for (name, mv) in each_player(&pos) {
        assert!(pos.play(mv.unwrap()).has_finished(A), "{name}");
    }
}

#[test]
fn every_player_keeps_a_two_move_finish() {
    // Eight pieces home; two holes of the goal's mouth are empty, each with one of A's pieces a
    // step outside it. D has nine pieces in A's camp and the tenth in the centre, too far to
    // interfere. A wins in two moves only by filling one of the two holes now.
    let mouth: Vec<Hole> = D.holes().iter().filter(|&h| A.forward(h) == 5).collect();
    let (g1, g2) = (mouth[0], mouth[mouth.len() - 1]);
    let outside = |g: Hole| {
        (0..6)
            .filter_map(|d| g.step(d))
            .find(|&h| A.forward(h) == 4)
            .unwrap()
    };
    let a = Holes(D.holes().0 & !g1.bit().0 & !g2.bit().0) | outside(g1).bit() | outside(g2).bit();
    let tip = A.holes().iter().find(|&h| A.forward(h) == -8).unwrap();
    let d = Holes(A.holes().0 & !tip.bit().0) | Hole::parse("i5").unwrap().bit();
    let pos = Position::setup(&[(A, a), (D, d)], A);
    assert!(!pos.is_over() && !finishes_now(&pos));
    for (name, mv) in each_player(&pos) {
        let after = pos.play(mv.unwrap());
        let next = after.play(greedy(&after).unwrap());
        assert!(finishes_now(&next), "{name}: {}", mv.unwrap());
    }
}

#[test]
fn paranoid_sees_the_anti_blocking_rule() {
    let pos = walled_in(false);
    let mut s = Searcher::with_algorithm(4, Algorithm::Paranoid);
    let r = s.search(&pos, Limit::Depth(2), &mut |_| {});
    assert!(r.score < -900_000, "score {}", r.score);
    let pos = walled_in(true);
    let r = s.search(&pos, Limit::Depth(2), &mut |_| {});
    assert!(r.score > 900_000, "score {}", r.score);
}
