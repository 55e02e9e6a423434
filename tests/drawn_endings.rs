//! Games from drawn endings of two or three pieces against a lone king (the endgame tables say
//! drawn), Kroon on both sides, against an opponent that never claims and never accepts a draw:
//! Kroon must lose none. Kroon plays by its own count; when its count ends the game, it claims
//! the draw, the opponent plays on, and Kroon plays on with the rule waived, as over DXP.
//!
//! Kroon plays with its endgame tables (it builds those up to 4 pieces by itself on first use),
//! the opponent without them.
//!
//! `KROON_DRAWN_ENDINGS=N` plays N games (default 10); `scripts/drawn-endings.sh` plays 100.
//! The games are not part of the suite (whole games at 40,000 nodes a move); the one-position
//! test below is.

use kroon_egdb::search::SearchTables;
use kroon_egdb::{build, Material, Tables, Value};
use kroon_rules::hash::SplitMix64;
use kroon_rules::{Colour, Game, Outcome, Position, Variant};
use kroon_search::{Engine, Limits, SearchRequest};
use std::sync::Arc;

/// The slices of the endings played: two or three pieces against a lone king, either side to move.
const SLICES: [&str; 5] = ["3K-1K", "2K1M-1K", "1K2M-1K", "2K-1K", "1K1M-1K"];

/// Nodes per move, both sides.
const NODES: u64 = 40_000;

/// Plies after which a game is stopped (a draw in fact: neither side can win any more).
const PLIES: usize = 120;

/// A random position of `material` (strong side's kings and men against a lone king), with
/// `strong` the strong side's colour and `turn` to move; `None` when the draw puts a man on its
/// crowning row or a capture is pending.
fn random_ending(
    rng: &mut SplitMix64,
    kings: u32,
    men: u32,
    strong: Colour,
    turn: Colour,
) -> Option<Position> {
    let mut fields: Vec<u32> = Vec::new();
    while fields.len() < (kings + men + 1) as usize {
        let f = 1 + rng.below(50) as u32;
        if !fields.contains(&f) {
            fields.push(f);
        }
    }
    let side = |c: Colour| if c == Colour::White { 'W' } else { 'B' };
    let mut strong_items: Vec<String> = Vec::new();
    for (i, f) in fields[..(kings + men) as usize].iter().enumerate() {
        if i < kings as usize {
            strong_items.push(format!("K{f}"));
        } else {
            // A man on its own crowning row cannot be.
            let crowning = if strong == Colour::White {
                *f <= 5
            } else {
                *f >= 46
            };
            if crowning {
                return None;
            }
            strong_items.push(f.to_string());
        }
    }
    let lone = format!("K{}", fields[(kings + men) as usize]);
    let (white, black) = if strong == Colour::White {
        (strong_items.join(","), lone)
    } else {
        (lone, strong_items.join(","))
    };
    let fen = format!("{}:W{white}:B{black}", side(turn));
    let pos = kroon_rules::parse_fen(&fen, Variant::International).ok()?;
    (!kroon_rules::has_capture(&pos)).then_some(pos)
}

fn material_of(pos: &Position, c: Colour) -> (u32, u32) {
    let p = pos.pieces(c);
    ((p & pos.kings()).count(), (p & pos.men()).count())
}

#[test]
#[ignore = "a long run of games: scripts/drawn-endings.sh"]
fn kroon_loses_no_drawn_ending_to_an_opponent_that_plays_on() {
    let games: usize = std::env::var("KROON_DRAWN_ENDINGS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    let dir = std::env::temp_dir().join(format!("kroon-drawn-endings-{}", std::process::id()));
    let wanted: Vec<Material> = SLICES.iter().map(|s| s.parse().unwrap()).collect();
    build::build(
        &build::Plan::materials(&wanted),
        &dir,
        &build::Options::default(),
        &|_| {},
    )
    .expect("build the tables of the endings");
    let tables = Tables::open(&dir).unwrap();

    let mut rng = SplitMix64(0x4b72_6f6f_6e21);
    let shapes = [(3, 0), (2, 1), (1, 2), (2, 0), (1, 1)];
    let mut kroon_engine = Engine::new(1, 16);
    kroon_engine.set_tables(Some(Arc::new(SearchTables::new(
        Tables::open(&dir).unwrap(),
    ))));
    let opponent_engine = Engine::new(1, 16);
    let mut claims = 0;
    let mut played = 0;
    while played < games {
        let (kings, men) = shapes[played % shapes.len()];
        let strong = if rng.below(2) == 0 {
            Colour::White
        } else {
            Colour::Black
        };
        let turn = if rng.below(2) == 0 {
            Colour::White
        } else {
            Colour::Black
        };
        let Some(start) = random_ending(&mut rng, kings, men, strong, turn) else {
            continue;
        };
        if tables.probe(&start).map(|p| p.value) != Some(Value::Draw) {
            continue;
        }
        // Kroon takes the strong side in even games, the lone king in odd ones.
        let kroon = if played % 2 == 0 { strong } else { !strong };
        let mut kroon_game = Game::new(start);
        let mut opponent_game = Game::new(start);
        for reason in [
            kroon_rules::DrawReason::Repetition,
            kroon_rules::DrawReason::KingMoves,
            kroon_rules::DrawReason::Endgame(kroon_rules::EndgameRule::Five),
        ] {
            opponent_game.waive(reason);
        }
        while kroon_game.moves().len() < PLIES {
            let pos = *kroon_game.position();
            if pos.legal_moves().is_empty() {
                break;
            }
            // Kroon's count ends the game: it claims, the opponent plays on, the rule goes.
            if let Some(Outcome::Draw(reason)) = kroon_game.outcome() {
                kroon_game.waive(reason);
                claims += 1;
                continue;
            }
            let (engine, game) = if pos.turn() == kroon {
                (&kroon_engine, &kroon_game)
            } else {
                (&opponent_engine, &opponent_game)
            };
            let req = SearchRequest {
                game: game.clone(),
                limits: Limits::Nodes(NODES),
                ponder: false,
            };
            let mv = engine.search(&req, &|_| {}).best.expect("a legal move");
            kroon_game.play(&mv).unwrap();
            opponent_game.play(&mv).unwrap();
        }
        let end = kroon_game.position();
        let kroon_lost = end.turn() == kroon && end.legal_moves().is_empty();
        assert!(
            !kroon_lost,
            "game {played} from {} (Kroon {kroon:?}) lost: material {:?} against {:?}, moves {:?}",
            kroon_rules::write_fen(&start),
            material_of(end, kroon),
            material_of(end, !kroon),
            kroon_game
                .moves()
                .iter()
                .map(|m| kroon_rules::notation::long(m, Variant::International))
                .collect::<Vec<_>>()
        );
        played += 1;
    }
    std::fs::remove_dir_all(&dir).ok();
    println!("{played} drawn endings played, {claims} draw claims played on, none lost");
}

#[test]
fn the_end_of_a_count_does_not_hide_a_table_loss_behind_it() {
    // Three kings against a king off the long diagonal, White to move: 2-8, 2-30 and 2-35 hold the
    // draw, 2-7 and 2-16 lose to a king sacrifice. With the count about to run out (or run out),
    // every move "draws" by Kroon's count, but an opponent that counts otherwise plays on, so
    // Kroon must still pick a move the tables call drawn. A position Kroon once lost that way.
    let dir = std::env::temp_dir().join(format!("kroon-count-end-{}", std::process::id()));
    let wanted: Vec<Material> = vec!["3K-1K".parse().unwrap()];
    build::build(
        &build::Plan::materials(&wanted),
        &dir,
        &build::Options::default(),
        &|_| {},
    )
    .expect("build the tables of the ending");
    let tables = Tables::open(&dir).unwrap();
    let mut engine = Engine::new(1, 8);
    engine.set_tables(Some(Arc::new(SearchTables::new(
        Tables::open(&dir).unwrap(),
    ))));
    let pos = kroon_rules::parse_fen("W:WK2:BK23,K27,K33", Variant::International).unwrap();
    let losing: Vec<_> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| matches!(tables.probe(&pos.play(m)).unwrap().value, Value::Win(_)))
        .copied()
        .collect();
    assert!(
        !losing.is_empty() && losing.len() < pos.legal_moves().len(),
        "a real choice"
    );
    let rule = kroon_rules::endgame_rule(&pos).expect("an endgame rule");
    for plies in [
        rule.plies() - 2,
        rule.plies() - 1,
        rule.plies(),
        rule.plies() + 5,
    ] {
        let req = SearchRequest {
            game: Game::resume(pos, 0, plies),
            limits: Limits::Nodes(40_000),
            ponder: false,
        };
        let best = engine.search(&req, &|_| {}).best.expect("a move");
        assert!(
            !losing.contains(&best),
            "after {plies} plies of the count: {} loses",
            kroon_rules::notation::long(&best, Variant::International)
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
