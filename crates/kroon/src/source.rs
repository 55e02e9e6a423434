//! Where `kroon analyse` and `kroon show` take their position from: a FEN and moves played from
//! it, or a game of a PDN file, cut after some plies.

use anyhow::{bail, Context, Result};
use kroon_rules::{decode_text, parse_move, read_pdn, Game, Move, PdnGame, Position, Variant};
use std::path::Path;

/// For each game of a file, from 1: its index among the games read, or why it was skipped.
pub type Numbers = Vec<Result<usize, String>>;

/// Reads a PDN file: the games that read, in order, and the file's numbering of them. Skipped
/// games are logged.
pub fn read_games(path: &Path, variant: Variant) -> Result<(Vec<PdnGame>, Numbers)> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let file = read_pdn(&decode_text(&bytes), variant);
    let total = file.games.len() + file.skipped.len();
    let mut numbers = Vec::with_capacity(total);
    let mut next = 0;
    for n in 1..=total {
        match file.skipped.iter().find(|s| s.number == n) {
            Some(s) => {
                tracing::warn!("{}: skipped {s}", path.display());
                numbers.push(Err(s.to_string()));
            }
            None => {
                numbers.push(Ok(next));
                next += 1;
            }
        }
    }
    Ok((file.games, numbers))
}

/// The game `number` (from 1) of a PDN file, after `ply` of its plies (all when `None`).
///
/// # Errors
/// The file cannot be read, has no such game, the game was skipped, or is shorter than `ply`.
pub fn pdn_game(path: &Path, variant: Variant, number: usize, ply: Option<usize>) -> Result<Game> {
    let (games, numbers) = read_games(path, variant)?;
    let index = match numbers.get(number.wrapping_sub(1)) {
        Some(Ok(i)) => *i,
        Some(Err(why)) => bail!("{}: {why}", path.display()),
        None => bail!(
            "{} has {} games; there is no game {number}",
            path.display(),
            numbers.len()
        ),
    };
    let Some(pdn) = games.get(index) else {
        bail!("no game {number}");
    };
    let moves = pdn.moves();
    let ply = ply.unwrap_or(moves.len());
    if ply > moves.len() {
        bail!(
            "game {number} has {} plies; --ply {ply} is past its end",
            moves.len()
        );
    }
    let mut game = Game::new(pdn.start);
    for mv in moves.iter().take(ply) {
        game.play(mv)
            .map_err(|e| anyhow::anyhow!("game {number}: {e}"))?;
    }
    Ok(game)
}

/// Plays the moves of `text` (space-separated, in the variant's notation) onto `game`.
///
/// # Errors
/// A move that does not read or is not legal.
pub fn play_moves(game: &mut Game, text: Option<&str>) -> Result<()> {
    for t in text.unwrap_or_default().split_whitespace() {
        let mv = parse_move(game.position(), t).with_context(|| format!("move `{t}`"))?;
        game.play(&mv).with_context(|| format!("move `{t}`"))?;
    }
    Ok(())
}

/// The last move of a game, if any, and the position it was played from.
#[must_use]
pub fn last_move(game: &Game) -> Option<(Position, Move)> {
    let moves = game.moves();
    let positions = game.positions();
    let mv = *moves.last()?;
    let before = *positions.get(positions.len().checked_sub(2)?)?;
    Some((before, mv))
}
