//! The solitaire: the stored 27-move line replays legally and fills the goal; the beam search
//! matches an exhaustive search on small puzzles. The full 27-move search runs in
//! `solver_finds_27_moves` (ignored: about ten seconds; scripts/chinese-solve.sh runs it).

use kroon_chinese_checkers::solve::{beam, replay, shortest, Puzzle};
use kroon_chinese_checkers::{Camp, Hole, Holes, Move};

const A: Camp = Camp::ALL[0];

/// A 27-move solution found by `kroon chinese solve`, kept to pin the replay.
const SOLUTION_27: &str = include_str!("data/solitaire-27.txt");

fn parse_line(text: &str) -> Vec<Move> {
    text.split_whitespace()
        .filter(|t| !t.ends_with('.'))
        .map(|t| {
            let (f, to) = t.split_once('-').expect("from-to");
            Move {
                from: Hole::parse(f).unwrap(),
                to: Hole::parse(to).unwrap(),
            }
        })
        .collect()
}

#[test]
fn stored_solution_replays_and_fills_the_goal() {
    let puzzle = Puzzle::camp_to_camp(A);
    let moves = parse_line(
        SOLUTION_27
            .lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join(" ")
            .as_str(),
    );
    assert_eq!(moves.len(), 27);
    assert_eq!(replay(&puzzle, &moves), Ok(A.opposite().holes()));
    // A broken line is caught: swap two moves.
    let mut bad = moves.clone();
    bad.swap(0, 5);
    assert_ne!(replay(&puzzle, &bad), Ok(A.opposite().holes()));
}

/// The `k` holes of the goal camp nearest its tip, and the `k` of the home camp nearest its tip.
fn small(k: usize) -> Puzzle {
    let tip_first = |c: Camp, forward: fn(Camp, Hole) -> i8| {
        let mut v: Vec<Hole> = c.holes().iter().collect();
        v.sort_by_key(|&h| forward(c, h));
        v.into_iter()
            .take(k)
            .fold(Holes::EMPTY, |acc, h| acc | h.bit())
    };
    Puzzle {
        start: tip_first(A, |c, h| c.forward(h)),
        goal: tip_first(A.opposite(), |c, h| c.forward(h)),
        obstacles: Holes::EMPTY,
        camp: A,
        long_hop: false,
    }
}

#[test]
fn beam_matches_exhaustive_search_on_small_puzzles() {
    for k in [1, 3] {
        let puzzle = small(k);
        let exact = shortest(&puzzle, 40, 2_000_000).expect("small puzzles are solvable");
        let found = beam(&puzzle, 2000, 40).expect("beam finds a line");
        assert_eq!(found.len(), exact.len(), "{k} pieces");
        assert_eq!(replay(&puzzle, &found), Ok(puzzle.goal));
        assert_eq!(replay(&puzzle, &exact), Ok(puzzle.goal));
    }
    // One piece alone can only step: sixteen rows.
    assert_eq!(shortest(&small(1), 40, 10_000).unwrap().len(), 16);
}

#[test]
#[ignore = "about ten seconds; scripts/chinese-solve.sh"]
fn solver_finds_27_moves() {
    let puzzle = Puzzle::camp_to_camp(A);
    let moves = beam(&puzzle, 10_000, 40).unwrap();
    assert_eq!(moves.len(), 27);
    assert_eq!(replay(&puzzle, &moves), Ok(A.opposite().holes()));
}

#[test]
fn two_player_lines_are_games_the_target_wins() {
    // Each side as the one that finishes: the line is a legal game from the start, the sides
    // alternating (A first), and it ends when the target has filled its goal, not before.
    for target in [A, Camp::ALL[3]] {
        let moves = kroon_chinese_checkers::solve::beam_two(target, 300, 60)
            .unwrap_or_else(|| panic!("{target}: no line"));
        let mut pos = kroon_chinese_checkers::Position::start(2).unwrap();
        for (i, &mv) in moves.iter().enumerate() {
            assert!(!pos.is_over(), "{target}: over before move {i}");
            assert!(pos.is_legal(mv), "{target}: move {i} {mv}");
            pos = pos.play(mv);
        }
        assert!(pos.has_finished(target), "{target}");
        // The target moves on the last move: A on odd-numbered totals, D on even.
        assert_eq!(
            moves.len() % 2 == 1,
            target == A,
            "{target}: {}",
            moves.len()
        );
        // Bell's shortest game is 30 moves; nothing can beat it.
        assert!(moves.len() >= 29, "{target}: {}", moves.len());
    }
}
