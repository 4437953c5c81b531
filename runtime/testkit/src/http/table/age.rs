//! Ages as `kubectl get` shows them: apimachinery's `HumanDuration` of the time since a
//! timestamp.

/// Seconds since the Unix epoch of an RFC 3339 timestamp as the API serializes them
/// (`2024-01-02T03:04:05Z`, optionally with fractional seconds or an offset).
pub(crate) fn parse_rfc3339(text: &str) -> Option<i64> {
    let bytes = text.as_bytes();
    if bytes.len() < 20 || bytes[4] != b'-' || bytes[7] != b'-' || !matches!(bytes[10], b'T' | b't')
    {
        return None;
    }
    let number = |range: std::ops::Range<usize>| text.get(range)?.parse::<i64>().ok();
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    let (hour, minute, second) = (number(11..13)?, number(14..16)?, number(17..19)?);
    let mut rest = &text[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        rest = &fraction[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first() {
                Some(b'+') => 1,
                Some(b'-') => -1,
                _ => return None,
            };
            let hours: i64 = rest.get(1..3)?.parse().ok()?;
            let minutes: i64 = rest.get(4..6)?.parse().ok()?;
            sign * (hours * 3600 + minutes * 60)
        }
    };
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hour * 3600 + minute * 60 + second - offset)
}

/// apimachinery's `duration.HumanDuration`: `45s`, `3m20s`, `15m`, `5h30m`, `2d3h`, `1y20d`.
pub(crate) fn human_duration(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".to_owned();
    }
    if seconds < 0 {
        return "0s".to_owned();
    }
    if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = seconds / 3600;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 {
            format!("{}d", hours / 24)
        } else {
            format!("{}d{h}h", hours / 24)
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let days = (hours / 24) % 365;
        return if days == 0 {
            format!("{}y", hours / 24 / 365)
        } else {
            format!("{}y{days}d", hours / 24 / 365)
        };
    }
    format!("{}y", hours / 24 / 365)
}

/// The age of a timestamp at `now` (seconds since the epoch), `<unknown>` when absent
/// or unparsable, as kubectl's `translateTimestampSince` prints it.
pub(crate) fn since(timestamp: Option<&str>, now: i64) -> String {
    match timestamp.and_then(parse_rfc3339) {
        Some(then) => human_duration(now - then),
        None => "<unknown>".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_parse_as_the_api_writes_them() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_rfc3339("2024-02-29T23:59:59Z"), Some(1_709_251_199));
        assert_eq!(
            parse_rfc3339("2024-02-29T23:59:59.123456Z"),
            Some(1_709_251_199)
        );
        assert_eq!(
            parse_rfc3339("2024-03-01T01:59:59+02:00"),
            Some(1_709_251_199)
        );
        assert_eq!(parse_rfc3339("yesterday"), None);
        assert_eq!(parse_rfc3339("2024-13-01T00:00:00Z"), None);
    }

    #[test]
    fn durations_read_like_kubectl() {
        let cases = [
            (-5, "<invalid>"),
            (-1, "0s"),
            (0, "0s"),
            (119, "119s"),
            (120, "2m"),
            (200, "3m20s"),
            (600, "10m"),
            (179 * 60, "179m"),
            (3 * 3600, "3h"),
            (5 * 3600 + 30 * 60, "5h30m"),
            (30 * 3600, "30h"),
            (2 * 86_400, "2d"),
            (2 * 86_400 + 3 * 3600, "2d3h"),
            (100 * 86_400, "100d"),
            (3 * 365 * 86_400 + 20 * 86_400, "3y20d"),
            (9 * 365 * 86_400, "9y"),
        ];
        for (seconds, expected) in cases {
            assert_eq!(human_duration(seconds), expected, "{seconds}s");
        }
        assert_eq!(since(None, 0), "<unknown>");
        assert_eq!(since(Some("1970-01-01T00:00:00Z"), 90), "90s");
    }
}
