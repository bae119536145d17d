//! The WebAssembly build's column arena: a region of its memory into which the shim writes a
//! call's numeric columns right before the call (ts/wasi.ts, `passColumnsInMemory`), so that they
//! cross without a Node-API call per column.
//!
//! The region starts with a header of eight 32-bit words, then the columns, each at its natural
//! alignment: `nums` and `args` (8 bytes a value), then `ints` and `lengths` (4 bytes):
//!
//! | word | holds |
//! |---|---|
//! | 0 | `ARENA_MAGIC`, written last by the shim, cleared here once read |
//! | 1, 2, 3, 4 | the lengths of `ints`, `nums`, `args`, `lengths` (values, not bytes) |
//! | 5, 6, 7 | 0 |
//!
//! The shim then passes the `strings` column alone where the columns object goes. A string there
//! without a fresh header (the magic word) is refused as natively, as a string is no
//! `WireColumns`. Natively there is no arena: `__columnArena` gives `null`.

use napi_derive::napi;

#[cfg(target_family = "wasm")]
use crate::wasi::memory_view;

/// Word 0 of a header the shim has just written (`COLS`, little-endian).
pub const ARENA_MAGIC: u32 = u32::from_le_bytes(*b"COLS");
/// Bytes of the header.
pub const ARENA_HEADER_BYTES: usize = 32;

/// Bytes of the largest region `__columnArena` gives (64 MiB): larger columns are passed as they
/// are.
#[cfg(target_family = "wasm")]
const ARENA_MAX_BYTES: usize = 64 << 20;

#[cfg(target_family = "wasm")]
thread_local! {
  /// The region of `__columnArena` (8-byte words: a `Float64Array` may start anywhere in it at a
  /// multiple of 8).
  static ARENA: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A `Uint8Array` over at least `bytes` bytes of the WebAssembly memory, starting at a multiple of
/// 8, into which the shim writes a call's columns right before it makes the call (see the module's
/// comment). `null` natively, and for more than 64 MiB. The region is the same from call to call
/// until a larger one is asked for, which replaces it: a view is written only for the call that
/// follows. Not part of the public API.
#[napi(js_name = "__columnArena", ts_return_type = "Uint8Array | null")]
#[must_use]
pub fn column_arena(env: &napi::Env, bytes: u32) -> Option<napi::Unknown<'_>> {
  #[cfg(target_family = "wasm")]
  {
    let bytes = usize::try_from(bytes)
      .ok()
      .filter(|&b| b <= ARENA_MAX_BYTES)?;
    let (ptr, len) = ARENA.with_borrow_mut(|arena| {
      if arena.len() * 8 < bytes {
        *arena = vec![0u64; bytes.div_ceil(8).next_power_of_two()];
      }
      (arena.as_mut_ptr().cast::<u8>(), arena.len() * 8)
    });
    // SAFETY: the view covers the arena's `len` bytes, which live until a larger region replaces
    // them (the shim writes a view only for the call it makes next).
    let view = unsafe { memory_view(env.raw(), ptr, len) }?;
    // SAFETY: `view` is a live value of this call's environment.
    Some(unsafe { napi::Unknown::from_raw_unchecked(env.raw(), view) })
  }
  #[cfg(not(target_family = "wasm"))]
  {
    let _ = (env, bytes);
    None
  }
}

/// The numeric columns the shim wrote into the arena, as `(ints, nums, args, lengths)`, when a
/// fresh header says so (its magic word is cleared: each header is read once); `None` when there
/// is none, or when the lengths it gives do not fit the region.
#[cfg(target_family = "wasm")]
pub fn take_arena_columns() -> Option<(Vec<u32>, Vec<f64>, Vec<f64>, Vec<u32>)> {
  ARENA.with_borrow_mut(|arena| {
    let bytes = as_bytes(arena);
    if bytes.len() < ARENA_HEADER_BYTES || word(bytes, 0) != ARENA_MAGIC {
      return None;
    }
    bytes[..4].fill(0);
    let [ints, nums, args, lengths] =
      [1, 2, 3, 4].map(|k| usize::try_from(word(bytes, k)).unwrap_or(usize::MAX));
    let eights = nums.checked_add(args)?.checked_mul(8)?;
    let fours = ints.checked_add(lengths)?.checked_mul(4)?;
    let end = ARENA_HEADER_BYTES.checked_add(eights)?.checked_add(fours)?;
    if end > bytes.len() {
      return None;
    }
    let mut at = ARENA_HEADER_BYTES;
    let mut take = |n: usize, size: usize| {
      let part = &bytes[at..at + n * size];
      at += n * size;
      part
    };
    let f64s = |part: &[u8]| -> Vec<f64> {
      part
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect()
    };
    let u32s = |part: &[u8]| -> Vec<u32> {
      part
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect()
    };
    let nums = f64s(take(nums, 8));
    let args = f64s(take(args, 8));
    let ints = u32s(take(ints, 4));
    let lengths = u32s(take(lengths, 4));
    Some((ints, nums, args, lengths))
  })
}

/// Word `k` of the header.
#[cfg(target_family = "wasm")]
fn word(bytes: &[u8], k: usize) -> u32 {
  u32::from_le_bytes([
    bytes[4 * k],
    bytes[4 * k + 1],
    bytes[4 * k + 2],
    bytes[4 * k + 3],
  ])
}

/// The arena's bytes.
#[cfg(target_family = "wasm")]
fn as_bytes(words: &mut [u64]) -> &mut [u8] {
  let len = words.len() * 8;
  // SAFETY: a `u64` slice is `len` initialized bytes, borrowed mutably for as long as the result.
  unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), len) }
}
