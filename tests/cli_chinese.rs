//! `kroon chinese ...` run as a user would: every subcommand once, and clear errors on bad input.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn kroon(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kroon"))
        .arg("chinese")
        .args(args)
        .output()
        .expect("run kroon")
}

fn kroon_with_input(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kroon"))
        .arg("chinese")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kroon");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const START_2: &str = "D/DD/DDD/DDDD/13/12/11/10/9/10/11/12/13/AAAA/AAA/AA/A A AD 1";

#[test]
fn show_prints_the_board_and_the_position_text() {
    let o = kroon(&["show", "--players", "6"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(s.contains("position "), "{s}");
    assert!(s.contains(" A ABCDEF 1"), "{s}");
    assert_eq!(
        s.lines()
            .filter(|l| l.len() > 1 && l.as_bytes()[1] == b' ')
            .count(),
        17
    );
    let o = kroon(&["show", "--position", START_2]);
    assert!(stdout(&o).contains(&format!("position {START_2}")));
}

#[test]
fn moves_and_perft_agree_with_the_data_file() {
    let o = kroon(&["moves"]);
    assert_eq!(stdout(&o).lines().count(), 14);
    assert!(stdout(&o).lines().any(|l| l == "c1-e5"), "{}", stdout(&o));
    let o = kroon(&["perft", "--players", "3", "--depth", "4"]);
    assert!(stdout(&o).contains("nodes 66640"), "{}", stdout(&o));
    let o = kroon(&["perft", "--players", "2", "--depth", "2", "--divide"]);
    let s = stdout(&o);
    assert_eq!(s.lines().filter(|l| l.ends_with(" 14")).count(), 14, "{s}");
    assert!(s.contains("nodes 196"));
}

#[test]
fn analyse_ends_with_a_legal_best_move() {
    let o = kroon(&["analyse", "--players", "4", "--depth", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(s.contains("depth 2 "), "{s}");
    let best = s.lines().last().unwrap().strip_prefix("bestmove ").unwrap();
    let moves = stdout(&kroon(&["moves", "--players", "4"]));
    assert!(moves.lines().any(|l| l == best), "{best}");
}

#[test]
fn play_takes_moves_and_answers() {
    let o = kroon_with_input(
        &["play", "--depth", "1"],
        "x\nz9-a1\nd1-e1\nd1-e5\nmoves\nquit\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(s.contains("a move is written from-to"), "{s}");
    assert!(s.contains("no hole \"z9\""), "{s}");
    assert!(s.contains("d1-e1 is not a legal move for A"), "{s}");
    assert!(s.contains("D plays "), "{s}");
}

#[test]
fn match_tallies_points() {
    let o = kroon(&[
        "match",
        "--games",
        "2",
        "--seats",
        "engine:depth=1,greedy",
        "--max-rounds",
        "6",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert_eq!(
        s.lines().filter(|l| l.starts_with("game ")).count(),
        2,
        "{s}"
    );
    assert!(s.contains("adjudicated"), "{s}");
    assert!(s.contains("seat 1 engine:depth=1: points "), "{s}");
}

#[test]
fn match_seats_the_three_searches() {
    let o = kroon(&[
        "match",
        "--players",
        "3",
        "--games",
        "3",
        "--seats",
        "brs:depth=1,paranoid:depth=2,mcts:nodes=50",
        "--max-rounds",
        "4",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert_eq!(s.lines().filter(|l| l.starts_with("game ")).count(), 3);
    // Over three games each search sat in each of the three camps once.
    for spec in ["brs:depth=1", "paranoid:depth=2", "mcts:nodes=50"] {
        let seat = s
            .lines()
            .find(|l| l.contains(&format!(" {spec}: points ")))
            .unwrap_or_else(|| panic!("{s}"));
        assert!(seat.contains(" of 3 forfeits "), "{seat}");
        // Monte Carlo spends its budget exactly: 50 iterations a move.
        if spec.starts_with("mcts") {
            assert!(seat.contains(" nodes/move 50 "), "{seat}");
        }
    }
}

#[test]
fn solve_two_players_prints_a_game_for_each_side() {
    let o = kroon(&["solve", "--players", "2", "--width", "300"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    for side in ["A", "D"] {
        let line = s
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{side} finishing: ")))
            .unwrap_or_else(|| panic!("{s}"));
        let n = line.split_whitespace().count();
        // Bell's shortest game is 30 moves; a narrow beam finds a longer one.
        assert!((29..=60).contains(&n), "{s}");
        assert!(s.contains(&format!("{side} finishes on move {n} ")), "{s}");
    }
}

#[test]
fn solve_prints_a_line_no_shorter_than_the_optimum() {
    // A narrow beam is quick and not optimal; no line can beat Bell's 27.
    let o = kroon(&["solve", "--width", "300"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    let n: usize = s
        .lines()
        .find_map(|l| l.strip_prefix("moves "))
        .unwrap()
        .parse()
        .unwrap();
    assert!((27..=40).contains(&n), "{s}");
    assert_eq!(s.lines().filter(|l| l.contains(". ")).count(), n);
}

#[test]
fn solve_prove_says_how_far_the_proof_got() {
    // A proof cut short still proves every iteration it completed, and says so.
    let o = kroon(&[
        "solve",
        "--width",
        "300",
        "--prove",
        "--method",
        "ida",
        "--max-nodes",
        "20000",
        "--memory",
        "4",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(s.contains("proof: lower bound at the start 19"), "{s}");
    assert!(s.contains("proof: no line of 19 moves or fewer"), "{s}");
    assert!(
        s.contains(
            "stopped at the position limit (--max-nodes): no line of 19 moves or fewer exists"
        ),
        "{s}"
    );
    assert!(!s.contains("no shorter line exists"), "{s}");
    assert!(s.contains("proof: positions 20001 "), "{s}");
    // The layered search (the default) in 4 MB: thresholds 19 to 21 complete, each with its
    // layers from the start (1 position, 7 one move out, ...), then the memory runs out.
    let o = kroon(&["solve", "--width", "300", "--prove", "--memory", "4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(
        s.contains("proof: no line of 20 moves or fewer, 3495 positions, layers 1 7 89 505 "),
        "{s}"
    );
    assert!(
        s.contains("stopped at the memory limit (--memory): no line of 21 moves or fewer exists"),
        "{s}"
    );
}

#[test]
fn bad_input_gets_a_clear_message() {
    for (args, want) in [
        (vec!["show", "--players", "7"], "--players must be 2 to 6"),
        (vec!["show", "--position", "nonsense"], "bad position"),
        (vec!["moves", "--position", "D/DD A AD 1"], "17 rows"),
        (vec!["match", "--seats", "engine:speed=3"], "bad seat"),
        (vec!["analyse", "--time", "0"], "--time must be a positive"),
        (vec!["match", "--seats", "mcts:depth=3"], "bad seat"),
        (vec!["solve", "--players", "3"], "--players 2"),
    ] {
        let o = kroon(&args);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(stderr(&o).contains(want), "{args:?}: {}", stderr(&o));
    }
}
