//! Lists of numbers handed to JavaScript as plain arrays (a count's per-message numbers). napi-rs
//! makes a `Vec<f64>` an array one element at a time, two Node-API calls each (`napi_create_double`,
//! `napi_set_element`): at 2,000 messages that was about 80 % of a held count's native time
//! (docs/performance.md, *Counts a host makes every turn, held in a session*). Instead the numbers
//! cross as one `Float64Array` (a copy), and a function of the shim makes the array from it, a loop
//! in JavaScript: four Node-API calls in all.

use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;

use crate::shim_function::ShimFunction;

/// Lists shorter than this are made element by element (the shim's call costs about what a few
/// dozen elements do).
const THROUGH_SHIM_MIN: usize = 32;

thread_local! {
  /// The shim's function that makes the arrays (see `set_number_list`).
  static SHIM_LIST: ShimFunction = const { ShimFunction::new() };
}

/// Installs `list`, a function of the shim (`numberList` in ts/native.ts) that returns a plain
/// array of the numbers in the `Float64Array` it is given. Not part of the public API; a second
/// call is ignored. Without it, lists are made element by element, as napi-rs makes them.
#[napi(js_name = "__setNumberList")]
pub fn set_number_list(
  env: Env,
  #[napi(ts_arg_type = "(numbers: Float64Array) => number[]")] list: Function<'_, (), bool>,
) {
  SHIM_LIST.with(|slot| slot.install(&env, list.raw()));
}

/// Numbers that become a plain JavaScript array of numbers (see the module's comment).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(transparent)]
pub struct Numbers(pub Vec<f64>);

impl TypeName for Numbers {
  fn type_name() -> &'static str {
    "Array<number>"
  }

  fn value_type() -> ValueType {
    ValueType::Object
  }
}

impl ToNapiValue for Numbers {
  unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
    if val.0.len() >= THROUGH_SHIM_MIN {
      if let Some(array) = through_shim(&Env::from_raw(env), &val.0) {
        return Ok(array);
      }
    }
    // SAFETY: `env` is the environment of the call that returns these numbers.
    unsafe { Vec::<f64>::to_napi_value(env, val.0) }
  }
}

/// The array the shim's function makes of `values`; `None` when none is installed in `env`, or it
/// failed or answered anything but an array (its exception cleared): then napi-rs makes it.
fn through_shim(env: &Env, values: &[f64]) -> Option<sys::napi_value> {
  if !SHIM_LIST.with(|slot| slot.installed(env)) {
    return None;
  }
  let typed = float64_array(env, values).ok()?;
  let array = SHIM_LIST.with(|slot| slot.call(env, &[typed]))?;
  let mut is_array = false;
  // SAFETY: `array` is a live value of this call; a local as out-parameter.
  let status = unsafe { sys::napi_is_array(env.raw(), array, &raw mut is_array) };
  (status == sys::Status::napi_ok && is_array).then_some(array)
}

/// A `Float64Array` holding a copy of `values`.
#[cfg(not(target_family = "wasm"))]
fn float64_array(env: &Env, values: &[f64]) -> Result<sys::napi_value> {
  let typed = Float64ArraySlice::copy_from(env, values)?.into_typed_array(env)?;
  // SAFETY: `env` is the environment of the call that made `typed`.
  unsafe { ToNapiValue::to_napi_value(env.raw(), typed) }
}

/// A `Float64Array` holding a copy of `values`. On WebAssembly the bytes are copied out of its
/// memory into a new `ArrayBuffer`, as a plan's arrays are (`array_buffer_copy` in src/packed.rs:
/// nothing kept in that memory).
#[cfg(target_family = "wasm")]
fn float64_array(env: &Env, values: &[f64]) -> Result<sys::napi_value> {
  let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
  let array_buffer = crate::packed::array_buffer_copy(env, &bytes)?;
  let mut typed = std::ptr::null_mut();
  // SAFETY: `array_buffer` holds `values.len()` numbers from offset 0 (a multiple of 8); a local
  // as out-parameter.
  unsafe {
    napi::check_status!(
      sys::napi_create_typedarray(
        env.raw(),
        sys::TypedarrayType::float64_array,
        values.len(),
        array_buffer,
        0,
        &raw mut typed
      ),
      "making a list of numbers"
    )?;
  }
  Ok(typed)
}
