//! Russian draughts rule tests with exact legal sets (sources: the shashki rules as dctl's
//! `core/rules/russian.hpp` encodes them; pydraughts `core/board.py`).

use kroon_rules::{notation, parse_fen, write_fen, Variant};

#[test] // A man that reaches the last row during a capture is crowned at once, captures on as a
        // flying king, and is still a king where the capture ends, on the last row or not
fn man_crowned_during_a_capture_ends_as_a_king() {
    // 11 takes 7 and lands on 2, on the last row: crowned, it goes on over 9 to 13.
    let pos = parse_fen("W:W11:B7,9", Variant::Russian).unwrap();
    let legal: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|m| notation::long(m, pos.variant()))
        .collect();
    assert_eq!(legal, ["11x13x7x9"]);
    let mv = pos.legal_moves()[0];
    assert!(mv.promotes);
    assert_eq!(write_fen(&pos.play(&mv)), "B:WK13:B");
    // Without a second piece to take it stops on the last row, a king as well.
    let pos = parse_fen("W:W11:B7", Variant::Russian).unwrap();
    let mv = pos.legal_moves()[0];
    assert_eq!(notation::long(&mv, pos.variant()), "11x2x7");
    assert_eq!(write_fen(&pos.play(&mv)), "B:WK2:B");
}
