//! `ahp-elicit respond` (placeholder until its issue lands).

/// Arguments of `ahp-elicit respond`.
#[derive(Debug, clap::Args)]
pub struct RespondArgs {}

/// Run the command; returns the exit code.
pub fn run(_args: RespondArgs) -> u8 {
    eprintln!("ahp-elicit: 'respond' is not built yet");
    super::EXIT_USAGE
}
