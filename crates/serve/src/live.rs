//! The engine behind the board: one `Engine` for the whole server, driven over a WebSocket per
//! page. A page sends `go` (analyse or play a move) and `stop`; the server pushes each finished
//! iteration (`info`) and the result (`done`). A newer `go`, from any page, stops the search
//! before it, whose `done` still goes to the page that asked for it.

use crate::view::{GameSpec, MoveView};
use crate::AppState;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use kroon_rules::{Position, Variant};
use kroon_search::{score, Engine, Eval, Event, Info, Limits, SearchRequest};
use parking_lot::Mutex;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, Semaphore};

/// Largest message a page may send: a game of `MAX_MOVES` moves fits.
pub const MAX_MESSAGE: usize = 64 << 10;
/// Pages connected at once; more get 503.
pub const MAX_PAGES: usize = 32;
/// Most lines a page may ask for.
pub const MAX_LINES: u32 = 10;

/// The engine and who is using it.
pub struct SharedEngine {
    slot: Mutex<Slot>,
    eval_for: Box<dyn Fn(Variant) -> Eval + Send + Sync>,
    next_page: AtomicU64,
    pages: Arc<Semaphore>,
}

struct Slot {
    engine: Engine,
    /// The variant whose evaluation the engine holds.
    variant: Option<Variant>,
    /// The page whose search runs (or ran last).
    page: u64,
}

impl SharedEngine {
    /// Shares `engine`, searching each variant with `eval_for`'s evaluation.
    pub fn new(engine: Engine, eval_for: Box<dyn Fn(Variant) -> Eval + Send + Sync>) -> Self {
        SharedEngine {
            slot: Mutex::new(Slot {
                engine,
                variant: None,
                page: 0,
            }),
            eval_for,
            next_page: AtomicU64::new(1),
            pages: Arc::new(Semaphore::new(MAX_PAGES)),
        }
    }

    /// Starts a search for `page` looking for `lines` best lines; its events go to `out`. Blocks
    /// while an older search stops.
    fn go(
        &self,
        page: u64,
        req: SearchRequest,
        lines: usize,
        out: impl Fn(Event) + Send + 'static,
    ) {
        let mut slot = self.slot.lock();
        slot.engine.stop();
        slot.engine.set_multipv(lines);
        let v = req.game.position().variant();
        if slot.variant != Some(v) {
            slot.engine.set_eval((self.eval_for)(v));
            slot.variant = Some(v);
        }
        slot.page = page;
        slot.engine.go(req, out);
    }

    /// Stops the search if it is `page`'s.
    fn stop(&self, page: u64) {
        let slot = self.slot.lock();
        if slot.page == page {
            slot.engine.stop();
        }
    }
}

/// What a page asks for.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
enum Request {
    /// Search the position a game reaches.
    Go {
        /// The page's number for this search, echoed in every answer.
        id: u64,
        /// The game so far.
        game: GameSpec,
        /// `analyse`: until stopped (unless a limit is given); `play`: a move to play.
        mode: Mode,
        /// Lines wanted at once (see `lines_searched`).
        #[serde(default)]
        lines: Option<u32>,
        /// Time for the search, milliseconds.
        #[serde(default)]
        movetime_ms: Option<u64>,
        /// Depth for the search (the level).
        #[serde(default)]
        depth: Option<u32>,
    },
    /// Stop this page's search (its `done` follows).
    Stop,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Mode {
    Analyse,
    Play,
}

/// How many lines the engine searches when `asked` are wanted.
///
/// Lines a search looks for when a page asks for `asked` (multi-PV).
fn lines_searched(asked: u32) -> u32 {
    asked
}

/// The limits of a search: a depth (level), else a time; an analysis without either runs until
/// stopped, a move to play defaults to a second.
fn limits(mode: Mode, movetime_ms: Option<u64>, depth: Option<u32>) -> Limits {
    match (depth, movetime_ms, mode) {
        (Some(d), _, _) => Limits::Depth(d.clamp(1, kroon_search::MAX_DEPTH)),
        (None, Some(ms), _) => Limits::MoveTime(Duration::from_millis(ms.clamp(10, 600_000))),
        (None, None, Mode::Analyse) => Limits::Infinite,
        (None, None, Mode::Play) => Limits::MoveTime(Duration::from_secs(1)),
    }
}

/// The principal variation as the variant's players write it, and in the Hub form.
fn pv_moves(root: &Position, pv: &[kroon_rules::Move]) -> Vec<MoveView> {
    let mut pos = *root;
    let mut out = Vec::with_capacity(pv.len());
    for mv in pv {
        let Ok(next) = pos.try_play(mv) else { break };
        out.push(MoveView::new(&pos, mv));
        pos = next;
    }
    out
}

fn info_message(id: u64, line: u32, root: &Position, info: &Info) -> Value {
    let ms = info.elapsed.as_millis();
    let pv = pv_moves(root, &info.pv);
    json!({
        "type": "info",
        "id": id,
        "line": line,
        "depth": info.depth,
        "seldepth": info.seldepth,
        "score": score::in_men(info.score),
        "nodes": info.nodes,
        "time_ms": ms,
        "nps": u128::from(info.nodes) * 1000 / ms.max(1),
        "pv": pv.iter().map(|m| m.text.as_str()).collect::<Vec<_>>(),
        "pv_ids": pv.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
    })
}

/// `GET /api/engine`: the WebSocket of one page.
pub async fn upgrade(State(state): State<Arc<AppState>>, ws: WebSocketUpgrade) -> Response {
    let Ok(permit) = Arc::clone(&state.engine.pages).try_acquire_owned() else {
        return crate::error(StatusCode::SERVICE_UNAVAILABLE, "too many pages connected");
    };
    ws.max_message_size(MAX_MESSAGE)
        .max_frame_size(MAX_MESSAGE)
        .on_upgrade(move |socket| async move {
            page(state, socket).await;
            drop(permit);
        })
}

async fn page(state: Arc<AppState>, mut socket: WebSocket) {
    let me = state.engine.next_page.fetch_add(1, Ordering::Relaxed);
    let (tx, mut rx) = mpsc::unbounded_channel::<Value>();
    loop {
        tokio::select! {
            incoming = socket.recv() => {
                let text = match incoming {
                    Some(Ok(Message::Text(t))) => t,
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    Some(Ok(_)) => continue,
                };
                if let Err(message) = handle(&state, me, text.as_str(), &tx).await {
                    let _ = tx.send(json!({ "type": "error", "message": message }));
                }
            }
            Some(out) = rx.recv() => {
                if socket.send(Message::Text(out.to_string().into())).await.is_err() {
                    break;
                }
            }
        }
    }
    state.engine.stop(me);
}

async fn handle(
    state: &Arc<AppState>,
    me: u64,
    text: &str,
    tx: &mpsc::UnboundedSender<Value>,
) -> Result<(), String> {
    let request: Request = serde_json::from_str(text).map_err(|e| format!("bad request: {e}"))?;
    match request {
        Request::Stop => state.engine.stop(me),
        Request::Go {
            id,
            game,
            mode,
            lines,
            movetime_ms,
            depth,
        } => {
            let game = game.game(usize::MAX).map_err(|e| format!("{e:#}"))?;
            if let Some(outcome) = game.outcome() {
                let v = game.position().variant();
                return Err(format!(
                    "the game is over: {}",
                    crate::view::describe(outcome, v)
                ));
            }
            let asked = lines.unwrap_or(1).clamp(1, MAX_LINES);
            let root = *game.position();
            let req = SearchRequest {
                game,
                limits: limits(mode, movetime_ms, depth),
                ponder: false,
            };
            let _ = tx.send(json!({
                "type": "started", "id": id, "lines_asked": asked, "lines": lines_searched(asked),
            }));
            let out = tx.clone();
            let on_event = move |event: Event| {
                let message = match event {
                    Event::Iteration(info) => info_message(id, info.multipv as u32, &root, &info),
                    Event::Done(result) => json!({
                        "type": "done",
                        "id": id,
                        "best": result.best.map(|mv| MoveView::new(&root, &mv)),
                        "score": score::in_men(result.score),
                        "depth": result.depth,
                        "nodes": result.nodes,
                    }),
                };
                let _ = out.send(message);
            };
            let state = Arc::clone(state);
            let count = lines_searched(asked) as usize;
            tokio::task::spawn_blocking(move || state.engine.go(me, req, count, on_event))
                .await
                .map_err(|e| format!("search failed to start: {e}"))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_read_and_bad_ones_are_refused() {
        let go: Request = serde_json::from_str(
            r#"{"type":"go","id":3,"game":{"variant":"normal","moves":["32-28"]},"mode":"play","depth":4}"#,
        )
        .unwrap();
        assert!(matches!(
            go,
            Request::Go {
                id: 3,
                mode: Mode::Play,
                depth: Some(4),
                ..
            }
        ));
        for bad in [
            "",
            "{",
            r#"{"type":"fly"}"#,
            r#"{"type":"go","id":1,"mode":"play"}"#,
            r#"{"type":"go","id":-1,"game":{"variant":"normal"},"mode":"play"}"#,
        ] {
            assert!(serde_json::from_str::<Request>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn limits_follow_the_mode() {
        assert_eq!(limits(Mode::Analyse, None, None), Limits::Infinite);
        assert_eq!(
            limits(Mode::Play, None, None),
            Limits::MoveTime(Duration::from_secs(1))
        );
        assert_eq!(
            limits(Mode::Play, Some(250), None),
            Limits::MoveTime(Duration::from_millis(250))
        );
        assert_eq!(limits(Mode::Play, Some(0), Some(0)), Limits::Depth(1));
    }
}
