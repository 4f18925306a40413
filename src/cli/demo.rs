//! `ahp-elicit demo` (placeholder until its issue lands).

/// Arguments of `ahp-elicit demo`.
#[derive(Debug, clap::Args)]
pub struct DemoArgs {}

/// Run the command; returns the exit code.
pub fn run(_args: DemoArgs) -> u8 {
    eprintln!("ahp-elicit: 'demo' is not built yet");
    super::EXIT_USAGE
}
