//! The module graph: which module uses which, at the level where they part, and its cycles.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::lexer::{paths_at, strip, tokens, without_tests};

/// A module path from the crate root (`[]` is the root).
pub type ModPath = Vec<String>;

/// The dependency edges between modules, by module path.
pub type Graph = BTreeMap<ModPath, BTreeSet<ModPath>>;

/// One source file: its module path and its tokens, test modules left out.
pub struct File {
  module: ModPath,
  tokens: Vec<String>,
}

/// The module path of a file under `src/` (`lib.rs` is the root, `a/mod.rs` is `a`).
pub fn module_of(relative: &Path) -> ModPath {
  let mut parts: Vec<String> = relative
    .iter()
    .map(|p| p.to_string_lossy().into_owned())
    .collect();
  let last = parts.pop().unwrap_or_default();
  let stem = last.trim_end_matches(".rs");
  if stem != "mod" && stem != "lib" {
    parts.push(stem.to_owned());
  }
  parts
}

/// Every path in `toks` that starts with `crate`, `super` or `self`, or with the name of one of
/// `children` (what `pub use child::Item;` names), resolved from `module` to a path from the crate
/// root (items included).
pub fn crate_paths(
  module: &ModPath,
  toks: &[String],
  children: &BTreeSet<String>,
) -> Vec<Vec<String>> {
  let mut out = Vec::new();
  let mut i = 0;
  while i < toks.len() {
    let starts_path = toks.get(i + 1).map(String::as_str) == Some("::")
      && (i == 0 || toks[i - 1] != "::")
      && (matches!(toks[i].as_str(), "crate" | "super" | "self") || children.contains(&toks[i]));
    if !starts_path {
      i += 1;
      continue;
    }
    for path in paths_at(toks, &mut i) {
      let mut base: Vec<String> = module.clone();
      let mut rest = path.as_slice();
      match rest.first().map(String::as_str) {
        Some("crate") => {
          base.clear();
          rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        _ => {}
      }
      while rest.first().map(String::as_str) == Some("super") {
        base.pop();
        rest = &rest[1..];
      }
      base.extend(rest.iter().filter(|s| *s != "self").cloned());
      out.push(base);
    }
  }
  out
}

/// A crate's files as the checker reads them.
pub struct Crate {
  files: Vec<File>,
  /// Every module with a file, test modules left out.
  modules: BTreeSet<ModPath>,
  /// The test modules (`#[cfg(test)] mod name;`).
  tests: BTreeSet<ModPath>,
  /// `pub use` re-exports: (module, name) -> the full path it names.
  reexports: BTreeMap<(ModPath, String), Vec<String>>,
}

impl Crate {
  /// Reads a crate's files (`(path under src/, source)`).
  fn read(sources: &[(String, String)]) -> Self {
    let mut files: Vec<File> = Vec::new();
    let mut tests: BTreeSet<ModPath> = BTreeSet::new();
    for (path, source) in sources {
      let module = module_of(Path::new(path));
      let (tokens, test_files) = without_tests(&tokens(&strip(source)));
      for name in test_files {
        let mut child = module.clone();
        child.push(name);
        tests.insert(child);
      }
      files.push(File { module, tokens });
    }
    files.retain(|f| !tests.iter().any(|t| f.module.starts_with(t)));
    let modules = files.iter().map(|f| f.module.clone()).collect();
    let mut krate = Self {
      files,
      modules,
      tests,
      reexports: BTreeMap::new(),
    };
    krate.reexports = krate.read_reexports();
    krate
  }

  /// The names of the child modules of `m`.
  fn children(&self, m: &ModPath) -> BTreeSet<String> {
    self
      .modules
      .iter()
      .filter(|c| c.len() == m.len() + 1 && c.starts_with(m))
      .map(|c| c[m.len()].clone())
      .collect()
  }

  fn read_reexports(&self) -> BTreeMap<(ModPath, String), Vec<String>> {
    let mut reexports = BTreeMap::new();
    for f in &self.files {
      for statement in f.tokens.split(|t| t == ";") {
        let Some(at) = statement.iter().position(|t| t == "use") else {
          continue;
        };
        if statement.first().map(String::as_str) != Some("pub") {
          continue;
        }
        for path in crate_paths(&f.module, &statement[at + 1..], &self.children(&f.module)) {
          if let Some(name) = path.last() {
            reexports.insert((f.module.clone(), name.clone()), path.clone());
          }
        }
      }
    }
    reexports
  }

  /// The module that defines what `path` names: its longest module prefix, through re-exports.
  fn resolve(&self, path: &[String]) -> ModPath {
    let mut path = path.to_vec();
    for _ in 0..16 {
      let Some(m) = (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|p| self.modules.contains(p))
      else {
        return Vec::new();
      };
      match path
        .get(m.len())
        .and_then(|item| self.reexports.get(&(m.clone(), item.clone())))
      {
        Some(target) if target.as_slice() != path.as_slice() => {
          let mut next = target.clone();
          next.extend(path[m.len() + 1..].iter().cloned());
          path = next;
        }
        _ => return m,
      }
    }
    Vec::new()
  }
}

/// The edge that module `from` naming something of module `target` adds, at the level where the
/// two part (see the module notes); `None` when `from` names itself.
pub fn edge(from: &ModPath, target: &ModPath) -> Option<(ModPath, ModPath)> {
  let common = from.iter().zip(target).take_while(|(a, b)| a == b).count();
  if common == from.len() && common == target.len() {
    None
  } else if common == from.len() {
    // A descendant: the child on the way there.
    Some((from.clone(), target[..=common].to_vec()))
  } else if common == target.len() {
    // An item defined in an ancestor: from the ancestor's child on the way here.
    Some((from[..=common].to_vec(), target.clone()))
  } else {
    Some((from[..=common].to_vec(), target[..=common].to_vec()))
  }
}

/// Builds the module graph of a crate's files (`(path under src/, source)`).
pub fn graph(sources: &[(String, String)]) -> Graph {
  let krate = Crate::read(sources);
  let mut graph = Graph::new();
  for f in &krate.files {
    graph.entry(f.module.clone()).or_default();
    for path in crate_paths(&f.module, &f.tokens, &krate.children(&f.module)) {
      let target = krate.resolve(&path);
      if krate.tests.iter().any(|t| target.starts_with(t)) {
        continue;
      }
      if let Some((from, to)) = edge(&f.module, &target) {
        graph.entry(from).or_default().insert(to);
      }
    }
  }
  graph
}

/// A cycle of `graph` as a list of modules (the first repeated at the end), if there is one.
pub fn find_cycle(graph: &Graph) -> Option<Vec<ModPath>> {
  #[derive(Clone, Copy, PartialEq)]
  enum State {
    Open,
    Done,
  }
  fn visit(
    node: &ModPath,
    graph: &Graph,
    state: &mut BTreeMap<ModPath, State>,
    stack: &mut Vec<ModPath>,
  ) -> Option<Vec<ModPath>> {
    match state.get(node) {
      Some(State::Done) => return None,
      Some(State::Open) => {
        let from = stack.iter().position(|m| m == node).unwrap_or(0);
        let mut cycle = stack[from..].to_vec();
        cycle.push(node.clone());
        return Some(cycle);
      }
      None => {}
    }
    state.insert(node.clone(), State::Open);
    stack.push(node.clone());
    for next in graph.get(node).into_iter().flatten() {
      if let Some(cycle) = visit(next, graph, state, stack) {
        return Some(cycle);
      }
    }
    stack.pop();
    state.insert(node.clone(), State::Done);
    None
  }
  let mut state = BTreeMap::new();
  graph
    .keys()
    .find_map(|node| visit(node, graph, &mut state, &mut Vec::new()))
}

/// The groups of modules that reach each other (strongly connected components of two or more).
pub fn tangles(graph: &Graph) -> Vec<BTreeSet<ModPath>> {
  let reach = |start: &ModPath| -> BTreeSet<ModPath> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![start.clone()];
    while let Some(m) = todo.pop() {
      for next in graph.get(&m).into_iter().flatten() {
        if seen.insert(next.clone()) {
          todo.push(next.clone());
        }
      }
    }
    seen
  };
  let reached: BTreeMap<&ModPath, BTreeSet<ModPath>> =
    graph.keys().map(|m| (m, reach(m))).collect();
  let mut groups: Vec<BTreeSet<ModPath>> = Vec::new();
  for (m, from_m) in &reached {
    if groups.iter().any(|g| g.contains(*m)) {
      continue;
    }
    let group: BTreeSet<ModPath> = from_m
      .iter()
      .filter(|other| reached.get(other).is_some_and(|r| r.contains(*m)))
      .cloned()
      .collect();
    if group.len() > 1 {
      groups.push(group);
    }
  }
  groups
}

pub fn show(cycle: &[ModPath]) -> String {
  cycle
    .iter()
    .map(|m| format!("crate::{}", m.join("::")))
    .collect::<Vec<_>>()
    .join(" -> ")
}
