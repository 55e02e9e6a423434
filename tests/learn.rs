//! The learning pipeline through the real binary: `kroon selfplay` writes games, `kroon train`
//! fits weights to them, and the engine plays with those weights or refuses a damaged file.

use crate::support;
use support::{kroon, text, TempDir};

use std::path::Path;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn selfplay_then_train_then_play_with_the_weights() {
    let d = TempDir::new("learn-pipeline");
    let games = d.join("games.bin");
    let args = [
        "selfplay",
        "--out",
        s(&games),
        "--games",
        "30",
        "--nodes",
        "400",
        "--threads",
        "2",
    ];
    let o = kroon(&args);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("games 30 "), "{}", text(&o));
    let size = std::fs::metadata(&games).unwrap().len();
    assert_eq!((size - 32) % 32, 0);
    // Everything is there: a second run plays nothing.
    let o = kroon(&args);
    assert!(
        text(&o).contains("games 0 ") && text(&o).contains("already held 30"),
        "{}",
        text(&o)
    );
    assert_eq!(std::fs::metadata(&games).unwrap().len(), size);

    let weights = d.join("w.kew");
    let o = kroon(&[
        "train",
        "--data",
        s(&games),
        "--out",
        s(&weights),
        "--epochs",
        "3",
        "--threads",
        "2",
        "--batch",
        "512",
    ]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("held-out loss"), "{t}");
    let epochs = t
        .lines()
        .filter(|l| {
            l.split_whitespace().count() == 5 && l.trim_start().starts_with(['1', '2', '3'])
        })
        .count();
    assert_eq!(epochs, 3, "{t}");

    // The engine searches with the new weights, and with the hand evaluation when asked.
    for eval in [["--weights", s(&weights)], ["--eval", "hand"]] {
        let mut a = vec!["analyse", "--depth", "6"];
        a.extend_from_slice(&eval);
        let o = kroon(&a);
        assert!(
            o.status.success() && text(&o).contains("best "),
            "{}",
            text(&o)
        );
    }
    let o = kroon(&["bench", "--depth", "5", "--weights", s(&weights)]);
    assert!(text(&o).contains("eval learned"), "{}", text(&o));
    let o = kroon(&["bench", "--depth", "5", "--eval", "hand"]);
    assert!(text(&o).contains("eval hand"), "{}", text(&o));

    // A truncated or damaged file is refused with its reason, not a panic.
    let bytes = std::fs::read(&weights).unwrap();
    let cut = d.join("cut.kew");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let o = kroon(&["analyse", "--depth", "3", "--weights", s(&cut)]);
    assert!(!o.status.success());
    assert!(text(&o).contains("truncated"), "{}", text(&o));
    let mut bad = bytes.clone();
    bad[500] ^= 1;
    std::fs::write(&cut, &bad).unwrap();
    let o = kroon(&["analyse", "--depth", "3", "--weights", s(&cut)]);
    assert!(
        !o.status.success() && text(&o).contains("checksum"),
        "{}",
        text(&o)
    );
    let o = kroon(&["analyse", "--depth", "3", "--weights", s(&games)]);
    assert!(
        !o.status.success() && text(&o).contains("not a Kroon weights file"),
        "{}",
        text(&o)
    );
    let o = kroon(&["analyse", "--depth", "3", "--eval", "neural"]);
    assert!(
        !o.status.success() && text(&o).contains("learned or hand"),
        "{}",
        text(&o)
    );
}

#[test]
fn train_refuses_what_is_not_selfplay_data() {
    let d = TempDir::new("learn-refuse");
    let junk = d.join("junk.bin");
    std::fs::write(&junk, b"not games at all").unwrap();
    let o = kroon(&["train", "--data", s(&junk), "--out", s(&d.join("w.kew"))]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("not a Kroon self-play file"),
        "{}",
        text(&o)
    );
}
