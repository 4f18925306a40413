//! Signing in to an MCP server at the terminal, in plain lines: the same
//! review and consent as a URL request ([`crate::consent`]), naming the MCP
//! server, the authorization server's host and issuer, the access asked
//! and the address the browser comes back to. The client's own OAuth
//! parameters are known to the review ([`CLIENT_PARAMS`]) and raise no
//! "leads to another domain" warning.
//!
//! With no usable browser on this machine ([`remote_session`]) the URL is
//! shown for copying, and the address the browser ended on can be pasted
//! back (checked by [`PasteBack`](crate::mcp::auth::listener::PasteBack)); a pasted address of another sign-in is
//! refused and the wait goes on. Typing `cancel` (or Control-C, or
//! Control-D) ends the sign-in: [`cancelled`].

use crate::consent::{Consent, Effect, Input, NotTaken, Phase, Reader};
use crate::launcher::Launcher;
use crate::mcp::auth::SignInRequest;
use crate::safe_text::display;
use crate::url_review::{review_with_known, UrlReview};

use super::url::url_sentences;
use super::{LineIo, Reply};

/// The parameters an authorization URL gets from this client (OAuth 2.1,
/// RFC 7636, RFC 8707): known, so not reviewed as redirects.
pub const CLIENT_PARAMS: [&str; 8] = [
    "response_type",
    "client_id",
    "redirect_uri",
    "scope",
    "state",
    "code_challenge",
    "code_challenge_method",
    "resource",
];

use crate::mcp::auth::authorizer::SignInError;

/// Whether a browser on this machine cannot be used for the sign-in: an SSH
/// session (`SSH_CONNECTION` or `SSH_TTY` set), or on Linux neither
/// `DISPLAY` nor `WAYLAND_DISPLAY` set. `env` reads a variable (empty
/// counts as unset).
pub fn remote_session(env: &dyn Fn(&str) -> Option<String>) -> bool {
    crate::launcher::NoOpenWhy::of_machine(env).is_some()
}

/// The authorization URL reviewed with the client's parameters known.
pub fn review_sign_in(url: &str) -> UrlReview {
    review_with_known(url, &CLIENT_PARAMS)
}

/// The host of `url` (safe for the terminal), or the URL itself.
fn host_of(url: &str) -> String {
    let h = url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_else(|| url.to_owned());
    display(&h).into_owned()
}

/// What the sign-in says before the URL: whom it is for, where, the access
/// asked and where the browser comes back; each a line, safe for the
/// terminal.
pub fn sign_in_sentences(req: &SignInRequest<'_>) -> Vec<String> {
    let server = host_of(req.mcp_url);
    let access = if req.scopes.is_empty() {
        "the server's default access".to_owned()
    } else {
        display(&req.scopes.join(" ")).into_owned()
    };
    let mut out = vec![match req.step_up {
        Some(more) => format!("{}. Sign in again to grant it.", more.sentence(&server)),
        None => format!("Sign in to use {server}"),
    }];
    out.push(format!(
        "The MCP server {} needs you to sign in.",
        display(req.mcp_url)
    ));
    out.push(format!(
        "Sign in at   {}   (issuer {})",
        host_of(req.url),
        display(req.issuer)
    ));
    out.push(format!("Access asked {access}"));
    out.push(format!(
        "Comes back   {} on this machine",
        display(req.paste.redirect_uri())
    ));
    out
}

/// The instructions when no browser on this machine can be used.
pub fn remote_sentences(redirect_uri: &str) -> Vec<String> {
    let port = url::Url::parse(redirect_uri)
        .ok()
        .and_then(|u| u.port())
        .map_or_else(|| "PORT".to_owned(), |p| p.to_string());
    vec![
        "This looks like a remote session. Open the URL in a browser on your computer.".into(),
        "When it ends on an error page for 127.0.0.1, copy that page's full address and paste it here.".into(),
        format!("Or forward the port first: ssh -L {port}:127.0.0.1:{port} this-host"),
    ]
}

/// The input a typed line stands for.
fn line_input(line: &str) -> Option<Input> {
    Some(match line {
        "open" => Input::Consent,
        "cancel" | "give up" => Input::Cancel,
        "retry" => Input::Retry,
        "copy" => Input::Copy,
        "done" => Input::Done,
        _ => return None,
    })
}

fn prompt(phase: &Phase) -> &'static str {
    match phase {
        Phase::Consent => "Type open, or cancel: ",
        Phase::LaunchFailed(_) => "Type retry, copy, or cancel: ",
        Phase::Copy { .. } => {
            "Paste the address the browser ended on, or type done to wait, or cancel: "
        }
    }
}

/// Ask the person to sign in, in lines: the sentences, the URL and its
/// warnings, then consent by typing `open` (a browser is opened with
/// `launcher`; with `remote` the URL is shown for copying instead). A line
/// that starts with `http` is a pasted address, fed into the wait. Returns
/// once the browser was opened, `done` was typed after copying, or the
/// wait has its answer.
///
/// Errors: [`SignInError::Cancelled`]; the URL cannot be opened at all
/// ([`SignInError::UrlRefused`]); the terminal failed
/// ([`SignInError::Terminal`]).
pub fn sign_in<I: LineIo + ?Sized>(
    io: &mut I,
    req: &SignInRequest<'_>,
    launcher: &mut dyn Launcher,
    remote: bool,
    guard: std::time::Duration,
) -> Result<(), SignInError> {
    let r = review_sign_in(req.url);
    let mut consent = Consent::new(&r, Reader::Person { grace: guard });
    introduce(io, req, &r, &consent, remote)?;
    consent.shown(Some(io.now()));
    let answered = || req.paste.answered();
    loop {
        let line = match io
            .ask(prompt(consent.phase()), None, &answered)
            .map_err(SignInError::Terminal)?
        {
            Reply::Line(l) => l,
            Reply::Withdrawn => return Ok(()),
            Reply::Interrupt | Reply::Eof | Reply::Quit => return Err(cancelled_by(req)),
            Reply::TimedOut => continue,
        };
        let mut turn = Turn {
            req,
            review: &r,
            consent: &mut consent,
            launcher: &mut *launcher,
            remote,
        };
        if turn.take(io, line.trim())? {
            return Ok(());
        }
    }
}

/// The sign-in the person cancelled.
fn cancelled_by(req: &SignInRequest<'_>) -> SignInError {
    SignInError::Cancelled {
        mcp_url: req.mcp_url.to_owned(),
    }
}

/// Say what the sign-in is, the URL reviewed `r` and how to agree.
///
/// Errors: the URL cannot be opened at all; the terminal failed.
fn introduce<I: LineIo + ?Sized>(
    io: &mut I,
    req: &SignInRequest<'_>,
    r: &UrlReview,
    consent: &Consent,
    remote: bool,
) -> Result<(), SignInError> {
    let term = SignInError::Terminal;
    for l in sign_in_sentences(req) {
        io.say(&l).map_err(term)?;
    }
    for l in url_sentences(r) {
        io.say(&l).map_err(term)?;
    }
    if !consent.openable() {
        let why = r
            .refusal
            .as_ref()
            .map_or_else(|| "it cannot be opened".to_owned(), |f| f.sentence());
        return Err(SignInError::UrlRefused(why));
    }
    if remote {
        for l in remote_sentences(req.paste.redirect_uri()) {
            io.say(&l).map_err(term)?;
        }
        io.say("To agree, type open: the URL is then shown for copying. Otherwise type cancel.")
            .map_err(term)?;
    } else {
        io.say("To open it in the browser, type open. Otherwise type cancel. Enter alone does nothing.")
            .map_err(term)?;
    }
    Ok(())
}

/// One line typed during a sign-in, and what it acts on.
struct Turn<'a, 'r> {
    req: &'a SignInRequest<'r>,
    review: &'a UrlReview,
    consent: &'a mut Consent,
    launcher: &'a mut dyn Launcher,
    remote: bool,
}

impl Turn<'_, '_> {
    /// Take the (trimmed) `line`: a pasted address, or a consent word.
    /// Returns true when the sign-in is done asking (the browser opened,
    /// the URL copied, or the address taken).
    ///
    /// Errors: the person cancelled; the terminal failed.
    fn take<I: LineIo + ?Sized>(&mut self, io: &mut I, line: &str) -> Result<bool, SignInError> {
        let term = SignInError::Terminal;
        let req = self.req;
        if line.starts_with("http") {
            match req.paste.paste(line) {
                Ok(_) => {
                    io.say("Address taken.").map_err(term)?;
                    return Ok(true);
                }
                Err(e) => io.say(&format!("Not taken: {e}.")).map_err(term)?,
            }
            return Ok(false);
        }
        let lower = line.to_lowercase();
        let step = match line_input(&lower) {
            Some(input) => self.consent.input(input, io.now()),
            None => {
                // Most often a code copied out of the address: the whole
                // address is what the sign-in checks.
                io.say(&format!(
                    "Not understood. If you copied a code from the browser, paste instead the whole address it ended on (starting with {}), not only the code in it.",
                    display(req.paste.redirect_uri())
                ))
                .map_err(term)?;
                return Ok(false);
            }
        };
        let mut step = step;
        let mut opened = false;
        if let Some(Effect::Open(_)) = step.effect {
            let mut nothing = crate::launcher::NoOpen::default();
            let remote = self.remote;
            let with: &mut dyn Launcher = if remote {
                &mut nothing
            } else {
                &mut *self.launcher
            };
            let (after, res) = self.consent.open_with(with, remote);
            if let Err(e) = &res {
                io.say(&display(&e.to_string())).map_err(term)?;
            }
            opened = res.is_ok() && !remote;
            step = after;
        }
        match (step.effect, step.not_taken) {
            (Some(Effect::Answer(crate::binding::Action::Accept)), _) => {
                let said = if opened {
                    format!("Opened in the browser. {}", waiting(req))
                } else {
                    waiting(req)
                };
                io.say(&said).map_err(term)?;
                return Ok(true);
            }
            (Some(Effect::Answer(_)), _) => return Err(cancelled_by(req)),
            (Some(Effect::Copy), _) => {
                io.say("Copy this URL and open it in a browser:")
                    .map_err(term)?;
                io.say(&self.review.display_url()).map_err(term)?;
            }
            (None, Some(NotTaken::TooSoon)) => io
                .say("Not taken: that was typed before the URL could be read. Type open again to agree.")
                .map_err(term)?,
            (None, Some(_)) => io.say("Not understood.").map_err(term)?,
            _ => {}
        }
        Ok(false)
    }
}

/// The waiting sentence.
fn waiting(req: &SignInRequest<'_>) -> String {
    let uri = req.paste.redirect_uri();
    crate::responder::sign_in::waiting_sentence(
        crate::mcp::auth::listener::listening_at(uri).unwrap_or(uri),
    )
}

#[cfg(test)]
mod tests {
    use crate::mcp::auth::{RequestName, StepUp};
    use std::sync::atomic::AtomicBool;
    use std::sync::{mpsc, Arc};
    use std::time::Duration;

    use super::*;
    use crate::launcher::NoOpen;
    use crate::mcp::auth::flow::CallbackError;
    use crate::mcp::auth::listener::{Loopback, PasteBack};
    use crate::mcp::auth::store::Secret;
    use crate::plain::MemoryIo;

    type Rx = mpsc::Receiver<Result<Secret, CallbackError>>;

    fn listener() -> (Rx, PasteBack, u16) {
        let lb = Loopback::bind(0).unwrap();
        let port = lb.port();
        let (rx, paste) = lb.serve_with_paste(
            Secret::new("s1"),
            "https://login.example.com".into(),
            false,
            Arc::new(AtomicBool::new(false)),
        );
        (rx, paste, port)
    }

    fn url(port: u16) -> String {
        format!("https://login.example.com/authorize?response_type=code&client_id=https%3A%2F%2Fapp.example.org%2Fc.json&redirect_uri=http%3A%2F%2F127.0.0.1%3A{port}%2Fcallback&code_challenge=x&code_challenge_method=S256&state=s1&scope=files%3Aread+files%3Awrite&resource=https%3A%2F%2Fmcp.example.com%2Fmcp")
    }

    fn request<'a>(url: &'a str, scopes: &'a [String], paste: &'a PasteBack) -> SignInRequest<'a> {
        SignInRequest {
            url,
            mcp_url: "https://mcp.example.com/mcp",
            issuer: "https://login.example.com",
            scopes,
            step_up: None,
            paste,
            record_launch: None,
            desk: None,
        }
    }

    #[test]
    fn names_server_issuer_access_and_return_then_opens_on_consent() {
        let (_rx, paste, port) = listener();
        let u = url(port);
        let scopes = vec!["files:read".to_owned(), "files:write".to_owned()];
        let mut io = MemoryIo::typing(&["", "open"]);
        let mut b = NoOpen::default();
        sign_in(
            &mut io,
            &request(&u, &scopes, &paste),
            &mut b,
            false,
            Duration::ZERO,
        )
        .unwrap();
        assert_eq!(b.consented, vec![u.clone()]);
        let t = &io.transcript;
        for line in [
            "Sign in to use mcp.example.com\n",
            "The MCP server https://mcp.example.com/mcp needs you to sign in.\n",
            "Sign in at   login.example.com   (issuer https://login.example.com)\n",
            "Access asked files:read files:write\n",
            &format!("Comes back   http://127.0.0.1:{port}/callback on this machine\n"),
            "No warnings.\n",
            &format!("Opened in the browser. Waiting for the sign-in to finish in the browser (listening on 127.0.0.1:{port}).\n"),
        ] {
            assert!(t.contains(line), "{line:?} not in:\n{t}");
        }
        assert!(!t.contains("another domain"), "{t}");
    }

    #[test]
    fn default_access_and_cancel() {
        let (_rx, paste, port) = listener();
        let u = url(port);
        let mut io = MemoryIo::typing(&["cancel"]);
        let mut b = NoOpen::default();
        let e = sign_in(
            &mut io,
            &request(&u, &[], &paste),
            &mut b,
            false,
            Duration::ZERO,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "sign-in to https://mcp.example.com/mcp cancelled"
        );
        assert!(b.consented.is_empty());
        assert!(io
            .transcript
            .contains("Access asked the server's default access\n"));
        let mut io = MemoryIo::typing(&["^C"]);
        assert_eq!(
            sign_in(
                &mut io,
                &request(&u, &[], &paste),
                &mut b,
                false,
                Duration::ZERO
            )
            .unwrap_err()
            .to_string(),
            "sign-in to https://mcp.example.com/mcp cancelled"
        );
    }

    #[test]
    fn remote_shows_the_url_and_takes_a_pasted_address_of_this_sign_in_only() {
        let (rx, paste, port) = listener();
        let u = url(port);
        let other = format!("http://127.0.0.1:{port}/callback?code=c0&state=zzz");
        let ours = format!("http://127.0.0.1:{port}/callback?code=c1&state=s1");
        let mut io = MemoryIo::typing(&["open", &other, &ours]);
        let mut b = NoOpen::default();
        sign_in(
            &mut io,
            &request(&u, &[], &paste),
            &mut b,
            true,
            Duration::ZERO,
        )
        .unwrap();
        assert!(b.consented.is_empty(), "nothing opened on a remote session");
        let t = &io.transcript;
        assert!(t.contains("This looks like a remote session."), "{t}");
        assert!(
            t.contains(&format!("ssh -L {port}:127.0.0.1:{port} this-host")),
            "{t}"
        );
        assert!(
            t.contains(&format!("Copy this URL and open it in a browser:\n{u}\n")),
            "{t}"
        );
        assert!(t.contains("Not taken: that address is not from this sign-in (its state does not match): the wait goes on.\n"), "{t}");
        assert!(t.ends_with("Address taken.\n"), "{t}");
        assert_eq!(rx.recv().unwrap().unwrap().expose(), "c1");
    }

    /// A bare authorization code pasted at the prompt is not taken, and the
    /// answer says to paste the whole address the browser ended on.
    #[test]
    fn a_bare_code_asks_for_the_whole_address() {
        let (rx, paste, port) = listener();
        let u = url(port);
        let ours = format!("http://127.0.0.1:{port}/callback?code=c1&state=s1");
        let mut io = MemoryIo::typing(&["open", "c1", &ours]);
        let mut b = NoOpen::default();
        sign_in(
            &mut io,
            &request(&u, &[], &paste),
            &mut b,
            true,
            Duration::ZERO,
        )
        .unwrap();
        let t = &io.transcript;
        assert!(
            t.contains(&format!("Not understood. If you copied a code from the browser, paste instead the whole address it ended on (starting with http://127.0.0.1:{port}/callback), not only the code in it.\n")),
            "{t}"
        );
        assert!(t.ends_with("Address taken.\n"), "{t}");
        assert_eq!(rx.recv().unwrap().unwrap().expose(), "c1");
    }

    #[test]
    fn a_step_up_names_the_call_and_the_access_it_adds() {
        let (_rx, paste, port) = listener();
        let u = url(port);
        let scopes = vec!["files:read".to_owned(), "files:write".to_owned()];
        let (adds, has) = (&scopes[1..], &scopes[..1]);
        let call = RequestName {
            method: "tools/call".into(),
            tool: Some("deploy".into()),
        };
        let mut r = request(&u, &scopes, &paste);
        r.step_up = Some(StepUp {
            adds,
            has,
            request: Some(&call),
        });
        assert_eq!(
            sign_in_sentences(&r)[0],
            "tools/call deploy needs more access: scope files:write (you have: files:read). Sign in again to grant it."
        );
        // Without the request: the server; several scopes; none held.
        let two = vec!["a".to_owned(), "b".to_owned()];
        r.step_up = Some(StepUp {
            adds: &two,
            has: &[],
            request: None,
        });
        assert_eq!(
            sign_in_sentences(&r)[0],
            "mcp.example.com needs more access: scopes a b. Sign in again to grant it."
        );
    }

    #[test]
    fn a_hostile_tool_name_in_a_step_up_reaches_the_terminal_escaped() {
        let (_rx, paste, port) = listener();
        let u = url(port);
        let scopes = vec!["admin".to_owned()];
        let call = RequestName {
            method: "tools/call".into(),
            tool: Some("reset\x1b[2J\u{202e}evil\nline".into()),
        };
        let mut r = request(&u, &scopes, &paste);
        r.step_up = Some(StepUp {
            adds: &scopes,
            has: &[],
            request: Some(&call),
        });
        let first = &sign_in_sentences(&r)[0];
        assert!(
            !first.chars().any(|c| c.is_control() || c == '\u{202e}'),
            "{first:?}"
        );
        assert!(first.starts_with("tools/call reset"), "{first}");
        assert!(first.contains("needs more access: scope admin."), "{first}");
    }

    #[test]
    fn remote_is_ssh_or_no_display() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                vars.iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert!(remote_session(&env(&[
            ("SSH_CONNECTION", "1 2 3 4"),
            ("DISPLAY", ":0")
        ])));
        assert!(remote_session(&env(&[
            ("SSH_TTY", "/dev/pts/1"),
            ("WAYLAND_DISPLAY", "w")
        ])));
        assert!(!remote_session(&env(&[("DISPLAY", ":0")])));
        assert!(!remote_session(&env(&[("WAYLAND_DISPLAY", "wayland-0")])));
        assert_eq!(remote_session(&env(&[])), cfg!(target_os = "linux"));
    }

    /// Put `job` on a session's desk (as the sign-in does from the
    /// transport's thread) while `responder` answers the session: what the
    /// job ended with. (The responder thread takes it without a waiting
    /// screen first, which would read the typed lines.)
    fn asked_on_the_desk(
        responder: &mut dyn crate::responder::Responder,
        job: crate::responder::LinesJobOnce,
    ) -> Result<(), crate::responder::lines::SignInError> {
        let between = crate::session::Between::Sleep;
        crate::session::run_with(responder, between, |desk| async move {
            let sign_in = desk.sign_in_desk();
            let seen = sign_in.sign_ins().version();
            let done = sign_in.ask_in_lines(job);
            // The question is an event for the session and its screens.
            assert!(sign_in.sign_ins().version() > seen);
            // (The responder runs on the other thread: waiting here blocks
            // nothing it needs.)
            let r = done.recv().expect("the responder thread answers");
            drop(desk);
            r
        })
        .expect("the session runs")
    }

    #[test]
    fn a_sign_in_put_on_the_desk_runs_on_the_answering_threads_terminal_or_says_there_is_none() {
        let (_rx, paste, port) = listener();
        let u = url(port);
        let job = {
            let (u, paste) = (u.clone(), paste.clone());
            move |io: &mut dyn LineIo| {
                let scopes = vec!["mcp:tools".to_owned()];
                let mut b = NoOpen::default();
                sign_in(
                    io,
                    &request(&u, &scopes, &paste),
                    &mut b,
                    false,
                    Duration::ZERO,
                )
            }
        };
        let mut p = crate::plain::PlainResponder::new(
            MemoryIo::typing(&["open"]),
            Box::new(NoOpen::default()),
            false,
        );
        let r = asked_on_the_desk(&mut p, Box::new(job.clone()));
        assert!(r.is_ok(), "{r:?}");
        assert!(
            p.io.transcript.contains("Access asked mcp:tools\n"),
            "{}",
            p.io.transcript
        );
        // A responder without a terminal does not run it.
        let mut s = crate::scripted::ScriptedResponder::from_action(crate::binding::Action::Accept);
        let r = asked_on_the_desk(&mut s, Box::new(job));
        assert_eq!(r.unwrap_err().to_string(), "no terminal to sign in on");
    }
}
