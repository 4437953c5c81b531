//! Object metadata helpers: timestamps, uids, generated names, name validation and
//! dotted-path access.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};

/// Label keys and values follow the rules label selectors check, from one place.
pub(crate) use kubegen_runtime::labels::validation::{
    label_value_error, qualified_name_error, subdomain_error,
};

/// The current time in RFC 3339 (UTC, seconds), as `metav1.Time` serializes.
pub(crate) fn now_rfc3339() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    format_rfc3339(secs)
}

/// Formats seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub(crate) fn format_rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// A random RFC 4122 version 4 uid.
pub(crate) fn new_uid() -> String {
    let bits: u128 = rand::random();
    let bits = (bits & !(0xf << 76) | (0x4 << 76)) & !(0x3 << 62) | (0x2 << 62);
    let hex = format!("{bits:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// The five random characters `generateName` gets, from apimachinery's alphabet.
pub(crate) fn name_suffix() -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    (0..5)
        .map(|_| ALPHABET[rand::random_range(0..ALPHABET.len())] as char)
        .collect()
}

/// Why `name` is not a DNS-1123 label (used for namespaces), if not.
pub(crate) fn label_error(name: &str) -> Option<String> {
    if name.len() > 63 || name.contains('.') {
        return Some("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')".to_owned());
    }
    subdomain_error(name)
}

/// The value at a dotted path (`spec.replicas`), if present.
pub(crate) fn get_path<'a>(object: &'a Value, path: &str) -> Option<&'a Value> {
    path.trim_start_matches('.')
        .split('.')
        .try_fold(object, |current, segment| current.get(segment))
}

/// Sets the value at a dotted path, creating intermediate objects.
pub(crate) fn set_path(object: &mut Value, path: &str, value: Value) {
    let mut current = object;
    let segments: Vec<&str> = path.trim_start_matches('.').split('.').collect();
    for (i, segment) in segments.iter().enumerate() {
        if !current.is_object() {
            *current = Value::Object(Map::new());
        }
        let Value::Object(map) = current else { return };
        if i + 1 == segments.len() {
            map.insert((*segment).to_owned(), value);
            return;
        }
        current = map
            .entry((*segment).to_owned())
            .or_insert_with(|| json!({}));
    }
}

/// Standard base64 (with padding), as `Secret.data` carries bytes.
pub(crate) fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A string field of `metadata`.
pub(crate) fn meta_str<'a>(object: &'a Value, field: &str) -> Option<&'a str> {
    object.get("metadata")?.get(field)?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_formatting() {
        assert_eq!(format_rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_rfc3339(1_709_251_199), "2024-02-29T23:59:59Z");
    }

    #[test]
    fn uids_are_version_4() {
        let uid = new_uid();
        assert_eq!(uid.len(), 36);
        assert_eq!(&uid[14..15], "4");
        assert!(matches!(&uid[19..20], "8" | "9" | "a" | "b"));
    }

    #[test]
    fn base64_matches_the_standard() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn names_are_validated() {
        assert!(subdomain_error("web-1.example").is_none());
        assert!(subdomain_error("Bad_Name").is_some());
        assert!(label_error("a.b").is_some());
    }

    #[test]
    fn dotted_paths() {
        let mut object = json!({});
        set_path(&mut object, ".spec.replicas", json!(3));
        assert_eq!(get_path(&object, "spec.replicas"), Some(&json!(3)));
    }
}
