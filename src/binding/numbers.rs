//! Exact comparison of JSON numbers, shared by the form subset reader, the
//! answer checks and the compatible schema policy.

use std::cmp::Ordering;

use serde_json::Number;

/// A number as f64 (for display and arithmetic; comparisons use
/// [`cmp_numbers`], which is exact).
pub fn num_f64(n: &Number) -> f64 {
    n.as_f64().unwrap_or(f64::NAN)
}

/// Compare two JSON numbers exactly: integers (i64 and u64, widened to
/// i128) as integers, an integer with a float by the float's exact value,
/// two floats as floats. None only when a float is NaN (serde_json never
/// makes one). So `9007199254740993 > 9007199254740992` holds, which
/// comparing as f64 loses.
pub fn cmp_numbers(a: &Number, b: &Number) -> Option<Ordering> {
    match (as_i128(a), as_i128(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        (Some(x), None) => cmp_int_float(x, b.as_f64()?),
        (None, Some(y)) => cmp_int_float(y, a.as_f64()?).map(Ordering::reverse),
        (None, None) => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

fn as_i128(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// Compare integer `i` with float `f` exactly.
fn cmp_int_float(i: i128, f: f64) -> Option<Ordering> {
    use Ordering::*;
    // 2^127: every float below it in size converts to i128 exactly once
    // floored (a float that large is already whole).
    const LIMIT: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;
    if f.is_nan() {
        return None;
    }
    if f >= LIMIT {
        return Some(Less);
    }
    if f < -LIMIT {
        return Some(Greater);
    }
    let whole = f.floor();
    Some(match i.cmp(&(whole as i128)) {
        Equal if f > whole => Less,
        o => o,
    })
}

/// Whether `n` is an integer in the JSON Schema sense (`5` and `5.0` are).
pub fn is_integer(n: &Number) -> bool {
    n.is_i64()
        || n.is_u64()
        || n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering::{Equal, Greater, Less};

    fn n(s: &str) -> Number {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn numbers_compare_exactly() {
        let cases = [
            ("9007199254740993", "9007199254740992", Greater),
            ("9007199254740992", "9007199254740993", Less),
            ("9007199254740993", "9007199254740992.0", Greater),
            ("9007199254740992.0", "9007199254740993", Less),
            ("18446744073709551615", "18446744073709551614", Greater),
            ("18446744073709551615", "-9223372036854775808", Greater),
            ("-9223372036854775808", "-9223372036854775807", Less),
            ("3", "2.5", Greater),
            ("-3", "-2.5", Less),
            ("2", "2.0", Equal),
            ("-2", "-2.0", Equal),
            ("18446744073709551615", "1e300", Less),
            ("-1", "-1e300", Greater),
            ("0.5", "0.25", Greater),
        ];
        for (a, b, want) in cases {
            assert_eq!(cmp_numbers(&n(a), &n(b)), Some(want), "{a} vs {b}");
        }
    }

    #[test]
    fn integers_in_the_json_schema_sense() {
        assert!(is_integer(&n("5")));
        assert!(is_integer(&n("5.0")));
        assert!(is_integer(&n("-9223372036854775808")));
        assert!(!is_integer(&n("5.5")));
    }
}
