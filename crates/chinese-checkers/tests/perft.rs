//! The perft counts of tests/data/start.perft, up to 5 M nodes a line.

use kroon_chinese_checkers::{perft, Position};

#[test]
fn start_position_counts() {
    let data = include_str!("data/start.perft");
    let mut pos = None;
    let mut checked = 0;
    for line in data
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f.as_slice() {
            ["players", n] => pos = Position::start(n.parse().unwrap()),
            ["perft", d, nodes] => {
                let nodes: u64 = nodes.parse().unwrap();
                if nodes > 5_000_000 {
                    continue;
                }
                let p = pos.expect("players line first");
                assert_eq!(perft(&p, d.parse().unwrap()), nodes, "{p} depth {d}");
                checked += 1;
            }
            _ => panic!("bad line {line}"),
        }
    }
    assert_eq!(checked, 25);
}
