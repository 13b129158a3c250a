#!/usr/bin/env bash
# Cross-builds gemm-steps for AArch64 (build-aarch64/) and runs the whole test suite under
# qemu-user, as CI does on an x86-64 machine (apt-get install g++-aarch64-linux-gnu qemu-user;
# the host's header-only catch2 serves). OpenBLAS and BLIS are not in the AArch64 sysroot, so
# the reference runners are not built there.
#
#   tools/test_aarch64.sh [extra cmake arguments]      e.g. -DCMAKE_BUILD_TYPE=Debug
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in aarch64-linux-gnu-g++ qemu-aarch64; do
  command -v "$tool" > /dev/null ||
    { echo "test_aarch64.sh: $tool not found (apt-get install g++-aarch64-linux-gnu qemu-user)" >&2; exit 1; }
done
jobs=$(nproc 2> /dev/null || echo 2)
cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE="$PWD/tools/toolchains/aarch64-linux-gnu.cmake" "$@"
cmake --build build-aarch64 -j "$jobs"
# The NEON kernels really run: step 07 names its variant and verifies a few sizes.
qemu-aarch64 -L /usr/aarch64-linux-gnu build-aarch64/bin/step07_packing --sizes 7,64,129 --reps 1
# Not the Python tools' tests (label python): the compiler does not change them.
ctest --test-dir build-aarch64 -j "$jobs" --output-on-failure -LE python
