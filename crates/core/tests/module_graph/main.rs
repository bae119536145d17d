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

mod graph;
mod lexer;

use std::path::Path;

use graph::{find_cycle, graph, show, tangles};

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
