//! Thin entry point: parse the command line, run, map to an exit code.

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = ahp_elicit::cli::Cli::parse();
    std::process::ExitCode::from(ahp_elicit::cli::run(cli))
}
