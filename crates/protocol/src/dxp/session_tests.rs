//! Session tests: a scripted peer on the other end of an in-memory duplex stream.

use super::*;
use crate::dxp::codec::DxpColour;
use crate::dxp::frame::FrameReader;
use kroon_rules::{parse_fen, parse_move};
use std::future::Future;
use tokio::io::{AsyncWriteExt, DuplexStream};

// ---- a player that answers at once (or when stopped) ------------------------------------------

/// Plays the first legal move with a fixed score. With `hold`, the first search answers only when
/// stopped, to test messages that arrive while Kroon thinks.
#[derive(Default)]
struct FirstMove {
    score: i32,
    hold: bool,
    held: Option<(oneshot::Sender<SearchResult>, SearchResult)>,
    searches: u32,
    new_games: u32,
}

impl Player for FirstMove {
    fn new_game(&mut self) {
        self.new_games += 1;
    }

    fn go(&mut self, game: Game, _limits: Limits, done: oneshot::Sender<SearchResult>) {
        self.searches += 1;
        let result = SearchResult {
            best: game.position().legal_moves().iter().next().copied(),
            score: self.score,
            depth: 1,
            ..SearchResult::default()
        };
        if self.hold {
            self.hold = false;
            self.held = Some((done, result));
        } else {
            let _ = done.send(result);
        }
    }

    fn stop(&mut self) {
        if let Some((done, result)) = self.held.take() {
            let _ = done.send(result);
        }
    }
}

// ---- the scripted peer ------------------------------------------------------------------------

struct Peer {
    reader: FrameReader<tokio::io::ReadHalf<DuplexStream>>,
    writer: tokio::io::WriteHalf<DuplexStream>,
    /// The game as the peer sees it.
    game: Game,
}

impl Peer {
    fn new(stream: DuplexStream) -> Peer {
        let (r, w) = tokio::io::split(stream);
        Peer {
            reader: FrameReader::new(r),
            writer: w,
            game: Game::new(Position::initial(Variant::International)),
        }
    }

    async fn send_raw(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    async fn send(&mut self, msg: &Dxp) {
        let mut bytes = msg.to_string().into_bytes();
        bytes.push(0);
        self.send_raw(&bytes).await;
    }

    async fn send_text(&mut self, text: &str) {
        self.send(&text.parse::<Dxp>().unwrap()).await;
    }

    /// The next message as text; `None` once Kroon has closed.
    async fn recv(&mut self) -> Option<String> {
        let frame = tokio::time::timeout(Duration::from_secs(10), self.reader.next_frame())
            .await
            .expect("Kroon said nothing for 10 s")
            .unwrap();
        frame.map(|f| String::from_utf8(f).unwrap())
    }

    async fn expect(&mut self, prefix: &str) -> String {
        let msg = self.recv().await.expect("connection closed");
        assert!(msg.starts_with(prefix), "expected {prefix:?}, got {msg:?}");
        msg
    }

    /// Reads Kroon's move, checks it is legal and plays it.
    async fn expect_move(&mut self) -> Move {
        let text = self.expect("M").await;
        let m: DxpMove = text.parse().unwrap();
        let mv = find_move(self.game.position(), &m)
            .unwrap_or_else(|e| panic!("Kroon's move {text} is illegal: {e}"));
        self.game.play(&mv).unwrap();
        mv
    }

    /// Plays a move given in notation, or the first legal one.
    async fn play(&mut self, text: Option<&str>) -> Move {
        let pos = *self.game.position();
        let mv = match text {
            Some(t) => parse_move(&pos, t).unwrap(),
            None => *pos.legal_moves().iter().next().unwrap(),
        };
        let m = to_dxp_move(&mv, Duration::from_secs(3), Variant::International).unwrap();
        self.send(&Dxp::Move(m)).await;
        self.game.play(&mv).unwrap();
        mv
    }

    async fn request(
        &mut self,
        follower: DxpColour,
        minutes: u16,
        moves: u16,
        start: Option<&str>,
    ) {
        let start_pos = start.map_or(Position::initial(Variant::International), |f| {
            parse_fen(f, Variant::International).unwrap()
        });
        self.game = Game::new(start_pos);
        let req = GameReq {
            version: 1,
            initiator: "Peer".into(),
            follower_colour: follower,
            minutes,
            moves,
            start: start.map(|_| to_dxp_position(&start_pos).unwrap()),
        };
        self.send(&Dxp::GameReq(req)).await;
    }
}

fn follower() -> SessionConfig {
    SessionConfig {
        first_move_delay: Duration::ZERO,
        end_grace: Duration::from_millis(300),
        ..SessionConfig::new("Kroon", Role::Follower)
    }
}

type Ran = (Result<SessionEnd, SessionError>, Vec<GameRecord>);

/// Runs a session against a script; both must finish within 20 s.
async fn run<P, F, Fut>(cfg: SessionConfig, player: &mut P, script: F) -> Ran
where
    P: Player,
    F: FnOnce(Peer) -> Fut,
    Fut: Future<Output = ()>,
{
    let (ours, theirs) = tokio::io::duplex(4096);
    let mut records = Vec::new();
    let mut on_game = |r: &GameRecord| records.push(r.clone());
    let session = run_session(theirs, &cfg, player, &mut on_game);
    let (end, ()) = tokio::time::timeout(Duration::from_secs(20), async {
        tokio::join!(session, script(Peer::new(ours)))
    })
    .await
    .expect("session or script hung");
    (end, records)
}

fn accept_text(code: char) -> String {
    format!("A{:<32}{code}", "Kroon")
}

// ---- game requests ----------------------------------------------------------------------------

#[tokio::test]
async fn accepts_a_game_and_answers_a_game_end() {
    let mut player = FirstMove::default();
    let (end, records) = run(follower(), &mut player, |mut peer| async move {
        peer.request(DxpColour::White, 1, 50, None).await;
        assert_eq!(peer.recv().await.unwrap(), accept_text('0'));
        peer.expect_move().await;
        peer.play(None).await;
        peer.expect_move().await;
        peer.send_text("E11").await; // Peer (Black) loses, no more games
        assert_eq!(peer.recv().await.unwrap(), "E00");
        assert_eq!(peer.recv().await, None, "Kroon closes after stop code 1");
    })
    .await;
    assert_eq!(end.unwrap(), SessionEnd::PeerStopped);
    assert_eq!(records.len(), 1);
    let r = &records[0];
    assert_eq!((r.white.as_str(), r.black.as_str()), ("Kroon", "Peer"));
    assert_eq!(r.result, Some(GameResult::WhiteWins));
    assert_eq!(r.moves.len(), 3);
    assert_eq!(r.kroon_points(), Some(2));
    assert!(
        r.termination.contains("loss for itself"),
        "{}",
        r.termination
    );
    assert_eq!(player.new_games, 1);
}

#[tokio::test]
async fn refuses_other_versions_and_bad_positions() {
    let mut player = FirstMove::default();
    let (end, records) = run(follower(), &mut player, |mut peer| async move {
        let mut req = GameReq {
            version: 2,
            initiator: "Peer".into(),
            follower_colour: DxpColour::White,
            minutes: 1,
            moves: 50,
            start: None,
        };
        peer.send(&Dxp::GameReq(req.clone())).await;
        assert_eq!(peer.recv().await.unwrap(), accept_text('1'));
        assert!(peer.expect("C").await.contains("version 02"));
        // A white man on field 3 should have been crowned: not a position.
        req.version = 1;
        let mut board = ['e'; 50];
        board[2] = 'w';
        board[40] = 'z';
        let text: String = std::iter::once('W').chain(board).collect();
        req.start = Some(text.parse().unwrap());
        peer.send(&Dxp::GameReq(req)).await;
        assert_eq!(peer.recv().await.unwrap(), accept_text('2'));
        peer.expect("C").await;
    })
    .await;
    assert_eq!(end.unwrap(), SessionEnd::PeerClosed);
    assert!(records.is_empty());
    assert_eq!(player.searches, 0);
}

#[tokio::test]
async fn game_request_during_a_game_abandons_it() {
    let mut player = FirstMove::default();
    let (end, records) = run(follower(), &mut player, |mut peer| async move {
        peer.request(DxpColour::Black, 1, 50, None).await;
        peer.expect("A").await;
        peer.play(Some("32-28")).await;
        peer.expect_move().await;
        peer.request(DxpColour::White, 1, 50, None).await;
        peer.expect("A").await;
        peer.expect_move().await;
        peer.send_text("E21").await;
        peer.expect("E0").await;
    })
    .await;
    assert_eq!(end.unwrap(), SessionEnd::PeerStopped);
    assert_eq!(records.len(), 1, "the abandoned game is not recorded");
    assert_eq!(records[0].number, 1);
    assert_eq!(records[0].result, Some(GameResult::Draw));
}

// ---- moves ------------------------------------------------------------------------------------

#[tokio::test]
async fn illegal_move_gets_a_chat_and_a_game_end() {
    let mut player = FirstMove::default();
    let (end, records) = run(follower(), &mut player, |mut peer| async move {
        peer.request(DxpColour::Black, 1, 50, None).await;
        peer.expect("A").await;
        peer.send_text("M0003322900").await; // 32-29 is no diagonal step
        let chat = peer.expect("C").await;
        assert!(chat.contains("illegal move 32-29"), "{chat}");
        assert_eq!(peer.recv().await.unwrap(), "E00");
        peer.send_text("E00").await;
        // The session goes on: a new game is welcome.
        peer.request(DxpColour::Black, 1, 50, None).await;
        peer.expect("A").await;
        peer.send_text("M0001312600").await; // legal: 31-26
        peer.expect("M").await;
        peer.send_text("M0001312700").await; // 31 is empty now
        let chat = peer.expect("C").await;
        assert!(
            chat.contains("illegal move 31-27: White has no piece on field 31"),
            "{chat}"
        );
        peer.expect("E00").await;
    })
    .await;
    // The script closed without answering the second game end: Kroon stops waiting and leaves.
    assert!(matches!(end, Ok(SessionEnd::PeerClosed)), "{end:?}");
    assert_eq!(records.len(), 2);
    assert!(records.iter().all(|r| r.result.is_none()));
    assert!(records[0].termination.contains("illegal move 32-29"));
}

#[tokio::test]
async fn compulsory_capture_is_enforced() {
    let pos = parse_fen("W:W32:B27,5", Variant::International).unwrap();
    let quiet: DxpMove = "M0000322800".parse().unwrap();
    assert_eq!(
        find_move(&pos, &quiet).unwrap_err(),
        "a capture is compulsory"
    );
    let wrong: DxpMove = "M000032210127".parse().unwrap();
    assert!(find_move(&pos, &wrong).is_ok());
    let twice: DxpMove = "M00003221022727".parse().unwrap();
    assert!(find_move(&pos, &twice).unwrap_err().contains("twice"));
    let missing: DxpMove = "M000032210105".parse().unwrap();
    assert!(find_move(&pos, &missing).unwrap_err().contains("32x21x27"));
    let nobody: DxpMove = "M0000332800".parse().unwrap();
    assert!(find_move(&pos, &nobody)
        .unwrap_err()
        .contains("no piece on field 33"));
}

// ---- back requests ----------------------------------------------------------------------------

#[tokio::test]
async fn back_request_takes_back_and_the_game_goes_on() {
    let mut player = FirstMove::default();
    let (end, records) = run(follower(), &mut player, |mut peer| async move {
        peer.request(DxpColour::Black, 1, 50, None).await;
        peer.expect("A").await;
        peer.play(Some("32-28")).await;
        peer.expect_move().await;
        peer.play(Some("37-32")).await;
        peer.expect_move().await;
        // Back to move 1, White to move: the start.
        peer.send(&Dxp::BackReq(BackReq {
            move_number: 1,
            turn: DxpColour::White,
        }))
        .await;
        assert_eq!(peer.recv().await.unwrap(), "K0");
        peer.game.undo(4);
        peer.play(Some("33-28")).await;
        peer.expect_move().await;
        // Move 2 with Black to move is after White's second move: not reached yet.
        peer.send(&Dxp::BackReq(BackReq {
            move_number: 2,
            turn: DxpColour::Black,
        }))
        .await;
        assert_eq!(peer.recv().await.unwrap(), "K2");
        assert!(peer.expect("C").await.contains("cannot go back"));
        peer.send_text("E21").await;
        peer.expect("E0").await;
    })
    .await;
    assert_eq!(end.unwrap(), SessionEnd::PeerStopped);
    let r = &records[0];
    assert_eq!(r.moves.len(), 2);
    assert_eq!(notation::long(&r.moves[0], Variant::International), "33-28");
}

#[tokio::test]
async fn back_request_while_thinking_stops_the_search() {
    let mut player = FirstMove {
        hold: true,
        ..FirstMove::default()
    };
    let (end, records) = run(follower(), &mut player, |mut peer| async move {
        peer.request(DxpColour::White, 1, 50, None).await;
        peer.expect("A").await;
        // Kroon is thinking (the player holds its answer until stopped).
        peer.send_text("Chello").await;
        peer.send_text("B001W").await;
        assert_eq!(peer.recv().await.unwrap(), "K0");
        peer.expect_move().await;
        peer.send_text("E01").await;
        peer.expect("E0").await;
    })
    .await;
    assert_eq!(end.unwrap(), SessionEnd::PeerStopped);
    assert_eq!(
        records[0].moves.len(),
        1,
        "the interrupted search's move was dropped"
    );
    assert_eq!(player.searches, 2);
}

#[test]
fn back_request_plies() {
    let req = |n, turn| BackReq {
        move_number: n,
        turn,
    };
    use DxpColour::{Black as Z, White as W};
    assert_eq!(back_request_ply(Colour::White, &req(1, W)), Some(0));
    assert_eq!(back_request_ply(Colour::White, &req(1, Z)), Some(1));
    assert_eq!(back_request_ply(Colour::White, &req(3, W)), Some(4));
    assert_eq!(back_request_ply(Colour::Black, &req(1, Z)), Some(0));
    assert_eq!(back_request_ply(Colour::Black, &req(2, W)), Some(1));
    assert_eq!(back_request_ply(Colour::Black, &req(1, W)), None);
    assert_eq!(back_request_ply(Colour::White, &req(0, Z)), None);
}

// ---- game ends --------------------------------------------------------------------------------

#[tokio::test]
async fn game_end_while_thinking_is_answered() {
    let mut player = FirstMove {
        hold: true,
        ..FirstMove::default()
    };
    let (end, records) = run(follower(), &mut player, |mut peer| async move {
        peer.request(DxpColour::White, 1, 50, None).await;
        peer.expect("A").await;
        peer.send_text("E20").await; // draw offered and agreed, next game welcome
        assert_eq!(peer.recv().await.unwrap(), "E00");
    })
    .await;
    assert_eq!(end.unwrap(), SessionEnd::PeerClosed);
    assert_eq!(records[0].result, Some(GameResult::Draw));
    assert!(records[0].moves.is_empty());
}

#[tokio::test]
async fn no_legal_move_loses() {
    let mut player = FirstMove::default();
    let (end, records) = run(follower(), &mut player, |mut peer| async move {
        // White (Kroon) to move, with one man blocked on 46 by Black's men on 41 and 37.
        peer.request(DxpColour::White, 1, 50, Some("W:W46:B41,37"))
            .await;
        peer.expect("A").await;
        assert_eq!(peer.recv().await.unwrap(), "E10");
        peer.send_text("E01").await;
    })
    .await;
    assert_eq!(end.unwrap(), SessionEnd::PeerStopped);
    assert_eq!(records[0].result, Some(GameResult::BlackWins));
    assert_eq!(records[0].termination, "White has no legal move");
    assert_eq!(player.searches, 0);
}

#[tokio::test]
async fn winning_move_then_game_end_when_the_peer_is_silent() {
    let mut player = FirstMove::default();
    let (end, records) = run(follower(), &mut player, |mut peer| async move {
        peer.request(DxpColour::White, 1, 50, Some("W:W28:B23"))
            .await;
        peer.expect("A").await;
        peer.expect_move().await; // 28x19: Black has nothing left
                                  // The peer should send the game end; it does not, so Kroon does after the grace.
        assert_eq!(peer.recv().await.unwrap(), "E30");
        peer.send_text("E00").await;
    })
    .await;
    assert_eq!(end.unwrap(), SessionEnd::PeerClosed);
    assert_eq!(records[0].result, Some(GameResult::WhiteWins));
    assert_eq!(records[0].termination, "Black has no legal move");
}

#[tokio::test]
async fn draw_rules_end_the_game() {
    let mut player = FirstMove::default();
    let (end, records) = run(follower(), &mut player, |mut peer| async move {
        // Two kings against one: drawn after five moves each (FMJD 6.4). Black plays first.
        peer.request(DxpColour::White, 1, 50, Some("B:WK46,K50:BK1"))
            .await;
        peer.expect("A").await;
        loop {
            if peer.game.outcome().is_some() {
                break;
            }
            peer.play(None).await;
            if peer.game.outcome().is_some() {
                break;
            }
            peer.expect_move().await;
        }
        let outcome = peer.game.outcome().unwrap();
        if let Outcome::Draw(_) = outcome {
            // Kroon claims the draw, whoever moved last: the rule and its count, then the end.
            let chat = peer.expect("C").await;
            assert!(
                chat.contains("draw claimed: 5-move endgame rule (10 plies"),
                "{chat}"
            );
        }
        let end = peer.expect("E").await;
        match outcome {
            Outcome::Draw(_) => assert!(end.starts_with("E2"), "{end} for {outcome:?}"),
            Outcome::Win(c) => assert_eq!(
                end.starts_with("E3"),
                c == Colour::White,
                "{end} for {outcome:?}"
            ),
        }
        peer.send_text("E01").await;
    })
    .await;
    assert!(end.is_ok(), "{end:?}");
    let r = &records[0];
    assert!(
        r.termination.starts_with("draw by the 5-move rule"),
        "{}",
        r.termination
    );
    assert_eq!(r.result, Some(GameResult::Draw));
    assert_eq!(r.moves.len(), 10);
}

#[tokio::test]
async fn a_draw_claim_the_peer_ignores_is_played_on() {
    // Two kings against one, Black (the peer) first: after five moves each Kroon claims the draw
    // (FMJD 6.4); the peer plays on as if it had not heard, and Kroon plays on with it, the rule
    // waived, until the peer ends the game.
    let mut player = FirstMove::default();
    let (end, records) = run(follower(), &mut player, |mut peer| async move {
        peer.request(DxpColour::White, 1, 50, Some("B:WK46,K50:BK1"))
            .await;
        peer.expect("A").await;
        while peer.game.outcome().is_none() {
            peer.play(None).await;
            if peer.game.outcome().is_some() {
                break;
            }
            peer.expect_move().await;
        }
        assert_eq!(peer.game.moves().len(), 10);
        assert!(peer.expect("C").await.contains("draw claimed"));
        assert!(peer.expect("E2").await.starts_with("E2"));
        // Not accepted: the peer moves (it is its turn after Kroon's tenth ply) and Kroon
        // answers with a move of its own.
        let waived = peer.game.outcome();
        let Some(Outcome::Draw(reason)) = waived else {
            panic!("{waived:?}")
        };
        peer.game.waive(reason);
        peer.play(None).await;
        assert!(peer.expect("C").await.contains("playing on"));
        peer.expect_move().await;
        peer.send_text("E00").await;
        peer.expect("E").await;
    })
    .await;
    assert!(end.is_ok(), "{end:?}");
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].moves.len(), 12);
}

#[tokio::test]
async fn move_count_reached_is_adjudicated_by_the_last_score() {
    let mut player = FirstMove {
        score: 250,
        ..FirstMove::default()
    };
    let (end, records) = run(follower(), &mut player, |mut peer| async move {
        peer.request(DxpColour::White, 1, 2, None).await;
        peer.expect("A").await;
        for _ in 0..2 {
            peer.expect_move().await;
            peer.play(None).await;
        }
        let chat = peer.expect("C").await;
        assert!(chat.contains("2 moves played"), "{chat}");
        assert!(chat.contains("a win for Kroon"), "{chat}");
        assert!(chat.contains("+2.50"), "{chat}");
        assert_eq!(peer.recv().await.unwrap(), "E30");
        peer.send_text("E01").await;
    })
    .await;
    assert_eq!(end.unwrap(), SessionEnd::PeerStopped);
    assert_eq!(records[0].result, Some(GameResult::WhiteWins));
    assert_eq!(records[0].moves.len(), 4);
}

// ---- the initiator ----------------------------------------------------------------------------

#[tokio::test]
async fn initiator_plays_its_plan_with_alternating_colours() {
    let plan = MatchPlan {
        games: 2,
        minutes: 1,
        moves: 2,
        start: None,
    };
    let cfg = SessionConfig {
        first_move_delay: Duration::ZERO,
        end_grace: Duration::from_millis(300),
        ..SessionConfig::new("Kroon", Role::Initiator(plan))
    };
    let mut player = FirstMove::default();
    let (end, records) = run(cfg, &mut player, |mut peer| async move {
        let req: GameReq = peer.expect("R01Kroon").await.parse().unwrap();
        assert_eq!(req.follower_colour, DxpColour::Black);
        assert_eq!((req.minutes, req.moves, req.start), (1, 2, None));
        peer.game = Game::new(Position::initial(Variant::International));
        peer.send_text(&format!("A{:<32}0", "Follower")).await;
        for _ in 0..2 {
            peer.expect_move().await;
            peer.play(None).await;
        }
        peer.expect("C").await;
        assert_eq!(
            peer.recv().await.unwrap(),
            "E20",
            "a draw, next game welcome"
        );
        peer.send_text("E00").await;

        let req: GameReq = peer.expect("R").await.parse().unwrap();
        assert_eq!(req.follower_colour, DxpColour::White);
        peer.game = Game::new(Position::initial(Variant::International));
        peer.send_text(&format!("A{:<32}0", "Follower")).await;
        for _ in 0..2 {
            peer.play(None).await;
            peer.expect_move().await;
        }
        peer.play(None).await;
        peer.expect("C").await;
        assert_eq!(
            peer.recv().await.unwrap(),
            "E21",
            "the last game: no more games"
        );
        peer.send_text("E01").await;
        assert_eq!(peer.recv().await, None);
    })
    .await;
    assert_eq!(end.unwrap(), SessionEnd::MatchComplete);
    assert_eq!(records.len(), 2);
    assert_eq!(records[0].white, "Kroon");
    assert_eq!(records[1].black, "Kroon");
    assert_eq!(records[1].white, "Follower");
}

#[tokio::test]
async fn initiator_stops_when_refused() {
    let cfg = SessionConfig::new(
        "Kroon",
        Role::Initiator(MatchPlan {
            games: 3,
            minutes: 5,
            moves: 0,
            start: Some(parse_fen("W:W31-45:B1-15", Variant::International).unwrap()),
        }),
    );
    let mut player = FirstMove::default();
    let (end, _) = run(cfg, &mut player, |mut peer| async move {
        let req: GameReq = peer.expect("R").await.parse().unwrap();
        let start = from_dxp_position(&req.start.unwrap(), Variant::International).unwrap();
        assert_eq!(
            write_fen(&start),
            "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"
        );
        peer.send_text(&format!("A{:<32}3", "Busy")).await;
    })
    .await;
    assert_eq!(end.unwrap(), SessionEnd::Refused(AcceptCode::NoMoreGames));
}

// ---- bad input --------------------------------------------------------------------------------

#[tokio::test]
async fn unreadable_messages_get_a_chat_then_the_door() {
    let mut player = FirstMove::default();
    let (end, _) = run(follower(), &mut player, |mut peer| async move {
        peer.send_raw(b"Xgarbage\0").await;
        assert!(peer.expect("C").await.contains("unknown message header"));
        peer.send_raw(b"C\xc3\xa9t\xc3\xa9\0").await;
        assert!(peer.expect("C").await.contains("non-ASCII"));
        peer.send_text("Chello").await; // readable: the count starts again
        for _ in 0..MAX_BAD_MESSAGES - 1 {
            peer.send_raw(b"M12\0").await;
            peer.expect("C").await;
        }
        peer.send_raw(b"E9\0").await;
        assert_eq!(
            peer.recv().await,
            None,
            "closed after too many bad messages"
        );
    })
    .await;
    assert!(matches!(end, Err(SessionError::Garbage(_))), "{end:?}");
}

#[tokio::test]
async fn unreadable_message_mid_game_ends_the_game() {
    let mut player = FirstMove::default();
    let (end, records) = run(follower(), &mut player, |mut peer| async move {
        peer.request(DxpColour::Black, 1, 50, None).await;
        peer.expect("A").await;
        peer.send_raw(b"M00x\0").await;
        assert!(peer.expect("C").await.contains("cannot read message"));
        assert_eq!(peer.recv().await.unwrap(), "E00");
        peer.send_text("E01").await;
    })
    .await;
    assert_eq!(end.unwrap(), SessionEnd::PeerStopped);
    assert_eq!(records[0].result, None);
}

#[tokio::test]
async fn over_long_frame_closes_the_connection() {
    let mut player = FirstMove::default();
    let (end, _) = run(follower(), &mut player, |mut peer| async move {
        peer.send_raw(&[b'C'; 2000]).await;
        assert!(peer.expect("C").await.contains("longer than 512"));
        assert_eq!(peer.recv().await, None);
    })
    .await;
    assert!(
        matches!(
            end,
            Err(SessionError::Frame(FrameError::TooLong { limit: 512 }))
        ),
        "{end:?}"
    );
}

#[tokio::test]
async fn idle_peer_is_given_up() {
    let cfg = SessionConfig {
        idle_timeout: Duration::from_millis(200),
        ..follower()
    };
    let mut player = FirstMove::default();
    let (end, _) = run(cfg, &mut player, |mut peer| async move {
        assert_eq!(peer.recv().await, None, "Kroon closes an idle connection");
    })
    .await;
    assert!(matches!(end, Err(SessionError::Idle(_))), "{end:?}");
}

#[tokio::test]
async fn peer_closing_mid_game_is_an_error() {
    let mut player = FirstMove::default();
    let (end, records) = run(follower(), &mut player, |mut peer| async move {
        peer.request(DxpColour::Black, 1, 50, None).await;
        peer.expect("A").await;
        peer.send_raw(b"M00013").await; // half a move, then gone
    })
    .await;
    assert!(
        matches!(end, Err(SessionError::ClosedMidGame { game: 1 })),
        "{end:?}"
    );
    assert!(records.is_empty());
}

// ---- the real engine --------------------------------------------------------------------------

#[tokio::test]
async fn plays_with_the_search_engine() {
    let cfg = SessionConfig {
        move_time: Some(Duration::from_millis(30)),
        ..follower()
    };
    let mut engine = Engine::new(1, 1);
    let (end, records) = run(cfg, &mut engine, |mut peer| async move {
        peer.request(DxpColour::White, 1, 0, None).await;
        peer.expect("A").await;
        for _ in 0..4 {
            peer.expect_move().await;
            peer.play(None).await;
        }
        peer.expect_move().await;
        peer.send_text("E01").await;
        peer.expect("E0").await;
    })
    .await;
    assert_eq!(end.unwrap(), SessionEnd::PeerStopped);
    assert_eq!(records[0].moves.len(), 9);
    assert_eq!(records[0].result, None);
}

// ---- clock and helpers ------------------------------------------------------------------------

#[test]
fn clock_limits_never_exceed_the_time_left() {
    let start = Position::initial(Variant::International);
    let mut t = Table::new(1, start, Colour::White, 1, 50);
    match t.limits(None) {
        Limits::Clock {
            left, moves_to_go, ..
        } => {
            assert!(left < Duration::from_secs(59), "{left:?}");
            assert_eq!(moves_to_go, Some(50));
        }
        other => panic!("{other:?}"),
    }
    // A cap applies while the clock allows it...
    assert_eq!(
        t.limits(Some(Duration::from_millis(50))),
        Limits::MoveTime(Duration::from_millis(50))
    );
    // ...not when it would overspend.
    t.charge_own(Duration::from_secs(58));
    assert!(matches!(
        t.limits(Some(Duration::from_secs(1))),
        Limits::Clock { .. }
    ));
    t.charge_own(Duration::from_secs(5));
    assert_eq!(t.own_left, Some(Duration::ZERO));
    assert!(
        matches!(t.limits(None), Limits::Clock { left, .. } if left <= Duration::from_millis(10))
    );
    // No time given: a fixed move time.
    let t = Table::new(1, start, Colour::White, 0, 0);
    assert_eq!(t.limits(None), Limits::MoveTime(NO_CLOCK_MOVE_TIME));
}

#[test]
fn reasons_and_results() {
    use EndReason::*;
    for (result, white_says, black_says) in [
        (Some(GameResult::WhiteWins), SenderWins, SenderLoses),
        (Some(GameResult::BlackWins), SenderLoses, SenderWins),
        (Some(GameResult::Draw), Draw, Draw),
        (None, Unknown, Unknown),
    ] {
        assert_eq!(end_reason(result, Colour::White), white_says);
        assert_eq!(end_reason(result, Colour::Black), black_says);
        assert_eq!(reason_result(white_says, Colour::White), result);
        assert_eq!(reason_result(black_says, Colour::Black), result);
    }
}

#[test]
fn dates_and_positions() {
    assert_eq!(civil_date(0), (1970, 1, 1));
    assert_eq!(civil_date(19_782), (2024, 2, 29));
    assert_eq!(civil_date(11_016), (2000, 2, 29));
    assert_eq!(civil_date(-1), (1969, 12, 31));
    assert_eq!(today().len(), 10);
    let start = Position::initial(Variant::International);
    let dp = to_dxp_position(&start).unwrap();
    assert_eq!(
        dp.to_string(),
        format!("W{}{}{}", "z".repeat(20), "e".repeat(10), "w".repeat(20))
    );
    assert_eq!(
        from_dxp_position(&dp, Variant::International).unwrap(),
        start
    );
}
