#!/usr/bin/env bash
# Stands in for `cargo` (through napi's `CARGO` override) to build a target with cargo-zigbuild that
# `napi build --cross-compile` refuses: x86_64-pc-windows-gnu (napi sends Windows targets to
# cargo-xwin, which only does MSVC). Other cargo subcommands pass through unchanged.
set -euo pipefail
if [ "${1:-}" = build ]; then
  shift
  exec cargo-zigbuild zigbuild "$@"
fi
exec cargo "$@"
