export * from 'context-editor-wasm32-wasi'
