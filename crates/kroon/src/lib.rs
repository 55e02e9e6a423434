//! The parts of the `kroon` binary that other crates read too: the settings file, so that its
//! reader can be fuzzed and tested as a library, and the SVG board diagrams, which `kroon show`
//! and the web board draw with.

pub mod config;
pub mod svg;
