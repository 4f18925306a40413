//! `ahp-elicit modify`: apply a
//! `modify(content)` effect to a result event (or a `user.message.outbound`
//! event) through [`crate::binding::effects`], and print the new event.
//!
//! On success the new event is printed as one JSON line on stdout (exit 0).
//! On refusal nothing is printed on stdout; each reason is printed on stderr
//! as `pointer [rule] message` (exit 1). Unreadable files or usage: exit 2.
//!
//! The permission defaults to `read`, the safest reading of a subscriber
//! whose grant is not stated: a modify is then refused until
//! `--permission read-write` is given explicitly.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::binding::effects::{apply_content_effect, parse_effect, Permission};
use crate::binding::{parse_json, read_request, ReadOptions, Violation};
use crate::respond::sink::terminal_safe;
use crate::safe_text::display;

use super::Exit;

/// Arguments of `ahp-elicit modify`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:\n  ahp-elicit modify --permission read-write --request examples/form-every-kind.request.json \\\n      \
--result examples/form-every-kind.result.json --effect examples/inputs/content.effect.json\n\n\
The effect file holds {\"effect\": \"modify\", \"target\": \"content\", \"op\": \"replace\"|\"merge\", \"value\": ...}. \
At a user.elicitation.result, value is an object (the new or merged answer content) and the \
result must be an accepted form result with a body text part; at a user.message.outbound, \
value is a list of canonical messages and op is replace. user.elicitation.request has no \
modify(request).\n\n\
Permission defaults to read (the safest): modify is refused unless --permission read-write is given.\n\n\
Exit status: 0 the new event is on stdout, 1 refused (reasons on stderr), 2 usage or unreadable input.")]
pub struct ModifyArgs {
    /// The event to modify: a user.elicitation.result (or user.message.outbound) event; `-` is stdin.
    #[arg(long, visible_alias = "event", value_name = "FILE")]
    pub result: PathBuf,
    /// The request event the result answers (needed at a result: the content is checked against its form).
    #[arg(long, value_name = "FILE")]
    pub request: Option<PathBuf>,
    /// The effect document.
    #[arg(long, value_name = "FILE")]
    pub effect: PathBuf,
    /// The subscriber's permission on the event: read (default) or read-write.
    #[arg(long, default_value = "read", value_enum)]
    pub permission: Permission,
}

enum Load {
    Io(String),
    Bad(Vec<Violation>),
}

fn load(path: &Path, what: &str) -> Result<serde_json::Value, Load> {
    let bytes =
        super::read_input(path, crate::binding::limits::MAX_EVENT_BYTES, what).map_err(Load::Io)?;
    parse_json(&bytes).map_err(|e| Load::Bad(vec![e]))
}

fn refuse(what: &str, errs: &[Violation]) -> Exit {
    super::print_violations("modify", &format!("refused: {what}"), errs);
    Exit::Invalid
}

/// Run the command; returns the exit status.
pub fn run(args: ModifyArgs) -> Exit {
    let stdins = [
        Some(&args.result),
        args.request.as_ref(),
        Some(&args.effect),
    ]
    .iter()
    .filter(|p| p.is_some_and(|p| p.as_os_str() == "-"))
    .count();
    if stdins > 1 {
        crate::notice::say_in("modify", "only one of the files can be '-' (stdin)");
        return Exit::Usage;
    }
    let perm = args.permission;
    let get = |p: &PathBuf, what: &str| match load(p, what) {
        Ok(v) => Ok(v),
        Err(Load::Io(m)) => {
            crate::notice::say_in("modify", display(&m));
            Err(Exit::Usage)
        }
        Err(Load::Bad(es)) => Err(refuse(&format!("the {what} is not a JSON event"), &es)),
    };
    let event = match get(&args.result, "event") {
        Ok(v) => v,
        Err(c) => return c,
    };
    let effect = match get(&args.effect, "effect") {
        Ok(v) => v,
        Err(c) => return c,
    };
    let request = match &args.request {
        None => None,
        Some(p) => {
            let v = match get(p, "request") {
                Ok(v) => v,
                Err(c) => return c,
            };
            match read_request(v, ReadOptions::default()) {
                Ok(r) => Some(r),
                Err(es) => return refuse("the request event is not valid", &es),
            }
        }
    };
    let effect = match parse_effect(&effect) {
        Ok(e) => e,
        Err(es) => return refuse("the effect is malformed", &es),
    };
    match apply_content_effect(&event, request.as_ref(), &effect, perm) {
        Ok(new) => {
            let mut out = std::io::stdout().lock();
            if writeln!(out, "{}", terminal_safe(&new.to_string()))
                .and_then(|_| out.flush())
                .is_err()
            {
                return Exit::Usage;
            }
            Exit::Ok
        }
        Err(es) => refuse("the effect is not applied; nothing changed", &es),
    }
}
