//! The framing every Kroon binary file shares: an 8-byte magic, a little-endian `u16` format
//! version, the variant (by Hub name or by index, as each format was first written), and a trailing
//! FNV-1a checksum of every byte before it. Each format keeps its own fields and its own error
//! type; this module writes and checks the common parts, so a change to how they are read is
//! made once. Every reader here is total: bad bytes give an error or `None`, never a panic.

use crate::hash::fnv1a;
use crate::variant::Variant;

/// Bytes of the magic.
pub const MAGIC_LEN: usize = 8;
/// Bytes of the magic and the version: where a format's own fields start.
pub const START_LEN: usize = MAGIC_LEN + 2;
/// Bytes of the trailing checksum.
pub const CHECKSUM_LEN: usize = 8;
/// Bytes of a variant stored by name: its Hub name padded with zero bytes.
pub const VARIANT_NAME_LEN: usize = 12;

/// What is wrong with the shared part of a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// The file does not start with the format's magic.
    #[error("bad magic bytes")]
    Magic,
    /// The file ends inside the part being read.
    #[error("the file ends early ({0} bytes)")]
    Truncated(usize),
    /// A format version other than the one this build reads.
    #[error("format version {0}")]
    Version(u16),
    /// The bytes do not hash to the stored checksum.
    #[error("checksum mismatch")]
    Checksum,
    /// A variant name that is not one of Kroon's, or not written as the writer writes it.
    #[error("unknown variant '{0}'")]
    VariantName(String),
    /// A variant index beyond [`Variant::ALL`].
    #[error("unknown variant number {0}")]
    VariantIndex(u8),
}

/// Appends the magic and the format version.
pub fn write_start(out: &mut Vec<u8>, magic: &[u8; MAGIC_LEN], version: u16) {
    out.extend_from_slice(magic);
    out.extend_from_slice(&version.to_le_bytes());
}

/// Checks the magic, then the version, of `bytes`: [`HeaderError::Magic`] if the magic is not
/// there (a file shorter than it included), [`HeaderError::Truncated`] if the version is cut,
/// [`HeaderError::Version`] for another version.
///
/// # Errors
/// As above.
pub fn check_start(bytes: &[u8], magic: &[u8; MAGIC_LEN], version: u16) -> Result<(), HeaderError> {
    if bytes.get(..MAGIC_LEN) != Some(magic.as_slice()) {
        return Err(HeaderError::Magic);
    }
    let found = read_u16(bytes, MAGIC_LEN).ok_or(HeaderError::Truncated(bytes.len()))?;
    if found != version {
        return Err(HeaderError::Version(found));
    }
    Ok(())
}

/// Appends the checksum of everything in `out`.
pub fn seal(out: &mut Vec<u8>) {
    let sum = fnv1a(out);
    out.extend_from_slice(&sum.to_le_bytes());
}

/// The bytes before the trailing checksum, if they hash to it.
///
/// # Errors
/// [`HeaderError::Truncated`] if `bytes` cannot hold a checksum, [`HeaderError::Checksum`] if it
/// does not match.
pub fn unseal(bytes: &[u8]) -> Result<&[u8], HeaderError> {
    let body_len = bytes
        .len()
        .checked_sub(CHECKSUM_LEN)
        .ok_or(HeaderError::Truncated(bytes.len()))?;
    let (body, sum) = bytes.split_at(body_len);
    let sum = u64::from_le_bytes(sum.try_into().map_err(|_| HeaderError::Checksum)?);
    if fnv1a(body) != sum {
        return Err(HeaderError::Checksum);
    }
    Ok(body)
}

/// Appends `variant`'s Hub name, padded with zero bytes to [`VARIANT_NAME_LEN`].
pub fn write_variant_name(out: &mut Vec<u8>, variant: Variant) {
    out.extend_from_slice(&variant_name_field(variant));
}

fn variant_name_field(variant: Variant) -> [u8; VARIANT_NAME_LEN] {
    let mut field = [0u8; VARIANT_NAME_LEN];
    let name = variant.hub_name().as_bytes();
    let len = name.len().min(VARIANT_NAME_LEN);
    field[..len].copy_from_slice(&name[..len]);
    field
}

/// The variant whose name is stored at `at`, exactly as [`write_variant_name`] writes it (the
/// Hub name then zeros: no alias, no stray byte after the name).
///
/// # Errors
/// [`HeaderError::Truncated`] if the field is cut, [`HeaderError::VariantName`] (with the name as
/// far as its first zero byte) if it names no variant or is not written as the writer writes it.
pub fn read_variant_name(bytes: &[u8], at: usize) -> Result<Variant, HeaderError> {
    let stored: [u8; VARIANT_NAME_LEN] =
        read_array(bytes, at).ok_or(HeaderError::Truncated(bytes.len()))?;
    let name: String = stored
        .iter()
        .take_while(|&&b| b != 0)
        .map(|&b| char::from(b))
        .collect();
    match name.parse::<Variant>() {
        Ok(variant) if variant_name_field(variant) == stored => Ok(variant),
        _ => Err(HeaderError::VariantName(name)),
    }
}

/// `variant`'s index in [`Variant::ALL`], as one byte.
#[must_use]
pub fn variant_index(variant: Variant) -> u8 {
    let index = Variant::ALL.iter().position(|&v| v == variant);
    u8::try_from(index.unwrap_or(0)).unwrap_or(0)
}

/// The variant of index `index` in [`Variant::ALL`].
///
/// # Errors
/// [`HeaderError::VariantIndex`] for an index beyond it.
pub fn variant_at(index: u8) -> Result<Variant, HeaderError> {
    Variant::ALL
        .get(usize::from(index))
        .copied()
        .ok_or(HeaderError::VariantIndex(index))
}

/// The `N` bytes of `bytes` from `at`, if it holds them.
#[must_use]
pub fn read_array<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes
        .get(at..at.checked_add(N)?)
        .and_then(|b| b.try_into().ok())
}

/// The little-endian `u16` at `at`.
#[must_use]
pub fn read_u16(bytes: &[u8], at: usize) -> Option<u16> {
    read_array(bytes, at).map(u16::from_le_bytes)
}

/// The little-endian `u32` at `at`.
#[must_use]
pub fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    read_array(bytes, at).map(u32::from_le_bytes)
}

/// The little-endian `u64` at `at`.
#[must_use]
pub fn read_u64(bytes: &[u8], at: usize) -> Option<u64> {
    read_array(bytes, at).map(u64::from_le_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_start_reads_back() {
        let mut out = Vec::new();
        write_start(&mut out, b"KROONXYZ", 3);
        write_variant_name(&mut out, Variant::International);
        out.push(variant_index(Variant::Frisian));
        seal(&mut out);
        // The layout, byte by byte: magic, version 3 little-endian, "normal" and six zeros, the
        // index of frisian (fifth in Variant::ALL), then the checksum.
        assert_eq!(&out[..8], b"KROONXYZ");
        assert_eq!(&out[8..10], &[3, 0]);
        assert_eq!(&out[10..22], b"normal\0\0\0\0\0\0");
        assert_eq!(out[22], 4);
        assert_eq!(out.len(), 23 + CHECKSUM_LEN);
        assert_eq!(check_start(&out, b"KROONXYZ", 3), Ok(()));
        assert_eq!(
            read_variant_name(&out, START_LEN),
            Ok(Variant::International)
        );
        assert_eq!(variant_at(out[22]), Ok(Variant::Frisian));
        assert_eq!(unseal(&out).map(<[u8]>::len), Ok(23));
    }

    #[test]
    fn damage_is_named() {
        let mut out = Vec::new();
        write_start(&mut out, b"KROONXYZ", 1);
        write_variant_name(&mut out, Variant::Russian);
        seal(&mut out);
        assert_eq!(check_start(b"", b"KROONXYZ", 1), Err(HeaderError::Magic));
        assert_eq!(check_start(&out, b"KROONABC", 1), Err(HeaderError::Magic));
        assert_eq!(
            check_start(&out[..9], b"KROONXYZ", 1),
            Err(HeaderError::Truncated(9))
        );
        assert_eq!(
            check_start(&out, b"KROONXYZ", 2),
            Err(HeaderError::Version(1))
        );
        assert_eq!(unseal(&out[..7]), Err(HeaderError::Truncated(7)));
        let mut flipped = out.clone();
        flipped[12] ^= 1;
        assert_eq!(unseal(&flipped), Err(HeaderError::Checksum));
        let mut alias = out.clone();
        alias[START_LEN + 9] = b'x';
        assert_eq!(
            read_variant_name(&alias, START_LEN),
            Err(HeaderError::VariantName("russian".into()))
        );
        assert_eq!(
            read_variant_name(&out[..15], START_LEN),
            Err(HeaderError::Truncated(15))
        );
        assert_eq!(variant_at(8), Err(HeaderError::VariantIndex(8)));
        assert_eq!(read_u64(&out, usize::MAX - 2), None);
    }
}
