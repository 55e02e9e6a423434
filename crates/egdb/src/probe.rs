//! `Tables`: the slice files of a directory, looked up by position.

use crate::cache::{BlockCache, CacheStats};
use crate::index::{Board, Layout};
use crate::material::Material;
use crate::store::{Slice, StoreError, EXTENSION};
use crate::value::Value;
use kroon_rules::{Position, Variant};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What a table says of a position.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Probe {
    /// Win, draw or loss for the side to move (the distance inside counts only with `distance`).
    pub value: Value,
    /// Plies to conversion, where the slice keeps them.
    pub distance: Option<u16>,
}

impl Probe {
    fn exact(value: Value) -> Probe {
        Probe {
            value,
            distance: value.distance(),
        }
    }
}

/// A file that was left out, and why.
#[derive(Debug)]
pub struct Problem {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub error: StoreError,
}

/// The endgame tables found in a directory.
#[derive(Debug, Default)]
pub struct Tables {
    /// Each slice with its index layout and its number among the slices (for the cache).
    slices: HashMap<Material, (Slice, Layout, u32)>,
    cache: BlockCache,
    complete: u32,
    problems: Vec<Problem>,
}

impl Tables {
    /// Reads every slice file of `dir`. Files that do not read are left out and listed in
    /// `problems`; only a directory that cannot be listed is an error.
    pub fn open(dir: &Path) -> std::io::Result<Tables> {
        let mut tables = Tables::default();
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == EXTENSION))
            .collect();
        paths.sort();
        let mut loaded = 0;
        for path in paths {
            let named = path
                .file_stem()
                .and_then(|s| s.to_str())
                .and_then(|s| s.parse::<Material>().ok());
            match Slice::read(&path) {
                Ok(slice) if named.is_some_and(|m| m != slice.material()) => {
                    tables.problems.push(Problem {
                        path,
                        error: StoreError::Material {
                            expected: named.unwrap_or(slice.material()),
                            found: slice.material(),
                        },
                    });
                }
                Ok(slice) => {
                    let m = slice.material();
                    tables.slices.insert(m, (slice, Layout::new(m), loaded));
                    loaded += 1;
                }
                Err(error) => tables.problems.push(Problem { path, error }),
            }
        }
        tables.complete = (2..=12)
            .take_while(|&n| {
                Material::with_pieces(n)
                    .iter()
                    .all(|m| tables.slices.contains_key(m))
            })
            .last()
            .unwrap_or(0);
        Ok(tables)
    }

    /// The largest piece count up to which every slice is present (0 when none is).
    #[must_use]
    pub fn complete_pieces(&self) -> u32 {
        self.complete
    }

    /// The most pieces of any slice found (its neighbours may be missing: they probe as `None`).
    #[must_use]
    pub fn max_pieces(&self) -> u32 {
        self.slices.keys().map(|m| m.pieces()).max().unwrap_or(0)
    }

    /// The slices found, in build order, with their files' coded sizes.
    #[must_use]
    pub fn slices(&self) -> Vec<(&Slice, u64)> {
        let mut v: Vec<(&Slice, u64)> = self
            .slices
            .values()
            .map(|(s, l, _)| (s, l.size()))
            .collect();
        v.sort_by_key(|(s, _)| {
            let m = s.material();
            (m.pieces(), m.men(), m)
        });
        v
    }

    /// What the probes found in the cache of decoded blocks.
    #[must_use]
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    /// Files left out.
    #[must_use]
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// Whether no slice was found.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.slices.is_empty()
    }

    /// The value of an international draughts position with no capture for the side to move, when
    /// its slice is present.
    #[must_use]
    pub fn probe_quiet(&self, pos: &Position) -> Option<Probe> {
        if pos.variant() != Variant::International {
            return None;
        }
        self.lookup(&Board::from_position(pos))
    }

    fn lookup(&self, b: &Board) -> Option<Probe> {
        let m = b.material();
        if m.own_men + m.own_kings == 0 {
            return Some(Probe::exact(Value::Loss(0)));
        }
        let (slice, layout, id) = self.slices.get(&m)?;
        let value = Value::from_code(self.cache.code(*id, slice, layout.encode(b))?)?;
        Some(Probe {
            value,
            distance: value.distance().filter(|_| slice.has_distances()),
        })
    }

    /// The value of any international draughts position whose slices are present; a capture
    /// pending is played out through the slices it leads into (its distance is then 1, the
    /// capture being the conversion), so the position's own slice is not needed then.
    #[must_use]
    pub fn probe(&self, pos: &Position) -> Option<Probe> {
        if pos.variant() != Variant::International {
            return None;
        }
        if !kroon_rules::has_capture(pos) {
            return self.lookup(&Board::from_position(pos));
        }
        let moves = pos.legal_moves();
        let mut best = Value::Loss(1);
        for mv in moves.iter() {
            match self.probe(&pos.play(mv))?.value {
                Value::Loss(_) => return Some(Probe::exact(Value::Win(1))),
                Value::Draw => best = Value::Draw,
                Value::Win(_) => {}
            }
        }
        Some(Probe::exact(best))
    }
}
