//! Thin entry point: parse the command line, run, map to an exit code.
//! The command line (`cli`) belongs to the binary; everything it drives is
//! the `ahp_elicit` library.

mod cli;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = cli::Cli::parse();
    std::process::ExitCode::from(cli::run(cli))
}
