//! The position: where every piece stands, who plays, whose turn it is and which round, with the
//! rules that act between moves (the turn order, finishing, and the anti-blocking rule).

use crate::board::{Camp, Hole, Holes};
use crate::movegen::{destinations, Move};

/// Rounds at whose end each player must have at least this many pieces out of its own camp, or
/// it loses (the competition rule against blocking: 5, 8 and 10 at rounds 20, 25 and 30).
pub const ANTI_BLOCKING: [(u16, u32); 3] = [(20, 5), (25, 8), (30, 10)];

/// The camps that play a game of `n` players, in turn order (clockwise from the bottom):
/// 2 players sit opposite, 3 every other camp, 4 as two opposite pairs, 5 leave one camp empty.
pub fn seats_for(players: usize) -> Option<&'static [Camp]> {
    const A: Camp = Camp::ALL[0];
    const B: Camp = Camp::ALL[1];
    const C: Camp = Camp::ALL[2];
    const D: Camp = Camp::ALL[3];
    const E: Camp = Camp::ALL[4];
    const F: Camp = Camp::ALL[5];
    match players {
        2 => Some(&[A, D]),
        3 => Some(&[A, C, E]),
        4 => Some(&[A, B, D, E]),
        5 => Some(&[A, B, C, D, E]),
        6 => Some(&[A, B, C, D, E, F]),
        _ => None,
    }
}

/// A position of a game of 1 to 6 players (1 is the solitaire puzzle).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    pub(crate) pieces: [Holes; 6],
    pub(crate) occupied: Holes,
    /// Camps in play, as bits.
    pub(crate) seats: u8,
    /// Camps that have lost by forfeit (anti-blocking rule or clock); their pieces are gone.
    pub(crate) out: u8,
    pub(crate) to_move: Camp,
    /// The round being played, from 1.
    pub(crate) round: u16,
    /// Rule option: the long hop (空跳).
    pub(crate) long_hop: bool,
    pub(crate) key: u64,
}

impl Position {
    /// The starting position of a game of `players` (2 to 6).
    pub fn start(players: usize) -> Option<Position> {
        Some(Position::start_with(seats_for(players)?))
    }

    /// The starting position with these camps in play.
    pub fn start_with(camps: &[Camp]) -> Position {
        let mut pieces = [Holes::EMPTY; 6];
        let mut seats = 0;
        for &c in camps {
            pieces[c.index()] = c.holes();
            seats |= 1 << c.index();
        }
        Position::from_parts(pieces, seats, 0, camps[0], 1, false)
    }

    /// A position built from piece lists: the camps listed play (in turn order), `to_move` moves,
    /// round 1. For set problems and tests; a camp may have fewer than ten pieces.
    pub fn setup(pieces: &[(Camp, Holes)], to_move: Camp) -> Position {
        let mut by_camp = [Holes::EMPTY; 6];
        let mut seats = 1 << to_move.index();
        for &(c, holes) in pieces {
            by_camp[c.index()] |= holes;
            seats |= 1 << c.index();
        }
        Position::from_parts(by_camp, seats, 0, to_move, 1, false)
    }

    /// The same position in round `round` (for set problems and tests).
    #[must_use]
    pub fn in_round(mut self, round: u16) -> Position {
        self.round = round.max(1);
        self
    }

    pub(crate) fn from_parts(
        pieces: [Holes; 6],
        seats: u8,
        out: u8,
        to_move: Camp,
        round: u16,
        long_hop: bool,
    ) -> Position {
        let mut occupied = Holes::EMPTY;
        for p in pieces {
            occupied |= p;
        }
        let mut pos = Position {
            pieces,
            occupied,
            seats,
            out,
            to_move,
            round,
            long_hop,
            key: 0,
        };
        pos.key = pos.compute_key();
        pos
    }

    /// The same position with the long-hop option on or off.
    #[must_use]
    pub fn with_long_hop(mut self, on: bool) -> Position {
        self.long_hop = on;
        self
    }
    /// Whether the long-hop option is on.
    pub fn long_hop(&self) -> bool {
        self.long_hop
    }
    /// The pieces of a camp's player.
    pub fn pieces(&self, c: Camp) -> Holes {
        self.pieces[c.index()]
    }
    /// Every occupied hole.
    pub fn occupied(&self) -> Holes {
        self.occupied
    }
    /// The player to move.
    pub fn to_move(&self) -> Camp {
        self.to_move
    }
    /// The round being played, from 1.
    pub fn round(&self) -> u16 {
        self.round
    }
    /// Hash of pieces and side to move (not of the round).
    pub fn key(&self) -> u64 {
        self.key
    }
    /// Camps in play, in turn order, including finished and forfeited players.
    pub fn seats(&self) -> impl Iterator<Item = Camp> + '_ {
        Camp::ALL
            .into_iter()
            .filter(|c| self.seats >> c.index() & 1 != 0)
    }
    /// Whether the camp's player has forfeited.
    pub fn is_out(&self, c: Camp) -> bool {
        self.out >> c.index() & 1 != 0
    }
    /// Whether the camp's player has filled its goal.
    pub fn has_finished(&self, c: Camp) -> bool {
        let p = self.pieces[c.index()];
        p.count() == 10 && p == c.opposite().holes()
    }
    /// Whether the camp's player still moves: in play, not finished, not out.
    pub fn is_active(&self, c: Camp) -> bool {
        self.seats >> c.index() & 1 != 0 && !self.is_out(c) && !self.has_finished(c)
    }
    /// Players still moving, in turn order.
    pub fn active(&self) -> impl Iterator<Item = Camp> + '_ {
        Camp::ALL.into_iter().filter(|&c| self.is_active(c))
    }
    /// Whether the game is over: a player has filled its goal in a two-player game, or fewer
    /// than two players are still moving (one alone plays on only in the solitaire).
    pub fn is_over(&self) -> bool {
        let seated = self.seats.count_ones();
        let active = self.active().count();
        if seated == 1 {
            return active == 0;
        }
        active <= 1 || (seated == 2 && self.seats().any(|c| self.has_finished(c)))
    }

    /// Every legal move of the player to move, piece by piece in reading order.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::with_capacity(96);
        self.moves_of(self.to_move, &mut out);
        out
    }

    /// Appends every move of `camp`'s pieces (whoever is to move).
    pub fn moves_of(&self, camp: Camp, out: &mut Vec<Move>) {
        for from in self.pieces[camp.index()].iter() {
            for to in destinations(self.occupied, from, self.long_hop).iter() {
                out.push(Move { from, to });
            }
        }
    }

    /// Number of legal moves of the player to move, without listing them.
    pub fn count_moves(&self) -> u64 {
        self.pieces[self.to_move.index()]
            .iter()
            .map(|from| u64::from(destinations(self.occupied, from, self.long_hop).count()))
            .sum()
    }

    /// Whether `mv` is legal for the player to move.
    pub fn is_legal(&self, mv: Move) -> bool {
        self.pieces[self.to_move.index()].has(mv.from)
            && destinations(self.occupied, mv.from, self.long_hop).has(mv.to)
    }

    /// Plays a move of the player to move, then passes the turn on (see [`Position::pass`]).
    #[must_use]
    pub fn play(&self, mv: Move) -> Position {
        debug_assert!(self.is_legal(mv), "{mv} in {self}");
        let mut next = self.moved(self.to_move, mv);
        next.advance();
        next
    }

    /// Moves a piece of `camp` without passing the turn (for searches that let any player move).
    #[must_use]
    pub fn moved(&self, camp: Camp, mv: Move) -> Position {
        let mut next = *self;
        let c = camp.index();
        let bits = mv.from.bit().0 | mv.to.bit().0;
        next.pieces[c].0 ^= bits;
        next.occupied.0 ^= bits;
        next.key ^= zobrist(c, mv.from) ^ zobrist(c, mv.to);
        next
    }

    /// The same position with `camp` to move (for searches that let any player move).
    #[must_use]
    pub fn with_to_move(&self, camp: Camp) -> Position {
        let mut next = *self;
        next.key ^= SIDE[self.to_move.index()] ^ SIDE[camp.index()];
        next.to_move = camp;
        next
    }

    /// The player to move has no move (or gives up its turn): the turn passes on.
    #[must_use]
    pub fn pass(&self) -> Position {
        let mut next = *self;
        next.advance();
        next
    }

    /// The player `camp` loses by forfeit: its pieces leave the board.
    #[must_use]
    pub fn forfeit(&self, camp: Camp) -> Position {
        let mut next = *self;
        next.remove(camp);
        if next.to_move == camp {
            next.advance();
        }
        next
    }

    fn remove(&mut self, camp: Camp) {
        let c = camp.index();
        for h in self.pieces[c].iter() {
            self.key ^= zobrist(c, h);
        }
        self.occupied.0 &= !self.pieces[c].0;
        self.pieces[c] = Holes::EMPTY;
        self.out |= 1 << c;
    }

    /// Passes the turn to the next player still moving, clockwise; at the end of a round, applies
    /// the anti-blocking rule.
    fn advance(&mut self) {
        let from = self.to_move.index();
        let mut wrapped = false;
        for step in 1..=6 {
            let i = (from + step) % 6;
            if i <= from && !wrapped {
                wrapped = true;
                self.end_round();
            }
            let c = Camp::ALL[i];
            if self.is_active(c) {
                self.set_to_move(c);
                return;
            }
        }
        // Nobody moves any more: the game is over; the turn stays where it was.
    }

    fn set_to_move(&mut self, c: Camp) {
        self.key ^= SIDE[self.to_move.index()] ^ SIDE[c.index()];
        self.to_move = c;
    }

    /// Closes the round and applies the anti-blocking rule (not to the solitaire); the search
    /// calls it where a round ends inside its tree.
    pub(crate) fn end_round(&mut self) {
        let ended = self.round;
        self.round = self.round.saturating_add(1);
        if self.seats.count_ones() < 2 {
            return;
        }
        let Some(&(_, need)) = ANTI_BLOCKING.iter().find(|&&(r, _)| r == ended) else {
            return;
        };
        for c in Camp::ALL {
            if self.is_active(c) && self.outside_home(c) < need {
                self.remove(c);
            }
        }
    }

    /// How many of the player's pieces stand outside its own camp.
    pub fn outside_home(&self, c: Camp) -> u32 {
        (self.pieces[c.index()] & !c.holes()).count()
    }

    fn compute_key(&self) -> u64 {
        let mut k = SIDE[self.to_move.index()];
        for c in 0..6 {
            for h in self.pieces[c].iter() {
                k ^= zobrist(c, h);
            }
        }
        k
    }
}

/// One splitmix64 output from the state `x`: a Zobrist key.
const fn splitmix(x: u64) -> u64 {
    kroon_rules::hash::splitmix64(x).1
}

const PIECE_KEYS: [[u64; 121]; 6] = {
    let mut t = [[0u64; 121]; 6];
    let mut c = 0;
    while c < 6 {
        let mut h = 0;
        while h < 121 {
            t[c][h] = splitmix(0x6368_696e_6573_6500 ^ ((c as u64) << 8 | h as u64));
            h += 1;
        }
        c += 1;
    }
    t
};

const SIDE: [u64; 6] = {
    let mut t = [0u64; 6];
    let mut c = 0;
    while c < 6 {
        t[c] = splitmix(0x7475_726e_0000_0000 ^ c as u64);
        c += 1;
    }
    t
};

#[inline]
fn zobrist(c: usize, h: Hole) -> u64 {
    PIECE_KEYS[c][h.index()]
}
