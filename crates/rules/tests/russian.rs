//! Russian draughts rule tests with exact legal sets (sources: the shashki rules as dctl's
//! `core/rules/russian.hpp` encodes them; pydraughts `core/board.py`).

use kroon_rules::{notation, parse_fen, write_fen, Variant};

#[test] // A man that reaches the last row during a capture is crowned at once, captures on as a
        // flying king, and is still a king where the capture ends, on the last row or not
fn man_crowned_during_a_capture_ends_as_a_king() {
    // f6 takes e7 and lands on d8, on the last row: crowned, it goes on over b6 to a5.
    let pos = parse_fen("W:Wf6:Be7,b6", Variant::Russian).unwrap();
    let legal: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|m| notation::long(m, pos.variant()))
        .collect();
    assert_eq!(legal, ["f6:a5:b6:e7"]);
    let mv = pos.legal_moves()[0];
    assert!(mv.promotes);
    assert_eq!(write_fen(&pos.play(&mv)), "B:WKa5:B");
    // Without a second piece to take it stops on the last row, a king as well.
    let pos = parse_fen("W:Wf6:Be7", Variant::Russian).unwrap();
    let mv = pos.legal_moves()[0];
    assert_eq!(notation::long(&mv, pos.variant()), "f6:d8:e7");
    assert_eq!(write_fen(&pos.play(&mv)), "B:WKd8:B");
}
