//! Link setting of the binary: relative relocations packed (`DT_RELR`) on
//! GNU/Linux, when this machine's linker and C library support them.
//!
//! A position-independent executable holds one relocation for each pointer
//! in its read-only data (vtables, string tables): about 44,000 here, 1 MB
//! of `.rela.dyn` that the dynamic loader reads in full at every start.
//! Packed as a bitmap (`-z pack-relative-relocs`: GNU ld 2.38, lld 15,
//! glibc 2.36) they take 12 KB: the file is 1 MB smaller and a start maps
//! 1 MB less (docs/dependencies.md, "Build profiles").
//!
//! Support is probed, not assumed: a one-line C program is linked with the
//! option and run. When that fails (an older linker or C library, another
//! C compiler's options, a cross build) the binary is linked as before. A
//! binary linked this way needs glibc 2.36 or newer to run. Only the
//! binary is linked this way (`rustc-link-arg-bins`).

use std::path::PathBuf;
use std::process::{Command, Stdio};

const FLAG: &str = "-Wl,-z,pack-relative-relocs";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CC");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let native = var("HOST") == var("TARGET");
    if var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "gnu"
        && native
        && links_and_runs()
    {
        println!("cargo:rustc-link-arg-bins={FLAG}");
    }
}

/// Whether a C program linked with [`FLAG`] by this machine's C compiler
/// (`CC`, else `cc`, the linker driver rustc uses) builds and runs.
fn links_and_runs() -> bool {
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return false;
    };
    let src = out.join("relr_probe.c");
    let exe = out.join("relr_probe");
    if std::fs::write(&src, "int main(void) { return 0; }\n").is_err() {
        return false;
    }
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let quiet = |c: &mut Command| {
        c.stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    quiet(
        Command::new(&cc)
            .arg("-pie")
            .arg("-fPIE")
            .arg(FLAG)
            .arg("-Wl,--fatal-warnings")
            .arg(&src)
            .arg("-o")
            .arg(&exe),
    ) && quiet(&mut Command::new(&exe))
}
