//! `kroon analyse`: search a position and print each iteration and the best move.

use anyhow::{Context, Result};
use kroon_rules::{notation, parse_move, Game, Position};
use kroon_search::{score, Engine, Eval, Info, Limits, SearchRequest};

/// The principal variation in notation, each move read in the position it is played from.
pub fn pv_text(start: &Position, pv: &[kroon_rules::Move]) -> String {
    let mut pos = *start;
    let mut out = Vec::with_capacity(pv.len());
    for mv in pv {
        out.push(notation::display(&pos, mv));
        pos = pos.play(mv);
    }
    out.join(" ")
}

/// Plays `moves` from `start`.
pub fn game_from(start: Position, moves: Option<&str>) -> Result<Game> {
    let mut game = Game::new(start);
    for text in moves.unwrap_or_default().split_whitespace() {
        let mv = parse_move(game.position(), text).with_context(|| format!("move `{text}`"))?;
        game.play(&mv).with_context(|| format!("move `{text}`"))?;
    }
    Ok(game)
}

pub fn run(
    start: Position,
    moves: Option<&str>,
    limits: Limits,
    threads: usize,
    hash: usize,
    eval: Eval,
    tables: Option<std::sync::Arc<dyn kroon_search::EndgameTables>>,
) -> Result<()> {
    let game = game_from(start, moves)?;
    let root = *game.position();
    let mut engine = Engine::new(threads, hash);
    engine.set_eval(eval);
    engine.set_tables(tables);
    let req = SearchRequest {
        game,
        limits,
        ponder: false,
    };
    let print = |info: Info| {
        let secs = info.elapsed.as_secs_f64();
        let _ = say!(
            "depth {:>2}/{:<2} score {:>+7.2} nodes {:>11} time {:>7.3} nps {:>6.2}M pv {}",
            info.depth,
            info.seldepth,
            score::in_men(info.score),
            info.nodes,
            secs,
            info.nodes as f64 / secs.max(1e-6) / 1e6,
            pv_text(&root, &info.pv)
        );
    };
    let result = engine.search(&req, &print);
    match result.best {
        Some(mv) => say!("best {}", notation::display(&root, &mv))?,
        None => say!("best none (no legal move)")?,
    }
    Ok(())
}
