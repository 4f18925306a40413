//! `ahp-elicit validate` (placeholder until its issue lands).

/// Arguments of `ahp-elicit validate`.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {}

/// Run the command; returns the exit code.
pub fn run(_args: ValidateArgs) -> u8 {
    eprintln!("ahp-elicit: 'validate' is not built yet");
    super::EXIT_USAGE
}
