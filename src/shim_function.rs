//! Functions of the shim the binding calls (the prototype check, the number lists): each installed
//! once per Node environment, which runs on a thread of its own (the main thread, a worker), so
//! each is kept in a thread-local slot with the environment it was installed in.

use std::cell::Cell;

use napi::bindgen_prelude::*;
use napi::sys;

use crate::error::take_exception;

/// One installed function: a reference to it and its environment.
pub(crate) struct ShimFunction(Cell<(sys::napi_env, sys::napi_ref)>);

impl ShimFunction {
  pub(crate) const fn new() -> Self {
    Self(Cell::new((std::ptr::null_mut(), std::ptr::null_mut())))
  }

  /// Keeps `function` (a function of this call's environment); a second install is ignored.
  pub(crate) fn install(&self, env: &Env, function: sys::napi_value) {
    if !self.0.get().1.is_null() {
      return;
    }
    let mut reference = std::ptr::null_mut();
    // SAFETY: `function` is a live value of this call's environment; a local as out-parameter.
    let status = unsafe { sys::napi_create_reference(env.raw(), function, 1, &raw mut reference) };
    if status == sys::Status::napi_ok {
      self.0.set((env.raw(), reference));
    }
  }

  /// Whether a function is installed in `env`.
  pub(crate) fn installed(&self, env: &Env) -> bool {
    let (installed, reference) = self.0.get();
    !reference.is_null() && installed == env.raw()
  }

  /// What the function returns for `args` (values of this call); `None` when none is installed
  /// in `env`, or the call failed (its exception cleared).
  pub(crate) fn call(&self, env: &Env, args: &[sys::napi_value]) -> Option<sys::napi_value> {
    if !self.installed(env) {
      return None;
    }
    let (raw, reference) = (env.raw(), self.0.get().1);
    let mut function = std::ptr::null_mut();
    let mut this = std::ptr::null_mut();
    let mut out = std::ptr::null_mut();
    // SAFETY: the reference was made in this environment (checked above) and is kept (count 1);
    // `args` are live values of this call; locals as out-parameters.
    let called = unsafe {
      sys::napi_get_reference_value(raw, reference, &raw mut function) == sys::Status::napi_ok
        && !function.is_null()
        && sys::napi_get_undefined(raw, &raw mut this) == sys::Status::napi_ok
        && sys::napi_call_function(raw, this, function, args.len(), args.as_ptr(), &raw mut out)
          == sys::Status::napi_ok
    };
    if !called {
      let _ = take_exception(env);
      return None;
    }
    Some(out)
  }
}
