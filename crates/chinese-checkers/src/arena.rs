//! Engine against engine: who sits where, how each chooses its move, and a game played out
//! under the clock rule.

use std::time::{Duration, Instant};

use crate::game::{Game, Standing, MOVE_SECONDS};
use crate::mcts::{Mcts, MctsConfig};
use crate::movegen::Move;
use crate::position::Position;
use crate::search::{greedy, Algorithm, Limit, Searcher};
use kroon_rules::hash::mix64 as mix;

/// How a seat chooses its moves.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Seat {
    /// The move that gains the most rows.
    Greedy,
    /// The alpha-beta search (best-reply with three players or more), under a limit.
    Engine(Limit),
    /// Paranoid alpha-beta search, under a limit.
    Paranoid(Limit),
    /// Monte Carlo tree search, under a limit (nodes are iterations), with its parameters.
    Mcts(Limit, MctsConfig),
}

impl Seat {
    /// Parses `greedy`, or a player and its options: `engine` (or `brs`), `paranoid` or `mcts`,
    /// then `:key=value` options: `time=S` (seconds a move; 0.1 when no limit is given),
    /// `nodes=N`, `depth=D` (not for `mcts`), and for `mcts` also `c=X` (the exploration
    /// weight), `playout=P` (plies before the evaluation cuts a playout) and `seed=S`.
    pub fn parse(text: &str) -> Result<Seat, String> {
        let bad = || {
            format!(
                "bad seat {text:?}: greedy, or engine (brs), paranoid or mcts, each with options \
                 :time=S, :nodes=N, :depth=D (not mcts), and for mcts :c=X, :playout=P, :seed=S"
            )
        };
        let mut parts = text.split(':');
        let name = parts.next().unwrap_or_default();
        if name == "greedy" {
            return if parts.next().is_none() {
                Ok(Seat::Greedy)
            } else {
                Err(bad())
            };
        }
        let mut limit = Limit::Time(Duration::from_millis(100));
        let mut config = MctsConfig::default();
        let mcts = name == "mcts";
        for part in parts {
            let (k, v) = part.split_once('=').ok_or_else(bad)?;
            let number = || v.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0);
            match k {
                "time" => {
                    let s = number().filter(|&s| s > 0.0 && s < 1e6).ok_or_else(bad)?;
                    limit = Limit::Time(Duration::from_secs_f64(s));
                }
                "nodes" => limit = Limit::Nodes(v.parse().map_err(|_| bad())?),
                "depth" if !mcts => limit = Limit::Depth(v.parse().map_err(|_| bad())?),
                "c" if mcts => config.exploration = number().ok_or_else(bad)?,
                "playout" if mcts => config.playout_plies = v.parse().map_err(|_| bad())?,
                "seed" if mcts => config.seed = v.parse().map_err(|_| bad())?,
                _ => return Err(bad()),
            }
        }
        match name {
            "engine" | "brs" => Ok(Seat::Engine(limit)),
            "paranoid" => Ok(Seat::Paranoid(limit)),
            "mcts" => Ok(Seat::Mcts(limit, config)),
            _ => Err(bad()),
        }
    }
}

/// A seat's player with what it keeps from move to move.
enum Player {
    Greedy,
    Search(Searcher, Limit),
    Mcts(Mcts, Limit),
}

impl Player {
    /// The player for `seat`; `seed` varies the Monte Carlo playouts from game to game.
    fn new(seat: Seat, seed: u64) -> Player {
        match seat {
            Seat::Greedy => Player::Greedy,
            Seat::Engine(limit) => Player::Search(Searcher::new(16), limit),
            Seat::Paranoid(limit) => {
                Player::Search(Searcher::with_algorithm(16, Algorithm::Paranoid), limit)
            }
            Seat::Mcts(limit, config) => Player::Mcts(
                Mcts::new(MctsConfig {
                    seed: mix(config.seed ^ seed),
                    ..config
                }),
                limit,
            ),
        }
    }

    /// The move chosen, and the nodes (or iterations) it took.
    fn choose(&mut self, pos: &Position) -> (Option<Move>, u64) {
        match self {
            Player::Greedy => (greedy(pos), 0),
            Player::Search(s, limit) => {
                let r = s.search(pos, *limit, &mut |_| {});
                (r.best, r.nodes)
            }
            Player::Mcts(m, limit) => {
                let r = m.search(pos, *limit);
                (r.best, r.iterations)
            }
        }
    }
}

/// What a seat spent over a game or a match.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Effort {
    /// Moves chosen.
    pub moves: u32,
    /// Nodes searched (iterations for Monte Carlo).
    pub nodes: u64,
    /// Time spent choosing.
    pub think: Duration,
}

impl Effort {
    fn add(&mut self, other: Effort) {
        self.moves += other.moves;
        self.nodes += other.nodes;
        self.think += other.think;
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
/// order, until it is over or `max_rounds` rounds have been played; `seed` varies the Monte
/// Carlo players' playouts. Returns the game and what each player spent.
pub fn play_game(
    start: Position,
    opening: &[Move],
    seats: &[Seat],
    max_rounds: u16,
    seed: u64,
) -> (Game, Vec<Effort>) {
    let camps: Vec<_> = start.seats().collect();
    let mut players: Vec<Player> = (0..camps.len())
        .map(|i| Player::new(seats[i % seats.len()], seed.wrapping_add(i as u64)))
        .collect();
    let mut effort = vec![Effort::default(); camps.len()];
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
        let (mv, nodes) = players[i].choose(&game.pos);
        effort[i].add(Effort {
            moves: 1,
            nodes,
            think: began.elapsed(),
        });
        if began.elapsed().as_secs_f64() > MOVE_SECONDS && game.overrun(me) {
            continue;
        }
        match mv {
            Some(mv) => game.play(mv),
            None => game.pass(),
        }
    }
    (game, effort)
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
    /// Moves, nodes and time spent.
    pub effort: Effort,
}

/// Plays a match: game `g` seats the specs `g` places round the table (the `i`-th player of the
/// game is spec `(i + g) mod specs`), so over `specs` games each spec plays every camp once,
/// and those games share their random opening; `on_game` sees each game as it ends. Returns one
/// tally per spec.
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
        if g % seats.len() == 0 {
            opening = random_opening(start, rules.random_plies, &mut rng);
        }
        let table: Vec<usize> = (0..n).map(|i| (i + g) % seats.len()).collect();
        let playing: Vec<Seat> = table.iter().map(|&k| seats[k]).collect();
        let (game, effort) = play_game(
            start,
            &opening,
            &playing,
            rules.max_rounds,
            mix(rules.seed ^ ((g as u64) << 20)),
        );
        for (i, e) in effort.into_iter().enumerate() {
            tally[table[i]].effort.add(e);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_parse_with_their_options() {
        assert_eq!(Seat::parse("greedy"), Ok(Seat::Greedy));
        assert_eq!(
            Seat::parse("brs:nodes=500"),
            Ok(Seat::Engine(Limit::Nodes(500)))
        );
        assert_eq!(
            Seat::parse("paranoid:depth=3"),
            Ok(Seat::Paranoid(Limit::Depth(3)))
        );
        let config = MctsConfig {
            exploration: 0.7,
            playout_plies: 2,
            ..MctsConfig::default()
        };
        assert_eq!(
            Seat::parse("mcts:nodes=800:c=0.7:playout=2"),
            Ok(Seat::Mcts(Limit::Nodes(800), config))
        );
        for bad in [
            "mcts:depth=3",
            "greedy:nodes=5",
            "brs:c=1",
            "minimax",
            "brs:time=0",
        ] {
            assert!(Seat::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rotation_seats_each_spec_in_every_camp() {
        // Three specs at a table of four: over three games each spec sits in each camp once.
        let start = Position::start(4).unwrap();
        let seats = [Seat::Greedy; 3];
        let rules = MatchRules {
            games: 6,
            random_plies: 0,
            seed: 1,
            max_rounds: 1,
        };
        let mut count = [[0u32; 6]; 3];
        let tally = run_match(start, &seats, rules, &mut |g| {
            for (s, k) in &g.results {
                count[*k][s.camp.index()] += 1;
            }
        })
        .unwrap();
        for (k, camps) in count.iter().enumerate() {
            for c in start.seats() {
                assert_eq!(camps[c.index()], 2, "spec {k} in {c}");
            }
            assert_eq!(tally[k].seats_played, 8);
        }
    }
}
