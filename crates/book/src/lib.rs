//! Kroon's opening book: positions (by key) with their moves and scores, grown from the initial
//! position by Kroon's own search (`build`), stored in a small checksummed file (`format`), and
//! probed by the engine through `kroon_search::BookProbe`.
#![forbid(unsafe_code)]

pub mod build;
pub mod format;
mod state;

pub use build::{build, BuildOptions, BuildReport};
pub use format::{BookData, BookError};

use kroon_rules::{Move, Position, Variant};
use kroon_search::BookProbe;

/// The default international book, made by `scripts/build-book.sh`.
const DEFAULT_NORMAL: &[u8] = include_bytes!("../data/normal.kbk");

/// An opening book, ready to probe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Book {
    data: BookData,
}

impl Book {
    /// Reads a book file image.
    ///
    /// # Errors
    /// As [`BookData::from_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        BookData::from_bytes(bytes).map(|data| Book { data })
    }

    /// The file image.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        self.data.to_bytes()
    }

    /// The book embedded in the binary for `variant`, if there is one (international only).
    #[must_use]
    pub fn embedded(variant: Variant) -> Option<Book> {
        match variant {
            Variant::International => Book::from_bytes(DEFAULT_NORMAL).ok(),
            _ => None,
        }
    }

    /// The variant the book is for.
    #[must_use]
    pub fn variant(&self) -> Variant {
        self.data.variant
    }

    /// Positions in the book.
    #[must_use]
    pub fn len(&self) -> usize {
        self.data.entries.len()
    }

    /// Whether the book holds no position.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.data.entries.is_empty()
    }

    /// The book moves of `pos`, best first, with their scores for the side to move; only legal
    /// moves (a code that names no legal move, or more than one, is left out).
    #[must_use]
    pub fn moves(&self, pos: &Position) -> Vec<(Move, i32)> {
        if pos.variant() != self.data.variant {
            return Vec::new();
        }
        let entries = &self.data.entries;
        let Ok(i) = entries.binary_search_by_key(&pos.key(), |&(k, _)| k) else {
            return Vec::new();
        };
        let Some((_, codes)) = entries.get(i) else {
            return Vec::new();
        };
        let legal = pos.legal_moves();
        codes
            .iter()
            .filter_map(|&(code, score)| {
                let mut it = legal.iter().filter(|mv| mv.key() == code);
                match (it.next(), it.next()) {
                    (Some(&mv), None) => Some((mv, i32::from(score))),
                    _ => None,
                }
            })
            .collect()
    }
}

impl BookProbe for Book {
    fn probe(&self, pos: &Position) -> Vec<(Move, i32)> {
        self.moves(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_book_loads_and_its_start_moves_are_legal() {
        let book = Book::embedded(Variant::International).unwrap();
        assert!(book.len() > 100, "{} positions", book.len());
        let start = Position::initial(Variant::International);
        let moves = book.moves(&start);
        assert!(moves.len() >= 5);
        assert!(moves.windows(2).all(|w| w[0].1 >= w[1].1), "best first");
        assert!(moves.iter().all(|(mv, _)| start.legal_moves().contains(mv)));
        assert!(Book::embedded(Variant::Frisian).is_none());
        assert!(book.moves(&Position::initial(Variant::Killer)).is_empty());
    }

    #[test]
    fn the_embedded_book_writes_back_byte_for_byte() {
        // The shared header code (kroon_rules::file_header) reads and writes the file made before
        // it existed, unchanged.
        let data = BookData::from_bytes(DEFAULT_NORMAL).unwrap();
        assert_eq!(data.variant, Variant::International);
        assert!(data.to_bytes() == DEFAULT_NORMAL);
    }
}
