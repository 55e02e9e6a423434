//! Balanced openings for matches, made with Kroon's own search: `kroon match
//! --generate-openings`, which wrote the default set `kroon-match` embeds
//! (scripts/openings/openings.txt). It lives here rather than in `kroon-match`, which reads
//! openings but has no search.

use kroon_rules::hash::SplitMix64;
use kroon_rules::pdn::movetext;
use kroon_rules::{Colour, Game, Move, Position, Variant};
use kroon_search::{score, Engine, Limits, SearchRequest};
use std::collections::HashSet;

/// Makes `count` balanced openings for `variant`: random games of 4 or 6 plies (2 or 3 moves)
/// from the initial position, each kept when its position is new, has no capture pending, and a
/// `depth` search of Kroon's scores it within `max_score` men of equal. Deterministic for a
/// `seed`. One PDN line each, with the score and depth as a comment; `progress` hears each one
/// kept.
#[must_use]
pub fn generate(
    variant: Variant,
    count: usize,
    depth: u32,
    max_score: f64,
    seed: u64,
    progress: &dyn Fn(usize, &str),
) -> Vec<String> {
    let start = Position::initial(variant);
    let mut rng = SplitMix64(seed);
    let mut seen = HashSet::new();
    let mut engine = Engine::new(1, 16);
    let mut out = Vec::new();
    let limit = (max_score * f64::from(score::MAN)).round() as i32;
    let mut tries = 0;
    while out.len() < count && tries < count * 50 {
        tries += 1;
        let plies = if tries % 2 == 0 { 4 } else { 6 };
        let mut game = Game::new(start);
        for _ in 0..plies {
            let legal = game.position().legal_moves();
            if legal.is_empty() {
                break;
            }
            let Some(&mv) = legal.as_slice().get(rng.below(legal.len())) else {
                break;
            };
            if game.play(&mv).is_err() {
                break;
            }
        }
        let pos = *game.position();
        // Only quiet positions: no capture pending, so no opening stops half-way through an
        // exchange.
        let legal = pos.legal_moves();
        let quiet = !legal.is_empty() && !legal.iter().any(Move::is_capture);
        if game.moves().len() != plies || !quiet || !seen.insert(pos.key()) {
            continue;
        }
        engine.new_game();
        let req = SearchRequest {
            game: game.clone(),
            limits: Limits::Depth(depth),
            ponder: false,
        };
        let result = engine.search(&req, &|_| {});
        // The score is the side to move's; the comment gives White's, as a reader expects.
        let white = if pos.turn() == Colour::White {
            result.score
        } else {
            -result.score
        };
        if white.abs() > limit {
            continue;
        }
        let line = format!(
            "{} {{{:+.2}/{}}} *",
            movetext(&start, game.moves()),
            score::in_men(white),
            result.depth
        );
        progress(out.len() + 1, &line);
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kroon_rules::read_pdn;

    #[test]
    fn generated_openings_are_balanced_and_repeatable() {
        let a = generate(Variant::International, 3, 4, 0.3, 7, &|_, _| {});
        let b = generate(Variant::International, 3, 4, 0.3, 7, &|_, _| {});
        assert_eq!(a, b);
        assert_eq!(a.len(), 3);
        let file = read_pdn(&a.join("\n"), Variant::International);
        assert!(file.skipped.is_empty(), "{:?}", file.skipped);
        assert_eq!(file.games.len(), 3);
        for game in &file.games {
            assert_eq!(game.start, Position::initial(Variant::International));
            assert!([4, 6].contains(&game.moves().len()), "{a:?}");
        }
    }
}
