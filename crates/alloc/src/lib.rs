//! The WebAssembly build's allocator: the system allocator (`System`; on wasm32-wasip1-threads,
//! wasi-libc's dlmalloc) with a cache of small blocks per thread in front of it. It is written for
//! any target: the tests run it natively as their own global allocator (tests/stress.rs).
//!
//! wasi-libc's dlmalloc takes one lock for every `malloc` and `free`. The `tokenizers` crate, which
//! counts the open-model families, allocates many small blocks as it encodes, so two threads
//! counting at once spent their time waiting on that lock: the six families of
//! `benchmark/tokenizer-families.mjs` took 2.2× as long on two threads as on one, and the
//! WebAssembly build counted on one. With this cache, two threads take about half the time of one
//! (docs/performance.md, *Counting threads on WebAssembly*). Natively mimalloc keeps a heap per
//! thread and the question does not arise.
//!
//! A block of at most `MAX_SMALL` bytes (alignment at most `ALIGN`) is taken from `System` rounded
//! up to its size class, and when freed it goes to the freeing thread's list for that class, which
//! the next allocation of the class on that thread takes back without a lock. `GlobalAlloc::dealloc`
//! is told the block's layout, so its class is known without a header, and every block of a class
//! has the same size and alignment whichever thread took it from `System`: a block freed on
//! another thread than the one that allocated it is an ordinary block of that thread's list. A list
//! keeps at most `CACHED_BYTES` of its class; past that, blocks go back to `System`. A thread's
//! lists are not returned when it ends (the build's threads are kept: the counting pool and
//! emnapi's workers), so what a thread can hold is bounded by `CLASSES × CACHED_BYTES` (2 MiB; a
//! quarter of it per class counted 10–25 % slower).
//!
//! Larger or more aligned blocks are `System`'s, unchanged.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::ptr;

/// Size classes are multiples of this, and so is every small block's alignment.
const ALIGN: usize = 16;
/// The largest small block.
const MAX_SMALL: usize = 512;
const CLASSES: usize = MAX_SMALL / ALIGN;
/// At most this many bytes of one class are kept per thread.
const CACHED_BYTES: usize = 64 << 10;

/// One thread's lists: the first free block of each class (each free block holds the next one in
/// its first word) and how many each list holds.
struct Lists {
  heads: [*mut u8; CLASSES],
  counts: [u32; CLASSES],
}

thread_local! {
  // `const`, and nothing to drop: the slot needs no lazy set-up and registers no destructor, so
  // reaching it never allocates (an allocator that did would call itself).
  static LISTS: UnsafeCell<Lists> = const {
    UnsafeCell::new(Lists { heads: [ptr::null_mut(); CLASSES], counts: [0; CLASSES] })
  };
}

/// The allocator (see the module's comment).
pub struct ThreadCached;

/// The class of a small layout, else `None`.
#[inline]
fn class_of(size: usize, align: usize) -> Option<usize> {
  if size <= MAX_SMALL && align <= ALIGN {
    Some(size.max(1).div_ceil(ALIGN) - 1)
  } else {
    None
  }
}

/// The layout `System` allocates a block of `class` with: a multiple of `ALIGN` up to `MAX_SMALL`,
/// aligned to `ALIGN`, always a valid layout.
#[inline]
fn class_layout(class: usize) -> Layout {
  match Layout::from_size_align((class + 1) * ALIGN, ALIGN) {
    Ok(layout) => layout,
    Err(_) => unreachable!("size classes are valid layouts"),
  }
}

/// The first word of a free block, which holds the next block of its list (every small block is
/// aligned to `ALIGN`, so the word is aligned).
#[inline]
fn link(block: *mut u8) -> *mut *mut u8 {
  block.cast()
}

/// A block of `class`: from this thread's list, else from `System`.
#[inline]
unsafe fn take(class: usize) -> *mut u8 {
  let cached = LISTS.try_with(|lists| {
    // SAFETY: the lists are this thread's own, and nothing else runs on it while this does (no
    // reference to them outlives this closure; `System` never calls back into this allocator).
    let lists = unsafe { &mut *lists.get() };
    let head = lists.heads[class];
    if head.is_null() {
      return head;
    }
    // SAFETY: a listed block is a free block of this class (at least 16 bytes, 16-aligned) whose
    // first word holds the next listed block.
    lists.heads[class] = unsafe { link(head).read() };
    lists.counts[class] -= 1;
    head
  });
  match cached {
    Ok(block) if !block.is_null() => block,
    // SAFETY: a class layout has a non-zero size.
    _ => unsafe { System.alloc(class_layout(class)) },
  }
}

/// Frees `block` of `class`: onto this thread's list, or to `System` when that list is full (or
/// the thread's lists are gone: a thread ending).
#[inline]
unsafe fn give(block: *mut u8, class: usize) {
  let kept = LISTS.try_with(|lists| {
    // SAFETY: as in `take`.
    let lists = unsafe { &mut *lists.get() };
    if (lists.counts[class] as usize + 1) * (class + 1) * ALIGN > CACHED_BYTES {
      return false;
    }
    // SAFETY: `block` is a block of this class no one else uses any more: its first word is ours.
    unsafe { link(block).write(lists.heads[class]) };
    lists.heads[class] = block;
    lists.counts[class] += 1;
    true
  });
  if kept != Ok(true) {
    // SAFETY: every block of a class was allocated by `System` with the class's layout.
    unsafe { System.dealloc(block, class_layout(class)) };
  }
}

// SAFETY: every block handed out is either a `System` block of the layout asked for (large ones) or
// a `System` block of the class layout, which is at least as large and as aligned as the layout
// asked for; a block is on at most one list at a time and handed out by at most one `take`.
unsafe impl GlobalAlloc for ThreadCached {
  #[inline]
  unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
    match class_of(layout.size(), layout.align()) {
      // SAFETY: see the impl.
      Some(class) => unsafe { take(class) },
      // SAFETY: the caller's layout, which `GlobalAlloc::alloc` requires to be non-zero.
      None => unsafe { System.alloc(layout) },
    }
  }

  #[inline]
  unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
    match class_of(layout.size(), layout.align()) {
      Some(class) => {
        // SAFETY: see the impl; a block of the class holds at least `layout.size()` bytes.
        let block = unsafe { take(class) };
        if !block.is_null() {
          // SAFETY: the block is ours and holds at least `layout.size()` bytes.
          unsafe { ptr::write_bytes(block, 0, layout.size()) };
        }
        block
      }
      // SAFETY: as in `alloc`.
      None => unsafe { System.alloc_zeroed(layout) },
    }
  }

  #[inline]
  unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
    match class_of(layout.size(), layout.align()) {
      // SAFETY: `block` was allocated by `alloc` with this layout, so it is a block of its class.
      Some(class) => unsafe { give(block, class) },
      // SAFETY: a large block is `System`'s, with this layout.
      None => unsafe { System.dealloc(block, layout) },
    }
  }

  #[inline]
  unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
    let old = class_of(layout.size(), layout.align());
    let new = class_of(new_size, layout.align());
    match (old, new) {
      // The block already has room (a class holds every size up to its own).
      (Some(a), Some(b)) if a == b => block,
      // SAFETY: both large: `System`'s block with `System`'s realloc.
      (None, None) => unsafe { System.realloc(block, layout, new_size) },
      _ => {
        // SAFETY: `new_size` with the old alignment is a valid layout (the caller's contract).
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: see `alloc` and `dealloc`; the two blocks are distinct.
        let moved = unsafe { self.alloc(new_layout) };
        if !moved.is_null() {
          // SAFETY: both blocks hold at least the bytes copied, and `block` (the caller's, with
          // `layout`) is not used after this.
          unsafe {
            ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
            self.dealloc(block, layout);
          }
        }
        moved
      }
    }
  }
}
