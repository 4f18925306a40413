//! The pseudo-terminal harness shared by the end-to-end tests (tests/pty
//! and the terminal tests of tests/mcp): the real binary in a pty, its
//! screen read through a terminal emulator (`vt100`), keys sent paced as a
//! person types them, the result file checked line by line.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use expectrl::Expect;
use serde_json::Value;

pub use super::{BIN, PATIENCE};
/// How long [`Tui::wait_raw`] waits: the sign-in lines come after a server
/// and its authorization server answered.
pub const RAW_PATIENCE: Duration = Duration::from_secs(60);

/// One run of the binary in a pty, with the screen it draws.
pub struct Tui {
    pub s: expectrl::session::OsSession,
    pub vt: vt100::Parser,
    pub raw: Vec<u8>,
    pub eof: bool,
    pub pid_file: PathBuf,
    pub err_file: PathBuf,
    /// When the last key was sent (or the run started): keys are paced like
    /// a person's, at least [`PACE`] apart, so the URL consent guard
    /// (`CONSENT_GUARD`, 400 ms) is passed as it is by a person who reads.
    pub last_key: Instant,
    /// When output last arrived (see [`Tui::send`]).
    pub last_output: Instant,
    /// Answer the program's background query as a terminal that does not
    /// know OSC 11 does: its device attributes query (`ESC [ c`, after
    /// `ESC ] 11 ; ?`) gets `ESC [ ? 62 ; 22 c`, once, when [`Tui::pump`]
    /// reads it, so the query ends at once as with every real terminal. A
    /// test that plays the terminal's answers itself sets this false.
    pub answer_queries: bool,
}

/// The background query a terminal answers (src/tui/background.rs).
const BACKGROUND_QUERY: &[u8] = b"\x1b]11;?\x07\x1b[c";

/// The most bytes of output searched for [`BACKGROUND_QUERY`]: it comes
/// before the first frame.
const QUERY_WITHIN: usize = 1 << 16;

/// The least time between two key sends (see [`Tui::send`]).
pub const PACE: Duration = Duration::from_millis(450);

/// A FIFO in `dir` that gives the bytes of the file `input` to whoever
/// opens it for reading, then end of input: a live stream on stdin
/// (`respond - < FIFO`), where `< FILE` would be a regular file.
pub fn stream_of(dir: &Path, input: &Path) -> PathBuf {
    let fifo = dir.join("stream.fifo");
    let st = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(st.success(), "mkfifo");
    let bytes = std::fs::read(input).expect("read the input");
    let path = fifo.clone();
    std::thread::spawn(move || {
        // Opening blocks until the program opens its end.
        if let Ok(mut w) = std::fs::OpenOptions::new().write(true).open(&path) {
            let _ = std::io::Write::write_all(&mut w, &bytes);
        }
    });
    fifo
}

/// A FIFO at `dir/requests.fifo`: the input of a run fed as a live
/// stream (see [`open_live`]).
pub fn make_fifo(dir: &Path) -> PathBuf {
    let fifo = dir.join("requests.fifo");
    let st = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(st.success(), "mkfifo {}", fifo.display());
    fifo
}

/// The writing end of `fifo`, once the program opened it for reading.
/// Opening blocks until then: done in a thread, so a program that never
/// opens it fails the test (after [`PATIENCE`]) instead of hanging it.
pub fn open_live(fifo: &Path) -> std::fs::File {
    let (tx, rx) = std::sync::mpsc::channel();
    let path = fifo.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(std::fs::OpenOptions::new().write(true).open(&path));
    });
    rx.recv_timeout(PATIENCE)
        .expect("ahp-elicit opens the FIFO")
        .expect("open the FIFO")
}

/// The launchers the system browser is started with when no `--browser`
/// is given (the `open` crate's, in its order, and `$BROWSER`'s usual
/// names).
pub const SYSTEM_BROWSERS: &[&str] = &[
    "xdg-open",
    "gio",
    "gnome-open",
    "kde-open",
    "wslview",
    "x-www-browser",
    "sensible-browser",
    "www-browser",
];

/// The folder `dir/fakebin`, holding under each of `names` an executable
/// `sh` script whose body is `body(name)`; returns it, to put first on
/// `PATH`.
pub fn fake_browsers(dir: &Path, names: &[&str], body: impl Fn(&str) -> String) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("fakebin");
    std::fs::create_dir(&bin).expect("mkdir fakebin");
    for name in names {
        let p = bin.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{}", body(name))).expect("write fake browser");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    bin
}

/// Write `lines` (request events, one a line) to `dir/requests.jsonl`;
/// returns its path.
pub fn write_requests(dir: &Path, lines: &[String]) -> PathBuf {
    let path = dir.join("requests.jsonl");
    let mut text = lines.join("\n");
    text.push('\n');
    std::fs::write(&path, text).expect("write requests");
    path
}

/// The environment of a desktop session: a display set, no SSH session
/// (empty counts as unset), so the system browser is the one a consented
/// URL goes to, whatever the machine running the tests has.
pub fn with_display() -> Vec<(&'static str, String)> {
    vec![
        ("DISPLAY", ":0".to_owned()),
        ("WAYLAND_DISPLAY", String::new()),
        ("SSH_CONNECTION", String::new()),
        ("SSH_TTY", String::new()),
    ]
}

/// The environment of a machine with no display (neither `DISPLAY` nor
/// `WAYLAND_DISPLAY`) and no SSH session: no browser can be opened.
pub fn without_display() -> Vec<(&'static str, String)> {
    vec![
        ("DISPLAY", String::new()),
        ("WAYLAND_DISPLAY", String::new()),
        ("SSH_CONNECTION", String::new()),
        ("SSH_TTY", String::new()),
    ]
}

/// `text` without any whitespace (wrapping-insensitive comparison).
pub fn squash(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

impl Tui {
    /// Run `ahp-elicit ARGS > out` in a `cols`x`rows` pty (the size is set
    /// before the program starts); stderr goes to a file. The shell prints
    /// `stty -g` before and after, and `[exit=N]`.
    pub fn start(dir: &Path, out: &Path, cols: u16, rows: u16, args: &str) -> Tui {
        Tui::start_env(dir, out, cols, rows, args, &[])
    }

    /// `ahp-elicit respond 'INPUT' FLAGS > out` in a `cols`x`rows` pty
    /// ([`Tui::start`]).
    pub fn respond(
        dir: &Path,
        out: &Path,
        (cols, rows): (u16, u16),
        input: &Path,
        flags: &str,
    ) -> Tui {
        let args = format!("respond '{}' {flags}", input.display());
        Tui::start(dir, out, cols, rows, args.trim_end())
    }

    /// `respond FIFO FLAGS > out` at `cols`x`rows` on a live stream: a new
    /// FIFO in `dir` ([`make_fifo`]); returns the run and the stream's
    /// writing end ([`open_live`]), kept open until dropped.
    pub fn respond_live(
        dir: &Path,
        out: &Path,
        size: (u16, u16),
        flags: &str,
    ) -> (Tui, std::fs::File) {
        let fifo = make_fifo(dir);
        let t = Tui::respond(dir, out, size, &fifo, flags);
        let w = open_live(&fifo);
        (t, w)
    }

    /// `ahp-elicit WORDS... > dir/out.json` in a `cols`x`rows` pty, each
    /// word quoted for the shell ([`Tui::start`]).
    pub fn start_words<S: AsRef<str>>(
        dir: &Path,
        (cols, rows): (u16, u16),
        words: impl IntoIterator<Item = S>,
    ) -> Tui {
        let args: Vec<String> = words
            .into_iter()
            .map(|w| super::sdk::sh_quote(w.as_ref()))
            .collect();
        Tui::start(dir, &dir.join("out.json"), cols, rows, &args.join(" "))
    }

    /// [`Tui::start`] with extra environment variables.
    pub fn start_env(
        dir: &Path,
        out: &Path,
        cols: u16,
        rows: u16,
        args: &str,
        envs: &[(&str, String)],
    ) -> Tui {
        Tui::spawn(dir, out, (cols, rows), args, envs, true, "")
    }

    /// [`Tui::start`] with stderr left on the terminal (not in a file): what
    /// the program says there is seen as a person sees it.
    pub fn start_err_shown(dir: &Path, out: &Path, cols: u16, rows: u16, args: &str) -> Tui {
        Tui::spawn(dir, out, (cols, rows), args, &[], false, "")
    }

    /// [`Tui::start`], and after the program the shell runs `then` on the
    /// same terminal (what it reads there is what the program left unread).
    pub fn start_then(dir: &Path, out: &Path, cols: u16, rows: u16, args: &str, then: &str) -> Tui {
        Tui::spawn(dir, out, (cols, rows), args, &[], true, then)
    }

    fn spawn(
        dir: &Path,
        out: &Path,
        (cols, rows): (u16, u16),
        args: &str,
        envs: &[(&str, String)],
        err_to_file: bool,
        then: &str,
    ) -> Tui {
        let pid_file = dir.join("pid");
        let err_file = dir.join("stderr");
        let redirect = if err_to_file {
            format!("2> '{}'", err_file.display())
        } else {
            String::new()
        };
        let script = format!(
            "stty rows {rows} cols {cols}; echo \"[before=$(stty -g)]\"; \
             '{BIN}' {args} > '{out}' {redirect} & echo $! > '{pid}'; \
             wait $!; echo \"[exit=$?]\"; echo \"[after=$(stty -g)]\"; {then}",
            out = out.display(),
            pid = pid_file.display()
        );
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(script);
        cmd.env("TERM", "xterm-256color");
        cmd.env_remove("NO_COLOR");
        // No keychain: a sign-in the tests make never reaches the
        // desktop's (tests/mcp/keyring.rs gives a bus of its own).
        cmd.env_remove("DBUS_SESSION_BUS_ADDRESS");
        cmd.env_remove("XDG_RUNTIME_DIR");
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut s = expectrl::Session::spawn(cmd).expect("spawn in a pty");
        let _ = s.get_process_mut().set_window_size(cols, rows);
        Tui {
            s,
            vt: vt100::Parser::new(
                std::num::NonZeroU16::new(rows).expect("rows > 0"),
                std::num::NonZeroU16::new(cols).expect("cols > 0"),
                0,
            ),
            raw: Vec::new(),
            eof: false,
            pid_file,
            err_file,
            last_key: Instant::now(),
            last_output: Instant::now(),
            answer_queries: true,
        }
    }

    /// Read what the pty has now (never blocks); answer the background
    /// query when [`Tui::answer_queries`] says so.
    pub fn pump(&mut self) {
        let mut buf = [0u8; 16384];
        let searched = self.raw.len();
        while !self.eof {
            match self.s.try_read(&mut buf) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    self.last_output = Instant::now();
                    self.vt.process(&buf[..n]);
                    self.raw.extend_from_slice(&buf[..n]);
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                // EIO: the other side of the pty is closed.
                Err(_) => self.eof = true,
            }
        }
        if self.answer_queries && searched < QUERY_WITHIN {
            let from = searched.saturating_sub(BACKGROUND_QUERY.len());
            let upto = self.raw.len().min(QUERY_WITHIN + BACKGROUND_QUERY.len());
            if self.raw[from..upto]
                .windows(BACKGROUND_QUERY.len())
                .any(|w| w == BACKGROUND_QUERY)
            {
                self.answer_queries = false;
                let _ = self.s.send("\x1b[?62;22c");
            }
        }
    }

    pub fn screen(&self) -> String {
        self.vt.screen().contents()
    }

    /// Read the pty until `ready` gives `Some` (checked after each read),
    /// and return that; panics when the run ends first or after `patience`,
    /// with `what` the test waited for, the screen and stderr. The one wait
    /// of the harness: every other waits through it.
    pub fn until<T>(
        &mut self,
        what: &str,
        patience: Duration,
        mut ready: impl FnMut(&mut Tui) -> Option<T>,
    ) -> T {
        super::wait_ok(patience, || {
            self.pump();
            if let Some(v) = ready(self) {
                return Ok(v);
            }
            let seen = format!(
                "waiting for {what}; the screen:\n{}\nstderr: {}",
                self.screen(),
                self.stderr()
            );
            assert!(!self.eof, "the run ended {seen}");
            Err(seen)
        })
    }

    /// Wait until the screen shows `text` (whitespace ignored).
    pub fn wait_for(&mut self, text: &str) {
        let want = squash(text);
        self.until(&format!("{text:?}"), PATIENCE, |t| {
            squash(&t.screen()).contains(&want).then_some(())
        });
        // A person reads what just appeared before pressing a key.
        self.last_key = Instant::now();
    }

    /// Whether the bytes read so far end with a whole frame: ratatui ends
    /// every frame by hiding the cursor (`CSI ?25l`) or by showing it and
    /// placing it (`CSI ?25h`, `CSI row;col H`). A screen read at a frame's
    /// end is that frame, not one half drawn over the one before.
    pub fn at_frame_end(&self) -> bool {
        let raw = &self.raw;
        if raw.ends_with(b"\x1b[?25l") {
            return true;
        }
        let Some(at) = raw.windows(6).rposition(|w| w == b"\x1b[?25h") else {
            return false;
        };
        let tail = &raw[at + 6..];
        tail.starts_with(b"\x1b[")
            && tail.ends_with(b"H")
            && tail[2..tail.len() - 1]
                .iter()
                .all(|b| b.is_ascii_digit() || *b == b';')
    }

    /// [`Tui::wait_for`], then until the bytes read end with a whole frame
    /// ([`Tui::at_frame_end`]) that shows `text`: what the screen then lacks
    /// is not on that frame (no pause and hope).
    pub fn wait_for_frame(&mut self, text: &str) {
        let want = squash(text);
        self.until(&format!("a whole frame with {text:?}"), PATIENCE, |t| {
            (t.at_frame_end() && squash(&t.screen()).contains(&want)).then_some(())
        });
        self.last_key = Instant::now();
    }

    /// Send `key`, one that changes the drawing (a focus move), and wait for
    /// the whole frame it changes. The program reads keys in order, so once
    /// that frame is on screen every key sent before `key` has been read and
    /// handled: what those keys did not do, they will not do. Paced like
    /// [`Tui::send`], so a consent guard does not drop `key` itself.
    pub fn send_marker(&mut self, key: &str) {
        self.pump();
        let before = self.vt.screen().contents_formatted();
        self.send(key);
        self.until(
            &format!("the frame the marker key {key:?} changes"),
            PATIENCE,
            |t| (t.at_frame_end() && t.vt.screen().contents_formatted() != before).then_some(()),
        );
    }

    /// Wait until the bytes written so far (all of them, not the screen:
    /// text printed in lines, then drawn over) satisfy `ok`; then, as
    /// [`Tui::wait_for`], a person reads before the next key. `what` names
    /// what is awaited in the failure message.
    pub fn wait_raw_until(&mut self, what: &str, ok: impl Fn(&str) -> bool) {
        self.until(&format!("{what} in what was written"), RAW_PATIENCE, |t| {
            ok(&String::from_utf8_lossy(&t.raw)).then_some(())
        });
        self.last_key = Instant::now();
    }

    /// [`Tui::wait_raw_until`] the bytes written hold `text` (whitespace
    /// ignored).
    pub fn wait_raw(&mut self, text: &str) {
        let want = squash(text);
        self.wait_raw_until(&format!("{text:?}"), |raw| squash(raw).contains(&want));
    }

    /// Send `keys`, then [`Tui::wait_for`] `text`.
    pub fn press(&mut self, keys: &str, text: &str) {
        self.send(keys);
        self.wait_for(text);
    }

    /// Submit the form on screen and send it from its review: Ctrl-S, the
    /// review step, Enter.
    pub fn submit(&mut self) {
        self.press("\u{13}", "Review");
        self.send("\r");
    }

    /// Whether the screen shows `text` now (whitespace ignored).
    pub fn shows(&mut self, text: &str) -> bool {
        self.pump();
        squash(&self.screen()).contains(&squash(text))
    }

    /// Send `keys` as a person types them: at least [`PACE`] after the
    /// last key (or the text last waited for), and [`PACE`] after the last
    /// output that came within that pause, at most twice [`PACE`] in all
    /// (a clock or spinner that redraws does not hold keys back). Output is
    /// read all the while, as a terminal reads it: a frame whose bytes
    /// fill the pseudo-terminal is written whole before the pause ends, so
    /// the screen's guard, which counts from the end of the frame's write,
    /// has seen it for the pause too.
    pub fn send(&mut self, keys: &str) {
        self.pace();
        self.s.send(keys).expect("send keys");
        self.last_key = Instant::now();
    }

    /// The pause of [`Tui::send`] before a key, without the key: at least
    /// [`PACE`] after the last key or the text last waited for, longer
    /// while output still comes (at most twice [`PACE`]), output read all
    /// the while. A request screen's consent guard (`CONSENT_GUARD`)
    /// drops keys that come sooner, and nothing the program shows says
    /// when a person has read a screen: this pause is how long one reads.
    pub fn pace(&mut self) {
        let cap = self.last_key + 2 * PACE;
        loop {
            self.pump();
            let ready = (self.last_key.max(self.last_output) + PACE).min(cap);
            let now = Instant::now();
            if now >= ready || self.eof {
                break;
            }
            // The reading pause itself, by design (see above).
            std::thread::sleep((ready - now).min(Duration::from_millis(10)));
        }
    }

    /// Send `keys` at once, no pause before them (a program or a slow link
    /// types them, not a person): what comes next is paced from here.
    pub fn send_now(&mut self, keys: &str) {
        self.s.send(keys).expect("send keys");
        self.last_key = Instant::now();
    }

    /// Send `keys` as one link delivers them, each piece `gap` after the
    /// one before (the first at once): an Esc that a letter follows within
    /// the Alt window, a terminal's reply split by a slow link, keys
    /// pressed faster than a person reads. The gap is what is tested, so it
    /// is a clock by design; what follows is paced from the last piece.
    pub fn send_spaced(&mut self, gap: Duration, keys: &[&str]) {
        for (i, k) in keys.iter().enumerate() {
            self.send_after(if i == 0 { Duration::ZERO } else { gap }, k);
        }
    }

    /// Send `keys` `gap` after the last key, no other pause: a piece of
    /// what a slow link delivers ([`Tui::send_spaced`]).
    pub fn send_after(&mut self, gap: Duration, keys: &str) {
        let due = self.last_key + gap;
        let now = Instant::now();
        if due > now {
            // The gap under test (see [`Tui::send_spaced`]): no condition
            // stands for it.
            std::thread::sleep(due - now);
        }
        self.send_now(keys);
    }

    /// Resize the pty (the program gets SIGWINCH) and the emulator; does
    /// not wait for the redraw.
    pub fn resize(&mut self, cols: u16, rows: u16) {
        self.s
            .get_process_mut()
            .set_window_size(cols, rows)
            .expect("resize the pty");
        self.vt.set_size(
            std::num::NonZeroU16::new(rows).expect("rows"),
            std::num::NonZeroU16::new(cols).expect("cols"),
        );
    }

    /// [`Tui::resize`] to `cols`x`rows` (a size other than the present
    /// one) and wait for the whole frame drawn at it: a marker for a screen
    /// where no key changes the drawing without acting. The program reads
    /// the keys sent before the resize first (they were waiting on the
    /// terminal before the signal came), so once that frame shows, what
    /// those keys did not do they will not do.
    pub fn resize_marker(&mut self, cols: u16, rows: u16) {
        self.pump();
        let before = self.raw.len();
        self.resize(cols, rows);
        self.until(
            &format!("the frame redrawn at {cols}x{rows}"),
            PATIENCE,
            |t| (t.raw.len() > before && t.at_frame_end()).then_some(()),
        );
        self.last_key = Instant::now();
    }

    /// Send `key` (paced like a person) until `done` holds: a key read
    /// within a consent guard, which a loaded machine may start a while
    /// after the screen reached the terminal, is dropped, and a person
    /// presses it again. Each try waits up to 1.5 s for `done`; panics
    /// after five.
    pub fn press_until(&mut self, key: &str, what: &str, mut done: impl FnMut(&mut Tui) -> bool) {
        for _ in 0..5 {
            self.send(key);
            let took = super::came_true(Duration::from_millis(1500), || {
                self.pump();
                self.eof || done(self)
            });
            if took {
                return;
            }
        }
        panic!(
            "{what} never came after {key:?}; the screen:\n{}",
            self.screen()
        );
    }

    /// The pid of `ahp-elicit` itself (not of the shell).
    #[allow(dead_code)]
    pub fn pid(&self) -> i32 {
        super::wait_ok(PATIENCE, || {
            std::fs::read_to_string(&self.pid_file)
                .ok()
                .and_then(|t| t.trim().parse().ok())
                .ok_or_else(|| "no pid file".to_owned())
        })
    }

    /// What the program wrote on stderr.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.err_file).unwrap_or_default()
    }

    /// Wait until the run ended (the shell closed the pty), reading all it
    /// wrote; panics after [`PATIENCE`] showing the screen.
    pub fn wait_end(&mut self) {
        self.until("the end of the run", PATIENCE, |t| t.eof.then_some(()));
    }

    /// Wait for the end of the run; returns the program's exit code and
    /// checks that the terminal was given back: the alternate screen left,
    /// bracketed paste off, and the terminal mode (`stty -g`) as it was
    /// before the program started (so raw mode is off).
    pub fn finish(&mut self) -> i32 {
        self.wait_end();
        let raw = String::from_utf8_lossy(&self.raw).into_owned();
        assert!(raw.contains("\u{1b}[?1049l"), "left the alternate screen");
        assert!(raw.contains("\u{1b}[?2004l"), "bracketed paste disabled");
        let field = |name: &str| printed(&raw, name);
        let code: i32 = field("exit").parse().expect("exit code");
        assert_eq!(
            field("after"),
            field("before"),
            "the terminal mode (stty -g) is restored"
        );
        assert!(
            !self.stderr().contains("panicked"),
            "no panic: {}",
            self.stderr()
        );
        code
    }
}

impl Tui {
    /// [`Tui::finish`], and the restore was the last thing the program
    /// wrote: after leaving the alternate screen only "show the cursor"
    /// (`ESC [ ? 25 h`), nothing drawn over the normal screen. Returns the
    /// exit code.
    pub fn finish_restored_last(&mut self) -> i32 {
        let code = self.finish();
        let raw = String::from_utf8_lossy(&self.raw).into_owned();
        let at = raw
            .rfind("\u{1b}[?1049l")
            .expect("the alternate screen was left");
        let tail = &raw[at + "\u{1b}[?1049l".len()..];
        // The shell's own lines follow the program's output.
        let program_tail = &tail[..tail.find("[exit=").unwrap_or(tail.len())];
        assert_eq!(
            program_tail.trim_end_matches(['\r', '\n']),
            "\u{1b}[?25h",
            "nothing but the restore after leaving the alternate screen"
        );
        code
    }
}

/// What the harness's shell printed last as `[NAME=…]` in `text` (`before`,
/// `after`: `stty -g`; `exit`: the exit code).
pub fn printed(text: &str, name: &str) -> String {
    let key = format!("[{name}=");
    let at = text.rfind(&key).unwrap_or_else(|| panic!("{key} printed"));
    let rest = &text[at + key.len()..];
    rest[..rest.find(']').expect("]")].to_owned()
}

impl Tui {
    /// Wait for the end of a plain-mode run; returns its exit code. Checks
    /// that plain mode wrote no escape sequence at all (so nothing a server
    /// sent got through either) and that the terminal mode (`stty -g`) is
    /// as before the program started.
    pub fn finish_plain(&mut self) -> i32 {
        self.wait_end();
        let text = String::from_utf8_lossy(&self.raw).into_owned();
        assert!(!text.contains('\u{1b}'), "{text:?}");
        let field = |name: &str| printed(&text, name);
        assert_eq!(field("after"), field("before"), "terminal mode restored");
        field("exit").parse().expect("exit code")
    }
}

/// Every line of `out`, each a complete result event: (action,
/// parentEventId, parsed ElicitResult text).
pub fn results(out: &Path) -> Vec<(String, String, Value)> {
    let text = std::fs::read_to_string(out).expect("output file");
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "no partial line: {text:?}"
    );
    text.lines()
        .map(|l| {
            let ev: Value = serde_json::from_str(l).expect("a JSON line");
            ahp_elicit::binding::read_result(ev.clone()).expect("a valid result event");
            let inner: Value = serde_json::from_str(
                ev["payload"]["elicitation"]["result"]["text"]
                    .as_str()
                    .expect("text part"),
            )
            .expect("result text");
            (
                ev["payload"]["elicitation"]["action"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                ev["parentEventId"].as_str().unwrap_or_default().to_owned(),
                inner,
            )
        })
        .collect()
}

/// Asserts that `out` holds one result a line ([`results`]) with these
/// (action, parentEventId) pairs, in this order.
pub fn assert_answers(out: &Path, want: &[(&str, &str)]) {
    assert_eq!(actions_and_parents(&results(out)), want);
}

/// (action, parentEventId) of each result.
pub fn actions_and_parents(rs: &[(String, String, Value)]) -> Vec<(&str, &str)> {
    rs.iter()
        .map(|(a, p, _)| (a.as_str(), p.as_str()))
        .collect()
}
