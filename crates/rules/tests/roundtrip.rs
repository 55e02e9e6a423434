//! Property tests over positions from random games: incremental key equals the key from scratch;
//! FEN, Hub, DXP and move notation read back what they write; flipping twice is the identity.

use kroon_rules::{
    notation, parse_dxp, parse_fen, parse_hub, parse_move, write_dxp, write_fen, write_hub, Colour,
    Position, Variant,
};
use proptest::prelude::*;

fn random_game(choices: &[u16], variant: Variant) -> Vec<Position> {
    let mut pos = Position::initial(variant);
    let mut out = vec![pos];
    for &c in choices {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        pos = pos.play(&legal[usize::from(c) % legal.len()]);
        out.push(pos);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn incremental_key_equals_key_from_scratch(choices in prop::collection::vec(any::<u16>(), 0..160)) {
        for pos in random_game(&choices, Variant::International) {
            prop_assert_eq!(pos.key(), pos.compute_key());
        }
    }

    #[test]
    fn position_texts_round_trip(choices in prop::collection::vec(any::<u16>(), 0..160)) {
        for pos in random_game(&choices, Variant::International) {
            let v = pos.variant();
            prop_assert_eq!(parse_fen(&write_fen(&pos), v).unwrap(), pos);
            prop_assert_eq!(parse_hub(&write_hub(&pos), v).unwrap(), pos);
            let turn = if pos.turn() == Colour::White { 'W' } else { 'Z' };
            prop_assert_eq!(parse_dxp(turn, &write_dxp(&pos), v).unwrap(), pos);
            prop_assert_eq!(pos.flipped().flipped(), pos);
            prop_assert_eq!(pos.flipped().legal_moves().len(), pos.legal_moves().len());
        }
    }

    #[test]
    fn move_notation_round_trips(choices in prop::collection::vec(any::<u16>(), 0..160)) {
        for pos in random_game(&choices, Variant::International) {
            for mv in &pos.legal_moves() {
                prop_assert_eq!(parse_move(&pos, &notation::long(mv, pos.variant())).unwrap(), *mv);
                prop_assert_eq!(parse_move(&pos, &notation::display(&pos, mv)).unwrap(), *mv);
            }
        }
    }

    #[test]
    fn readers_never_panic(s in ".*") {
        let _ = parse_fen(&s, Variant::International);
        let _ = parse_hub(&s, Variant::International);
        let _ = parse_dxp('W', &s, Variant::International);
        let _ = parse_move(&Position::initial(Variant::International), &s);
    }
}
