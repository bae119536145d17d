fn main() {
  napi_build::setup();
  // WebAssembly: napi's UTF-8 string reads go through src/wasi.rs (see there why).
  if std::env::var("CARGO_CFG_TARGET_FAMILY").as_deref() == Ok("wasm") {
    println!("cargo:rustc-link-arg=--wrap=napi_get_value_string_utf8");
  }
}
