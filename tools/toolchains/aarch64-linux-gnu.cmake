# Cross build for 64-bit Arm Linux with Debian's cross compiler, tested under qemu-user:
#
#   apt-get install g++-aarch64-linux-gnu qemu-user
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=tools/toolchains/aarch64-linux-gnu.cmake
#   cmake --build build-aarch64 -j && ctest --test-dir build-aarch64
#
# ctest runs every test through CMAKE_CROSSCOMPILING_EMULATOR (qemu-aarch64, told where the
# AArch64 loader and libraries are with -L). tools/test_aarch64.sh does all of the above.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Debian's multiarch sysroot for the cross toolchain.
set(GEMM_AARCH64_SYSROOT /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH ${GEMM_AARCH64_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)    # programs (python3, qemu) are the host's
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)     # libraries must be AArch64 ones
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# Package configs: also the host's, so that header-only packages (Debian's catch2 v2 lives
# in /usr/lib/cmake/Catch2, not in the sysroot) are found; any library a config names must
# still be an AArch64 one, which the library mode above ensures for find_library.
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

find_program(GEMM_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(GEMM_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${GEMM_QEMU_AARCH64} -L ${GEMM_AARCH64_SYSROOT})
else()
  message(WARNING "qemu-aarch64 not found (apt-get install qemu-user): the build works, ctest cannot run it")
endif()
