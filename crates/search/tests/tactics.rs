//! Tactical test suite: named shots (coup Philippe, coup royal, coup Napoléon, ...), breakthroughs
//! and king traps from `data/tactics.txt`. Each position is searched on one thread with a fresh
//! table under a node budget; the test counts how many key moves the search finds and fails when
//! that count drops below a threshold measured on this suite.
//!
//! Run with `cargo test --release -p kroon-search --test integration -- tactics:: --nocapture` to
//! see the per-position report. `KROON_TACTICS_NODES=n` overrides the node budget (for measuring).

use kroon_rules::{notation, parse_fen, parse_move, Colour, Move, Position, Variant};
use kroon_search::{Engine, Eval, Limits, SearchRequest};
use std::time::Instant;

/// Nodes per position: the whole suite takes a few seconds in release mode.
const BUDGET: u64 = 100_000;
/// Positions that must be solved at `BUDGET`. Measured with `Engine::new(1, 16)`: 38 of 38 at
/// 100k nodes, with the crowning quiescence and the probe cut; the learned evaluation also 38.
/// Two misses are tolerated so that a change in move ordering alone does not fail the test.
const MIN_SOLVED: usize = 36;

/// One record of `tactics.txt`.
struct Case {
    /// The first field of the comment above the record.
    name: String,
    /// Line of the `fen` line, for messages.
    line: usize,
    pos: Position,
    /// Any of these moves solves the position.
    best: Vec<Move>,
}

fn load() -> Vec<Case> {
    let text = include_str!("data/tactics.txt");
    let mut cases = Vec::new();
    let mut name = String::new();
    let mut pending: Option<(usize, Position)> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let raw = raw.trim();
        if raw.is_empty() {
            continue;
        }
        if let Some(comment) = raw.strip_prefix('#') {
            // `# name | source | why`: other comment lines carry no `|`.
            if let Some((first, _)) = comment.split_once('|') {
                name = first.trim().to_owned();
            }
            continue;
        }
        let (key, rest) = raw.split_once(' ').unwrap_or((raw, ""));
        match key {
            "fen" => {
                assert!(pending.is_none(), "line {line}: fen without best");
                let pos = parse_fen(rest.trim(), Variant::International)
                    .unwrap_or_else(|e| panic!("line {line}: bad fen: {e}"));
                pending = Some((line, pos));
            }
            "best" => {
                let (fen_line, pos) = pending
                    .take()
                    .unwrap_or_else(|| panic!("line {line}: best without fen"));
                let best: Vec<Move> = rest
                    .split_whitespace()
                    .map(|m| {
                        parse_move(&pos, m).unwrap_or_else(|e| panic!("line {line}: move {m}: {e}"))
                    })
                    .collect();
                assert!(!best.is_empty(), "line {line}: no best move");
                cases.push(Case {
                    name: std::mem::take(&mut name),
                    line: fen_line,
                    pos,
                    best,
                });
            }
            other => panic!("line {line}: unknown key `{other}`"),
        }
    }
    assert!(pending.is_none(), "a fen at the end has no best line");
    cases
}

fn budget() -> u64 {
    std::env::var("KROON_TACTICS_NODES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(BUDGET)
}

#[test]
fn suite_is_well_formed() {
    let cases = load();
    assert!(cases.len() >= 30, "only {} positions", cases.len());
    for c in &cases {
        assert!(!c.name.is_empty(), "line {}: no name", c.line);
        assert!(
            c.pos.legal_moves().len() > 1,
            "line {}: a single legal move is no test",
            c.line
        );
    }
    let white = cases
        .iter()
        .filter(|c| c.pos.turn() == Colour::White)
        .count();
    assert!(white > 0 && white < cases.len(), "both sides must move");
}

#[test]
fn tactics_solved_within_budget_by_the_hand_evaluation() {
    suite(&Eval::Hand, "hand");
}

#[test]
fn tactics_solved_within_budget_by_the_learned_evaluation() {
    let weights = kroon_search::eval::embedded_for(Variant::International)
        .expect("embedded international weights");
    suite(&Eval::Learned(weights), "learned");
}

fn suite(eval: &Eval, label: &str) {
    let cases = load();
    let nodes = budget();
    let start = Instant::now();
    let mut solved = 0;
    let mut failed = Vec::new();
    for c in &cases {
        let mut engine = Engine::new(1, 16);
        engine.set_eval(eval.clone());
        let req = SearchRequest::position(c.pos, Limits::Nodes(nodes));
        let res = engine.search(&req, &|_| {});
        let v = c.pos.variant();
        let got = res
            .best
            .map_or_else(|| "none".to_owned(), |m| notation::short(&m, v));
        let want: Vec<String> = c.best.iter().map(|m| notation::short(m, v)).collect();
        let ok = res.best.is_some_and(|m| c.best.contains(&m));
        println!(
            "{:4} {:<44} want {:<12} got {:<8} depth {:>2} score {:>6} nodes {:>8}",
            if ok { "ok" } else { "MISS" },
            c.name,
            want.join(" "),
            got,
            res.depth,
            res.score,
            res.nodes
        );
        if ok {
            solved += 1;
        } else {
            failed.push(format!("{} (line {})", c.name, c.line));
        }
    }
    println!(
        "tactics, {label} evaluation: solved {solved} of {} within {nodes} nodes ({:.1} s)",
        cases.len(),
        start.elapsed().as_secs_f64()
    );
    if !failed.is_empty() {
        println!("missed: {}", failed.join(", "));
    }
    assert!(
        solved >= MIN_SOLVED,
        "solved {solved} of {}, expected at least {MIN_SOLVED}; missed: {}",
        cases.len(),
        failed.join(", ")
    );
}
