// The WebAssembly build (wasm32-wasi) behind the same contract as the native addon. Rust cannot
// unwind on WebAssembly, so a panic aborts the call: a trap, thrown here as `RuntimeError:
// unreachable`, where the native addon throws an `INTERNAL` error. Each call of the binding's
// functions and classes turns that trap into the same `INTERNAL` error, with the panic's message
// (recorded by src/wasi.rs). After such a trap the WebAssembly instance may hold a lock the call
// never released: like any `INTERNAL` error, it is a bug to report, and the process should restart.
import type * as Binding from '../binding.cjs'

// The compiler's lib has no WebAssembly declarations; Node has the class.
const RuntimeError = (globalThis as unknown as { WebAssembly: { RuntimeError: new () => Error } }).WebAssembly.RuntimeError

/** The error the native addon throws for a panic, made from a WebAssembly trap. */
function fromTrap(binding: typeof Binding, e: unknown): unknown {
  if (!(e instanceof RuntimeError)) return e
  let what: string | null = null
  try {
    what = binding.__takePanicMessage()
  } catch {
    // the instance cannot answer: report the trap itself
  }
  const message = what !== null ? `context-editor panicked: ${what} (please report this bug)` : `context-editor crashed in WebAssembly: ${e.message} (please report this bug)`
  return Object.assign(new Error(message, { cause: e }), { code: 'INTERNAL' })
}

function guard<F extends (...args: never[]) => unknown>(binding: typeof Binding, f: F): F {
  return function (this: unknown, ...args: Parameters<F>) {
    try {
      const out = f.apply(this, args)
      return out instanceof Promise ? out.catch((e: unknown) => Promise.reject(fromTrap(binding, e))) : out
    } catch (e) {
      throw fromTrap(binding, e)
    }
  } as F
}

/** The binding with every function, method and constructor guarded (WebAssembly builds only). */
export function guardTraps(binding: typeof Binding): typeof Binding {
  if (binding.__napiBindingTarget === 'native' || binding.__napiBindingTarget === undefined) return binding
  const guarded: Record<string, unknown> = { __napiBindingTarget: binding.__napiBindingTarget }
  for (const [name, value] of Object.entries(binding)) {
    if (typeof value !== 'function') {
      guarded[name] = value
    } else if (/^[A-Z]/.test(name)) {
      const proto = (value as { prototype: object }).prototype
      for (const key of Object.getOwnPropertyNames(proto)) {
        const d = Object.getOwnPropertyDescriptor(proto, key)
        if (key !== 'constructor' && typeof d?.value === 'function') Object.defineProperty(proto, key, { ...d, value: guard(binding, d.value) })
      }
      guarded[name] = new Proxy(value, {
        construct(target, args, newTarget) {
          try {
            return Reflect.construct(target, args, newTarget === guarded[name] ? target : newTarget)
          } catch (e) {
            throw fromTrap(binding, e)
          }
        },
      })
    } else {
      guarded[name] = guard(binding, value as (...args: never[]) => unknown)
    }
  }
  return guarded as typeof Binding
}
