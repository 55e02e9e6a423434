//! The builder's saved state: every position it has searched, with its search score and whether
//! it was expanded. The tree itself is not stored: it is the moves from the initial position,
//! and the positions are found again by key. Same header and checksum as the book file.

// Read back from disk after an interruption: bad bytes must come back as errors.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

use crate::format::{array, header, open, seal, BookError};
use kroon_rules::Variant;
use std::collections::HashMap;

const MAGIC: &[u8; 8] = b"KROONBKS";
/// Bytes per node: key, score, flags.
const NODE: usize = 13;

/// A searched position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Node {
    /// The search's score for the side to move.
    pub score: i32,
    /// Whether all its moves have been searched.
    pub expanded: bool,
}

/// The searched positions by key.
pub(crate) type Nodes = HashMap<u64, Node>;

/// The file image (nodes in key order, so that equal states give equal files).
pub(crate) fn to_bytes(variant: Variant, nodes: &Nodes) -> Vec<u8> {
    let mut keys: Vec<u64> = nodes.keys().copied().collect();
    keys.sort_unstable();
    let mut out = Vec::with_capacity(16 + keys.len() * NODE + 8);
    header(&mut out, MAGIC, variant, keys.len());
    for key in keys {
        let node = nodes.get(&key).copied().unwrap_or(Node {
            score: 0,
            expanded: false,
        });
        out.extend_from_slice(&key.to_le_bytes());
        out.extend_from_slice(&node.score.to_le_bytes());
        out.push(u8::from(node.expanded));
    }
    seal(&mut out);
    out
}

/// Reads a state file image.
pub(crate) fn from_bytes(bytes: &[u8]) -> Result<(Variant, Nodes), BookError> {
    let (variant, count, mut rest) = open(bytes, MAGIC, NODE)?;
    let mut nodes = Nodes::with_capacity(count);
    for i in 0..count {
        let cut = BookError::Entry(i, "cut short");
        let key = u64::from_le_bytes(array(&mut rest).ok_or(cut.clone())?);
        let score = i32::from_le_bytes(array(&mut rest).ok_or(cut.clone())?);
        let [flags] = array(&mut rest).ok_or(cut)?;
        if flags > 1 {
            return Err(BookError::Entry(i, "unknown flags"));
        }
        let node = Node {
            score,
            expanded: flags == 1,
        };
        if nodes.insert(key, node).is_some() {
            return Err(BookError::Entry(i, "a position twice"));
        }
    }
    if !rest.is_empty() {
        return Err(BookError::Entry(count, "bytes after the last node"));
    }
    Ok((variant, nodes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_a_cut_file() {
        let mut nodes = Nodes::new();
        nodes.insert(
            9,
            Node {
                score: -30,
                expanded: true,
            },
        );
        nodes.insert(
            2,
            Node {
                score: 7,
                expanded: false,
            },
        );
        let bytes = to_bytes(Variant::International, &nodes);
        assert_eq!(from_bytes(&bytes), Ok((Variant::International, nodes)));
        assert!(from_bytes(&bytes[..bytes.len() - 1]).is_err());
    }
}
