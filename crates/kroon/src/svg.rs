//! Board diagrams as SVG, for articles (`kroon show --svg`) and for the web board: the squares,
//! each playable one with its name as the variant's players write it (field numbers, `c3` in
//! Russian and Brazilian, English squares from the dark side), the pieces (kings with a crown
//! ring), and an arrow for the last move. 10x10 and 8x8 alike; White at the bottom unless
//! flipped. Pure text out: no files, no state.
//!
//! ```
//! use kroon_rules::{Position, Variant};
//! let start = Position::initial(Variant::International);
//! let mv = start.legal_moves()[0];
//! let svg = kroon::svg::board(&start.play(&mv), Some(&mv), &kroon::svg::Options::default());
//! assert!(svg.starts_with("<svg") && svg.contains("class=\"arrow\""));
//! ```

use kroon_rules::{
    diagram_place, side_called, side_name, square_at, square_name, Colour, Move, Position,
};
use std::fmt::Write as _;

/// How to draw.
#[derive(Clone, Debug)]
pub struct Options {
    /// Side of a square, in SVG user units (pixels at scale 1).
    pub square: u32,
    /// Write each playable square's name in its corner.
    pub names: bool,
    /// Turn the board round: the second side at the bottom.
    pub flipped: bool,
    /// A caption under the board: the side to move and the variant.
    pub caption: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            square: 48,
            names: true,
            flipped: false,
            caption: true,
        }
    }
}

/// The SVG document of `pos`, with an arrow from the `last` move's from square to its to square.
#[must_use]
pub fn board(pos: &Position, last: Option<&Move>, opts: &Options) -> String {
    let v = pos.variant();
    let n = usize::from(v.geometry().columns);
    let s = opts.square.max(8) as usize;
    let side = n * s;
    let caption = if opts.caption { s / 2 + 4 } else { 0 };
    // Centre of a diagram cell, turned round when flipped.
    let at = |r: usize, c: usize| {
        let (r, c) = if opts.flipped {
            (n - 1 - r, n - 1 - c)
        } else {
            (r, c)
        };
        (c * s + s / 2, r * s + s / 2)
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {side} {h}\" width=\"{side}\" \
         height=\"{h}\" font-family=\"sans-serif\">",
        h = side + caption
    );
    let _ = writeln!(
        out,
        "<defs><marker id=\"head\" viewBox=\"0 0 10 10\" refX=\"5\" refY=\"5\" markerWidth=\"4\" \
         markerHeight=\"4\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" \
         fill=\"#2a7de1\"/></marker></defs>"
    );
    let _ = writeln!(
        out,
        "<rect class=\"board\" x=\"0\" y=\"0\" width=\"{side}\" height=\"{side}\" fill=\"#f0d9b5\"/>"
    );
    for r in 0..n {
        for c in 0..n {
            let Some(sq) = square_at(v, r, c) else {
                continue;
            };
            let (x, y) = at(r, c);
            let (x0, y0) = (x - s / 2, y - s / 2);
            let _ = writeln!(
                out,
                "<rect class=\"square\" x=\"{x0}\" y=\"{y0}\" width=\"{s}\" height=\"{s}\" fill=\"#b58863\"/>"
            );
            if opts.names {
                let _ = writeln!(
                    out,
                    "<text class=\"name\" x=\"{}\" y=\"{}\" font-size=\"{}\" fill=\"#f6ead8\">{}</text>",
                    x0 + 2,
                    y0 + s / 4 + 1,
                    s / 4,
                    square_name(v, sq)
                );
            }
            if let Some(p) = pos.piece_at(sq) {
                let (fill, line) = match side_called(v, p.colour) {
                    Colour::White => ("#fbf8f0", "#333333"),
                    Colour::Black => ("#262626", "#dddddd"),
                };
                let radius = s * 2 / 5;
                let _ = writeln!(
                    out,
                    "<circle class=\"piece {}{}\" cx=\"{x}\" cy=\"{y}\" r=\"{radius}\" fill=\"{fill}\" \
                     stroke=\"#333333\" stroke-width=\"1.5\"/>",
                    side_name(v, p.colour).to_ascii_lowercase(),
                    if p.king { " king" } else { "" },
                );
                if p.king {
                    let _ = writeln!(
                        out,
                        "<circle class=\"crown\" cx=\"{x}\" cy=\"{y}\" r=\"{}\" fill=\"none\" \
                         stroke=\"{line}\" stroke-width=\"2\"/>",
                        radius / 2
                    );
                }
            }
        }
    }
    if let Some(mv) = last {
        if let (Some((r0, c0)), Some((r1, c1))) =
            (diagram_place(v, mv.from), diagram_place(v, mv.to))
        {
            let ((x0, y0), (x1, y1)) = (at(r0, c0), at(r1, c1));
            let _ = writeln!(
                out,
                "<line class=\"arrow\" x1=\"{x0}\" y1=\"{y0}\" x2=\"{x1}\" y2=\"{y1}\" \
                 stroke=\"#2a7de1\" stroke-width=\"{}\" stroke-opacity=\"0.8\" \
                 marker-end=\"url(#head)\"/>",
                (s / 8).max(2)
            );
        }
    }
    if opts.caption {
        let _ = writeln!(
            out,
            "<text class=\"caption\" x=\"4\" y=\"{}\" font-size=\"{}\" fill=\"#333333\">{} to move, {}</text>",
            side + caption - 6,
            s / 3,
            side_name(v, pos.turn()),
            v
        );
    }
    out.push_str("</svg>\n");
    out
}
