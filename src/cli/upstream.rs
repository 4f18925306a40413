//! `ahp-elicit upstream` (placeholder until its issue lands).

/// The upstream subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum UpstreamCommand {
    /// Check the pinned digests and the committed extraction.
    Verify,
}

/// Run the command; returns the exit code.
pub fn run(_c: UpstreamCommand) -> u8 {
    eprintln!("ahp-elicit: 'upstream' is not built yet");
    super::EXIT_USAGE
}
