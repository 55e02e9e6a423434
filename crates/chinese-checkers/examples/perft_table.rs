use kroon_chinese_checkers::{perft, Position};
fn main() {
    let max: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(4);
    for n in [2, 3, 4, 5, 6] {
        let p = Position::start(n).unwrap();
        for d in 1..=max {
            let t = std::time::Instant::now();
            println!(
                "{n} players depth {d}: {} ({:?})",
                perft(&p, d),
                t.elapsed()
            );
        }
    }
}
