//! The Chinese checkers board: a game as the page sends it (a start and the events since: moves,
//! passes, clock overruns) and as the page draws it (the star's holes with names and places,
//! the moves of the player to move with the holes each chain passes, the round, the anti-blocking
//! counts and the standings), and the engine's move for a seat it plays.

use anyhow::{anyhow, bail, Context, Result};
use kroon_chinese_checkers::game::{Game, MAX_OVERRUNS, MOVE_SECONDS};
use kroon_chinese_checkers::movegen::path;
use kroon_chinese_checkers::position::ANTI_BLOCKING;
use kroon_chinese_checkers::search::{Limit, Searcher};
use kroon_chinese_checkers::{eval, Camp, Hole, Move, Position};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Most events a game from the page may hold.
pub const MAX_EVENTS: usize = 5_000;

/// A game from the page.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChineseSpec {
    /// Position text of the start; the start of `players` when absent or empty.
    #[serde(default)]
    pub position: Option<String>,
    /// Players, 2 to 6, when no position is given.
    #[serde(default = "two")]
    pub players: usize,
    /// What happened since the start, in order: `from-to` (a move), `pass` (the player to move
    /// had none), `overrun X` (camp X let its move clock run out).
    #[serde(default)]
    pub events: Vec<String>,
}

fn two() -> usize {
    2
}

/// One hole as the page draws it.
#[derive(Serialize)]
pub struct HoleView {
    /// Name, e.g. `e5`.
    pub name: String,
    /// Place on the page: x to the right, y down, one unit between neighbours.
    pub x: f64,
    /// See `x`.
    pub y: f64,
    /// Camp letter of the piece on it.
    pub piece: Option<char>,
    /// Camp letter of the camp the hole belongs to (the star's points).
    pub camp: Option<char>,
}

/// A move of the player to move.
#[derive(Serialize)]
pub struct MoveView {
    /// `from-to`.
    pub id: String,
    /// Hole the piece leaves.
    pub from: String,
    /// Hole it lands on.
    pub to: String,
    /// Every hole it passes, `from` first (two for a step).
    pub path: Vec<String>,
}

/// One player's state.
#[derive(Serialize)]
pub struct PlayerView {
    /// Camp letter.
    pub camp: char,
    /// Still moving.
    pub active: bool,
    /// Filled its goal.
    pub finished: bool,
    /// Lost by forfeit.
    pub out: bool,
    /// Pieces outside its own camp (the anti-blocking count).
    pub outside_home: u32,
    /// How many must be outside at the next check, and that check's round, if one is ahead.
    pub need: Option<(u16, u32)>,
    /// Clock overruns so far.
    pub overruns: u8,
    /// Rows still to go.
    pub to_go: i32,
}

/// A final standing.
#[derive(Serialize)]
pub struct StandingView {
    /// Camp letter.
    pub camp: char,
    /// Place, from 1.
    pub place: usize,
    /// Points.
    pub points: u32,
}

/// What the page draws.
#[derive(Serialize)]
pub struct ChineseView {
    /// Position text of the start.
    pub start: String,
    /// Position text now.
    pub position: String,
    /// Camp to move.
    pub to_move: char,
    /// Round being played.
    pub round: u16,
    /// Whether the game is over.
    pub over: bool,
    /// The 121 holes.
    pub holes: Vec<HoleView>,
    /// Moves of the player to move (empty when it must pass or the game is over).
    pub moves: Vec<MoveView>,
    /// The players in turn order.
    pub players: Vec<PlayerView>,
    /// Places and points once the game is over.
    pub standings: Vec<StandingView>,
    /// The holes the last move passed, for showing it.
    pub last: Vec<String>,
    /// Seconds a move may take.
    pub move_seconds: f64,
    /// Overruns that lose.
    pub max_overruns: u8,
}

impl ChineseSpec {
    /// The start position.
    ///
    /// # Errors
    /// A bad position text or player count.
    pub fn start(&self) -> Result<Position> {
        match self.position.as_deref().map(str::trim) {
            None | Some("") => Position::start(self.players)
                .ok_or_else(|| anyhow!("players must be 2 to 6, not {}", self.players)),
            Some(text) => text
                .parse()
                .with_context(|| format!("bad position `{text}`")),
        }
    }

    /// The game with every event applied, each checked by the rules; and the last move's path.
    ///
    /// # Errors
    /// A bad start, too many events, or an event that does not fit where it comes.
    pub fn game(&self) -> Result<(Game, Vec<Hole>)> {
        if self.events.len() > MAX_EVENTS {
            bail!("more than {MAX_EVENTS} events");
        }
        let mut game = Game::new(self.start()?);
        let mut last = Vec::new();
        for (i, text) in self.events.iter().enumerate() {
            let text = text.trim();
            let at = || format!("event {} `{text}`", i + 1);
            if game.pos.is_over() {
                bail!("{}: the game is over", at());
            }
            if text == "pass" {
                if !game.pos.legal_moves().is_empty() {
                    bail!("{}: {} has moves", at(), game.pos.to_move());
                }
                game.pass();
            } else if let Some(letter) = text.strip_prefix("overrun ") {
                let camp = letter
                    .chars()
                    .next()
                    .and_then(Camp::from_letter)
                    .filter(|&c| game.pos.is_active(c))
                    .ok_or_else(|| anyhow!("{}: no camp still moving", at()))?;
                game.overrun(camp);
            } else {
                let mv = Move::parse(&game.pos, text).with_context(at)?;
                last = path(game.pos.occupied(), mv, game.pos.long_hop()).unwrap_or_default();
                game.play(mv);
            }
        }
        Ok((game, last))
    }

    /// What the page draws.
    ///
    /// # Errors
    /// As [`ChineseSpec::game`].
    pub fn view(&self) -> Result<ChineseView> {
        let start = self.start()?;
        let (game, last) = self.game()?;
        let pos = &game.pos;
        let over = pos.is_over();
        let holes = (0..kroon_chinese_checkers::board::HOLES)
            .filter_map(Hole::new)
            .map(|h| {
                let (q, r, _) = h.cube();
                HoleView {
                    name: h.to_string(),
                    x: f64::from(q) + f64::from(r) / 2.0,
                    y: -f64::from(r) * 3f64.sqrt() / 2.0,
                    piece: pos
                        .seats()
                        .find(|&c| pos.pieces(c).has(h))
                        .map(Camp::letter),
                    camp: Camp::ALL
                        .into_iter()
                        .find(|c| c.holes().has(h))
                        .map(Camp::letter),
                }
            })
            .collect();
        let moves = if over {
            Vec::new()
        } else {
            pos.legal_moves()
                .into_iter()
                .map(|mv| MoveView {
                    id: mv.to_string(),
                    from: mv.from.to_string(),
                    to: mv.to.to_string(),
                    path: path(pos.occupied(), mv, pos.long_hop())
                        .unwrap_or_default()
                        .iter()
                        .map(Hole::to_string)
                        .collect(),
                })
                .collect()
        };
        let need = ANTI_BLOCKING
            .iter()
            .find(|&&(r, _)| r >= pos.round())
            .copied();
        let players = pos
            .seats()
            .map(|c| PlayerView {
                camp: c.letter(),
                active: pos.is_active(c),
                finished: pos.has_finished(c),
                out: pos.is_out(c),
                outside_home: pos.outside_home(c),
                need,
                overruns: game.overruns(c),
                to_go: eval::distance(pos, c),
            })
            .collect();
        let standings = if over {
            game.standings(false)
                .into_iter()
                .map(|s| StandingView {
                    camp: s.camp.letter(),
                    place: s.place,
                    points: s.points,
                })
                .collect()
        } else {
            Vec::new()
        };
        Ok(ChineseView {
            start: start.to_string(),
            position: pos.to_string(),
            to_move: pos.to_move().letter(),
            round: pos.round(),
            over,
            holes,
            moves,
            players,
            standings,
            last: last.iter().map(Hole::to_string).collect(),
            move_seconds: MOVE_SECONDS,
            max_overruns: MAX_OVERRUNS,
        })
    }
}

/// A request for the engine's move in a game from the page.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSpec {
    /// The game.
    pub game: ChineseSpec,
    /// Seconds to think (at most the move clock's ten).
    #[serde(default = "one")]
    pub seconds: f64,
}

fn one() -> f64 {
    1.0
}

/// The engine's answer.
#[derive(Serialize)]
pub struct EngineMove {
    /// `from-to`, or `pass` when the player to move has no move.
    pub event: String,
    /// Plies searched.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
}

impl EngineSpec {
    /// Searches the game's position for the player to move (blocking: call off the runtime).
    ///
    /// # Errors
    /// A bad game, a game over, or a bad time.
    pub fn search(&self) -> Result<EngineMove> {
        let (game, _) = self.game.game()?;
        if game.pos.is_over() {
            bail!("the game is over");
        }
        if !(self.seconds.is_finite() && self.seconds > 0.0) {
            bail!("seconds must be a positive number");
        }
        // Keep within the move clock, with a margin for the answer's way back.
        let secs = self.seconds.min(MOVE_SECONDS - 0.5);
        let mut searcher = Searcher::new(16);
        let r = searcher.search(
            &game.pos,
            Limit::Time(Duration::from_secs_f64(secs)),
            &mut |_| {},
        );
        Ok(EngineMove {
            event: r.best.map_or_else(|| "pass".to_owned(), |m| m.to_string()),
            depth: r.depth,
            nodes: r.nodes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(position: Option<&str>, players: usize, events: &[&str]) -> ChineseSpec {
        ChineseSpec {
            position: position.map(str::to_owned),
            players,
            events: events.iter().map(|e| (*e).to_owned()).collect(),
        }
    }

    #[test]
    fn the_view_replays_events_and_shows_chains_hole_by_hole() {
        let v = spec(None, 3, &[]).view().unwrap();
        assert_eq!(v.holes.len(), 121);
        assert_eq!(v.holes.iter().filter(|h| h.piece.is_some()).count(), 30);
        assert_eq!(v.players.len(), 3);
        assert_eq!((v.to_move, v.round), ('A', 1));
        // Moves agree with the rules' list, and each path runs from the piece to its landing.
        let start = Position::start(3).unwrap();
        assert_eq!(v.moves.len(), start.legal_moves().len());
        for m in &v.moves {
            assert_eq!(m.path.first(), Some(&m.from));
            assert_eq!(m.path.last(), Some(&m.to));
        }
        // A hop chain: A's piece on i5 over i6 and i8.
        let at = |n: &str| Hole::parse(n).unwrap().bit();
        let pos = Position::setup(
            &[
                (Camp::ALL[0], at("i5") | at("a1")),
                (Camp::ALL[3], at("i6") | at("i8") | at("q1")),
            ],
            Camp::ALL[0],
        );
        let text = pos.to_string();
        let v = spec(Some(&text), 2, &["i5-i9"]).view().unwrap();
        assert_eq!(v.last, ["i5", "i7", "i9"]);
        assert_eq!(v.to_move, 'D');
        // Overruns count; the third forfeits.
        let v = spec(Some(&text), 2, &["overrun A", "overrun A", "overrun A"])
            .view()
            .unwrap();
        assert!(v.over);
        assert!(v.players.iter().any(|p| p.camp == 'A' && p.out));
    }

    #[test]
    fn bad_events_are_refused_with_their_place() {
        for (events, want) in [
            (vec!["i5-i9"], "event 1 `i5-i9`"),
            (vec!["a1-b1", "zz"], "event 1 `a1-b1`"),
            (vec!["pass"], "has moves"),
            (vec!["overrun F"], "no camp still moving"),
        ] {
            let e = spec(None, 2, &events).view().err().unwrap();
            assert!(format!("{e:#}").contains(want), "{events:?}: {e:#}");
        }
        assert!(spec(None, 7, &[]).view().is_err());
    }
}
