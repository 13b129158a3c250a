# A clang build with both libraries' -openmp flavours configures: ref_openblas and ref_blis share
# the one harness built on libgomp (tools/ref/CMakeLists.txt). Configure only: the library
# paths are made-up files under folders named as Debian names the flavours.
#   cmake -DCHECKOUT= -DBINARY= -P ref_openmp_flavours.cmake
find_program(CLANGXX clang++)
if(NOT CLANGXX)
  message("skipped: no clang++")
  return()
endif()
file(REMOVE_RECURSE "${BINARY}")
foreach(flavour openblas-openmp blis-openmp gomp)
  file(WRITE "${BINARY}/libs/${flavour}/lib${flavour}.so" "")
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${CHECKOUT} -B ${BINARY}/build -DCMAKE_CXX_COMPILER=${CLANGXX}
                        -DCMAKE_DISABLE_FIND_PACKAGE_Catch2=TRUE
                        -DGEMM_OPENBLAS_INCLUDE_DIR=${BINARY}/libs -DGEMM_BLIS_INCLUDE_DIR=${BINARY}/libs
                        -DGEMM_OPENBLAS_LIBRARY=${BINARY}/libs/openblas-openmp/libopenblas-openmp.so
                        -DGEMM_BLIS_LIBRARY=${BINARY}/libs/blis-openmp/libblis-openmp.so
                        -DGEMM_GOMP_LIBRARY=${BINARY}/libs/gomp/libgomp.so
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring clang with both -openmp flavours failed (${rc}):\n${err}")
endif()
file(REMOVE_RECURSE "${BINARY}")
