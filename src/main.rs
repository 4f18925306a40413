//! Thin entry point: parse the command line, run, map to an exit code.
//! The command line (`cli`) belongs to the binary; everything it drives is
//! the `ahp_elicit` library.

/// A line to the person on stderr that never panics (std's `eprintln!`
/// panics when stderr is closed: `ahp-elicit … 2>&1 >/dev/null | head -1`).
/// This definition shadows std's for every module of the command line.
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

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
