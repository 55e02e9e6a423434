//! `kroon serve` through the real binary: the page and its API answer, bad input of every kind
//! gets an error answer while the server keeps serving, and the engine's WebSocket pushes lines.

use crate::support;

use futures_util::{SinkExt, StreamExt};
use kroon_rules::{parse_fen, parse_hub_move, Variant};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;
use support::server::Server;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

/// One HTTP/1.1 exchange on a fresh connection: status and body. `body` may be shorter than the
/// `length` announced (an upload the server should refuse before reading it all).
async fn exchange(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &[u8],
    length: usize,
) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Content-Length: {length}\r\nConnection: close\r\n\r\n"
    );
    s.write_all(head.as_bytes()).await.ok()?;
    // A refused upload may be cut off while it is written; the answer is what counts.
    let _ = s.write_all(body).await;
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw).await;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())?;
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_owned();
    Some((status, body))
}

/// As [`exchange`], which must answer.
async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &[u8],
    length: usize,
) -> (u16, String) {
    exchange(addr, method, path, body, length)
        .await
        .unwrap_or_else(|| panic!("no HTTP answer to {method} {path}"))
}

/// A POST retried, as a browser would, when the connection is dropped before any answer (the
/// kernel's queue of connections waiting to be accepted can overflow with a thousand at once);
/// the answer and the number of retries.
async fn post_retrying(addr: SocketAddr, body: &str) -> (u16, String, u32) {
    for retries in 0..5 {
        if let Some((status, text)) =
            exchange(addr, "POST", "/api/game", body.as_bytes(), body.len()).await
        {
            return (status, text, retries);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no answer to POST /api/game in 5 tries")
}

async fn post(addr: SocketAddr, path: &str, body: &str) -> (u16, String) {
    http(addr, "POST", path, body.as_bytes(), body.len()).await
}

fn error_of(body: &str) -> String {
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"));
    v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error in {body}"))
        .to_owned()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

#[test]
fn the_page_and_the_api_answer_and_bad_input_gets_errors() {
    let mut server = Server::start();
    let addr = server.addr;
    runtime().block_on(async {
        let (status, page) = http(addr, "GET", "/", b"", 0).await;
        assert_eq!(status, 200);
        assert!(
            page.contains("id=\"board\"") && page.contains("/app.js"),
            "{page}"
        );
        let (status, script) = http(addr, "GET", "/app.js", b"", 0).await;
        assert_eq!(status, 200);
        assert!(script.contains("/api/engine"));

        // A game with a capture: the view has the rules' answer (independent check: kroon_rules).
        let (status, body) = post(
            addr,
            "/api/game",
            r#"{"variant":"normal","moves":["32-28","19-23","28x19x23"]}"#,
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let view: Value = serde_json::from_str(&body).unwrap();
        let fen = view["fen"].as_str().unwrap();
        let pos = parse_fen(fen, Variant::International).unwrap();
        let legal: Vec<&str> = view["legal"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap())
            .collect();
        assert_eq!(legal.len(), pos.legal_moves().len());
        for id in &legal {
            assert!(parse_hub_move(&pos, id).is_ok(), "{id} in {fen}");
        }
        assert_eq!(view["history"][2]["text"], "28x19");
        // Russian: algebraic names.
        let (status, body) = post(
            addr,
            "/api/game",
            r#"{"variant":"russian","moves":["22-18"]}"#,
        )
        .await;
        assert_eq!(status, 200);
        assert!(
            body.contains(r#""name":"c3""#) && body.contains(r#""text":"c3-d4""#),
            "{body}"
        );

        // Bad input: an error answer with a reason.
        for (body, want_status, want) in [
            ("{\"variant\":", 400, "bad request"),
            ("[1,2,3]", 400, "bad request"),
            ("\u{0}\u{1}binary", 400, "bad request"),
            (r#"{"variant":"normal","moves":["32-26"]}"#, 422, "32-26"),
            (r#"{"variant":"normal","moves":[7]}"#, 400, "bad request"),
            (r#"{"variant":"chess"}"#, 422, "unknown variant"),
            (r#"{"variant":"normal","fen":"W:W51"}"#, 422, "bad FEN"),
            (r#"{"variant":"normal","unknown":1}"#, 400, "unknown field"),
        ] {
            let (status, answer) = post(addr, "/api/game", body).await;
            assert_eq!(status, want_status, "{body} -> {answer}");
            assert!(error_of(&answer).contains(want), "{body} -> {answer}");
        }
        let (status, answer) = post(addr, "/api/pdn/read", "{ never closed").await;
        assert_eq!(status, 422, "{answer}");
        let (status, answer) = post(
            addr,
            "/api/pdn/write",
            r#"{"game":{"variant":"normal","moves":["1-2"]}}"#,
        )
        .await;
        assert_eq!(status, 422, "{answer}");
        let (status, answer) = http(addr, "GET", "/nothing", b"", 0).await;
        assert_eq!(status, 404);
        error_of(&answer);

        // An upload over the limit: 413 without the server reading it all.
        let big = vec![b'1'; 64 << 10];
        let (status, _) = http(
            addr,
            "POST",
            "/api/pdn/read",
            &big,
            kroon_serve::MAX_BODY + 1,
        )
        .await;
        assert_eq!(status, 413);

        // PDN in and out.
        let (status, text) = post(
            addr,
            "/api/pdn/write",
            r#"{"game":{"variant":"normal","moves":["32-28","19-23","28x19x23"]},"white":"A"}"#,
        )
        .await;
        assert_eq!(status, 200);
        assert!(
            text.contains("[White \"A\"]") && text.contains("1. 32-28 19-23 2. 28x19 *"),
            "{text}"
        );
        let (status, body) = post(addr, "/api/pdn/read?variant=russian", &text).await;
        assert_eq!(status, 200);
        let games: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            games["games"][0]["variant"], "normal",
            "the GameType tag wins"
        );
        assert_eq!(
            games["games"][0]["moves"],
            json!(["32-28", "19-23", "28x19x23"])
        );

        // A thousand requests at once, good, malformed and illegal mixed, plus raw garbage
        // connections: every one gets an answer, and the server serves on.
        const GOOD: &str = r#"{"variant":"normal","moves":["32-28"]}"#;
        const ILLEGAL: &str = r#"{"variant":"normal","moves":["50-45"]}"#;
        let mut tasks = Vec::new();
        for i in 0..1000 {
            tasks.push(tokio::spawn(async move {
                match i % 4 {
                    0 => post_retrying(addr, GOOD).await,
                    1 => post_retrying(addr, "{{{{").await,
                    2 => post_retrying(addr, ILLEGAL).await,
                    _ => {
                        let mut s = TcpStream::connect(addr).await.expect("connect");
                        let _ = s.write_all(b"\x16\x03\x01 not http at all\r\n\r\n").await;
                        let mut raw = Vec::new();
                        let _ = s.read_to_end(&mut raw).await;
                        (0, String::from_utf8_lossy(&raw).into_owned(), 0)
                    }
                }
            }));
        }
        let (mut ok, mut busy, mut refused, mut retried) = (0, 0, 0, 0);
        for (i, t) in tasks.into_iter().enumerate() {
            let (status, body, retries) = t.await.expect("task");
            retried += retries;
            match (i % 4, status) {
                (0, 200) => ok += 1,
                (1, 400) | (2, 422) => refused += 1,
                (0..=2, 503) => busy += 1,
                (3, _) => {}
                other => panic!("request {i}: unexpected {other:?}: {body}"),
            }
            if (1..=2).contains(&(i % 4)) || status == 503 {
                error_of(&body);
            }
        }
        assert!(
            ok > 0 && ok + busy + refused == 750,
            "ok {ok}, busy {busy}, refused {refused}"
        );
        eprintln!(
            "1000 at once: {ok} answered, {refused} refused as bad, {busy} turned away busy, \
             {retried} retries of dropped connections"
        );
        let (status, _) = post(addr, "/api/game", r#"{"variant":"english"}"#).await;
        assert_eq!(status, 200);
    });
    assert!(server.alive());
}

async fn next_json(
    ws: &mut (impl StreamExt<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin),
) -> Value {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(60), ws.next())
            .await
            .expect("an answer within a minute")
            .expect("socket open")
            .expect("message");
        if let Message::Text(t) = msg {
            return serde_json::from_str(t.as_str()).expect("JSON");
        }
    }
}

/// Reads up to the next `done`, and returns it.
async fn until_done(
    ws: &mut (impl StreamExt<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin),
) -> Value {
    loop {
        let m = next_json(ws).await;
        if m["type"] == "done" {
            return m;
        }
    }
}

#[test]
fn the_engine_socket_pushes_lines_and_survives_bad_messages() {
    let mut server = Server::start();
    let url = format!("ws://{}/api/engine", server.addr);
    runtime().block_on(async {
        let (mut ws, _) = tokio_tungstenite::connect_async(&url)
            .await
            .expect("connect");
        for bad in [
            "",
            "{",
            r#"{"type":"fly"}"#,
            r#"{"type":"go","id":1,"mode":"play","game":{"variant":"normal","moves":["32-26"]}}"#,
        ] {
            ws.send(Message::text(bad)).await.unwrap();
            let answer = next_json(&mut ws).await;
            assert_eq!(answer["type"], "error", "{bad} -> {answer}");
        }
        // Analysis: lines arrive, deeper each time, until stopped; then `done`.
        let game = json!({"variant":"normal","moves":["32-28","19-23"]});
        let go = json!({"type":"go","id":7,"mode":"analyse","lines":3,"game":game});
        ws.send(Message::text(go.to_string())).await.unwrap();
        let started = next_json(&mut ws).await;
        assert_eq!(
            (started["type"].as_str(), started["lines_asked"].as_u64()),
            (Some("started"), Some(3))
        );
        let mut depths = Vec::new();
        while depths.len() < 4 {
            let info = next_json(&mut ws).await;
            assert_eq!(
                (info["type"].as_str(), info["id"].as_u64()),
                (Some("info"), Some(7)),
                "{info}"
            );
            assert!(!info["pv"].as_array().unwrap().is_empty());
            depths.push(info["depth"].as_u64().unwrap());
        }
        assert!(depths.windows(2).all(|w| w[0] < w[1]), "{depths:?}");
        ws.send(Message::text(r#"{"type":"stop"}"#)).await.unwrap();
        let done = until_done(&mut ws).await;
        let pos = kroon_rules::Position::initial(Variant::International);
        let pos = pos.play(&parse_hub_move(&pos, "32-28").unwrap());
        let pos = pos.play(&parse_hub_move(&pos, "19-23").unwrap());
        let best = done["best"]["id"].as_str().unwrap();
        assert!(
            parse_hub_move(&pos, best).unwrap().is_capture(),
            "28x19 is forced: {done}"
        );

        // A move to play at a level, in an 8x8 variant.
        let go = json!({"type":"go","id":8,"mode":"play","depth":5,"game":{"variant":"russian"}});
        ws.send(Message::text(go.to_string())).await.unwrap();
        let done = until_done(&mut ws).await;
        assert_eq!(done["depth"], 5);
        let r = kroon_rules::Position::initial(Variant::Russian);
        assert!(
            parse_hub_move(&r, done["best"]["id"].as_str().unwrap()).is_ok(),
            "{done}"
        );

        // A message over the limit closes that socket; a new one works.
        let huge = "x".repeat(kroon_serve::live::MAX_MESSAGE + 1);
        let _ = ws.send(Message::text(huge)).await;
        let closed = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                match ws.next().await {
                    None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
                    Some(Ok(_)) => {}
                }
            }
        })
        .await;
        assert!(closed.is_ok(), "an oversized message must close the socket");

        // Pages beyond the limit are turned away; the ones inside it still work.
        let mut pages = Vec::new();
        for _ in 0..kroon_serve::live::MAX_PAGES {
            pages.push(
                tokio_tungstenite::connect_async(&url)
                    .await
                    .expect("a page within the limit")
                    .0,
            );
        }
        match tokio_tungstenite::connect_async(&url).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 503),
            other => panic!("expected 503, got {other:?}"),
        }
        let ws = &mut pages[0];
        let go = json!({"type":"go","id":9,"mode":"play","depth":2,"game":{"variant":"frisian"}});
        ws.send(Message::text(go.to_string())).await.unwrap();
        until_done(ws).await;
    });
    assert!(server.alive());
}
