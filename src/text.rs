//! Whether a JavaScript string is well-formed UTF-16 (no lone surrogate), checked natively: V8's
//! `String.prototype.isWellFormed` walks a two-byte string one code unit at a time (0.7-2 ns a
//! unit here); copying the units out and testing them in one vectorized pass costs about 0.3 ns a
//! unit on long text. The shim uses it for long two-byte strings only (`ts/wire/shapes.ts`), in
//! pieces of at most `KEPT_UNITS`: for a short one the call costs more than V8's own check.

use std::cell::RefCell;

use napi::bindgen_prelude::*;
use napi_derive::napi;

thread_local! {
  /// The code units of the string being checked, reused from call to call (up to `KEPT_UNITS`).
  static UNITS: RefCell<Vec<u16>> = const { RefCell::new(Vec::new()) };
}

/// The longest buffer kept between calls (2 MiB): a longer string is copied into one of its own,
/// freed when its check returns, so one huge tool result does not hold its size for good.
const KEPT_UNITS: usize = 1 << 20;

/// Whether `units` hold no lone surrogate: every high surrogate (D800-DBFF) followed by a low one
/// (DC00-DFFF), and no low one without a high one before it. That is: each unit is a low surrogate
/// exactly when the one before it is a high surrogate, the first is no low one and the last no high
/// one. Tested on every pair of neighbours in one pass with no branch per unit, so it is vectorized
/// (a scan that stopped at the first surrogate and went on unit by unit took 2.4x as long on a text
/// with an emoji early, and longer than V8's own check on text with many).
fn well_formed(units: &[u16]) -> bool {
  let (Some(&first), Some(&last)) = (units.first(), units.last()) else {
    return true;
  };
  if is_low(first) || is_high(last) {
    return false;
  }
  !units
    .iter()
    .zip(&units[1..])
    .fold(false, |bad, (&a, &b)| bad | (is_high(a) != is_low(b)))
}

fn is_high(u: u16) -> bool {
  u & 0xFC00 == 0xD800
}

fn is_low(u: u16) -> bool {
  u & 0xFC00 == 0xDC00
}

/// Whether `text` is well-formed UTF-16, as `String.prototype.isWellFormed` answers (`false` for
/// anything that is not a string). The shim's own helper (`ts/native.ts`), not part of the public
/// types.
#[must_use]
#[napi(js_name = "__isWellFormed")]
pub fn is_well_formed(env: Env, text: Unknown<'_>) -> bool {
  let raw = text.raw();
  let mut len = 0usize;
  // SAFETY: `raw` is a live value of this call's environment; a null buffer asks for the length.
  let status = unsafe {
    napi::sys::napi_get_value_string_utf16(env.raw(), raw, std::ptr::null_mut(), 0, &raw mut len)
  };
  if status != napi::sys::Status::napi_ok {
    return false;
  }
  let check = |units: &mut Vec<u16>| {
    if units.len() < len + 1 {
      units.resize(len + 1, 0);
    }
    let mut copied = 0usize;
    // SAFETY: `units` holds `len + 1` code units, as many as the call writes with its terminator.
    let status = unsafe {
      napi::sys::napi_get_value_string_utf16(
        env.raw(),
        raw,
        units.as_mut_ptr(),
        len + 1,
        &raw mut copied,
      )
    };
    status == napi::sys::Status::napi_ok && well_formed(&units[..copied.min(len)])
  };
  if len > KEPT_UNITS {
    check(&mut Vec::new())
  } else {
    UNITS.with_borrow_mut(check)
  }
}
