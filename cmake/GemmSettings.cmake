# Settings every target of the project shares: language level, warnings, sanitizers, the
# target architecture and the per-file ISA flags. Nothing here is global: targets opt in by
# linking gemm_settings, so a parent project's flags are left alone.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(GEMM_ARCH x86_64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$")
  set(GEMM_ARCH aarch64)
else()
  set(GEMM_ARCH other)
endif()
message(STATUS "gemm-steps: target architecture ${GEMM_ARCH}")

# Only the files that need an instruction set beyond the architecture's baseline get its
# flags; the program checks the CPU before calling into them.
set(GEMM_FLAGS_SSE "")                      # SSE2 is part of x86-64
set(GEMM_FLAGS_AVX -mavx)
set(GEMM_FLAGS_AVX2 -mavx2 -mfma)
set(GEMM_FLAGS_AVX512 -mavx512f -mavx2 -mfma)
set(GEMM_FLAGS_NEON "")                     # Advanced SIMD is part of AArch64
# Skylake-family cores (erratum SKX102 microcode) re-decode a loop whose jump ends on or crosses
# a 32-byte boundary on every pass; the assembler's padding keeps jumps off those boundaries.
if(GEMM_ARCH STREQUAL "x86_64")
  include(CheckCXXCompilerFlag)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    set(_gemm_jcc -Wa,-mbranches-within-32B-boundaries)
  else()
    set(_gemm_jcc -mbranches-within-32B-boundaries)
  endif()
  check_cxx_compiler_flag("${_gemm_jcc}" GEMM_HAS_JCC_PADDING)
  if(GEMM_HAS_JCC_PADDING)
    foreach(_isa SSE AVX AVX2 AVX512)
      list(APPEND GEMM_FLAGS_${_isa} ${_gemm_jcc})
    endforeach()
  endif()
endif()

set(GEMM_BIN_DIR "${PROJECT_BINARY_DIR}/bin")
set(GEMM_COMMON_DIR "${PROJECT_SOURCE_DIR}/common")
# In a parent project, targets with generic names (peak, step-5) are prefixed gemm- so they
# cannot collide with the parent's own; the files in bin/ keep their names.
set(GEMM_TARGET_PREFIX "")
if(NOT PROJECT_IS_TOP_LEVEL)
  set(GEMM_TARGET_PREFIX "gemm-")
endif()

find_package(OpenMP)
if(NOT OpenMP_CXX_FOUND)
  message(STATUS "gemm-steps: OpenMP not found: parallel steps are not built")
endif()

add_library(gemm_settings INTERFACE)
target_compile_features(gemm_settings INTERFACE cxx_std_20)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(gemm_settings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                         -Wconversion -Wno-sign-conversion
                         # a GCC-only pragma left unguarded fails the clang build (CI builds both)
                         $<$<CXX_COMPILER_ID:Clang,AppleClang>:-Werror=unknown-warning-option>)
  if(GEMM_SANITIZE)
    target_compile_options(gemm_settings INTERFACE -fsanitize=address,undefined
                           -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
    target_link_options(gemm_settings INTERFACE -fsanitize=address,undefined)
  endif()
endif()
