//! The end-to-end tests: the real binary driven as a user, a GUI, a match server, a queue worker
//! or a browser would drive it. Each file is a module of this one test binary, so that the build
//! links one binary instead of one per file; `cargo test -p kroon --test end_to_end -- hub::`
//! runs one file's tests.

mod support;

mod analysis;
mod browser;
mod cli;
mod cli_chinese;
mod drawn_endings;
mod dxp;
mod egdb;
mod hub;
mod interop_pydraughts;
mod interop_variants_pydraughts;
mod learn;
mod r#match;
mod queue;
mod serve;
mod soak;
