//! Both cores: a large batch of strings is split across threads (strings are independent; each
//! worker keeps its own piece cache), very long strings into segments cut where every piece ends;
//! a small batch stays on the calling thread (`tokenizer::threads` says which threads, and runs
//! background work at a lower CPU priority).

use std::sync::atomic::{AtomicUsize, Ordering};

use super::merge::{PieceCache, Pieces};
use crate::tokenizer::threads::{counting_threads, on_threads};

/// Batches smaller than this (total bytes) are counted on the calling thread.
const PARALLEL_MIN_BYTES: usize = 256 * 1024;
/// Batches from this size (total bytes) get the front table of the piece cache.
const FRONT_MIN_BYTES: usize = 16 * 1024;
/// Strings at least this long are cut into segments for the workers.
const SPLIT_MIN_BYTES: usize = 128 * 1024;
/// Strings handed to a worker at a time (by total bytes).
const CHUNK_BYTES: usize = 32 * 1024;

/// Counts many strings with `count` (a string, and the piece cache of the thread counting it): on
/// the calling thread when the batch is small, else across every core (strings are independent;
/// each worker keeps its own piece cache). A small batch starts from `kept` when given, the pieces
/// an editor's earlier batches counted, and leaves there what it counted.
pub(super) fn count_many<F>(texts: &[&str], kept: Option<&mut Pieces>, count: F) -> Vec<u64>
where
  F: for<'t> Fn(&'t str, &mut PieceCache<'t>) -> u64 + Sync,
{
  let total: usize = texts.iter().map(|t| t.len()).sum();
  let threads = if total < PARALLEL_MIN_BYTES {
    1
  } else {
    counting_threads()
  };
  if threads < 2 {
    let mut kept = kept;
    let mut cache = match kept.as_deref_mut() {
      Some(kept) => PieceCache::continuing(std::mem::take(kept)),
      None if total >= FRONT_MIN_BYTES => PieceCache::for_batch(),
      None => PieceCache::default(),
    };
    let counts = texts.iter().map(|t| count(t, &mut cache)).collect();
    if let Some(kept) = kept {
      *kept = cache.into_kept();
    }
    return counts;
  }
  let items = work_items(texts);
  let bounds = chunk_bounds(&items);
  let mut out = vec![0u64; texts.len()];
  count_across(threads, &items, &bounds, &count, |done| {
    for (i, n) in done {
      out[i] += n;
    }
  });
  out
}

/// Counts the chunks `items[bounds[k]..bounds[k + 1]]` on `threads` threads, each taking the next
/// chunk when it is done with one; `place` receives each thread's `(string, count)` pairs.
fn count_across<F>(
  threads: usize,
  items: &[(usize, &str)],
  bounds: &[usize],
  count: &F,
  mut place: impl FnMut(Vec<(usize, u64)>),
) where
  F: for<'t> Fn(&'t str, &mut PieceCache<'t>) -> u64 + Sync,
{
  let next = AtomicUsize::new(0);
  let work = || {
    let mut cache = PieceCache::for_batch();
    let mut done: Vec<(usize, u64)> = Vec::new();
    loop {
      let k = next.fetch_add(1, Ordering::Relaxed);
      if k + 1 >= bounds.len() {
        break;
      }
      for &(i, t) in &items[bounds[k]..bounds[k + 1]] {
        done.push((i, count(t, &mut cache)));
      }
    }
    done
  };
  for done in on_threads(threads, work) {
    place(done);
  }
}

/// Work items `(string index, text)`: whole strings, and segments of very long ones (cut where a
/// piece always ends, so the segments' counts add up to the string's).
fn work_items<'t>(texts: &[&'t str]) -> Vec<(usize, &'t str)> {
  let mut items: Vec<(usize, &str)> = Vec::with_capacity(texts.len());
  for (i, t) in texts.iter().enumerate() {
    if t.len() >= SPLIT_MIN_BYTES {
      items.extend(segments(t).into_iter().map(|seg| (i, seg)));
    } else {
      items.push((i, t));
    }
  }
  items
}

/// Bounds of chunks of consecutive items of about `CHUNK_BYTES`, handed out in order.
fn chunk_bounds(items: &[(usize, &str)]) -> Vec<usize> {
  let mut bounds = vec![0usize];
  let mut acc = 0;
  for (k, (_, t)) in items.iter().enumerate() {
    acc += t.len();
    if acc >= CHUNK_BYTES {
      bounds.push(k + 1);
      acc = 0;
    }
  }
  if *bounds.last().unwrap_or(&0) != items.len() {
    bounds.push(items.len());
  }
  bounds
}

/// Cuts `text` into segments of about `CHUNK_BYTES` at positions where every piece of both
/// patterns ends: after a `\n` and before an ASCII letter or digit. No alternative of either pattern
/// matches across such a point (letter and digit pieces cannot contain `\r`/`\n`, not even as their
/// prefix character; punctuation pieces end their trailing `[\r\n/]*` at a letter or digit; white
/// space pieces stay inside the white space), and matching from a position depends only on the
/// text after it, so the pieces of the segments are the pieces of the text.
pub(super) fn segments(text: &str) -> Vec<&str> {
  let b = text.as_bytes();
  let mut out = Vec::new();
  let mut start = 0;
  let mut target = CHUNK_BYTES;
  while target < b.len() {
    let Some(p) = (target..b.len()).find(|&p| b[p - 1] == b'\n' && b[p].is_ascii_alphanumeric())
    else {
      break;
    };
    out.push(&text[start..p]);
    start = p;
    target = p + CHUNK_BYTES;
  }
  out.push(&text[start..]);
  out
}
