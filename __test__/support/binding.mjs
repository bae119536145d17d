// Which build of the binding the specs run on. `npm run test:wasi` runs the binding's specs again
// on the WebAssembly build (scripts/test-wasi.mjs): there a spec may leave out the parts that check
// only the shim's own JavaScript or an independent reference, which are the same on either build
// and which the native run (`npm test`) has checked already, and keep every call that crosses the
// binding.
import { __napiBindingTarget } from '../../index.js'

/** The specs run on the WebAssembly build (`npm run test:wasi`). */
export const ON_WASM = __napiBindingTarget === 'wasm32-wasi'
