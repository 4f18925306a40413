//! `ahp-elicit capabilities`: print the
//! elicitation capability this responder advertises, or map an MCP client
//! capability object to AHP.
//!
//! Output: one JSON line `{"elicitation": {...}}` on stdout.
//! - Without `--from-mcp`: a mode object for each of `--modes` (default
//!   `form,url`), each listing only the effects this program enforces
//!   ([`crate::binding::capabilities::enforced_effects`]: `return` and, for
//!   form, `modify`).
//! - With `--from-mcp JSON`: the AHP reading of an MCP `ClientCapabilities`
//!   object ([`crate::binding::capabilities::from_mcp`]); the legacy
//!   `elicitation: {}` means form only; MCP declares no AHP effects, so the
//!   mode objects are empty.
//!
//! Exit: 0 printed; 1 the MCP capability object is malformed; 2 usage.

use crate::binding::capabilities::{advertise, from_mcp};
use crate::binding::Mode;
use crate::safe_text::display;

use super::Exit;

/// Arguments of `ahp-elicit capabilities`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:\n  ahp-elicit capabilities --modes form\n  \
ahp-elicit capabilities --from-mcp '{\"elicitation\": {}}'   # legacy MCP: form only\n\n\
Exit status: 0 printed, 1 malformed --from-mcp object, 2 usage.")]
pub struct CapabilitiesArgs {
    /// Modes to advertise, comma separated: form, url (default both).
    #[arg(
        long,
        value_delimiter = ',',
        value_enum,
        default_value = "form,url",
        conflicts_with = "from_mcp"
    )]
    pub modes: Vec<Mode>,
    /// Map this MCP client capabilities object (JSON text, e.g. '{"elicitation":{"form":{}}}') to AHP.
    #[arg(long, value_name = "JSON")]
    pub from_mcp: Option<String>,
}

/// Run the command; returns the exit status.
pub fn run(args: CapabilitiesArgs) -> Exit {
    let caps = match &args.from_mcp {
        None => advertise(&super::unique(&args.modes)),
        Some(text) => {
            let v = match crate::binding::parse_json(text.as_bytes()) {
                Ok(v) => v,
                Err(e) => {
                    crate::notice::say_in(
                        "capabilities",
                        format!("--from-mcp: {}", display(&e.to_string())),
                    );
                    return Exit::Invalid;
                }
            };
            match from_mcp(&v) {
                Ok(c) => c,
                Err(es) => {
                    super::print_violations(
                        "capabilities",
                        "--from-mcp is not an MCP capability object",
                        &es,
                    );
                    return Exit::Invalid;
                }
            }
        }
    };
    outln!("{}", caps.to_json());
    Exit::Ok
}
