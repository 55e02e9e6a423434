//! DXP framing: every message on the TCP stream ends with a NUL byte. Reading is bounded (a frame
//! longer than [`MAX_FRAME`] is an error, not a growing buffer) and cancel-safe, so that a session
//! can wait for the peer and for its own search at the same time.

// A reader of outside input: bad bytes must come back as errors, so no panicking shortcuts.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

use std::time::Duration;

use thiserror::Error;
#[cfg(feature = "sessions")]
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::codec::{Dxp, DxpError};

/// Longest frame accepted, NUL not counted. The longest DXP message is a game request with a
/// position (94 bytes); Moby Dam reads at most 127, so 512 leaves room for long chats.
pub const MAX_FRAME: usize = 512;

/// How long a write may block (a peer that stops reading) before the connection is given up.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// Why the byte stream could not give a frame.
#[derive(Debug, Error)]
pub enum FrameError {
    /// The socket failed.
    #[error("connection error: {0}")]
    Io(#[from] std::io::Error),
    /// More than `limit` bytes without a NUL: the peer does not speak DXP, or is out of sync.
    #[error("message longer than {limit} bytes without a NUL terminator")]
    TooLong {
        /// The limit that was exceeded.
        limit: usize,
    },
    /// A write did not finish in time.
    #[error("the peer stopped reading (write timed out after {0:?})")]
    WriteTimeout(Duration),
}

/// The framing itself, without I/O: bytes go in as they arrive, NUL-terminated frames come out,
/// and a frame over the limit is an error before the buffer grows far past it. The async
/// [`FrameReader`] and blocking clients (`kroon match`'s referee) share it.
#[derive(Debug)]
pub struct Frames {
    buf: Vec<u8>,
    limit: usize,
}

impl Frames {
    /// Frames of at most `limit` bytes, NUL not counted.
    #[must_use]
    pub fn new(limit: usize) -> Self {
        Frames {
            buf: Vec::with_capacity(256),
            limit,
        }
    }

    /// The longest frame accepted.
    #[must_use]
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Bytes as they arrived from the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next whole frame without its NUL, or `None` while no frame is complete.
    ///
    /// # Errors
    /// [`FrameError::TooLong`] for a frame longer than the limit, or once more than the limit
    /// has arrived without a NUL.
    pub fn next_frame(&mut self) -> Result<Option<Vec<u8>>, FrameError> {
        if let Some(end) = self.buf.iter().position(|&b| b == 0) {
            if end > self.limit {
                return Err(FrameError::TooLong { limit: self.limit });
            }
            let mut frame: Vec<u8> = self.buf.drain(..=end).collect();
            frame.pop();
            return Ok(Some(frame));
        }
        if self.buf.len() > self.limit {
            return Err(FrameError::TooLong { limit: self.limit });
        }
        Ok(None)
    }

    /// Throws away the bytes still waiting for their NUL; returns how many there were.
    pub fn clear(&mut self) -> usize {
        let n = self.buf.len();
        self.buf.clear();
        n
    }
}

/// One message as it goes on the wire: its text, then a NUL.
#[must_use]
pub fn encode(msg: &Dxp) -> Vec<u8> {
    let mut bytes = msg.to_string().into_bytes();
    debug_assert!(!bytes.contains(&0), "the codec never prints a NUL");
    bytes.push(0);
    bytes
}

/// Reads NUL-terminated frames from a byte stream.
#[cfg(feature = "sessions")]
#[derive(Debug)]
pub struct FrameReader<R> {
    inner: R,
    frames: Frames,
    /// Bytes that were still waiting for their NUL when the stream ended.
    dropped: usize,
}

#[cfg(feature = "sessions")]
impl<R: AsyncRead + Unpin> FrameReader<R> {
    /// A reader with the standard limit, [`MAX_FRAME`].
    pub fn new(inner: R) -> Self {
        Self::with_limit(inner, MAX_FRAME)
    }

    /// A reader that refuses frames longer than `limit` bytes.
    pub fn with_limit(inner: R, limit: usize) -> Self {
        FrameReader {
            inner,
            frames: Frames::new(limit),
            dropped: 0,
        }
    }

    /// The next frame without its NUL, or `None` when the peer closed the stream. An unfinished
    /// frame at the end of the stream is dropped (see [`FrameReader::dropped`]).
    ///
    /// Cancel-safe: the buffer changes only after a read has completed, so dropping the future
    /// (in `select!`) loses no bytes.
    ///
    /// # Errors
    /// [`FrameError::TooLong`] once more than `limit` bytes arrive without a NUL, and socket errors.
    pub async fn next_frame(&mut self) -> Result<Option<Vec<u8>>, FrameError> {
        loop {
            if let Some(frame) = self.frames.next_frame()? {
                return Ok(Some(frame));
            }
            let mut chunk = [0u8; 1024];
            let n = self.inner.read(&mut chunk).await?;
            if n == 0 {
                self.dropped = self.frames.clear();
                return Ok(None);
            }
            self.frames.push(chunk.get(..n).unwrap_or_default());
        }
    }

    /// Reads and throws away what the peer still sends, up to `max` bytes or the end of the
    /// stream. Closing a socket with unread input makes the kernel reset the connection, and a
    /// reset can destroy the last messages before the peer has read them; draining first (after
    /// shutting down the write side) closes cleanly. Bound it with a timeout.
    ///
    /// # Errors
    /// Socket errors.
    pub async fn drain(&mut self, max: usize) -> std::io::Result<()> {
        self.frames.clear();
        let mut seen = 0;
        let mut chunk = [0u8; 1024];
        while seen < max {
            match self.inner.read(&mut chunk).await? {
                0 => break,
                n => seen += n,
            }
        }
        Ok(())
    }

    /// How many bytes of an unfinished frame were thrown away when the stream ended.
    #[must_use]
    pub fn dropped(&self) -> usize {
        self.dropped
    }
}

/// Reads one frame as a DXP message: non-ASCII bytes and malformed fields are errors, never panics.
///
/// # Errors
/// [`DxpError::NonAscii`] for any byte above 127, otherwise what the codec finds.
pub fn decode(frame: &[u8]) -> Result<Dxp, DxpError> {
    if !frame.is_ascii() {
        return Err(DxpError::NonAscii);
    }
    std::str::from_utf8(frame)
        .map_err(DxpError::from)
        .and_then(str::parse)
}

/// A frame for the log: printable ASCII kept, anything else escaped, long frames cut.
#[must_use]
pub fn show(frame: &[u8]) -> String {
    const SHOWN: usize = 100;
    let mut s: String = frame
        .iter()
        .take(SHOWN)
        .flat_map(|&b| std::ascii::escape_default(b))
        .map(char::from)
        .collect();
    if frame.len() > SHOWN {
        s.push_str(&format!("... ({} bytes)", frame.len()));
    }
    s
}

/// Writes one message and its NUL, and flushes, within [`WRITE_TIMEOUT`].
///
/// # Errors
/// Socket errors, and [`FrameError::WriteTimeout`] when the peer does not read.
#[cfg(feature = "sessions")]
pub async fn write_message<W: AsyncWrite + Unpin>(
    writer: &mut W,
    msg: &Dxp,
) -> Result<(), FrameError> {
    let bytes = encode(msg);
    let write = async {
        writer.write_all(&bytes).await?;
        writer.flush().await
    };
    match tokio::time::timeout(WRITE_TIMEOUT, write).await {
        Ok(result) => Ok(result?),
        Err(_) => Err(FrameError::WriteTimeout(WRITE_TIMEOUT)),
    }
}

#[cfg(all(test, feature = "sessions"))]
mod stream_tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    async fn frames(input: &[u8], limit: usize) -> Vec<Result<Option<Vec<u8>>, String>> {
        let (mut a, b) = tokio::io::duplex(64);
        let data = input.to_vec();
        let writer = tokio::spawn(async move {
            a.write_all(&data).await.unwrap();
            drop(a);
        });
        let mut reader = FrameReader::with_limit(b, limit);
        let mut out = Vec::new();
        loop {
            let r = reader.next_frame().await.map_err(|e| e.to_string());
            let stop = !matches!(r, Ok(Some(_)));
            out.push(r);
            if stop {
                break;
            }
        }
        // The reader may stop early (a refused frame): the writer is then left blocked.
        writer.abort();
        out
    }

    #[tokio::test]
    async fn splits_on_nul_and_ends_on_close() {
        let out = frames(b"K0\0E21\0\0Chi", 512).await;
        assert_eq!(
            out,
            vec![
                Ok(Some(b"K0".to_vec())),
                Ok(Some(b"E21".to_vec())),
                Ok(Some(Vec::new())),
                Ok(None)
            ]
        );
    }

    #[tokio::test]
    async fn long_frames_are_refused_without_growing() {
        let long = vec![b'C'; 3000];
        let out = frames(&long, 512).await;
        assert_eq!(out.len(), 1);
        assert!(out[0].as_ref().unwrap_err().contains("longer than 512"));
        // Exactly at the limit is fine, one more is not.
        let mut ok = vec![b'C'; 512];
        ok.push(0);
        assert_eq!(frames(&ok, 512).await[0], Ok(Some(vec![b'C'; 512])));
        let mut bad = vec![b'C'; 513];
        bad.push(0);
        assert!(frames(&bad, 512).await[0].is_err());
    }

    #[tokio::test]
    async fn reader_counts_dropped_tail() {
        let (mut a, b) = tokio::io::duplex(64);
        a.write_all(b"K0\0M00").await.unwrap();
        drop(a);
        let mut r = FrameReader::new(b);
        assert_eq!(r.next_frame().await.unwrap(), Some(b"K0".to_vec()));
        assert_eq!(r.next_frame().await.unwrap(), None);
        assert_eq!(r.dropped(), 3);
    }

    #[tokio::test]
    async fn writes_nul_terminated() {
        let (mut a, mut b) = tokio::io::duplex(64);
        write_message(&mut a, &Dxp::Chat("hi".into()))
            .await
            .unwrap();
        let mut buf = [0u8; 4];
        b.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"Chi\0");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_rejects_non_ascii_and_garbage() {
        assert_eq!(decode(b"C\xff\xfe"), Err(DxpError::NonAscii));
        assert_eq!(decode(b"Xyz"), Err(DxpError::UnknownHeader('X')));
        assert_eq!(decode(b""), Err(DxpError::Empty));
        assert_eq!(
            decode(b"K0"),
            Ok(Dxp::BackAcc(super::super::BackAcc::Accepted))
        );
        assert_eq!(show(b"C\xff\x01a"), "C\\xff\\x01a");
    }
}
