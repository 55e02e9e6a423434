//! The PDN reader on a corpus of real-world files (`tests/data/pdn/`: a lidraughts export with
//! clock comments and the `:H0:F1` FEN fields, a Latin-1 file with Windows line ends and capture
//! paths, hand annotations with nested variations and NAGs, the 8x8 variants and Frisian, and a
//! file of broken games), and the writer against it: read, write, read gives the same games.

use kroon_rules::{decode_text, read_pdn, write_pdn, PdnFile, PdnLine, Variant};

fn corpus(name: &str) -> PdnFile {
    let path = format!("{}/tests/data/pdn/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap();
    read_pdn(&decode_text(&bytes), Variant::International)
}

fn plies(line: &PdnLine) -> usize {
    line.moves.len()
}

/// Every game written and read back is the same game, and writing it again gives the same text.
fn round_trip(file: &PdnFile) {
    for game in &file.games {
        let text = write_pdn(game);
        let back = read_pdn(&text, Variant::International);
        assert!(back.skipped.is_empty(), "{text}\n{:?}", back.skipped);
        assert_eq!(back.games.as_slice(), std::slice::from_ref(game), "{text}");
        assert_eq!(write_pdn(&back.games[0]), text);
    }
}

#[test]
fn lidraughts_export() {
    let file = corpus("lidraughts.pdn");
    assert!(file.skipped.is_empty(), "{:?}", file.skipped);
    assert_eq!(file.games.len(), 2);
    let [a, b] = file.games.as_slice() else {
        unreachable!()
    };
    assert_eq!(plies(&a.line), 52);
    assert_eq!(a.result, "2-0");
    assert_eq!(a.tag("WhiteElo"), Some("1843"));
    assert_eq!(a.tag("FEN"), None, "the FEN tag is the start position");
    assert_eq!(a.line.moves[0].comments, ["[%clock w3:00 B3:00]"]);
    assert_eq!(plies(&b.line), 30);
    assert_eq!(b.result, "1-1");
    round_trip(&file);
}

#[test]
fn latin1_windows_line_ends_and_capture_paths() {
    let file = corpus("latin1-crlf.pdn");
    assert!(file.skipped.is_empty(), "{:?}", file.skipped);
    let [a, b] = file.games.as_slice() else {
        panic!("{file:?}")
    };
    assert_eq!(a.tag("White"), Some("René Olsén"));
    assert_eq!(a.tag("Black"), Some("Jörg Müller"));
    assert_eq!(plies(&a.line), 42);
    // `18x29x38` names the landing square 29: one capture of two men.
    assert_eq!(a.line.moves[19].mv.captured.count(), 2);
    assert_eq!(b.start.turn(), kroon_rules::Colour::Black);
    assert_eq!(plies(&b.line), 9);
    assert_eq!(b.result, "*");
    round_trip(&file);
}

#[test]
fn annotations_and_variations() {
    let file = corpus("annotated.pdn");
    assert!(file.skipped.is_empty(), "{:?}", file.skipped);
    let [a, b] = file.games.as_slice() else {
        panic!("{file:?}")
    };
    assert_eq!(a.line.intro, ["Opening comment."]);
    let first = &a.line.moves[0];
    assert_eq!(first.nags, [1, 1]);
    assert_eq!(first.comments, ["the usual"]);
    assert_eq!(plies(&first.variations[0]), 3);
    assert_eq!(plies(&first.variations[0].moves[1].variations[0]), 3);
    assert_eq!(first.variations[0].moves[2].nags, [6]);
    assert_eq!(a.line.moves[1].comments, ["a line comment"]);
    assert_eq!(a.line.moves[3].variations[0].moves[0].nags, [6]);
    assert_eq!(a.line.moves[4].nags, [5]);
    assert_eq!(a.line.moves[9].nags, [4]);
    assert_eq!(plies(&a.line), 16);
    assert_eq!(a.result, "1-1");
    assert!(b.tags.is_empty());
    assert_eq!(b.result, "1/2-1/2");
    round_trip(&file);
}

#[test]
fn every_variant_by_its_game_type() {
    let file = corpus("variants.pdn");
    assert!(file.skipped.is_empty(), "{:?}", file.skipped);
    let got: Vec<(Variant, usize)> = file
        .games
        .iter()
        .map(|g| (g.start.variant(), plies(&g.line)))
        .collect();
    assert_eq!(
        got,
        [
            (Variant::Russian, 5),
            (Variant::English, 16),
            (Variant::Brazilian, 5),
            (Variant::Frisian, 10),
            (Variant::Killer, 4),
        ]
    );
    round_trip(&file);
}

#[test]
fn broken_games_are_skipped_and_named() {
    let file = corpus("broken.pdn");
    let kept: Vec<_> = file.games.iter().map(|g| g.tag("Event").unwrap()).collect();
    assert_eq!(kept, ["Good 1", "Good 2"]);
    let skipped: Vec<String> = file.skipped.iter().map(ToString::to_string).collect();
    assert_eq!(
        skipped,
        [
            "game 2 (C - D (Illegal move, round 4)): move 2... `13-18`: illegal move `13-18`",
            "game 3 (Italian): variant `GameType 22` is not one Kroon plays",
            "game 4 (Bad FEN): FEN tag `W:W60:B1`: no square `60` on this board",
            "game 5 (Stray): `)` without `(`",
            "game 7 (F (Never closed)): unclosed comment {",
        ]
    );
    round_trip(&file);
}
