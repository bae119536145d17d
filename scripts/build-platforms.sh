#!/usr/bin/env bash
# Builds the addon for every published platform, or for the ones named (linux-x64-gnu,
# linux-arm64-gnu, linux-x64-musl, linux-arm64-musl, darwin-x64, darwin-arm64, win32-x64-gnu,
# wasm32-wasi), into artifacts/, then moves each into its npm package folder, npm/<platform>/, the
# napi-rs way (`napi artifacts`). Prints each target's build time.
#
# Cross-compiles with cargo-zigbuild and Zig (from PyPI, see scripts/install-platform-tools.sh).
# Linux glibc builds link against glibc 2.17 (zig's `.2.17` target suffix), so they load on old
# distributions too. Windows is built for x86_64-pc-windows-gnu: the MSVC target needs Microsoft's
# CRT and SDK import libraries, which only Microsoft's servers carry (see docs/platforms.md).
# The WebAssembly build's generated loaders are also copied to the package root (committed), where
# binding.cjs finds them with the .wasm for `npm run test:wasi`.
set -euo pipefail
cd "$(dirname "$0")/.."
all=(linux-x64-gnu linux-arm64-gnu linux-x64-musl linux-arm64-musl darwin-x64 darwin-arm64 win32-x64-gnu wasm32-wasi)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all[@]}"); fi
# The release profile (fat LTO) builds what is published. CHECK_PROFILE=ci (as .ci/run sets it)
# builds the targets that are only checked (format, exports, C library, a smoke run under qemu)
# with Cargo.toml's `ci` profile (no optimization, no LTO: about 40 s a target instead of 130 s on
# 2 cores), and linux-x64-gnu (the tests after it run on it) and wasm32-wasi (the WebAssembly
# suite) with its `ci-tested` profile: optimized as the release is, without its whole-program LTO.
check_profile="${CHECK_PROFILE:-release}"
tested_profile=release
if [ "$check_profile" = ci ]; then tested_profile=ci-tested; fi

build() {
  npx --no-install napi build --platform --profile "$profile" --dts binding.d.cts --output-dir "${OUTPUT_DIR:-artifacts}" "$@"
}

# Builds target $1 in the target directory $CARGO_TARGET_DIR (default: target/).
build_target() {
  local t=$1 start=$SECONDS profile triple stub
  case "$t" in
    linux-x64-gnu | wasm32-wasi) profile=$tested_profile ;;
    *) profile=$check_profile ;;
  esac
  case "$t" in
    linux-x64-gnu) triple=x86_64-unknown-linux-gnu && build --no-js --cross-compile --target "$triple.2.17" ;;
    linux-arm64-gnu) triple=aarch64-unknown-linux-gnu && build --no-js --cross-compile --target "$triple.2.17" ;;
    linux-x64-musl) triple=x86_64-unknown-linux-musl && build --no-js --cross-compile --target "$triple" ;;
    linux-arm64-musl) triple=aarch64-unknown-linux-musl && build --no-js --cross-compile --target "$triple" ;;
    darwin-x64) triple=x86_64-apple-darwin && build --no-js --cross-compile --target "$triple" ;;
    darwin-arm64) triple=aarch64-apple-darwin && build --no-js --cross-compile --target "$triple" ;;
    win32-x64-gnu)
      triple=x86_64-pc-windows-gnu
      # napi's build script links MinGW builds against MSYS2's libnode.dll and insists on finding
      # one. With napi's `dyn-symbols` (Cargo.toml) the addon links no Node-API symbol at all, so
      # an empty import library stands in: the DLL imports nothing from Node and finds Node-API in
      # the running node.exe. `napi build -x` sends Windows targets to cargo-xwin (MSVC only), so
      # cargo-zigbuild is swapped in for cargo. mimalloc prints its build date on Windows, which
      # zig's reproducibility check (-Werror=date-time) rejects.
      stub="${CARGO_TARGET_DIR:-$PWD/target}/libnode-stub"
      mkdir -p "$stub" && : >"$stub/libnode.dll" && printf '!<arch>\n' >"$stub/libnode.a"
      LIBNODE_PATH="$stub" CFLAGS_x86_64_pc_windows_gnu=-Wno-error=date-time \
        CARGO="$PWD/scripts/cargo-as-zigbuild.sh" build --no-js --target "$triple"
      ;;
    # With the root loader (`--js`): the WebAssembly loaders record binding.cjs as the package's
    # root entry, as `npm run build:native` does, so the two builds write the same committed files.
    wasm32-wasi) triple=wasm32-wasip1-threads && build --target "$triple" --js binding.cjs ;;
  esac
  echo "built $t ($profile profile) in $((SECONDS - start)) s"
  # PRUNE_BUILDS=1 (.ci/run): the target's build tree (about 250 MB) goes once its addon is in
  # artifacts/, so a run over every platform never holds more than one on disk (two in lanes).
  if [ "${PRUNE_BUILDS:-}" = 1 ]; then rm -rf "${CARGO_TARGET_DIR:-$PWD/target}/$triple"; fi
}

for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "unknown platform $t (expected one of: ${all[*]})" >&2; exit 2; }
done
# The WebAssembly build goes last: every napi build first deletes from its output directory what
# it takes for stale WebAssembly outputs (the root loader binding.cjs, browser.js), which a
# native build after it would take from the WebAssembly build.
if [[ " ${targets[*]} " == *" wasm32-wasi "* ]]; then
  rest=()
  for t in "${targets[@]}"; do [ "$t" = wasm32-wasi ] || rest+=("$t"); done
  targets=("${rest[@]}" wasm32-wasi)
fi
mkdir -p artifacts
if [ "${PLATFORM_LANES:-1}" = 2 ] && [ ${#targets[@]} = ${#all[@]} ]; then
  # PLATFORM_LANES=2 (.ci/run; a build of every platform): two lanes of builds side by side, the
  # targets dealt to them in turn (the WebAssembly build last in its lane). Each lane has its
  # own target directory (cargo locks one while it builds) and its own output directory (see
  # above: a build deletes the WebAssembly build's outputs), merged into artifacts/ at the end.
  # One build alone leaves a core idle about a fifth of the time (its last crates, the link);
  # two keep both busy. Each target's output is printed once it is built.
  logs=$(mktemp -d)
  lane() {
    local k=$1 t
    shift
    for t in "$@"; do
      CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}/lane-$k" OUTPUT_DIR="artifacts/lane-$k" \
        build_target "$t" >"$logs/$t.log" 2>&1 || { cat "$logs/$t.log" >&2; echo "building $t failed" >&2; return 1; }
      cat "$logs/$t.log"
    done
  }
  lanes=([1]="" [2]="")
  for k in "${!targets[@]}"; do lanes[$((k % 2 + 1))]+="${targets[$k]} "; done
  rm -rf artifacts/lane-1 artifacts/lane-2
  # shellcheck disable=SC2086 # the lanes are lists of platform names, split on spaces
  lane 1 ${lanes[1]} &
  first=$!
  # shellcheck disable=SC2086
  lane 2 ${lanes[2]} &
  second=$!
  status=0
  wait $first || status=1
  wait $second || status=1
  rm -rf "$logs"
  [ $status = 0 ] || exit 1
  for k in 1 2; do cp -p artifacts/lane-$k/* artifacts/ && rm -rf artifacts/lane-$k; done
else
  for t in "${targets[@]}"; do build_target "$t"; done
fi

# `napi artifacts` moves every configured target's binary: once any native one is in artifacts/,
# all of them must be (a single native platform can be rebuilt after a full run).
npx --no-install napi artifacts --output-dir artifacts --npm-dir npm --build-output-dir artifacts ||
  { echo "napi artifacts failed: build every platform once (npm run build:platforms) before rebuilding some" >&2; exit 1; }
if [[ " ${targets[*]} " == *" wasm32-wasi "* ]]; then
  for f in context-editor.wasi.cjs context-editor.wasi.d.cts context-editor.wasi-browser.js wasi-worker.mjs \
    wasi-worker-browser.mjs browser.js context-editor.wasm32-wasi.wasm; do
    cp "artifacts/$f" "$f"
  done
fi
