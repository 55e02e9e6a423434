//! Kroon's web board, served by `kroon serve`: one page (HTML, script and style embedded in the
//! binary), a JSON API that reads positions, moves and PDN, and a WebSocket that pushes the
//! engine's lines as they grow. The page holds the game as a start position and a list of moves;
//! every request carries them, so the server keeps no game of its own and the rules decide each
//! answer. The Chinese checkers page (`/chinese`) works the same way with its own API.

pub mod chinese;
pub mod live;
pub mod pdn_io;
pub mod view;

use axum::extract::{DefaultBodyLimit, Query, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use kroon_rules::Variant;
use kroon_search::{EndgameTables, Engine, Eval};
use serde::Deserialize;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::sync::Semaphore;

const HTML: &str = "text/html; charset=utf-8";
const SCRIPT: &str = "text/javascript; charset=utf-8";

/// The pages and what they load, all compiled in: path, content and content type.
const PAGES: [(&str, &str, &str); 5] = [
    ("/", include_str!("page/index.html"), HTML),
    ("/app.js", include_str!("page/app.js"), SCRIPT),
    ("/chinese", include_str!("page/chinese.html"), HTML),
    ("/chinese.js", include_str!("page/chinese.js"), SCRIPT),
    (
        "/style.css",
        include_str!("page/style.css"),
        "text/css; charset=utf-8",
    ),
];

/// Largest request body (a PDN file, a game): 1 MiB; larger ones get 413.
pub const MAX_BODY: usize = 1 << 20;
/// API requests handled at once; beyond that the answer is 503 at once instead of a queue.
pub const MAX_IN_FLIGHT: usize = 64;

/// What `kroon serve` needs from the settings.
pub struct Options {
    /// Where to listen (loopback unless the user says otherwise).
    pub listen: SocketAddr,
    /// Search threads.
    pub threads: usize,
    /// Transposition table, MiB.
    pub hash_mib: usize,
    /// The evaluation to search each variant with.
    pub eval_for: Box<dyn Fn(Variant) -> Eval + Send + Sync>,
    /// Endgame tables to probe (international draughts), if any.
    pub tables: Option<Arc<dyn EndgameTables>>,
}

/// What every handler shares.
pub struct AppState {
    engine: live::SharedEngine,
    in_flight: Semaphore,
}

/// Serves until the process is stopped.
///
/// # Errors
/// The address cannot be bound, or the runtime cannot start.
pub fn run(options: Options) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(options.listen).await?;
        let addr = listener.local_addr()?;
        // Tests and users read this line to find the port (`--listen 127.0.0.1:0` picks one).
        {
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "kroon serve: listening on http://{addr}/");
            let _ = out.flush();
        }
        tracing::info!(%addr, "web board listening");
        axum::serve(listener, router(state(options))).await?;
        Ok(())
    })
}

fn state(options: Options) -> Arc<AppState> {
    Arc::new(AppState {
        engine: live::SharedEngine::new(
            {
                let mut engine = Engine::new(options.threads, options.hash_mib);
                engine.set_tables(options.tables);
                engine
            },
            options.eval_for,
        ),
        in_flight: Semaphore::new(MAX_IN_FLIGHT),
    })
}

/// The routes: the page, the JSON API and the engine's WebSocket.
pub fn router(state: Arc<AppState>) -> Router {
    let api = Router::new()
        .route("/api/game", post(game))
        .route("/api/pdn/read", post(pdn_read))
        .route("/api/pdn/write", post(pdn_write))
        .route("/api/variants", get(variants))
        .route("/api/chinese/game", post(chinese_game))
        .route("/api/chinese/engine", post(chinese_engine))
        .layer(middleware::from_fn_with_state(Arc::clone(&state), limit));
    let mut pages = Router::new();
    for (path, body, kind) in PAGES {
        pages = pages.route(path, get(move || async move { page(body, kind) }));
    }
    pages
        .route("/api/engine", get(live::upgrade))
        .merge(api)
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such page") })
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}

fn page(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

/// An error answer: `{"error": "..."}` with `status`.
pub fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(serde_json::json!({ "error": message.into() }))).into_response()
}

/// Turns requests away with 503 while `MAX_IN_FLIGHT` are being handled, and with 413 when they
/// announce a body over `MAX_BODY` (without waiting for it; a body that grows past the limit
/// unannounced is cut by `DefaultBodyLimit`).
async fn limit(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let announced = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|n| n > MAX_BODY as u64) {
        return error(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("more than {MAX_BODY} bytes"),
        );
    }
    match state.in_flight.try_acquire() {
        Ok(_permit) => next.run(req).await,
        Err(_) => {
            // Read the body first: a connection closed with unread bytes is reset, and the
            // reset can reach the client before this answer does.
            let _ = axum::body::to_bytes(req.into_body(), MAX_BODY).await;
            error(StatusCode::SERVICE_UNAVAILABLE, "busy: try again")
        }
    }
}

/// Reads a JSON body; the reason it is not the expected shape, for a 400 answer (axum's own
/// extractor answers in plain text).
fn json_body<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, String> {
    serde_json::from_slice(body).map_err(|e| format!("bad request: {e}"))
}

/// The answer to a JSON body read as `S`: 400 when it is not one, else what `answer` makes of it,
/// as JSON, or 422 with the reason it could not.
fn json_answer<S, T>(body: &[u8], answer: impl FnOnce(S) -> anyhow::Result<T>) -> Response
where
    S: serde::de::DeserializeOwned,
    T: serde::Serialize,
{
    match json_body(body).map(answer) {
        Err(e) => error(StatusCode::BAD_REQUEST, e),
        Ok(Ok(v)) => Json(v).into_response(),
        Ok(Err(e)) => error(StatusCode::UNPROCESSABLE_ENTITY, format!("{e:#}")),
    }
}

async fn game(body: axum::body::Bytes) -> Response {
    json_answer(&body, |spec: view::GameSpec| spec.view())
}

async fn chinese_game(body: axum::body::Bytes) -> Response {
    json_answer(&body, |spec: chinese::ChineseSpec| spec.view())
}

async fn chinese_engine(body: axum::body::Bytes) -> Response {
    let spec: chinese::EngineSpec = match json_body(&body) {
        Ok(s) => s,
        Err(e) => return error(StatusCode::BAD_REQUEST, e),
    };
    // The search blocks for up to its time: off the runtime's threads.
    match tokio::task::spawn_blocking(move || spec.search()).await {
        Ok(Ok(m)) => Json(m).into_response(),
        Ok(Err(e)) => error(StatusCode::UNPROCESSABLE_ENTITY, format!("{e:#}")),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

#[derive(Deserialize)]
struct PdnQuery {
    /// The variant of games whose tags do not say.
    variant: Option<String>,
}

async fn pdn_read(Query(q): Query<PdnQuery>, body: axum::body::Bytes) -> Response {
    let Ok(text) = std::str::from_utf8(&body) else {
        return error(StatusCode::BAD_REQUEST, "PDN text must be UTF-8");
    };
    let variant = match q.variant.as_deref().map(str::parse::<Variant>) {
        None => Variant::International,
        Some(Ok(v)) => v,
        Some(Err(e)) => return error(StatusCode::BAD_REQUEST, e.to_string()),
    };
    match pdn_io::read_games(text, variant) {
        Ok(games) => Json(serde_json::json!({ "games": games })).into_response(),
        Err(e) => error(StatusCode::UNPROCESSABLE_ENTITY, format!("{e:#}")),
    }
}

async fn pdn_write(body: axum::body::Bytes) -> Response {
    let spec: pdn_io::WriteSpec = match json_body(&body) {
        Ok(s) => s,
        Err(e) => return error(StatusCode::BAD_REQUEST, e),
    };
    match spec.write() {
        Ok(text) => (
            [
                (
                    header::CONTENT_TYPE,
                    "application/x-draughts-pdn; charset=utf-8",
                ),
                (
                    header::CONTENT_DISPOSITION,
                    "attachment; filename=\"game.pdn\"",
                ),
            ],
            text,
        )
            .into_response(),
        Err(e) => error(StatusCode::UNPROCESSABLE_ENTITY, format!("{e:#}")),
    }
}

async fn variants() -> Response {
    let list: Vec<_> = Variant::ALL
        .iter()
        .map(|v| {
            serde_json::json!({
                "name": v.hub_name(),
                "columns": v.geometry().columns,
            })
        })
        .collect();
    Json(list).into_response()
}
