# Configure, build and run the consumer project against this checkout.
file(REMOVE_RECURSE "${BINARY}")
foreach(step
    "${CMAKE_COMMAND};-S;${SOURCE};-B;${BINARY};-DGEMM_CHECKOUT=${CHECKOUT};-DCMAKE_CXX_COMPILER=${CXX};-DCMAKE_BUILD_TYPE=Release"
    "${CMAKE_COMMAND};--build;${BINARY};--target;consumer;-j;2"
    "${BINARY}/consumer")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "subproject: '${step}' failed (${rc})")
  endif()
endforeach()
