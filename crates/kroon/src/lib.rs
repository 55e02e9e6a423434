//! The parts of the `kroon` binary that other crates read too: the settings file, so that its
//! reader can be fuzzed and tested as a library.

pub mod config;
