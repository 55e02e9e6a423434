//! One search of one position on one thread, with the embedded weights and a 64 MiB table, and
//! its node count and speed: for measuring the search (instructions a node under callgrind,
//! nodes per second) without building the whole binary, whose link takes far longer.
//!
//! ```sh
//! cargo run --release -p kroon-search --example nodes -- FEN DEPTH
//! cargo run --release -p kroon-search --example nodes -- FEN --time SECONDS
//! ```
//! It searches exactly as `kroon analyse --threads 1 --hash 64 --egdb none` does. With
//! `KROON_WEIGHTS=FILE` in the environment it evaluates with that weights file instead (to
//! compare layouts, as `--weights` does for `kroon`).

use kroon_rules::{parse_fen, Variant};
use kroon_search::{Engine, EvalKind, Limits, SearchRequest};
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let limits = match args.as_slice() {
        [_, flag, secs] if flag == "--time" => secs
            .parse()
            .ok()
            .map(|s| Limits::MoveTime(Duration::from_secs_f64(s))),
        [_, depth] => depth.parse().ok().map(Limits::Depth),
        _ => None,
    };
    let fen = args.first().map_or("", String::as_str);
    let (Some(limits), Ok(pos)) = (limits, parse_fen(fen, Variant::International)) else {
        eprintln!("usage: nodes FEN DEPTH | nodes FEN --time SECONDS");
        std::process::exit(2);
    };
    let mut engine = Engine::new(1, 64);
    let weights = match std::env::var_os("KROON_WEIGHTS") {
        Some(path) => {
            let bytes = std::fs::read(&path).unwrap_or_else(|e| {
                eprintln!("{}: {e}", path.to_string_lossy());
                std::process::exit(2);
            });
            match kroon_search::eval::Weights::from_bytes(&bytes) {
                Ok(w) => Some(std::sync::Arc::new(w)),
                Err(e) => {
                    eprintln!("{}: {e}", path.to_string_lossy());
                    std::process::exit(2);
                }
            }
        }
        None => kroon_search::eval::embedded_for(Variant::International),
    };
    engine.set_eval(EvalKind::Learned.with(weights.as_ref()));
    let result = engine.search(&SearchRequest::position(pos, limits), &|_| {});
    let secs = result.elapsed.as_secs_f64();
    println!(
        "depth {} nodes {} time {secs:.3} nps {:.0}",
        result.depth,
        result.nodes,
        result.nodes as f64 / secs
    );
}
