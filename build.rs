//! Link settings of the binary: relative relocations packed (`DT_RELR`) on
//! GNU/Linux, when this machine's linker and C library support them; and,
//! in optimized builds linked by lld, the functions a `demo` start runs
//! placed side by side (`link/symbol-order.*.txt`, see [`order_symbols`]).
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
    order_symbols();
}

/// The functions a `demo` start runs (to its first frame, a cancel and the
/// exit), listed by `benches/symbol_order.py` in `link/symbol-order.PROFILE.txt`,
/// are placed first in the code, side by side (lld's
/// `--symbol-ordering-file`; names the build does not have are skipped).
/// The kernel maps code in 64 KiB blocks around each page a program runs,
/// so the same functions spread over the whole code map about 5 MB and
/// side by side about 1 MB: the start's resident memory
/// (docs/testing.md). Only in optimized builds (`PROFILE` release: the
/// `release` and `dist` profiles), and only when rustc's linker takes the
/// option (probed: rustc links a one-line program with it), else the
/// binary is linked as before.
fn order_symbols() {
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let dir = PathBuf::from(var("CARGO_MANIFEST_DIR")).join("link");
    println!("cargo:rerun-if-changed={}", dir.display());
    if var("PROFILE") != "release" {
        return;
    }
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("symbol-order.") && n.ends_with(".txt"))
    });
    files.sort();
    let mut all = String::new();
    for f in &files {
        all.push_str(&std::fs::read_to_string(f).unwrap_or_default());
    }
    if all.trim().is_empty() {
        return;
    }
    let order = out.join("symbol-order.txt");
    if std::fs::write(&order, all).is_err() {
        return;
    }
    let flags = [
        format!("-Wl,--symbol-ordering-file={}", order.display()),
        "-Wl,--no-warn-symbol-ordering".to_owned(),
    ];
    if rustc_links_with(&flags, &out) {
        for f in flags {
            println!("cargo:rustc-link-arg-bins={f}");
        }
    }
}

/// Whether rustc (`RUSTC`, with this build's target and flags) links a
/// one-line program with the linker options `flags`.
fn rustc_links_with(flags: &[String], out: &std::path::Path) -> bool {
    let src = out.join("order_probe.rs");
    if std::fs::write(&src, "fn main() {}\n").is_err() {
        return false;
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let mut c = Command::new(rustc);
    if let Ok(t) = std::env::var("TARGET") {
        c.arg("--target").arg(t);
    }
    if let Ok(f) = std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        c.args(f.split('\x1f').filter(|a| !a.is_empty()));
    }
    for f in flags {
        c.arg("-C").arg(format!("link-arg={f}"));
    }
    c.arg(&src)
        .arg("-o")
        .arg(out.join("order_probe"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
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
