//! What the editors of a process hold between calls, bounded together: their sessions
//! (`crate::session`) and token caches. An editor's are freed when the editor is, and a host frees a
//! dropped editor only when it gets round to it: Node runs the finalizer on a later turn of its
//! event loop, which a synchronous loop never gives. A loop that made a new editor per
//! conversation kept every one of them (9.7 GB after 6,000 editors of 2,000 messages). Past the
//! process bound, the least recently used of what other editors hold goes first: an editor no
//! longer used holds the oldest.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use crate::measure::TokenCache;
use crate::session::{SessionStore, Tally, MAX_SESSIONS, MAX_SESSION_BYTES};

/// At most this many bytes are held by the sessions and token caches of every editor in the
/// process (1 GiB, four editors' worth of sessions): past it, what other editors used least
/// recently goes.
pub const MAX_PROCESS_SESSION_BYTES: usize = 1 << 30;

/// What the editors of a process hold between calls (one registry, [`Registry::global`]; tests
/// make their own): the bytes of all their sessions and token caches, and a clock that orders
/// their uses across editors.
#[derive(Debug)]
pub(crate) struct Registry {
  editors: Mutex<Vec<Weak<Held>>>,
  tally: Tally,
  max_bytes: usize,
}

static GLOBAL: Registry = Registry::new(MAX_PROCESS_SESSION_BYTES);

/// Bytes counted per token-cache entry (a 128-bit key and a count in a hash table with its slack).
const CACHE_ENTRY_BYTES: usize = 48;

fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
  m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What one editor holds between calls, shared with the registry (which holds it weakly).
#[derive(Debug)]
pub(crate) struct Held {
  pub sessions: Mutex<SessionStore>,
  pub cache: Mutex<TokenCache>,
  /// The token cache's bytes when last counted (see [`Held::used`]).
  cache_bytes: AtomicUsize,
  /// When the editor was last used, on the registry's clock.
  last_used: AtomicU64,
  registry: &'static Registry,
}

impl Drop for Held {
  fn drop(&mut self) {
    // The sessions give theirs back as their store is dropped.
    self.registry.tally.release(*self.cache_bytes.get_mut());
  }
}

impl Held {
  /// What an editor of the process's registry holds, with the per-editor bounds.
  pub fn new(cache_capacity: usize) -> Arc<Self> {
    Registry::global().editor(MAX_SESSIONS, MAX_SESSION_BYTES, cache_capacity)
  }

  /// After a call of this editor: marks it used, counts its token cache again, and keeps the
  /// process within its bound, never evicting what this editor holds for it.
  pub fn used(self: &Arc<Self>) {
    self
      .last_used
      .store(self.registry.tally.now(), Ordering::Relaxed);
    let bytes = locked(&self.cache).bytes(CACHE_ENTRY_BYTES);
    self.recount_cache(bytes);
    self.registry.trim(self);
  }

  /// Sets the counted bytes of the token cache to `bytes`.
  fn recount_cache(&self, bytes: usize) {
    let before = self.cache_bytes.swap(bytes, Ordering::Relaxed);
    if bytes >= before {
      self.registry.tally.hold(bytes - before);
    } else {
      self.registry.tally.release(before - bytes);
    }
  }

  /// What of this editor the registry would evict first, and when it was used: its least recently
  /// used session, or its token cache (used when the editor last was). `None` when it holds
  /// nothing or is in use by another thread.
  fn oldest(&self) -> Option<(u64, Evict)> {
    let session = self
      .sessions
      .try_lock()
      .ok()
      .and_then(|s| s.oldest())
      .map(|(id, used)| (used, Evict::Session(id)));
    let cache = (self.cache_bytes.load(Ordering::Relaxed) > 0)
      .then(|| (self.last_used.load(Ordering::Relaxed), Evict::Cache));
    match (session, cache) {
      (Some(s), Some(c)) => Some(if c.0 < s.0 { c } else { s }),
      (s, c) => s.or(c),
    }
  }

  /// Evicts `what`; whether anything went.
  fn evict(&self, what: Evict) -> bool {
    match what {
      Evict::Session(id) => self
        .sessions
        .try_lock()
        .is_ok_and(|mut s| s.remove(id).is_some()),
      Evict::Cache => match self.cache.try_lock() {
        Ok(mut cache) => {
          cache.clear();
          self.recount_cache(0);
          true
        }
        Err(_) => false,
      },
    }
  }
}

#[derive(Debug, Clone, Copy)]
enum Evict {
  Session(u64),
  Cache,
}

impl Registry {
  pub const fn new(max_bytes: usize) -> Self {
    Self {
      editors: Mutex::new(Vec::new()),
      tally: Tally::new(),
      max_bytes,
    }
  }

  pub fn global() -> &'static Self {
    &GLOBAL
  }

  /// What a new editor of this registry holds, with the per-editor bounds.
  pub fn editor(
    &'static self,
    max_sessions: usize,
    max_bytes: usize,
    cache_capacity: usize,
  ) -> Arc<Held> {
    let held = Arc::new(Held {
      sessions: Mutex::new(SessionStore::new(max_sessions, max_bytes, &self.tally)),
      cache: Mutex::new(TokenCache::new(cache_capacity)),
      cache_bytes: AtomicUsize::new(0),
      last_used: AtomicU64::new(0),
      registry: self,
    });
    let mut editors = locked(&self.editors);
    // Dropped editors leave dead entries: swept whenever the list doubles.
    if editors.len() >= 64 && editors.len().is_power_of_two() {
      editors.retain(|w| w.strong_count() > 0);
    }
    editors.push(Arc::downgrade(&held));
    held
  }

  /// Bytes held by every editor.
  pub fn held(&self) -> usize {
    self.tally.held()
  }

  /// While the editors hold more than the bound, evicts the least recently used of what the
  /// editors other than `this` hold (its own bounds apply to it): a session, or a whole token
  /// cache. An editor in use by another thread at that moment is passed over.
  fn trim(&self, this: &Arc<Held>) {
    if self.held() <= self.max_bytes {
      return;
    }
    let editors = locked(&self.editors);
    while self.held() > self.max_bytes {
      let mut oldest: Option<(u64, Evict, Arc<Held>)> = None;
      for editor in editors.iter().filter_map(Weak::upgrade) {
        if Arc::ptr_eq(&editor, this) {
          continue;
        }
        if let Some((used, what)) = editor.oldest() {
          if oldest.as_ref().is_none_or(|(u, _, _)| used < *u) {
            oldest = Some((used, what, editor));
          }
        }
      }
      let Some((_, what, editor)) = oldest else {
        break;
      };
      if !editor.evict(what) {
        break;
      }
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::message::Message;
  use crate::session::Session;

  /// A registry of the test's own (the process's is shared by every test running at once).
  fn registry(max_bytes: usize) -> &'static Registry {
    Box::leak(Box::new(Registry::new(max_bytes)))
  }

  fn session(n: usize, text: &str) -> Session {
    let mut s = Session::default();
    s.extend((0..n).map(|_| Message::user(text)).collect());
    s
  }

  /// An editor of `reg` with the default per-editor bounds and a token cache of 1,000 entries.
  fn editor(reg: &'static Registry) -> Arc<Held> {
    reg.editor(MAX_SESSIONS, MAX_SESSION_BYTES, 1000)
  }

  fn put(held: &Arc<Held>, id: u64, s: Session) {
    held.sessions.lock().unwrap().put(id, s);
    held.used();
  }

  fn sessions(held: &Held) -> usize {
    held.sessions.lock().unwrap().len()
  }

  #[test]
  fn the_process_bound_evicts_other_editors_least_recently_used_first() {
    let text = "x".repeat(1000);
    let one = session(1, &text).footprint();
    let reg = registry(3 * one);
    let [a, b, c] = [(); 3].map(|()| editor(reg));
    put(&a, 1, session(1, &text));
    put(&b, 1, session(1, &text));
    put(&a, 2, session(1, &text));
    assert_eq!(reg.held(), 3 * one, "within the bound: nothing goes");
    // A fourth session, in `c`: the oldest of the others (`a`'s first) goes, not `c`'s own.
    put(&c, 1, session(1, &text));
    assert_eq!(reg.held(), 3 * one);
    assert_eq!(sessions(&a), 1, "a's least recently used session went");
    assert!(
      a.sessions.lock().unwrap().take(2, 1).is_some(),
      "its newer one stays"
    );
    assert_eq!((sessions(&b), sessions(&c)), (1, 1));
  }

  #[test]
  fn token_caches_count_and_go_when_their_editor_is_the_least_recently_used() {
    let text = "z".repeat(1000);
    let one = session(1, &text).footprint();
    let reg = registry(one + 100 * CACHE_ENTRY_BYTES);
    let [old, new] = [(); 2].map(|()| editor(reg));
    // An editor that counted 100 strings and was used before the other.
    for k in 0..100u128 {
      old.cache.lock().unwrap().insert(k, 1);
    }
    old.used();
    assert_eq!(
      reg.held(),
      100 * CACHE_ENTRY_BYTES,
      "the cache's entries are counted"
    );
    put(&new, 1, session(1, &text));
    assert_eq!(
      reg.held(),
      one + 100 * CACHE_ENTRY_BYTES,
      "at the bound, not past it"
    );
    put(&new, 2, session(1, &text));
    assert!(
      old.cache.lock().unwrap().is_empty(),
      "the older editor's cache went"
    );
    assert_eq!(reg.held(), 2 * one);
    assert_eq!(sessions(&new), 2, "the newer editor's sessions stay");
    drop(new);
    drop(old);
    assert_eq!(reg.held(), 0, "dropped editors give back what they held");
  }

  #[test]
  fn a_dropped_editor_gives_its_bytes_back_and_the_bound_never_evicts_the_callers_own() {
    let text = "y".repeat(500);
    let one = session(1, &text).footprint();
    let reg = registry(one);
    let gone = editor(reg);
    put(&gone, 1, session(1, &text));
    gone.cache.lock().unwrap().insert(7, 1);
    gone.used();
    assert_eq!(reg.held(), one + CACHE_ENTRY_BYTES);
    drop(gone);
    assert_eq!(reg.held(), 0, "dropping an editor subtracts what it held");
    let own = editor(reg);
    put(&own, 1, session(1, &text));
    put(&own, 2, session(1, &text));
    assert_eq!(sessions(&own), 2, "only other editors are trimmed");
    own.sessions.lock().unwrap().clear();
    assert_eq!(reg.held(), 0);
  }

  #[test]
  fn many_dropped_editors_are_swept_from_the_registry() {
    let reg = registry(usize::MAX);
    for _ in 0..1000 {
      drop(reg.editor(1, 1, 0));
    }
    let live = reg.editor(1, 1, 0);
    assert!(
      reg.editors.lock().unwrap().len() < 600,
      "dead entries are swept as the list grows"
    );
    drop(live);
  }
}
