# Cross build for macOS with Zig's clang (zig cc / zig c++), which brings macOS's libc
# headers and links Mach-O itself, so no SDK or Mac is needed. tools/test_macos.sh uses it:
#
#   cmake -S . -B build-macos-arm64 -DCMAKE_TOOLCHAIN_FILE=tools/toolchains/zig-macos.cmake \
#         -DGEMM_ZIG=/path/to/zig -DGEMM_MACOS_ARCH=arm64      # or x86_64
#
# The binaries are only linked, never run here (no emulator runs Mach-O on Linux). CMake
# wants one program per tool, so the toolchain writes three small wrappers into the build
# folder: <zig> cc -target ..., <zig> c++ -target ... and <zig> ar.
set(CMAKE_SYSTEM_NAME Darwin)
if(NOT GEMM_MACOS_ARCH)
  set(GEMM_MACOS_ARCH arm64)
endif()
if(GEMM_MACOS_ARCH STREQUAL "arm64")
  set(_gemm_zig_target aarch64-macos)
elseif(GEMM_MACOS_ARCH STREQUAL "x86_64")
  set(_gemm_zig_target x86_64-macos)
else()
  message(FATAL_ERROR "GEMM_MACOS_ARCH '${GEMM_MACOS_ARCH}': arm64 or x86_64")
endif()
set(CMAKE_SYSTEM_PROCESSOR ${GEMM_MACOS_ARCH})
if(NOT GEMM_ZIG)
  find_program(GEMM_ZIG zig REQUIRED)
endif()

# CMake's checks (try_compile) read this file again in a scratch project: they get the
# wrappers' folder passed on and do not write them again.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES GEMM_ZIG GEMM_MACOS_ARCH GEMM_ZIG_WRAPPERS)
if(NOT GEMM_ZIG_WRAPPERS)
  set(GEMM_ZIG_WRAPPERS "${CMAKE_BINARY_DIR}/zig-wrappers")
  foreach(_tool cc c++ ar ranlib)
    if(_tool STREQUAL "cc" OR _tool STREQUAL "c++")
      set(_args "${_tool} -target ${_gemm_zig_target}")
    else()
      set(_args "${_tool}")
    endif()
    file(CONFIGURE OUTPUT "${GEMM_ZIG_WRAPPERS}/zig-${_tool}" CONTENT
         "#!/bin/sh\nexec \"${GEMM_ZIG}\" ${_args} \"$@\"\n" @ONLY)
    file(CHMOD "${GEMM_ZIG_WRAPPERS}/zig-${_tool}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
         GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  endforeach()
endif()
set(CMAKE_C_COMPILER "${GEMM_ZIG_WRAPPERS}/zig-cc")
set(CMAKE_CXX_COMPILER "${GEMM_ZIG_WRAPPERS}/zig-c++")
set(CMAKE_AR "${GEMM_ZIG_WRAPPERS}/zig-ar" CACHE FILEPATH "zig ar" FORCE)
set(CMAKE_RANLIB "${GEMM_ZIG_WRAPPERS}/zig-ranlib" CACHE FILEPATH "zig ranlib" FORCE)

# Nothing of the build machine's: no Linux library (OpenBLAS, OpenMP) may be found for macOS.
set(CMAKE_FIND_ROOT_PATH "${GEMM_ZIG_WRAPPERS}/no-sysroot")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
