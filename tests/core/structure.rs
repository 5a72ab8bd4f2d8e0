//! The shape of the code: the core's modules import one another without a circle, and so do
//! the files inside each module, so each can be read (and changed) knowing only what is below
//! it; and no file in the core, the shell or the window is longer than a few screens.
//!
//! The import graph is read from the source text, not from the compiler: every path that starts
//! with `crate::`, `super::` or `self::`, with grouped `use` lists expanded (`use crate::{a,
//! b::{c, d}}` names `a`, `b::c` and `b::d`), and a name a parent module re-exports from one of
//! its files (`pub use queue::QueuePage`) counted as the file it comes from. Comments and string
//! literals are left out, and so are inline test modules (`#[cfg(test)] mod tests { ... }`,
//! where `super::` means the file itself).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The two graphs the rule is about.
#[derive(Debug, Default)]
struct Graphs {
    /// Top-level module -> the top-level modules its files name.
    modules: Graph,
    /// Inside each module: file (as `split::export`) -> the files of the same top-level module it
    /// names, a file's own parents and children left out (a parent declares and re-exports its
    /// files, and its files use the parent's shared items: that is the module's own shape).
    files: Graph,
}

/// Every `.rs` file under `root`, as (path relative to `root` with `/`, text), `skip` left out.
fn read_tree(root: &Path, skip: &[&str]) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            if skip.iter().any(|s| relative == *s || relative.starts_with(&format!("{s}/"))) {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push((relative, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// The module a file is: `split/export.rs` -> `[split, export]`, `split/mod.rs` -> `[split]`,
/// `lib.rs` -> `[]`.
fn module_of(relative: &str) -> Vec<String> {
    let mut parts: Vec<String> = relative.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// The code of a file as tokens: identifiers, `::` and single punctuation, with comments, string
/// and character literals and inline test modules (`#[cfg(test)] mod tests { ... }`) left out.
fn tokens(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == 'r' && (next == Some('"') || next == Some('#')) {
            // A raw string: r"..." or r#"..."#.
            let mut hashes = 0;
            let mut j = i + 1;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push("r".into());
                i += 1;
                continue;
            }
            j += 1;
            let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            let close: Vec<char> = close.chars().collect();
            while j < chars.len() && chars[j..].iter().take(close.len()).ne(close.iter()) {
                j += 1;
            }
            i = j + close.len();
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == '\'' && (chars.get(i + 2) == Some(&'\'') || next == Some('\\')) {
            // A character literal ('x', '\n', '\''); a lifetime ('a) is left to the next branch.
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == ':' && next == Some(':') {
            out.push("::".into());
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    without_test_modules(out)
}

/// `t` without the inline modules marked `#[cfg(test)]` (in them `super::` means the file itself).
fn without_test_modules(t: Vec<String>) -> Vec<String> {
    const MARK: [&str; 7] = ["#", "[", "cfg", "(", "test", ")", "]"];
    let mut out = Vec::with_capacity(t.len());
    let mut at = 0;
    while at < t.len() {
        let marked = t[at..].iter().take(MARK.len()).map(String::as_str).eq(MARK);
        let module = at + MARK.len() + usize::from(t.get(at + MARK.len()).is_some_and(|s| s == "pub"));
        if marked && t.get(module).is_some_and(|s| s == "mod") && t.get(module + 2).is_some_and(|s| s == "{") {
            let mut depth = 0;
            at = module + 2;
            while at < t.len() {
                depth += match t[at].as_str() {
                    "{" => 1,
                    "}" => -1,
                    _ => 0,
                };
                at += 1;
                if depth == 0 {
                    break;
                }
            }
        } else {
            out.push(t[at].clone());
            at += 1;
        }
    }
    out
}

/// Reads one path tree from `t[*at]` (just after `prefix` and its `::`): `a::b`, `a::{b, c::d}`,
/// `{self, a}`, `*`. Each full path is pushed on `out`.
fn path_tree(t: &[String], at: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut path = prefix;
    loop {
        match t.get(*at).map(String::as_str) {
            Some("{") => {
                *at += 1;
                while *at < t.len() && t[*at] != "}" {
                    path_tree(t, at, path.clone(), out);
                    // Past a rename (`a as b`) to the next item or the group's end.
                    while *at < t.len() && t[*at] != "," && t[*at] != "}" {
                        *at += 1;
                    }
                    if t.get(*at).is_some_and(|s| s == ",") {
                        *at += 1;
                    }
                }
                *at += 1;
                return;
            }
            Some("self") if !path.is_empty() => {
                *at += 1;
                out.push(path);
                return;
            }
            Some(s) if s == "*" || s.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                path.push(s.to_string());
                *at += 1;
                if t.get(*at).is_some_and(|s| s == "::") {
                    *at += 1;
                } else {
                    out.push(path);
                    return;
                }
            }
            _ => {
                out.push(path);
                return;
            }
        }
    }
}

/// Every path the code names from `crate`, `super` or `self` (grouped `use` lists expanded), and
/// every `use` path that starts elsewhere (a parent's `pub use child::X`), as written.
fn paths_in(t: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < t.len() {
        let starts = (t[at] == "crate" || t[at] == "super" || t[at] == "self")
            && t.get(at + 1).is_some_and(|s| s == "::")
            && (at == 0 || t[at - 1] != "::");
        let in_use = at > 0 && t[at - 1] == "use" && t[at] != "::";
        if starts || in_use {
            path_tree(t, &mut at, Vec::new(), &mut out);
        } else {
            at += 1;
        }
    }
    out
}

/// What the files under a source root say of one another (`files`: relative path and text, as
/// [`read_tree`] gives them).
fn graphs(files: &[(String, String)]) -> Graphs {
    let modules: BTreeMap<Vec<String>, Vec<String>> =
        files.iter().map(|(path, text)| (module_of(path), tokens(text))).collect();
    // A parent's re-exports: (parent, name) -> the file the name comes from.
    let mut reexported: BTreeMap<(Vec<String>, String), Vec<String>> = BTreeMap::new();
    for (module, t) in &modules {
        for mut path in paths_in(t) {
            if path.first().is_some_and(|s| s == "self") {
                path.remove(0);
            }
            if path.len() >= 2 && !["crate", "super"].contains(&path[0].as_str()) {
                let child: Vec<String> = module.iter().cloned().chain([path[0].clone()]).collect();
                if modules.contains_key(&child) {
                    reexported.insert((module.clone(), path.last().unwrap().clone()), child);
                }
            }
        }
    }
    let mut g = Graphs::default();
    for (module, t) in &modules {
        let Some(top) = module.first() else { continue }; // lib.rs declares the modules
        g.modules.entry(top.clone()).or_default();
        let mut targets: BTreeSet<Vec<String>> = BTreeSet::new();
        for path in paths_in(t) {
            let mut absolute: Vec<String> = match path[0].as_str() {
                "crate" => Vec::new(),
                "self" => module.clone(),
                "super" => module.clone(),
                _ => continue, // an outside crate, or a parent's own child
            };
            let mut rest = &path[..];
            if rest[0] == "crate" || rest[0] == "self" {
                rest = &rest[1..];
            }
            while rest.first().is_some_and(|s| s == "super") {
                absolute.pop();
                rest = &rest[1..];
            }
            absolute.extend(rest.iter().cloned());
            // The longest prefix that is a file; a glob names whatever of it the code uses.
            let Some(file) = (0..=absolute.len()).rev().map(|n| &absolute[..n]).find(|m| modules.contains_key(*m))
            else {
                continue;
            };
            let named = absolute.get(file.len());
            match named.map(String::as_str) {
                Some("*") => {
                    for ((parent, name), child) in &reexported {
                        if parent.as_slice() == file && t.contains(name) {
                            targets.insert(child.clone());
                        }
                    }
                    targets.insert(file.to_vec());
                }
                Some(name) => {
                    targets
                        .insert(reexported.get(&(file.to_vec(), name.to_string())).cloned().unwrap_or(file.to_vec()));
                }
                None => {
                    targets.insert(file.to_vec());
                }
            }
        }
        for target in targets {
            let Some(other) = target.first() else { continue };
            if other != top {
                g.modules.get_mut(top).unwrap().insert(other.clone());
            } else if !target.starts_with(module) && !module.starts_with(&target) {
                g.files.entry(module.join("::")).or_default().insert(target.join("::"));
            }
        }
    }
    g
}

/// A circle through `start`, if there is one (depth-first, the path as found).
fn circle_through(graph: &Graph, start: &str) -> Option<Vec<String>> {
    fn walk(graph: &Graph, start: &str, at: &str, path: &mut Vec<String>, seen: &mut BTreeSet<String>) -> bool {
        for next in graph.get(at).into_iter().flatten() {
            if next == start {
                path.push(next.clone());
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(graph, start, next, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    walk(graph, start, start, &mut path, &mut BTreeSet::new()).then_some(path)
}

fn circles(graph: &Graph) -> Vec<String> {
    graph.keys().filter_map(|m| circle_through(graph, m)).map(|path| path.join(" -> ")).collect()
}

// The shell's modules too: one per domain, each above the core and beside the others.
#[test]
fn no_two_shell_modules_import_each_other_even_through_others() {
    let g = graphs(&read_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src-tauri/src"), &[]));
    assert!(g.modules.len() > 5, "the walk found the shell's modules: {:?}", g.modules.keys());
    let circles = circles(&g.modules);
    assert!(circles.is_empty(), "import circles in src-tauri/src/:\n{}", circles.join("\n"));
}

fn core_graphs() -> Graphs {
    // The command line sits above the library.
    graphs(&read_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &["bin"]))
}

// Broke before the structure step: adjudicate <-> qc, annotate <-> packets <-> workspace,
// annotate <-> input and error <-> import/input were circles.
#[test]
fn no_two_core_modules_import_each_other_even_through_others() {
    let graph = core_graphs().modules;
    assert!(graph.len() > 20, "the walk found the modules: {:?}", graph.keys());
    assert!(graph["adjudicate"].contains("qc"), "the walk reads imports");
    let circles = circles(&graph);
    assert!(circles.is_empty(), "import circles in src/:\n{}", circles.join("\n"));
}

// Broke before: annotate::queue <-> annotate::view, split::export with
// split::{datasheet, lines, publish, seal}, and evaluate::{runner, records, trust}.
#[test]
fn no_two_files_of_a_core_module_import_each_other_even_through_others() {
    let graph = core_graphs().files;
    assert!(graph.contains_key("split::verify"), "the walk reads a module's files: {:?}", graph.keys());
    let circles = circles(&graph);
    assert!(circles.is_empty(), "import circles inside modules of src/:\n{}", circles.join("\n"));
}

/// The graph reader on a small made-up crate: a planted circle is found at either level.
#[test]
fn the_graph_reader_reads_grouped_and_super_paths_and_finds_a_planted_circle() {
    let crate_with = |files: &[(&str, &str)]| -> Vec<(String, String)> {
        files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect()
    };
    let tree = crate_with(&[
        ("lib.rs", "pub mod a; pub mod b; pub mod c; pub mod m;"),
        // Grouped, nested, renamed and `self` paths; a path in a comment, a string and a test
        // module count for nothing.
        (
            "a.rs",
            "use crate::{b::{self, X as Y}, c};\n// use crate::m;\nconst S: &str = \"crate::m::p\";\n\
             #[cfg(test)]\nmod tests { use crate::m; }",
        ),
        ("b.rs", "pub struct X;"),
        ("c.rs", "pub fn f() { let _ = '{'; crate::b::X; }"),
        ("m/mod.rs", "mod p; mod q; pub use q::Shared;\npub fn helper() {}"),
        ("m/p.rs", "use super::{helper, Shared};"),
        ("m/q.rs", "pub struct Shared; fn g() { super::helper(); }"),
    ]);
    let g = graphs(&tree);
    let set = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(g.modules["a"], set(&["b", "c"]));
    assert_eq!(g.modules["c"], set(&["b"]));
    assert_eq!(g.files.get("m::p"), Some(&set(&["m::q"])), "a parent's re-export counts as its file");
    assert_eq!(g.files.get("m::q"), None, "a file's parent is not an edge");
    assert!(circles(&g.modules).is_empty() && circles(&g.files).is_empty());

    // A circle between modules, through `super::` and a glob.
    let mut planted = tree.clone();
    planted.iter_mut().find(|(p, _)| p == "b.rs").unwrap().1 = "use super::a::*; pub struct X;".into();
    let found = circles(&graphs(&planted).modules);
    assert!(found.contains(&"a -> b -> a".to_string()), "{found:?}");

    // A circle between two files of one module, through a grouped `super::` path.
    let mut planted = tree.clone();
    planted.iter_mut().find(|(p, _)| p == "m/q.rs").unwrap().1 =
        "pub struct Shared; fn g() { use super::{p::{self}}; p::h(); }".into();
    let found = circles(&graphs(&planted).files);
    assert_eq!(found, ["m::p -> m::q -> m::p", "m::q -> m::p -> m::q"]);
    assert!(circles(&graphs(&planted).modules).is_empty(), "inside one module only");
}

/// A newcomer reads a file on a few screens: none of the core's or the shell's Rust files is
/// longer than this.
const LONGEST_RUST_FILE: usize = 1000;
/// The window's components and modules (`ui/src`): a `.svelte` file renders, its logic lives in
/// a `.ts` module beside it.
const LONGEST_SVELTE_FILE: usize = 500;
const LONGEST_TS_FILE: usize = 600;

/// Every file under `root` whose name ends in `ext`, relative to `root`, with its line count.
fn lengths(root: &Path, ext: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(ext) {
                let relative = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
                out.push((relative, std::fs::read_to_string(&path).unwrap().lines().count()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn no_rust_file_of_the_core_or_the_shell_is_longer_than_a_few_screens() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut long = Vec::new();
    for dir in ["src", "src-tauri/src"] {
        let files = lengths(&root.join(dir), ".rs");
        assert!(files.len() > 5, "the walk found {dir}'s files");
        long.extend(
            files.into_iter().filter(|(_, n)| *n > LONGEST_RUST_FILE).map(|(f, n)| format!("{dir}/{f} ({n} lines)")),
        );
    }
    assert!(long.is_empty(), "split these along their seams: {long:?}");
}

#[test]
fn no_window_file_is_longer_than_a_few_screens() {
    let ui = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src");
    let svelte = lengths(&ui, ".svelte");
    assert!(svelte.len() > 10, "the walk found the components");
    let mut wrong: Vec<String> = svelte
        .iter()
        .filter(|(_, n)| *n > LONGEST_SVELTE_FILE)
        .map(|(f, n)| {
            format!("ui/src/{f} has {n} lines (at most {LONGEST_SVELTE_FILE}): move its state and logic into a .svelte.ts module")
        })
        .collect();
    let ts = lengths(&ui, ".ts");
    assert!(ts.len() > 10, "the walk found the modules");
    wrong.extend(
        ts.iter()
            .filter(|(_, n)| *n > LONGEST_TS_FILE)
            .map(|(f, n)| format!("ui/src/{f} has {n} lines (at most {LONGEST_TS_FILE})")),
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
