//! Search behaviour: determinism on one thread, legal answers from random positions, stop and
//! ponder, the draw rules and win distances.

use crate::material;

use kroon_rules::{parse_fen, Game, Position, Variant};
use kroon_search::{score, Engine, Event, Limits, SearchRequest};
use material::gives_away;
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn fen(text: &str) -> Position {
    parse_fen(text, Variant::International).unwrap()
}

#[test]
fn one_thread_is_deterministic() {
    let run = || {
        let engine = Engine::new(1, 8);
        let pos = fen("W:W27,28,29,31,32,33,34,35,36,38,39,40,42,43,45:B3,6,7,8,9,11,12,13,14,16,17,18,19,22,24");
        let r = engine.search(&SearchRequest::position(pos, Limits::Depth(9)), &|_| {});
        (r.nodes, r.best, r.score)
    };
    let first = run();
    assert!(first.0 > 1000);
    assert_eq!(first, run());
    assert_eq!(first, run());
}

#[test]
fn node_limit_is_deterministic_too() {
    let run = || {
        let engine = Engine::new(1, 8);
        let start = Position::initial(Variant::International);
        let r = engine.search(
            &SearchRequest::position(start, Limits::Nodes(50_000)),
            &|_| {},
        );
        (r.nodes, r.best)
    };
    assert_eq!(run(), run());
}

/// Positions from seeded random games (a small linear congruential generator keeps it dependency-free).
fn random_positions(count: usize, seed: u64) -> Vec<Game> {
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    let mut out = Vec::new();
    while out.len() < count {
        let mut game = Game::new(Position::initial(Variant::International));
        while game.outcome().is_none() && out.len() < count && game.moves().len() < 200 {
            let legal = game.position().legal_moves();
            let mv = legal[next() % legal.len()];
            game.play(&mv).unwrap();
            if next() % 3 == 0 {
                out.push(game.clone());
            }
        }
    }
    out
}

#[test]
fn answers_are_always_legal() {
    let engine = Engine::new(1, 4);
    let games = random_positions(1500, 7);
    for game in &games {
        let pos = *game.position();
        let req = SearchRequest {
            game: game.clone(),
            limits: Limits::Nodes(600),
            ponder: false,
        };
        let r = engine.search(&req, &|_| {});
        let legal = pos.legal_moves();
        match r.best {
            Some(mv) => assert!(legal.contains(&mv), "{}", kroon_rules::write_fen(&pos)),
            None => assert!(legal.is_empty()),
        }
        // The PV is a legal line.
        let mut p = pos;
        for mv in &r.pv {
            assert!(
                p.legal_moves().contains(mv),
                "pv of {}",
                kroon_rules::write_fen(&pos)
            );
            p = p.play(mv);
        }
    }
}

#[test]
fn two_threads_answer_legally() {
    let engine = Engine::new(2, 8);
    for game in random_positions(60, 11) {
        let pos = *game.position();
        let req = SearchRequest {
            game,
            limits: Limits::Depth(6),
            ponder: false,
        };
        if let Some(mv) = engine.search(&req, &|_| {}).best {
            assert!(pos.legal_moves().contains(&mv));
        }
    }
}

#[test]
fn two_threads_report_rising_depths_and_answer_with_the_last() {
    // Whichever thread finishes an iteration first, the depths reported rise one by one or more,
    // the search ends at the depth asked for, and the answer is the last line reported.
    let engine = Engine::new(2, 8);
    for game in random_positions(20, 5) {
        let pos = *game.position();
        if pos.legal_moves().len() < 2 {
            continue;
        }
        let req = SearchRequest {
            game,
            limits: Limits::Depth(9),
            ponder: false,
        };
        let infos = std::sync::Mutex::new(Vec::new());
        let r = engine.search(&req, &|info| infos.lock().unwrap().push(info));
        let infos = infos.into_inner().unwrap();
        let depths: Vec<u32> = infos.iter().map(|i| i.depth).collect();
        assert!(depths.windows(2).all(|w| w[0] < w[1]), "{depths:?}");
        let last = infos.last().expect("an iteration reported");
        if score::is_decisive(r.score) {
            continue;
        }
        assert_eq!((last.depth, r.depth), (9, 9), "{depths:?}");
        assert_eq!(last.pv, r.pv);
        assert_eq!(last.score, r.score);
        assert_eq!(r.best, r.pv.first().copied());
        assert!(pos.legal_moves().contains(&r.best.unwrap()));
    }
}

fn done_within(rx: &mpsc::Receiver<Event>, limit: Duration) -> Option<kroon_search::SearchResult> {
    let end = Instant::now() + limit;
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(Event::Done(r)) => return Some(r),
            Ok(Event::Iteration(_)) => {}
            Err(_) => return None,
        }
    }
    None
}

#[test]
fn stop_ends_an_infinite_search_with_a_move() {
    let engine = Engine::new(2, 8);
    let (tx, rx) = mpsc::channel();
    let start = Position::initial(Variant::International);
    engine.go(SearchRequest::position(start, Limits::Infinite), move |e| {
        let _ = tx.send(e);
    });
    std::thread::sleep(Duration::from_millis(100));
    assert!(engine.is_searching());
    engine.stop();
    let r = done_within(&rx, Duration::from_secs(2)).expect("done after stop");
    assert!(r.best.is_some());
}

#[test]
fn ponder_waits_for_the_hit_then_keeps_to_the_clock() {
    let engine = Engine::new(1, 8);
    let (tx, rx) = mpsc::channel();
    let req = SearchRequest {
        game: Game::new(Position::initial(Variant::International)),
        limits: Limits::MoveTime(Duration::from_millis(100)),
        ponder: true,
    };
    engine.go(req, move |e| {
        let _ = tx.send(e);
    });
    assert!(
        done_within(&rx, Duration::from_millis(400)).is_none(),
        "no answer while pondering"
    );
    let hit = Instant::now();
    engine.ponder_hit();
    let r = done_within(&rx, Duration::from_secs(2)).expect("done after ponder hit");
    assert!(hit.elapsed() < Duration::from_millis(600));
    assert!(r.best.is_some());
}

#[test]
fn move_time_is_kept() {
    let engine = Engine::new(2, 8);
    let start = Instant::now();
    let pos = Position::initial(Variant::International);
    let req = SearchRequest::position(pos, Limits::MoveTime(Duration::from_millis(200)));
    let r = engine.search(&req, &|_| {});
    assert!(r.best.is_some());
    assert!(
        start.elapsed() < Duration::from_millis(400),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_lone_king_against_two_is_a_draw_by_the_five_move_rule() {
    let engine = Engine::new(1, 8);
    let r = engine.search(
        &SearchRequest::position(fen("W:WK47,K48:BK3"), Limits::Depth(14)),
        &|_| {},
    );
    assert_eq!(r.score, 0);
}

#[test]
fn the_twenty_five_move_rule_is_seen_by_the_search() {
    // Two kings take the last man in three plies, but every first move is a king move that captures
    // nothing: after 49 such plies it is the 50th, and the game is drawn.
    let pos = fen("W:WK50,K49:B16");
    let engine = Engine::new(1, 8);
    let fresh = engine.search(&SearchRequest::position(pos, Limits::Depth(8)), &|_| {});
    assert_eq!(score::plies_to_end(fresh.score), Some(3), "{}", fresh.score);
    let late = SearchRequest {
        game: Game::resume(pos, 49, 0),
        limits: Limits::Depth(8),
        ponder: false,
    };
    assert_eq!(engine.search(&late, &|_| {}).score, 0);
    let early = SearchRequest {
        game: Game::resume(pos, 47, 0),
        limits: Limits::Depth(8),
        ponder: false,
    };
    assert!(score::is_decisive(engine.search(&early, &|_| {}).score));
}

#[test]
fn the_fastest_win_is_taken() {
    // White to move takes the last black piece at once.
    let engine = Engine::new(1, 8);
    let r = engine.search(
        &SearchRequest::position(fen("W:W28,K46:B23"), Limits::Depth(8)),
        &|_| {},
    );
    assert_eq!(score::plies_to_end(r.score), Some(1), "{}", r.score);
    // No legal move: lost at once.
    let r = engine.search(
        &SearchRequest::position(fen("B:W31,32:B"), Limits::Depth(4)),
        &|_| {},
    );
    assert!(r.best.is_none());
}

#[test]
fn a_crowning_at_the_horizon_is_seen() {
    // Black's king cannot stop the man on 8 from crowning next move. One ply deep, the crowning
    // falls past the horizon: the search must still see king against king, not a king against a man.
    let engine = Engine::new(1, 8);
    let r = engine.search(
        &SearchRequest::position(fen("B:W8:BK46"), Limits::Depth(1)),
        &|_| {},
    );
    assert!(r.score.abs() < 50, "{}", r.score);
}

/// Multi-PV on one thread: every iteration reports lines 1 to N with distinct root moves, each
/// line legal from the root, scores that never rise; line 1 of every iteration is exactly the
/// ordinary search's iteration at that depth (score and line), since the other lines leave the
/// table, the history and the root order as they found them.
#[test]
fn multipv_lines_are_distinct_legal_ordered_and_line_one_is_the_ordinary_search() {
    use kroon_search::Info;
    use std::sync::Mutex;
    let collect = |game: &Game, multipv: usize| {
        let mut engine = Engine::new(1, 8);
        engine.set_multipv(multipv);
        let infos = Mutex::new(Vec::new());
        let req = SearchRequest {
            game: game.clone(),
            limits: Limits::Depth(7),
            ponder: false,
        };
        let result = engine.search(&req, &|i: Info| infos.lock().unwrap().push(i));
        (infos.into_inner().unwrap(), result)
    };
    let mut checked = 0;
    for game in random_positions(40, 77) {
        let root = *game.position();
        let legal = root.legal_moves();
        if legal.len() < 3 {
            continue;
        }
        checked += 1;
        let (single, one) = collect(&game, 1);
        let (multi, many) = collect(&game, 3);
        assert!(single.iter().all(|i| i.multipv == 1));
        let firsts: Vec<(u32, i32, &[kroon_rules::Move])> = multi
            .iter()
            .filter(|i| i.multipv == 1)
            .map(|i| (i.depth, i.score, i.pv.as_slice()))
            .collect();
        let ordinary: Vec<(u32, i32, &[kroon_rules::Move])> = single
            .iter()
            .map(|i| (i.depth, i.score, i.pv.as_slice()))
            .collect();
        assert_eq!(firsts, ordinary, "{}", kroon_rules::write_fen(&root));
        assert_eq!(many.best, one.best);
        for depth in 1..=7 {
            let lines: Vec<&Info> = multi.iter().filter(|i| i.depth == depth).collect();
            let numbers: Vec<usize> = lines.iter().map(|i| i.multipv).collect();
            assert_eq!(numbers, [1, 2, 3], "depth {depth}");
            for pair in lines.windows(2) {
                assert!(pair[0].score >= pair[1].score, "depth {depth}");
                assert_ne!(pair[0].pv[0], pair[1].pv[0]);
            }
            assert_ne!(lines[0].pv[0], lines[2].pv[0]);
            for line in &lines {
                let mut pos = root;
                for mv in &line.pv {
                    assert!(pos.legal_moves().contains(mv), "depth {depth}");
                    pos = pos.play(mv);
                }
            }
        }
        assert_eq!(many.lines.len(), 3);
        assert_eq!(many.lines[0].pv, many.pv);
    }
    assert!(checked >= 20, "{checked} positions");
}

#[test]
fn the_last_move_of_a_count_keeps_its_pieces() {
    // FMJD 6.3/6.4: one ply before the count runs out, every move ends the game by Kroon's
    // count. The other side may read the rule otherwise and play on, so the move must still not
    // give a piece away; neither once the count has run out (the game goes on). Positions from
    // drawn endings Kroon once lost that way.
    let engine = Engine::new(1, 8);
    for text in [
        "W:W6,K21,35:BK25",
        "B:WK38:B1,24,K48",
        "W:W45,K30:BK14",
        "W:WK30,K12:BK35",
    ] {
        let pos = fen(text);
        let rule = kroon_rules::endgame_rule(&pos).expect("an endgame rule");
        let moves = pos.legal_moves();
        let safe = moves.iter().filter(|m| !gives_away(&pos, m)).count();
        assert!(safe > 0 && safe < moves.len(), "{text}: a real choice");
        for plies in [rule.plies() - 1, rule.plies(), rule.plies() + 7] {
            let req = SearchRequest {
                game: Game::resume(pos, 0, plies),
                limits: Limits::Nodes(60_000),
                ponder: false,
            };
            let best = engine.search(&req, &|_| {}).best.expect("a move");
            assert!(
                !gives_away(&pos, &best),
                "{text} after {plies} plies: {best:?} gives a piece away"
            );
        }
    }
}
