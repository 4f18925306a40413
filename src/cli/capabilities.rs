//! `ahp-elicit capabilities` (placeholder until its issue lands).

/// Arguments of `ahp-elicit capabilities`.
#[derive(Debug, clap::Args)]
pub struct CapabilitiesArgs {}

/// Run the command; returns the exit code.
pub fn run(_args: CapabilitiesArgs) -> u8 {
    eprintln!("ahp-elicit: 'capabilities' is not built yet");
    super::EXIT_USAGE
}
