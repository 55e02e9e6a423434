//! `kroon chinese ...`: Chinese checkers on the star board (the kroon-chinese-checkers crate).

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand};
use kroon_chinese_checkers::arena::{run_match, MatchRules, Seat};
use kroon_chinese_checkers::eval::{distance, WIN};
use kroon_chinese_checkers::game::{Game, MOVE_SECONDS};
use kroon_chinese_checkers::prove::{prove, Method, ProofLimits, Stop};
use kroon_chinese_checkers::search::{Limit, Searcher};
use kroon_chinese_checkers::solve::{beam, beam_two, replay, Puzzle};
use kroon_chinese_checkers::{diagram, divide, perft, Camp, Move, Position};

/// The position of a Chinese checkers command.
#[derive(Args, Debug, Clone)]
pub struct ChinesePosition {
    /// Players: 2 to 6 (2 sit opposite, 3 every other camp, 4 as two opposite pairs, 5 leave
    /// one camp empty); ignored with --position. In solve, --players 2 asks for the shortest
    /// two-player game instead of the solitaire.
    #[arg(long)]
    players: Option<usize>,
    /// Position text, e.g. "D/DD/DDD/DDDD/13/12/11/10/9/10/11/12/13/AAAA/AAA/AA/A A AD 1"
    /// (default: the start of --players).
    #[arg(long)]
    position: Option<String>,
    /// Rule option: the long hop (空跳), over a piece at any distance to the mirror point.
    #[arg(long)]
    long_hop: bool,
}

impl ChinesePosition {
    fn resolve(&self) -> Result<Position> {
        let pos = match &self.position {
            Some(text) => text
                .parse::<Position>()
                .with_context(|| format!("bad position {text:?}"))?,
            None => {
                let n = self.players.unwrap_or(2);
                Position::start(n).ok_or_else(|| anyhow!("--players must be 2 to 6, not {n}"))?
            }
        };
        Ok(if self.long_hop {
            pos.with_long_hop(true)
        } else {
            pos
        })
    }
}

/// How long the engine thinks.
#[derive(Args, Debug, Clone)]
pub struct ChineseLimit {
    /// Seconds a move (default 0.1 in play and match, 5 in analyse).
    #[arg(long, conflicts_with_all = ["depth", "nodes"])]
    time: Option<f64>,
    /// Plies.
    #[arg(long, conflicts_with = "nodes")]
    depth: Option<u32>,
    /// About this many nodes a move.
    #[arg(long)]
    nodes: Option<u64>,
}

impl ChineseLimit {
    fn resolve(&self, default_secs: f64) -> Result<Limit> {
        Ok(match (self.time, self.depth, self.nodes) {
            (Some(t), _, _) if t.is_finite() && t > 0.0 && t < 1e6 => {
                Limit::Time(Duration::from_secs_f64(t))
            }
            (Some(t), _, _) => bail!("--time must be a positive number of seconds, not {t}"),
            (_, Some(0), _) => bail!("--depth must be at least 1"),
            (_, Some(d), _) => Limit::Depth(d),
            (_, _, Some(n)) => Limit::Nodes(n.max(1)),
            _ => Limit::Time(Duration::from_secs_f64(default_secs)),
        })
    }
}

/// Chinese checkers subcommands.
#[derive(Subcommand, Debug)]
pub enum ChineseCommand {
    /// Print the board, the position text and whose turn it is.
    Show {
        #[command(flatten)]
        position: ChinesePosition,
    },
    /// List the legal moves of the player to move, one per line ("from-to").
    Moves {
        #[command(flatten)]
        position: ChinesePosition,
    },
    /// Count the leaves of the move tree.
    Perft {
        #[command(flatten)]
        position: ChinesePosition,
        /// Plies.
        #[arg(long, short)]
        depth: u32,
        /// Print the count below each move.
        #[arg(long)]
        divide: bool,
    },
    /// Search the position: one line per iteration, then the best move.
    Analyse {
        #[command(flatten)]
        position: ChinesePosition,
        #[command(flatten)]
        limit: ChineseLimit,
    },
    /// Play in the terminal against the engine.
    Play {
        #[command(flatten)]
        position: ChinesePosition,
        #[command(flatten)]
        limit: ChineseLimit,
        /// The camps a person plays (letters A-F), the others are engine seats.
        #[arg(long, default_value = "A")]
        human: String,
    },
    /// The fewest moves for the player to move, alone (others' pieces stand still), to bring its
    /// ten pieces into the camp across; without --position, camp A alone on the board. With
    /// --players 2: the shortest two-player game, both sides playing together (a beam search).
    Solve {
        #[command(flatten)]
        position: ChinesePosition,
        /// Positions kept at each depth of the beam search.
        #[arg(long, default_value_t = 10_000)]
        width: usize,
        /// Prove the line shortest: an exhaustive search with an admissible bound shows that no
        /// shorter line exists, or says how far it got.
        #[arg(long)]
        prove: bool,
        /// With --prove: layers (A* a layer at a time from both ends, each position stored
        /// once) or ida (iterative-deepening A*, depth first, with a table of learned bounds).
        #[arg(long, default_value = "layers", value_parser = ["layers", "ida"])]
        method: String,
        /// With --prove: stop after this many positions.
        #[arg(long, default_value_t = 2_000_000_000)]
        max_nodes: u64,
        /// With --prove: memory in MB for the layers (default 4096), or for IDA*'s table of
        /// learned bounds (default 256).
        #[arg(long)]
        memory: Option<usize>,
        /// With --prove --method ida: store every position within this many moves of the goal
        /// with its distance (a backward breadth-first search), so that the forward search stops
        /// that many moves short; 0 for none.
        #[arg(long, default_value_t = 7)]
        perimeter: u32,
        /// With --prove --method ida: memory for those positions, in MB; the perimeter stops at
        /// the last layer that fits.
        #[arg(long, default_value_t = 256)]
        perimeter_memory: usize,
        /// With --prove --method layers: search first with this many moves (a search with T
        /// moves rules out every line of T or fewer on its own; the ones below it only find a
        /// shorter line sooner).
        #[arg(long, default_value_t = 0)]
        from_moves: u32,
        /// With --prove: search no further than this many moves (default: one move short of the
        /// line found).
        #[arg(long)]
        to_moves: Option<u32>,
        /// With --prove --method layers: threads that expand each layer (default: every core).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Engine against engine: places and points over a number of games.
    Match {
        #[command(flatten)]
        position: ChinesePosition,
        /// Games.
        #[arg(long, default_value_t = 10)]
        games: usize,
        /// Seats, comma separated, in turn order, repeated to fill the table: greedy, or engine
        /// (best-reply; also brs), paranoid or mcts, each with options :time=S, :nodes=N,
        /// :depth=D (not mcts; mcts counts iterations as nodes), and for mcts :c=X, :playout=P,
        /// :seed=S, e.g. mcts:time=0.05. Game g turns them g places round the table, so each
        /// plays every camp.
        #[arg(long, default_value = "engine,greedy")]
        seats: String,
        /// Random plies (each gaining ground) opening each group of games, so games differ;
        /// all the rotations of a group share their opening.
        #[arg(long, default_value_t = 4)]
        random_plies: usize,
        /// Seed of the openings.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Rounds after which a game is adjudicated by distance to go.
        #[arg(long, default_value_t = 150)]
        max_rounds: u16,
    },
}

macro_rules! out {
    ($($arg:tt)*) => {{
        writeln!(std::io::stdout().lock(), $($arg)*)
    }};
}

/// Runs a `kroon chinese` subcommand.
pub fn run(cmd: ChineseCommand) -> Result<()> {
    match cmd {
        ChineseCommand::Show { position } => {
            let pos = position.resolve()?;
            show(&pos)?;
        }
        ChineseCommand::Moves { position } => {
            let pos = position.resolve()?;
            for mv in pos.legal_moves() {
                out!("{mv}")?;
            }
        }
        ChineseCommand::Perft {
            position,
            depth,
            divide: split,
        } => {
            let pos = position.resolve()?;
            let start = Instant::now();
            let nodes = if split && depth > 0 {
                let mut total = 0;
                for (mv, n) in divide(&pos, depth) {
                    out!("{mv} {n}")?;
                    total += n;
                }
                total
            } else {
                perft(&pos, depth)
            };
            let secs = start.elapsed().as_secs_f64();
            out!("nodes {nodes}")?;
            out!("seconds {secs:.3}")?;
        }
        ChineseCommand::Analyse { position, limit } => {
            let pos = position.resolve()?;
            let limit = limit.resolve(5.0)?;
            let mut searcher = Searcher::new(64);
            let mut lines = Vec::new();
            let result = searcher.search(&pos, limit, &mut |it| {
                lines.push(format!(
                    "depth {} score {} nodes {} time {:.3} best {}",
                    it.depth,
                    score_text(it.score),
                    it.nodes,
                    it.elapsed.as_secs_f64(),
                    it.best
                ));
            });
            for l in lines {
                out!("{l}")?;
            }
            match result.best {
                Some(mv) => out!("bestmove {mv}")?,
                None => out!("bestmove none")?,
            }
        }
        ChineseCommand::Play {
            position,
            limit,
            human,
        } => play(position.resolve()?, limit.resolve(0.1)?, &human)?,
        ChineseCommand::Solve {
            position,
            width,
            prove,
            method,
            max_nodes,
            memory,
            perimeter,
            perimeter_memory,
            from_moves,
            to_moves,
            threads,
        } => {
            if position.position.is_none() && position.players.is_some() {
                return solve_two(position.players, width);
            }
            // Without a position, the classic puzzle: camp A alone on the board.
            let pos = match position.position {
                None => Position::start_with(&[Camp::ALL[0]]).with_long_hop(position.long_hop),
                Some(_) => position.resolve()?,
            };
            let method = match method.as_str() {
                "ida" => Method::Ida,
                _ => Method::Layers,
            };
            let default_mb = if method == Method::Ida { 256 } else { 4096 };
            let proof = prove.then_some(ProofLimits {
                max_nodes,
                table_mb: memory.unwrap_or(default_mb),
                max_moves: to_moves.unwrap_or(u32::MAX),
                perimeter,
                perimeter_mb: perimeter_memory,
                method,
                min_moves: from_moves,
                threads: threads.unwrap_or_else(|| {
                    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
                }),
            });
            solve(&pos, width, proof)?;
        }
        ChineseCommand::Match {
            position,
            games,
            seats,
            random_plies,
            seed,
            max_rounds,
        } => {
            let pos = position.resolve()?;
            let names: Vec<String> = seats.split(',').map(|s| s.trim().to_owned()).collect();
            let seats: Vec<Seat> = names
                .iter()
                .map(|s| Seat::parse(s).map_err(|e| anyhow!(e)))
                .collect::<Result<_>>()?;
            let rules = MatchRules {
                games,
                random_plies,
                seed,
                max_rounds,
            };
            print_match(pos, &seats, &names, rules)?;
        }
    }
    Ok(())
}

fn score_text(score: i32) -> String {
    if score > WIN - 1000 {
        format!("win{}", WIN - score)
    } else if score < -WIN + 1000 {
        format!("loss{}", WIN + score)
    } else {
        score.to_string()
    }
}

fn show(pos: &Position) -> std::io::Result<()> {
    out!("{}", diagram(pos).trim_end())?;
    out!("position {pos}")?;
    let rows: Vec<String> = pos
        .seats()
        .map(|c| {
            if pos.is_out(c) {
                format!("{c} out")
            } else if pos.has_finished(c) {
                format!("{c} home")
            } else {
                format!("{c} {} to go", distance(pos, c))
            }
        })
        .collect();
    out!(
        "round {} to move {} ({})",
        pos.round(),
        pos.to_move(),
        rows.join(", ")
    )
}

fn play(start: Position, limit: Limit, human: &str) -> Result<()> {
    let mut humans = Vec::new();
    for ch in human.chars().filter(|c| !c.is_whitespace() && *c != ',') {
        let camp = Camp::from_letter(ch.to_ascii_uppercase())
            .filter(|c| start.seats().any(|s| s == *c))
            .ok_or_else(|| anyhow!("--human: {ch:?} is not a camp in play"))?;
        humans.push(camp);
    }
    let mut game = Game::new(start);
    let mut searcher = Searcher::new(64);
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    out!("Moves are written from-to (e.g. d4-e5); 'moves' lists them, 'quit' ends the game.")?;
    out!("Each move has {MOVE_SECONDS} s; the third overrun loses.")?;
    while !game.pos.is_over() {
        show(&game.pos)?;
        let me = game.pos.to_move();
        let legal = game.pos.legal_moves();
        if legal.is_empty() {
            out!("{me} has no move and passes")?;
            game.pass();
            continue;
        }
        let began = Instant::now();
        let mv = if humans.contains(&me) {
            loop {
                print!("{me}> ");
                std::io::stdout().flush()?;
                let Some(line) = lines.next() else {
                    return Ok(());
                };
                let line = line?;
                let line = line.trim();
                match line {
                    "quit" => return Ok(()),
                    "moves" => {
                        let all: Vec<String> = legal.iter().map(|m| m.to_string()).collect();
                        out!("{}", all.join(" "))?;
                    }
                    _ => match Move::parse(&game.pos, line) {
                        Ok(mv) => break mv,
                        Err(e) => out!("{e}")?,
                    },
                }
            }
        } else {
            let r = searcher.search(&game.pos, limit, &mut |_| {});
            let mv = r.best.expect("a player with moves gets one");
            out!(
                "{me} plays {mv} (depth {}, score {})",
                r.depth,
                score_text(r.score)
            )?;
            mv
        };
        if began.elapsed().as_secs_f64() > MOVE_SECONDS {
            out!(
                "{me} overran the move time ({} of 3)",
                game.overruns(me) + 1
            )?;
            if game.overrun(me) {
                out!("{me} loses on time")?;
                continue;
            }
        }
        game.play(mv);
    }
    show(&game.pos)?;
    for s in game.standings(false) {
        out!("place {} {} points {}", s.place, s.camp, s.points)?;
    }
    Ok(())
}

/// The shortest two-player game, for each side as the one that finishes.
fn solve_two(players: Option<usize>, width: usize) -> Result<()> {
    if players != Some(2) {
        bail!("solve plays the solitaire, or with --players 2 the shortest two-player game");
    }
    for target in [Camp::ALL[0], Camp::ALL[3]] {
        let start = Instant::now();
        let line = beam_two(target, width.max(1), 60);
        let secs = start.elapsed().as_secs_f64();
        let Some(moves) = line else {
            out!("{target} finishing: no line within 60 moves at width {width} ({secs:.1} s)")?;
            continue;
        };
        let text: Vec<String> = moves.iter().map(Move::to_string).collect();
        out!("{target} finishing: {}", text.join(" "))?;
        out!(
            "{target} finishes on move {} (A {} moves, D {}), beam width {width}, {secs:.1} s",
            moves.len(),
            moves.len().div_ceil(2),
            moves.len() / 2
        )?;
    }
    Ok(())
}

fn solve(pos: &Position, width: usize, proof: Option<ProofLimits>) -> Result<()> {
    let me = pos.to_move();
    let mine = pos.pieces(me);
    let goal = me.opposite().holes();
    if mine.count() != 10 {
        bail!(
            "the solitaire needs the ten pieces of {me}; it has {}",
            mine.count()
        );
    }
    let puzzle = Puzzle {
        start: mine,
        goal,
        obstacles: kroon_chinese_checkers::Holes(pos.occupied().0 & !mine.0),
        camp: me,
        long_hop: pos.long_hop(),
    };
    if !(puzzle.obstacles & goal).is_empty() {
        bail!(
            "other pieces stand in {}'s goal; they never move in the solitaire",
            me
        );
    }
    let start = Instant::now();
    let Some(mut moves) = beam(&puzzle, width.max(1), 80) else {
        bail!("no line found within 80 moves at width {width}");
    };
    let secs = start.elapsed().as_secs_f64();
    let mut proved = None;
    if let Some(limits) = proof {
        // Only the lines shorter than the one in hand need searching.
        let limits = ProofLimits {
            max_moves: limits.max_moves.min(moves.len() as u32 - 1),
            ..limits
        };
        let p = prove(&puzzle, limits);
        if let Some(shorter) = p.line.clone() {
            moves = shorter;
        }
        proved = Some(p);
    }
    let end = replay(&puzzle, &moves).map_err(|i| anyhow!("move {} does not replay", i + 1))?;
    debug_assert_eq!(end, goal);
    for (i, mv) in moves.iter().enumerate() {
        out!("{}. {mv}", i + 1)?;
    }
    out!("moves {}", moves.len())?;
    out!("seconds {secs:.3}")?;
    let Some(p) = proved else {
        return Ok(());
    };
    out!("proof: lower bound at the start {}", p.start_bound)?;
    if !p.perimeter_layers.is_empty() {
        let layers: Vec<String> = p.perimeter_layers.iter().map(u64::to_string).collect();
        out!(
            "proof: every position within {} moves of the goal stored, layers {}, {} MB, seconds {:.3}",
            p.perimeter_depth,
            layers.join(" "),
            p.perimeter_bytes >> 20,
            p.perimeter_time.as_secs_f64()
        )?;
    }
    for it in &p.iterations {
        let layers = if it.layers.is_empty() {
            String::new()
        } else {
            let sizes: Vec<String> = it.layers.iter().map(u64::to_string).collect();
            format!(", layers {}", sizes.join(" "))
        };
        out!(
            "proof: no line of {} moves or fewer, {} positions{layers}, seconds {:.3}",
            it.threshold,
            it.nodes,
            it.time.as_secs_f64()
        )?;
    }
    let shortest = p
        .no_line_within
        .is_some_and(|n| n + 1 >= moves.len() as u32);
    if shortest {
        out!("no shorter line exists")?;
    } else {
        match p.no_line_within {
            Some(n) => out!(
                "stopped{}: no line of {n} moves or fewer exists; {} to {} not searched",
                match p.stopped_by {
                    Some(Stop::Memory) => " at the memory limit (--memory)",
                    Some(Stop::Positions) => " at the position limit (--max-nodes)",
                    None => "",
                },
                n + 1,
                moves.len() - 1
            )?,
            None => out!("stopped before the first iteration completed")?,
        }
    }
    out!(
        "proof: positions {} stored {} table {} MB seconds {:.3}",
        p.nodes,
        p.stored,
        p.table_bytes >> 20,
        p.elapsed.as_secs_f64()
    )?;
    Ok(())
}

fn print_match(start: Position, seats: &[Seat], specs: &[String], rules: MatchRules) -> Result<()> {
    let mut played = 0;
    let mut failed = None;
    let tally = run_match(start, seats, rules, &mut |game| {
        played += 1;
        let mut line = format!("game {played} rounds {}", game.rounds);
        if game.adjudicated {
            line.push_str(" adjudicated");
        }
        for (s, k) in &game.results {
            line.push_str(&format!(
                " | {} {} place {} points {}",
                s.camp, specs[*k], s.place, s.points
            ));
        }
        if let Err(e) = out!("{line}") {
            failed.get_or_insert(e);
        }
    })
    .map_err(|e| anyhow!(e))?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    for (k, t) in tally.iter().enumerate() {
        out!(
            "seat {} {}: points {} wins {} of {} forfeits {} mean place {:.2} nodes/move {} ms/move {:.1}",
            k + 1,
            specs[k],
            t.points,
            t.wins,
            t.seats_played,
            t.forfeits,
            f64::from(t.place_sum) / f64::from(t.seats_played.max(1)),
            t.effort.nodes / u64::from(t.effort.moves.max(1)),
            t.effort.think.as_secs_f64() * 1000.0 / f64::from(t.effort.moves.max(1))
        )?;
    }
    Ok(())
}
