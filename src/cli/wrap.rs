//! `ahp-elicit wrap` (placeholder until its issue lands).

/// Arguments of `ahp-elicit wrap`.
#[derive(Debug, clap::Args)]
pub struct WrapArgs {}

/// Run the command; returns the exit code.
pub fn run(_args: WrapArgs) -> u8 {
    eprintln!("ahp-elicit: 'wrap' is not built yet");
    super::EXIT_USAGE
}
