//! A game as the page sends it (variant, start, moves) and as the page draws it: the board's
//! squares with their names and pieces, the legal moves, the moves played and the result.

use anyhow::{bail, Context, Result};
use kroon_rules::{
    notation, parse_fen, parse_hub_move, side_name, square_name, write_fen, Game, GameResult, Move,
    Outcome, Position, Variant,
};
use serde::{Deserialize, Serialize};

/// Most moves a game from the page may hold.
pub const MAX_MOVES: usize = 2_000;

/// A game from the page: moves are in the Hub form (`28x19x23`: from, to, every captured field,
/// in Kroon's field numbers), which names one move whatever the variant.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameSpec {
    /// Hub name of the variant (`normal`, `russian` ...).
    pub variant: String,
    /// PDN FEN of the start; the variant's initial position when absent or empty.
    #[serde(default)]
    pub fen: Option<String>,
    /// The moves from the start.
    #[serde(default)]
    pub moves: Vec<String>,
    /// Show the board after this many moves (default: all of them).
    #[serde(default)]
    pub ply: Option<usize>,
}

impl GameSpec {
    /// The variant, read.
    ///
    /// # Errors
    /// A name Kroon does not know.
    pub fn variant(&self) -> Result<Variant> {
        self.variant
            .parse()
            .map_err(|_| anyhow::anyhow!("unknown variant `{}`", self.variant))
    }

    /// The start position.
    ///
    /// # Errors
    /// A bad variant or FEN.
    pub fn start(&self) -> Result<Position> {
        let v = self.variant()?;
        match self.fen.as_deref().map(str::trim) {
            None | Some("") => Ok(Position::initial(v)),
            Some(fen) => parse_fen(fen, v).with_context(|| format!("bad FEN `{fen}`")),
        }
    }

    /// The game with its first `plies` moves played, each checked by the rules.
    ///
    /// # Errors
    /// A bad start, too many moves, or a move that is not legal where it is played.
    pub fn game(&self, plies: usize) -> Result<Game> {
        if self.moves.len() > MAX_MOVES {
            bail!("more than {MAX_MOVES} moves");
        }
        let mut game = Game::new(self.start()?);
        for (i, text) in self.moves.iter().take(plies).enumerate() {
            let mv = parse_hub_move(game.position(), text)
                .with_context(|| format!("move {} `{text}`", i + 1))?;
            game.play(&mv)
                .map_err(|_| anyhow::anyhow!("move {} `{text}` is not legal", i + 1))?;
        }
        Ok(game)
    }

    /// What the page draws.
    ///
    /// # Errors
    /// As [`GameSpec::game`]; a `ply` beyond the moves.
    pub fn view(&self) -> Result<GameView> {
        let all = self.game(usize::MAX)?;
        let ply = self.ply.unwrap_or(all.moves().len());
        if ply > all.moves().len() {
            bail!("ply {ply} is beyond the game's {} moves", all.moves().len());
        }
        let shown = self.game(ply)?;
        let pos = shown.position();
        let v = pos.variant();
        let history = all
            .moves()
            .iter()
            .zip(all.positions())
            .map(|(mv, before)| MoveView::new(before, mv))
            .collect();
        let last = ply
            .checked_sub(1)
            .and_then(|i| Some(MoveView::new(all.positions().get(i)?, all.moves().get(i)?)));
        Ok(GameView {
            variant: v.hub_name(),
            columns: v.geometry().columns,
            start_fen: write_fen(all.start()),
            fen: write_fen(pos),
            ply,
            turn: side_name(v, pos.turn()),
            squares: squares(pos),
            legal: pos
                .legal_moves()
                .iter()
                .map(|mv| MoveView::new(pos, mv))
                .collect(),
            history,
            last,
            outcome: shown.outcome().map(|o| describe(o, v)),
            result: shown.outcome().map_or("*", result),
        })
    }
}

/// One playable square as drawn.
#[derive(Clone, Debug, Serialize)]
pub struct SquareView {
    /// Kroon's field number: the key moves refer to.
    pub field: u8,
    /// The name the variant's players give it (`32`, `c3`).
    pub name: String,
    /// Row from the top and column from the left, White at the bottom (in English the first
    /// mover, Black, at the top).
    pub row: u8,
    /// See `row`.
    pub col: u8,
    /// `w`, `b` (men), `W`, `B` (kings), in the colours the variant's players give them.
    pub piece: Option<&'static str>,
}

/// A move as the page shows and sends it.
#[derive(Clone, Debug, Serialize)]
pub struct MoveView {
    /// The Hub form, sent back to play it.
    pub id: String,
    /// As the variant's players write it.
    pub text: String,
    /// Field it leaves.
    pub from: u8,
    /// Field it ends on.
    pub to: u8,
    /// Fields of the pieces it takes.
    pub captured: Vec<u8>,
}

impl MoveView {
    /// `mv` as played in `pos`.
    #[must_use]
    pub fn new(pos: &Position, mv: &Move) -> MoveView {
        let g = pos.variant().geometry();
        MoveView {
            id: notation::hub(mv, pos.variant()),
            text: notation::display(pos, mv),
            from: g.field(mv.from),
            to: g.field(mv.to),
            captured: mv.captured.squares().map(|sq| g.field(sq)).collect(),
        }
    }
}

/// The whole board as the page draws it.
#[derive(Clone, Debug, Serialize)]
pub struct GameView {
    /// Hub name of the variant.
    pub variant: &'static str,
    /// 10 or 8.
    pub columns: u8,
    /// FEN of the start.
    pub start_fen: String,
    /// FEN of the position shown.
    pub fen: String,
    /// Moves played before the position shown.
    pub ply: usize,
    /// Who moves, as the variant's players call the side.
    pub turn: &'static str,
    /// Every playable square.
    pub squares: Vec<SquareView>,
    /// The legal moves of the position shown.
    pub legal: Vec<MoveView>,
    /// Every move of the game.
    pub history: Vec<MoveView>,
    /// The move that led to the position shown.
    pub last: Option<MoveView>,
    /// The result, when the position shown ends the game.
    pub outcome: Option<String>,
    /// The PDN result token.
    pub result: &'static str,
}

/// The playable squares, numbered from the top left in the variant's own names, as `kroon show`
/// draws them.
fn squares(pos: &Position) -> Vec<SquareView> {
    let v = pos.variant();
    let g = v.geometry();
    let n = g.columns;
    let mut out = Vec::with_capacity(usize::from(g.fields));
    for row in 0..n {
        for col in 0..n {
            let Some(sq) = kroon_rules::square_at(v, usize::from(row), usize::from(col)) else {
                continue;
            };
            let piece = pos.piece_at(sq).map(|p| kroon_rules::piece_letter(v, p));
            out.push(SquareView {
                field: g.field(sq),
                name: square_name(v, sq),
                row,
                col,
                piece,
            });
        }
    }
    out
}

/// An outcome as the variant's players say it: `White wins`, `draw: ...`.
#[must_use]
pub fn describe(outcome: Outcome, v: Variant) -> String {
    match outcome {
        Outcome::Win(side) => format!("{} wins", side_name(v, side)),
        Outcome::Draw(reason) => format!("draw: {}", reason.describe(v)),
    }
}

/// The PDN result token of an outcome.
#[must_use]
pub fn result(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win(side) => GameResult::win(side).pdn(),
        Outcome::Draw(_) => GameResult::Draw.pdn(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(variant: &str, fen: Option<&str>, moves: &[&str]) -> GameSpec {
        GameSpec {
            variant: variant.into(),
            fen: fen.map(Into::into),
            moves: moves.iter().map(|m| (*m).to_owned()).collect(),
            ply: None,
        }
    }

    #[test]
    fn every_variant_draws_its_board_with_its_own_names() {
        for v in Variant::ALL {
            let view = spec(v.hub_name(), None, &[]).view().unwrap();
            let g = v.geometry();
            assert_eq!(view.squares.len(), usize::from(g.fields), "{v}");
            assert_eq!(view.legal.len(), Position::initial(v).legal_moves().len());
            let names: std::collections::HashSet<_> =
                view.squares.iter().map(|s| &s.name).collect();
            assert_eq!(
                names.len(),
                usize::from(g.fields),
                "{v}: names are distinct"
            );
            for s in &view.squares {
                let sq = g.square(u32::from(s.field)).unwrap();
                assert_eq!(s.name, square_name(v, sq));
            }
        }
        // Russian names squares by letter and rank, a1 at White's bottom left.
        let view = spec("russian", None, &[]).view().unwrap();
        let a1 = view.squares.iter().find(|s| s.name == "a1").unwrap();
        assert_eq!((a1.row, a1.col, a1.piece), (7, 0, Some("w")));
        // International: field 1 top left of the dark squares, Black's men on 1-20.
        let view = spec("normal", None, &[]).view().unwrap();
        let first = &view.squares[0];
        assert_eq!(
            (first.name.as_str(), first.row, first.col, first.piece),
            ("1", 0, 1, Some("b"))
        );
    }

    #[test]
    fn moves_replay_and_a_capture_names_its_pieces() {
        let view = spec("normal", None, &["32-28", "19-23", "28x19"])
            .view()
            .unwrap();
        assert_eq!(view.history.len(), 3);
        assert_eq!(view.history[2].text, "28x19");
        assert_eq!(view.history[2].captured, vec![23]);
        assert_eq!(view.turn, "Black");
        let back = GameSpec {
            ply: Some(1),
            ..spec("normal", None, &["32-28", "19-23"])
        }
        .view()
        .unwrap();
        assert_eq!((back.ply, back.history.len(), back.turn), (1, 2, "Black"));
        assert_eq!(back.last.unwrap().text, "32-28");
    }

    #[test]
    fn bad_games_are_refused_with_a_reason() {
        let err = |s: GameSpec| format!("{:#}", s.view().unwrap_err());
        assert!(err(spec("normal", None, &["32-26"])).contains("move 1 `32-26`"));
        assert!(err(spec("normal", None, &["32-28", "32-28"])).contains("move 2"));
        assert!(err(spec("chess", None, &[])).contains("unknown variant"));
        assert!(err(spec("normal", Some("W:W99"), &[])).contains("bad FEN"));
        assert!(err(GameSpec {
            ply: Some(3),
            ..spec("normal", None, &["32-28"])
        })
        .contains("beyond"));
        let many = vec!["32-28"; MAX_MOVES + 1];
        assert!(err(spec("normal", None, &many)).contains("more than"));
    }

    #[test]
    fn a_finished_game_has_its_result() {
        // White's last man is taken: Black wins.
        let view = spec("normal", Some("B:W28:B23,19"), &["23x32"])
            .view()
            .unwrap();
        assert_eq!(view.outcome.as_deref(), Some("Black wins"));
        assert_eq!(view.result, "0-2");
    }
}
