//! Records the git commit the core is built from (`FORCEBENCH_COMMIT`), so `forcebench --version`,
//! `status --json`, the app's About box and every export's manifest can say exactly which code
//! wrote them. Outside a git checkout (a source tarball) the commit is `unknown`.

use std::path::PathBuf;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string()).filter(|s| !s.is_empty())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=FORCEBENCH_COMMIT={commit}");
    // Rebuilt when HEAD moves (a commit, a checkout), not on every edit. Only paths that exist
    // are named: cargo treats a missing one as always changed. `--git-path` finds them in a
    // worktree too, whose `.git` is a file.
    let mut watch = vec![git(&["rev-parse", "--git-path", "HEAD"]), git(&["rev-parse", "--git-path", "packed-refs"])];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watch.push(git(&["rev-parse", "--git-path", &branch]));
    }
    for path in watch.into_iter().flatten().map(PathBuf::from).filter(|p| p.exists()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    println!("cargo:rerun-if-changed=build.rs");
}
