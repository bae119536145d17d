//! Reading messages and the context without what `Object.prototype` lends (see the parent module).

use napi::bindgen_prelude::*;
use napi::{sys, JsValue, ValueType};
use napi_derive::napi;

use crate::error::take_exception;
use crate::shim_function::ShimFunction;

use super::{join, Fail, MAX_ITEMS};

/// The members every `Object.prototype` has; any other key on it is pollution.
const STANDARD_MEMBERS: [&str; 12] = [
  "constructor",
  "__defineGetter__",
  "__defineSetter__",
  "hasOwnProperty",
  "__lookupGetter__",
  "__lookupSetter__",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toString",
  "valueOf",
  "__proto__",
  "toLocaleString",
];

thread_local! {
  /// The shim's check of `Object.prototype` (see `set_prototype_check`).
  static SHIM_CHECK: ShimFunction = const { ShimFunction::new() };
}

/// Installs `check`, a function of the shim (`prototypePolluted` in ts/wire/fields.ts) that returns
/// `false` when `Object.prototype` holds no own key, string or symbol, beyond its standard
/// members. Reading the prototype's keys through Node-API here (a dozen keys, five calls each)
/// took about 3 µs a call natively and 20 µs on the WebAssembly build, where Node-API is
/// JavaScript; calling the shim's function is one call. The function is the shim's own and reads
/// nothing the caller can replace after the shim loaded (docs/performance.md, *The prototype
/// check, asked of the shim*). Not part of the public API; a second call is ignored.
#[napi(js_name = "__setPrototypeCheck")]
pub fn set_prototype_check(env: Env, check: Function<'_, (), bool>) {
  SHIM_CHECK.with(|slot| slot.install(&env, check.raw()));
}

/// Whether the shim's check is installed in `env` and finds `Object.prototype` clean. A check
/// that throws or answers anything but a boolean counts as no answer (its exception is cleared).
fn shim_finds_clean(env: &Env) -> bool {
  let Some(answer) = SHIM_CHECK.with(|slot| slot.call(env, &[])) else {
    return false;
  };
  let mut polluted = true;
  // SAFETY: `answer` is a live value of this call; a local as out-parameter.
  if unsafe { sys::napi_get_value_bool(env.raw(), answer, &raw mut polluted) }
    != sys::Status::napi_ok
  {
    let _ = take_exception(env);
    return false;
  }
  !polluted
}

/// `Object.prototype`, when it holds keys beyond its standard members (see the module's comment).
pub(super) struct Polluted<'e>(Object<'e>);

impl<'e> Polluted<'e> {
  /// `Some` when `Object.prototype` holds a string key beyond its standard members. The shim's
  /// check (see `set_prototype_check`) answers first when installed: a call it finds clean is
  /// clean here too; otherwise the keys are read one by one.
  pub(super) fn check(env: &'e Env) -> Result<Option<Self>> {
    if shim_finds_clean(env) {
      return Ok(None);
    }
    let prototype = Object::new(env)?.get_prototype()?.coerce_to_object()?;
    let names = prototype.get_all_property_names(
      KeyCollectionMode::OwnOnly,
      KeyFilter::SkipSymbols,
      KeyConversion::NumbersToStrings,
    )?;
    for i in 0..names.get_array_length()? {
      let key: Unknown<'_> = names.get_element(i)?;
      if key.get_type()? != ValueType::String {
        continue;
      }
      let key = key.coerce_to_string()?.into_utf8()?.into_owned()?;
      if !STANDARD_MEMBERS.contains(&key.as_str()) {
        return Ok(Some(Self(prototype)));
      }
    }
    Ok(None)
  }

  /// Whether reading `key` on `obj` would find it on `Object.prototype`, not on `obj` or its class.
  pub(super) fn lends(&self, env: &Env, obj: &Object<'_>, key: &str) -> Result<bool> {
    if obj.has_own_property(key)? {
      return Ok(false);
    }
    let mut proto = obj.get_prototype()?;
    while matches!(proto.get_type()?, ValueType::Object | ValueType::Function) {
      let holder = proto.coerce_to_object()?;
      if env.strict_equals(holder, self.0)? {
        return Ok(true);
      }
      if holder.has_own_property(key)? {
        return Ok(false);
      }
      proto = holder.get_prototype()?;
    }
    Ok(false)
  }

  /// A new object holding `fields` of `obj` as the object and its class give them (`undefined`
  /// where only `Object.prototype` would); `lists` name the fields whose arrays are viewed the
  /// same way, entry by entry (objects in them through `entry_fields`).
  pub(super) fn view<'v>(
    &self,
    env: &'v Env,
    obj: &Object<'_>,
    fields: &[&str],
    lists: &[&str],
    entry_fields: &[&str],
    path: &str,
  ) -> std::result::Result<Object<'v>, Fail> {
    let mut out = Object::new(env).map_err(|e| Fail::unreadable(env, path, &e))?;
    for &key in fields {
      let at = join(path, key);
      let read = |e: Error| Fail::unreadable(env, at.clone(), &e);
      if self.lends(env, obj, key).map_err(read)? {
        out.set(key, ()).map_err(read)?;
        continue;
      }
      let value: Unknown<'_> = obj.get_named_property_unchecked(key).map_err(read)?;
      if lists.contains(&key)
        && value.get_type().map_err(read)? == ValueType::Object
        && value.is_array().map_err(read)?
      {
        let list = self.list_view(
          env,
          &value.coerce_to_object().map_err(read)?,
          entry_fields,
          &at,
        )?;
        out.set(key, list).map_err(read)?;
      } else {
        out.set(key, value).map_err(read)?;
      }
    }
    Ok(out)
  }

  /// The array `list` entry by entry: holes stay empty (whatever a prototype holds at that
  /// index), objects are viewed through `fields`. Longer than `MAX_ITEMS`: left as it is, for the
  /// length check to reject.
  pub(super) fn list_view<'v>(
    &self,
    env: &'v Env,
    list: &Object<'_>,
    fields: &[&str],
    path: &str,
  ) -> std::result::Result<Unknown<'v>, Fail> {
    let read = |e: Error| Fail::unreadable(env, path, &e);
    let len = list.get_array_length().map_err(read)?;
    if len > MAX_ITEMS {
      // SAFETY: `list` is a live value of this call's environment.
      return Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), list.raw()) });
    }
    let mut out = env.create_array(len).map_err(read)?;
    for i in 0..len {
      let at = format!("{path}[{i}]");
      let read = |e: Error| Fail::unreadable(env, at.clone(), &e);
      if !list.has_own_property(&i.to_string()).map_err(read)? {
        continue;
      }
      let item: Unknown<'_> = list.get_element(i).map_err(read)?;
      if item.get_type().map_err(read)? == ValueType::Object
        && !item.is_array().map_err(read)?
        && !fields.is_empty()
      {
        let view = self.view(
          env,
          &item.coerce_to_object().map_err(read)?,
          fields,
          &[],
          &[],
          &at,
        )?;
        out.set(i, view).map_err(read)?;
      } else {
        out.set(i, item).map_err(read)?;
      }
    }
    // SAFETY: `out` was just made in this call's environment.
    Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), out.raw()) })
  }

  /// Whether `list[i]` is a hole (whatever a prototype holds at that index).
  pub(super) fn hole(list: &Object<'_>, i: u32) -> Result<bool> {
    Ok(!list.has_own_property(&i.to_string())?)
  }
}
