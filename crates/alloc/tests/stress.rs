//! The allocator as this test binary's own global allocator, under the uses that could break it:
//! blocks freed on another thread than the one that allocated them, every size class and the sizes
//! around `MAX_SMALL` (512) and its alignment (16), growth and shrinking across classes, zeroed
//! memory from blocks that were dirty when freed, lists past their cap. Every block is filled
//! with a pattern of its own when allocated and checked before it is freed, so two owners of one
//! block, or a block handed out while listed, show as a wrong byte.

// A pattern's bytes are the low bits of an index or of a random number, on purpose.
#![allow(clippy::cast_possible_truncation)]

use std::alloc::{GlobalAlloc, Layout};
use std::sync::mpsc;
use std::thread;

use context_editor_alloc::ThreadCached;

#[global_allocator]
static GLOBAL: ThreadCached = ThreadCached;

/// A small deterministic generator (no dependency).
struct Rng(u64);

impl Rng {
  fn next(&mut self) -> u64 {
    self.0 ^= self.0 << 13;
    self.0 ^= self.0 >> 7;
    self.0 ^= self.0 << 17;
    self.0
  }

  fn below(&mut self, n: usize) -> usize {
    usize::try_from(self.next() % n as u64).unwrap()
  }
}

/// A size to allocate: mostly small (every class and its edges), sometimes large.
fn size(rng: &mut Rng) -> usize {
  match rng.below(10) {
    0 => 1 + rng.below(8),
    1 => 500 + rng.below(30),
    2 => 513 + rng.below(4000),
    _ => 1 + rng.below(512),
  }
}

/// A block filled with a pattern of its own (from `seed`).
fn filled(len: usize, seed: u8) -> Vec<u8> {
  (0..len)
    .map(|k| seed.wrapping_add(k as u8).wrapping_mul(31))
    .collect()
}

fn check(v: &[u8], seed: u8) {
  for (k, &b) in v.iter().enumerate() {
    assert_eq!(
      b,
      seed.wrapping_add(k as u8).wrapping_mul(31),
      "byte {k} of a block of {} changed",
      v.len()
    );
  }
}

#[test]
fn blocks_freed_on_other_threads_stay_intact() {
  // Each of four threads allocates blocks and sends most of them to the next thread, which checks
  // and frees them there (its lists fill with the other thread's blocks) while allocating its own.
  const THREADS: usize = 4;
  const ROUNDS: usize = 20_000;
  let (senders, receivers): (Vec<_>, Vec<_>) = (0..THREADS)
    .map(|_| mpsc::channel::<(Vec<u8>, u8)>())
    .unzip();
  let mut handles = Vec::new();
  for (t, rx) in receivers.into_iter().enumerate() {
    let tx = senders[(t + 1) % THREADS].clone();
    handles.push(thread::spawn(move || {
      let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (t as u64 + 1));
      let mut kept: Vec<(Vec<u8>, u8)> = Vec::new();
      for round in 0..ROUNDS {
        let seed = rng.next() as u8;
        let block = filled(size(&mut rng), seed);
        if rng.below(4) == 0 {
          kept.push((block, seed));
        } else {
          tx.send((block, seed)).unwrap();
        }
        while let Ok((block, seed)) = rx.try_recv() {
          check(&block, seed);
        }
        if round % 7 == 0 && !kept.is_empty() {
          let (block, seed) = kept.swap_remove(rng.below(kept.len()));
          check(&block, seed);
        }
      }
      drop(tx);
      for (block, seed) in rx {
        check(&block, seed);
      }
      for (block, seed) in kept {
        check(&block, seed);
      }
    }));
  }
  drop(senders);
  for h in handles {
    h.join().unwrap();
  }
}

#[test]
fn growing_and_shrinking_keeps_the_contents() {
  // A vector grown one byte at a time moves through every class and past the largest; shrinking
  // moves it back. Each step keeps what it held.
  let mut v: Vec<u8> = Vec::new();
  for k in 0..3000usize {
    v.push(k as u8);
    if k % 97 == 0 {
      v.shrink_to_fit();
    }
  }
  for (k, &b) in v.iter().enumerate() {
    assert_eq!(b, k as u8);
  }
  for len in [2000, 600, 513, 512, 511, 300, 17, 16, 15, 1] {
    v.truncate(len);
    v.shrink_to_fit();
    for (k, &b) in v.iter().enumerate() {
      assert_eq!(b, k as u8, "after shrinking to {len}");
    }
  }
  // Through the allocator directly, across the edge of the small blocks and within one class.
  let a = ThreadCached;
  for (from, to) in [
    (8, 24),
    (24, 8),
    (500, 512),
    (512, 513),
    (513, 512),
    (100, 4000),
    (4000, 100),
    (33, 47),
  ] {
    let layout = Layout::from_size_align(from, 8).unwrap();
    // SAFETY: a non-zero layout; the block is written and read within `from`, then `to`, bytes.
    unsafe {
      let p = a.alloc(layout);
      assert!(!p.is_null());
      for k in 0..from {
        p.add(k).write(k as u8);
      }
      let q = a.realloc(p, layout, to);
      assert!(!q.is_null());
      for k in 0..from.min(to) {
        assert_eq!(q.add(k).read(), k as u8, "realloc {from} -> {to}, byte {k}");
      }
      a.dealloc(q, Layout::from_size_align(to, 8).unwrap());
    }
  }
}

#[test]
fn zeroed_blocks_are_zero_after_dirty_ones_were_freed() {
  for len in [1usize, 15, 16, 17, 100, 256, 511, 512, 513, 2048] {
    for _ in 0..64 {
      drop(vec![0xa5u8; len]);
    }
    for _ in 0..64 {
      let v = vec![0u8; len];
      assert!(
        v.iter().all(|&b| b == 0),
        "a zeroed block of {len} bytes held old bytes"
      );
    }
  }
}

#[test]
fn alignments_are_kept() {
  let a = ThreadCached;
  for align in [1usize, 2, 4, 8, 16, 32, 64, 4096] {
    for size in [1usize, 7, 16, 100, 512, 513, 5000] {
      let layout = Layout::from_size_align(size, align).unwrap();
      // SAFETY: a non-zero layout, freed with the same layout.
      unsafe {
        let mut blocks = Vec::new();
        for _ in 0..40 {
          let p = a.alloc(layout);
          assert!(!p.is_null());
          assert_eq!(
            p as usize % align,
            0,
            "a block of {size} bytes aligned to {align}"
          );
          blocks.push(p);
        }
        for p in blocks {
          a.dealloc(p, layout);
        }
      }
    }
  }
}

#[test]
fn lists_past_their_cap_give_blocks_back() {
  // Far more blocks of one class than a list keeps, freed at once, then taken again: the blocks
  // past the cap went back to the system allocator, and every block handed out again is distinct.
  let layout = Layout::from_size_align(64, 8).unwrap();
  let a = ThreadCached;
  // SAFETY: a non-zero layout; each block is freed once, with it.
  unsafe {
    let first: Vec<*mut u8> = (0..20_000).map(|_| a.alloc(layout)).collect();
    for &p in &first {
      a.dealloc(p, layout);
    }
    let mut again: Vec<usize> = (0..20_000).map(|_| a.alloc(layout) as usize).collect();
    let n = again.len();
    again.sort_unstable();
    again.dedup();
    assert_eq!(again.len(), n, "a block was handed out twice");
    for p in again {
      a.dealloc(p as *mut u8, layout);
    }
  }
}
