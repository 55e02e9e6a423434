//! The tables against known results of international draughts endgames, against the search's own
//! proven results, and through an interrupted build.

use kroon_egdb::build::{self, Options, Plan};
use kroon_egdb::index::Layout;
use kroon_egdb::search::SearchTables;
use kroon_egdb::{Material, Tables, Value};
use kroon_rules::{parse_fen, Position, Variant};
use kroon_search::{score, Engine, Limits, SearchRequest};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Every slice up to 3K-1K and the men endings 2M-1M, 1K1M-1M, built once for all tests.
fn tables() -> &'static (PathBuf, Tables) {
    static TABLES: OnceLock<(PathBuf, Tables)> = OnceLock::new();
    TABLES.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("kroon-egdb-known-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let wanted: Vec<Material> = ["3K-1K", "2M-1M", "1K1M-1M"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let report = build::build(
            &Plan::materials(&wanted),
            &dir,
            &Options::default(),
            &|_| {},
        )
        .expect("build");
        assert!(report.loaded.is_empty() && report.built.len() >= 16);
        let tables = Tables::open(&dir).unwrap();
        assert!(tables.problems().is_empty());
        (dir, tables)
    })
}

fn pos(fen: &str) -> Position {
    parse_fen(fen, Variant::International).unwrap()
}

fn value(fen: &str) -> Value {
    tables().1.probe(&pos(fen)).unwrap().value
}

/// Wins of a slice for its side to move, by distance to conversion.
fn wins_by_distance(m: &str) -> Vec<u64> {
    let m: Material = m.parse().unwrap();
    let layout = Layout::new(m);
    let mut hist = vec![0u64; 128];
    for i in 0..layout.size() {
        if let Some(b) = layout.decode(i) {
            if let Some(Value::Win(d)) = tables().1.probe(&b.to_position()).map(|p| p.value) {
                hist[usize::from(d)] += 1;
            }
        }
    }
    while hist.last() == Some(&0) {
        hist.pop();
    }
    hist
}

#[test]
fn lone_kings_draw_unless_caught_at_once() {
    assert_eq!(value("W:WK1:BK50"), Value::Draw);
    assert_eq!(value("W:WK28:BK3"), Value::Draw);
    // The king in the corner of the long diagonal can only move along it, into the other's reach.
    assert_eq!(value("W:WK46:BK5"), Value::Loss(2));
    assert_eq!(value("W:WK1,K2:BK50"), Value::Draw);
    assert_eq!(value("B:WK46,K1,K2:BK30"), Value::Draw);
    assert_eq!(value("B:WK46,K1,K2:BK24"), Value::Draw);
    // 1K-1K, 2K-1K, 3K-1K: every win is a shot that catches the lone king within a few plies;
    // none comes from a long manoeuvre (on 8x8, three kings beat one by one).
    let kk = wins_by_distance("1K-1K");
    let kkk = wins_by_distance("2K-1K");
    let kkkk = wins_by_distance("3K-1K");
    println!("wins by plies to conversion: 1K-1K {kk:?}, 2K-1K {kkk:?}, 3K-1K {kkkk:?}");
    assert!(
        kk.len() <= 4 && kkk.len() <= 8 && kkkk.len() <= 13,
        "{kkkk:?}"
    );
}

#[test]
fn three_kings_holding_the_long_diagonal_do_not_beat_a_free_lone_king() {
    // The lone king to move, off the long diagonal (46-5), a king of the three on it: it loses only
    // where it stands in a shot at once.
    let m: Material = "1K-3K".parse().unwrap();
    let layout = Layout::new(m);
    let diagonal: u64 = [46u32, 41, 37, 32, 28, 23, 19, 14, 10, 5]
        .iter()
        .fold(0, |acc, f| acc | 1 << (f - 1));
    let (mut held, mut lost, mut longest) = (0, 0, 0);
    for i in 0..layout.size() {
        let Some(b) = layout.decode(i) else { continue };
        // Seen from the lone king: the board is turned round, which keeps the long diagonal.
        if b.own_kings & diagonal != 0 || b.opp_kings & diagonal == 0 {
            continue;
        }
        held += 1;
        if let Some(Value::Loss(d)) = tables().1.probe(&b.to_position()).map(|p| p.value) {
            lost += 1;
            longest = longest.max(d);
        }
    }
    println!("long diagonal held: {held} positions, {lost} lost, in at most {longest} plies");
    assert!(held > 100_000 && lost * 20 < held && longest <= 13);
}

#[test]
fn men_crown_and_break_through() {
    // A man that runs to crown while the other is far behind: three moves, then king against man.
    assert_eq!(value("W:W16:B10"), Value::Win(5));
    assert_eq!(value("W:W16:B20"), Value::Win(5));
    // Two men against one: break through.
    assert_eq!(value("W:W27,28:B18"), Value::Win(3));
    assert_eq!(value("W:W33,34:B19"), Value::Win(3));
    // A lone man against a king that waits on the long diagonal: lost or drawn, never won.
    assert_ne!(value("W:W36:BK5").name(), "win");
}

/// Checks `samples` positions spread over slice `m` of `tables` against the search alone (depth
/// 9, no tables): wherever the search proves a win or a loss, the tables say the same (so where
/// they say draw, the search proves nothing). Returns how many the search proved.
fn agree_with_the_search(tables: &Tables, engine: &Engine, m: Material, samples: u64) -> usize {
    let layout = Layout::new(m);
    let step = (layout.size() / samples).max(1);
    let mut proven = 0;
    for i in (0..layout.size()).step_by(step as usize) {
        let Some(b) = layout.decode(i) else { continue };
        let p = b.to_position();
        let table = tables.probe(&p).unwrap().value;
        engine.wait();
        let r = engine.search(&SearchRequest::position(p, Limits::Depth(9)), &|_| {});
        if score::is_decisive(r.score) {
            proven += 1;
            let won = r.score > 0;
            assert_eq!(
                table.name(),
                if won { "win" } else { "loss" },
                "{m} {i} {b:?}"
            );
        }
    }
    proven
}

#[test]
fn the_search_never_proves_otherwise() {
    // Wherever the search alone proves a win or a loss, the tables say the same.
    let engine = Engine::new(1, 16);
    let proven: usize = ["1K1M-1M", "2M-1M", "1M-2M", "1K-1K1M"]
        .iter()
        .map(|m| agree_with_the_search(&tables().1, &engine, m.parse().unwrap(), 60))
        .sum();
    println!("{proven} positions proven by the search agree with the tables");
    assert!(proven >= 20, "{proven}");
}

/// The directory `KROON_EGDB_CHECK_DIR` names (built beforehand: `scripts/egdb-check.sh`), its
/// tables, and their slices of six or more pieces (at least one).
fn large_slices() -> (PathBuf, Tables, Vec<Material>) {
    let dir =
        PathBuf::from(std::env::var_os("KROON_EGDB_CHECK_DIR").expect("KROON_EGDB_CHECK_DIR"));
    let tables = Tables::open(&dir).unwrap();
    assert!(tables.problems().is_empty(), "{:?}", tables.problems());
    let large: Vec<Material> = tables
        .slices()
        .iter()
        .map(|(s, _)| s.material())
        .filter(|m| m.pieces() >= 6)
        .collect();
    assert!(!large.is_empty(), "no slice of six pieces in {dir:?}");
    (dir, tables, large)
}

/// The slices of six or more pieces in `KROON_EGDB_CHECK_DIR`, 400 positions of each against
/// the search alone.
#[test]
#[ignore = "needs slices of six pieces built beforehand (KROON_EGDB_CHECK_DIR)"]
fn large_slices_agree_with_the_search() {
    let (_, tables, large) = large_slices();
    let engine = Engine::new(1, 16);
    for m in large {
        let proven = agree_with_the_search(&tables, &engine, m, 400);
        println!("{m}: {proven} positions proven by the search agree with the tables");
    }
}

/// A new directory beside the shared tables' (named by `ext`) holding copies of their `slices`.
fn fresh_with(ext: &str, slices: &[&str]) -> PathBuf {
    let dir = &tables().0;
    let copy = dir.with_extension(ext);
    let _ = std::fs::remove_dir_all(&copy);
    std::fs::create_dir_all(&copy).unwrap();
    for name in slices {
        let f = format!("{name}.kdb");
        std::fs::copy(dir.join(&f), copy.join(&f)).unwrap();
    }
    copy
}

#[test]
fn an_interrupted_build_resumes_without_redoing_finished_slices() {
    let (dir, tables) = tables();
    // Keep the finished 1- and 2-king slices; a half-written file is left behind too.
    let copy = fresh_with("resume", &["1K-1K", "2K-1K", "1K-2K"]);
    std::fs::write(copy.join("3K-1K.tmp"), b"half").unwrap();
    let plan = Plan::materials(&["3K-1K".parse().unwrap()]);
    let report = build::build(&plan, &copy, &Options::default(), &|_| {}).unwrap();
    assert_eq!(report.loaded.len(), 3);
    assert_eq!(report.built.len(), 2);
    for name in ["3K-1K", "1K-3K"] {
        let f = format!("{name}.kdb");
        assert_eq!(
            std::fs::read(dir.join(&f)).unwrap(),
            std::fs::read(copy.join(&f)).unwrap(),
            "{name}"
        );
    }
    // A damaged file is reported and left out; the others still answer.
    let mut bytes = std::fs::read(copy.join("3K-1K.kdb")).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 1;
    std::fs::write(copy.join("3K-1K.kdb"), bytes).unwrap();
    let damaged = Tables::open(&copy).unwrap();
    assert_eq!(damaged.problems().len(), 1);
    assert!(damaged.probe(&pos("W:WK1,K2,K3:BK50")).is_none());
    assert_eq!(
        damaged.probe(&pos("W:WK1,K2:BK50")),
        tables.probe(&pos("W:WK1,K2:BK50"))
    );
    std::fs::remove_dir_all(&copy).unwrap();
}

#[test]
fn a_build_within_a_small_memory_budget_writes_the_same_files() {
    let (dir, _) = tables();
    // Kings alone cannot be cut into parts: they come from the whole build.
    let copy = fresh_with("budget", &["1K-1K", "2K-1K", "1K-2K"]);
    let plan = Plan::materials(&["2M-1M".parse().unwrap(), "1K1M-1M".parse().unwrap()]);
    let options = |memory| Options {
        memory: Some(memory),
        ..Options::default()
    };
    // Too little for any part: the build says so and stops; what it finished stays.
    let err = build::build(&plan, &copy, &options(300 << 10), &|_| {}).unwrap_err();
    assert!(
        matches!(err, build::BuildError::Memory { budget, needed, .. } if needed > budget),
        "{err}"
    );
    // With 900 KB the men's pairs are built in parts, and a slice dropped from memory for room
    // is read back when a pair crowns into it.
    let (parts, reread) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let report = build::build(&plan, &copy, &options(900 << 10), &|p| match p {
        build::Progress::Pair { parts: n, .. } if n > 1 => {
            parts.fetch_add(1, Ordering::Relaxed);
        }
        build::Progress::Reread(_) => {
            reread.fetch_add(1, Ordering::Relaxed);
        }
        _ => {}
    })
    .unwrap();
    assert!(parts.into_inner() >= 4);
    assert!(reread.into_inner() >= 1);
    assert!(report.built.len() >= 10);
    for r in &report.built {
        let f = format!("{}.kdb", r.material);
        assert!(
            std::fs::read(dir.join(&f)).unwrap() == std::fs::read(copy.join(&f)).unwrap(),
            "{f}"
        );
    }
    // Under a budget a finished slice stays on disk until a pair needs it (all of them at
    // once would not fit at six pieces): with the last pair gone, a build within room enough
    // for everything reads the slices that pair leads into, and nothing when none is missing.
    let last = *plan.slices().last().unwrap();
    for m in [last, last.swapped()] {
        std::fs::remove_file(copy.join(format!("{m}.kdb"))).unwrap();
    }
    let again = |expect_built: usize| {
        let read = AtomicUsize::new(0);
        let report = build::build(&plan, &copy, &options(1 << 30), &|p| {
            if let build::Progress::Reread(_) = p {
                read.fetch_add(1, Ordering::Relaxed);
            }
        })
        .unwrap();
        assert_eq!(report.built.len(), expect_built);
        assert_eq!(report.loaded.len() + expect_built, plan.slices().len());
        read.into_inner()
    };
    assert!(again(2) >= 2);
    assert_eq!(again(0), 0);
    // A damaged file is built again, budget or not.
    let damaged = copy.join(format!("{last}.kdb"));
    let mut bytes = std::fs::read(&damaged).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    std::fs::write(&damaged, bytes).unwrap();
    assert!(again(2) >= 2);
    for m in [last, last.swapped()] {
        let f = format!("{m}.kdb");
        assert!(std::fs::read(dir.join(&f)).unwrap() == std::fs::read(copy.join(&f)).unwrap());
    }
    std::fs::remove_dir_all(&copy).unwrap();
}

/// What playing out won positions showed.
#[derive(Default, Debug)]
struct PlayedOut {
    games: usize,
    longest: usize,
    /// Games whose start had a distance to conversion in the tables.
    with_distance: usize,
    /// Of those, the games whose first conversion came in exactly that many plies.
    exact: usize,
}

/// Plays out `per_slice` won positions sampled from each of `slices` by the engine with `tables`
/// on both sides (a few thousand nodes a move). The winner keeps the win with every move, makes
/// its first conversion (a capture or a crowning) within the tables' distance where they keep
/// one, and wins the game under the counting rules within 150 plies.
fn play_out_won_endings(
    tables: &Tables,
    dir: &std::path::Path,
    slices: &[Material],
    per_slice: usize,
) -> PlayedOut {
    let mut engine = Engine::new(1, 16);
    let probe = SearchTables::new(Tables::open(dir).unwrap());
    engine.set_tables(Some(std::sync::Arc::new(probe)));
    let mut out = PlayedOut::default();
    for &m in slices {
        let layout = Layout::new(m);
        let mut i = 7;
        let mut found = 0;
        while found < per_slice && i < layout.size() {
            i += layout.size() / (16 * per_slice as u64 + 1);
            let Some(b) = layout.decode(i) else { continue };
            let start = b.to_position();
            let Some(at_start) = tables.probe(&start) else {
                continue;
            };
            if at_start.value.name() != "win" {
                continue;
            }
            found += 1;
            let winner = start.turn();
            let material = |p: &Position| (p.all().count(), p.men().count());
            let mut game = kroon_rules::Game::new(start);
            let mut plies = 0;
            let mut converted = None;
            while game.outcome().is_none() {
                assert!(plies < 150, "{m} {i}: no win in 150 plies");
                let req = SearchRequest {
                    game: game.clone(),
                    limits: Limits::Nodes(3_000),
                    ponder: false,
                };
                let mv = engine.search(&req, &|_| {}).best.unwrap();
                let mover = game.position().turn();
                let before = material(game.position());
                game.play(&mv).unwrap();
                plies += 1;
                if converted.is_none() && material(game.position()) != before {
                    converted = Some(plies);
                }
                if mover == winner {
                    let after = tables.probe(game.position()).map(|p| p.value.name());
                    assert!(
                        matches!(after, Some("loss") | None),
                        "{m} {i}: the win slipped"
                    );
                }
            }
            assert_eq!(
                game.outcome(),
                Some(kroon_rules::Outcome::Win(winner)),
                "{m} {i}"
            );
            if let Some(d) = at_start.distance {
                let c = converted.expect("a won game converts");
                assert!(
                    c <= usize::from(d),
                    "{m} {i}: converted in {c} plies, the tables say {d}"
                );
                out.with_distance += 1;
                out.exact += usize::from(c == usize::from(d));
            }
            out.longest = out.longest.max(plies);
            out.games += 1;
        }
    }
    out
}

#[test]
fn the_engine_with_the_tables_wins_won_endings() {
    let (dir, tables) = tables();
    let slices: Vec<Material> = ["2M-1M", "1K1M-1M", "3K-1K", "2K-1K"]
        .iter()
        .map(|m| m.parse().unwrap())
        .collect();
    let out = play_out_won_endings(tables, dir, &slices, 6);
    println!("{out:?}");
    assert!(out.games >= 20 && out.with_distance >= 20, "{out:?}");
}

/// Won positions of the slices of six or more pieces in `KROON_EGDB_CHECK_DIR` (with every slice
/// they lead into: `scripts/egdb-check.sh`) played out as above.
#[test]
#[ignore = "needs slices of six pieces built beforehand (KROON_EGDB_CHECK_DIR)"]
fn large_won_endings_are_converted() {
    let (dir, tables, large) = large_slices();
    for m in large {
        let out = play_out_won_endings(&tables, &dir, &[m], 20);
        println!("{m}: {out:?}");
    }
}
