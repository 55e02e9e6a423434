//! `kroon analyse`: search a position and print each iteration and the best move.

use anyhow::Result;
use kroon_rules::{notation, Game, Position};
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

/// Searches the position `game` reaches and prints each iteration (one line per line of a
/// multi-PV search, numbered), then the best move.
pub fn run(
    game: Game,
    limits: Limits,
    threads: usize,
    hash: usize,
    eval: Eval,
    tables: Option<std::sync::Arc<dyn kroon_search::EndgameTables>>,
    multipv: usize,
) -> Result<()> {
    let root = *game.position();
    let mut engine = Engine::new(threads, hash);
    engine.set_eval(eval);
    engine.set_tables(tables.clone());
    engine.set_multipv(multipv);
    let req = SearchRequest {
        game,
        limits,
        ponder: false,
    };
    let print = |info: Info| {
        let secs = info.elapsed.as_secs_f64();
        let line = if multipv > 1 {
            format!(" line {:>2}", info.multipv)
        } else {
            String::new()
        };
        let _ = say!(
            "depth {:>2}/{:<2}{line} score {:>+7.2} nodes {:>11} time {:>7.3} nps {:>6.2}M pv {}",
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
    if let Some(usage) = tables.and_then(|t| t.usage()) {
        tracing::info!("endgame tables: {usage}");
    }
    match result.best {
        Some(mv) => say!("best {}", notation::display(&root, &mv))?,
        None => say!("best none (no legal move)")?,
    }
    Ok(())
}
