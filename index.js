// `context-editor/native`: the napi-rs binding and the wire form, as an ES module. The loader napi-rs
// generates is binding.cjs; dist/native.js loads it without ever throwing at import (see
// ts/native.ts), so this entry, like the package's main one, only throws `NATIVE_BINDING_MISSING`
// when the binding is used on a platform where neither a native binary nor the WebAssembly
// fallback could be loaded. The names are listed in __test__/public-api.spec.mjs.
export { HeldContext, NativeContextEditor, PackedReport, PackedOpKind } from './dist/native.js'
export { bindingTarget as __napiBindingTarget } from './dist/native.js'
export { toWireMessages } from './dist/wire.js'
export { toWireContext } from './dist/editor.js'
