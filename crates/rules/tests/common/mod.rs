//! Helpers shared by the rules tests.

use kroon_rules::{has_capture, Game};

/// Plays king moves that capture nothing, leave the opponent no capture and repeat as little as
/// possible, until the game ends, a capture is forced, or `max` plies are played; returns the plies
/// played.
pub fn walk_kings(g: &mut Game, max: usize) -> usize {
    let mut plies = 0;
    while g.outcome().is_none() && plies < max {
        let pos = *g.position();
        let Some(&mv) = pos
            .legal_moves()
            .iter()
            .filter(|m| pos.kings().has(m.from) && !m.is_capture())
            .min_by_key(|m| {
                let next = pos.play(m);
                (
                    has_capture(&next),
                    g.positions().iter().filter(|p| **p == next).count(),
                )
            })
        else {
            break;
        };
        g.play(&mv).unwrap();
        plies += 1;
    }
    plies
}
