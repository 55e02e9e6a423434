//! Frisian draughts rule tests, each with the exact legal set. Sources for the rules: Scan 3.1
//! (`gen.cpp`, `list.cpp`, `pos.cpp`), dctl `core/rules/frisian.hpp`, pydraughts `core/game.py`.

use kroon_rules::movegen::{generate_with, Duplicates};
use kroon_rules::{
    notation, parse_fen, parse_move, perft, Colour, Game, MoveList, Position, Variant,
};

fn pos(fen: &str) -> Position {
    parse_fen(fen, Variant::Frisian).unwrap()
}

fn legal_of(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p
        .legal_moves()
        .iter()
        .map(|m| notation::long(m, p.variant()))
        .collect();
    v.sort();
    v
}

fn assert_legal_in(p: &Position, want: &[&str]) {
    let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(legal_of(p), want, "{}", kroon_rules::write_fen(p));
}

fn assert_legal(fen: &str, want: &[&str]) {
    assert_legal_in(&pos(fen), want);
}

/// Plays moves given as text, checking that each is legal.
fn play(p: Position, moves: &[&str]) -> Position {
    moves.iter().fold(p, |p, t| {
        let next = p.try_play(&parse_move(&p, t).unwrap()).unwrap();
        assert_eq!(next.key(), next.compute_key(), "key after {t}");
        next
    })
}

#[test] // Men capture orthogonally over the piece two columns aside or two rows ahead or behind
fn man_captures_orthogonally_in_four_directions() {
    assert_legal("W:W28:B27", &["28x26x27"]);
    assert_legal("W:W28:B29", &["28x30x29"]);
    assert_legal("W:W28:B18", &["28x8x18"]);
    assert_legal("W:W28:B38", &["28x48x38"]);
    assert_legal("B:W28:B18,23", &["18x38x28", "23x32x28"]);
}

#[test] // The landing square must be on the board: no capture from the edge, no wrap between rows
fn man_cannot_capture_off_the_board_or_across_rows() {
    // 26 is on the left edge: 27 is two columns right of it but there is no square beyond 26.
    assert_legal("W:W27:B26", &["27-21", "27-22"]);
    assert_legal("W:W24:B25", &["24-19", "24-20"]);
    // 25 ends row 4 and 26 starts row 5, in neighbouring bits of the layout: not neighbours.
    assert_legal("W:W25:B26", &["25-20"]);
    assert_legal("B:W25:B26", &["26-31"]);
    assert_legal("W:W36:B35", &["36-31"]);
}

#[test] // A capture goes on diagonally and orthogonally, and the most valuable one is compulsory
fn man_capture_mixes_diagonal_and_orthogonal_steps() {
    assert_legal("W:W28:B23,18", &["28x17x18x23"]);
}

#[test] // Men and kings move only diagonally; only captures go orthogonally
fn quiet_moves_are_diagonal() {
    assert_legal("W:W28:B1", &["28-22", "28-23"]);
    assert_legal(
        "W:WK28:B1",
        &[
            "28-22", "28-17", "28-11", "28-6", "28-23", "28-19", "28-14", "28-10", "28-5", "28-32",
            "28-37", "28-41", "28-46", "28-33", "28-39", "28-44", "28-50",
        ],
    );
}

#[test] // A king captures orthogonally at a distance and lands on any free square beyond
fn king_captures_orthogonally_at_a_distance() {
    assert_legal("W:WK46:B26", &["46x16x26", "46x6x26"]);
    assert_legal("W:WK28:B26,39,18", &["28x44x39", "28x50x39", "28x8x18"]);
    // Up the left edge over 36, then right along row 5 over 29.
    assert_legal("W:W33,K46:B29,36", &["46x30x29x36"]);
    // Three directions: up over 36, down-right over 31, up-right over 23.
    assert_legal(
        "W:W33,K46:B23,36,31",
        &[
            "46x19x23x31x36",
            "46x14x23x31x36",
            "46x10x23x31x36",
            "46x5x23x31x36",
        ],
    );
}

#[test] // Value precedence: two men are worth more than one king, one king more than one man
fn two_men_outweigh_one_king() {
    // 28 takes 27 and 16 (two men); 45 takes the king on 40.
    assert_legal("W:W28,45:BK40,27,16", &["28x6x16x27"]);
    assert_legal("W:W28,45:BK40,27", &["45x34x40"]);
    // Still true when the single king is taken by a king (the with-king rule comes last).
    assert_legal("W:W28,K50:B27,16,K44", &["28x6x16x27"]);
}

#[test] // Value precedence: two kings are worth more than three men
fn two_kings_outweigh_three_men() {
    // 28 takes the kings on 27 and 16; 45 takes the men on 40, 29 and 18.
    let p = pos("W:W28,45:BK27,K16,40,29,18");
    assert_legal_in(&p, &["28x6x16x27"]);
    // Without the precedence by value the three men would win.
    let mut all = MoveList::new();
    generate_with(&p, &mut all, Duplicates::Drop);
    assert!(all.iter().all(|m| m.captured.count() == 2));
}

#[test] // Value precedence: three kings are worth more than five men (a king counts just under two
        // men, as in Scan and dctl; pydraughts counts it as 1.501 men and takes the five men here)
fn three_kings_outweigh_five_men() {
    // The king on 11 takes the kings on 28, 39 and 42; the man on 50 takes 40, 20, 9, 7 and 16.
    assert_legal("W:WK11,50:B7,9,16,20,K28,K39,40,K42", &["11x41x28x39x42"]);
}

#[test] // On equal value, the king must capture rather than the man
fn equal_value_goes_to_the_king() {
    // The man on 33 can take 39; the king on 46 can take 36. One man each.
    assert_legal("W:W33,K46:B36,39", &["46x26x36", "46x16x36", "46x6x36"]);
}

#[test] // The precedence order itself: (men + 2 kings), then fewer kings, then with a king
fn precedence_order() {
    use kroon_rules::variant::{Frisian, Rules};
    use kroon_rules::Bitboard;
    // Captured sets: the low bits are men, bits from 32 up are kings.
    let value = |men: u32, kings: u32, with_king: bool| {
        let m = (1u64 << men) - 1;
        let k = ((1u64 << kings) - 1) << 32;
        Frisian::precedence(Bitboard(m | k), Bitboard(k), with_king)
    };
    assert!(value(2, 0, false) > value(0, 1, true)); // two men over a king, even by a king
    assert!(value(0, 1, false) > value(1, 0, true)); // a king over a man
    assert!(value(0, 2, false) > value(3, 0, true)); // two kings over three men
    assert!(value(4, 0, false) > value(0, 2, true)); // four men over two kings
    assert!(value(0, 3, false) > value(5, 0, true)); // three kings over five men (pydraughts: men)
    assert!(value(1, 1, false) > value(0, 1, true)); // more is more
    assert!(value(2, 1, false) > value(0, 2, true)); // equal weight: fewer kings first
    assert!(value(1, 1, true) > value(1, 1, false)); // equal captures: by a king first
}

#[test] // Two capture paths over the same two pieces never end on the same square: duplicates start
        // at three pieces, so the duplicate check can skip shorter captures (as Scan's does)
fn no_duplicate_paths_over_two_pieces() {
    let g = Variant::Frisian.geometry();
    let sq = |f: u32| g.square(f).unwrap();
    let mut list = MoveList::new();
    let mut positions = 0;
    for (piece, king) in [(46u32, true), (28, false)] {
        for from in 1..=50 {
            for a in 1..=50 {
                for b in a + 1..=50 {
                    if from == a || from == b || (!king && from <= 5) {
                        continue;
                    }
                    let white = kroon_rules::Bitboard::from_square(sq(from));
                    let black = kroon_rules::Bitboard::from_square(sq(a)).with(sq(b));
                    let kings = if king {
                        white
                    } else {
                        kroon_rules::Bitboard::EMPTY
                    };
                    let p =
                        Position::from_parts(Variant::Frisian, white, black, kings, Colour::White);
                    generate_with(&p, &mut list, Duplicates::Keep);
                    let moves = list.as_slice();
                    for (i, m) in moves.iter().enumerate() {
                        assert!(!moves[i + 1..].contains(m), "{m:?} twice, piece {piece}");
                    }
                    positions += 1;
                }
            }
        }
    }
    assert!(positions > 100_000);
}

#[test] // At most three quiet moves in a row by one king while the side has men; captures still go
fn king_move_limit() {
    let start = pos("W:WK46,45:BK1");
    let p = play(start, &["46-41", "1-6", "41-46", "6-1", "46-41"]);
    assert_eq!(p.king_run(Colour::White).map(|(_, n)| n), Some(3));
    let blocked = play(p, &["1-6"]);
    assert_legal_in(&blocked, &["45-40"]);
    // Perft leaves the limit out, as the published counts do: the king's 11 moves count.
    assert_eq!(perft(&blocked, 1, Duplicates::Drop), 12);
    // A man move ends the run: the king may move again.
    let freed = play(blocked, &["45-40", "6-1"]);
    assert_eq!(freed.king_run(Colour::White), None);
    assert!(legal_of(&freed).contains(&"41-46".to_string()));
    // The blocked king still captures.
    let capture = play(p, &["1-23"]);
    assert_legal_in(&capture, &["41x19x23", "41x14x23", "41x10x23", "41x5x23"]);
    // Playing the blocked king's quiet move is refused.
    let mut game = Game::new(start);
    for t in ["46-41", "1-6", "41-46", "6-1", "46-41", "1-6"] {
        game.play(&parse_move(game.position(), t).unwrap()).unwrap();
    }
    assert!(parse_move(game.position(), "41-46").is_err());
    assert!(game.outcome().is_none());
}

#[test] // The run belongs to one king: another king's move starts a new run
fn king_move_limit_counts_one_king() {
    let p = play(
        pos("W:WK46,K47,45:BK1"),
        &[
            "46-41", "1-6", "41-46", "6-1", "47-42", "1-6", "46-41", "6-1",
        ],
    );
    assert_eq!(p.king_run(Colour::White).map(|(_, n)| n), Some(1));
    assert!(legal_of(&p).iter().any(|m| m.starts_with("41-")));
    // Three in a row by the king on 41 now blocks it, and not the king on 42.
    let p = play(p, &["41-46", "1-6", "46-41", "6-1"]);
    let legal = legal_of(&p);
    assert!(!legal.iter().any(|m| m.starts_with("41-")), "{legal:?}");
    assert!(legal.iter().any(|m| m.starts_with("42-")));
    assert!(legal.contains(&"45-40".to_string()));
}

#[test] // The limit does not apply to a side with only kings
fn no_king_move_limit_without_men() {
    let p = play(
        pos("W:WK46:BK1,15"),
        &["46-41", "1-6", "41-46", "6-1", "46-41", "1-6"],
    );
    assert_eq!(p.king_run(Colour::White), None);
    assert!(legal_of(&p).contains(&"41-46".to_string()));
    // Black has a man: its king's run is counted.
    assert_eq!(p.king_run(Colour::Black).map(|(_, n)| n), Some(3));
}

#[test] // The run is part of the position: equality, key and the flipped position carry it
fn king_run_is_position_state() {
    let a = play(pos("W:WK46,45:BK1,15"), &["46-41", "1-6"]);
    let b = pos("W:WK41,45:BK6,15");
    assert_ne!(a, b);
    assert_ne!(a.key(), b.key());
    assert_eq!(a.without_king_runs(), b);
    assert_eq!(a.without_king_runs().key(), b.key());
    let f = a.flipped();
    assert_eq!(f.key(), f.compute_key());
    assert_eq!(f.flipped(), a);
    assert_eq!(f.king_run(Colour::Black).map(|(_, n)| n), Some(1));
    assert_eq!(f.king_run(Colour::White).map(|(_, n)| n), Some(1));
}
