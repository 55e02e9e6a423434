//! The Chinese checkers rules, searches, proofs and solitaire against hand-checked positions, perft
//! counts and an independent implementation.
//! Each file is a module of this one test binary, so that the build links one binary instead of
//! one per file.

mod interop_magmacrunch;
mod perft;
mod prove;
mod rules;
mod search;
mod solve;
