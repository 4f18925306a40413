use super::*;
use crate::respond::input::{spawn_split, Budget, READ_AHEAD};

/// Declines every request, noting how far ahead "request N of M" saw.
struct Counting {
    ahead: Vec<usize>,
}

impl Responder for Counting {
    fn respond(
        &mut self,
        _req: &crate::binding::RequestEvent,
        cx: &Context,
    ) -> Result<Outcome, RespondError> {
        self.ahead.push(cx.progress.total - cx.progress.index);
        Ok(Outcome::Answer(Answer::bare(Action::Decline)))
    }
}

/// A script's run: both modes, strict, no timeout, notices to stderr.
fn test_config() -> Config {
    Config {
        source_adapter: "test".into(),
        timeout: None,
        modes: vec![Mode::Form, Mode::Url],
        schema_policy: SchemaPolicy::Strict,
        interactive: false,
        catch_signals: false,
        notices: Notices::stderr(),
    }
}

#[test]
fn a_flood_is_answered_whole_with_a_bounded_queue() {
    let req = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/form-confirm-mode-omitted.request.json"
    ))
    .unwrap();
    let line = serde_json::from_str::<serde_json::Value>(&req)
        .unwrap()
        .to_string();
    let n = 3 * READ_AHEAD + 17;
    let input = format!("{line}\n").repeat(n);
    let rx = spawn_split(
        Box::new(std::io::Cursor::new(input.into_bytes())),
        std::sync::Arc::new(Budget::default()),
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");
    let mut sink = Sink::open(Some(&out)).unwrap();
    let config = test_config();
    let mut r = Counting { ahead: Vec::new() };
    let tally = drive(rx, &mut r, &mut sink, &config, None);
    drop(sink);
    assert_eq!(tally.answered, n);
    assert_eq!(tally.failed, 0);
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), n);
    assert_eq!(r.ahead.len(), n);
    let most = r.ahead.iter().copied().max().unwrap_or(0);
    assert!(
        most <= READ_AHEAD,
        "the queue stays within its bound: {most}"
    );
    assert_eq!(r.ahead.last(), Some(&0), "the last one knows it is last");
}

/// One request event line with id `id` (a yes/no form).
fn request_line(id: &str) -> Vec<u8> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/form-confirm-mode-omitted.request.json"
    ))
    .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["id"] = serde_json::Value::String(id.into());
    v.to_string().into_bytes()
}

fn event(line: usize, id: &str) -> Item {
    Item::Event {
        line,
        bytes: request_line(id),
        held: crate::respond::input::Held::default(),
    }
}

/// What a scripted responder does with one request.
#[derive(Clone, Copy)]
enum Script {
    Decline,
    /// Cancel at the request's deadline, as the terminal does (at once when
    /// there is none).
    CancelAtDeadline,
    /// The person quits (Ctrl-C twice).
    Quit,
    /// The answer is refused, with this reason.
    Refuse(&'static str),
}

/// Answers each request as its script says (by event id; decline when not
/// listed), notes what it saw, and can end the input while it answers.
struct Scripted {
    script: Vec<(&'static str, Script)>,
    seen: Vec<(String, Progress, Option<Duration>)>,
    /// Dropped while the first request is answered: the input ends then.
    input: Option<mpsc::Sender<Item>>,
    /// The run's notices, collected (sanitized text).
    said: Vec<String>,
}

impl Responder for Scripted {
    fn respond(&mut self, req: &RequestEvent, cx: &Context) -> Result<Outcome, RespondError> {
        self.input = None;
        let left = cx
            .deadline
            .map(|d| d.saturating_duration_since(Instant::now()));
        self.seen.push((req.id.clone(), cx.progress, left));
        let what = self
            .script
            .iter()
            .find(|(id, _)| *id == req.id)
            .map_or(Script::Decline, |(_, s)| *s);
        match what {
            Script::Decline => Ok(Outcome::Answer(Answer::bare(Action::Decline))),
            Script::CancelAtDeadline => {
                if let Some(d) = cx.deadline {
                    std::thread::sleep(d.saturating_duration_since(Instant::now()));
                }
                Ok(Outcome::Answer(Answer::bare(Action::Cancel)))
            }
            Script::Quit => Ok(Outcome::Quit),
            Script::Refuse(why) => Err(RespondError::Refused(why.into())),
        }
    }
}

/// Run the loop over `items` (sent before it starts, the channel left open
/// when `keep_open`), returning the tally, the result lines as
/// `(parentEventId, action)` and what the responder saw.
fn run_items(
    items: Vec<Item>,
    script: Vec<(&'static str, Script)>,
    timeout: Option<Duration>,
    keep_open: bool,
) -> (Tally, Vec<(String, String)>, Scripted) {
    let (tx, rx) = mpsc::channel(READ_AHEAD);
    for it in items {
        tx.try_send(it).unwrap();
    }
    let mut r = Scripted {
        script,
        seen: Vec::new(),
        input: keep_open.then_some(tx),
        said: Vec::new(),
    };
    let (notices, kept) = Notices::collect();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");
    let mut sink = Sink::open(Some(&out)).unwrap();
    let config = Config {
        timeout,
        notices,
        ..test_config()
    };
    let tally = drive(rx, &mut r, &mut sink, &config, None);
    r.said = kept.texts();
    drop(sink);
    let results = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let parent = v["parentEventId"].as_str().unwrap().to_owned();
            let action = v["payload"]["elicitation"]["action"].as_str().unwrap();
            (parent, action.to_owned())
        })
        .collect();
    (tally, results, r)
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn the_input_ending_mid_request_still_answers_every_request_read() {
    let items = vec![event(1, "a"), event(2, "b")];
    // The responder ends the input while it answers "a".
    let (tally, results, r) = run_items(items, Vec::new(), None, true);
    assert_eq!(results, pairs(&[("a", "decline"), ("b", "decline")]));
    assert_eq!(
        tally,
        Tally {
            answered: 2,
            failed: 0,
            fatal: false,
            quit: false,
            signal: None
        }
    );
    let progress: Vec<Progress> = r.seen.iter().map(|s| s.1).collect();
    assert_eq!(
        progress,
        vec![
            Progress { index: 1, total: 2 },
            Progress { index: 2, total: 2 }
        ]
    );
}

#[test]
fn a_source_error_ends_the_run_after_the_requests_before_it() {
    let items = vec![
        event(1, "a"),
        Item::Bad {
            line: 2,
            message: "not a JSON event".into(),
        },
        Item::ReadError(std::io::Error::other("the disk went away")),
        event(4, "c"),
    ];
    let (tally, results, r) = run_items(items, Vec::new(), None, false);
    assert_eq!(results, pairs(&[("a", "decline")]));
    assert_eq!(
        tally,
        Tally {
            answered: 1,
            failed: 1,
            fatal: true,
            quit: false,
            signal: None
        }
    );
    assert_eq!(r.seen.len(), 1, "c is never put to the responder");
}

#[test]
fn a_timed_out_request_is_cancelled_and_the_stream_goes_on() {
    let items = vec![event(1, "slow"), event(2, "next")];
    let timeout = Duration::from_millis(30);
    let script = vec![("slow", Script::CancelAtDeadline)];
    let (tally, results, r) = run_items(items, script, Some(timeout), false);
    assert_eq!(results, pairs(&[("slow", "cancel"), ("next", "decline")]));
    assert_eq!((tally.answered, tally.failed, tally.fatal), (2, 0, false));
    // Each request gets its own deadline, at most --timeout away.
    for (id, _, left) in &r.seen {
        let left = left.unwrap_or_else(|| panic!("{id} has a deadline"));
        assert!(left <= timeout, "{id}: {left:?}");
    }
}

#[test]
fn a_quit_cancels_the_rest_unseen() {
    let items = vec![event(1, "a"), event(2, "b"), event(3, "c")];
    let script = vec![("a", Script::Quit)];
    let (tally, results, r) = run_items(items, script, None, false);
    assert_eq!(
        results,
        pairs(&[("a", "cancel"), ("b", "cancel"), ("c", "cancel")])
    );
    assert_eq!(
        tally,
        Tally {
            answered: 3,
            failed: 0,
            fatal: false,
            quit: true,
            signal: None
        }
    );
    let seen: Vec<&str> = r.seen.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(seen, vec!["a"], "b and c never reach the responder");
}

#[test]
fn an_invalid_request_gets_an_error_and_the_next_its_result() {
    let mut bad = request_line("bad");
    // An envelope the binding refuses: no `type`.
    let text = String::from_utf8(bad.clone()).unwrap();
    bad = text
        .replace("\"type\":\"user.elicitation.request\",", "")
        .into_bytes();
    let items = vec![
        Item::Event {
            line: 1,
            bytes: bad,
            held: crate::respond::input::Held::default(),
        },
        event(2, "good"),
    ];
    let (tally, results, r) = run_items(items, Vec::new(), None, false);
    assert_eq!(results, pairs(&[("good", "decline")]));
    assert_eq!((tally.answered, tally.failed, tally.fatal), (1, 1, false));
    assert_eq!(r.seen.len(), 1);
}

#[test]
fn an_invalid_request_is_reported_to_the_notice_sink_sanitized() {
    // An envelope the binding refuses (no `type`), with a hostile id.
    let text = String::from_utf8(request_line("bad\u{1b}[2J\u{202e}")).unwrap();
    let bad = text
        .replace("\"type\":\"user.elicitation.request\",", "")
        .into_bytes();
    let items = vec![Item::Event {
        line: 3,
        bytes: bad,
        held: crate::respond::input::Held::default(),
    }];
    let (tally, results, r) = run_items(items, Vec::new(), None, false);
    assert_eq!(results, pairs(&[]));
    assert_eq!((tally.answered, tally.failed), (0, 1));
    // Nothing raw: the id and the violations are shown escaped.
    let said = [
        r"ahp-elicit: request bad\u{1b}[2J\u{202e} (line 3): invalid request, no result",
        r#"  (root): [wire-root/required] "type" is required"#,
        r#"  /id: [wire-root/pattern] "bad\u001b[2J\u{202e}" does not match the pattern ^[^\x00-\x1F\x7F-\x9F]*$: an event id has no control characters"#,
    ];
    assert_eq!(r.said, vec![said.join("\n")]);
}

#[test]
fn a_refused_answer_is_reported_to_the_notice_sink_with_its_request() {
    let script = vec![("a", Script::Refuse("\u{1b}]8;;x\u{7}no such option"))];
    let (tally, results, r) = run_items(vec![event(4, "a"), event(5, "b")], script, None, false);
    assert_eq!(results, pairs(&[("b", "decline")]));
    assert_eq!((tally.answered, tally.failed, tally.fatal), (1, 1, false));
    assert_eq!(
        r.said,
        vec![String::from(
            r"ahp-elicit: request a (line 4): answer refused [answer-refused], no result: \u{1b}]8;;x\u{7}no such option"
        )]
    );
}

/// Declines every request; on the waiting screen the person quits.
struct QuitsWhileWaiting {
    waits: usize,
}

impl Responder for QuitsWhileWaiting {
    fn respond(&mut self, _req: &RequestEvent, _cx: &Context) -> Result<Outcome, RespondError> {
        Ok(Outcome::Answer(Answer::bare(Action::Decline)))
    }

    fn wait(&mut self, _wait: Duration, _shown: &crate::responder::Waiting) -> WaitKey {
        self.waits += 1;
        WaitKey::Quit
    }
}

#[test]
fn a_quit_on_the_waiting_screen_ends_a_stream_that_stays_open() {
    let (tx, rx) = mpsc::channel(READ_AHEAD);
    tx.try_send(event(1, "a")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");
    let mut sink = Sink::open(Some(&out)).unwrap();
    let config = Config {
        modes: vec![Mode::Form],
        interactive: true,
        ..test_config()
    };
    let mut r = QuitsWhileWaiting { waits: 0 };
    let started = Instant::now();
    let tally = drive(rx, &mut r, &mut sink, &config, None);
    // The input was never closed (tx lives on): the quit alone ended the
    // run, which otherwise waits for more input.
    assert!(started.elapsed() < Duration::from_secs(20), "no hang");
    drop(tx);
    drop(sink);
    let lines = std::fs::read_to_string(&out).unwrap();
    assert_eq!(lines.lines().count(), 1);
    assert!(lines.contains("\"parentEventId\":\"a\""), "{lines}");
    assert_eq!(
        tally,
        Tally {
            answered: 1,
            failed: 0,
            fatal: false,
            quit: true,
            signal: None
        }
    );
    assert!(r.waits >= 1);
}

/// A live stream: chunks arrive when the test sends them; the end of input
/// when the sender is dropped.
struct Live {
    rx: std::sync::mpsc::Receiver<Vec<u8>>,
    left: Vec<u8>,
}

impl std::io::Read for Live {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left.is_empty() {
            match self.rx.recv() {
                Ok(chunk) => self.left = chunk,
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.left.len());
        buf[..n].copy_from_slice(&self.left[..n]);
        self.left.drain(..n);
        Ok(n)
    }
}

#[test]
fn a_result_is_written_before_the_loop_waits_for_more_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");
    let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
    let live = Live {
        rx,
        left: Vec::new(),
    };
    let reader = Box::new(std::io::BufReader::new(live));
    let items = spawn_split(reader, std::sync::Arc::new(Budget::default()));
    let watched = out.clone();
    // The second request is sent only once the first result is in the
    // output (or after a generous hang bound, which fails the test).
    let feeder = std::thread::spawn(move || {
        let mut first = request_line("first");
        first.push(b'\n');
        tx.send(first).unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        let mut seen = false;
        while std::time::Instant::now() < deadline {
            let text = std::fs::read_to_string(&watched).unwrap_or_default();
            if text.lines().count() == 1 {
                seen = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let mut second = request_line("second");
        second.push(b'\n');
        tx.send(second).unwrap();
        seen
    });
    let mut sink = Sink::open(Some(&out)).unwrap();
    let mut r = Counting { ahead: Vec::new() };
    let tally = drive(items, &mut r, &mut sink, &test_config(), None);
    drop(sink);
    assert!(
        feeder.join().unwrap(),
        "the first result was written while the stream stayed open"
    );
    assert_eq!(tally.answered, 2);
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 2);
}

#[test]
fn events_read_ahead_as_requests_get_the_same_results_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    let bad = String::from_utf8(request_line("bad"))
        .unwrap()
        .replace("\"type\":\"user.elicitation.request\",", "");
    let text = [
        String::from_utf8(request_line("a")).unwrap(),
        bad,
        "{not json".to_owned(),
        String::from_utf8(request_line("b")).unwrap(),
    ]
    .join("\n");
    std::fs::write(&input, text).unwrap();
    let mut rx = crate::respond::input::spawn_readers(
        std::slice::from_ref(&input),
        Some(SchemaPolicy::Strict),
    )
    .unwrap();
    let first = rx.blocking_recv().unwrap();
    assert!(
        matches!(&first, Item::Read { line: 1, read, .. } if matches!(**read, crate::respond::input::ReadEvent::Request { .. })),
        "{first:?}"
    );
    let second = rx.blocking_recv().unwrap();
    assert!(
        matches!(&second, Item::Read { line: 2, read, .. } if matches!(**read, crate::respond::input::ReadEvent::Invalid { .. })),
        "{second:?}"
    );
    drop(rx);
    // The same input, read ahead and as text, answered alike.
    let run = |pre_read: Option<SchemaPolicy>| {
        let rx =
            crate::respond::input::spawn_readers(std::slice::from_ref(&input), pre_read).unwrap();
        let (notices, kept) = Notices::collect();
        let out = dir.path().join("out.jsonl");
        let mut sink = Sink::open(Some(&out)).unwrap();
        let config = Config {
            notices,
            ..test_config()
        };
        let mut r = Counting { ahead: Vec::new() };
        let tally = drive(rx, &mut r, &mut sink, &config, None);
        drop(sink);
        let parents: Vec<String> = std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["parentEventId"].to_string()
            })
            .collect();
        (tally.answered, tally.failed, parents, kept.texts())
    };
    let ahead = run(Some(SchemaPolicy::Strict));
    assert_eq!(ahead, run(None));
    assert_eq!((ahead.0, ahead.1), (2, 2));
    assert_eq!(ahead.2, vec!["\"a\"", "\"b\""]);
    assert_eq!(ahead.3.len(), 2, "{:?}", ahead.3);
    assert!(
        ahead.3[0].contains("invalid request, no result"),
        "{:?}",
        ahead.3
    );
}

/// Declines; on request "b" it first waits (up to a hang bound) until the
/// result of "a" is in the output file, as a slow browser start would let
/// the loop write it.
struct WaitsForFirst {
    out: std::path::PathBuf,
    first_was_written: bool,
}

impl Responder for WaitsForFirst {
    fn respond(
        &mut self,
        req: &crate::binding::RequestEvent,
        _cx: &Context,
    ) -> Result<Outcome, RespondError> {
        if req.id == "b" {
            let end = std::time::Instant::now() + Duration::from_secs(20);
            while std::time::Instant::now() < end && !self.first_was_written {
                let text = std::fs::read_to_string(&self.out).unwrap_or_default();
                self.first_was_written = text.lines().count() == 1;
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        Ok(Outcome::Answer(Answer::bare(Action::Decline)))
    }
}

#[test]
fn a_slow_answer_does_not_hold_back_the_results_before_it() {
    let (tx, rx) = mpsc::channel(READ_AHEAD);
    tx.try_send(event(1, "a")).unwrap();
    tx.try_send(event(2, "b")).unwrap();
    drop(tx);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");
    let mut sink = Sink::open(Some(&out)).unwrap();
    let mut r = WaitsForFirst {
        out: out.clone(),
        first_was_written: false,
    };
    let tally = drive(rx, &mut r, &mut sink, &test_config(), None);
    drop(sink);
    assert!(
        r.first_was_written,
        "a's result was written while b was answered"
    );
    assert_eq!(tally.answered, 2);
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 2);
}
