//! Writing finished games as PDN: the tag pairs, then the moves with each engine move's score,
//! depth and time as a comment, and the reason the game ended as a last comment.

use super::game::{MoveNote, Played};
use super::openings::Opening;
use kroon_rules::{side_called, write_pdn, Colour, GameResult, Move, PdnGame};

/// What the PDN header needs besides the game.
#[derive(Clone, Debug)]
pub struct Header<'a> {
    /// `Event`.
    pub event: &'a str,
    /// `Date` as `YYYY.MM.DD`.
    pub date: &'a str,
    /// `Round`: the game's number in the schedule.
    pub round: usize,
    /// `White`.
    pub white: &'a str,
    /// `Black`.
    pub black: &'a str,
    /// `TimeControl`, in words.
    pub time_control: &'a str,
}

fn note_text(n: &MoveNote) -> String {
    let time = format!("{:.3}s", n.elapsed.as_secs_f64());
    match (n.score, n.depth) {
        (Some(s), Some(d)) => format!("{s:+.2}/{d} {time}"),
        (Some(s), None) => format!("{s:+.2} {time}"),
        _ => time,
    }
}

/// The whole game as PDN text, ending with a blank line.
#[must_use]
pub fn write(h: &Header<'_>, opening: &Opening, game: &Played) -> String {
    let variant = opening.start.variant();
    // Tags name the sides as the variant's players do: in English the first mover is Black.
    let turned = side_called(variant, Colour::White) == Colour::Black;
    let result = match (turned, game.result) {
        (true, GameResult::WhiteWins) => GameResult::BlackWins,
        (true, GameResult::BlackWins) => GameResult::WhiteWins,
        (_, r) => r,
    }
    .pdn();
    let (white, black) = if turned {
        (h.black, h.white)
    } else {
        (h.white, h.black)
    };
    let moves: Vec<Move> = opening.moves.iter().chain(&game.moves).copied().collect();
    let tags = [
        ("Event", h.event.to_owned()),
        ("Date", h.date.to_owned()),
        ("Round", h.round.to_string()),
        ("White", white.to_owned()),
        ("Black", black.to_owned()),
        ("Result", result.to_owned()),
        ("TimeControl", h.time_control.to_owned()),
        ("Termination", game.termination.tag().to_owned()),
    ];
    let mut pdn = PdnGame::new(
        tags.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
        opening.start,
        &moves,
        result,
    );
    for (m, note) in pdn
        .line
        .moves
        .iter_mut()
        .skip(opening.moves.len())
        .zip(&game.notes)
    {
        m.comments.push(note_text(note));
    }
    pdn.comment_last(game.reason.clone());
    write_pdn(&pdn)
}

/// Today's date (UTC) as PDN writes it; the DXP game records use the same.
pub use kroon_protocol::dxp::convert::today;

#[cfg(test)]
mod tests {
    use super::super::game::Termination;
    use super::super::openings::{movetext, parse};
    use super::*;
    use kroon_rules::read_pdn;
    use kroon_rules::{parse_move, Variant};
    use std::time::Duration;

    #[test]
    fn dates() {
        assert_eq!(today().len(), 10);
    }

    #[test]
    fn games_read_back() {
        let v = Variant::International;
        let opening = &parse("1. 32-28 19-23 *", v, None).unwrap()[0];
        let pos = opening.position();
        let mv = parse_move(&pos, "28x19").unwrap();
        let reply = parse_move(&pos.play(&mv), "14x23").unwrap();
        let game = Played {
            moves: vec![mv, reply],
            notes: vec![
                MoveNote {
                    score: Some(0.12),
                    depth: Some(7),
                    elapsed: Duration::from_millis(100),
                },
                MoveNote::default(),
            ],
            result: GameResult::Draw,
            termination: Termination::MaxPlies,
            reason: "draw: move cap {4}".into(),
            culprit: None,
            lines: Vec::new(),
        };
        let h = Header {
            event: "test \"match\"",
            date: "2026.01.02",
            round: 3,
            white: "A",
            black: "B",
            time_control: "depth 1",
        };
        let text = write(&h, opening, &game);
        assert!(text.contains("[Event \"test \\\"match\\\"\"]"), "{text}");
        assert!(text.contains("[GameType \"20\"]"));
        assert!(!text.contains("[FEN"));
        assert!(text.contains("[Termination \"move cap\"]"));
        assert!(
            text.contains(
                "1. 32-28 19-23 2. 28x19 {+0.12/7 0.100s} 14x23 {0.000s} {draw: move cap |4|} 1-1"
            ),
            "{text}"
        );
        let back = read_pdn(&text, v).games;
        assert_eq!(back.len(), 1);
        assert_eq!(
            movetext(&back[0].start, &back[0].moves()),
            "1. 32-28 19-23 2. 28x19 14x23"
        );

        // A start from a FEN, Black to move.
        let black = &parse("B:W31-50:B1-20", v, None).unwrap()[0];
        let mv = parse_move(&black.start, "19-23").unwrap();
        let game = Played {
            moves: vec![mv],
            notes: vec![MoveNote::default()],
            result: GameResult::WhiteWins,
            termination: Termination::Rules,
            reason: "x".into(),
            culprit: None,
            lines: Vec::new(),
        };
        let text = write(&h, black, &game);
        assert!(text.contains("[FEN \"B:W31,32,"), "{text}");
        assert!(text.contains("1... 19-23"), "{text}");

        // English: the first mover (Kroon's White) is called Black, in the tags and the result.
        let english = &parse("B:W21-32:B1-12", Variant::English, None).unwrap()[0];
        let mv = parse_move(&english.start, "11-15").unwrap();
        let game = Played {
            moves: vec![mv],
            ..game
        };
        let text = write(&h, english, &game);
        assert!(
            text.contains("[White \"B\"]\n[Black \"A\"]\n[Result \"0-2\"]"),
            "{text}"
        );
        assert!(text.contains("1. 11-15 {0.000s} {x} 0-2"), "{text}");
    }
}
