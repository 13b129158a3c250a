# The README's build command on a machine without Catch2: configuring succeeds, and one line
# says the tests are skipped and how to get them.
#   cmake -DCHECKOUT= -DBINARY= -DCXX= -P no_catch2.cmake
file(REMOVE_RECURSE "${BINARY}")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${CHECKOUT} -B ${BINARY} -DCMAKE_CXX_COMPILER=${CXX}
                        -DCMAKE_DISABLE_FIND_PACKAGE_Catch2=TRUE
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring without Catch2 failed (${rc}):\n${out}\n${err}")
endif()
string(REGEX MATCHALL "Catch2 not found: tests skipped[^\n]*apt-get install catch2" lines "${out}")
list(LENGTH lines count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one line saying the tests are skipped and how to get them:\n${out}")
endif()
file(REMOVE_RECURSE "${BINARY}")
