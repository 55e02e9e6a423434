//! The command line, run as a user would: perft, moves, show, and errors on bad input.

use crate::support;
use support::{kroon, stdout, text, value};

use std::process::Output;

#[test]
fn perft_counts_and_reports_speed() {
    let o = kroon(&["perft", "--depth", "6"]);
    assert!(o.status.success());
    let s = stdout(&o);
    assert_eq!(value(&s, "nodes"), Some("167140"), "{s}");
    assert!(
        value(&s, "mnps").is_some_and(|v| v.parse::<f64>().is_ok()),
        "{s}"
    );
    let o = kroon(&["perft", "--depth", "6", "--threads", "2"]);
    assert_eq!(value(&stdout(&o), "nodes"), Some("167140"));
}

#[test]
fn perft_divide_lists_each_move() {
    let o = kroon(&[
        "perft",
        "--fen",
        "W:W31-50:B1-20",
        "--depth",
        "2",
        "--divide",
    ]);
    let s = stdout(&o);
    assert_eq!(value(&s, "32-28"), Some("9"), "{s}");
    assert_eq!(s.lines().filter(|l| l.ends_with(" 9")).count(), 9);
    assert_eq!(value(&s, "nodes"), Some("81"), "{s}");
}

#[test]
fn perft_keep_duplicates_counts_every_path() {
    let fen = "W:B16,17,18,19,20:W31,32,33,34,35";
    let plain = stdout(&kroon(&["perft", "--fen", fen, "--depth", "9"]));
    assert_eq!(value(&plain, "nodes"), Some("1008313"), "{plain}");
    let every = stdout(&kroon(&[
        "perft",
        "--fen",
        fen,
        "--depth",
        "9",
        "--keep-duplicates",
    ]));
    assert_eq!(value(&every, "nodes"), Some("1008317"), "{every}");
}

#[test]
fn moves_in_long_notation() {
    let o = kroon(&["moves", "--fen", "W:W28:B23,13"]);
    assert_eq!(stdout(&o), "28x8x13x23\n");
    let o = kroon(&["moves"]);
    assert_eq!(stdout(&o).lines().count(), 9);
}

#[test]
fn each_variant_speaks_its_own_notation() {
    let sorted = |o: &Output| {
        let mut v: Vec<String> = stdout(o).lines().map(str::to_owned).collect();
        v.sort();
        v
    };
    let o = kroon(&["moves", "--variant", "russian", "--fen", "W:Wc3:Bd4,f6"]);
    assert_eq!(sorted(&o), ["c3:g7:d4:f6"]);
    let o = kroon(&["moves", "--variant", "brazilian"]);
    assert_eq!(
        sorted(&o),
        ["a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"]
    );
    // English: the dark side on 1-12 moves first.
    let o = kroon(&["moves", "--variant", "english"]);
    assert_eq!(
        sorted(&o),
        ["10-14", "10-15", "11-15", "11-16", "12-16", "9-13", "9-14"]
    );
    let o = kroon(&["show", "--variant", "english", "--fen", "W:W18:B14"]);
    let s = stdout(&o);
    assert!(s.contains("White to move   english   W:W18:B14"), "{s}");
    let o = kroon(&[
        "analyse",
        "--variant",
        "russian",
        "--moves",
        "c3-d4 f6-g5",
        "--depth",
        "4",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout(&o).contains("best "), "{}", stdout(&o));
    let o = kroon(&[
        "analyse",
        "--variant",
        "russian",
        "--moves",
        "22-18 11-15",
        "--depth",
        "1",
    ]);
    assert!(o.status.success(), "field numbers are read in Russian too");
}

#[test]
fn bench_takes_a_variant() {
    let o = kroon(&["bench", "--variant", "russian", "--depth", "4"]);
    let s = stdout(&o);
    assert!(s.contains("positions 8 variant russian"), "{s}");
    let nodes = |s: &str| {
        s.lines()
            .find(|l| l.starts_with("nodes "))
            .map(str::to_owned)
    };
    assert!(nodes(&s).is_some(), "{s}");
    let again = stdout(&kroon(&["bench", "--variant", "russian", "--depth", "4"]));
    assert_eq!(nodes(&s), nodes(&again));
}

/// `KROON_TUNE` sets the search's tuning values for A/B tests: the defaults spelt out search the
/// same tree, another value a different one, and a misspelt name stops the program.
#[test]
fn tuning_values_come_from_kroon_tune() {
    let bench = |tune: Option<&str>| {
        let mut cmd = std::process::Command::new(support::KROON);
        cmd.args(["bench", "--depth", "9"]);
        match tune {
            Some(t) => cmd.env("KROON_TUNE", t),
            None => cmd.env_remove("KROON_TUNE"),
        };
        cmd.output().expect("run kroon")
    };
    let nodes = |o: &Output| value(&stdout(o), "nodes").map(str::to_owned);
    let plain = nodes(&bench(None));
    assert!(plain.is_some());
    let defaults = bench(Some(
        "futility_margin=120,probe_cut_depth_percent=40 aspiration_delta=25",
    ));
    assert_eq!(nodes(&defaults), plain);
    let other = bench(Some("futility_margin=60,reduction_first_move=2"));
    assert!(other.status.success());
    assert_ne!(nodes(&other), plain, "another margin searches another tree");
    let typo = bench(Some("futility_margn=60"));
    assert!(!typo.status.success());
    assert!(text(&typo).contains("futility_margin"), "{}", text(&typo));
}

#[test]
fn show_draws_the_board() {
    let s = stdout(&kroon(&["show", "--fen", "B:WK4,28:B12,K45"]));
    assert!(s.contains("Black to move"), "{s}");
    assert!(s.contains(" W"), "{s}");
    assert!(s.contains("B:WK4,28:B12,K45"), "{s}");
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    for args in [
        &["moves", "--fen", "W:W51"][..],
        &["show", "--fen", "garbage"],
        &["perft", "--fen", "W:W31:B31", "--depth", "2"],
        &["moves", "--variant", "chess"],
        &["perft", "--depth", "2", "--threads", "0"],
    ] {
        let o = kroon(args);
        assert!(!o.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("kroon: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// The subcommands `kroon --help` lists.
fn subcommands() -> Vec<String> {
    let help = stdout(&kroon(&["--help"]));
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_help_text_and_the_settings_file_name_every_variant() {
    let names: Vec<&str> = kroon_rules::Variant::ALL
        .iter()
        .map(|v| v.hub_name())
        .collect();
    let commands = subcommands();
    assert!(commands.len() >= 10, "{commands:?}");
    let mut with_variant = 0;
    for command in &commands {
        let help = stdout(&kroon(&[command, "--help"]));
        // The --variant option's paragraph: its line and the wrapped lines under it.
        let Some(at) = help.find("--variant") else {
            continue;
        };
        with_variant += 1;
        let paragraph: String = help[at..]
            .lines()
            .enumerate()
            .take_while(|(i, l)| *i == 0 || !l.trim_start().starts_with('-'))
            .map(|(_, l)| l)
            .collect::<Vec<_>>()
            .join(" ");
        for name in &names {
            assert!(
                paragraph.contains(name),
                "`kroon {command} --help` does not name {name}: {paragraph}"
            );
        }
    }
    assert!(with_variant >= 6, "{with_variant} commands take --variant");
    let settings =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../engine.toml"))
            .expect("engine.toml");
    let comment: String = settings
        .lines()
        .take_while(|l| !l.starts_with("variant"))
        .skip_while(|l| !l.starts_with("# Rules"))
        .collect();
    for name in &names {
        assert!(
            comment.contains(name),
            "engine.toml's variant comment lacks {name}"
        );
    }
}

#[test]
fn every_variant_name_in_the_help_is_accepted() {
    for v in kroon_rules::Variant::ALL {
        let o = kroon(&["perft", "--variant", v.hub_name(), "--depth", "2"]);
        assert!(
            o.status.success(),
            "{}: {}",
            v.hub_name(),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let o = kroon(&["perft", "--variant", "checkerz", "--depth", "1"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(kroon_rules::variant::NAMES), "{err}");
}
