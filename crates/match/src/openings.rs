//! Openings: where each game pair starts. Read from a file of FEN lines or of PDN games (cut after
//! `--opening-plies`), or the default set embedded in the binary, which `--generate-openings`
//! makes with Kroon's own search.

// A reader of outside input (openings files): bad text must come back as errors, so no
// panicking shortcuts.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

use anyhow::{bail, Context, Result};
use kroon_rules::{
    notation, parse_fen, parse_hub, parse_move, Colour, Game, Move, Position, Variant,
};
use kroon_search::{score, Engine, Limits, SearchRequest};
use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::Path;

/// The default openings (international draughts): positions 2 or 3 moves from the start that a
/// short search of Kroon's scored close to equal. One PDN game per line; made by
/// `kroon match --generate-openings 160 --generate-depth 12 --seed 1` (see [`generate`]).
const DEFAULT: &str = include_str!("../../../scripts/openings/openings.txt");

/// A start for a game pair: a position and the moves already played from it.
#[derive(Clone, Debug)]
pub struct Opening {
    /// The position the game starts from (written as the PDN `FEN` tag unless it is the initial one).
    pub start: Position,
    /// Moves played from `start` before the engines take over; every one is legal.
    pub moves: Vec<Move>,
}

impl Opening {
    /// The position the engines start from.
    #[must_use]
    pub fn position(&self) -> Position {
        self.moves.iter().fold(self.start, |pos, mv| pos.play(mv))
    }

    /// The opening in short notation, for messages.
    #[must_use]
    pub fn describe(&self) -> String {
        let mut pos = self.start;
        let mut out = Vec::new();
        for mv in &self.moves {
            out.push(notation::display(&pos, mv));
            pos = pos.play(mv);
        }
        let moves = out.join(" ");
        if self.start == Position::initial(self.start.variant()) {
            if moves.is_empty() {
                "start".into()
            } else {
                moves
            }
        } else {
            format!("{} {moves}", kroon_rules::write_fen(&self.start))
                .trim_end()
                .to_owned()
        }
    }
}

/// The embedded set for international draughts; every other variant starts from its initial
/// position.
///
/// # Errors
/// Only if the embedded file is broken, which a unit test rules out.
pub fn default_set(variant: Variant) -> Result<Vec<Opening>> {
    if variant != Variant::International {
        return Ok(vec![Opening {
            start: Position::initial(variant),
            moves: Vec::new(),
        }]);
    }
    parse(DEFAULT, variant, None).context("the embedded openings")
}

/// Reads an openings file.
///
/// # Errors
/// The file cannot be read, or holds something that is neither FEN nor PDN, or an illegal move.
pub fn load(path: &Path, variant: Variant, plies: Option<usize>) -> Result<Vec<Opening>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    parse(&text, variant, plies).with_context(|| format!("openings in {}", path.display()))
}

/// Reads openings: one FEN (PDN style, or the 51-character Hub position) per line, or else PDN
/// games, each cut after `plies` plies (all of its moves when `None`). Lines starting with `#` are
/// comments. Openings whose position is already decided (no legal move) are dropped.
///
/// # Errors
/// No opening at all, a bad FEN or tag, or an illegal move in a game.
pub fn parse(text: &str, variant: Variant, plies: Option<usize>) -> Result<Vec<Opening>> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let as_fen = |l: &str| parse_fen(l, variant).or_else(|_| parse_hub(l, variant));
    let mut openings = Vec::new();
    if !lines.is_empty() && lines.iter().all(|l| as_fen(l).is_ok()) {
        for l in lines {
            openings.push(Opening {
                start: as_fen(l)?,
                moves: Vec::new(),
            });
        }
    } else {
        for (i, game) in read_pdn(text)?.into_iter().enumerate() {
            let opening = game
                .opening(variant, plies)
                .with_context(|| format!("PDN game {}", i + 1))?;
            openings.push(opening);
        }
    }
    openings.retain(|o| !o.position().legal_moves().is_empty());
    if openings.is_empty() {
        bail!("no playable opening found");
    }
    Ok(openings)
}

/// One game of a PDN file: its tags and its moves as written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PdnGame {
    /// `[Name "value"]` pairs in order.
    pub tags: Vec<(String, String)>,
    /// The moves, without move numbers, comments, variations or annotation marks.
    pub moves: Vec<String>,
}

impl PdnGame {
    fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The game as an opening: its start (the `FEN` tag, or the initial position) and its first
    /// `plies` moves, each checked by the rules.
    ///
    /// # Errors
    /// A bad FEN tag or an illegal or ambiguous move.
    pub fn opening(&self, variant: Variant, plies: Option<usize>) -> Result<Opening> {
        let start = match self.tag("FEN") {
            Some(fen) => parse_fen(fen, variant).with_context(|| format!("FEN tag `{fen}`"))?,
            None => Position::initial(variant),
        };
        let mut game = Game::new(start);
        for text in self.moves.iter().take(plies.unwrap_or(usize::MAX)) {
            let mv = parse_move(game.position(), text)
                .with_context(|| format!("move {} `{text}`", game.moves().len() / 2 + 1))?;
            game.play(&mv)
                .map_err(|_| anyhow::anyhow!("illegal move `{text}`"))?;
        }
        Ok(Opening {
            start,
            moves: game.moves().to_vec(),
        })
    }
}

const RESULTS: [&str; 9] = [
    "2-0", "0-2", "1-1", "0-0", "1-0", "0-1", "*", "½-½", "1/2-1/2",
];

/// Splits PDN text into games: tag pairs, then movetext ending in a result. Comments (`{}`,
/// `;` to the end of the line), variations (`()`, nested), move numbers, `$n` and `!?` marks are
/// skipped. A game without a result ends where the next tags begin, or at the end of the text.
///
/// # Errors
/// An unclosed tag, comment or variation.
pub fn read_pdn(text: &str) -> Result<Vec<PdnGame>> {
    let mut games = Vec::new();
    let mut game = PdnGame::default();
    let mut chars = text.chars().peekable();
    let mut line_start = true;
    let finish = |game: &mut PdnGame, games: &mut Vec<PdnGame>| {
        if !game.tags.is_empty() || !game.moves.is_empty() {
            games.push(std::mem::take(game));
        }
    };
    while let Some(&c) = chars.peek() {
        if line_start && (c == '%' || c == '#') {
            chars.by_ref().take_while(|&c| c != '\n').for_each(drop);
            continue;
        }
        line_start = c == '\n';
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '[' => {
                chars.next();
                let body: String = chars.by_ref().take_while(|&c| c != ']').collect();
                if !game.moves.is_empty() {
                    finish(&mut game, &mut games);
                }
                let body = body.trim();
                let (name, value) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
                game.tags
                    .push((name.to_owned(), value.trim().trim_matches('"').to_owned()));
            }
            '{' => {
                chars.next();
                if !chars.by_ref().any(|c| c == '}') {
                    bail!("unclosed comment {{");
                }
            }
            ';' => {
                chars.by_ref().take_while(|&c| c != '\n').for_each(drop);
                line_start = true;
            }
            '(' => {
                let mut depth = 0;
                loop {
                    match chars.next() {
                        Some('(') => depth += 1,
                        Some(')') => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        Some(_) => {}
                        None => bail!("unclosed variation ("),
                    }
                }
            }
            _ => {
                let mut token = String::new();
                while let Some(&c) = chars.peek() {
                    if c.is_whitespace() || "[{(;".contains(c) {
                        break;
                    }
                    token.push(c);
                    chars.next();
                }
                if token.is_empty() {
                    // A stray `)` or `]`: skip it.
                    chars.next();
                    continue;
                }
                if RESULTS.contains(&token.as_str()) {
                    finish(&mut game, &mut games);
                    continue;
                }
                // "12." or "12..." alone, or glued to the move ("12.32-28").
                let body = token.trim_start_matches(|c: char| c.is_ascii_digit());
                let body = if body.starts_with('.') && body.len() < token.len() {
                    body.trim_start_matches('.')
                } else {
                    token.as_str()
                };
                let body = body.trim_end_matches(['!', '?']);
                if body.is_empty() || body.starts_with('$') {
                    continue;
                }
                game.moves.push(body.to_owned());
            }
        }
    }
    finish(&mut game, &mut games);
    Ok(games)
}

/// Moves as PDN movetext from `start`: `1. 32-28 19-23 2. ...`, starting `1...` when Black moves
/// first.
#[must_use]
pub fn movetext(start: &Position, moves: &[Move]) -> String {
    let mut out = String::new();
    let mut pos = *start;
    let mut number = 1;
    for (i, mv) in moves.iter().enumerate() {
        let white = pos.turn() == Colour::White;
        if i > 0 {
            out.push(' ');
        }
        if white {
            let _ = write!(out, "{number}. ");
        } else if i == 0 {
            let _ = write!(out, "{number}... ");
        }
        out.push_str(&notation::display(&pos, mv));
        if !white {
            number += 1;
        }
        pos = pos.play(mv);
    }
    out
}

/// Makes `count` balanced openings for international draughts: random games of 4 or 6 plies
/// (2 or 3 moves) from the initial position, each kept when its position is new, has no capture
/// pending, and a `depth` search of Kroon's scores it within `max_score` men of equal. Deterministic for a `seed`. One PDN
/// line each, with the score and depth as a comment; `progress` hears each one kept.
#[must_use]
pub fn generate(
    count: usize,
    depth: u32,
    max_score: f64,
    seed: u64,
    progress: &dyn Fn(usize, &str),
) -> Vec<String> {
    let start = Position::initial(Variant::International);
    let mut rng = SplitMix(seed);
    let mut seen = HashSet::new();
    let mut engine = Engine::new(1, 16);
    let mut out = Vec::new();
    let limit = (max_score * f64::from(score::MAN)).round() as i32;
    let mut tries = 0;
    while out.len() < count && tries < count * 50 {
        tries += 1;
        let plies = if tries % 2 == 0 { 4 } else { 6 };
        let mut game = Game::new(start);
        for _ in 0..plies {
            let legal = game.position().legal_moves();
            if legal.is_empty() {
                break;
            }
            let Some(&mv) = legal.as_slice().get(rng.below(legal.len())) else {
                break;
            };
            if game.play(&mv).is_err() {
                break;
            }
        }
        let pos = *game.position();
        // Only quiet positions: no capture pending, so no opening stops half-way through an
        // exchange.
        let legal = pos.legal_moves();
        let quiet = !legal.is_empty() && !legal.iter().any(Move::is_capture);
        if game.moves().len() != plies || !quiet || !seen.insert(pos.key()) {
            continue;
        }
        engine.new_game();
        let req = SearchRequest {
            game: game.clone(),
            limits: Limits::Depth(depth),
            ponder: false,
        };
        let result = engine.search(&req, &|_| {});
        // The score is the side to move's; the comment gives White's, as a reader expects.
        let white = if pos.turn() == Colour::White {
            result.score
        } else {
            -result.score
        };
        if white.abs() > limit {
            continue;
        }
        let line = format!(
            "{} {{{:+.2}/{}}} *",
            movetext(&start, game.moves()),
            score::in_men(white),
            result.depth
        );
        progress(out.len() + 1, &line);
        out.push(line);
    }
    out
}

/// splitmix64: a small seeded generator, so that generated openings and shuffles repeat.
#[derive(Clone, Debug)]
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        (self.next_u64() % n as u64) as usize
    }

    /// Shuffles a slice in place (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V: Variant = Variant::International;

    #[test]
    fn the_embedded_set_is_large_legal_and_distinct() {
        let set = default_set(V).unwrap();
        assert!(set.len() >= 100, "{} openings", set.len());
        let mut seen = HashSet::new();
        for o in &set {
            assert!(
                (4..=6).contains(&o.moves.len()),
                "{} plies: {}",
                o.moves.len(),
                o.describe()
            );
            assert!(seen.insert(o.position().key()), "twice: {}", o.describe());
        }
        assert_eq!(default_set(Variant::Russian).unwrap().len(), 1);
    }

    #[test]
    fn reads_fen_lines() {
        let text = "# two positions\nW:W31-50:B1-20\n\nB:W31-50:B1-20\n";
        let o = parse(text, V, None).unwrap();
        assert_eq!(o.len(), 2);
        assert_eq!(o[1].start.turn(), Colour::Black);
        assert!(o[0].moves.is_empty());
        let hub = parse(
            "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww\n",
            V,
            None,
        )
        .unwrap();
        assert_eq!(hub[0].start, Position::initial(V));
        // A position with no legal move is no opening.
        assert!(parse("W:W:B1-20\n", V, None).is_err());
    }

    #[test]
    fn reads_pdn_games_and_cuts_them() {
        let text = r#"
[Event "test"]
[White "a"]
[Black "b"]
[Result "2-0"]
1. 32-28 19-23 2. 28x19 {forced} 14x23 (2... 13x24 3. 34-29) 3. 37-32! 10-14 2-0

[FEN "B:W31-50:B1-20"]
1... 19-23 2. 32-28 *
1.33-29 $1 18-22 1-1
"#;
        let games = read_pdn(text).unwrap();
        assert_eq!(games.len(), 3);
        assert_eq!(
            games[0].moves,
            ["32-28", "19-23", "28x19", "14x23", "37-32", "10-14"]
        );
        assert_eq!(games[0].tag("white"), Some("a"));
        assert_eq!(games[2].moves, ["33-29", "18-22"]);
        let o = parse(text, V, Some(4)).unwrap();
        assert_eq!(o.len(), 3);
        assert_eq!(o[0].moves.len(), 4);
        assert_eq!(o[0].describe(), "32-28 19-23 28x19 14x23");
        assert_eq!(o[1].start.turn(), Colour::Black);
        assert_eq!(o[1].moves.len(), 2);
        assert_eq!(movetext(&o[1].start, &o[1].moves), "1... 19-23 2. 32-28");
        assert_eq!(
            movetext(&o[0].start, &o[0].moves),
            "1. 32-28 19-23 2. 28x19 14x23"
        );
        let bad = "1. 32-28 32-28 *";
        let err = parse(bad, V, None).unwrap_err();
        assert!(format!("{err:#}").contains("32-28"), "{err:#}");
    }

    #[test]
    fn generated_openings_are_balanced_and_repeatable() {
        let a = generate(3, 4, 0.3, 7, &|_, _| {});
        let b = generate(3, 4, 0.3, 7, &|_, _| {});
        assert_eq!(a, b);
        assert_eq!(a.len(), 3);
        let o = parse(&a.join("\n"), V, None).unwrap();
        assert_eq!(o.len(), 3);
    }

    #[test]
    fn shuffles_repeat_for_a_seed() {
        let mut a: Vec<u32> = (0..20).collect();
        let mut b = a.clone();
        SplitMix(5).shuffle(&mut a);
        SplitMix(5).shuffle(&mut b);
        assert_eq!(a, b);
        a.sort_unstable();
        assert_eq!(a, (0..20).collect::<Vec<_>>());
    }
}
