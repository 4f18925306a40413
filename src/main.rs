//! Thin entry point: parse the command line, run, map to an exit code.

use clap::Parser;

/// mimalloc: validation parses many small JSON values (one allocation per
/// string, array and object), and a parallel check frees on another thread
/// than the one that allocated; the system allocator spent about a quarter
/// of the time of `validate` there.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let cli = ahp_elicit::cli::Cli::parse();
    std::process::ExitCode::from(ahp_elicit::cli::run(cli))
}
