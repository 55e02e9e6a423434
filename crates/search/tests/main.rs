//! The search: its behaviour and the tactical suite.
//! Each file is a module of this one test binary, so that the build links one binary instead of
//! one per file.

#[path = "../../../tests/support/material.rs"]
mod material;

mod search;
mod tactics;
