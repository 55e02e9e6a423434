//! Hand-checked positions: steps, hops over own and other pieces, long chains that turn, the
//! long-hop option, finishing, the anti-blocking rule, and the position text.

use kroon_chinese_checkers::{Camp, Hole, Holes, Position};

const A: Camp = Camp::ALL[0];
const D: Camp = Camp::ALL[3];

fn at(q: i8, r: i8) -> Hole {
    Hole::at(q, r).unwrap_or_else(|| panic!("({q}, {r}) is off the star"))
}

fn set(holes: &[(i8, i8)]) -> Holes {
    holes
        .iter()
        .fold(Holes::EMPTY, |acc, &(q, r)| acc | at(q, r).bit())
}

/// The destinations of the piece on `from`, sorted by name.
fn dests(pos: &Position, from: Hole) -> Vec<String> {
    let mut v: Vec<String> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| m.from == from)
        .map(|m| m.to.to_string())
        .collect();
    v.sort();
    v
}

fn names(holes: &[(i8, i8)]) -> Vec<String> {
    let mut v: Vec<String> = holes.iter().map(|&(q, r)| at(q, r).to_string()).collect();
    v.sort();
    v
}

#[test]
fn a_lone_piece_steps_to_its_six_neighbours() {
    let pos = Position::setup(&[(A, set(&[(0, 0)]))], A);
    assert_eq!(
        dests(&pos, at(0, 0)),
        names(&[(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)])
    );
    // The bottom point has two neighbours only.
    let tip = Position::setup(&[(A, set(&[(4, -8)]))], A);
    assert_eq!(dests(&tip, at(4, -8)), names(&[(4, -7), (3, -7)]));
}

#[test]
fn a_piece_hops_over_its_own_piece() {
    let pos = Position::setup(&[(A, set(&[(0, 0), (1, 0)]))], A);
    // Five steps and the hop east over its neighbour.
    assert_eq!(
        dests(&pos, at(0, 0)),
        names(&[(0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (2, 0)])
    );
    assert_eq!(pos.legal_moves().len(), 12);
}

#[test]
fn a_chain_hops_over_other_pieces_and_turns() {
    // Up the r axis over three D pieces, then east over a fourth.
    let pos = Position::setup(
        &[
            (A, set(&[(0, -4)])),
            (D, set(&[(0, -3), (0, -1), (0, 1), (1, 2)])),
        ],
        A,
    );
    let steps = [(1, -4), (-1, -3), (-1, -4), (1, -5)];
    let hops = [(0, -2), (0, 0), (0, 2), (2, 2)];
    let mut want: Vec<(i8, i8)> = steps.to_vec();
    want.extend(hops);
    assert_eq!(dests(&pos, at(0, -4)), names(&want));
    // The long-hop option finds nothing more here: every hop is over an adjacent piece, and the
    // long rays beyond hold no piece.
    assert_eq!(dests(&pos.with_long_hop(true), at(0, -4)), names(&want));
}

#[test]
fn a_hop_needs_the_hole_beyond_empty() {
    // A ring of six pieces round the centre: from (2, -1) the two ring pieces next to it have
    // ring pieces behind them, so the piece can only step.
    let ring = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)];
    let pos = Position::setup(&[(A, set(&[(2, -1)])), (D, set(&ring))], A);
    assert_eq!(
        dests(&pos, at(2, -1)),
        names(&[(3, -1), (2, 0), (3, -2), (2, -2)])
    );
}

#[test]
fn the_long_hop_jumps_a_distant_piece_to_the_mirror_point() {
    // Two empty holes, a piece, two empty holes, the landing.
    let pos = Position::setup(&[(A, set(&[(0, -4)])), (D, set(&[(0, -1)]))], A);
    let steps = names(&[(1, -4), (0, -3), (-1, -3), (-1, -4), (1, -5)]);
    assert_eq!(dests(&pos, at(0, -4)), steps);
    let mut with_long = steps.clone();
    with_long.push(at(0, 2).to_string());
    with_long.sort();
    assert_eq!(dests(&pos.with_long_hop(true), at(0, -4)), with_long);
    // A piece between the jumped piece and the landing forbids it.
    let blocked = Position::setup(&[(A, set(&[(0, -4)])), (D, set(&[(0, -1), (0, 1)]))], A)
        .with_long_hop(true);
    assert!(!dests(&blocked, at(0, -4)).contains(&at(0, 2).to_string()));
    // A mirror point off the board: from (0, 0) over (0, 3), the landing (0, 6) is off the star.
    let edge = Position::setup(&[(A, set(&[(0, 0)])), (D, set(&[(0, 3)]))], A).with_long_hop(true);
    assert_eq!(dests(&edge, at(0, 0)).len(), 6);
}

#[test]
fn long_hops_chain() {
    // (0, -4) over (0, -2) to (0, 0); then over (2, 0) east to (4, 0).
    let pos = Position::setup(&[(A, set(&[(0, -4)])), (D, set(&[(0, -2), (2, 0)]))], A)
        .with_long_hop(true);
    let d = dests(&pos, at(0, -4));
    assert!(d.contains(&at(0, 0).to_string()), "{d:?}");
    assert!(d.contains(&at(4, 0).to_string()), "{d:?}");
    // Without the option neither is reachable.
    let plain = dests(&pos.with_long_hop(false), at(0, -4));
    assert!(!plain.contains(&at(0, 0).to_string()));
    assert!(!plain.contains(&at(4, 0).to_string()));
}

#[test]
fn filling_the_goal_ends_a_two_player_game() {
    // A has nine pieces in D's camp and one just outside it; D is elsewhere.
    let goal: Vec<Hole> = D.holes().iter().collect();
    let last = goal.iter().copied().find(|&h| A.forward(h) == 5).unwrap();
    let mut mine = Holes::EMPTY;
    for &h in &goal {
        if h != last {
            mine |= h.bit();
        }
    }
    let (q, r, _) = last.cube();
    let below = at(q, r - 1);
    mine |= below.bit();
    let pos = Position::setup(&[(A, mine), (D, set(&[(0, 0)]))], A);
    assert!(!pos.is_over());
    let mv = pos
        .legal_moves()
        .into_iter()
        .find(|m| m.from == below && m.to == last)
        .unwrap();
    let after = pos.play(mv);
    assert!(after.has_finished(A));
    assert!(after.is_over());
}

#[test]
fn anti_blocking_rule_at_the_end_of_round_20() {
    // D keeps six pieces at home: it must have five out by the end of round 20.
    let d_home: Vec<Hole> = D.holes().iter().collect();
    let four_out = set(&[(0, 0), (1, 0), (2, 0), (3, 0)]);
    let mut d = four_out;
    for &h in d_home.iter().take(6) {
        d |= h.bit();
    }
    // A has all its pieces out, on row r = -2.
    let a_out = (-4..=5).fold(Holes::EMPTY, |acc, q| acc | at(q, -2).bit());
    let pos = Position::setup(&[(A, a_out), (D, d)], D).in_round(20);
    assert_eq!(pos.outside_home(D), 4);
    // A move that stays out of the camp count: a piece already out steps on.
    let idle = pos
        .legal_moves()
        .into_iter()
        .find(|m| !D.holes().has(m.from))
        .unwrap();
    let after = pos.play(idle);
    assert!(after.is_out(D), "{after}");
    assert!(after.pieces(D).is_empty());
    assert!(after.is_over());
    assert_eq!(after.round(), 21);
    // A move that brings a fifth piece out keeps D in the game.
    let leave = pos
        .legal_moves()
        .into_iter()
        .find(|m| D.holes().has(m.from) && !D.holes().has(m.to))
        .unwrap();
    let after = pos.play(leave);
    assert!(!after.is_out(D));
    assert_eq!(after.to_move(), A);
    // The same shortfall in round 19 is no offence yet.
    assert!(!pos.in_round(19).play(idle).is_out(D));
}

#[test]
fn position_text_round_trips() {
    assert_eq!(
        Position::start(2).unwrap().to_string(),
        "D/DD/DDD/DDDD/13/12/11/10/9/10/11/12/13/AAAA/AAA/AA/A A AD 1"
    );
    for n in 2..=6 {
        let mut pos = Position::start(n).unwrap();
        for _ in 0..40 {
            let text = pos.to_string();
            assert_eq!(text.parse::<Position>().unwrap(), pos, "{text}");
            let mv = pos.legal_moves()[pos.legal_moves().len() / 2];
            pos = pos.play(mv);
        }
    }
    let long: Position = "D/DD/DDD/DDDD/13/12/11/10/9/10/11/12/13/AAAA/AAA/AA/A A AD 1 long"
        .parse()
        .unwrap();
    assert!(long.long_hop());
    assert_eq!(long.to_string().parse::<Position>().unwrap(), long);
}

#[test]
fn bad_position_texts_are_refused() {
    for bad in [
        "",
        "D/DD/DDD/DDDD/13/12/11/10/9/10/11/12/13/AAAA/AAA/AA/A A AD",
        "D/DD/DDD/DDDD/13/12/11/10/9/10/11/12/13/AAAA/AAA/AA A AD 1",
        "D/DD/DDD/DDDD/14/12/11/10/9/10/11/12/13/AAAA/AAA/AA/A A AD 1",
        "D/DD/DDD/DDDD/13/12/11/10/9/10/11/12/13/AAAA/AAA/AA/X A AD 1",
        "D/DD/DDD/DDDD/13/12/11/10/9/10/11/12/13/AAAA/AAA/AA/A A A 1",
        "D/DD/DDD/DDDD/13/12/11/10/9/10/11/12/13/AAAA/AAA/AA/A B AD 1",
        "D/DD/DDD/DDDD/13/12/11/10/9/10/11/12/13/AAAA/AAA/AA/A A DA 1",
        "D/DD/DDD/DDDD/13/12/11/10/9/10/11/12/13/AAAA/AAA/AA/A A AD 0",
        "D/DD/DDD/DDDD/13/12/11/10/9/10/11/12/13/AAAA/AAA/AA/A A AD 1 short",
        "D/DD/DDD/DDDD/13/12/11/10/9/10/11/12/99999999999999999999/AAAA/AAA/AA/A A AD 1",
        "D/DD/DDD/DDDD/AAAAAAAAAAAAA/12/11/10/9/10/11/12/13/AAAA/AAA/AA/A A AD 1",
    ] {
        assert!(bad.parse::<Position>().is_err(), "{bad:?} accepted");
    }
}
