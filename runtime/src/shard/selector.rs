//! [`ShardSelector`]: KEP-5866's `shardSelector`, parsed, printed and matched.
//!
//! The syntax is the KEP's (Kubernetes v1.36, alpha): one or more
//! `shardRange(<field>, '<start>', '<end>')` joined by `||`, where the field is
//! `object.metadata.uid` or `object.metadata.namespace` and the bounds are `0x`-prefixed
//! hexadecimal numbers of the 64-bit hash space, half-open (`start <= hash < end`), the
//! end up to `0x10000000000000000` (2^64). An object matches when the 64-bit FNV-1a hash
//! of its field falls in one of the ranges.

use std::fmt;
use std::str::FromStr;

use kube::api::ObjectMeta;

use super::fnv::fnv1a_64;

/// 2^64: the end of the hash space, the largest end a range may have.
const SPACE: u128 = 1 << 64;

/// Why a `shardSelector` does not parse, or a shard cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// The text is not `shardRange(field, 'start', 'end') || ...`.
    #[error("invalid shard selector {input:?}: {why}")]
    Syntax {
        /// The selector as given.
        input: String,
        /// What was expected where.
        why: String,
    },
    /// A shard index outside `0..count`, or no shards.
    #[error("shard {index} of {count} does not exist")]
    NoSuchShard {
        /// The index asked for.
        index: u32,
        /// How many shards there are.
        count: u32,
    },
}

/// The field whose hash places an object in a shard.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ShardKey {
    /// `object.metadata.uid`: objects spread evenly, each on its own.
    #[default]
    Uid,
    /// `object.metadata.namespace`: a namespace's objects stay together (cluster-scoped
    /// objects all hash the empty string, so they land in one shard).
    Namespace,
}

impl ShardKey {
    /// The field path as the selector writes it.
    pub fn field_path(self) -> &'static str {
        match self {
            ShardKey::Uid => "object.metadata.uid",
            ShardKey::Namespace => "object.metadata.namespace",
        }
    }

    /// The value of this field in `meta` (empty when unset).
    pub fn value_of(self, meta: &ObjectMeta) -> &str {
        match self {
            ShardKey::Uid => meta.uid.as_deref(),
            ShardKey::Namespace => meta.namespace.as_deref(),
        }
        .unwrap_or_default()
    }

    fn from_path(path: &str) -> Option<Self> {
        [ShardKey::Uid, ShardKey::Namespace]
            .into_iter()
            .find(|key| key.field_path() == path)
    }
}

/// A half-open range `[start, end)` of the 64-bit hash space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ShardRange {
    start: u128,
    end: u128,
}

impl ShardRange {
    /// The range `[start, end)`; `None` unless `start < end <= 2^64`.
    pub fn new(start: u64, end: u128) -> Option<Self> {
        let start = u128::from(start);
        (start < end && end <= SPACE).then_some(Self { start, end })
    }

    /// Shard `index` of `count` even shards: `[index * 2^64 / count, (index + 1) * 2^64 /
    /// count)`, so the `count` ranges tile the space without gap or overlap.
    pub fn even(index: u32, count: u32) -> Result<Self, ShardError> {
        if index >= count {
            return Err(ShardError::NoSuchShard { index, count });
        }
        let bound = |i: u32| u128::from(i) * SPACE / u128::from(count);
        Ok(Self {
            start: bound(index),
            end: bound(index + 1),
        })
    }

    /// Whether `hash` lies in the range.
    pub fn contains(&self, hash: u64) -> bool {
        let hash = u128::from(hash);
        self.start <= hash && hash < self.end
    }

    /// The first hash in the range.
    pub fn start(&self) -> u64 {
        // `start < end <= 2^64`, so it fits.
        u64::try_from(self.start).unwrap_or(u64::MAX)
    }

    /// The first hash past the range (up to 2^64).
    pub fn end(&self) -> u128 {
        self.end
    }
}

/// KEP-5866's `shardSelector`: the objects whose key hashes into one of its ranges.
///
/// ```
/// use kubegen_runtime::shard::{ShardKey, ShardSelector};
///
/// let second_half = ShardSelector::even(ShardKey::Uid, 1, 2).unwrap();
/// assert_eq!(
///     second_half.to_string(),
///     "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')"
/// );
/// assert_eq!(second_half.to_string().parse::<ShardSelector>(), Ok(second_half));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ShardSelector {
    key: ShardKey,
    ranges: Vec<ShardRange>,
}

impl ShardSelector {
    /// The objects whose `key` hashes into one of `ranges` (none: no object).
    pub fn new(key: ShardKey, ranges: Vec<ShardRange>) -> Self {
        Self { key, ranges }
    }

    /// Shard `index` of `count` even shards over `key` (see [`ShardRange::even`]).
    pub fn even(key: ShardKey, index: u32, count: u32) -> Result<Self, ShardError> {
        Ok(Self::new(key, vec![ShardRange::even(index, count)?]))
    }

    /// The field hashed.
    pub fn key(&self) -> ShardKey {
        self.key
    }

    /// The ranges, any of which matches.
    pub fn ranges(&self) -> &[ShardRange] {
        &self.ranges
    }

    /// Whether an object whose key field holds `value` is in the shard.
    pub fn matches_value(&self, value: &str) -> bool {
        let hash = fnv1a_64(value.as_bytes());
        self.ranges.iter().any(|range| range.contains(hash))
    }

    /// Whether the object with this metadata is in the shard.
    pub fn matches(&self, meta: &ObjectMeta) -> bool {
        self.matches_value(self.key.value_of(meta))
    }
}

impl fmt::Display for ShardSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, range) in self.ranges.iter().enumerate() {
            if i > 0 {
                f.write_str(" || ")?;
            }
            write!(
                f,
                "shardRange({}, '0x{:016x}', '0x{:016x}')",
                self.key.field_path(),
                range.start,
                range.end
            )?;
        }
        Ok(())
    }
}

impl FromStr for ShardSelector {
    type Err = ShardError;

    fn from_str(input: &str) -> Result<Self, ShardError> {
        let error = |why: String| ShardError::Syntax {
            input: input.to_owned(),
            why,
        };
        let mut key = None;
        let mut ranges = Vec::new();
        for term in input.split("||") {
            let (term_key, range) = parse_term(term.trim()).map_err(error)?;
            if key.is_some_and(|k| k != term_key) {
                return Err(error("every shardRange must hash the same field".into()));
            }
            key = Some(term_key);
            ranges.push(range);
        }
        Ok(Self {
            key: key.unwrap_or_default(),
            ranges,
        })
    }
}

/// `shardRange(field, 'start', 'end')`.
fn parse_term(term: &str) -> Result<(ShardKey, ShardRange), String> {
    let arguments = term
        .strip_prefix("shardRange")
        .map(str::trim_start)
        .and_then(|rest| rest.strip_prefix('('))
        .and_then(|rest| rest.strip_suffix(')'))
        .ok_or_else(|| format!("expected shardRange(field, 'start', 'end'), found {term:?}"))?;
    let parts: Vec<&str> = arguments.split(',').map(str::trim).collect();
    let [path, start, end] = parts[..] else {
        return Err(format!(
            "shardRange takes 3 arguments (field, start, end), found {}",
            parts.len()
        ));
    };
    let key = ShardKey::from_path(path).ok_or_else(|| {
        format!(
            "unsupported field {path:?}: supported fields are {:?} and {:?}",
            ShardKey::Uid.field_path(),
            ShardKey::Namespace.field_path()
        )
    })?;
    let (start, end) = (parse_bound(start)?, parse_bound(end)?);
    let start =
        u64::try_from(start).map_err(|_| format!("the start {start:#x} is past the hash space"))?;
    let range = ShardRange::new(start, end).ok_or_else(|| {
        format!("the range [{start:#x}, {end:#x}) is empty or ends past 0x10000000000000000")
    })?;
    Ok((key, range))
}

/// `'0x1f'` (or double-quoted) as a number.
fn parse_bound(text: &str) -> Result<u128, String> {
    let unquoted = ['\'', '"']
        .into_iter()
        .find_map(|q| text.strip_prefix(q).and_then(|t| t.strip_suffix(q)))
        .ok_or_else(|| format!("expected a quoted hex bound like '0x0', found {text:?}"))?;
    let digits = unquoted
        .strip_prefix("0x")
        .or_else(|| unquoted.strip_prefix("0X"))
        .filter(|d| !d.is_empty() && d.len() <= 17)
        .ok_or_else(|| format!("expected 0x and 1 to 17 hex digits, found {unquoted:?}"))?;
    u128::from_str_radix(digits, 16).map_err(|_| format!("{unquoted:?} is not hexadecimal"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn even_shards_tile_the_hash_space() {
        for count in [1u32, 2, 3, 4, 7, 16] {
            let ranges: Vec<ShardRange> = (0..count)
                .map(|i| ShardRange::even(i, count).unwrap())
                .collect();
            assert_eq!(ranges[0].start, 0);
            assert_eq!(ranges[ranges.len() - 1].end, SPACE);
            for pair in ranges.windows(2) {
                assert_eq!(pair[0].end, pair[1].start, "{count} shards");
            }
        }
        assert_eq!(
            ShardRange::even(4, 4),
            Err(ShardError::NoSuchShard { index: 4, count: 4 })
        );
        assert!(ShardRange::even(0, 0).is_err());
    }

    #[test]
    fn every_hash_is_in_exactly_one_of_the_shards() {
        let selectors: Vec<ShardSelector> = (0..4)
            .map(|i| ShardSelector::even(ShardKey::Uid, i, 4).unwrap())
            .collect();
        for i in 0..2000 {
            let uid = format!("6c3c1d2e-0000-4000-8000-{i:012}");
            let owners = selectors.iter().filter(|s| s.matches_value(&uid)).count();
            assert_eq!(owners, 1, "{uid}");
        }
        for hash in [0, 1, u64::MAX / 4, u64::MAX / 2, u64::MAX - 1, u64::MAX] {
            let owners = selectors
                .iter()
                .filter(|s| s.ranges[0].contains(hash))
                .count();
            assert_eq!(owners, 1, "{hash:#x}");
        }
    }

    #[test]
    fn objects_are_placed_by_the_fnv_hash_of_their_key() {
        // fnv1a_64("default") = 0xebada5168620c5fe: the last of 4 shards, the second of 2.
        let meta = ObjectMeta {
            namespace: Some("default".into()),
            uid: Some("6c3c1d2e-0000-4000-8000-000000000001".into()),
            ..ObjectMeta::default()
        };
        let by_namespace = |i, n| ShardSelector::even(ShardKey::Namespace, i, n).unwrap();
        assert!(by_namespace(3, 4).matches(&meta));
        assert!(!by_namespace(2, 4).matches(&meta));
        assert!(by_namespace(1, 2).matches(&meta));
        // fnv1a_64 of that uid = 0x7886d85717bda557: the second of 4 shards.
        let by_uid = |i, n| ShardSelector::even(ShardKey::Uid, i, n).unwrap();
        assert!(by_uid(1, 4).matches(&meta));
        assert!(!by_uid(0, 4).matches(&meta));
    }

    #[test]
    fn parses_the_kep_syntax_and_prints_it_back() {
        let text = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
        let selector: ShardSelector = text.parse().unwrap();
        assert_eq!(selector.key(), ShardKey::Uid);
        assert_eq!(selector.ranges(), &[ShardRange::new(0, 1 << 63).unwrap()]);
        assert_eq!(selector.to_string(), text);

        let two = "shardRange( object.metadata.namespace ,\"0x0\",'0x4000000000000000' ) || shardRange(object.metadata.namespace, '0xc000000000000000', '0x10000000000000000')";
        let selector: ShardSelector = two.parse().unwrap();
        assert_eq!(selector.key(), ShardKey::Namespace);
        assert_eq!(selector.ranges().len(), 2);
        assert_eq!(selector.ranges()[1].end(), SPACE);
        assert_eq!(selector.to_string().parse::<ShardSelector>(), Ok(selector));
    }

    #[test]
    fn malformed_selectors_say_what_is_wrong() {
        let why = |text: &str| match text.parse::<ShardSelector>() {
            Err(ShardError::Syntax { why, .. }) => why,
            other => panic!("{text}: expected a syntax error, got {other:?}"),
        };
        assert!(why("").contains("expected shardRange"));
        assert!(why("shardRange(object.metadata.uid, '0x0')").contains("3 arguments"));
        assert!(
            why("shardRange(object.metadata.name, '0x0', '0x1')").contains("unsupported field")
        );
        assert!(why("shardRange(object.metadata.uid, 0x0, '0x1')").contains("quoted"));
        assert!(why("shardRange(object.metadata.uid, '0xzz', '0x1')").contains("not hexadecimal"));
        assert!(why("shardRange(object.metadata.uid, '0x5', '0x5')").contains("empty"));
        assert!(
            why("shardRange(object.metadata.uid, '0x0', '0x10000000000000001')").contains("past")
        );
        assert!(
            why("shardRange(object.metadata.uid, '0x0', '0x1') || shardRange(object.metadata.namespace, '0x0', '0x1')")
                .contains("same field")
        );
        assert!(
            why("shardRange(object.metadata.uid, '0x0', '0x1') ||").contains("expected shardRange")
        );
    }
}
