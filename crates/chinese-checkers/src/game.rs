//! A game under the competition rules: the position plus what the position does not hold:
//! the order players finished in, who forfeited, clock overruns, and the scoring
//! (2 points for a win, 1 for a loss, 0 for a forfeit).

use crate::board::Camp;
use crate::eval::distance;
use crate::movegen::Move;
use crate::position::Position;

/// Clock overruns after which a player loses.
pub const MAX_OVERRUNS: u8 = 3;
/// The time a move may take under the competition rules, in seconds.
pub const MOVE_SECONDS: f64 = 10.0;

/// One player's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    /// The player's camp.
    pub camp: Camp,
    /// Place, from 1.
    pub place: usize,
    /// Points: 2 for the winner, 1 for a loss, 0 for a forfeit.
    pub points: u32,
    /// Whether the player forfeited (anti-blocking rule or clock).
    pub forfeited: bool,
    /// Whether the player filled its goal.
    pub finished: bool,
}

/// A game in progress.
#[derive(Clone, Debug)]
pub struct Game {
    /// The current position.
    pub pos: Position,
    /// The moves played, `None` for a pass.
    pub moves: Vec<Option<Move>>,
    overruns: [u8; 6],
    finished: Vec<Camp>,
    forfeited: Vec<Camp>,
}

impl Game {
    /// A game from `pos`.
    pub fn new(pos: Position) -> Game {
        let mut g = Game {
            pos,
            moves: Vec::new(),
            overruns: [0; 6],
            finished: Vec::new(),
            forfeited: Vec::new(),
        };
        g.note_changes();
        g
    }

    /// Plays a legal move of the player to move.
    pub fn play(&mut self, mv: Move) {
        self.pos = self.pos.play(mv);
        self.moves.push(Some(mv));
        self.note_changes();
    }

    /// The player to move has no move and passes.
    pub fn pass(&mut self) {
        self.pos = self.pos.pass();
        self.moves.push(None);
        self.note_changes();
    }

    /// Records that `camp` overran the move time; the third time it loses. Returns whether it
    /// forfeited.
    pub fn overrun(&mut self, camp: Camp) -> bool {
        let n = &mut self.overruns[camp.index()];
        *n += 1;
        if *n >= MAX_OVERRUNS && !self.pos.is_out(camp) {
            self.pos = self.pos.forfeit(camp);
            self.note_changes();
            return true;
        }
        false
    }

    /// Overruns so far of `camp`.
    pub fn overruns(&self, camp: Camp) -> u8 {
        self.overruns[camp.index()]
    }

    fn note_changes(&mut self) {
        for c in self.pos.seats() {
            if self.pos.has_finished(c) && !self.finished.contains(&c) {
                self.finished.push(c);
            }
            if self.pos.is_out(c) && !self.forfeited.contains(&c) {
                self.forfeited.push(c);
            }
        }
    }

    /// Places and points now: finishers in the order they finished, then the players still
    /// moving by their distance to go (fewest rows first: the adjudication when a game is cut
    /// short), then the forfeits, the latest first. If nobody finished, the first place is the
    /// win only when the others forfeited or the game was adjudicated (`adjudicate`).
    pub fn standings(&self, adjudicate: bool) -> Vec<Standing> {
        let mut order: Vec<Camp> = self.finished.clone();
        let mut moving: Vec<Camp> = self.pos.active().collect();
        moving.sort_by_key(|&c| distance(&self.pos, c));
        order.extend(moving);
        order.extend(self.forfeited.iter().rev());
        let someone_finished = !self.finished.is_empty();
        let all_others_out = self.forfeited.len() + 1 == self.pos.seats().count();
        order
            .iter()
            .enumerate()
            .map(|(i, &camp)| {
                let forfeited = self.forfeited.contains(&camp);
                let wins =
                    i == 0 && !forfeited && (someone_finished || all_others_out || adjudicate);
                Standing {
                    camp,
                    place: i + 1,
                    points: if forfeited {
                        0
                    } else if wins {
                        2
                    } else {
                        1
                    },
                    forfeited,
                    finished: self.finished.contains(&camp),
                }
            })
            .collect()
    }
}
