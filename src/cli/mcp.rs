//! `ahp-elicit mcp` (placeholder until its issue lands).

/// Arguments of `ahp-elicit mcp`.
#[derive(Debug, clap::Args)]
pub struct McpArgs {}

/// Run the command; returns the exit code.
pub fn run(_args: McpArgs) -> u8 {
    eprintln!("ahp-elicit: 'mcp' is not built yet");
    super::EXIT_USAGE
}
