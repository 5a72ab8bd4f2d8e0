//! The shape of the core: its modules import one another without a circle, so each can be read
//! (and changed) knowing only the modules below it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level module -> the top-level modules its code names through `crate::` (comments and doc
/// comments left out).
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
            if relative.starts_with("bin") {
                continue; // the command line sits above the library
            }
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || relative == "lib.rs" {
                continue;
            }
            let module = relative.split(['/', '.']).next().unwrap().to_string();
            let text = std::fs::read_to_string(&path).unwrap();
            let deps = graph.entry(module.clone()).or_default();
            for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
                for part in line.split("crate::").skip(1) {
                    let name: String = part.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    if !name.is_empty() && name != module {
                        deps.insert(name);
                    }
                }
            }
        }
    }
    graph
}

/// A circle through `start`, if there is one (depth-first, the path as found).
fn circle_through(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    fn walk(
        graph: &BTreeMap<String, BTreeSet<String>>,
        start: &str,
        at: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
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

// Broke before the structure step: adjudicate <-> qc, annotate <-> packets <-> workspace,
// annotate <-> input and error <-> import/input were circles.
#[test]
fn no_two_core_modules_import_each_other_even_through_others() {
    let graph = module_graph();
    assert!(graph.len() > 20, "the walk found the modules: {:?}", graph.keys());
    assert!(graph["adjudicate"].contains("qc"), "the walk reads imports");
    let circles: Vec<String> =
        graph.keys().filter_map(|m| circle_through(&graph, m)).map(|path| path.join(" -> ")).collect();
    assert!(circles.is_empty(), "import circles in src/:\n{}", circles.join("\n"));
}

/// A newcomer reads a file on a few screens: none of the core's files is longer than this.
const LONGEST_FILE: usize = 1000;

#[test]
fn no_core_source_file_is_longer_than_a_few_screens() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut long = Vec::new();
    let mut stack = vec![src];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let lines = std::fs::read_to_string(&path).unwrap().lines().count();
                if lines > LONGEST_FILE {
                    long.push(format!("{} ({lines} lines)", path.display()));
                }
            }
        }
    }
    assert!(long.is_empty(), "split these along their seams: {long:?}");
}
