# gemm_add_step([SOURCES file...] [SSE file...] [AVX2 file...] [AVX512 file...]
#               [NEON file...] [BUILDS_ON NN_slug] [OPENMP] [SCALAR])
#
# The one call in steps/NN_slug/CMakeLists.txt. The folder's name gives the step's number
# and slug. SOURCES build everywhere; SSE, AVX2 and AVX512 files only for x86-64 and NEON
# files only for AArch64, each with its own ISA flags. BUILDS_ON names an earlier step whose
# files this one uses, not copies: its kernel library is linked and its folder is on the
# include path (step 09 adds threads to step 08's loop nest this way). OPENMP links OpenMP
# (the step is skipped when the compiler has none). SCALAR turns auto-vectorisation off, so
# a scalar lesson measures the code as written (GCC at -O3 vectorises some of its loops and
# not others). Makes:
#   gemm_step_<slug>        the kernel library, linked into gemm::steps
#   step<slug>              the executable, in bin/
#   step-N                  (made by gemm_finish_steps) run the sweep, write the CSV, plot
#                           (gemm-step-N when gemm-steps is a subproject)

# The one limit on a step folder's name: STEP_NAME_MAX in plots/samples.py.
file(STRINGS "${CMAKE_CURRENT_LIST_DIR}/../plots/samples.py" GEMM_STEP_NAME_MAX REGEX "^STEP_NAME_MAX = [0-9]+$")
string(REGEX REPLACE "^STEP_NAME_MAX = " "" GEMM_STEP_NAME_MAX "${GEMM_STEP_NAME_MAX}")
if(NOT GEMM_STEP_NAME_MAX MATCHES "^[0-9]+$")
  message(FATAL_ERROR "gemm-steps: no STEP_NAME_MAX in ${CMAKE_CURRENT_LIST_DIR}/../plots/samples.py")
endif()

function(gemm_add_step)
  cmake_parse_arguments(PARSE_ARGV 0 arg "OPENMP;SCALAR" "BUILDS_ON" "SOURCES;SSE;AVX2;AVX512;NEON")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "gemm_add_step: unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(slug "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
  if(NOT slug MATCHES "^([0-9][0-9]+)_[a-z0-9_]+$")
    message(FATAL_ERROR "gemm_add_step: folder '${slug}' is not named NN_slug "
                        "(two or more digits, then lower-case letters, digits and _)")
  endif()
  math(EXPR number "${CMAKE_MATCH_1}")
  string(LENGTH "${slug}" length)
  if(length GREATER GEMM_STEP_NAME_MAX)
    message(FATAL_ERROR "gemm_add_step: folder '${slug}' has ${length} characters, over the limit of "
                        "${GEMM_STEP_NAME_MAX} (plots/samples.py, STEP_NAME_MAX): rename it")
  endif()
  if(arg_OPENMP AND NOT OpenMP_CXX_FOUND)
    message(STATUS "gemm-steps: step ${slug} needs OpenMP: not built")
    return()
  endif()

  set(sources ${arg_SOURCES})
  set(isas_x86_64 SSE AVX2 AVX512)
  set(isas_aarch64 NEON)
  foreach(isa IN LISTS isas_${GEMM_ARCH})
    if(arg_${isa})
      list(APPEND sources ${arg_${isa}})
      set_source_files_properties(${arg_${isa}} PROPERTIES COMPILE_OPTIONS "${GEMM_FLAGS_${isa}}")
    endif()
  endforeach()

  set(lib gemm_step_${slug})
  add_library(${lib} STATIC ${sources})
  target_compile_definitions(${lib} PRIVATE GEMM_STEP_ENTRY=gemm_step_${slug})
  target_include_directories(${lib} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${lib} PUBLIC gemm_common PRIVATE gemm_settings)
  if(arg_OPENMP)
    target_link_libraries(${lib} PUBLIC OpenMP::OpenMP_CXX)
    set_property(GLOBAL APPEND PROPERTY GEMM_PARALLEL_STEPS "${slug}")
  endif()
  if(arg_BUILDS_ON)
    if(NOT TARGET gemm_step_${arg_BUILDS_ON})
      message(FATAL_ERROR "gemm_add_step: ${slug} builds on '${arg_BUILDS_ON}', which is not a step "
                          "added before it (steps/CMakeLists.txt)")
    endif()
    target_link_libraries(${lib} PUBLIC gemm_step_${arg_BUILDS_ON})
    target_include_directories(${lib} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/../${arg_BUILDS_ON})
  endif()
  if(arg_SCALAR)
    target_compile_options(${lib} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-fno-tree-vectorize>
                           $<$<CXX_COMPILER_ID:Clang,AppleClang>:-fno-vectorize -fno-slp-vectorize>)
  endif()

  set(exe step${slug})
  add_executable(${exe} ${GEMM_COMMON_DIR}/src/step_main.cpp)
  target_compile_definitions(${exe} PRIVATE GEMM_STEP_ENTRY=gemm_step_${slug}
                             GEMM_STEP_NUMBER=${number} GEMM_STEP_SLUG="${slug}")
  target_link_libraries(${exe} PRIVATE ${lib} gemm_harness gemm_settings)
  set_target_properties(${exe} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${GEMM_BIN_DIR})

  set_property(GLOBAL APPEND PROPERTY GEMM_STEP_LIST "${number}:${slug}")
endfunction()

# The step-N target of step NUMBER (SLUG): sampled beside PREV_SLUG, the step before it, and,
# when BOTH, also on one thread beside SERIAL_PREV_SLUG, the last one-thread step before it.
function(_gemm_step_target number slug prev_slug serial_prev_slug both)
  set(deps step${slug})
  foreach(kind prev serial_prev)
    set(${kind}_csv "")
    set(${kind}_exe "")
    if(${kind}_slug AND (kind STREQUAL "prev" OR both))
      set(${kind}_csv "${GEMM_RESULTS_DIR}/step${${kind}_slug}.csv")
      set(${kind}_exe "$<TARGET_FILE:step${${kind}_slug}>")
      list(APPEND deps step${${kind}_slug})
    endif()
  endforeach()
  add_custom_target(${GEMM_TARGET_PREFIX}step-${number}
    COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:step${slug}> -DSLUG=${slug}
            -DRESULTS=${GEMM_RESULTS_DIR} -DPREV_CSV=${prev_csv} -DPYTHON=${GEMM_PYTHON}
            -DBOTH=${both} -DSERIAL_PREV_CSV=${serial_prev_csv}
            -DPREV_EXE=${prev_exe} -DSERIAL_PREV_EXE=${serial_prev_exe}
            -DSAMPLER_PYTHON=${GEMM_SAMPLER_PYTHON}
            -DINTERLEAVE=${PROJECT_SOURCE_DIR}/tools/interleave.py
            -DPLOT=${PROJECT_SOURCE_DIR}/plots/plot_gflops.py
            -P ${PROJECT_SOURCE_DIR}/cmake/RunStep.cmake
    USES_TERMINAL
    COMMENT "step ${number}: sample beside the step before it, verify, plot")
  add_dependencies(${GEMM_TARGET_PREFIX}step-${number} ${deps})
endfunction()

# After every step is added: generate the registry, make gemm::steps and the step-N targets.
function(gemm_finish_steps)
  get_property(entries GLOBAL PROPERTY GEMM_STEP_LIST)
  get_property(parallel_steps GLOBAL PROPERTY GEMM_PARALLEL_STEPS)
  list(SORT entries COMPARE NATURAL)         # by number: 9 before 10
  set(decls "")
  set(rows "")
  set(libs "")
  set(prev_slug "")
  set(prev_serial_slug "")   # the last step before that runs on one thread
  foreach(entry IN LISTS entries)
    string(REGEX REPLACE "^0*([0-9]+):(.*)$" "\\1;\\2" parts "${entry}")
    list(GET parts 0 number)
    list(GET parts 1 slug)
    string(APPEND decls "extern const gemm::StepEntry gemm_step_${slug};\n")
    string(APPEND rows "        {${number}, \"${slug}\", gemm_step_${slug}.kernel, "
                       "gemm_step_${slug}.supported, gemm_step_${slug}.def},\n")
    list(APPEND libs gemm_step_${slug})
    list(APPEND GEMM_STEP_SLUGS ${slug})
    # Parallel steps from 10 on are swept twice, as run_all.sh does: on one thread (drawn
    # beside the last one-thread step) and on all cores (_mt, beside the step before it).
    set(both 0)
    if(number GREATER_EQUAL 10 AND slug IN_LIST parallel_steps)
      set(both 1)
    endif()
    _gemm_step_target(${number} ${slug} "${prev_slug}" "${prev_serial_slug}" ${both})
    set(prev_slug ${slug})
    if(NOT slug IN_LIST parallel_steps)
      set(prev_serial_slug ${slug})
    endif()
  endforeach()
  set(GEMM_STEP_SLUGS "${GEMM_STEP_SLUGS}" PARENT_SCOPE)

  file(CONFIGURE OUTPUT "${PROJECT_BINARY_DIR}/generated/registry_steps.cpp" CONTENT
"// Generated by gemm_finish_steps() from the steps/ folders: do not edit.
#define GEMM_REGISTRY_SOURCE
#include <gemm/step.hpp>

${decls}
namespace gemm {
const std::vector<Step>& steps() {
    static const std::vector<Step> all = {
${rows}    };
    return all;
}
}  // namespace gemm
" @ONLY)
  add_library(gemm_steps STATIC "${PROJECT_BINARY_DIR}/generated/registry_steps.cpp")
  target_link_libraries(gemm_steps PUBLIC gemm_common ${libs} PRIVATE gemm_settings)
  add_library(gemm::steps ALIAS gemm_steps)
endfunction()
