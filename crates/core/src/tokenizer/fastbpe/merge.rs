//! What one piece costs: a piece that is one token (most words) is one hash lookup; other pieces
//! are merged with tiktoken's own algorithm (vendored here, counting only) and memoized in a piece
//! cache that lives for one batch of strings, or, for an editor's small batches, from one batch to
//! the next (`KeptPieces`: a new editor starts with none, so its first count is really cold).
// `#[inline(always)]` marks the per-piece path (packing, rank and cache lookups): measured with
// `benchmark/tokenizers-rs`, the calls it removes cost more than the code they add.
#![allow(clippy::inline_always)]

use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;
use tiktoken_rs::Rank;

/// Byte strings of up to 15 bytes packed in a `u128` (bytes little-endian, length in the top byte):
/// hashing and comparing them costs no pointer chase and no `memcmp`.
#[inline(always)]
pub(super) fn pack(b: &[u8]) -> Option<u128> {
  if b.len() > 15 {
    return None;
  }
  let mut buf = [0u8; 16];
  buf[..b.len()].copy_from_slice(b);
  #[allow(clippy::cast_possible_truncation)] // at most 15, checked above
  let len = b.len() as u8;
  buf[15] = len;
  Some(u128::from_le_bytes(buf))
}

/// `pack(&bytes[s..e])`, reading 16 bytes at once when the text has them (no `memcpy` call).
#[inline(always)]
pub(super) fn pack_at(bytes: &[u8], s: usize, e: usize) -> Option<u128> {
  let len = e - s;
  if len > 15 {
    return None;
  }
  match bytes.get(s..s + 16) {
    Some(window) => {
      let mut buf = [0u8; 16];
      buf.copy_from_slice(window);
      let v = u128::from_le_bytes(buf);
      // Keep the piece's `len` bytes, put the length in the top byte.
      let mask = (1u128 << (8 * len)) - 1;
      Some((v & mask) | ((len as u128) << 120))
    }
    None => pack(&bytes[s..e]),
  }
}

/// Token ranks by bytes: short tokens packed, long ones boxed.
#[derive(Default)]
pub(super) struct Ranks {
  short: FxHashMap<u128, Rank>,
  long: FxHashMap<Box<[u8]>, Rank>,
}

impl Ranks {
  /// An empty table with room for `tokens` short tokens.
  pub(super) fn with_capacity(tokens: usize) -> Self {
    let mut ranks = Self::default();
    ranks.short.reserve(tokens);
    ranks
  }

  pub(super) fn insert(&mut self, bytes: Vec<u8>, rank: Rank) {
    match pack(&bytes) {
      Some(k) => {
        self.short.insert(k, rank);
      }
      None => {
        self.long.insert(bytes.into_boxed_slice(), rank);
      }
    }
  }

  #[inline(always)]
  fn get(&self, bytes: &[u8]) -> Option<Rank> {
    match pack(bytes) {
      Some(k) => self.short.get(&k).copied(),
      None => self.long.get(bytes).copied(),
    }
  }
}

/// The part of a [`PieceCache`] that holds no reference into a batch's strings, so that it can
/// outlive the batch: the short non-token pieces and their counts, and the front table. An editor
/// keeps one between its calls ([`KeptPieces`]).
#[derive(Default)]
pub(super) struct Pieces {
  short: FxHashMap<u128, u32>,
  front: Vec<(u128, u32)>,
}

impl Pieces {
  /// The short non-token pieces held.
  #[cfg(test)]
  pub(super) fn merged(&self) -> usize {
    self.short.len()
  }

  /// Bytes held (for the registry's bound on what editors hold).
  pub(super) fn bytes(&self) -> usize {
    // A hash table's bucket holds the entry (32 bytes: a `u128` key aligns it) and a control byte.
    self.short.capacity() * 33 + self.front.capacity() * std::mem::size_of::<(u128, u32)>()
  }
}

/// Non-token pieces memoized for one batch of strings (bounded): short ones packed, long ones by
/// reference into the batch's strings.
///
/// For a batch, `front` is a small direct-mapped table of recent short pieces (tokens or not) and
/// their counts: it stays in the L2 cache while the 200k-entry rank table does not, and natural
/// text repeats its most frequent pieces (" the", ",", "\n") all the time.
#[derive(Default)]
pub(super) struct PieceCache<'a> {
  kept: Pieces,
  long: FxHashMap<&'a [u8], u32>,
}

const FRONT_BITS: u32 = 12;

#[inline(always)]
fn front_slot(k: u128) -> usize {
  // The two halves of the key, folded: truncation is the point.
  #[allow(clippy::cast_possible_truncation)]
  let x = (k as u64) ^ ((k >> 64) as u64).rotate_left(23);
  (x.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - FRONT_BITS)) as usize
}

impl<'a> PieceCache<'a> {
  /// A cache with the front table, for batches.
  pub(super) fn for_batch() -> Self {
    Self::continuing(Pieces::default())
  }

  /// A cache that starts from `kept` (what [`into_kept`](Self::into_kept) gave back after an
  /// earlier batch of the same encoding), with the front table.
  pub(super) fn continuing(mut kept: Pieces) -> Self {
    if kept.front.is_empty() {
      kept.front = vec![(0, 0); 1 << FRONT_BITS];
    }
    Self {
      kept,
      long: FxHashMap::default(),
    }
  }

  /// What of this cache can outlive the batch (its long pieces point into the batch's strings),
  /// the short pieces dropped when there are more than [`KEPT_PIECES_MAX`].
  pub(super) fn into_kept(mut self) -> Pieces {
    if self.kept.short.len() > KEPT_PIECES_MAX {
      self.kept.short = FxHashMap::default();
    }
    self.kept
  }

  #[inline]
  fn get(&self, piece: &[u8]) -> Option<u32> {
    match pack(piece) {
      Some(k) => self.kept.short.get(&k).copied(),
      None => self.long.get(piece).copied(),
    }
  }

  fn insert(&mut self, piece: &'a [u8], n: u32) {
    if self.kept.short.len() + self.long.len() >= PIECE_CACHE_MAX {
      self.kept.short.clear();
      self.long.clear();
    }
    match pack(piece) {
      Some(k) => {
        self.kept.short.insert(k, n);
      }
      None => {
        self.long.insert(piece, n);
      }
    }
  }
}
const PIECE_CACHE_MAX: usize = 1 << 16;
/// Short pieces an editor keeps between batches at most (about 0.5 MB of hash table).
const KEPT_PIECES_MAX: usize = 1 << 13;

impl Ranks {
  #[inline]
  pub(super) fn piece_count<'a>(
    &self,
    piece: &'a [u8],
    key: Option<u128>,
    cache: &mut PieceCache<'a>,
  ) -> u32 {
    if !cache.kept.front.is_empty() {
      if let Some(k) = key {
        // `pack` never yields 0 for a non-empty piece (its length byte), so 0 marks an empty slot.
        let slot = front_slot(k);
        if cache.kept.front[slot].0 == k {
          return cache.kept.front[slot].1;
        }
        let n = match self.short.get(&k) {
          Some(_) => 1,
          None => self.miss_count(piece, cache),
        };
        cache.kept.front[slot] = (k, n);
        return n;
      }
    }
    if self.get(piece).is_some() {
      return 1;
    }
    self.miss_count(piece, cache)
  }

  /// The count of a piece that is not one token: memoized merges.
  fn miss_count<'a>(&self, piece: &'a [u8], cache: &mut PieceCache<'a>) -> u32 {
    if let Some(n) = cache.get(piece) {
      return n;
    }
    let n = u32::try_from(self.merge_count(piece)).unwrap_or(u32::MAX);
    cache.insert(piece, n);
    n
  }

  #[inline]
  fn rank(&self, bytes: &[u8]) -> Rank {
    self.get(bytes).unwrap_or(Rank::MAX)
  }

  /// tiktoken's `byte_pair_encode(piece).len()` (the same two algorithms, by piece length).
  fn merge_count(&self, piece: &[u8]) -> usize {
    if piece.len() <= 1 {
      return piece.len();
    }
    if piece.len() < 100 {
      self.merge_small(piece)
    } else {
      self.merge_large(piece)
    }
  }

  /// tiktoken's `_byte_pair_merge`: a vector of (start, rank of the pair starting there); merges
  /// the lowest rank (leftmost on ties) until none is left.
  fn merge_small(&self, piece: &[u8]) -> usize {
    let mut parts: Vec<(usize, Rank)> = Vec::with_capacity(piece.len() + 1);
    let mut min_rank: (Rank, usize) = (Rank::MAX, usize::MAX);
    for i in 0..piece.len() - 1 {
      let rank = self.rank(&piece[i..i + 2]);
      if rank < min_rank.0 {
        min_rank = (rank, i);
      }
      parts.push((i, rank));
    }
    parts.push((piece.len() - 1, Rank::MAX));
    parts.push((piece.len(), Rank::MAX));
    let get_rank = |parts: &Vec<(usize, Rank)>, i: usize| {
      if i + 3 < parts.len() {
        self.rank(&piece[parts[i].0..parts[i + 3].0])
      } else {
        Rank::MAX
      }
    };
    while min_rank.0 != Rank::MAX {
      let i = min_rank.1;
      if i > 0 {
        parts[i - 1].1 = get_rank(&parts, i - 1);
      }
      parts[i].1 = get_rank(&parts, i);
      parts.remove(i + 1);
      min_rank = (Rank::MAX, usize::MAX);
      for (i, &(_, rank)) in parts[..parts.len() - 1].iter().enumerate() {
        if rank < min_rank.0 {
          min_rank = (rank, i);
        }
      }
    }
    parts.len() - 1
  }

  /// tiktoken's `_byte_pair_merge_large`: the same merges driven by a heap, for long pieces.
  fn merge_large(&self, piece: &[u8]) -> usize {
    let mut state = Vec::with_capacity(piece.len());
    state.push(State {
      prev: usize::MAX,
      end: 1,
      next_end: 2,
      next_rank: Rank::MAX,
    });
    let mut heap = BinaryHeap::with_capacity(piece.len());
    for i in 0..piece.len() - 1 {
      let rank = self.rank(&piece[i..i + 2]);
      if rank != Rank::MAX {
        heap.push(Merge { start: i, rank });
        state[i].next_rank = rank;
      }
      state.push(State {
        prev: i,
        end: i + 2,
        next_end: i + 3,
        next_rank: Rank::MAX,
      });
    }
    let potential_merge =
      |state: &mut Vec<State>, heap: &mut BinaryHeap<Merge>, start: usize, next_end: usize| {
        state[start].next_end = next_end;
        state[start].next_rank = Rank::MAX;
        if next_end <= piece.len() {
          let rank = self.rank(&piece[start..next_end]);
          if rank != Rank::MAX {
            heap.push(Merge { start, rank });
            state[start].next_rank = rank;
          }
        }
      };
    while let Some(left) = heap.pop() {
      if left.rank == Rank::MAX {
        break;
      }
      if left.rank != state[left.start].next_rank {
        continue;
      }
      let left_start = left.start;
      let right_start = state[left_start].end;
      let right_end = state[left_start].next_end;
      let right_next_end = state[right_start].next_end;
      state[left_start].end = right_end;
      potential_merge(&mut state, &mut heap, left_start, right_next_end);
      if right_end < state.len() {
        state[right_end].prev = left_start;
      }
      if left_start > 0 {
        let prev_start = state[left_start].prev;
        potential_merge(&mut state, &mut heap, prev_start, right_end);
      }
      state[right_start].next_rank = Rank::MAX;
    }
    let mut n = 0;
    let mut i = 0;
    while i < state.len() {
      n += 1;
      i = state[i].end;
    }
    n
  }
}

/// `_byte_pair_merge_large`'s state of the part starting at a byte.
struct State {
  prev: usize,
  end: usize,
  next_end: usize,
  next_rank: Rank,
}
/// A candidate merge in the heap: lowest rank first, leftmost on ties.
#[derive(PartialEq, Eq)]
struct Merge {
  start: usize,
  rank: Rank,
}
impl Ord for Merge {
  fn cmp(&self, other: &Self) -> std::cmp::Ordering {
    other
      .rank
      .cmp(&self.rank)
      .then_with(|| other.start.cmp(&self.start))
  }
}
impl PartialOrd for Merge {
  fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
    Some(self.cmp(other))
  }
}
