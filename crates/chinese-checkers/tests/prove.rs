//! The proof search: its lower bound never exceeds the true distance found by breadth-first
//! search, and on reduced puzzles (3 and 6 pieces) it proves the length breadth-first search finds.

use std::collections::HashMap;

use kroon_chinese_checkers::movegen::destinations;
use kroon_chinese_checkers::prove::{lower_bound, prove, Method, ProofLimits};
use kroon_chinese_checkers::solve::{replay, shortest, Puzzle};
use kroon_chinese_checkers::{Camp, Hole, Holes};

const A: Camp = Camp::ALL[0];

/// The `k` holes of the home camp nearest its tip onto the `k` of the goal camp nearest its tip.
fn small(k: usize) -> Puzzle {
    let tip_first = |c: Camp| {
        let mut v: Vec<Hole> = c.holes().iter().collect();
        v.sort_by_key(|&h| (c.forward(h), h));
        v.into_iter()
            .take(k)
            .fold(Holes::EMPTY, |acc, h| acc | h.bit())
    };
    Puzzle {
        start: tip_first(A),
        goal: tip_first(A.opposite()),
        obstacles: Holes::EMPTY,
        camp: A,
        long_hop: false,
    }
}

/// The three-piece puzzle with two pieces of another player standing in the way.
fn blocked() -> Puzzle {
    let obstacles = ["h4", "j6"]
        .iter()
        .fold(Holes::EMPTY, |acc, n| acc | Hole::parse(n).unwrap().bit());
    Puzzle {
        obstacles,
        ..small(3)
    }
}

const LIMITS: ProofLimits = ProofLimits {
    max_nodes: 50_000_000,
    table_mb: 16,
    max_moves: 60,
    perimeter: 0,
    perimeter_mb: 0,
    method: Method::Ida,
    min_moves: 0,
    threads: 1,
};

/// The layered search, with room for every position of the reduced puzzles.
const LAYERS: ProofLimits = ProofLimits {
    table_mb: 256,
    method: Method::Layers,
    threads: 2,
    ..LIMITS
};

/// The true distance to the goal of every position reachable, by breadth-first search from the
/// goal (moves are reversible: a step or a hop chain played backwards is a move too).
fn distances_to_goal(puzzle: &Puzzle) -> HashMap<u128, u32> {
    let mut dist = HashMap::new();
    dist.insert(puzzle.goal.0, 0);
    let mut frontier = vec![puzzle.goal.0];
    let mut d = 0;
    while !frontier.is_empty() {
        d += 1;
        let mut next = Vec::new();
        for &p in &frontier {
            for f in Holes(p).iter() {
                for t in destinations(Holes(p | puzzle.obstacles.0), f, false).iter() {
                    let c = p ^ f.bit().0 ^ t.bit().0;
                    dist.entry(c).or_insert_with(|| {
                        next.push(c);
                        d
                    });
                }
            }
        }
        frontier = next;
    }
    dist
}

#[test]
fn the_bound_never_exceeds_the_true_distance() {
    // Every position of the one-, two- and three-piece puzzles, and of the three-piece puzzle
    // with two pieces of another player standing in the way.
    for puzzle in [small(1), small(2), small(3), blocked()] {
        let dist = distances_to_goal(&puzzle);
        let (mut bounds, mut distances) = (0u64, 0u64);
        for (&p, &d) in &dist {
            let bound = lower_bound(&puzzle, Holes(p));
            assert!(bound <= d, "bound {bound} > distance {d} at {p:#x}");
            bounds += u64::from(bound);
            distances += u64::from(d);
        }
        // The bound is not trivial: on average it covers more than half the distance on the
        // open board (obstacles give the front and the rear stepping stones, so less there).
        eprintln!(
            "{} positions, bound / distance {bounds} / {distances}",
            dist.len()
        );
        assert!(
            !puzzle.obstacles.is_empty() || bounds * 10 > distances * 6,
            "{bounds} / {distances}"
        );
    }
    // At the start of the ten-piece puzzle: the front must climb from row -5 to row 4 (nine
    // moves) before any piece reaches the goal's rows, then ten moves bring one piece each.
    let full = Puzzle::camp_to_camp(A);
    assert_eq!(lower_bound(&full, full.start), 19);
    assert_eq!(lower_bound(&full, full.goal), 0);
}

/// The mirror image that keeps camp A's axis: (q, r, s) to (s, r, q).
fn mirror(set: u128) -> u128 {
    Holes(set).iter().fold(0, |acc, h| {
        let (_, r, s) = h.cube();
        acc | Hole::at(s, r).expect("on the star").bit().0
    })
}

#[test]
fn the_perimeter_holds_every_position_near_the_goal_at_its_distance() {
    // Its layers, counted with mirror images as one, are those of breadth-first search.
    let puzzle = small(3);
    let dist = distances_to_goal(&puzzle);
    let (depth, far) = (9, 20);
    let mut layers = vec![std::collections::HashSet::new(); far + 1];
    for (&p, &d) in &dist {
        if d as usize <= far {
            layers[d as usize].insert(p.min(mirror(p)));
        }
    }
    let expected: Vec<u64> = layers.iter().map(|l| l.len() as u64).collect();
    let proof = prove(
        &puzzle,
        ProofLimits {
            perimeter: depth as u32,
            perimeter_mb: 64,
            ..LIMITS
        },
    );
    assert_eq!(proof.perimeter_depth, depth as u32);
    assert_eq!(proof.perimeter_layers, expected[..=depth]);
    assert!(expected[depth] > 1000, "{expected:?}");
    // A memory too small for them all: the layers it completed are still exact.
    let cut = prove(
        &puzzle,
        ProofLimits {
            perimeter: far as u32,
            perimeter_mb: 1,
            ..LIMITS
        },
    );
    let complete = cut.perimeter_depth as usize;
    assert!((1..far).contains(&complete), "{complete}");
    assert_eq!(cut.perimeter_layers.len(), complete + 2);
    assert_eq!(cut.perimeter_layers[..=complete], expected[..=complete]);
    assert_eq!(cut.line.map(|l| l.len()), Some(23));
}

/// The `k`-piece puzzle with its goal the start moved `rows` rows forward (a shorter trip).
fn shifted(k: usize, rows: i8) -> Puzzle {
    let p = small(k);
    let goal = p.start.iter().fold(Holes::EMPTY, |acc, h| {
        let (q, r, _) = h.cube();
        acc | Hole::at(q, r + rows).expect("on the star").bit()
    });
    Puzzle { goal, ..p }
}

#[test]
fn the_proof_agrees_with_breadth_first_search_on_reduced_puzzles() {
    // Three pieces tip to tip (23 moves), three and six over shorter trips.
    for (k, puzzle) in [
        (1, small(1)),
        (3, small(3)),
        (3, shifted(3, 6)),
        (6, shifted(6, 2)),
    ] {
        let exact = shortest(&puzzle, 60, 20_000_000).expect("solvable");
        // Without a perimeter; then, up to three pieces, with one cut short by its memory (a
        // layer left incomplete) and with one that reaches the start; with six, four moves deep.
        let perimeters: &[(u32, usize)] = if k <= 3 {
            &[(0, 0), (40, 1), (60, 64)]
        } else {
            &[(0, 0), (4, 8)]
        };
        for &(perimeter, perimeter_mb) in perimeters {
            let limits = ProofLimits {
                perimeter,
                perimeter_mb,
                ..LIMITS
            };
            let proof = prove(&puzzle, limits);
            let line = proof.line.expect("the proof finds a line");
            assert_eq!(line.len(), exact.len(), "{k} pieces, perimeter {perimeter}");
            assert_eq!(replay(&puzzle, &line), Ok(puzzle.goal));
            assert_eq!(proof.no_line_within, Some(line.len() as u32 - 1));
            assert!(proof.nodes > 0 && proof.table_bytes > 0);
            assert!(proof.perimeter_depth <= perimeter);
        }
    }
    assert_eq!(shortest(&small(3), 60, 2_000_000).unwrap().len(), 23);
}

#[test]
fn the_layered_proof_agrees_with_breadth_first_search() {
    // Tip to tip the goal is the start turned round, and one side is searched; over the shorter
    // trips and with obstacles, both sides are.
    let puzzles = [
        small(1),
        small(2),
        small(3),
        small(4),
        shifted(3, 6),
        shifted(6, 2),
        shifted(4, 5),
        blocked(),
    ];
    for (n, puzzle) in puzzles.iter().enumerate() {
        let exact = shortest(puzzle, 60, 20_000_000).expect("solvable");
        let proof = prove(puzzle, LAYERS);
        let line = proof.line.expect("the proof finds a line");
        assert_eq!(line.len(), exact.len(), "puzzle {n}");
        assert_eq!(replay(puzzle, &line), Ok(puzzle.goal), "puzzle {n}");
        assert_eq!(proof.no_line_within, Some(line.len() as u32 - 1));
        // One iteration for each threshold from the bound up to the one before the line's.
        let thresholds: Vec<u32> = proof.iterations.iter().map(|i| i.threshold).collect();
        let expected: Vec<u32> = (proof.start_bound..line.len() as u32).collect();
        assert_eq!(thresholds, expected, "puzzle {n}");
        assert!(proof.nodes > 0 && proof.stored > 0 && proof.table_bytes > 0);
    }
}

#[test]
fn the_layered_proof_stops_at_its_memory_and_says_how_far_it_got() {
    // The ten pieces with 8 MB: the first thresholds complete, then the layers outgrow it.
    let puzzle = Puzzle::camp_to_camp(A);
    let proof = prove(
        &puzzle,
        ProofLimits {
            table_mb: 8,
            ..LAYERS
        },
    );
    assert!(proof.line.is_none());
    let within = proof.no_line_within.expect("the first iterations complete");
    assert!((20..27).contains(&within), "{within}");
    // At the start's own bound (19) every move must advance the front or bring a piece in:
    // of the 89 positions two moves out, 16 are kept.
    let first = &proof.iterations[0];
    assert_eq!(
        (first.threshold, first.layers[..3].to_vec()),
        (19, vec![1, 7, 16])
    );
}

#[test]
fn a_proof_stopped_early_says_how_far_it_got() {
    let puzzle = Puzzle::camp_to_camp(A);
    let proof = prove(
        &puzzle,
        ProofLimits {
            max_nodes: 20_000,
            ..LIMITS
        },
    );
    assert!(proof.line.is_none());
    let within = proof.no_line_within.expect("the first iterations complete");
    assert!((19..27).contains(&within), "{within}");
}
