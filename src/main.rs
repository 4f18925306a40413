//! Thin entry point: parse the command line, run, map to an exit code.
//! The command line (`cli`) belongs to the binary; everything it drives is
//! the `ahp_elicit` library.

mod cli;

use clap::Parser;

/// The binary's allocator: every event read, checked and written allocates
/// (parsed values, strings, verdicts), and mimalloc serves these small,
/// short-lived blocks from per-thread free lists, with no lock and less
/// memory held than the system allocator's arenas per thread.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let cli = cli::Cli::parse();
    std::process::ExitCode::from(cli::run(cli))
}
