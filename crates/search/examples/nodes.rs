//! nodes FEN DEPTH | nodes FEN --time SECS : one-thread search, prints nodes (and nps)
use kroon_rules::{fen::parse_fen, Variant};
use kroon_search::{Engine, Limits, SearchRequest};
use std::time::Duration;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let pos = parse_fen(&a[1], Variant::default()).unwrap();
    let limits = if a[2] == "--time" {
        Limits::MoveTime(Duration::from_secs_f64(a[3].parse().unwrap()))
    } else {
        Limits::Depth(a[2].parse().unwrap())
    };
    let mut e = Engine::new(1, 64);
    let w = kroon_search::eval::embedded()
        .into_iter()
        .find(|w| w.variant() == Variant::International);
    e.set_eval(kroon_search::EvalKind::Learned.with(w.as_ref()));
    let r = e.search(&SearchRequest::position(pos, limits), &|_| {});
    let s = r.elapsed.as_secs_f64();
    println!(
        "depth {} nodes {} time {:.3} nps {:.0}",
        r.depth,
        r.nodes,
        s,
        r.nodes as f64 / s
    );
}
