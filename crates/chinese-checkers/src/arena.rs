//! Engine against engine: who sits where, how each chooses its move, and a game played out
//! under the clock rule.

use std::time::{Duration, Instant};

use crate::game::{Game, Standing, MOVE_SECONDS};
use crate::movegen::Move;
use crate::position::Position;
use crate::search::{greedy, Limit, Searcher};

/// How a seat chooses its moves.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Seat {
    /// The move that gains the most rows.
    Greedy,
    /// The search, under a limit.
    Engine(Limit),
}

impl Seat {
    /// Parses `greedy`, `engine` (0.1 s a move), `engine:time=S`, `engine:nodes=N` or
    /// `engine:depth=D`.
    pub fn parse(text: &str) -> Result<Seat, String> {
        let bad = || {
            format!("bad seat {text:?}: greedy, engine, engine:time=S, engine:nodes=N or engine:depth=D")
        };
        match text.split_once(':') {
            None if text == "greedy" => Ok(Seat::Greedy),
            None if text == "engine" => Ok(Seat::Engine(Limit::Time(Duration::from_millis(100)))),
            Some(("engine", spec)) => {
                let (k, v) = spec.split_once('=').ok_or_else(bad)?;
                match k {
                    "time" => {
                        let s: f64 = v.parse().map_err(|_| bad())?;
                        if !(s > 0.0 && s < 1e6) {
                            return Err(bad());
                        }
                        Ok(Seat::Engine(Limit::Time(Duration::from_secs_f64(s))))
                    }
                    "nodes" => Ok(Seat::Engine(Limit::Nodes(v.parse().map_err(|_| bad())?))),
                    "depth" => Ok(Seat::Engine(Limit::Depth(v.parse().map_err(|_| bad())?))),
                    _ => Err(bad()),
                }
            }
            _ => Err(bad()),
        }
    }
}

/// A small seeded generator for the random openings (splitmix64).
pub use kroon_rules::hash::SplitMix64 as Rng;

/// A random opening: `plies` moves, each chosen at random among the moves that gain ground.
pub fn random_opening(start: Position, plies: usize, rng: &mut Rng) -> Vec<Move> {
    let mut pos = start;
    let mut out = Vec::new();
    for _ in 0..plies {
        if pos.is_over() {
            break;
        }
        let me = pos.to_move();
        let moves: Vec<Move> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| me.forward(m.to) > me.forward(m.from))
            .collect();
        if moves.is_empty() {
            break;
        }
        let mv = moves[rng.below(moves.len())];
        out.push(mv);
        pos = pos.play(mv);
    }
    out
}

/// Plays a game from `start` after `opening`, `seats[i]` moving for the i-th player in turn
/// order, until it is over or `max_rounds` rounds have been played.
pub fn play_game(start: Position, opening: &[Move], seats: &[Seat], max_rounds: u16) -> Game {
    let camps: Vec<_> = start.seats().collect();
    let mut searchers: Vec<Searcher> = camps.iter().map(|_| Searcher::new(16)).collect();
    let mut game = Game::new(start);
    for &mv in opening {
        game.play(mv);
    }
    while !game.pos.is_over() && game.pos.round() <= max_rounds {
        let me = game.pos.to_move();
        let i = camps
            .iter()
            .position(|&c| c == me)
            .expect("the player to move is seated");
        let began = Instant::now();
        let mv = match seats[i % seats.len()] {
            Seat::Greedy => greedy(&game.pos),
            Seat::Engine(limit) => searchers[i].search(&game.pos, limit, &mut |_| {}).best,
        };
        if began.elapsed().as_secs_f64() > MOVE_SECONDS && game.overrun(me) {
            continue;
        }
        match mv {
            Some(mv) => game.play(mv),
            None => game.pass(),
        }
    }
    game
}

/// How a match is played.
#[derive(Copy, Clone, Debug)]
pub struct MatchRules {
    /// Games.
    pub games: usize,
    /// Random plies (each gaining ground) opening each group of games; all the rotations of a
    /// group share their opening.
    pub random_plies: usize,
    /// Seed of the openings.
    pub seed: u64,
    /// Rounds after which a game is adjudicated by distance to go.
    pub max_rounds: u16,
}

/// One game of a match as it ended: each player's standing with the index of the seat spec
/// that played it.
#[derive(Clone, Debug)]
pub struct MatchGame {
    /// Rounds played.
    pub rounds: u16,
    /// Whether the game was cut at the round limit and placed by distance to go.
    pub adjudicated: bool,
    /// Standings in place order, each with its seat spec.
    pub results: Vec<(Standing, usize)>,
}

/// One seat spec's totals over a match.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// Points (2 a win, 1 a loss, 0 a forfeit).
    pub points: u32,
    /// Games won.
    pub wins: u32,
    /// Seats the spec filled over all games.
    pub seats_played: u32,
    /// Forfeits.
    pub forfeits: u32,
    /// Places summed (divide by `seats_played` for the mean).
    pub place_sum: u32,
}

/// Plays a match: game `g` seats the specs `g` places round the table (the `i`-th player of the
/// game is spec `(i + g) mod specs`), so each spec plays every camp; `on_game` sees each game as
/// it ends. Returns one tally per spec.
pub fn run_match(
    start: Position,
    seats: &[Seat],
    rules: MatchRules,
    on_game: &mut dyn FnMut(&MatchGame),
) -> Result<Vec<Tally>, String> {
    if seats.is_empty() {
        return Err("no seats".into());
    }
    let camps: Vec<_> = start.seats().collect();
    let n = camps.len();
    if n < 2 {
        return Err("a match needs at least two players".into());
    }
    let mut tally = vec![Tally::default(); seats.len()];
    let mut rng = Rng(rules.seed);
    let mut opening = Vec::new();
    for g in 0..rules.games {
        if g % n == 0 {
            opening = random_opening(start, rules.random_plies, &mut rng);
        }
        let table: Vec<usize> = (0..n).map(|i| (i + g % n) % seats.len()).collect();
        let playing: Vec<Seat> = table.iter().map(|&k| seats[k]).collect();
        let game = play_game(start, &opening, &playing, rules.max_rounds);
        let adjudicated = !game.pos.is_over();
        let mut results = Vec::with_capacity(n);
        for s in game.standings(adjudicated) {
            let i = camps.iter().position(|&c| c == s.camp).expect("seated");
            let k = table[i];
            let t = &mut tally[k];
            t.points += s.points;
            t.place_sum += s.place as u32;
            t.seats_played += 1;
            t.wins += u32::from(s.points == 2);
            t.forfeits += u32::from(s.forfeited);
            results.push((s, k));
        }
        on_game(&MatchGame {
            rounds: game.pos.round(),
            adjudicated,
            results,
        });
    }
    Ok(tally)
}
