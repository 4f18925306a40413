//! `ahp-elicit upstream verify|extract|refresh`: the pinned MCP upstream,
//! per pinned revision. The library side is [`crate::upstream`].
//!
//! `--protocol-version V` names one pinned revision; without it each
//! command works on every pinned revision (`verify`: every one whose files
//! are found). A revision's upstream folder is `--dir DIR` (which therefore
//! needs `--protocol-version`), else `$AHP_UPSTREAM_DIR/<version>/`, else
//! `upstream/mcp/<version>/` (relative to the current directory).
//! `refresh` writes to `--dir`, else `$AHP_UPSTREAM_DIR/<version>/`, else
//! `upstream/mcp/<version>/`.
//!
//! Exit codes: 0 ok; 1 a digest or the extraction differs (each difference
//! on stderr); 2 unreadable files, a failed download or write, or a usage
//! error.

use std::path::PathBuf;

use crate::binding::Revision;
use crate::upstream::{self, UpstreamError};

use super::{revision_parser, Exit};

/// The upstream subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum UpstreamCommand {
    /// Check the pinned digests and that a fresh extraction equals the
    /// committed definitions of each pinned revision whose files are found
    /// (offline).
    #[command(
        after_help = "Exit status: 0 digests and extraction match, 1 a digest or the extraction differs, 2 unreadable files or no pinned files found."
    )]
    Verify(VerifyArgs),
    /// Regenerate the definitions (schemas/mcp-elicitation*.schema.json)
    /// from the pinned files.
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
    /// The pinned revision to verify (default: every one whose files are found).
    #[arg(long = "protocol-version", value_name = "VERSION", value_parser = revision_parser())]
    pub revision: Option<Revision>,
    /// Folder holding schema.ts and schema.json (needs --protocol-version).
    #[arg(long, value_name = "DIR", requires = "revision")]
    pub dir: Option<PathBuf>,
    /// Compare with this file instead of the copy built into the binary
    /// (needs --protocol-version).
    #[arg(long, value_name = "FILE", requires = "revision")]
    pub schema: Option<PathBuf>,
}

/// Arguments of `upstream extract`.
#[derive(Debug, clap::Args)]
pub struct ExtractArgs {
    /// The pinned revision to extract (default: every one).
    #[arg(long = "protocol-version", value_name = "VERSION", value_parser = revision_parser())]
    pub revision: Option<Revision>,
    /// Folder holding schema.ts and schema.json (needs --protocol-version).
    #[arg(long, value_name = "DIR", requires = "revision")]
    pub dir: Option<PathBuf>,
    /// Where to write the generated definitions (`-` for stdout; needs
    /// --protocol-version); default: the revision's file under schemas/.
    #[arg(long, value_name = "FILE", requires = "revision")]
    pub out: Option<PathBuf>,
}

/// Arguments of `upstream refresh`.
#[derive(Debug, clap::Args)]
pub struct RefreshArgs {
    /// The pinned revision to download (default: every one).
    #[arg(long = "protocol-version", value_name = "VERSION", value_parser = revision_parser())]
    pub revision: Option<Revision>,
    /// Folder to write schema.ts and schema.json into (needs --protocol-version).
    #[arg(long, value_name = "DIR", requires = "revision")]
    pub dir: Option<PathBuf>,
    /// For tests only: replace the scheme and host of the pinned addresses
    /// (e.g. `http://127.0.0.1:PORT/`).
    #[arg(long, value_name = "PREFIX", hide = true)]
    pub mirror: Option<String>,
}

fn report(e: &UpstreamError) -> Exit {
    crate::notice::say_in("upstream", e);
    match e {
        UpstreamError::Mismatch(_) => Exit::Invalid,
        _ => Exit::Usage,
    }
}

/// Like [`report`], and when a pinned file is missing also say where the
/// files were looked for and how to get them.
fn report_missing(e: &UpstreamError, rev: Revision, dir: &std::path::Path) -> Exit {
    let code = report(e);
    if let UpstreamError::Io { source, .. } = e {
        if source.kind() == std::io::ErrorKind::NotFound {
            crate::notice::say_in("upstream", where_looked(rev, dir));
        }
    }
    code
}

/// Where the files of `rev` were looked for, and how to get them.
fn where_looked(rev: Revision, dir: &std::path::Path) -> String {
    format!(
        "looked for the pinned MCP {rev} schema.ts and schema.json in {} \
         (--dir, else ${}/{rev}, else {}, relative to the current folder).\n\
         To get them: run `ahp-elicit upstream refresh --protocol-version {rev}` in the project folder \
         (downloads the pinned files into {} and checks their digests), or point --dir or ${} at a folder that holds them.",
        dir.display(),
        upstream::ENV_DIR,
        upstream::local_dir(rev).display(),
        upstream::local_dir(rev).display(),
        upstream::ENV_DIR,
    )
}

/// The worse of two statuses (the higher exit code).
fn worse(a: Exit, b: Exit) -> Exit {
    if b.code() > a.code() {
        b
    } else {
        a
    }
}

/// The revisions a command without `--protocol-version` works on.
fn revisions(one: Option<Revision>) -> Vec<Revision> {
    match one {
        Some(r) => vec![r],
        None => Revision::ALL.to_vec(),
    }
}

fn verify(a: VerifyArgs) -> Exit {
    let committed_override = match &a.schema {
        Some(p) => match std::fs::read_to_string(p) {
            Ok(t) => Some(t),
            Err(e) => {
                crate::notice::say_in("upstream", format!("{}: {e}", p.display()));
                return Exit::Usage;
            }
        },
        None => None,
    };
    let mut worst = Exit::Ok;
    let mut verified = 0;
    for rev in revisions(a.revision) {
        let dir = upstream::resolve_dir(rev, a.dir.as_deref());
        // Without a named revision, a revision whose files are not here is
        // skipped (and said); a named one must be found.
        if a.revision.is_none() && !upstream::holds_files(&dir) {
            crate::notice::say_in(
                "upstream verify",
                format!(
                    "MCP {rev}: no pinned files found, skipped ({})",
                    dir.display()
                ),
            );
            continue;
        }
        let committed = committed_override
            .clone()
            .unwrap_or_else(|| rev.data().definitions.to_owned());
        let committed_name = match &a.schema {
            Some(p) => p.display().to_string(),
            None => rev.data().definitions_path.to_owned(),
        };
        match upstream::verify(rev, &dir, &committed, &committed_name) {
            Ok(diffs) if diffs.is_empty() => {
                let p = upstream::pin(rev);
                let what = match &a.schema {
                    Some(_) => committed_name.clone(),
                    None => format!("the committed {committed_name}"),
                };
                outln!(
                    "ok: {} holds the pinned MCP {} files (tag {}, commit {}), and the extraction equals {what}",
                    dir.display(),
                    p.protocol_revision,
                    p.tag,
                    p.commit,
                );
                verified += 1;
            }
            Ok(diffs) => {
                crate::notice::say_list(
                    Some("upstream verify"),
                    &format!("MCP {rev}: {} differs:", dir.display()),
                    &diffs,
                );
                worst = worse(worst, Exit::Invalid);
            }
            Err(e) => worst = worse(worst, report_missing(&e, rev, &dir)),
        }
    }
    if verified == 0 && worst == Exit::Ok {
        crate::notice::say_in(
            "upstream verify",
            format!(
                "the files of no pinned revision ({}) were found",
                Revision::list()
            ),
        );
        for rev in Revision::ALL {
            crate::notice::say_in(
                "upstream",
                where_looked(*rev, &upstream::resolve_dir(*rev, None)),
            );
        }
        return Exit::Usage;
    }
    worst
}

fn extract(a: ExtractArgs) -> Exit {
    let mut worst = Exit::Ok;
    for rev in revisions(a.revision) {
        let dir = upstream::resolve_dir(rev, a.dir.as_deref());
        let text = match upstream::extract_dir(rev, &dir) {
            Ok(t) => t,
            Err(e) => {
                worst = worse(worst, report_missing(&e, rev, &dir));
                continue;
            }
        };
        let out = a
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from(rev.data().definitions_path));
        if out.as_os_str() == "-" {
            out!("{text}");
            continue;
        }
        match std::fs::write(&out, text) {
            Ok(()) => crate::notice::say_in(
                "upstream",
                format!(
                    "wrote {} from {} (MCP {rev}); review the diff before committing",
                    out.display(),
                    dir.display()
                ),
            ),
            Err(e) => {
                crate::notice::say_in("upstream", format!("{}: {e}", out.display()));
                worst = worse(worst, Exit::Usage);
            }
        }
    }
    worst
}

fn refresh(a: RefreshArgs) -> Exit {
    let mut worst = Exit::Ok;
    for rev in revisions(a.revision) {
        let dir = match &a.dir {
            Some(d) => d.clone(),
            None => match std::env::var_os(upstream::ENV_DIR) {
                Some(d) if !d.is_empty() => PathBuf::from(d).join(rev.as_str()),
                _ => upstream::local_dir(rev),
            },
        };
        match upstream::refresh(rev, &dir, a.mirror.as_deref()) {
            Ok(diffs) if diffs.is_empty() => {
                outln!(
                    "ok: downloaded the pinned MCP {rev} files into {}; both digests match",
                    dir.display()
                );
            }
            Ok(diffs) => {
                crate::notice::say_list(
                    Some("upstream refresh"),
                    &format!("MCP {rev}: refused, nothing kept:"),
                    &diffs,
                );
                worst = worse(worst, Exit::Invalid);
            }
            Err(e) => worst = worse(worst, report(&e)),
        }
    }
    worst
}

/// Run the command; returns the exit status.
pub fn run(c: UpstreamCommand) -> Exit {
    match c {
        UpstreamCommand::Verify(a) => verify(a),
        UpstreamCommand::Extract(a) => extract(a),
        UpstreamCommand::Refresh(a) => refresh(a),
    }
}
