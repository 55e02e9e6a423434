//! PDN text of a game: tag pairs, then numbered moves in the variant's notation with optional
//! comments, a closing comment and the result, wrapped at 80 columns. Both `kroon dxp` and
//! `kroon match` write their games through it.

use crate::fen::write_fen;
use crate::mv::Move;
use crate::notation;
use crate::position::{Colour, Position};
use crate::variant::Variant;

/// Longest line of move text.
const LINE: usize = 80;

/// What a PDN game holds.
#[derive(Clone, Debug)]
pub struct PdnGame<'a> {
    /// Tags before the variant ones, in order (Event, Date, Round, White, Black, Result ...).
    pub head: Vec<(&'a str, String)>,
    /// Tags after `GameType` and `FEN` (TimeControl, Termination ...).
    pub tail: Vec<(&'a str, String)>,
    /// The start position.
    pub start: Position,
    /// The moves from `start`.
    pub moves: &'a [Move],
    /// A comment after each move, where there is one (shorter than `moves` is fine).
    pub comments: Vec<Option<String>>,
    /// A last comment before the result, e.g. why the game ended.
    pub last: Option<String>,
    /// The result token: `2-0`, `1-1`, `0-2`, `1-0`, `0-1`, `*`.
    pub result: &'a str,
}

/// PDN `GameType` numbers (PDN 3.0) for the variants that have one.
#[must_use]
pub fn game_type(v: Variant) -> Option<u32> {
    match v {
        Variant::International => Some(20),
        Variant::English => Some(21),
        Variant::Russian => Some(25),
        Variant::Brazilian => Some(26),
        _ => None,
    }
}

/// A tag value with `\` and `"` escaped.
fn quoted(value: &str) -> String {
    format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A comment: braces inside would end it early, so they become `|`.
fn comment(text: &str) -> String {
    format!("{{{}}}", text.replace(['{', '}'], "|"))
}

/// The whole game as PDN text, ending with a blank line, ready to append to a file.
#[must_use]
pub fn write_pdn(game: &PdnGame<'_>) -> String {
    let v = game.start.variant();
    let mut out = String::new();
    let mut tag = |name: &str, value: &str| {
        out.push_str(&format!("[{name} {}]\n", quoted(value)));
    };
    for (name, value) in &game.head {
        tag(name, value);
    }
    match game_type(v) {
        Some(t) => tag("GameType", &t.to_string()),
        None => tag("Variant", v.hub_name()),
    }
    if game.start != Position::initial(v) {
        tag("FEN", &write_fen(&game.start));
    }
    for (name, value) in &game.tail {
        tag(name, value);
    }
    out.push('\n');

    // Units that never break inside: `1. 32-28`, `19-23`, `1... 19-23` when the second side
    // starts, comments.
    let mut units = Vec::with_capacity(game.moves.len() * 3 / 2 + 2);
    let mut pos = game.start;
    let mut number = 1;
    for (i, mv) in game.moves.iter().enumerate() {
        let first = pos.turn() == Colour::White;
        let text = notation::display(&pos, mv);
        units.push(if first {
            format!("{number}. {text}")
        } else if i == 0 {
            format!("{number}... {text}")
        } else {
            text
        });
        if let Some(Some(c)) = game.comments.get(i) {
            units.push(comment(c));
        }
        if !first {
            number += 1;
        }
        pos = pos.play(mv);
    }
    if let Some(last) = &game.last {
        units.push(comment(last));
    }
    units.push(game.result.to_owned());

    let mut line = String::new();
    for u in units {
        if !line.is_empty() && line.len() + 1 + u.len() > LINE {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&u);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::parse_fen;
    use crate::notation::parse_move;

    fn moves(start: &Position, texts: &[&str]) -> Vec<Move> {
        let mut pos = *start;
        texts
            .iter()
            .map(|t| {
                let mv = parse_move(&pos, t).unwrap();
                pos = pos.play(&mv);
                mv
            })
            .collect()
    }

    #[test]
    fn tags_moves_comments_and_wrapping() {
        let start = Position::initial(Variant::International);
        let played = moves(&start, &["32-28", "19-23", "28x19", "14x23"]);
        let text = write_pdn(&PdnGame {
            head: vec![("White", "A \"1\"".into()), ("Result", "1-1".into())],
            tail: vec![("Termination", "normal".into())],
            start,
            moves: &played,
            comments: vec![None, None, Some("+0.12/7 {x}".into())],
            last: Some("draw".into()),
            result: "1-1",
        });
        assert!(text.starts_with(
            "[White \"A \\\"1\\\"\"]\n[Result \"1-1\"]\n[GameType \"20\"]\n[Termination \"normal\"]\n\n"
        ));
        assert!(
            text.ends_with("1. 32-28 19-23 2. 28x19 {+0.12/7 |x|} 14x23 {draw} 1-1\n\n"),
            "{text}"
        );
        let mut many = Vec::new();
        let mut pos = start;
        for _ in 0..14 {
            let mv = pos.legal_moves()[0];
            pos = pos.play(&mv);
            many.push(mv);
        }
        let text = write_pdn(&PdnGame {
            head: Vec::new(),
            tail: Vec::new(),
            start,
            moves: &many,
            comments: vec![Some("a comment long enough to push the line".into()); 14],
            last: None,
            result: "*",
        });
        assert!(text.lines().all(|l| l.len() <= LINE), "{text}");
    }

    #[test]
    fn a_start_position_with_the_second_side_to_move() {
        let start = parse_fen("B:W38,K46:B19,23", Variant::International).unwrap();
        let played = moves(&start, &["19-24"]);
        let text = write_pdn(&PdnGame {
            head: Vec::new(),
            tail: Vec::new(),
            start,
            moves: &played,
            comments: Vec::new(),
            last: None,
            result: "*",
        });
        assert!(text.contains("[FEN \"B:W38,K46:B19,23\"]"), "{text}");
        assert!(text.ends_with("1... 19-24 *\n\n"), "{text}");
        let r = Position::initial(Variant::Russian);
        let text = write_pdn(&PdnGame {
            head: Vec::new(),
            tail: Vec::new(),
            start: r,
            moves: &moves(&r, &["c3-d4"]),
            comments: Vec::new(),
            last: None,
            result: "*",
        });
        assert!(text.contains("[GameType \"25\"]\n\n1. c3-d4 *"), "{text}");
    }
}
