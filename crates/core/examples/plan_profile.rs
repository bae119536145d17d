//! Times repeated plans of a long synthetic agent history (for `perf record`):
//! `cargo run --release -p context-editor-core --example plan_profile -- 10000 approx [runs] [--cold-cache]`
//!
//! With `--cold-cache`, a 64 MiB buffer is written between plans (not timed), as a host's own work
//! does between an agent's model calls: the plan then reads the session from memory, not from the
//! CPU's cache, as it does inside Node.
#![allow(clippy::print_stdout)]
use std::time::Instant;

use context_editor_core::{Context, ContextEditor, Message};
use serde_json::json;

fn main() {
  let mut args = std::env::args().skip(1);
  let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
  let method = args.next().unwrap_or_else(|| "approx".to_owned());
  let mut msgs = vec![Message::system("you are an agent")];
  let mut t = 0;
  while msgs.len() < n {
    msgs.push(Message::user(format!("step {t}")));
    let id = format!("call_{t:08}");
    msgs.push(Message::assistant(
      "",
      &[(&id, "read", r#"{"path":"src/lib.rs"}"#)],
    ));
    msgs.push(Message::tool(
      &id,
      "read",
      "fn main() { println!(\"hello\"); }\n".repeat(20),
    ));
    t += 1;
  }
  let editor = ContextEditor::from_json(&json!({
    "trigger": { "tokens": 100_000 }, "keep": { "messages": 3 }, "tokenCountMethod": method
  }))
  .unwrap();
  let ctx = Context::default();
  editor.plan_session(1, 0, msgs.clone(), &ctx).unwrap();
  let runs: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
  let cold_cache = args.next().is_some_and(|a| a == "--cold-cache");
  let mut other_work = vec![0u8; if cold_cache { 64 << 20 } else { 0 }];
  let mut spent = std::time::Duration::ZERO;
  let mut ops = 0;
  for run in 0..runs {
    for byte in other_work.iter_mut().step_by(64) {
      *byte = byte.wrapping_add(run.to_le_bytes()[0]);
    }
    let t0 = Instant::now();
    ops += editor
      .plan_session(1, n, Vec::new(), &ctx)
      .unwrap()
      .unwrap()
      .ops
      .len();
    spent += t0.elapsed();
  }
  std::hint::black_box(&other_work);
  println!(
    "{n} messages, {method}: {:.3} ms per session plan ({} ops)",
    spent.as_secs_f64() * 1e3 / f64::from(runs),
    ops / runs as usize
  );
}
