//! `ahp-elicit upstream verify|extract|refresh`: the pinned MCP upstream
//! The library side is
//! [`ahp_elicit::upstream`].
//!
//! The upstream folder is `--dir DIR`, else `$AHP_UPSTREAM_DIR`, else
//! `upstream/mcp/2025-11-25/` when it holds the files, else
//! `../shared/upstream/mcp/2025-11-25/` (both relative to the current
//! directory). `refresh` writes to `--dir`, else `$AHP_UPSTREAM_DIR`, else
//! `upstream/mcp/2025-11-25/`.
//!
//! Exit codes: 0 ok; 1 a digest or the extraction differs (each difference
//! on stderr); 2 unreadable files, a failed download or write.

use std::path::PathBuf;

use ahp_elicit::binding::schemas::MCP_ELICITATION;
use ahp_elicit::upstream::{self, UpstreamError};

use super::Exit;

/// The upstream subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum UpstreamCommand {
    /// Check the pinned digests and that a fresh extraction equals the
    /// committed schemas/mcp-elicitation.schema.json (offline).
    #[command(
        after_help = "Exit status: 0 digests and extraction match, 1 a digest or the extraction differs, 2 unreadable files."
    )]
    Verify(VerifyArgs),
    /// Regenerate schemas/mcp-elicitation.schema.json from the pinned files.
    #[command(
        after_help = "Exit status: 0 written, 1 a digest differs, 2 unreadable files or a failed write."
    )]
    Extract(ExtractArgs),
    /// Download exactly the pinned files; keep nothing unless both digests match.
    #[command(
        after_help = "Exit status: 0 downloaded and verified, 1 a digest differs, 2 a failed download or write."
    )]
    Refresh(RefreshArgs),
}

/// Arguments of `upstream verify`.
#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// Folder holding schema.ts and schema.json.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Compare with this file instead of the copy built into the binary.
    #[arg(long, value_name = "FILE")]
    pub schema: Option<PathBuf>,
}

/// Arguments of `upstream extract`.
#[derive(Debug, clap::Args)]
pub struct ExtractArgs {
    /// Folder holding schema.ts and schema.json.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Where to write the generated schema (`-` for stdout).
    #[arg(long, value_name = "FILE", default_value = upstream::GENERATED_PATH)]
    pub out: PathBuf,
}

/// Arguments of `upstream refresh`.
#[derive(Debug, clap::Args)]
pub struct RefreshArgs {
    /// Folder to write schema.ts and schema.json into.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// For tests only: replace the scheme and host of the pinned addresses
    /// (e.g. `http://127.0.0.1:PORT/`).
    #[arg(long, value_name = "PREFIX", hide = true)]
    pub mirror: Option<String>,
}

fn report(e: &UpstreamError) -> Exit {
    eprintln!("ahp-elicit upstream: {e}");
    match e {
        UpstreamError::Mismatch(_) => Exit::Invalid,
        _ => Exit::Usage,
    }
}

/// Like [`report`], and when a pinned file is missing also say where the
/// files were looked for and how to get them.
fn report_missing(e: &UpstreamError, dir: &std::path::Path) -> Exit {
    let code = report(e);
    if let UpstreamError::Io { source, .. } = e {
        if source.kind() == std::io::ErrorKind::NotFound {
            eprintln!(
                "ahp-elicit upstream: looked for the pinned schema.ts and schema.json in {} \
                 (--dir, else ${}, else {} when it holds them, else {}, relative to the current folder).\n\
                 To get them: run `ahp-elicit upstream refresh` in the project folder (downloads the pinned \
                 files into {} and checks their digests), or point --dir or ${} at a folder that holds them.",
                dir.display(),
                upstream::ENV_DIR,
                upstream::LOCAL_DIR,
                upstream::SHARED_DIR,
                upstream::LOCAL_DIR,
                upstream::ENV_DIR,
            );
        }
    }
    code
}

fn verify(a: VerifyArgs) -> Exit {
    let dir = upstream::resolve_dir(a.dir.as_deref());
    let committed = match &a.schema {
        Some(p) => match std::fs::read_to_string(p) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("ahp-elicit upstream: {}: {e}", p.display());
                return Exit::Usage;
            }
        },
        None => MCP_ELICITATION.to_owned(),
    };
    match upstream::verify(&dir, &committed) {
        Ok(diffs) if diffs.is_empty() => {
            let p = upstream::pin();
            println!(
                "ok: {} holds the pinned MCP {} files (tag {}, commit {}), and the extraction equals the committed {}",
                dir.display(),
                p.protocol_revision,
                p.tag,
                p.commit,
                upstream::GENERATED_PATH
            );
            Exit::Ok
        }
        Ok(diffs) => {
            eprintln!("ahp-elicit upstream verify: {} differs:", dir.display());
            for d in diffs {
                eprintln!("  {d}");
            }
            Exit::Invalid
        }
        Err(e) => report_missing(&e, &dir),
    }
}

fn extract(a: ExtractArgs) -> Exit {
    let dir = upstream::resolve_dir(a.dir.as_deref());
    let text = match upstream::extract_dir(&dir) {
        Ok(t) => t,
        Err(e) => return report_missing(&e, &dir),
    };
    if a.out.as_os_str() == "-" {
        print!("{text}");
        return Exit::Ok;
    }
    match std::fs::write(&a.out, text) {
        Ok(()) => {
            eprintln!(
                "wrote {} from {}; review the diff before committing",
                a.out.display(),
                dir.display()
            );
            Exit::Ok
        }
        Err(e) => {
            eprintln!("ahp-elicit upstream: {}: {e}", a.out.display());
            Exit::Usage
        }
    }
}

fn refresh(a: RefreshArgs) -> Exit {
    let dir = match a.dir {
        Some(d) => d,
        None => match std::env::var_os(upstream::ENV_DIR) {
            Some(d) if !d.is_empty() => PathBuf::from(d),
            _ => PathBuf::from(upstream::LOCAL_DIR),
        },
    };
    match upstream::refresh(&dir, a.mirror.as_deref()) {
        Ok(diffs) if diffs.is_empty() => {
            println!(
                "ok: downloaded the pinned files into {}; both digests match",
                dir.display()
            );
            Exit::Ok
        }
        Ok(diffs) => {
            eprintln!("ahp-elicit upstream refresh: refused, nothing kept:");
            for d in diffs {
                eprintln!("  {d}");
            }
            Exit::Invalid
        }
        Err(e) => report(&e),
    }
}

/// Run the command; returns the exit status.
pub fn run(c: UpstreamCommand) -> Exit {
    match c {
        UpstreamCommand::Verify(a) => verify(a),
        UpstreamCommand::Extract(a) => extract(a),
        UpstreamCommand::Refresh(a) => refresh(a),
    }
}
