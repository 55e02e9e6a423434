//! PDN in and out of the web board. Reading goes through [`read_games`] alone, so that a fuller
//! PDN reader can take the place of the openings reader it uses today.

use crate::view::{result, GameSpec};
use anyhow::Result;
use kroon_rules::{notation, pdn, write_fen, write_pdn, PdnGame, Position, Variant};
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

/// The variant a game's tags name.
fn tagged_variant(tags: &[(String, String)]) -> Option<Variant> {
    let tag = |name: &str| {
        tags.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim())
    };
    if let Some(t) = tag("GameType") {
        // `20`, or `20,W,10,10,N2,0` as some programs write it.
        let number = t
            .split(',')
            .next()
            .and_then(|n| n.trim().parse::<u32>().ok());
        if let Some(v) = Variant::ALL
            .into_iter()
            .find(|&v| pdn::game_type(v) == number)
        {
            return Some(v);
        }
    }
    tag("Variant").and_then(|name| name.parse().ok())
}

/// Reads every game of a PDN text. Today's reader is the one `kroon match --openings` uses; a
/// game it cannot replay is kept with its error so the page can say which one failed.
///
/// # Errors
/// Text the reader cannot split into games (an unclosed comment or variation), or too many games.
pub fn read_games(text: &str, default: Variant) -> Result<Vec<LoadedGame>> {
    let games = kroon_match::openings::read_pdn(text)?;
    if games.len() > MAX_GAMES {
        anyhow::bail!("more than {MAX_GAMES} games");
    }
    Ok(games
        .into_iter()
        .map(|g| {
            let v = tagged_variant(&g.tags).unwrap_or(default);
            match g.opening(v, None) {
                Ok(o) => {
                    let mut pos = o.start;
                    let moves = o
                        .moves
                        .iter()
                        .map(|mv| {
                            let id = notation::hub(mv, v);
                            pos = pos.play(mv);
                            id
                        })
                        .collect();
                    LoadedGame {
                        tags: g.tags,
                        variant: v.hub_name(),
                        fen: write_fen(&o.start),
                        moves,
                        error: None,
                    }
                }
                Err(e) => LoadedGame {
                    tags: g.tags,
                    variant: v.hub_name(),
                    fen: write_fen(&Position::initial(v)),
                    moves: Vec::new(),
                    error: Some(format!("{e:#}")),
                },
            }
        })
        .collect())
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
        Ok(write_pdn(&PdnGame {
            head: vec![
                ("Event", "Kroon web board".into()),
                ("White", name(&self.white)),
                ("Black", name(&self.black)),
                ("Result", res.into()),
            ],
            tail: Vec::new(),
            start: *game.start(),
            moves: game.moves(),
            comments: Vec::new(),
            last: None,
            result: res,
        }))
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
