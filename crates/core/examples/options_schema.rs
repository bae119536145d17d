//! Prints the JSON Schema of the options (from the declaration in `src/options/spec.rs`) for
//! `npm run gen:options`, which writes the TypeScript option types and the Xpert forms' schema
//! from it without a build of the Node binding.

#![allow(clippy::print_stdout)] // printing the schema is the program's whole job

fn main() {
  println!("{}", context_editor_core::options_json_schema());
}
