//! Analysis for people, through the real binary: `kroon annotate` on a multi-game PDN file
//! (read back by Kroon's reader and by pydraughts', its marks checked against its own scores,
//! repeatable, resumable), `kroon analyse --pdn` and `--multipv`, and `kroon show --svg`.

use crate::support;
use support::pydraughts;

use kroon_rules::{decode_text, notation, read_pdn, Colour, PdnGame, Variant};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../rules/tests/data/pdn");

fn kroon(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kroon"))
        .args(args)
        .env("KROON_LOG", "warn")
        .output()
        .expect("run kroon")
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("analysis");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

fn read(path: &Path) -> Vec<PdnGame> {
    let file = read_pdn(
        &decode_text(&std::fs::read(path).unwrap()),
        Variant::International,
    );
    assert!(file.skipped.is_empty(), "{:?}", file.skipped);
    file.games
}

/// A comment's score in men from White's side (`+0.25/7`), unless it is a win (`+#9`).
fn comment_score(text: &str) -> Option<f64> {
    let (score, depth) = text.split_once('/')?;
    depth.parse::<u32>().ok()?;
    score.parse().ok()
}

fn annotate(input: &Path, out: &Path) -> Output {
    let o = kroon(&[
        "annotate",
        input.to_str().unwrap(),
        "--nodes",
        "20000",
        "--threads",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

#[test]
fn annotate_writes_scores_lines_and_marks_that_both_readers_take() {
    let input = scratch("games.pdn");
    std::fs::copy(format!("{CORPUS}/lidraughts.pdn"), &input).unwrap();
    let out = scratch("games-annotated.pdn");
    let o = annotate(&input, &out);
    let log = String::from_utf8_lossy(&o.stderr);
    assert!(
        log.contains("game 2: White (zwartwit): average loss"),
        "{log}"
    );

    let before = read(&input);
    let after = read(&out);
    assert_eq!(after.len(), 2);
    let mut marks = 0;
    let mut lines = 0;
    for (a, b) in before.iter().zip(&after) {
        assert_eq!(a.moves(), b.moves());
        assert_eq!(a.result, b.result);
        assert!(b.line.intro[0].starts_with("Kroon, 20000 nodes a position; ? from 0.50"));
        let mut pos = b.start;
        let mut white_before: Option<f64> = None;
        for m in &b.line.moves {
            let mover = pos.turn();
            let after_move = m.comments.iter().find_map(|c| comment_score(c));
            let score = after_move.expect("every move has a score comment");
            // The marks follow from the scores around the move, as the comments give them.
            if let Some(w) = white_before.filter(|w| w.abs() < 10.0 && score.abs() < 10.0) {
                let loss = if mover == Colour::White {
                    w - score
                } else {
                    score - w
                };
                let want: &[u8] = if loss >= 1.5 {
                    &[4]
                } else if loss >= 0.5 {
                    &[2]
                } else {
                    &[]
                };
                let got: Vec<u8> = m.nags.iter().copied().filter(|&n| n != 1).collect();
                assert_eq!(
                    got,
                    want,
                    "loss {loss:.2} at {}",
                    notation::display(&pos, &m.mv)
                );
                marks += want.len();
                // The best line is shown only beside a move that loses value, and is another.
                if let Some(v) = m.variations.first() {
                    assert!(loss >= 0.09, "loss {loss:.2}");
                    assert_ne!(v.moves[0].mv, m.mv);
                    lines += 1;
                }
            }
            white_before = Some(score);
            pos = pos.play(&m.mv);
        }
    }
    assert!(marks > 0 && lines > 0, "random games have mistakes");

    // The same run again writes the same bytes.
    let again = scratch("games-again.pdn");
    annotate(&input, &again);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());

    if pydraughts::available("annotate_writes_scores_lines_and_marks_that_both_readers_take") {
        let script = "import sys\nfrom draughts.PDN import PDNReader\n\
                      for g in PDNReader(filename=sys.argv[1]).games:\n    print(' '.join(g.moves))\n";
        let o = Command::new("python3")
            .args(["-c", script, out.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let theirs: Vec<String> = String::from_utf8(o.stdout)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
        let ours: Vec<String> = after
            .iter()
            .map(|g| {
                let mut pos = g.start;
                let mut out = Vec::new();
                for mv in g.moves() {
                    out.push(notation::display(&pos, &mv));
                    pos = pos.play(&mv);
                }
                out.join(" ")
            })
            .collect();
        assert_eq!(theirs, ours);
    }
}

/// Runs `kroon ARGS` (an annotation) and stops it once its progress file holds a few positions.
fn stop_after_a_few_positions(args: &[String], progress: &Path) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kroon"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        let lines = std::fs::read_to_string(progress).map_or(0, |t| t.lines().count());
        if lines > 6 || start.elapsed() > Duration::from_secs(60) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_stopped_annotation_resumes_to_the_same_output() {
    let input = scratch("resume.pdn");
    std::fs::copy(format!("{CORPUS}/lidraughts.pdn"), &input).unwrap();
    let whole = scratch("resume-whole.pdn");
    let args = |out: &Path| {
        vec![
            "annotate".to_owned(),
            input.to_str().unwrap().to_owned(),
            "--nodes".into(),
            "50000".into(),
            "--threads".into(),
            "1".into(),
            "--out".into(),
            out.to_str().unwrap().to_owned(),
        ]
    };
    let o = kroon(&args(&whole).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success());
    let progress = PathBuf::from(format!("{}.kroon-progress", input.display()));
    assert!(
        !progress.exists(),
        "the progress file goes once the output is written"
    );

    // Stop a second run after a few positions, then run again.
    let cut = scratch("resume-cut.pdn");
    stop_after_a_few_positions(&args(&cut), &progress);
    assert!(!cut.exists(), "stopped before the end");
    let o = kroon(&args(&cut).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("resuming"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(std::fs::read(&whole).unwrap(), std::fs::read(&cut).unwrap());
}

#[test]
fn analyse_takes_a_pdn_game_and_prints_several_lines() {
    let file = format!("{CORPUS}/latin1-crlf.pdn");
    // Game 2 starts from a FEN with Black to move; after 3 plies White is to move.
    let o = kroon(&[
        "analyse", "--pdn", &file, "--game", "2", "--ply", "3", "--depth", "4",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let best = text.lines().last().unwrap();
    let game = &read(Path::new(&file))[1];
    let pos = game.position_at(3);
    assert_eq!(pos.turn(), Colour::White);
    let legal: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|mv| format!("best {}", notation::display(&pos, mv)))
        .collect();
    assert!(legal.iter().any(|l| l == best), "{best} not in {legal:?}");
    let o = kroon(&["analyse", "--pdn", &file, "--game", "3"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("there is no game 3"));

    let o = kroon(&["analyse", "--depth", "3", "--multipv", "3"]);
    let text = String::from_utf8_lossy(&o.stdout);
    for d in 1..=3 {
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with(&format!("depth  {d}/")))
            .collect();
        assert_eq!(lines.len(), 3, "{text}");
        for (k, l) in lines.iter().enumerate() {
            assert!(l.contains(&format!(" line  {} ", k + 1)), "{l}");
        }
    }
}

/// Centre of field `f` of the 10x10 board in a diagram of 48-unit squares: FMJD numbering, 5
/// fields a row from the top left, the first row starting on the second column.
fn centre(f: usize) -> (usize, usize) {
    let row = (f - 1) / 5;
    let column = 2 * ((f - 1) % 5) + usize::from(row.is_multiple_of(2));
    (column * 48 + 24, row * 48 + 24)
}

#[test]
fn show_writes_an_svg_board_with_names_pieces_and_the_last_move() {
    let svg = scratch("board.svg");
    let o = kroon(&[
        "show",
        "--moves",
        "32-28 19-23",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(text.matches("class=\"piece white\"").count(), 20);
    assert_eq!(text.matches("class=\"piece black\"").count(), 20);
    assert_eq!(text.matches("class=\"name\"").count(), 50);
    let ((x1, y1), (x2, y2)) = (centre(19), centre(23));
    assert!(
        text.contains(&format!("x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\"")),
        "{text}"
    );
    let (x, y) = centre(28);
    assert!(text.contains(&format!("class=\"piece white\" cx=\"{x}\" cy=\"{y}\"")));

    // 8x8, in algebraic names, with a king.
    let o = kroon(&[
        "show",
        "--variant",
        "russian",
        "--fen",
        "W:WKc3,e1:Bh8",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let text = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(text.matches("class=\"name\"").count(), 32);
    assert!(text.contains(">c3</text>") && text.contains(">b8</text>"));
    assert_eq!(text.matches("class=\"crown\"").count(), 1);
    assert!(!text.contains("class=\"arrow\""));
    if pydraughts::available("show_writes_an_svg_board_with_names_pieces_and_the_last_move") {
        let o = Command::new("python3")
            .args([
                "-c",
                "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])",
                svg.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
}

#[test]
fn an_annotation_with_other_weights_does_not_resume_the_old_one() {
    // The progress file is keyed by the weights themselves, not only by "learned": a run with
    // another weights file searches every position again.
    let input = scratch("reweigh.pdn");
    std::fs::copy(format!("{CORPUS}/lidraughts.pdn"), &input).unwrap();
    let weights = scratch("reweigh-zeros.kew");
    std::fs::write(
        &weights,
        kroon_search::eval::Weights::zeros(Variant::International).to_bytes(),
    )
    .unwrap();
    let out = scratch("reweigh-out.pdn");
    let args = |more: &[&str]| {
        let mut a: Vec<String> = [
            "annotate",
            input.to_str().unwrap(),
            "--nodes",
            "50000",
            "--threads",
            "1",
            "--out",
            out.to_str().unwrap(),
        ]
        .map(str::to_owned)
        .to_vec();
        a.extend(more.iter().map(|s| (*s).to_owned()));
        a
    };
    let progress = PathBuf::from(format!("{}.kroon-progress", input.display()));
    stop_after_a_few_positions(&args(&[]), &progress);
    assert!(!out.exists(), "stopped before the end");
    assert!(progress.exists());
    let again = args(&["--weights", weights.to_str().unwrap()]);
    let o = kroon(&again.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("resuming"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
