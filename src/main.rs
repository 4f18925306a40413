//! Thin entry point: parse the command line, run, map to an exit code.

use clap::Parser;

/// The binary's allocator: every event read, checked and written allocates
/// (parsed values, strings, verdicts), and mimalloc serves these small,
/// short-lived blocks from per-thread free lists, with no lock and less
/// memory held than the system allocator's arenas per thread.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let cli = ahp_elicit::cli::Cli::parse();
    std::process::ExitCode::from(ahp_elicit::cli::run(cli))
}
