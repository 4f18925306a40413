use std::time::{Duration, Instant};

use serde_json::json;

use super::*;
use crate::binding::{wrap_request, Action, Answer, Server, WrapOptions};
use crate::responder::Progress;

/// `assert_eq!` for values that hold a [`RespondError`] (which keeps an
/// `io::Error` and so cannot be compared): their debug forms are equal.
macro_rules! assert_same {
    ($left:expr, $right:expr $(,)?) => {
        assert_eq!(format!("{:?}", $left), format!("{:?}", $right))
    };
}

/// Answers `decline` at once, except for a message "hold": that one waits
/// until withdrawn (as the terminal does), then answers `cancel`.
struct Holder {
    seen: Vec<String>,
    /// How many requests reached the responder so far.
    asked: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Holder {
    fn new() -> Self {
        Holder {
            seen: Vec::new(),
            asked: Default::default(),
        }
    }
}

/// Wait (at most 20 s) until `n` requests reached the responder: a
/// withdrawal after that meets a shown request, never a queued one.
async fn until_asked(asked: &std::sync::atomic::AtomicUsize, n: usize) {
    let until = Instant::now() + Duration::from_secs(20);
    while asked.load(std::sync::atomic::Ordering::SeqCst) < n && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

impl Responder for Holder {
    fn respond(&mut self, req: &RequestEvent, cx: &Context) -> Result<Outcome, RespondError> {
        let msg = text_of(req);
        self.seen.push(msg.clone());
        self.asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if msg.contains("hold") {
            let until = Instant::now() + Duration::from_secs(20);
            while !cx.withdrawn() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(5));
            }
            return Ok(Outcome::Answer(Answer::bare(Action::Cancel)));
        }
        Ok(Outcome::Answer(Answer::bare(Action::Decline)))
    }
}

/// The request's text (its params as sent).
fn text_of(req: &RequestEvent) -> String {
    req.event["payload"]["elicitation"]["request"]["text"]
        .as_str()
        .unwrap_or("")
        .to_owned()
}

fn request(message: &str, n: usize) -> RequestEvent {
    let server = Server {
        name: "t".into(),
        title: None,
        version: None,
    };
    let params =
        json!({"message": message, "requestedSchema": {"type": "object", "properties": {}}});
    wrap_request(
        &params,
        &WrapOptions::new(&server, "test", &format!("ev-{n}")),
    )
    .unwrap()
}

fn cx() -> Context {
    Context {
        progress: Progress::of(1, 1),
        deadline: None,
        ..Default::default()
    }
}

#[test]
fn answers_withdraws_and_skips_in_one_place() {
    let mut r = Holder::new();
    let asked = r.asked.clone();
    let replies = run(&mut r, |mut desk| async move {
        let mut out = Vec::new();
        let a = desk.ask(request("first", 1), cx()).unwrap();
        out.push((a, desk.next().await));
        let held = desk.ask(request("hold me", 2), cx()).unwrap();
        // Queued behind the held one, then withdrawn before it is shown.
        let queued = desk.ask(request("never shown", 3), cx()).unwrap();
        assert!(desk.withdraw(queued, WithdrawReason::TimedOut));
        until_asked(&asked, 2).await;
        assert!(desk.withdraw(held, WithdrawReason::Cancelled(Some("gone".into()))));
        // A second withdrawal of the same request changes nothing.
        assert!(!desk.withdraw(held, WithdrawReason::StreamClosed));
        out.push((held, desk.next().await));
        out.push((queued, desk.next().await));
        assert!(!desk.is_open(held) && desk.open_count() == 0);
        out
    })
    .unwrap();
    assert_same!(
        replies[0].1,
        Some(Reply::Answered {
            key: replies[0].0,
            outcome: Ok(Outcome::Answer(Answer::bare(Action::Decline)))
        })
    );
    assert_same!(
        replies[1].1,
        Some(Reply::Withdrawn {
            key: replies[1].0,
            reason: WithdrawReason::Cancelled(Some("gone".into())),
            shown: true,
        })
    );
    assert_same!(
        replies[2].1,
        Some(Reply::Withdrawn {
            key: replies[2].0,
            reason: WithdrawReason::TimedOut,
            shown: false,
        })
    );
    // The withdrawn queued request never reached the responder.
    assert_eq!(r.seen.len(), 2, "{:?}", r.seen);
    assert!(!r.seen.iter().any(|m| m.contains("never shown")));
}

#[test]
fn refuses_more_than_max_open_and_reasons_read_well() {
    let mut r = Holder::new();
    let busy = run(&mut r, |mut desk| async move {
        let mut keys = Vec::new();
        for i in 0..MAX_OPEN {
            keys.push(desk.ask(request("hold", i), cx()).unwrap());
        }
        let busy = desk.ask(request("one more", 99), cx());
        desk.withdraw_all(WithdrawReason::StreamClosed);
        for _ in 0..MAX_OPEN {
            assert!(matches!(desk.next().await, Some(Reply::Withdrawn { .. })));
        }
        busy
    })
    .unwrap();
    assert_eq!(busy, Err(AskError::Busy));
    assert_eq!(
        WithdrawReason::Cancelled(Some("x\u{1b}]0;t\u{7}".into())).describe(),
        "the server withdrew this request (x\\u{1b}]0;t\\u{7})"
    );
    assert_eq!(
        WithdrawReason::Cancelled(None).describe(),
        "the server withdrew this request"
    );
}

#[test]
fn withdrawn_is_read_from_the_contexts_own_flag() {
    let w = Withdrawal::new();
    let c = Context {
        withdrawal: Some(w.clone()),
        ..cx()
    };
    assert!(!c.withdrawn());
    w.withdraw();
    assert!(c.withdrawn());
    // A context without a flag (a driver that never withdraws), or with
    // another request's flag, is not withdrawn.
    assert!(!cx().withdrawn());
    assert!(cx().claim_answer());
    let other = Context {
        withdrawal: Some(Withdrawal::new()),
        ..cx()
    };
    assert!(!other.withdrawn());
    assert!(
        !c.claim_answer(),
        "a withdrawn request's answer cannot be claimed"
    );
}

/// What a fake source sends to its front door.
enum FromSource {
    Request(&'static str),
    /// The source failed (a broken pipe, a protocol error).
    Error,
}

/// A front door over a fake source: each request is asked; a source error
/// withdraws everything open (as the stream closing does) and ends the
/// door. Returns the replies in the order they came.
async fn fake_door(
    mut desk: Desk,
    source: Vec<FromSource>,
    asked: std::sync::Arc<std::sync::atomic::AtomicUsize>,
) -> Vec<Reply> {
    let mut replies = Vec::new();
    for (n, item) in source.into_iter().enumerate() {
        match item {
            FromSource::Request(m) => {
                desk.ask(request(m, n), cx()).unwrap();
                // A quick one is answered before the source goes on.
                if m.starts_with("quick") {
                    replies.push(desk.next().await.unwrap());
                }
            }
            FromSource::Error => {
                // The responder has taken the held request on screen
                // (every quick one before it was answered already).
                let quick = replies.len();
                until_asked(&asked, quick + 1).await;
                desk.withdraw_all(WithdrawReason::StreamClosed);
                break;
            }
        }
    }
    while desk.open_count() > 0 {
        match desk.next().await {
            Some(Reply::Key(_)) => {}
            Some(r) => replies.push(r),
            None => break,
        }
    }
    replies
}

#[test]
fn a_source_error_withdraws_the_request_on_screen_and_the_queued_ones() {
    let mut r = Holder::new();
    let source = vec![
        FromSource::Request("quick"),
        FromSource::Request("hold on screen"),
        FromSource::Request("queued"),
        FromSource::Error,
    ];
    let asked = r.asked.clone();
    let replies = run(&mut r, |desk| fake_door(desk, source, asked)).unwrap();
    assert_same!(
        replies,
        vec![
            Reply::Answered {
                key: 1,
                outcome: Ok(Outcome::Answer(Answer::bare(Action::Decline)))
            },
            Reply::Withdrawn {
                key: 2,
                reason: WithdrawReason::StreamClosed,
                shown: true,
            },
            Reply::Withdrawn {
                key: 3,
                reason: WithdrawReason::StreamClosed,
                shown: false,
            },
        ]
    );
    // The held one was on screen and closed; the queued one never shown.
    let messages: Vec<String> = r
        .seen
        .iter()
        .map(|t| serde_json::from_str::<serde_json::Value>(t).unwrap()["message"].to_string())
        .collect();
    assert_eq!(messages, vec!["\"quick\"", "\"hold on screen\""]);
}

#[test]
fn a_script_between_requests_sleeps_and_answers_a_long_stream_whole() {
    let mut r = Holder::new();
    let n = 200;
    let answered = run_with(&mut r, Between::Sleep, |mut desk| async move {
        let mut answered = 0;
        for i in 0..n {
            let key = desk.lend(request("next", i), cx()).unwrap();
            if let Some(Reply::Answered { key: k, outcome }) = desk.next().await {
                assert_eq!(k, key);
                assert_eq!(
                    outcome.map_err(|e| e.to_string()),
                    Ok(Outcome::Answer(Answer::bare(Action::Decline)))
                );
                // The lent request comes back once, with its own id.
                let back = desk.returned(key).unwrap();
                assert_eq!(back.id, format!("ev-{i}"));
                assert!(desk.returned(key).is_none());
                answered += 1;
            }
        }
        answered
    })
    .unwrap();
    assert_eq!(answered, n);
    assert_eq!(r.seen.len(), n);
}

#[test]
fn run_errors_read_as_sentences() {
    assert_eq!(
        RunError::Panicked.to_string(),
        "the session thread panicked"
    );
    let e = RunError::Thread(std::io::Error::other("no threads left"));
    assert_eq!(
        e.to_string(),
        "starting the session thread: no threads left"
    );
}

#[test]
fn settle_gives_one_result_or_one_reason() {
    let req = request("settle me", 7);
    let meta = crate::binding::ResultMeta::default();
    let quit = settle(&req, Ok(Outcome::Quit), &meta).unwrap();
    assert_eq!(quit.answer, Answer::bare(Action::Cancel));
    assert!(quit.quit);
    let event = quit.result.event().unwrap();
    assert_eq!(event["parentEventId"], "ev-7");
    assert_eq!(event["payload"]["elicitation"]["action"], "cancel");
    assert_eq!(quit.result.id, "ev-7-result");
    let declined = settle(
        &req,
        Ok(Outcome::Answer(Answer::bare(Action::Decline))),
        &meta,
    );
    assert_eq!(
        declined
            .map(|s| (s.answer.action, s.quit))
            .map_err(|e| e.to_string()),
        Ok((Action::Decline, false))
    );
    let refused = settle(
        &req,
        Err(RespondError::Refused("'x' required".into())),
        &meta,
    );
    assert!(
        matches!(&refused, Err(NoResult::Refused(m)) if m == "'x' required"),
        "{refused:?}"
    );
    // A URL that could not be opened keeps the launcher's error as its
    // cause; the reasons name it after the words a server is told.
    let not_opened = settle(
        &req,
        Err(RespondError::NotOpened(
            crate::launcher::LaunchError::EmptyCommand,
        )),
        &meta,
    );
    let Err(no @ NoResult::NotOpened(_)) = &not_opened else {
        panic!("expected a URL not opened, got {not_opened:?}");
    };
    assert_eq!(
        no.reasons(),
        "the URL was not opened: The browser command is empty."
    );
    let cause = std::error::Error::source(no)
        .and_then(|s| s.downcast_ref::<crate::launcher::LaunchError>());
    assert!(
        matches!(cause, Some(crate::launcher::LaunchError::EmptyCommand)),
        "{cause:?}"
    );
    let gone = std::io::Error::from_raw_os_error(libc::EIO);
    let failed = settle(
        &req,
        Err(RespondError::Terminal {
            step: "draw",
            source: gone,
        }),
        &meta,
    );
    // The operating system's error stays the source, and the person reads
    // the whole chain.
    let Err(NoResult::Failed(e)) = &failed else {
        panic!("expected a failure, got {failed:?}");
    };
    assert!(matches!(e, RespondError::Terminal { step: "draw", .. }));
    let os = std::error::Error::source(e)
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .and_then(std::io::Error::raw_os_error);
    assert_eq!(os, Some(libc::EIO));
    assert_eq!(
        crate::notice::chain(e),
        format!(
            "terminal: draw: {}",
            std::io::Error::from_raw_os_error(libc::EIO)
        )
    );
    // Content the form does not have: the result event does not validate.
    let mut content = serde_json::Map::new();
    content.insert("nope".into(), json!(1));
    let bad = Answer {
        action: Action::Accept,
        content: Some(content),
    };
    match settle(&req, Ok(Outcome::Answer(bad.clone())), &meta) {
        Err(NoResult::Invalid {
            answer,
            violations,
            quit,
        }) => {
            assert_eq!((answer, quit), (bad, false));
            assert!(!violations.is_empty());
        }
        other => panic!("expected an invalid result, got {other:?}"),
    }
}

/// Waits until withdrawn, then keeps the reason its context carries.
/// `asked` is set once the request is on its "screen".
struct ReasonReader {
    reason: Option<Option<String>>,
    asked: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl ReasonReader {
    fn new() -> Self {
        ReasonReader {
            reason: None,
            asked: Default::default(),
        }
    }
}

/// Wait (at most 20 s) until the responder holds the request, so that the
/// withdrawal reaches a shown request, not a queued one.
async fn until_shown(asked: &std::sync::atomic::AtomicBool) {
    let until = Instant::now() + Duration::from_secs(20);
    while !asked.load(std::sync::atomic::Ordering::SeqCst) && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

impl Responder for ReasonReader {
    fn respond(&mut self, _req: &RequestEvent, cx: &Context) -> Result<Outcome, RespondError> {
        self.asked.store(true, std::sync::atomic::Ordering::SeqCst);
        let until = Instant::now() + Duration::from_secs(20);
        while !cx.withdrawn() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        self.reason = Some(cx.withdrawal_reason());
        Ok(Outcome::Answer(Answer::bare(Action::Cancel)))
    }
}

#[test]
fn the_reason_of_a_cancellation_reaches_the_responder() {
    let mut r = ReasonReader::new();
    let asked = r.asked.clone();
    run(&mut r, |mut desk| async move {
        let k = desk.ask(request("hold", 1), cx()).unwrap();
        until_shown(&asked).await;
        let why = WithdrawReason::Cancelled(Some("user closed\u{1b}[2J the tab".into()));
        assert!(desk.withdraw(k, why));
        desk.next().await
    })
    .unwrap();
    assert_eq!(
        r.reason,
        Some(Some("user closed\u{1b}[2J the tab".to_owned()))
    );
    let mut r = ReasonReader::new();
    let asked = r.asked.clone();
    run(&mut r, |mut desk| async move {
        let k = desk.ask(request("hold", 1), cx()).unwrap();
        until_shown(&asked).await;
        assert!(desk.withdraw(k, WithdrawReason::StreamClosed));
        desk.next().await
    })
    .unwrap();
    assert_eq!(r.reason, Some(None), "no reason given, none shown");
}

/// Claims its answer at once, then returns it only once the source has
/// tried to withdraw the request.
struct Claimer {
    claimed: std::sync::Arc<std::sync::atomic::AtomicBool>,
    tried: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Responder for Claimer {
    fn respond(&mut self, _req: &RequestEvent, cx: &Context) -> Result<Outcome, RespondError> {
        use std::sync::atomic::Ordering::SeqCst;
        let claimed = cx.claim_answer();
        self.claimed.store(true, SeqCst);
        let until = Instant::now() + Duration::from_secs(20);
        while !self.tried.load(SeqCst) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        let a = if claimed {
            Action::Decline
        } else {
            Action::Cancel
        };
        Ok(Outcome::Answer(Answer::bare(a)))
    }
}

/// A key that decided the request before the withdrawal arrived is the
/// answer (sent, as the screen said); the withdrawal does not take it back,
/// and never leaves the screen saying "answered" while nothing is sent.
#[test]
fn an_answer_claimed_before_a_withdrawal_stands() {
    use std::sync::atomic::Ordering::SeqCst;
    let mut r = Claimer {
        claimed: Default::default(),
        tried: Default::default(),
    };
    let (claimed, tried) = (r.claimed.clone(), r.tried.clone());
    let (withdrew, reply, key) = run(&mut r, |mut desk| async move {
        let k = desk.ask(request("x", 1), cx()).unwrap();
        let until = Instant::now() + Duration::from_secs(20);
        while !claimed.load(SeqCst) && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let withdrew = desk.withdraw(k, WithdrawReason::Cancelled(None));
        tried.store(true, SeqCst);
        (withdrew, desk.next().await, k)
    })
    .unwrap();
    assert!(!withdrew);
    assert_same!(
        reply,
        Some(Reply::Answered {
            key,
            outcome: Ok(Outcome::Answer(Answer::bare(Action::Decline)))
        })
    );
}

/// A request withdrawn while its notice is still on screen is not open for
/// an answer: the end of its call is not noted on it (only the withdrawal
/// is said), while a request still open is noted.
#[test]
fn the_end_of_the_call_is_not_noted_on_a_withdrawn_request() {
    let mut r = ReasonReader::new();
    let asked = r.asked.clone();
    let noted = run(&mut r, |mut desk| async move {
        let k = desk.ask(request("hold", 1), cx()).unwrap();
        until_shown(&asked).await;
        assert!(desk.withdraw(k, WithdrawReason::Cancelled(None)));
        let noted = desk.note_call_finished(k);
        let _ = desk.next().await;
        noted
    })
    .unwrap();
    assert!(!noted, "a withdrawn request is not noted");
    let mut r = ReasonReader::new();
    let asked = r.asked.clone();
    let noted = run(&mut r, |mut desk| async move {
        let k = desk.ask(request("hold", 1), cx()).unwrap();
        until_shown(&asked).await;
        let noted = desk.note_call_finished(k);
        assert!(desk.withdraw(k, WithdrawReason::StreamClosed));
        let _ = desk.next().await;
        noted
    })
    .unwrap();
    assert!(noted, "an open request is noted");
}

/// Quits on a message "quit", declines the rest; counts the looks at the
/// waiting screen after its first request.
struct Quitter {
    seen: Vec<String>,
    waits: usize,
}

impl Responder for Quitter {
    fn respond(&mut self, req: &RequestEvent, _cx: &Context) -> Result<Outcome, RespondError> {
        let msg = text_of(req);
        let quit = msg.contains("\"quit\"");
        self.seen.push(msg);
        Ok(if quit {
            Outcome::Quit
        } else {
            Outcome::Answer(Answer::bare(Action::Decline))
        })
    }

    fn wait(&mut self, _: Duration, _: &Waiting) -> WaitKey {
        if !self.seen.is_empty() {
            self.waits += 1;
        }
        std::thread::sleep(Duration::from_millis(1));
        WaitKey::Nothing
    }
}

#[test]
fn a_quit_answers_the_queued_requests_unseen_and_the_waiting_screen_stops() {
    let mut r = Quitter {
        seen: Vec::new(),
        waits: 0,
    };
    let replies = run(&mut r, |mut desk| async move {
        let keys: Vec<u64> = ["quit", "queued 1", "queued 2"]
            .iter()
            .enumerate()
            .map(|(n, m)| desk.ask(request(m, n), cx()).unwrap())
            .collect();
        let mut replies = Vec::new();
        for _ in &keys {
            match desk.next().await {
                Some(Reply::Answered { key, outcome }) => {
                    replies.push((key, outcome.map_err(|e| e.to_string())))
                }
                other => panic!("{other:?}"),
            }
        }
        // Time in which a waiting screen would have run many times.
        tokio::time::sleep(Duration::from_millis(300)).await;
        // A request asked after the quit is not shown either.
        let late = desk.ask(request("late", 9), cx()).unwrap();
        let last = desk.next().await;
        assert_same!(
            last,
            Some(Reply::Answered {
                key: late,
                outcome: Ok(Outcome::Quit)
            })
        );
        replies
    })
    .unwrap();
    assert_eq!(
        replies,
        vec![
            (1, Ok(Outcome::Quit)),
            (2, Ok(Outcome::Quit)),
            (3, Ok(Outcome::Quit))
        ]
    );
    // Only the request quit on reached the person.
    assert_eq!(r.seen.len(), 1, "{:?}", r.seen);
    assert!(r.seen[0].contains("\"quit\""), "{:?}", r.seen);
    // No waiting screen ran after the quit.
    assert_eq!(r.waits, 0);
}

#[test]
fn a_queued_request_withdrawn_leaves_the_count_at_once_and_is_reported_unseen() {
    let mut r = Holder::new();
    let asked = r.asked.clone();
    let (counts, replies) = run(&mut r, |mut desk| async move {
        let held = desk.ask(request("hold me", 1), cx()).unwrap();
        let queued = desk.ask(request("queued", 2), cx()).unwrap();
        until_asked(&asked, 1).await;
        let before = desk.behind.count();
        assert!(desk.withdraw(queued, WithdrawReason::Cancelled(Some("not needed".into()))));
        let after = desk.behind.count();
        // A second withdrawal does not count it off again.
        assert!(!desk.withdraw(queued, WithdrawReason::StreamClosed));
        assert!(desk.withdraw(held, WithdrawReason::Cancelled(None)));
        let replies = vec![desk.next().await, desk.next().await];
        ((before, after, desk.behind.count()), replies)
    })
    .unwrap();
    assert_eq!(counts, (1, 0, 0));
    assert_same!(
        replies,
        vec![
            Some(Reply::Withdrawn {
                key: 1,
                reason: WithdrawReason::Cancelled(None),
                shown: true,
            }),
            Some(Reply::Withdrawn {
                key: 2,
                reason: WithdrawReason::Cancelled(Some("not needed".into())),
                shown: false,
            }),
        ]
    );
}

/// A waiting screen as the terminal's: it sleeps on the arrival pipe (at
/// most 20 s, a safety net) and looks for a request only when woken. It
/// reads its own desk's count of waiting requests (`behind`), so requests
/// of other tests running at the same time never make it look.
struct Sleeper {
    /// `wait` calls so far.
    waits: usize,
    /// `wait` calls made before the first request reached `respond`.
    waits_before: Option<usize>,
    /// The desk's count, once the session gives it.
    behind: std::sync::Arc<Mutex<Option<Behind>>>,
    /// Set once the screen watches the pipe with nothing to take.
    watching: std::sync::Arc<AtomicBool>,
}

impl Sleeper {
    fn waiting(&self) -> usize {
        self.behind
            .lock()
            .ok()
            .and_then(|b| b.as_ref().map(Behind::count))
            .unwrap_or(0)
    }
}

impl Responder for Sleeper {
    fn respond(&mut self, _req: &RequestEvent, _cx: &Context) -> Result<Outcome, RespondError> {
        self.waits_before.get_or_insert(self.waits);
        Ok(Outcome::Answer(Answer::bare(Action::Decline)))
    }

    fn wait(&mut self, _wait: Duration, _shown: &Waiting) -> WaitKey {
        self.waits += 1;
        let w = crate::responder::wake::watch().expect("the arrival pipe");
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            w.drain();
            if self.waiting() > 0 || Instant::now() >= until {
                return WaitKey::Nothing;
            }
            self.watching.store(true, Ordering::SeqCst);
            let mut p = libc::pollfd {
                fd: w.fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: poll(2) on one live pollfd.
            unsafe { libc::poll(&mut p, 1, 1000) };
        }
    }
}

/// The wake comes once the request is on the responder's channel: the
/// screen it wakes finds the request there at its one look, and never
/// goes back to sleep for a request counted but not yet handed over.
#[test]
fn a_woken_waiting_screen_finds_the_request_there_to_take() {
    let watching = std::sync::Arc::new(AtomicBool::new(false));
    let behind = std::sync::Arc::new(Mutex::new(None));
    let mut r = Sleeper {
        waits: 0,
        waits_before: None,
        behind: behind.clone(),
        watching: watching.clone(),
    };
    let reply = run(&mut r, |mut desk| async move {
        *behind.lock().unwrap() = Some(desk.behind.clone());
        let until = Instant::now() + Duration::from_secs(20);
        while !watching.load(Ordering::SeqCst) && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        desk.ask(request("wake", 1), cx()).unwrap();
        desk.next().await
    })
    .unwrap();
    assert!(matches!(reply, Some(Reply::Answered { .. })), "{reply:?}");
    assert_eq!(r.waits_before, Some(1));
}

/// A waiting screen that shows the session's sign-ins, as the terminal's:
/// it sleeps on the arrival pipe (at most 20 s, a safety net, in polls of
/// 1 s) and looks at the sign-ins again only when woken; a sign-in's
/// question it runs on its own lines.
struct SignInScreen {
    sign_ins: Option<Arc<SignIns>>,
    /// Set once the screen watches the pipe with nothing to take.
    watching: Arc<AtomicBool>,
    /// Whether the last wait ended because the pipe woke it (not because
    /// a poll ran out).
    woken: bool,
    io: crate::plain::MemoryIo,
}

impl Responder for SignInScreen {
    fn respond(&mut self, _req: &RequestEvent, _cx: &Context) -> Result<Outcome, RespondError> {
        Ok(Outcome::Answer(Answer::bare(Action::Decline)))
    }

    fn follow_sign_ins(&mut self, sign_ins: Arc<SignIns>) {
        self.sign_ins = Some(sign_ins);
    }

    fn in_lines(&mut self, job: &mut crate::responder::LinesJob<'_>) -> Result<(), SignInError> {
        job(&mut self.io)
    }

    fn wait(&mut self, _wait: Duration, _shown: &Waiting) -> WaitKey {
        let s = self
            .sign_ins
            .clone()
            .expect("followed before the first wait");
        let seen = s.version();
        let w = crate::responder::wake::watch().expect("the arrival pipe");
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            w.drain();
            if s.version() != seen || Instant::now() >= until {
                return WaitKey::Nothing;
            }
            self.watching.store(true, Ordering::SeqCst);
            let mut p = libc::pollfd {
                fd: w.fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: poll(2) on one live pollfd.
            self.woken = unsafe { libc::poll(&mut p, 1, 1000) } == 1;
        }
    }
}

/// A sign-in's question travels on the session's desk: it wakes the
/// waiting screen (no look on a timer), which hands the thread back to
/// run it on the responder's terminal; the answer comes back to the
/// sign-in.
#[test]
fn a_sign_in_question_on_the_desk_wakes_the_waiting_screen_and_runs_there() {
    let watching = Arc::new(AtomicBool::new(false));
    let mut screen = SignInScreen {
        sign_ins: None,
        watching: Arc::clone(&watching),
        woken: false,
        io: crate::plain::MemoryIo::typing::<&str>(&[]),
    };
    let answer = run(&mut screen, |desk| async move {
        let until = Instant::now() + Duration::from_secs(20);
        while !watching.load(Ordering::SeqCst) && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let asked = desk.sign_in_desk().ask_in_lines(Box::new(|io| {
            io.say("Sign in to https://a.example/mcp?")
                .map_err(SignInError::Lines)
        }));
        // (The responder runs on the other thread: waiting here blocks
        // nothing it needs.)
        let answer = asked.recv_timeout(Duration::from_secs(20));
        drop(desk);
        answer
    })
    .unwrap();
    assert!(matches!(answer, Ok(Ok(()))), "{answer:?}");
    assert!(screen.woken, "the question woke the screen");
    assert_eq!(screen.io.transcript, "Sign in to https://a.example/mcp?\n");
}

/// The sign-in's side of the desk, kept by a transport's thread after
/// the session ended, does not keep the responder thread serving: the
/// session ends, and a question put then is not asked.
#[test]
fn a_sign_in_desk_kept_after_the_session_does_not_hold_the_responder() {
    let (tx, rx) = smpsc::channel();
    std::thread::spawn(move || {
        let mut s = crate::scripted::ScriptedResponder::from_action(Action::Accept);
        let kept = run_with(
            &mut s,
            Between::Sleep,
            |desk| async move { desk.sign_in_desk() },
        );
        let _ = tx.send(kept);
    });
    let kept = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the session ends")
        .unwrap();
    let asked = kept.ask_in_lines(Box::new(|_| Ok(())));
    assert!(asked.recv().is_err(), "nobody is there to ask");
}
