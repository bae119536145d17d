//! The core's modules form layers: no module imports, directly or through others, a module that
//! imports it back. This test reads `src/**/*.rs`, collects every `crate::…`, `super::…` and
//! `self::…` path (in `use` lines and inline) and every `pub use` of a child module, follows
//! re-exports to the module that defines the item, and fails with the cycle when the dependency
//! graph has one.
//!
//! Dependencies are compared at the level where two modules part: `a::x` naming `b::y` is an edge
//! `a → b`; `a::x` naming `a::y` is an edge `a::x → a::y`; a parent naming (or re-exporting) its
//! child's items is an edge `a → a::x`, and a child naming items defined in its parent an edge
//! `a::x → a`, so a parent and a child cannot use each other either. Test modules
//! (`#[cfg(test)] mod …`) are left out.
//!
//! A small hand-written lexer skips comments (so doc links are not imports), string and char
//! literals; the tests at the end check the checker on synthetic trees.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module path from the crate root (`[]` is the root).
type ModPath = Vec<String>;

/// The dependency edges between modules, by module path.
type Graph = BTreeMap<ModPath, BTreeSet<ModPath>>;

/// One source file: its module path and its tokens, test modules left out.
struct File {
  module: ModPath,
  tokens: Vec<String>,
}

/// The module path of a file under `src/` (`lib.rs` is the root, `a/mod.rs` is `a`).
fn module_of(relative: &Path) -> ModPath {
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

/// The code of `source` with comments removed and string/char literals emptied.
fn strip(source: &str) -> String {
  let s: Vec<char> = source.chars().collect();
  let ident = |c: char| c.is_alphanumeric() || c == '_';
  let mut out = String::with_capacity(source.len());
  let mut i = 0;
  while i < s.len() {
    let c = s[i];
    let next = s.get(i + 1).copied();
    if c == '/' && next == Some('/') {
      while i < s.len() && s[i] != '\n' {
        i += 1;
      }
    } else if c == '/' && next == Some('*') {
      i += 2;
      while i + 1 < s.len() && !(s[i] == '*' && s[i + 1] == '/') {
        i += 1;
      }
      i += 2;
    } else if c == 'r'
      && matches!(next, Some('"' | '#'))
      && (i == 0 || !ident(s[i - 1]) || (s[i - 1] == 'b' && (i < 2 || !ident(s[i - 2]))))
    {
      // A raw string `r#"…"#` (or `br"…"`): ends at a quote followed by as many hashes.
      let mut j = i + 1;
      let mut hashes = 0;
      while j < s.len() && s[j] == '#' {
        hashes += 1;
        j += 1;
      }
      if s.get(j) != Some(&'"') {
        out.push(c);
        i += 1;
        continue;
      }
      j += 1;
      while j < s.len() && !(s[j] == '"' && (1..=hashes).all(|h| s.get(j + h) == Some(&'#'))) {
        j += 1;
      }
      i = j + 1 + hashes;
      out.push_str("\"\"");
    } else if c == '"' {
      i += 1;
      while i < s.len() && s[i] != '"' {
        i += if s[i] == '\\' { 2 } else { 1 };
      }
      i += 1;
      out.push_str("\"\"");
    } else if c == '\'' {
      // A char literal (`'x'`, `'\n'`, `'\u{41}'`) or a lifetime (`'a`), which is kept.
      let end = if next == Some('\\') {
        (i + 2..s.len()).find(|&j| s[j] == '\'')
      } else if s.get(i + 2) == Some(&'\'') {
        Some(i + 2)
      } else {
        None
      };
      if let Some(e) = end {
        out.push_str("' '");
        i = e + 1;
      } else {
        out.push(c);
        i += 1;
      }
    } else {
      out.push(c);
      i += 1;
    }
  }
  out
}

/// The code as tokens: identifiers, `::`, and single punctuation characters.
fn tokens(code: &str) -> Vec<String> {
  let s: Vec<char> = code.chars().collect();
  let mut out = Vec::new();
  let mut i = 0;
  while i < s.len() {
    let c = s[i];
    if c.is_alphanumeric() || c == '_' {
      let start = i;
      while i < s.len() && (s[i].is_alphanumeric() || s[i] == '_') {
        i += 1;
      }
      out.push(s[start..i].iter().collect());
    } else if c == ':' && s.get(i + 1) == Some(&':') {
      out.push("::".to_owned());
      i += 2;
    } else {
      if !c.is_whitespace() {
        out.push(c.to_string());
      }
      i += 1;
    }
  }
  out
}

/// `tokens` without the test modules: `#[cfg(test)] mod name { … }` blocks are dropped, and the
/// names of `#[cfg(test)] mod name;` files are returned.
fn without_tests(tokens: &[String]) -> (Vec<String>, BTreeSet<String>) {
  const ATTRIBUTE: [&str; 7] = ["#", "[", "cfg", "(", "test", ")", "]"];
  let mut out = Vec::with_capacity(tokens.len());
  let mut test_files = BTreeSet::new();
  let mut i = 0;
  while i < tokens.len() {
    let is_test_mod = tokens
      .get(i..i + ATTRIBUTE.len())
      .is_some_and(|t| t == ATTRIBUTE)
      && tokens.get(i + ATTRIBUTE.len()).map(String::as_str) == Some("mod");
    if !is_test_mod {
      out.push(tokens[i].clone());
      i += 1;
      continue;
    }
    let name = i + ATTRIBUTE.len() + 1;
    if tokens.get(name + 1).map(String::as_str) == Some(";") {
      test_files.insert(tokens[name].clone());
      i = name + 2;
      continue;
    }
    // Skip to the brace that closes the module.
    let mut depth = 0;
    i = name + 1;
    while i < tokens.len() {
      match tokens[i].as_str() {
        "{" => depth += 1,
        "}" => {
          depth -= 1;
          if depth == 0 {
            i += 1;
            break;
          }
        }
        _ => {}
      }
      i += 1;
    }
  }
  (out, test_files)
}

/// The paths of a path expression starting at `tokens[*at]` (an identifier followed by `::`),
/// with `{…}` groups expanded: `a::{b, c::d}` is `a::b` and `a::c::d`.
fn paths_at(tokens: &[String], at: &mut usize) -> Vec<Vec<String>> {
  let mut prefix = Vec::new();
  loop {
    let Some(t) = tokens.get(*at) else {
      return vec![prefix];
    };
    if t == "{" {
      *at += 1;
      let mut all = Vec::new();
      while let Some(t) = tokens.get(*at) {
        match t.as_str() {
          "}" => {
            *at += 1;
            break;
          }
          "," => *at += 1,
          _ => {
            for tail in paths_at(tokens, at) {
              all.push([prefix.clone(), tail].concat());
            }
          }
        }
      }
      return all;
    }
    if !(t.chars().all(|c| c.is_alphanumeric() || c == '_') || t == "*") {
      return vec![prefix];
    }
    prefix.push(t.clone());
    *at += 1;
    if tokens.get(*at).map(String::as_str) != Some("::") {
      return vec![prefix];
    }
    *at += 1;
  }
}

/// Every path in `toks` that starts with `crate`, `super` or `self`, or with the name of one of
/// `children` (what `pub use child::Item;` names), resolved from `module` to a path from the crate
/// root (items included).
fn crate_paths(module: &ModPath, toks: &[String], children: &BTreeSet<String>) -> Vec<Vec<String>> {
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
struct Crate {
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
fn edge(from: &ModPath, target: &ModPath) -> Option<(ModPath, ModPath)> {
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
fn graph(sources: &[(String, String)]) -> Graph {
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
fn find_cycle(graph: &Graph) -> Option<Vec<ModPath>> {
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
fn tangles(graph: &Graph) -> Vec<BTreeSet<ModPath>> {
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

fn show(cycle: &[ModPath]) -> String {
  cycle
    .iter()
    .map(|m| format!("crate::{}", m.join("::")))
    .collect::<Vec<_>>()
    .join(" -> ")
}

/// Every `.rs` file under `dir`, as (path relative to `root`, source).
fn read_sources(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
  let mut entries: Vec<_> = std::fs::read_dir(dir)
    .expect("read src/")
    .map(|e| e.expect("dir entry").path())
    .collect();
  entries.sort();
  for path in entries {
    if path.is_dir() {
      read_sources(root, &path, out);
    } else if path.extension().is_some_and(|e| e == "rs") {
      let relative = path.strip_prefix(root).expect("under src/");
      let source = std::fs::read_to_string(&path).expect("read source");
      out.push((relative.to_string_lossy().into_owned(), source));
    }
  }
}

#[test]
fn core_modules_have_no_import_cycles() {
  let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
  let mut sources = Vec::new();
  read_sources(&src, &src, &mut sources);
  assert!(sources.len() > 5, "found the sources");
  let graph = graph(&sources);
  if let Some(cycle) = find_cycle(&graph) {
    let groups: Vec<String> = tangles(&graph)
      .iter()
      .map(|g| show(&g.iter().cloned().collect::<Vec<_>>()).replace(" -> ", ", "))
      .collect();
    panic!(
      "import cycle: {}\nmodules that import each other: [{}]",
      show(&cycle),
      groups.join("]; [")
    );
  }
}

// The checker on synthetic crates: it must see cycles through `use` groups, inline paths, `super`
// and re-exports, and must not see them in comments, strings or the module tree.

fn tree(files: &[(&str, &str)]) -> Vec<(String, String)> {
  files
    .iter()
    .map(|(p, s)| ((*p).to_owned(), (*s).to_owned()))
    .collect()
}

fn cycle_of(files: &[(&str, &str)]) -> Option<String> {
  find_cycle(&graph(&tree(files))).map(|c| show(&c))
}

#[test]
fn checker_finds_a_cycle_through_use_groups_and_inline_paths() {
  let files = [
    ("lib.rs", "mod a; mod b;"),
    ("a.rs", "use crate::{b::{Thing, Other}, c};"),
    ("b.rs", "fn f() { let x = crate::a::make(); }"),
  ];
  assert_eq!(
    cycle_of(&files).as_deref(),
    Some("crate::a -> crate::b -> crate::a")
  );
}

#[test]
fn checker_follows_reexports_to_the_defining_module() {
  // `b` names `crate::Item`, re-exported by the root from `a`; `a` uses `b`.
  let files = [
    ("lib.rs", "mod a; mod b; pub use a::Item;"),
    ("a.rs", "pub struct Item; use crate::b::helper;"),
    ("b.rs", "pub fn helper(_: &crate::Item) {}"),
  ];
  assert!(cycle_of(&files).is_some());
}

#[test]
fn checker_finds_cycles_between_sibling_submodules() {
  let files = [
    ("lib.rs", "mod t;"),
    ("t/mod.rs", "mod x; mod y; pub use x::X; pub use y::Y;"),
    ("t/x.rs", "use super::y::Y; pub struct X;"),
    ("t/y.rs", "pub struct Y; fn g() -> super::X { todo!() }"),
  ];
  assert_eq!(
    cycle_of(&files).as_deref(),
    Some("crate::t::x -> crate::t::y -> crate::t::x")
  );
}

#[test]
fn checker_finds_a_child_using_its_parents_items() {
  // The parent re-exports the child's type; the child uses a type the parent defines.
  let files = [
    ("lib.rs", "mod t;"),
    ("t/mod.rs", "mod x; pub use x::X; pub struct Shared;"),
    ("t/x.rs", "pub struct X(super::Shared);"),
  ];
  assert_eq!(
    cycle_of(&files).as_deref(),
    Some("crate::t -> crate::t::x -> crate::t")
  );
  // With the shared type in a leaf sibling there is none.
  let files = [
    ("lib.rs", "mod t;"),
    (
      "t/mod.rs",
      "mod shared; mod x; pub use shared::Shared; pub use x::X;",
    ),
    ("t/shared.rs", "pub struct Shared;"),
    ("t/x.rs", "pub struct X(super::Shared);"),
  ];
  assert_eq!(cycle_of(&files), None);
}

#[test]
fn checker_leaves_test_modules_out() {
  let files = [
    ("lib.rs", "mod a; pub use a::A;"),
    (
      "a.rs",
      "pub struct A;\n#[cfg(test)]\nmod tests {\n  use super::*;\n  fn f() { let _ = crate::A; }\n}\n#[cfg(test)]\nmod more;",
    ),
    ("a/more.rs", "use super::*; fn g() -> crate::A { A }"),
  ];
  assert_eq!(cycle_of(&files), None);
}

#[test]
fn checker_ignores_comments_strings_and_the_module_tree() {
  let files = [
    ("lib.rs", "mod a; mod b; pub use a::A; pub use b::B;"),
    (
      "a.rs",
      "//! See [`B`](crate::b::B).\nuse crate::b::B;\npub struct A;\nconst S: &str = \"crate::b\";",
    ),
    (
      "b.rs",
      "/* crate::a::A */ pub struct B; const R: &str = r#\"crate::a::A \"quoted\"\"#; const C: char = '\"'; fn f<'x>(_: &'x str) { let _ = crate::b::B; }",
    ),
  ];
  assert_eq!(cycle_of(&files), None);
  // The same crate with a real back edge has a cycle.
  let mut with_cycle = files;
  with_cycle[2].1 = "pub struct B; fn f() { let _ = crate::A; }";
  assert!(cycle_of(&with_cycle).is_some());
}
