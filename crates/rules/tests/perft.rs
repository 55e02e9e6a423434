//! Runs every `tests/data/*.perft` file: `variant NAME`, `fen FEN`, then `perft DEPTH NODES`
//! (duplicates dropped) or `keep DEPTH NODES` (every capture path kept). Lines above the node
//! budget are left to `scripts/perft-deep.sh`.

use kroon_rules::{parse_fen, perft, Duplicates, Variant};

const NODE_BUDGET: u64 = 12_000_000;

#[test]
fn perft_files() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let mut checked = 0;
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for path in paths
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "perft"))
    {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut variant = Variant::International;
        let mut fen = String::new();
        for line in text
            .lines()
            .map(|l| l.split('#').next().unwrap().trim())
            .filter(|l| !l.is_empty())
        {
            let (word, rest) = line.split_once(' ').unwrap();
            match word {
                "variant" => variant = rest.parse().unwrap(),
                "fen" => fen = rest.to_owned(),
                "perft" | "keep" => {
                    let (d, n) = rest.split_once(' ').unwrap();
                    let (depth, nodes): (u32, u64) = (d.parse().unwrap(), n.parse().unwrap());
                    if nodes > NODE_BUDGET {
                        continue;
                    }
                    let dups = if word == "keep" {
                        Duplicates::Keep
                    } else {
                        Duplicates::Drop
                    };
                    let pos = parse_fen(&fen, variant).unwrap();
                    assert_eq!(
                        perft(&pos, depth, dups),
                        nodes,
                        "{} {variant} {fen} {word} {depth}",
                        path.display()
                    );
                    checked += 1;
                }
                other => panic!("unknown line `{other}` in {}", path.display()),
            }
        }
    }
    assert!(checked > 50, "only {checked} perft lines checked");
}
