//! Reading protocol lines with a bound: a peer that writes without a line end (a broken engine, a
//! GUI gone wrong, garbage on a pipe) costs at most the bound, not all the memory it can send.

use std::io::{BufRead, ErrorKind};

/// Reads one line into `buf` without its `\n`, keeping at most `max` bytes of it and dropping
/// the rest. `Ok(None)` at the end of the input; otherwise `Ok(Some(dropped))`, the bytes of
/// this line that did not fit. A `\r` before the `\n` stays in `buf`.
///
/// # Errors
/// What the reader reports, except interruptions, which are retried.
pub fn read_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Option<usize>> {
    buf.clear();
    let mut read = false;
    let mut dropped = 0;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(read.then_some(dropped));
        }
        read = true;
        let (part, used, ended) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (chunk.get(..i).unwrap_or_default(), i + 1, true),
            None => (chunk, chunk.len(), false),
        };
        let room = max.saturating_sub(buf.len());
        let kept = part.len().min(room);
        buf.extend_from_slice(part.get(..kept).unwrap_or_default());
        dropped += part.len() - kept;
        reader.consume(used);
        if ended {
            return Ok(Some(dropped));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    fn lines(input: &[u8], max: usize) -> Vec<(Vec<u8>, usize)> {
        // A small buffer, so that lines span several fills.
        let mut reader = BufReader::with_capacity(7, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        while let Some(dropped) = read_line(&mut reader, &mut buf, max).expect("reading a slice") {
            out.push((buf.clone(), dropped));
        }
        out
    }

    #[test]
    fn lines_are_read_without_their_end_and_cut_at_the_limit() {
        let got = lines(b"wait\nready\r\n\nlast", 100);
        let text: Vec<&[u8]> = got.iter().map(|(l, _)| l.as_slice()).collect();
        assert_eq!(text, [&b"wait"[..], b"ready\r", b"", b"last"]);
        assert!(got.iter().all(|&(_, d)| d == 0));
        let mut long = vec![b'x'; 3 * 50];
        long.extend_from_slice(b"\ndone move=32-28\n");
        let got = lines(&long, 50);
        assert_eq!(
            got,
            [(vec![b'x'; 50], 100), (b"done move=32-28".to_vec(), 0)]
        );
    }
}
