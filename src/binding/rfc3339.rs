//! The JSON Schema formats `date` and `date-time` (RFC 3339 `full-date`
//! and `date-time`), checked without building a schema validator: the
//! event's `time` is read before a first frame, and building the
//! `jsonschema` format checker (with the meta-schema check of its one-line
//! schema) cost more than the rest of reading the request.
//!
//! The rules are the ones the `jsonschema` crate applies for these formats,
//! so a value is accepted here exactly when the full reading accepts it
//! (the unit tests compare both on every case and on generated strings):
//!
//! - `date`: `YYYY-MM-DD`, ten ASCII digits and dashes, month 01–12, day
//!   01 to the month's last day (29 February in leap years only);
//! - `date-time`: a `date`, `T` or `t`, then `HH:MM:SS` (hour 00–23, minute
//!   00–59, second 00–60), an optional fraction (`.` and at least one
//!   digit), and `Z`, `z` or a `+HH:MM`/`-HH:MM` offset (hour 00–23, minute
//!   00–59). A leap second (`:60`) is accepted only at 23:59 UTC, the
//!   offset applied.

/// Two ASCII digits as a number.
fn two(b: &[u8]) -> Option<i16> {
    match b {
        [a @ b'0'..=b'9', c @ b'0'..=b'9'] => Some(i16::from(a - b'0') * 10 + i16::from(c - b'0')),
        _ => None,
    }
}

/// Whether `s` is an RFC 3339 `full-date` (the `date` format).
pub(crate) fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(hi), Some(lo)) = (two(&b[0..2]), two(&b[2..4])) else {
        return false;
    };
    let year = hi * 100 + lo;
    let (Some(month), Some(day)) = (two(&b[5..7]), two(&b[8..10])) else {
        return false;
    };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let last = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=last).contains(&day)
}

/// Whether `s` is an RFC 3339 `full-time` (`HH:MM:SS[.frac]` and an
/// offset), with the leap second at 23:59 UTC only.
fn is_time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) = (two(&b[0..2]), two(&b[3..5]), two(&b[6..8]))
    else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut i = 8;
    if b[i] == b'.' {
        let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return false;
        }
        i += 1 + digits;
    }
    let Some(&sign) = b.get(i) else {
        return false;
    };
    let (utc_hour, utc_minute) = match sign {
        b'Z' | b'z' if i + 1 == b.len() => (hour, minute),
        b'+' | b'-' if b.len() - i == 6 && b[i + 3] == b':' => {
            let (Some(oh), Some(om)) = (two(&b[i + 1..i + 3]), two(&b[i + 4..i + 6])) else {
                return false;
            };
            if oh > 23 || om > 59 {
                return false;
            }
            // UTC is the local time less a `+` offset, plus a `-` one.
            let offset = if sign == b'+' {
                oh * 60 + om
            } else {
                -(oh * 60 + om)
            };
            let utc = (hour * 60 + minute - offset).rem_euclid(24 * 60);
            (utc / 60, utc % 60)
        }
        _ => return false,
    };
    second != 60 || (utc_hour == 23 && utc_minute == 59)
}

/// Whether `s` is an RFC 3339 `date-time` (the `date-time` format): a
/// `date`, `T` or `t`, and a time with its offset.
pub(crate) fn is_date_time(s: &str) -> bool {
    match s.bytes().position(|c| c == b'T' || c == b't') {
        Some(t) => is_date(&s[..t]) && is_time(&s[t + 1..]),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The `jsonschema` crate's verdict for `format` on `s`: the reference.
    fn reference(format: &str, s: &str) -> bool {
        jsonschema::options()
            .should_validate_formats(true)
            .build(&serde_json::json!({"type": "string", "format": format}))
            .expect("a one-keyword format schema builds")
            .is_valid(&serde_json::Value::String(s.to_owned()))
    }

    const DATES: &[&str] = &[
        "2026-12-05",
        "2024-02-29",
        "2023-02-29",
        "2000-02-29",
        "1900-02-29",
        "2026-04-31",
        "2026-13-01",
        "2026-00-10",
        "2026-01-00",
        "2026-1-01",
        "2026/01/01",
        "20260101",
        "0000-01-01",
        "9999-12-31",
        "2026-01-0a",
        "२०२६-01-01",
        "",
    ];

    const DATE_TIMES: &[&str] = &[
        "2026-12-05T07:00:00Z",
        "2026-12-05t07:00:00z",
        "2026-12-05T07:00:00.123456Z",
        "2026-12-05T07:00:00.Z",
        "2026-12-05T07:00:00+01:00",
        "2026-12-05T07:00:00-23:59",
        "2026-12-05T07:00:00+24:00",
        "2026-12-05T07:00:00+01:60",
        "2026-12-05T07:00:00+0100",
        "2026-12-05T07:00:00",
        "2026-12-05 07:00:00Z",
        "2026-12-05T24:00:00Z",
        "2026-12-05T23:60:00Z",
        "2026-12-05T23:59:60Z",
        "2026-12-05T22:59:60Z",
        "2026-12-05T23:59:61Z",
        "2026-12-05T00:59:60+01:00",
        "2026-12-05T22:59:60-01:00",
        "2026-12-05T23:59:60+01:00",
        "2026-12-05T00:00:60-00:01",
        "2026-12-05T7:00:00Z",
        "2026-12-05T07:00:00ZZ",
        "2026-12-05T07:00:00.5+01:00x",
        "2026-12-05TT07:00:00Z",
        "2026-02-30T07:00:00Z",
        "T07:00:00Z",
        "2026-12-05T",
        "2026-12-05T07:00:00+01:00:00",
    ];

    #[test]
    fn dates_agree_with_the_jsonschema_crate() {
        for s in DATES {
            assert_eq!(is_date(s), reference("date", s), "{s:?}");
        }
    }

    #[test]
    fn date_times_agree_with_the_jsonschema_crate() {
        for s in DATE_TIMES.iter().chain(DATES) {
            assert_eq!(is_date_time(s), reference("date-time", s), "{s:?}");
        }
        assert!(is_date_time("2026-12-05T23:59:60Z"));
        assert!(is_date_time("2026-12-05T00:59:60+01:00"));
        assert!(!is_date_time("2026-12-05T23:59:60+01:00"));
    }

    proptest! {
        /// Strings shaped like dates and date-times, each character a
        /// digit, a separator or a letter the grammar names.
        #[test]
        fn generated_strings_agree(
            s in "[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt ]([0-9]{1,2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{0,3})?([Zz]|[+-][0-9]{2}:[0-9]{2})?)?)?"
        ) {
            prop_assert_eq!(is_date(&s), reference("date", &s));
            prop_assert_eq!(is_date_time(&s), reference("date-time", &s));
        }

        #[test]
        fn near_leap_seconds_agree(
            h in 0u8..24, m in 0u8..60, oh in 0u8..24, om in 0u8..60, plus in any::<bool>()
        ) {
            let s = format!(
                "2026-12-31T{h:02}:{m:02}:60{}{oh:02}:{om:02}",
                if plus { '+' } else { '-' }
            );
            prop_assert_eq!(is_date_time(&s), reference("date-time", &s));
        }
    }
}
