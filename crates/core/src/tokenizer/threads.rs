//! The threads a large batch of texts is counted on (`fastbpe` and `hf` batches).
//!
//! Natively a batch runs on scoped threads spawned for it, the calling thread one of them. On
//! WebAssembly (wasm32-wasip1-threads) a thread is a Web Worker that loads the whole module before
//! it runs, far too slow to start per batch, and the platform reports no parallelism: batches are
//! counted on one thread unless the host says how many it may use ([`set_counting_threads`], which
//! the Node.js loader of the WebAssembly build calls). Those threads are started once and kept
//! (a `rayon-core` pool). A browser's main thread may not block, so there the count stays one.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// At most this many threads count one batch.
const MAX_THREADS: usize = 8;

/// Set by [`set_counting_threads`]; 0: the platform's own parallelism.
static REQUESTED: AtomicUsize = AtomicUsize::new(0);

thread_local! {
  /// Set by [`in_background`] on the thread running background work.
  static BACKGROUND: Cell<bool> = const { Cell::new(false) };
}

/// Sets how many threads a large batch is counted on, process-wide (at most 8; 0 gives back the
/// platform's own count). On WebAssembly, where the platform reports one, the host's loader sets
/// the cores it may use; the threads are started on the first large batch, and their number is
/// fixed from then on.
pub fn set_counting_threads(threads: usize) {
  REQUESTED.store(threads.min(MAX_THREADS), Ordering::Relaxed);
}

/// The threads a large batch is counted on: as set, else the cores available, at most 8.
pub(crate) fn counting_threads() -> usize {
  static AVAILABLE: OnceLock<usize> = OnceLock::new();
  match REQUESTED.load(Ordering::Relaxed) {
    0 => *AVAILABLE
      .get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS))),
    n => n,
  }
}

/// Runs `f` as background work (an asynchronous call, on a thread of Node's pool): a batch that
/// is counted across threads is counted by worker threads at a lower CPU priority (nice +10), the
/// calling thread only waiting, so that on a machine with few cores the event loop's thread and
/// the garbage collector are not starved while a long history is counted. Synchronous calls keep
/// the normal priority: the caller is waiting for them.
pub fn in_background<T>(f: impl FnOnce() -> T) -> T {
  struct Reset(bool);
  impl Drop for Reset {
    fn drop(&mut self) {
      BACKGROUND.with(|b| b.set(self.0));
    }
  }
  let _reset = Reset(BACKGROUND.with(|b| b.replace(true)));
  f()
}

/// Lowers the calling thread's CPU priority (Linux keeps the nice value per thread). Best effort:
/// where it is not allowed or not supported, the thread keeps its priority.
fn lower_priority() {
  #[cfg(target_os = "linux")]
  {
    let _ = rustix::process::nice(10);
  }
}

/// Runs `work` on `threads` threads at once and returns what each returned (in no set order).
/// `work` takes its share itself (from a shared counter, say) until none is left, so a thread that
/// starts late or cannot be started only leaves more to the others: the result never depends on
/// how many ran.
pub(crate) fn on_threads<R: Send>(threads: usize, work: impl Fn() -> R + Sync) -> Vec<R> {
  #[cfg(target_family = "wasm")]
  if let Some(pool) = pool(threads) {
    return on_pool(pool, &work);
  }
  on_scoped_threads(threads, &work)
}

/// `on_threads` with threads spawned for this batch. The calling thread works too, unless the work
/// is background work (its workers run at a lower priority, and the calling thread is one of
/// Node's pool).
fn on_scoped_threads<R: Send>(threads: usize, work: &(impl Fn() -> R + Sync)) -> Vec<R> {
  let background = BACKGROUND.with(Cell::get);
  std::thread::scope(|scope| {
    let spawned = if background { threads } else { threads - 1 };
    // A thread that cannot be spawned is no error: its share is taken by the others.
    let handles: Vec<_> = (0..spawned)
      .filter_map(|_| {
        std::thread::Builder::new()
          .spawn_scoped(scope, || {
            if background {
              lower_priority();
            }
            work()
          })
          .ok()
      })
      .collect();
    let mut out = Vec::with_capacity(threads);
    if !background || handles.is_empty() {
      out.push(work());
    }
    for h in handles {
      match h.join() {
        Ok(done) => out.push(done),
        Err(e) => std::panic::resume_unwind(e),
      }
    }
    out
  })
}

/// The kept threads (WebAssembly): `threads - 1` of them, made on the first batch that asks for
/// more than one; `None` when none could be started (then batches are counted as natively).
#[cfg(target_family = "wasm")]
fn pool(threads: usize) -> Option<&'static rayon_core::ThreadPool> {
  static POOL: OnceLock<Option<rayon_core::ThreadPool>> = OnceLock::new();
  if threads < 2 {
    return None;
  }
  POOL
    .get_or_init(|| {
      rayon_core::ThreadPoolBuilder::new()
        .num_threads(threads - 1)
        .thread_name(|k| format!("context-editor-count-{k}"))
        .build()
        .ok()
    })
    .as_ref()
}

/// `on_threads` on the kept threads: each takes one run of `work`, and the calling thread runs
/// it too (it never waits on a thread that has not started: such a run finds nothing left).
#[cfg(target_family = "wasm")]
fn on_pool<R: Send>(pool: &rayon_core::ThreadPool, work: &(impl Fn() -> R + Sync)) -> Vec<R> {
  let done = std::sync::Mutex::new(Vec::new());
  let mine = pool.in_place_scope(|scope| {
    for _ in 0..pool.current_num_threads() {
      scope.spawn(|_| {
        let r = work();
        done
          .lock()
          .unwrap_or_else(std::sync::PoisonError::into_inner)
          .push(r);
      });
    }
    work()
  });
  let mut out = done
    .into_inner()
    .unwrap_or_else(std::sync::PoisonError::into_inner);
  out.push(mine);
  out
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn every_thread_runs_the_work_and_shares_it() {
    let next = AtomicUsize::new(0);
    let results = on_threads(3, || {
      let mut mine = Vec::new();
      loop {
        let k = next.fetch_add(1, Ordering::Relaxed);
        if k >= 1000 {
          break mine;
        }
        mine.push(k);
      }
    });
    assert_eq!(results.len(), 3);
    let mut all: Vec<usize> = results.into_iter().flatten().collect();
    all.sort_unstable();
    assert_eq!(all, (0..1000).collect::<Vec<_>>());
  }
}
