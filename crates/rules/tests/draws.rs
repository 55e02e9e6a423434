//! The draw rules of Frisian (as pydraughts and dctl have them: 2 kings against 1, 7 moves; king
//! against king, 2 moves; no 25-move rule) and of Russian and Brazilian (FMJD-64 rules 7.2.4-7.2.8,
//! as lidraughts implements them).

use crate::common;

use common::walk_kings;
use kroon_rules::{endgame_rule, parse_fen, DrawReason, EndgameRule, Game, Outcome, Variant};

fn game(fen: &str, v: Variant) -> Game {
    Game::new(parse_fen(fen, v).unwrap())
}

fn rule(fen: &str, v: Variant) -> Option<EndgameRule> {
    endgame_rule(&parse_fen(fen, v).unwrap())
}

#[test]
fn frisian_two_kings_against_one_draw_after_seven_moves_each() {
    let mut g = game("W:WK47,K48:BK3", Variant::Frisian);
    assert_eq!(walk_kings(&mut g, 60), 14);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::Endgame(
            EndgameRule::TwoKingsAgainstOne
        )))
    );
}

#[test]
fn frisian_king_against_king_draws_after_two_moves_each() {
    let mut g = game("W:WK47:BK4", Variant::Frisian);
    assert_eq!(walk_kings(&mut g, 60), 4);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::Endgame(
            EndgameRule::KingAgainstKing
        )))
    );
}

#[test]
fn frisian_has_no_sixteen_five_or_twenty_five_move_rule() {
    assert_eq!(rule("W:WK1,K2,K3:BK50", Variant::Frisian), None);
    assert_eq!(rule("W:WK1,30:BK50", Variant::Frisian), None);
    // The FMJD rules still hold in international draughts.
    assert_eq!(
        rule("W:WK47,K48:BK3", Variant::International),
        Some(EndgameRule::Five)
    );
    // 2 kings each: 28 moves each of kings alone, and no draw.
    let mut g = game("W:WK46,K47:BK4,K5", Variant::Frisian);
    assert_eq!(walk_kings(&mut g, 56), 56);
    assert_eq!(g.king_plies(), 56);
    assert_eq!(g.outcome(), None);
}

#[test]
fn russian_endgame_rules_and_the_material_they_cover() {
    let v = Variant::Russian;
    // 7.2.4: three kings or more against one.
    assert_eq!(
        rule("W:WKc1,Ke1,Kg1:BKb8", v),
        Some(EndgameRule::ThreeKings)
    );
    assert_eq!(
        rule("W:WKc1,Ke1,Kg1,Ka3:BKb8", v),
        Some(EndgameRule::ThreeKings)
    );
    // 7.2.7: three pieces with a king against a lone king alone on the main road.
    assert_eq!(rule("W:WKc1,Ke1,Kg1:BKd4", v), Some(EndgameRule::MainRoad));
    assert_eq!(rule("W:WKc1,e3,g3:BKd4", v), Some(EndgameRule::MainRoad));
    // ... but not when the strong side stands on the road too: then the balance rule.
    assert_eq!(
        rule("W:WKc1,e3,Ka1:BKd4", v),
        Some(EndgameRule::Balance {
            men: [1, 0],
            kings: [2, 1]
        })
    );
    // 7.2.8: two pieces with a king, or a king, against a lone king.
    assert_eq!(rule("W:WKc1,Ke1:BKb8", v), Some(EndgameRule::Five));
    assert_eq!(rule("W:WKc1,e3:BKb8", v), Some(EndgameRule::Five));
    // 7.2.6: both sides have kings, 4 to 7 pieces: 30 or 60 moves.
    let r = rule("W:WKc1,e3:BKb8,h6", v).unwrap();
    assert_eq!(r.plies(), 60);
    let r = rule("W:WKc1,e3,a3:BKb8,h6,f6,d6", v).unwrap();
    assert_eq!(r.plies(), 120);
    assert_eq!(rule("W:WKc1,e3,a3,c3:BKb8,h6,f6,d6", v), None);
    assert_eq!(rule("W:Wc1,e3:Bb8,h6", v), None);
    assert_eq!(
        rule("W:WKc1,Ke1:BKb8", Variant::Brazilian),
        Some(EndgameRule::Five)
    );
}

#[test]
fn russian_three_kings_against_one_draw_after_fifteen_moves() {
    let mut g = game("W:WKc1,Ke1,Kg1:BKb8", Variant::Russian);
    assert_eq!(walk_kings(&mut g, 60), 30);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::Endgame(EndgameRule::ThreeKings)))
    );
}

#[test]
fn russian_two_kings_against_one_draw_after_five_moves() {
    let mut g = game("W:WKc1,Ke1:BKb8", Variant::Russian);
    assert_eq!(walk_kings(&mut g, 60), 10);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::Endgame(EndgameRule::Five)))
    );
}

#[test]
fn russian_fifteen_moves_of_kings_alone_draw() {
    // Two kings each: the balance rule would allow 30 moves, the king-move rule only 15.
    let mut g = game("W:WKc1,Ke1:BKb8,Kd8", Variant::Brazilian);
    assert_eq!(walk_kings(&mut g, 60), 30);
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::KingMoves)));
}

#[test]
fn a_capture_starts_the_count_again() {
    // 3 kings against 2 in Russian: after the capture, 3 against 1 counts from 0 (7.2.4: "from
    // the moment the balance of forces was established").
    let mut g = game("W:WKc1,Ke1,Kg1:BKb8,d2", Variant::Russian);
    let mv = g.position().legal_moves()[0];
    assert!(mv.is_capture());
    g.play(&mv).unwrap();
    assert_eq!(g.endgame_plies(), 0);
}
