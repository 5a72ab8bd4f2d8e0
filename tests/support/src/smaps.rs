//! How much of a file this process holds mapped, for the tests that check a read gives back the
//! pages SQLite mapped (core and shell alike).

use std::path::Path;

/// Resident KiB of this process's memory maps of the file at `path` (/proc/self/smaps, Linux).
pub fn mapped_kib(path: &Path) -> u64 {
    let name = path.canonicalize().unwrap().display().to_string();
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    let (mut ours, mut kib) = (false, 0);
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if first.contains('-') && first.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
            ours = line.ends_with(&name);
        } else if let Some(v) = line.strip_prefix("Rss:").filter(|_| ours) {
            kib += v.trim().trim_end_matches("kB").trim().parse::<u64>().unwrap();
        }
    }
    kib
}
