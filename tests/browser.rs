//! The web board in a real browser: Debian's chromium driven over WebDriver (chromedriver) by
//! fantoccini, against the real binary. Plays a game by clicks and one drag (a capture among the
//! moves) and sees Kroon answer, runs an analysis and sees its lines, loads a FEN, chooses between
//! two capture paths to one square, changes variant and flips the board, and saves a screenshot
//! that must not be blank.
//!
//! The Chinese checkers page: loads a position, plays a hop chain by clicking its landing hole
//! (the chain drawn as one line), and plays a three-player game against two engine seats.
//!
//! Skipped, with a notice, where chromium or chromedriver is missing, unless
//! `KROON_REQUIRE_BROWSER` is set (as `.ci/run` sets it): then it fails.

use crate::support;
use support::server;

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const CHROMIUM: &str = "/usr/bin/chromium";
const DRIVER: &str = "/usr/bin/chromedriver";

fn available() -> bool {
    support::skip::unless_missing(
        Path::new(CHROMIUM).exists() && Path::new(DRIVER).exists(),
        "browser test",
        &format!("{CHROMIUM} and {DRIVER} (apt-get install -y chromium chromium-driver)"),
        "KROON_REQUIRE_BROWSER",
    )
}

/// chromedriver on a free loopback port, killed when dropped.
struct Driver(Child, u16);

impl Driver {
    fn start() -> Driver {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(DRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        // Listening is not yet serving: wait until its status says it takes new sessions.
        let deadline = Instant::now() + Duration::from_secs(30);
        while !Driver::ready(port) {
            assert!(
                Instant::now() < deadline,
                "chromedriver did not become ready"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Driver(child, port)
    }

    /// Whether chromedriver on `port` answers `GET /status` with `"ready": true`. It takes only
    /// HTTP/1.1 and keeps the connection open after answering, so the answer is read until its
    /// body is whole JSON.
    fn ready(port: u16) -> bool {
        use std::io::{Read, Write};
        let Ok(mut conn) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
            return false;
        };
        let _ = conn.set_read_timeout(Some(Duration::from_secs(5)));
        let request =
            format!("GET /status HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
        if conn.write_all(request.as_bytes()).is_err() {
            return false;
        }
        let mut answer = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            match conn.read(&mut chunk) {
                Ok(0) | Err(_) => return false,
                Ok(n) => answer.extend_from_slice(&chunk[..n]),
            }
            let text = String::from_utf8_lossy(&answer);
            if let Some((_, body)) = text.split_once("\r\n\r\n") {
                if let Ok(v) = serde_json::from_str::<Value>(body) {
                    return v["value"]["ready"] == Value::Bool(true);
                }
            }
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A headless chromium session. chromedriver once reset the connection of a session request (in
/// a CI run, with the two browser tests starting at once), so a request that fails to reach it is
/// tried again for a while; any other failure ends the test.
async fn session(driver: &Driver) -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({ "binary": CHROMIUM, "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--disable-background-networking",
                "--window-size=1280,900"] }),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps.clone())
            .connect(&format!("http://127.0.0.1:{}", driver.1))
            .await
        {
            Ok(c) => return c,
            Err(fantoccini::error::NewSessionError::FailedC(e)) if Instant::now() < deadline => {
                eprintln!("WebDriver session not made ({e}); trying again");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            Err(e) => panic!("a WebDriver session: {e:?}"),
        }
    }
}

/// Polls `probe` (a script returning a value) until `ok` holds; panics with the last value.
async fn until(c: &Client, what: &str, probe: &str, ok: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let v = c.execute(probe, vec![]).await.expect("script");
        if ok(&v) {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}: last {v}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

const STATE: &str = "const b = document.getElementById('board'); \
    return { turn: b.dataset.turn, moves: Number(b.dataset.moves), \
             thinking: document.getElementById('status').dataset.thinking, \
             status: document.getElementById('status').textContent, \
             error: document.getElementById('error').textContent };";

async fn fields(c: &Client, selector: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in c.find_all(Locator::Css(selector)).await.unwrap() {
        out.push(
            e.attr("data-field")
                .await
                .unwrap()
                .unwrap()
                .parse()
                .unwrap(),
        );
    }
    out
}

async fn square(c: &Client, field: u32) -> fantoccini::elements::Element {
    c.find(Locator::Css(&format!("#board [data-field=\"{field}\"]")))
        .await
        .unwrap()
}

/// One entry of the move list, read in a single script: the list is redrawn whenever a move
/// arrives, so an element found in one call may be gone by the next.
async fn move_entry(c: &Client, ply: u64) -> (String, String) {
    let script = format!(
        "const s = document.querySelector('#moves span[data-ply=\"{ply}\"]'); \
         return s ? [s.textContent, s.dataset.id || ''] : null;"
    );
    let v = c.execute(&script, vec![]).await.unwrap();
    assert!(v.is_array(), "no move {ply} in the list");
    (
        v[0].as_str().unwrap().to_string(),
        v[1].as_str().unwrap().to_string(),
    )
}

#[test]
fn the_board_plays_analyses_and_loads_in_chromium() {
    if !available() {
        return;
    }
    let mut server = server::Server::start();
    let driver = Driver::start();
    let url = format!("http://{}/", server.addr);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let c = session(&driver).await;
        c.goto(&url).await.unwrap();
        until(&c, "the engine socket", "return document.getElementById('connection').textContent", |v| {
            v == "engine: ready"
        })
        .await;
        assert_eq!(fields(&c, "#board .sq.dark").await.len(), 50);

        // Kroon answers at depth 4 (a level) to keep the test short.
        c.find(Locator::Css("#limit-kind option[value=level]")).await.unwrap().click().await.unwrap();
        let limit = c.find(Locator::Id("limit-value")).await.unwrap();
        limit.clear().await.unwrap();
        limit.send_keys("4").await.unwrap();

        // Play White by clicks: push the most advanced piece that can move, until a capture has
        // been played (a capture, when there is one, is the only move the board lets you make).
        let mut played = 0;
        let mut captures = 0;
        while played < 4 || captures == 0 {
            assert!(played < 40, "no capture in 40 moves");
            let s = until(&c, "White to move", STATE, |s| s["turn"] == "White" && s["thinking"] == "0").await;
            assert!(!s["status"].as_str().unwrap().contains("wins"), "game over early: {s}");
            let before = s["moves"].as_u64().unwrap();
            let mut movable = fields(&c, "#board .sq.movable").await;
            movable.sort_unstable();
            let from = movable[0];
            square(&c, from).await.click().await.unwrap();
            let mut targets = fields(&c, "#board .sq.target").await;
            targets.sort_unstable();
            assert!(!targets.is_empty(), "a movable piece on {from} shows no target");
            if played == 1 {
                // This move by dragging the (selected) piece onto the target.
                drag(&c, from, targets[0]).await;
            } else {
                square(&c, targets[0]).await.click().await.unwrap();
            }
            if let Ok(choice) = c.find(Locator::Css("#paths:not([hidden]) #path-list button")).await {
                choice.click().await.unwrap();
            }
            // Our move, then Kroon's answer, appear in the move list.
            until(&c, "Kroon's answer", STATE, |s| {
                s["moves"].as_u64() == Some(before + 2) || s["status"].as_str().is_some_and(|t| t.contains("wins"))
            })
            .await;
            let (ours, _) = move_entry(&c, before + 1).await;
            let (theirs, _) = move_entry(&c, before + 2).await;
            assert!(!theirs.is_empty());
            if ours.contains('x') {
                captures += 1;
            }
            played += 1;
        }

        // Step back and forward through the game.
        c.find(Locator::Id("first")).await.unwrap().click().await.unwrap();
        until(&c, "the start", "return document.getElementById('board').dataset.ply", |v| v == "0").await;
        assert_eq!(fields(&c, "#board [data-piece]").await.len(), 40);
        c.find(Locator::Id("last")).await.unwrap().click().await.unwrap();
        until(&c, "the end", STATE, |s| s["turn"] == "White").await;

        // Analysis: lines arrive and deepen.
        c.find(Locator::Id("analyse")).await.unwrap().click().await.unwrap();
        let deep = until(
            &c,
            "analysis lines",
            "const r = document.querySelector('#lines-table tbody tr'); \
             return r ? { depth: Number(r.dataset.depth), pv: r.querySelector('.pv').textContent } : null;",
            |v| v["depth"].as_u64().is_some_and(|d| d >= 6),
        )
        .await;
        assert!(!deep["pv"].as_str().unwrap().is_empty(), "{deep}");
        c.find(Locator::Id("stop")).await.unwrap().click().await.unwrap();

        // Load a FEN: three pieces, White's man on 28 with a capture to play.
        load_fen(&c, "W:W28:B23,13", "W:W28:B13,23").await;
        assert_eq!(fields(&c, "#board [data-piece]").await.len(), 3);
        assert_eq!(fields(&c, "#board .sq.movable").await, vec![28]);

        // Two captures from 28 to 35 take different pieces (12 or 7, with 22 and 30): the board
        // asks which, and plays the one chosen.
        load_fen(&c, "W:WK28:B7,12,22,30", "W:WK28:B7,12,22,30").await;
        let before = c.execute(STATE, vec![]).await.unwrap()["moves"].as_u64().unwrap();
        square(&c, 28).await.click().await.unwrap();
        assert_eq!(fields(&c, "#board .sq.target").await, vec![35]);
        square(&c, 35).await.click().await.unwrap();
        let choices = c.find_all(Locator::Css("#paths:not([hidden]) #path-list button")).await.unwrap();
        assert_eq!(choices.len(), 2, "two paths offered");
        let mut ids = Vec::new();
        for b in &choices {
            ids.push(b.attr("data-id").await.unwrap().unwrap());
        }
        let texts = [choices[0].text().await.unwrap(), choices[1].text().await.unwrap()];
        assert_ne!(texts[0], texts[1], "the two paths read differently");
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(sorted, ["28x35x12x22x30", "28x35x7x22x30"]);
        choices[1].click().await.unwrap();
        until(&c, "the chosen capture", STATE, |s| s["moves"].as_u64().is_some_and(|m| m > before)).await;
        let (_, played) = move_entry(&c, before + 1).await;
        assert_eq!(played, ids[1], "the move played is the path chosen");

        // Other variants draw their own board and names; flip turns it round.
        c.find(Locator::Css("#variant option[value=russian]")).await.unwrap().click().await.unwrap();
        until(&c, "the Russian board", "return document.getElementById('board').dataset.variant", |v| v == "russian").await;
        assert_eq!(fields(&c, "#board .sq.dark").await.len(), 32);
        let first_name = "return document.querySelector('#board .sq.dark').dataset.name";
        assert_eq!(c.execute(first_name, vec![]).await.unwrap(), "b8");
        c.find(Locator::Id("flip")).await.unwrap().click().await.unwrap();
        assert_eq!(c.execute(first_name, vec![]).await.unwrap(), "g1");
        c.find(Locator::Id("flip")).await.unwrap().click().await.unwrap();
        c.find(Locator::Css("#variant option[value=normal]")).await.unwrap().click().await.unwrap();
        until(&c, "the board back", "return document.getElementById('board').dataset.variant", |v| v == "normal").await;
        let s = c.execute(STATE, vec![]).await.unwrap();
        assert_eq!(s["error"], "", "{s}");

        let png = c.screenshot().await.unwrap();
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser-board.png");
        std::fs::write(&out, &png).unwrap();
        let (colours, top_share) = variety(&png);
        eprintln!("screenshot {} ({colours} colours, commonest {:.0}%)", out.display(), top_share * 100.0);
        assert!(colours >= 16 && top_share < 0.8, "the screenshot looks blank: {colours} colours");
        c.close().await.unwrap();
    });
    assert!(server.alive());
}

const CHINESE: &str = "const s = document.getElementById('star'); \
    return { toMove: s.dataset.toMove, events: Number(s.dataset.events), round: s.dataset.round, \
             thinking: document.getElementById('status').dataset.thinking, \
             moves: document.getElementById('moves').textContent, \
             error: document.getElementById('error').textContent };";

async fn names(c: &Client, selector: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in c.find_all(Locator::Css(selector)).await.unwrap() {
        out.push(e.attr("data-name").await.unwrap().unwrap());
    }
    out.sort();
    out
}

async fn hole(c: &Client, name: &str) -> fantoccini::elements::Element {
    c.find(Locator::Css(&format!(
        "#star circle.hole[data-name=\"{name}\"]"
    )))
    .await
    .unwrap()
}

#[test]
fn the_chinese_checkers_page_plays_a_hop_chain_and_the_engine_answers() {
    use kroon_chinese_checkers::{Camp, Hole, Position};
    if !available() {
        return;
    }
    let mut server = server::Server::start();
    let driver = Driver::start();
    let url = format!("http://{}/chinese", server.addr);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let c = session(&driver).await;
        c.goto(&url).await.unwrap();
        until(&c, "the star", CHINESE, |s| s["toMove"] == "A").await;
        assert_eq!(names(&c, "#star circle.hole").await.len(), 121);
        assert_eq!(names(&c, "#star circle.piece").await.len(), 20);
        let seconds = c.find(Locator::Id("seconds")).await.unwrap();
        seconds.clear().await.unwrap();
        seconds.send_keys("0.2").await.unwrap();

        // A hop chain: A's piece on i5 hops over i6 and i8 (D's) to i9, through i7.
        let at = |n: &str| Hole::parse(n).unwrap().bit();
        let pos = Position::setup(
            &[
                (Camp::ALL[0], at("i5") | at("a1")),
                (Camp::ALL[3], at("i6") | at("i8") | at("q1")),
            ],
            Camp::ALL[0],
        );
        let text = pos.to_string();
        let field = c.find(Locator::Id("position-text")).await.unwrap();
        field.clear().await.unwrap();
        field.send_keys(&text).await.unwrap();
        c.find(Locator::Id("load-position")).await.unwrap().click().await.unwrap();
        until(&c, "the loaded position", "return document.getElementById('position-text').dataset.current", |v| {
            v == text.as_str()
        })
        .await;
        assert_eq!(names(&c, "#star circle.piece").await, ["a1", "i5", "i6", "i8", "q1"]);
        hole(&c, "i5").await.click().await.unwrap();
        let targets = names(&c, "#star circle.hole.target").await;
        assert!(targets.contains(&"i9".to_string()) && targets.contains(&"i7".to_string()), "{targets:?}");
        // Pointing at the landing hole shows the whole chain as one line.
        hover(&c, "i9").await;
        let chain = until(
            &c,
            "the chain drawn",
            "const l = document.querySelector('#star .chain'); return l ? l.dataset.path : null;",
            |v| v.is_string(),
        )
        .await;
        assert_eq!(chain, "i5 i7 i9");
        hole(&c, "i9").await.click().await.unwrap();
        // Our move, then Kroon's (D is an engine seat).
        let s = until(&c, "Kroon's answer", CHINESE, |s| s["events"] == 2 && s["thinking"] == "0").await;
        assert!(s["moves"].as_str().unwrap().starts_with("1. i5-i9"), "{s}");
        assert_eq!(s["toMove"], "A", "{s}");
        let pieces = names(&c, "#star circle.piece").await;
        assert!(pieces.contains(&"i9".to_string()) && !pieces.contains(&"i5".to_string()), "{pieces:?}");

        // A three-player game: two moves by clicks, each answered by both engine seats; the
        // round, the anti-blocking counts and the clock are shown.
        c.find(Locator::Css("#players option[value='3']")).await.unwrap().click().await.unwrap();
        c.find(Locator::Id("new-game")).await.unwrap().click().await.unwrap();
        until(&c, "the three-player start", CHINESE, |s| s["events"] == 0 && s["toMove"] == "A").await;
        assert_eq!(names(&c, "#star circle.piece").await.len(), 30);
        for round in 1..=2u64 {
            let s = until(&c, "A to move", CHINESE, |s| s["toMove"] == "A" && s["thinking"] == "0").await;
            assert_eq!(s["round"], round.to_string(), "{s}");
            let clock = c.find(Locator::Id("clock")).await.unwrap().text().await.unwrap();
            assert!(clock.ends_with(" s"), "clock {clock:?}");
            let movable = names(&c, "#star circle.piece.movable").await;
            hole(&c, &movable[0]).await.click().await.unwrap();
            let targets = names(&c, "#star circle.hole.target").await;
            assert!(!targets.is_empty());
            hole(&c, &targets[targets.len() - 1]).await.click().await.unwrap();
            until(&c, "both engine seats", CHINESE, |s| s["events"].as_u64() >= Some(round * 3)).await;
        }
        let outside = c
            .execute("return [...document.querySelectorAll('#players-table td.outside')].map(t => Number(t.textContent))", vec![])
            .await
            .unwrap();
        assert_eq!(outside.as_array().unwrap().len(), 3);
        let rule = c.find(Locator::Id("anti-blocking")).await.unwrap().text().await.unwrap();
        assert!(rule.contains("round 20") && rule.contains("5 pieces"), "{rule}");
        let s = c.execute(CHINESE, vec![]).await.unwrap();
        assert_eq!(s["error"], "", "{s}");
        c.close().await.unwrap();
    });
    assert!(server.alive());
}

/// Moves the mouse over hole `name`.
async fn hover(c: &Client, name: &str) {
    use fantoccini::actions::{InputSource, MouseActions, PointerAction};
    let mouse = MouseActions::new("mouse".to_string()).then(PointerAction::MoveToElement {
        element: hole(c, name).await,
        duration: None,
        x: 0,
        y: 0,
    });
    c.perform_actions(mouse).await.expect("hover");
}

/// Types `fen` into the FEN box, loads it, and waits for the page to show the position as `shown`.
async fn load_fen(c: &Client, fen: &str, shown: &str) {
    let field = c.find(Locator::Id("fen")).await.unwrap();
    field.clear().await.unwrap();
    field.send_keys(fen).await.unwrap();
    c.find(Locator::Id("load-fen"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    until(
        c,
        shown,
        "return document.getElementById('current-fen').textContent",
        |v| v == shown,
    )
    .await;
}

/// Drags the piece on `from` to `to` with the mouse: press, move in steps, release. The target is
/// found by its place on the page, since pressing redraws the board (old elements go stale).
async fn drag(c: &Client, from: u32, to: u32) {
    use fantoccini::actions::{InputSource, MouseActions, PointerAction, MOUSE_BUTTON_LEFT};
    let (x, y, w, h) = square(c, to)
        .await
        .rectangle()
        .await
        .expect("target square");
    let mouse = MouseActions::new("mouse".to_string())
        .then(PointerAction::MoveToElement {
            element: square(c, from).await,
            duration: None,
            x: 0,
            y: 0,
        })
        .then(PointerAction::Down {
            button: MOUSE_BUTTON_LEFT,
        })
        .then(PointerAction::MoveTo {
            duration: Some(Duration::from_millis(300)),
            x: (x + w / 2.0) as i64,
            y: (y + h / 2.0) as i64,
        })
        .then(PointerAction::Up {
            button: MOUSE_BUTTON_LEFT,
        });
    c.perform_actions(mouse).await.expect("drag");
}

/// Distinct colours in a PNG and the share of its commonest one.
fn variety(png_bytes: &[u8]) -> (usize, f64) {
    let decoder = png::Decoder::new(png_bytes);
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let channels = info.color_type.samples();
    let mut counts = std::collections::HashMap::new();
    for px in buf[..info.buffer_size()].chunks(channels) {
        *counts
            .entry(px[..3.min(channels)].to_vec())
            .or_insert(0usize) += 1;
    }
    let total: usize = counts.values().sum();
    let top = counts.values().copied().max().unwrap_or(0);
    (counts.len(), top as f64 / total.max(1) as f64)
}
