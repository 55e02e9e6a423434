//! PDN in and out of the web board, through the rules crate's PDN reader and writer.

use crate::view::{result, GameSpec};
use anyhow::Result;
use kroon_rules::{notation, write_fen, write_pdn, PdnGame, Position, Variant};
use serde::{Deserialize, Serialize};

/// Most games one upload may hold.
pub const MAX_GAMES: usize = 5_000;

/// A game of a PDN file, ready for the board; or why it could not be read.
#[derive(Clone, Debug, Serialize)]
pub struct LoadedGame {
    /// Tag pairs as written.
    pub tags: Vec<(String, String)>,
    /// Hub name of the variant (from `GameType` or `Variant`, else the one asked for).
    pub variant: &'static str,
    /// FEN of the start.
    pub fen: String,
    /// The moves in the Hub form the board sends back.
    pub moves: Vec<String>,
    /// Why the game could not be read (then it has no moves).
    pub error: Option<String>,
}

/// Reads every game of a PDN text with the rules crate's PDN reader; a game it cannot read is kept
/// with its error, so the page can say which one failed.
///
/// # Errors
/// Too many games, or none that reads.
pub fn read_games(text: &str, default: Variant) -> Result<Vec<LoadedGame>> {
    let file = kroon_rules::pdn::read_pdn(text, default);
    // Nothing readable at all is an error for the whole upload, with the first game's reason.
    if file.games.is_empty() {
        if let Some(s) = file.skipped.first() {
            anyhow::bail!("{s}");
        }
    }
    if file.games.len() + file.skipped.len() > MAX_GAMES {
        anyhow::bail!("more than {MAX_GAMES} games");
    }
    // The games read fill the places in the file that no skipped game holds.
    let skipped: std::collections::BTreeSet<usize> =
        file.skipped.iter().map(|s| s.number).collect();
    let mut places = (1..).filter(|n| !skipped.contains(n));
    let mut out: Vec<(usize, LoadedGame)> = Vec::new();
    for g in file.games {
        let k = places.next().unwrap_or(usize::MAX);
        let v = g.start.variant();
        let moves = g.moves().iter().map(|mv| notation::hub(mv, v)).collect();
        out.push((
            k,
            LoadedGame {
                variant: v.hub_name(),
                fen: write_fen(&g.start),
                moves,
                error: None,
                tags: g.tags,
            },
        ));
    }
    for s in file.skipped {
        out.push((
            s.number,
            LoadedGame {
                tags: vec![("Game".into(), s.name.clone())],
                variant: default.hub_name(),
                fen: write_fen(&Position::initial(default)),
                moves: Vec::new(),
                error: Some(s.to_string()),
            },
        ));
    }
    out.sort_by_key(|(k, _)| *k);
    Ok(out.into_iter().map(|(_, g)| g).collect())
}

/// A game to write as PDN, with the players' names.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WriteSpec {
    /// The game.
    pub game: GameSpec,
    /// White's name.
    #[serde(default)]
    pub white: Option<String>,
    /// Black's name.
    #[serde(default)]
    pub black: Option<String>,
}

impl WriteSpec {
    /// The PDN text of the whole game; the result is the rules' when the game is over, else `*`.
    ///
    /// # Errors
    /// As [`GameSpec::game`].
    pub fn write(&self) -> Result<String> {
        let game = self.game.game(usize::MAX)?;
        let res = game.outcome().map_or("*", result);
        let name = |n: &Option<String>| n.clone().unwrap_or_else(|| "?".into());
        let tags = vec![
            ("Event".to_string(), "Kroon web board".to_string()),
            ("White".into(), name(&self.white)),
            ("Black".into(), name(&self.black)),
            ("Result".into(), res.into()),
        ];
        Ok(write_pdn(&PdnGame::new(
            tags,
            *game.start(),
            game.moves(),
            res,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_game_reads_back_the_same_in_every_variant() {
        for v in Variant::ALL {
            // Six plies of the first legal move, from the initial position.
            let mut pos = Position::initial(v);
            let mut moves = Vec::new();
            for _ in 0..6 {
                let Some(mv) = pos.legal_moves().iter().next().copied() else {
                    break;
                };
                moves.push(notation::hub(&mv, v));
                pos = pos.play(&mv);
            }
            let spec = WriteSpec {
                game: GameSpec {
                    variant: v.hub_name().into(),
                    fen: None,
                    moves: moves.clone(),
                    ply: None,
                },
                white: Some("Kroon".into()),
                black: None,
            };
            let text = spec.write().unwrap();
            // Read with another default variant: the tags must carry the variant.
            let other = if v == Variant::Russian {
                Variant::International
            } else {
                Variant::Russian
            };
            let back = read_games(&text, other).unwrap();
            assert_eq!(back.len(), 1, "{text}");
            assert_eq!(back[0].error, None, "{v}: {text}");
            assert_eq!(back[0].variant, v.hub_name(), "{text}");
            assert_eq!(back[0].moves, moves, "{v}: {text}");
        }
    }

    #[test]
    fn a_bad_game_is_named_and_the_others_kept() {
        let text = "[White \"a\"]\n1. 32-28 19-23 *\n\n[White \"b\"]\n1. 32-26 *\n\n[FEN \"W:W28:B23\"]\n1. 28x19 *\n";
        let games = read_games(text, Variant::International).unwrap();
        assert_eq!(games.len(), 3);
        assert_eq!(games[0].moves, ["32-28", "19-23"]);
        assert!(games[1].error.as_deref().unwrap().contains("32-26"));
        assert_eq!(
            (games[2].fen.as_str(), games[2].moves.as_slice()),
            ("W:W28:B23", &["28x19x23".to_owned()][..])
        );
        assert!(read_games("{ never closed", Variant::International).is_err());
    }
}
