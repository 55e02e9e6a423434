//! The parts of the `kroon` binary that are libraries: the SVG board diagrams, which `kroon show` and the web
//! board draw with; and the annotation of games (`kroon annotate`: its loop, the mistake marks
//! and the progress file it resumes from).

pub mod annotate;
pub mod svg;
