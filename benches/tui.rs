//! Terminal responder benchmarks:
//! - `select_10k_key_and_redraw`: one key handled and the whole form redrawn
//!   (80x24 `TestBackend`) in a single select of 10,000 options with a
//!   type-to-filter active;
//! - `select_10k_filter_key_and_redraw`: the same with the key changing the
//!   filter (a character typed, then taken back), so the 10,000 options are
//!   searched again;
//! - `first_frame_every_kind`: process start to the first full frame of
//!   `ahp-elicit demo` (the every-kind form) in a real pseudo-terminal,
//!   measured until the last line of the screen (the key help) has been
//!   drawn.
//!
//! Peak memory of `demo` is measured by `benches/peak_memory.sh`.

use std::time::{Duration, Instant};

use ahp_elicit::binding::{
    read_request, wrap_request, ReadOptions, RequestBody, Server, WrapOptions,
};
use ahp_elicit::form::{Form, Key};
use ahp_elicit::responder::Progress;
use ahp_elicit::tui::theme::Theme;
use ahp_elicit::tui::view::{draw_form, Header};
use criterion::{criterion_group, criterion_main, Criterion};
use expectrl::Expect;
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::json;

fn big_select_form() -> (Form, Header) {
    let options: Vec<String> = (0..10_000).map(|i| format!("option-{i:05}")).collect();
    let params = json!({
        "message": "Pick one of many",
        "requestedSchema": {"type": "object", "properties": {
            "pick": {"type": "string", "title": "Pick", "enum": options}
        }, "required": ["pick"]}
    });
    let server = Server {
        name: "bench".into(),
        title: None,
        version: None,
    };
    let req = wrap_request(
        &params,
        &WrapOptions {
            time: Some("2026-11-30T09:00:00Z"),
            ..WrapOptions::new(&server, "bench", "evt-bench")
        },
    )
    .expect("valid");
    let req = read_request(req.event, ReadOptions::default()).expect("valid");
    let RequestBody::Form(schema) = &req.view.request().unwrap().body else {
        unreachable!()
    };
    let mut form = Form::new(schema, "Pick one of many");
    // Activate the filter: typing in a list of 10 or more options filters it.
    for c in "option-0".chars() {
        form.handle_key(&Key::Char(c));
    }
    let header = Header::of(&req, Progress::of(1, 1));
    (form, header)
}

fn select_10k(c: &mut Criterion) {
    let (mut form, header) = big_select_form();
    let theme = Theme::resolve(Some("default"), false).unwrap();
    let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let mut scroll = 0usize;
    let mut down = true;
    c.bench_function("select_10k_key_and_redraw", |b| {
        b.iter(|| {
            form.handle_key(if down { &Key::Down } else { &Key::Up });
            down = !down;
            term.draw(|f| draw_form(f, &theme, &header, &form, &mut scroll))
                .unwrap();
        })
    });
}

/// One filter keystroke and the redraw: the filter alternates between
/// `option-0` and `option-01` (a character typed, then taken back with
/// Backspace), so every other key widens the filter and the whole list of
/// 10,000 options is searched again.
fn select_10k_filter(c: &mut Criterion) {
    let (mut form, header) = big_select_form();
    let theme = Theme::resolve(Some("default"), false).unwrap();
    let mut term = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let mut scroll = 0usize;
    let mut typed = false;
    c.bench_function("select_10k_filter_key_and_redraw", |b| {
        b.iter(|| {
            form.handle_key(if typed {
                &Key::Backspace
            } else {
                &Key::Char('1')
            });
            typed = !typed;
            term.draw(|f| draw_form(f, &theme, &header, &form, &mut scroll))
                .unwrap();
        })
    });
}

fn first_frame(c: &mut Criterion) {
    let bin = env!("CARGO_BIN_EXE_ahp-elicit");
    let mut g = c.benchmark_group("startup");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("first_frame_every_kind", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let mut cmd = std::process::Command::new("sh");
                cmd.arg("-c").arg(format!(
                    "stty rows 24 cols 80 && exec '{bin}' demo > /dev/null"
                ));
                cmd.env("TERM", "xterm-256color").env_remove("NO_COLOR");
                let start = Instant::now();
                let mut p = expectrl::session::Session::spawn(cmd).expect("spawn in a pty");
                p.get_process_mut().set_window_size(80, 24).ok();
                p.set_expect_timeout(Some(Duration::from_secs(10)));
                // Answer the background query (OSC 11, then device
                // attributes) as a dark xterm does: every terminal answers
                // the latter, and unanswered the screen would wait the
                // query's whole timeout.
                p.expect("\x1b[c").expect("background query");
                p.send("\x1b]11;rgb:1e1e/1e1e/2e2e\x07\x1b[?62;22c").ok();
                // The help line is the last row drawn in the first frame.
                p.expect("Esc cancel").expect("first frame");
                total += start.elapsed();
                p.send("\x1b").ok();
                p.expect(expectrl::Eof).ok();
            }
            total
        })
    });
    g.finish();
}

criterion_group!(benches, select_10k, select_10k_filter, first_frame);
criterion_main!(benches);
