//! `ahp-elicit validate`: validate events through the wire
//! root and the binding, one report per event. The checks and the report
//! format are the library's [`crate::validate`]; this file reads the
//! arguments, opens the inputs and the `--request` file, and maps the
//! verdicts to the exit code.
//!
//! Input: each FILE (or `-`, stdin; the default) holds one JSON event
//! (pretty-printed or not), JSON Lines of events, or several documents.
//! Results are checked against the request with id equal to their
//! `parentEventId`: from `--request FILE`, else one seen earlier in the
//! inputs (the latest 4,096 within 4 MiB).
//!
//! Output (stdout): text, or with `--format json` one object per event per
//! line (see [`crate::validate::write_verdict`]).
//!
//! Exit: 0 every event valid; 1 some event invalid (or an input holds no
//! event); 2 usage or an input that cannot be read.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::binding::{parse_json, RequestEvent, SchemaPolicy};
use crate::safe_text::display;
use crate::validate::{
    check_input, split_input, Checker, Format, MAX_REMEMBERED, MAX_REMEMBERED_BYTES,
};

use super::Exit;

/// Arguments of `ahp-elicit validate`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:\n  ahp-elicit validate examples/form-every-kind.request.json examples/form-every-kind.result.json\n  \
ahp-elicit validate --format json examples/stream.requests.jsonl\n\n\
Each input is one JSON event or JSON Lines of events. Results are checked against \
the request with id equal to their parentEventId: from --request FILE, else one seen \
earlier in the inputs (the latest 4,096 requests, within 4 MiB, are kept; a result \
with no known request is checked on its own).\n\n\
Exit status: 0 all events valid, 1 some event invalid, 2 usage or unreadable input.")]
pub struct ValidateArgs {
    /// Files to validate; `-` is stdin (the default when none is given).
    #[arg(value_name = "FILE|-")]
    pub inputs: Vec<PathBuf>,
    /// The request event(s) that results answer (one event or JSON Lines).
    #[arg(long, value_name = "FILE")]
    pub request: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// How a request's requestedSchema outside the closed AHP form subset
    /// is read: strict (the default) holds it to the subset; compatible
    /// accepts what real servers' SDKs add (titles, patterns, nullable
    /// fields...), as `mcp` and `respond --schema-policy compatible` read
    /// it, so the events `mcp` recorded from such a server validate.
    #[arg(long, value_enum, default_value = "strict", value_name = "POLICY")]
    pub schema_policy: SchemaPolicy,
}

fn open(path: &Path) -> std::io::Result<Box<dyn Read + Send>> {
    if path.as_os_str() == "-" {
        Ok(Box::new(std::io::stdin()))
    } else {
        Ok(Box::new(std::fs::File::open(path)?))
    }
}

fn name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "-".into()
    } else {
        path.display().to_string()
    }
}

/// Load the `--request` events. Errors: unreadable (exit 2) or invalid
/// (reported on stderr, exit at least 1; the valid ones are kept).
fn load_reference(path: &Path, policy: SchemaPolicy) -> Result<(Vec<RequestEvent>, bool), String> {
    let mut reqs = Vec::new();
    let mut problems = Vec::new();
    let rd = open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    split_input(rd, |c| {
        let r = c.bytes.map_err(|e| vec![e]).and_then(|b| {
            parse_json(&b)
                .map_err(|e| vec![e])
                .and_then(|v| crate::validate::read_request_noted(v, policy))
        });
        match r {
            Ok(r) => reqs.push(r),
            Err(es) => problems.push((c.line, es)),
        }
    })
    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let who = display(&name(path)).into_owned();
    for (line, es) in &problems {
        super::print_violations(
            "validate",
            &format!("--request {who}:{line}: not a valid request event"),
            es,
        );
    }
    if reqs.is_empty() && problems.is_empty() {
        crate::notice::say_in("validate", format!("--request {who}: no event found"));
        return Ok((reqs, true));
    }
    Ok((reqs, !problems.is_empty()))
}

/// Run the command; returns the exit status.
pub fn run(args: ValidateArgs) -> Exit {
    let mut worst = Exit::Ok;
    let reference = match &args.request {
        None => Vec::new(),
        Some(p) => match load_reference(p, args.schema_policy) {
            Ok((r, bad)) => {
                if bad {
                    worst = Exit::Invalid;
                }
                r
            }
            Err(m) => {
                crate::notice::say_in("validate", display(&m));
                return Exit::Usage;
            }
        },
    };
    // With no FILE and the keyboard as stdin nothing would ever arrive:
    // a hint at once, as `respond` gives (an explicit `-` still reads it).
    if args.inputs.is_empty() && std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        crate::notice::say_in(
            "validate",
            "standard input is the terminal, so no events can arrive there: give a FILE \
(ahp-elicit validate events.jsonl), pipe events in (adapter | ahp-elicit validate), \
or give - to type or paste them",
        );
        return Exit::Usage;
    }
    let inputs = if args.inputs.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.inputs.clone()
    };
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let mut checker = Checker::new(reference).with_policy(args.schema_policy);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, stdout.lock());
    let mut unreadable = false;
    for path in &inputs {
        let input = name(path);
        let rd = match open(path) {
            Ok(r) => r,
            Err(e) => {
                crate::notice::say_in("validate", format!("cannot read {}: {e}", display(&input)));
                unreadable = true;
                continue;
            }
        };
        let (res, o) = check_input(rd, &input, &mut checker, &mut out, args.format, workers);
        if o.invalid {
            worst = Exit::Invalid;
        }
        if let Err(e) = res {
            crate::notice::say_in("validate", format!("cannot read {}: {e}", display(&input)));
            unreadable = true;
        } else if o.events == 0 {
            crate::notice::say_in("validate", format!("{}: no event found", display(&input)));
            worst = Exit::Invalid;
        }
        unreadable |= o.write_failed;
    }
    unreadable |= out.flush().is_err();
    note_forgotten(&checker);
    if unreadable {
        Exit::Usage
    } else {
        worst
    }
}

/// Say on stderr when requests were forgotten (the bound of
/// [`MAX_REMEMBERED`]): results after that may have been checked on their
/// own. Not an error.
fn note_forgotten(checker: &Checker) {
    let (forgotten, alone) = checker.forgotten();
    if forgotten > 0 {
        crate::notice::say_in(
            "validate",
            format!(
                "note: {forgotten} older requests were not kept for cross-checks \
             (at most {MAX_REMEMBERED} requests or {} MiB are kept); {alone} results had no \
             remembered request and were checked on their own",
                MAX_REMEMBERED_BYTES / (1024 * 1024)
            ),
        );
    }
}
