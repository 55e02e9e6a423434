//! Openings: where each game pair starts. Read from a file of FEN lines or of PDN games (cut after
//! `--opening-plies`), or the default set embedded in the binary, which `--generate-openings`
//! makes with Kroon's own search (`kroon_learn::openings`: the search is no part of this crate).

// A reader of outside input (openings files): bad text must come back as errors, so no
// panicking shortcuts.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

use anyhow::{bail, Context, Result};
pub use kroon_rules::pdn::movetext;
use kroon_rules::{notation, parse_fen, parse_hub, read_pdn, Move, PdnGame, Position, Variant};
use std::path::Path;

/// The default openings (international draughts): positions 2 or 3 moves from the start that a
/// short search of Kroon's scored close to equal. One PDN game per line; made by
/// `kroon match --generate-openings 160 --generate-depth 12 --seed 1` (see
/// `kroon_learn::openings::generate`).
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

/// The 8x8 variants' sets, made the same way (`--variant russian` and so on).
const RUSSIAN: &str = include_str!("../../../scripts/openings/russian.txt");
const BRAZILIAN: &str = include_str!("../../../scripts/openings/brazilian.txt");
const ENGLISH: &str = include_str!("../../../scripts/openings/english.txt");
/// Frisian and losing draughts' sets, made the same way on the international board.
const FRISIAN: &str = include_str!("../../../scripts/openings/frisian.txt");
const LOSING: &str = include_str!("../../../scripts/openings/losing.txt");

/// The embedded set of `variant`: international draughts' also serves killer and breakthrough;
/// frisian, losing and the three 8x8 variants have their own.
///
/// # Errors
/// Only if an embedded file is broken, which a unit test rules out.
pub fn default_set(variant: Variant) -> Result<Vec<Opening>> {
    let text = match variant {
        // Killer and breakthrough men move and take as in international draughts: generated
        // for each (120 at depth 10, seed 1), their sets have the same lines as international
        // draughts' generated the same way.
        Variant::International | Variant::Killer | Variant::Breakthrough => DEFAULT,
        Variant::Russian => RUSSIAN,
        Variant::Brazilian => BRAZILIAN,
        Variant::English => ENGLISH,
        Variant::Frisian => FRISIAN,
        Variant::Losing => LOSING,
    };
    parse(text, variant, None).with_context(|| format!("the embedded {variant} openings"))
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
        // `#` lines are comments in an openings file, not PDN.
        let pdn: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .map(|l| format!("{l}\n"))
            .collect();
        let file = read_pdn(&pdn, variant);
        // A tournament must not quietly play fewer openings than its file holds.
        if let Some(skipped) = file.skipped.first() {
            bail!("PDN {skipped}");
        }
        for (i, game) in file.games.iter().enumerate() {
            openings.push(
                opening(game, variant, plies).with_context(|| format!("PDN game {}", i + 1))?,
            );
        }
    }
    openings.retain(|o| !o.position().legal_moves().is_empty());
    if openings.is_empty() {
        bail!("no playable opening found");
    }
    Ok(openings)
}

/// A game read from a PDN file as an opening: its start and its first `plies` moves.
///
/// # Errors
/// The game is of another variant than the match.
pub fn opening(game: &PdnGame, variant: Variant, plies: Option<usize>) -> Result<Opening> {
    let of = game.start.variant();
    if of != variant {
        bail!("the game is {of}, the match plays {variant}");
    }
    let mut moves = game.moves();
    moves.truncate(plies.unwrap_or(usize::MAX));
    Ok(Opening {
        start: game.start,
        moves,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kroon_rules::hash::SplitMix64;
    use kroon_rules::Colour;
    use std::collections::HashSet;

    const V: Variant = Variant::International;

    #[test]
    fn the_embedded_sets_are_large_legal_and_distinct() {
        for variant in [
            V,
            Variant::Russian,
            Variant::Brazilian,
            Variant::English,
            Variant::Frisian,
            Variant::Killer,
            Variant::Breakthrough,
            Variant::Losing,
        ] {
            let set = default_set(variant).unwrap();
            assert!(set.len() >= 100, "{variant}: {} openings", set.len());
            let mut seen = HashSet::new();
            for o in &set {
                assert_eq!(o.start, Position::initial(variant));
                assert!(
                    (4..=6).contains(&o.moves.len()),
                    "{variant}: {} plies: {}",
                    o.moves.len(),
                    o.describe()
                );
                assert!(seen.insert(o.position().key()), "twice: {}", o.describe());
            }
        }
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
        let games = read_pdn(text, V).games;
        assert_eq!(games.len(), 3);
        assert_eq!(games[0].moves().len(), 6);
        assert_eq!(games[0].tag("white"), Some("a"));
        assert_eq!(
            movetext(&games[2].start, &games[2].moves()),
            "1. 33-29 18-22"
        );
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
    fn shuffles_repeat_for_a_seed() {
        let mut a: Vec<u32> = (0..20).collect();
        let mut b = a.clone();
        SplitMix64(5).shuffle(&mut a);
        SplitMix64(5).shuffle(&mut b);
        assert_eq!(a, b);
        a.sort_unstable();
        assert_eq!(a, (0..20).collect::<Vec<_>>());
    }
}
