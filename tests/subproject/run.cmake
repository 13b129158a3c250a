# Configure, build and run the consumer project against this checkout.
# A cross build (TOOLCHAIN set) configures the consumer with the same toolchain file, so that
# it targets the same architecture, and runs it through the same emulator.
file(REMOVE_RECURSE "${BINARY}")
set(toolchain "")
if(TOOLCHAIN)
  set(toolchain "-DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN}")
endif()
foreach(step
    "${CMAKE_COMMAND};-S;${SOURCE};-B;${BINARY};-DGEMM_CHECKOUT=${CHECKOUT};-DCMAKE_CXX_COMPILER=${CXX};-DCMAKE_BUILD_TYPE=Release;${toolchain}"
    "${CMAKE_COMMAND};--build;${BINARY};--target;consumer;gemm-cpuinfo;-j;2"
    "${EMULATOR};${BINARY}/consumer"
    "${EMULATOR};${BINARY}/gemm-steps/bin/cpuinfo;--steps")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "subproject: '${step}' failed (${rc})")
  endif()
endforeach()
