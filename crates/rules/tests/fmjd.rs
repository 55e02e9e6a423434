//! Rule tests, one per FMJD article they pin down, each with the exact legal set.

use crate::common;

use common::walk_kings;
use kroon_rules::{
    endgame_rule, notation, parse_fen, parse_move, DrawReason, EndgameRule, Game, Outcome, Variant,
};

fn legal(fen: &str) -> Vec<String> {
    let pos = parse_fen(fen, Variant::International).unwrap();
    let mut v: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|m| notation::long(m, pos.variant()))
        .collect();
    v.sort();
    v
}

fn assert_legal(fen: &str, want: &[&str]) {
    let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(legal(fen), want, "{fen}");
}

#[test] // FMJD 3.5: a man moves one square diagonally forward
fn art_3_5_men_move_forward_only() {
    assert_legal("W:W33:B1", &["33-28", "33-29"]);
    assert_legal("B:W50:B18", &["18-22", "18-23"]);
    assert_legal("W:W36:B1", &["36-31"]);
}

#[test] // FMJD 3.9: a king moves any distance along a free diagonal
fn art_3_9_king_slides_until_blocked() {
    assert_legal(
        "W:WK46:B5",
        &[
            "46-41", "46-37", "46-32", "46-28", "46-23", "46-19", "46-14", "46-10",
        ],
    );
}

#[test] // FMJD 4.1: capturing is compulsory
fn art_4_1_capture_is_compulsory() {
    assert_legal("W:W32,38:B27", &["32x21x27"]);
}

#[test] // FMJD 4.2: a man captures backwards too
fn art_4_2_man_captures_backwards() {
    assert_legal("W:W22:B28", &["22x33x28"]);
}

#[test] // FMJD 4.3: a king captures at a distance and lands on any free square beyond
fn art_4_3_king_captures_at_a_distance() {
    assert_legal(
        "W:WK46:B28",
        &["46x23x28", "46x19x28", "46x14x28", "46x10x28", "46x5x28"],
    );
}

#[test] // FMJD 4.5: a capture goes on while there are pieces to take
fn art_4_5_multiple_capture() {
    assert_legal("W:W28:B23,13", &["28x8x13x23"]);
}

#[test] // FMJD 4.8: the capture that takes the most pieces is compulsory
fn art_4_8_majority_rule() {
    assert_legal("W:W32,42:B27,37", &["42x22x27x37"]);
}

#[test] // FMJD 4.9: a king counts as one piece; there is no precedence of kings
fn art_4_9_king_counts_as_one_piece() {
    assert_legal("W:W32,33:BK27,29", &["32x21x27", "33x24x29"]);
}

#[test] // FMJD 4.11: a piece is jumped only once and stays on the board until the capture ends
fn art_4_11_captured_pieces_block_until_the_end() {
    // The king takes 28 and 19 via 23/14 but cannot take 28 again; the paths through the circuit end
    // where the remaining pieces block, not by jumping a taken piece twice.
    let moves = legal("W:WK46:B28,19,18,29");
    for m in &moves {
        let caps: Vec<&str> = m.split('x').skip(2).collect();
        let mut uniq = caps.clone();
        uniq.sort();
        uniq.dedup();
        assert_eq!(uniq.len(), caps.len(), "{m}");
    }
    assert!(!moves.is_empty());
}

#[test] // FMJD 4.13 / 5.1: a man that passes the far row during a capture and leaves it stays a man
fn art_5_1_promotion_only_at_the_end_of_the_move() {
    let pos = parse_fen("W:W13:B8,7", Variant::International).unwrap();
    let mv = parse_move(&pos, "13x11").unwrap();
    assert!(!mv.promotes);
    let next = pos.play(&mv);
    assert!(next.kings().is_empty());
    let pos = parse_fen("W:W13:B8", Variant::International).unwrap();
    let mv = parse_move(&pos, "13x2").unwrap();
    assert!(mv.promotes);
    assert_eq!(pos.play(&mv).kings().count(), 1);
}

#[test] // Duplicates: paths over the same pieces from the same square to the same square are one move
fn two_paths_over_the_same_pieces_are_one_move() {
    assert_legal(
        "W:WK6,K29:B43,33,7,11,34,26,24,32",
        &[
            "6x37x11x24x32x33x34",
            "6x41x11x24x32x33x34",
            "6x46x11x24x32x33x34",
        ],
    );
}

#[test] // FMJD 6.1: the third occurrence of a position is a draw
fn art_6_1_threefold_repetition() {
    let mut g = Game::new(parse_fen("W:WK46:BK1", Variant::International).unwrap());
    for _ in 0..2 {
        for t in ["46-41", "1-7", "41-46", "7-1"] {
            assert_eq!(g.outcome(), None);
            let mv = parse_move(g.position(), t).unwrap();
            g.play(&mv).unwrap();
        }
    }
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
}

#[test] // FMJD 6.2: 25 moves each of kings only, without capture
fn art_6_2_twenty_five_king_moves() {
    let mut g = Game::new(parse_fen("W:WK47,K48:BK3,K4", Variant::International).unwrap());
    assert_eq!(walk_kings(&mut g, 60), 50);
    assert_eq!(g.king_plies(), 50);
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::KingMoves)));
}

#[test] // FMJD 6.3 and 6.4: the endgame rules and which material they cover
fn art_6_3_and_6_4_endgame_rules() {
    let rule = |fen| endgame_rule(&parse_fen(fen, Variant::International).unwrap());
    assert_eq!(rule("W:WK1,K2,K3:BK50"), Some(EndgameRule::Sixteen));
    assert_eq!(rule("W:WK1,K2,30:BK50"), Some(EndgameRule::Sixteen));
    assert_eq!(rule("W:WK1,30,31:BK50"), Some(EndgameRule::Sixteen));
    assert_eq!(rule("B:WK1,K2:BK50"), Some(EndgameRule::Five));
    assert_eq!(rule("W:WK1,30:BK50"), Some(EndgameRule::Five));
    assert_eq!(rule("W:WK1:BK50"), Some(EndgameRule::Five));
    assert_eq!(rule("W:WK50:BK1,K2,K3"), Some(EndgameRule::Sixteen));
    assert_eq!(rule("W:WK1,K2,K3,K4:BK50"), None);
    assert_eq!(rule("W:W30,31,32:BK50"), None);
    assert_eq!(rule("W:WK1,K2:B45"), None);
}

#[test] // FMJD 6.4: five moves each in two kings against one
fn art_6_4_five_moves_in_two_kings_against_one() {
    let mut g = Game::new(parse_fen("W:WK47,K48:BK3", Variant::International).unwrap());
    assert_eq!(walk_kings(&mut g, 60), 10);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::Endgame(EndgameRule::Five)))
    );
}

/// Plays `moves` (Hub-style "a-b" texts) in `g`, checking that the game is not over before each.
fn play_all(g: &mut Game, moves: &[&str]) {
    for t in moves {
        assert_eq!(g.outcome(), None, "over before {t}");
        let mv = parse_move(g.position(), t).unwrap();
        g.play(&mv).unwrap();
    }
}

#[test] // FMJD 6.4: "after both players have each played 5 moves": 10 plies, whoever starts
fn art_6_4_both_sides_play_their_five_moves() {
    // White (king + man) to move first against the lone king: the count is not over after
    // White's fifth move, only after Black's.
    let mut g = Game::new(parse_fen("W:W45,K30:BK14", Variant::International).unwrap());
    assert_eq!(walk_kings(&mut g, 60), 10);
    assert_eq!(g.moves().len(), 10);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::Endgame(EndgameRule::Five)))
    );
    g.undo(1);
    assert_eq!(g.outcome(), None, "one ply short of 5 moves each");
}

#[test] // FMJD 6.3/6.4: the capture that makes a configuration is not one of its moves
fn art_6_4_count_starts_after_the_capture_that_made_it() {
    // Three kings against a king (6.3); the lone king takes one: 2 kings against 1 (6.4), and
    // the 5 moves each start after that capture.
    let mut g = Game::new(parse_fen("B:WK44,K2,K3:BK50", Variant::International).unwrap());
    assert_eq!(endgame_rule(g.position()), Some(EndgameRule::Sixteen));
    let capture = g.position().legal_moves()[0];
    assert!(capture.is_capture());
    g.play(&capture).unwrap();
    assert_eq!(endgame_rule(g.position()), Some(EndgameRule::Five));
    assert_eq!(g.endgame_plies(), 0);
    assert_eq!(walk_kings(&mut g, 60), 10);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::Endgame(EndgameRule::Five)))
    );
}

#[test] // FMJD 6.3: "when a piece is captured during these 16 moves, the maximum of 16 remains"
fn art_6_3_sixteen_move_maximum_outlives_a_capture() {
    // 14 moves each already played under 6.3; the capture then starts a 5-move count (6.4),
    // but the 16-move maximum runs out first: 32 plies after the 6.3 count began.
    let start = parse_fen("B:WK44,K2,K3:BK50", Variant::International).unwrap();
    let mut g = Game::resume(start, 0, 28);
    let capture = g.position().legal_moves()[0];
    g.play(&capture).unwrap();
    assert_eq!(g.counts().sixteen_plies, Some(29));
    assert_eq!(walk_kings(&mut g, 60), 3);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::Endgame(EndgameRule::Sixteen)))
    );
}

#[test] // FMJD 6.3: a promotion inside the 16-move count changes nothing
fn art_6_3_promotion_keeps_the_sixteen_move_count() {
    // 2 kings + 1 man against a king; the man crowns: 3 kings against 1, the same count.
    let mut g = Game::new(parse_fen("W:WK47,K48,6:BK50", Variant::International).unwrap());
    assert_eq!(endgame_rule(g.position()), Some(EndgameRule::Sixteen));
    play_all(&mut g, &["6-1"]);
    assert_eq!(endgame_rule(g.position()), Some(EndgameRule::Sixteen));
    assert_eq!(g.endgame_plies(), 1);
    assert_eq!(g.counts().sixteen_plies, Some(1));
    assert_eq!(walk_kings(&mut g, 60), 31);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::Endgame(EndgameRule::Sixteen)))
    );
}

#[test] // FMJD 6.3: three kings against a lone king holding the long diagonal: 5 moves each
fn art_6_3_long_diagonal_five_moves() {
    let pos = parse_fen("W:WK1,K2,K3:BK46", Variant::International).unwrap();
    assert_eq!(endgame_rule(&pos), Some(EndgameRule::LongDiagonal));
    let mut g = Game::new(pos);
    play_all(
        &mut g,
        &[
            "1-6", "46-41", "2-7", "41-46", "3-8", "46-41", "6-11", "41-46", "7-12",
        ],
    );
    assert_eq!(g.outcome(), None);
    play_all(&mut g, &["46-41"]);
    assert_eq!(
        g.outcome(),
        Some(Outcome::Draw(DrawReason::Endgame(
            EndgameRule::LongDiagonal
        )))
    );
    // Off the diagonal, the same material is the 16-move ending, and its count runs from the
    // start of the ending: the long-diagonal count ran inside it.
    let off = parse_fen("W:WK1,K2,K3:BK45", Variant::International).unwrap();
    assert_eq!(endgame_rule(&off), Some(EndgameRule::Sixteen));
    // A piece of the strong side on the diagonal takes the case away.
    let shared = parse_fen("W:WK1,K2,K5:BK46", Variant::International).unwrap();
    assert_eq!(endgame_rule(&shared), Some(EndgameRule::Sixteen));
}

#[test] // FMJD 6.3: the two endings of docs/draw-rules.md, played on past the count as they were
fn kroon_reading_of_two_played_endings() {
    let games = [
        (
            "W:W6,K21,35:BK25",
            "21-12 25-43 12-3 43-16 3-25 16-7 25-30 7-18 30-24 18-34 24-13 34-43 13-22 43-34 \
             22-11 34-25 11-17 25-34 17-22 34-7 6-1 7-16 22-13 16-43 35-30 43x25 13-2 25-39 1-6 \
             39-34 6-50 34-45 2-7 45x1 50-39 1-6 39-43 6-1 43-30 1-45 30-2 45-40 2-7 40x1",
        ),
        (
            "W:WK43:B1,24,K48",
            "43-38 24-30 38-49 30-35 49-16 48-26 16-49 26-17 49-16 17-22 16-43 22-28 43-21 35-40 \
             21-49 28-44 49-43 40-45 43-16 44-49 16-2 45-50 2-8 49-35 8-21 50-17 21x12 35-49 \
             12-34 49-21 34-39 1-7 39-34 21-12 34-45 7-11 45x16",
        ),
    ];
    for (fen, moves) in games {
        let mut g = Game::new(parse_fen(fen, Variant::International).unwrap());
        let mut ended = None;
        for text in moves.split_whitespace() {
            let mv = parse_move(g.position(), text).unwrap();
            g.play(&mv).unwrap();
            if ended.is_none() {
                ended = g.outcome().map(|o| (g.moves().len(), o));
            }
        }
        // 16 moves each from the start of the ending: neither the promotions nor the capture
        // that turned it into 2 kings against 1 start the maximum again.
        assert_eq!(
            ended,
            Some((32, Outcome::Draw(DrawReason::Endgame(EndgameRule::Sixteen)))),
            "{fen}"
        );
    }
}

#[test] // A draw claim the other side does not accept: the game goes on without that rule
fn waived_rule_no_longer_ends_the_game() {
    let mut g = Game::new(parse_fen("W:WK47,K48:BK3", Variant::International).unwrap());
    assert_eq!(walk_kings(&mut g, 60), 10);
    let Some(Outcome::Draw(reason)) = g.outcome() else {
        panic!("not drawn: {:?}", g.outcome());
    };
    g.waive(reason);
    assert_eq!(g.outcome(), None);
    assert_eq!(walk_kings(&mut g, 30), 30);
    assert_eq!(g.outcome(), None);
}

#[test] // FMJD 1.3 / 6: a side without a legal move loses
fn no_legal_move_loses() {
    let g = Game::new(parse_fen("B:W31,32:B", Variant::International).unwrap());
    assert_eq!(g.outcome(), Some(Outcome::Win(kroon_rules::Colour::White)));
    let g = Game::new(parse_fen("W:W46:B41,37", Variant::International).unwrap());
    assert_eq!(g.outcome(), Some(Outcome::Win(kroon_rules::Colour::Black)));
    let g = Game::new(parse_fen("W:W46:B41,37", Variant::Losing).unwrap());
    assert_eq!(g.outcome(), Some(Outcome::Win(kroon_rules::Colour::White)));
}

#[test] // Breakthrough: the first king ends the game, won by its side, before any move is asked for
fn a_king_ends_a_breakthrough_game() {
    use kroon_rules::game::winner;
    use kroon_rules::Colour::{Black, White};
    let bt = |fen| parse_fen(fen, Variant::Breakthrough).unwrap();
    // White has just crowned on 5; Black, to move, has moves but has lost.
    let crowned = bt("B:WK5,31-35:B11-20");
    assert_eq!(winner(&crowned, || true), Some(White));
    assert_eq!(Game::new(crowned).outcome(), Some(Outcome::Win(White)));
    // The same material in international draughts goes on.
    let go_on = parse_fen("B:WK5,31-35:B11-20", Variant::International).unwrap();
    assert_eq!(winner(&go_on, || true), None);
    assert_eq!(Game::new(go_on).outcome(), None);
    // Kings of both sides (only a set-up position has them): the side that has just moved wins.
    assert_eq!(winner(&bt("W:WK5,31-35:BK46,11-20"), || true), Some(Black));
    assert_eq!(winner(&bt("B:WK5,31-35:BK46,11-20"), || true), Some(White));
    // No king: the moves decide, and they are asked for only then.
    assert_eq!(winner(&bt("W:W31-35:B11-20"), || true), None);
    assert_eq!(winner(&bt("W:W46:B41,37"), || false), Some(Black));
    assert_eq!(winner(&bt("W:WK5:B41,37"), || panic!("asked")), Some(White));
}
