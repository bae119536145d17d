// Watches calls of the binding's `NativeContextEditor` methods (wrapping them on its prototype):
// what the specs check about which native calls the package makes, and with what.
import { NativeContextEditor } from '../../index.js'

/**
 * Wraps the methods `names` of `NativeContextEditor.prototype`: after each call, `seen(args, out)`
 * (for a method that returns a Promise, once it fulfils, with its value). Returns a function that
 * puts the methods back.
 */
export function spyOnBinding(names, seen) {
  const proto = NativeContextEditor.prototype
  const saved = {}
  for (const name of names) {
    saved[name] = Object.getOwnPropertyDescriptor(proto, name)
    const method = saved[name].value
    Object.defineProperty(proto, name, {
      ...saved[name],
      value: function (...args) {
        const out = method.apply(this, args)
        if (out instanceof Promise) return out.then((v) => (seen(args, v), v))
        seen(args, out)
        return out
      },
    })
  }
  return () => Object.entries(saved).forEach(([name, d]) => Object.defineProperty(proto, name, d))
}
