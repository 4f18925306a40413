//! The `trace` command of plain lines: at the list of a server tried by
//! hand (and after a result), `trace` prints the last
//! [`TRACE_SAID`] JSON-RPC messages of the session, `trace N` the last N,
//! one line each (direction, time since the start, method and id, size,
//! outcome; [`crate::responder::trace::Entry::line`], escaped).

use super::io::LineIo;
use super::PlainResponder;
use crate::responder::trace::TRACE_MESSAGES;
use crate::responder::RespondError;

/// How many messages `trace` prints without a number.
pub const TRACE_SAID: usize = 20;

/// What `line` asks, when it is the `trace` command: how many of the last
/// messages to print (`trace` [`TRACE_SAID`], `trace N` N, at most what is
/// kept); Err with what to say for `trace` followed by anything but a
/// number. None: not the command.
pub(super) fn trace_command(line: &str) -> Option<Result<usize, String>> {
    let mut words = line.split_whitespace();
    if !words.next()?.eq_ignore_ascii_case("trace") {
        return None;
    }
    Some(match (words.next(), words.next()) {
        (None, _) => Ok(TRACE_SAID),
        (Some(n), None) => n
            .parse::<usize>()
            .map(|n| n.min(TRACE_MESSAGES))
            .map_err(|_| {
                "Not understood: type trace, or trace and a number (trace 50).".to_owned()
            }),
        _ => Err("Not understood: type trace, or trace and a number (trace 50).".to_owned()),
    })
}

impl<I: LineIo> PlainResponder<I> {
    /// Run the `trace` command `line`, if it is one: true when it was
    /// (what it printed, or why not, was said).
    ///
    /// Errors: the terminal's.
    pub(super) fn traced(&mut self, line: &str) -> Result<bool, RespondError> {
        let n = match trace_command(line) {
            None => return Ok(false),
            Some(Err(said)) => {
                self.say(&said)?;
                return Ok(true);
            }
            Some(Ok(n)) => n,
        };
        let last = self.trace.last(n);
        let dropped = self.trace.dropped();
        let mut head = format!(
            "The last {} of {} message{} of the session",
            last.len(),
            self.trace.len(),
            if self.trace.len() == 1 { "" } else { "s" }
        );
        if dropped > 0 {
            head.push_str(&format!(" (the {dropped} before them were dropped)"));
        }
        head.push(':');
        if self.trace.is_empty() {
            return self.say("No message of the session yet.").map(|()| true);
        }
        self.say(&head)?;
        for e in last {
            self.say(&e.line())?;
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_trace_with_or_without_a_count() {
        assert_eq!(trace_command("trace"), Some(Ok(TRACE_SAID)));
        assert_eq!(trace_command(" TRACE 3 "), Some(Ok(3)));
        assert_eq!(trace_command("trace 999999"), Some(Ok(TRACE_MESSAGES)));
        assert!(matches!(trace_command("trace x"), Some(Err(_))));
        assert_eq!(trace_command("tracer"), None);
        assert_eq!(trace_command("3"), None);
    }

    /// At the list, `trace 2` prints the last two messages one line each,
    /// escaped, and the list still picks.
    #[test]
    fn trace_at_the_list_prints_the_last_messages() {
        use crate::browse::{Kind, Reply, Step, ToolEntry};
        use crate::responder::trace::{Direction, Trace};
        use crate::responder::Responder;
        use serde_json::json;
        use std::time::Duration;
        let trace = Trace::default();
        let msgs = [
            (
                Direction::Out,
                json!({"jsonrpc": "2.0", "id": 1, "method": "initialize"}),
            ),
            (
                Direction::Out,
                json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            ),
            (
                Direction::In,
                json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}),
            ),
            (
                Direction::In,
                json!({"jsonrpc": "2.0", "method": "x\u{1b}[2J"}),
            ),
        ];
        for (i, (d, m)) in msgs.iter().enumerate() {
            trace.record_at(*d, m, Duration::from_millis(5 * i as u64));
        }
        let mut p = PlainResponder::new(
            crate::plain::MemoryIo::typing(&["trace 2", "trace x", "1"]),
            Box::new(crate::launcher::NoOpen::default()),
            true,
        );
        p.follow_trace(std::sync::Arc::new(trace));
        let tools = vec![ToolEntry {
            kind: Kind::Tool,
            name: "book".into(),
            title: None,
            description: None,
            takes_arguments: false,
        }];
        let reply = p
            .browse_step(&Step::Pick {
                tools,
                last: None,
                feed: Default::default(),
            })
            .expect("reply");
        assert_eq!(reply, Reply::Picked(0));
        let t = &p.io().transcript;
        for said in [
            "The last 2 of 4 messages of the session:\n← +0.010s  tools/list #2  46 B  result\n← +0.015s  x\\u{1b}[2J  39 B  notification\n",
            "Not understood: type trace, or trace and a number (trace 50).",
        ] {
            assert!(t.contains(said), "{said:?} in:\n{t}");
        }
        assert!(!t.contains('\u{1b}'), "{t}");
    }
}
