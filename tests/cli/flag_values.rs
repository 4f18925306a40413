//! Every numeric flag takes any text without panicking: a value is either
//! used or refused with a usage error (exit 2), never exit 101.

use proptest::prelude::*;

use crate::common;

/// Command lines whose last argument is a numeric flag's value. Each would
/// otherwise end at once: no request on stdin (respond), a missing request
/// file (demo; it stops before opening a terminal).
fn command_lines(value: &str) -> Vec<Vec<String>> {
    let v = value.to_owned();
    vec![
        vec![
            "respond".into(),
            "--action".into(),
            "decline".into(),
            "--timeout".into(),
            v.clone(),
        ],
        vec![
            "demo".into(),
            "--request".into(),
            "/nonexistent/ahp-elicit-flag-test.json".into(),
            format!("--timeout={v}"),
        ],
    ]
}

fn number_like() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<f64>().prop_map(|x| x.to_string()),
        any::<i64>().prop_map(|x| x.to_string()),
        "[-+]?[0-9]{0,25}(\\.[0-9]{0,12})?([eE][-+]?[0-9]{1,4})?( ?(ms|s|m|h|d|ns|us|y|w))?",
        prop::sample::select(vec![
            "NaN",
            "nan",
            "inf",
            "-inf",
            "infinity",
            "+Infinity",
            "-0",
            "0.0",
            "1e-320",
            "18446744073709551616",
            "1e308",
            "1.7976931348623157e308",
            "9999999999999s",
            "584942417355y",
            "1.5",
            "2m",
            "",
        ])
        .prop_map(str::to_owned),
        "[^\\x00]{0,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn numeric_flags_never_panic(value in number_like()) {
        for args in command_lines(&value) {
            let (code, _, err) = common::run(&args, b"").parts();
            prop_assert!(!err.contains("panicked"), "{args:?}: {err}");
            prop_assert!(matches!(code, Some(0..=2)), "{args:?}: exit {code:?}: {err}");
        }
    }
}

#[test]
fn a_bad_timeout_is_a_usage_error_naming_the_value() {
    for v in ["NaN", "inf", "-1", "0"] {
        for args in command_lines(v) {
            let (code, _, err) = common::run(&args, b"").parts();
            assert_eq!(code, Some(2), "{args:?}: {err}");
            assert!(err.contains("--timeout"), "{args:?}: {err}");
            assert!(err.contains(&format!("'{v}'")), "{args:?}: {err}");
        }
    }
    // Good values are taken: respond then reads its (empty) input and ends.
    for v in ["120", "2m", "1.5s"] {
        let (code, _, err) = common::run(&command_lines(v)[0], b"").parts();
        assert_eq!(code, Some(0), "{v}: {err}");
    }
}
