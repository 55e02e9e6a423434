//! The rules against published counts, rule texts and other implementations.
//! Each file is a module of this one test binary, so that the build links one binary instead of
//! one per file.

mod common;

mod draws;
mod fmjd;
mod frisian;
mod pdn;
mod perft;
mod roundtrip;
mod russian;
mod staged;
