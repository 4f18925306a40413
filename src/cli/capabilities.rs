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

/// Arguments of `ahp-elicit capabilities`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:\n  ahp-elicit capabilities --modes form\n  \
ahp-elicit capabilities --from-mcp '{\"elicitation\": {}}'   # legacy MCP: form only\n\n\
Exit status: 0 printed, 1 malformed --from-mcp object, 2 usage.")]
pub struct CapabilitiesArgs {
    /// Modes to advertise, comma separated: form, url (default both).
    #[arg(long, value_delimiter = ',', value_parser = super::respond::mode_values(), default_value = "form,url", conflicts_with = "from_mcp")]
    pub modes: Vec<Mode>,
    /// Map this MCP client capabilities object (JSON text, e.g. '{"elicitation":{"form":{}}}') to AHP.
    #[arg(long, value_name = "JSON")]
    pub from_mcp: Option<String>,
}

/// Parse `form` or `url` (clap value parser).
pub fn parse_mode(s: &str) -> Result<Mode, String> {
    Mode::parse(s.trim()).ok_or_else(|| format!("'{s}' is not form or url"))
}

/// Run the command; returns the exit code.
pub fn run(args: CapabilitiesArgs) -> u8 {
    let caps = match &args.from_mcp {
        None => {
            let mut modes = Vec::new();
            for m in args.modes {
                if !modes.contains(&m) {
                    modes.push(m);
                }
            }
            advertise(&modes)
        }
        Some(text) => {
            let v = match crate::binding::parse_json(text.as_bytes()) {
                Ok(v) => v,
                Err(e) => {
                    eprintln!(
                        "ahp-elicit capabilities: --from-mcp: {}",
                        display(&e.to_string())
                    );
                    return super::EXIT_INVALID;
                }
            };
            match from_mcp(&v) {
                Ok(c) => c,
                Err(es) => {
                    eprintln!(
                        "ahp-elicit capabilities: --from-mcp is not an MCP capability object"
                    );
                    for e in es {
                        eprintln!("  {}", display(&e.to_string()));
                    }
                    return super::EXIT_INVALID;
                }
            }
        }
    };
    println!("{}", caps.to_json());
    super::EXIT_OK
}
