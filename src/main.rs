//! Thin entry point: the command line is `ahp_elicit::cli` (the `cli`
//! feature); this file only chooses the binary's allocator.

/// The binary's allocator: every event read, checked and written allocates
/// (parsed values, strings, verdicts), and mimalloc serves these small,
/// short-lived blocks from per-thread free lists, with no lock and less
/// memory held than the system allocator's arenas per thread.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    ahp_elicit::cli::main()
}
