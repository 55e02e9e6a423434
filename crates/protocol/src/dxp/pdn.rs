//! PDN text of a finished DXP game: the tag pairs (players, result, date, time control, and the
//! FEN when the game did not start from the initial position), then the moves and the result.

use kroon_rules::{write_pdn, PdnGame};

use super::session::{pdn_result, GameRecord};

/// The PDN of one game, ending with a blank line, ready to append to a file.
#[must_use]
pub fn write_game(rec: &GameRecord) -> String {
    let seconds = u32::from(rec.minutes) * 60;
    let control = match rec.moves_limit {
        0 => seconds.to_string(),
        moves => format!("{moves}/{seconds}"),
    };
    let tags = [
        ("Event", "DXP match".to_owned()),
        ("Date", rec.date.clone()),
        ("Round", rec.number.to_string()),
        ("White", rec.white.clone()),
        ("Black", rec.black.clone()),
        ("Result", pdn_result(rec.result).to_owned()),
        ("TimeControl", control),
        ("Termination", rec.termination.clone()),
    ];
    let mut game = PdnGame::new(
        tags.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
        rec.start,
        &rec.moves,
        pdn_result(rec.result),
    );
    game.comment_last(rec.termination.clone());
    write_pdn(&game)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kroon_rules::{parse_fen, parse_move, Colour, GameResult, Position, Variant};

    fn record(start: Position, moves: &[&str], result: Option<GameResult>) -> GameRecord {
        let mut pos = start;
        let mut played = Vec::new();
        for text in moves {
            let mv = parse_move(&pos, text).unwrap();
            pos = pos.play(&mv);
            played.push(mv);
        }
        GameRecord {
            number: 2,
            date: "2024.05.06".into(),
            white: "Kroon".into(),
            black: "Scan \"3.1\"".into(),
            kroon: Colour::White,
            start,
            moves: played,
            result,
            termination: "Black has no legal move".into(),
            minutes: 1,
            moves_limit: 50,
        }
    }

    #[test]
    fn tags_and_moves() {
        let start = Position::initial(Variant::International);
        let text = write_game(&record(
            start,
            &["32-28", "19-23", "28x19"],
            Some(GameResult::WhiteWins),
        ));
        assert!(text.contains("[White \"Kroon\"]\n"), "{text}");
        assert!(text.contains("[Black \"Scan \\\"3.1\\\"\"]\n"), "{text}");
        assert!(text.contains("[Result \"2-0\"]\n"));
        assert!(text.contains("[TimeControl \"50/60\"]\n"));
        assert!(!text.contains("[FEN"));
        assert!(
            text.ends_with("1. 32-28 19-23 2. 28x19 {Black has no legal move} 2-0\n\n"),
            "{text}"
        );
    }

    #[test]
    fn fen_and_black_first() {
        let start = parse_fen("B:W38,K46:B19,23", Variant::International).unwrap();
        let text = write_game(&record(start, &["19-24"], None));
        assert!(text.contains("[FEN \"B:W38,K46:B19,23\"]"), "{text}");
        assert!(text.contains("1... 19-24 {"), "{text}");
        assert!(text.trim_end().ends_with('*'));
    }

    #[test]
    fn long_games_wrap() {
        let start = Position::initial(Variant::International);
        let moves = [
            "32-28", "19-23", "28x19", "14x23", "37-32", "10-14", "41-37", "5-10",
        ];
        let text = write_game(&record(start, &moves, Some(GameResult::Draw)));
        let body = text.split("\n\n").nth(1).unwrap();
        assert!(body.lines().all(|l| l.len() <= 80), "{body}");
        assert!(body.lines().count() > 1, "{body}");
    }
}
