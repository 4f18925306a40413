//! `ahp-elicit modify` (placeholder until its issue lands).

/// Arguments of `ahp-elicit modify`.
#[derive(Debug, clap::Args)]
pub struct ModifyArgs {}

/// Run the command; returns the exit code.
pub fn run(_args: ModifyArgs) -> u8 {
    eprintln!("ahp-elicit: 'modify' is not built yet");
    super::EXIT_USAGE
}
